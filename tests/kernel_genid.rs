//! Generation ids against the real kernel: a batch conditioned on a stale generation is
//! refused with `Error::Conflict` and applies nothing, the current one goes through, every
//! commit moves the generation forward, and `dump_consistent` never returns a half-applied
//! batch while another thread keeps committing.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use iptnl::netlink::Conn;
use iptnl::nft::expr::{Cmp, CmpOp, Counter, Expr, Immediate, Payload, PayloadBase};
use iptnl::nft::{Batch, Chain, Error, Family, Placement, Rule, Table, Value, Verdict};
use iptnl::sys::nf_tables::*;
use iptnl::sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

/// Concatenated payloads of every table, chain and rule dump message, all families.
fn raw_ruleset(conn: &mut Conn) -> Vec<u8> {
    let mut out = Vec::new();
    for msg in [NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE] {
        let mut buf = Vec::new();
        let st = conn
            .dump(
                "raw dump",
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
                0,
                |_| {},
                |m| {
                    buf.extend_from_slice(m.payload());
                    Ok(())
                },
            )
            .expect("raw dump");
        assert!(!st.interrupted, "nothing else changes the ruleset here");
        out.extend_from_slice(&buf);
    }
    out
}

/// A rule `ip saddr <tag> counter accept`: the tag identifies the rule in a dump.
fn tagged_rule(table: &str, chain: &str, tag: u32) -> Rule {
    let mut r = Rule::new(Family::Ipv4, table, chain);
    r.exprs = vec![
        Payload::load(PayloadBase::Network, 12, 4, 1).into(),
        Cmp {
            sreg: 1,
            op: CmpOp::Eq,
            data: Value::be32(tag),
        }
        .into(),
        Counter::default().into(),
        Immediate::verdict(Verdict::Accept).into(),
    ];
    r
}

fn tag_of(r: &Rule) -> u32 {
    match r.exprs.get(1) {
        Some(Expr::Cmp(c)) => u32::from_be_bytes(c.data.as_bytes().try_into().expect("4 bytes")),
        other => panic!("unexpected rule shape: {other:?}"),
    }
}

fn new_table_batch(name: &str, rules: u32) -> Batch {
    let mut b = Batch::new();
    b.add_table(&Table::new(Family::Ipv4, name)).unwrap();
    b.add_chain(&Chain::user(Family::Ipv4, name, "c"), true)
        .unwrap();
    for i in 0..rules {
        b.add_rule(&tagged_rule(name, "c", i), Placement::Append, false)
            .unwrap();
    }
    b
}

#[test]
fn stale_generation_is_a_conflict_and_applies_nothing() {
    common::in_netns(|| {
        common::nft_load(
            "table ip base {\n chain c {\n  ip saddr 192.0.2.1 counter accept\n }\n}\n",
        );
        let mut conn = Conn::open().unwrap();
        let old = conn.genid().unwrap();

        // An unrelated change through another connection.
        let mut other = Conn::open().unwrap();
        let mut b = Batch::new();
        b.add_table(&Table::new(Family::Ipv6, "unrelated")).unwrap();
        b.commit(&mut other).unwrap();
        let current = conn.genid().unwrap();
        assert!(current > old, "generation {old} -> {current}");

        let before = raw_ruleset(&mut conn);
        let before_text = common::nft_list();
        let mut b = new_table_batch("mine", 100);
        b.set_genid(Some(old));
        let err = b.commit(&mut conn).expect_err("stale generation");
        eprintln!("{err}");
        assert!(
            matches!(err, Error::Conflict { genid } if genid == old),
            "{err:?}"
        );
        assert!(err.to_string().contains("nothing was applied"), "{err}");
        assert_eq!(err.errno(), Some(libc::ERESTART));
        assert!(
            raw_ruleset(&mut conn) == before,
            "a refused batch changed the ruleset"
        );
        assert_eq!(common::nft_list(), before_text);
        assert_eq!(conn.genid().unwrap(), current);

        // The same batch against the current generation goes through.
        b.set_genid(Some(current));
        b.commit(&mut conn).expect("current generation");
        let after_commit = conn.genid().unwrap();
        assert!(after_commit > current, "{current} -> {after_commit}");
        let (rules, g) =
            iptnl::nft::list_rules(&mut conn, Some(Family::Ipv4), Some("mine"), Some("c")).unwrap();
        assert_eq!(rules.len(), 100);
        assert_eq!(g, after_commit);

        // A change made by the nft binary is a conflict too.
        common::run("nft", &["add", "table", "inet", "by_nft"]);
        let after_nft = conn.genid().unwrap();
        assert!(after_nft > after_commit);
        let before = raw_ruleset(&mut conn);
        let mut b = Batch::new();
        b.flush_table(Family::Ipv4, "mine").unwrap();
        b.set_genid(Some(after_commit));
        let err = b.commit(&mut conn).expect_err("stale after nft");
        assert!(matches!(err, Error::Conflict { .. }), "{err:?}");
        assert!(raw_ruleset(&mut conn) == before);
        b.set_genid(Some(after_nft));
        b.commit(&mut conn).unwrap();
        let (rules, _) =
            iptnl::nft::list_rules(&mut conn, Some(Family::Ipv4), Some("mine"), None).unwrap();
        assert!(rules.is_empty());
    });
}

#[test]
fn generation_moves_forward_on_every_commit_only() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let mut last = conn.genid().unwrap();
        // Reading does not move it.
        assert_eq!(conn.genid().unwrap(), last);
        let _ = iptnl::nft::list_tables(&mut conn, None).unwrap();
        assert_eq!(conn.genid().unwrap(), last);
        for i in 0..20u32 {
            let mut b = Batch::new();
            b.add_table(&Table::new(Family::Ipv4, format!("t{i}")))
                .unwrap();
            b.set_genid(Some(last));
            b.commit(&mut conn).unwrap();
            let g = conn.genid().unwrap();
            assert!(g > last, "commit {i}: generation {last} -> {g}");
            last = g;
            // A refused batch leaves it alone.
            let mut bad = Batch::new();
            bad.del_table(Family::Ipv4, "does-not-exist").unwrap();
            assert!(matches!(bad.commit(&mut conn), Err(Error::Rejected { .. })));
            assert_eq!(conn.genid().unwrap(), last);
        }
    });
}

/// Size of the chain dumped while a writer keeps changing it.
const BIG_CHAIN: u32 = 20_000;

/// Checks one dump of the big chain: pairs of rules with consecutive tags, `tags[i] ==
/// tags[0] + i / 2`, and always `BIG_CHAIN` rules (each writer batch removes the oldest pair
/// and appends a new one). A dump that mixed two generations would miss or repeat a pair
/// (the kernel resumes a dump by position, and the deletions at the front shift positions).
fn check_snapshot(tags: &[u32], genid: u32) {
    assert_eq!(tags.len() % 2, 0, "odd rule count at generation {genid}");
    assert_eq!(tags.len(), BIG_CHAIN as usize, "at generation {genid}");
    let first = tags[0];
    for (i, &t) in tags.iter().enumerate() {
        assert_eq!(
            t,
            first + i as u32 / 2,
            "rule {i} of {} at generation {genid} breaks the pairs",
            tags.len()
        );
    }
}

#[test]
fn consistent_dump_never_sees_half_a_batch() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        // Rules come in pairs sharing a tag: rules 2t and 2t+1 hold tag t.
        let mut b = Batch::with_capacity(BIG_CHAIN as usize * 200);
        b.add_table(&Table::new(Family::Ipv4, "g")).unwrap();
        b.add_chain(&Chain::user(Family::Ipv4, "g", "big"), true)
            .unwrap();
        for i in 0..BIG_CHAIN {
            b.add_rule(&tagged_rule("g", "big", i / 2), Placement::Append, false)
                .unwrap();
        }
        b.commit(&mut conn).unwrap();
        let (rules, _) =
            iptnl::nft::list_rules(&mut conn, Some(Family::Ipv4), Some("g"), Some("big")).unwrap();
        let tags: Vec<u32> = rules.iter().map(tag_of).collect();
        check_snapshot(&tags, 0);
        let mut handles: std::collections::VecDeque<u64> =
            rules.iter().map(|r| r.handle.unwrap()).collect();

        let stop = Arc::new(AtomicBool::new(false));
        let commits = Arc::new(AtomicU32::new(0));
        let writer = {
            let stop = stop.clone();
            let commits = commits.clone();
            let mut wconn = Conn::open().unwrap();
            std::thread::spawn(move || {
                // Each batch deletes the oldest pair and appends a new pair. Bursts of quick
                // commits (dumps running then are interrupted and retried) alternate with quiet
                // periods longer than a dump (the retries then succeed).
                let mut tag = BIG_CHAIN / 2;
                'outer: loop {
                    for _ in 0..30 {
                        if stop.load(Ordering::Relaxed) {
                            break 'outer;
                        }
                        let mut b = Batch::new();
                        for _ in 0..2 {
                            let h = handles.pop_front().unwrap();
                            b.del_rule(Family::Ipv4, "g", "big", h).unwrap();
                        }
                        let ops: Vec<_> = (0..2)
                            .map(|_| {
                                b.add_rule(&tagged_rule("g", "big", tag), Placement::Append, true)
                                    .unwrap()
                            })
                            .collect();
                        let done = b.commit(&mut wconn).unwrap();
                        handles.extend(ops.iter().map(|&op| done.handle(op).unwrap()));
                        commits.fetch_add(1, Ordering::Relaxed);
                        tag += 1;
                        std::thread::sleep(Duration::from_millis(3));
                    }
                    for _ in 0..40 {
                        if stop.load(Ordering::Relaxed) {
                            break 'outer;
                        }
                        std::thread::sleep(Duration::from_millis(25));
                    }
                }
            })
        };

        let deadline = Instant::now() + Duration::from_secs(60);
        let (mut successes, mut resets, mut gave_up) = (0u32, 0u32, 0u32);
        let mut firsts = std::collections::BTreeSet::new();
        // Enough consistent dumps, some retried, taken between at least two different bursts.
        while (successes < 4 || resets < 1 || firsts.len() < 2) && Instant::now() < deadline {
            let tags = std::cell::RefCell::new(Vec::with_capacity(BIG_CHAIN as usize));
            let mut my_resets = 0u32;
            let r = conn.dump_consistent(
                "dumping the big chain",
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
                Family::Ipv4.raw(),
                |w| {
                    w.put_str(NFTA_RULE_TABLE, "g");
                    w.put_str(NFTA_RULE_CHAIN, "big");
                },
                || {
                    my_resets += 1;
                    tags.borrow_mut().clear();
                },
                |m| {
                    if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                        tags.borrow_mut().push(tag_of(&Rule::decode(m)?));
                    }
                    Ok(())
                },
            );
            resets += my_resets;
            match r {
                Ok(genid) => {
                    let tags = tags.into_inner();
                    check_snapshot(&tags, genid);
                    firsts.insert(tags[0]);
                    successes += 1;
                }
                Err(iptnl::netlink::Error::DumpInterrupted { .. }) => gave_up += 1,
                Err(e) => panic!("{e}"),
            }
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();
        let commits = commits.load(Ordering::Relaxed);
        eprintln!(
            "{successes} consistent dumps (first tags {firsts:?}), {resets} retries, {gave_up} gave up, {commits} concurrent commits"
        );
        assert!(successes >= 4, "only {successes} consistent dumps");
        assert!(
            resets >= 1,
            "no dump was ever retried: the writer never overlapped"
        );
        assert!(
            firsts.len() >= 2,
            "all consistent dumps saw the same generation"
        );

        // Once the writer stopped, the chain holds the latest BIG_CHAIN / 2 pairs.
        let (rules, _) =
            iptnl::nft::list_rules(&mut conn, Some(Family::Ipv4), Some("g"), Some("big")).unwrap();
        let tags: Vec<u32> = rules.iter().map(tag_of).collect();
        check_snapshot(&tags, 0);
        assert_eq!(tags[0], commits);
    });
}
