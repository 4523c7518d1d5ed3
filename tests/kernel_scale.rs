//! Scale against the real kernel: a million rules in one batch, a 100,000-rule chain dumped
//! back intact, and 5,000 echoed handles. Timings are printed, never asserted.

mod common;

use std::collections::HashSet;
use std::time::Instant;

use iptnl::netlink::Conn;
use iptnl::nft::expr::{Cmp, CmpOp, Counter, Expr, Immediate, Payload, PayloadBase};
use iptnl::nft::{list_rules, Batch, Chain, Family, Placement, Rule, Table, Value, Verdict};
use iptnl::sys::nf_tables::*;
use iptnl::sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

/// A small rule: `ip saddr <n> counter accept|drop` (payload, cmp, counter, immediate).
fn small_rule(table: &str, chain: &str, n: u32) -> Rule {
    let mut r = Rule::new(Family::Ipv4, table, chain);
    r.exprs = vec![
        Payload::load(PayloadBase::Network, 12, 4, 1).into(),
        Cmp {
            sreg: 1,
            op: CmpOp::Eq,
            data: Value::be32(n),
        }
        .into(),
        Counter::default().into(),
        Immediate::verdict(if n % 2 == 0 {
            Verdict::Accept
        } else {
            Verdict::Drop
        })
        .into(),
    ];
    r
}

/// Changes the address a [`small_rule`] matches and its verdict in place (no allocation).
fn retarget(r: &mut Rule, n: u32) {
    if let Expr::Cmp(c) = &mut r.exprs[1] {
        c.data = Value::be32(n);
    }
    if let Expr::Immediate(i) = &mut r.exprs[3] {
        i.data = iptnl::nft::Data::Verdict(if n % 2 == 0 {
            Verdict::Accept
        } else {
            Verdict::Drop
        });
    }
}

/// Counts the rules of one chain with a raw dump filtered by table and chain: no decoding.
///
/// The dump is filtered by chain on purpose: the kernel resumes a rule dump by walking the
/// dumped rules again from the first one, so a dump is quadratic in the number of rules it
/// covers. A table-wide dump of a million rules takes about ten minutes; a million rules
/// dumped chain by chain take seconds.
fn count_rules(conn: &mut Conn, table: &str, chain: &str) -> usize {
    for _ in 0..5 {
        let mut n = 0usize;
        let st = conn
            .dump(
                "counting rules",
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
                Family::Ipv4.raw(),
                |w| {
                    w.put_str(NFTA_RULE_TABLE, table);
                    w.put_str(NFTA_RULE_CHAIN, chain);
                },
                |m| {
                    if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                        n += 1;
                    }
                    Ok(())
                },
            )
            .unwrap();
        if !st.interrupted {
            return n;
        }
    }
    panic!("the rule count dump kept being interrupted");
}

const MILLION: u32 = 1_000_000;
const MILLION_CHAINS: u32 = 32;

#[test]
fn one_million_rules_in_one_batch() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let t0 = Instant::now();
        let mut b = Batch::with_capacity(MILLION as usize * 232);
        b.add_table(&Table::new(Family::Ipv4, "big")).unwrap();
        let mut templates: Vec<Rule> = (0..MILLION_CHAINS)
            .map(|c| {
                let name = format!("c{c}");
                b.add_chain(&Chain::user(Family::Ipv4, "big", name.as_str()), true)
                    .unwrap();
                small_rule("big", &name, 0)
            })
            .collect();
        for n in 0..MILLION {
            let r = &mut templates[(n % MILLION_CHAINS) as usize];
            retarget(r, n);
            b.add_rule(r, Placement::Append, false).unwrap();
        }
        let encode = t0.elapsed();
        let wire = b.wire_len();
        eprintln!(
            "1M rules: encoded in {encode:?}, {} bytes on the wire ({:.1} bytes/rule)",
            wire,
            wire as f64 / MILLION as f64
        );
        if !common::send_buffer_holds("a million rules in one batch", wire) {
            return;
        }
        let t1 = Instant::now();
        let done = b.commit(&mut conn).expect("a million rules in one batch");
        eprintln!(
            "1M rules: committed in {:?} (BATCH_END acked: {})",
            t1.elapsed(),
            done.end_acked
        );
        drop(b);

        // Each chain's use count is its number of rules (nothing jumps to them)...
        let t2 = Instant::now();
        let (chains, _) =
            iptnl::nft::list_chains(&mut conn, Some(Family::Ipv4), Some("big")).unwrap();
        assert_eq!(chains.len(), MILLION_CHAINS as usize);
        let by_use: u64 = chains
            .iter()
            .map(|c| u64::from(c.use_count.expect("use count")))
            .sum();
        assert_eq!(by_use, u64::from(MILLION));
        // ...and a dump of each chain finds them all.
        let mut dumped = 0;
        for c in &chains {
            let n = count_rules(&mut conn, "big", &c.name);
            assert_eq!(n, (MILLION / MILLION_CHAINS) as usize, "chain {}", c.name);
            dumped += n;
        }
        assert_eq!(dumped, MILLION as usize);
        eprintln!("1M rules: counted by chain dumps in {:?}", t2.elapsed());

        // One chain decoded in full through the public API.
        let t3 = Instant::now();
        let (rules, _) =
            list_rules(&mut conn, Some(Family::Ipv4), Some("big"), Some("c3")).unwrap();
        eprintln!(
            "1M rules: list_rules of chain c3 ({} rules) in {:?}",
            rules.len(),
            t3.elapsed()
        );
        assert_eq!(rules.len(), (MILLION / MILLION_CHAINS) as usize);
        let mut expect = small_rule("big", "c3", 0);
        for (i, r) in rules.iter().enumerate() {
            retarget(&mut expect, 3 + MILLION_CHAINS * i as u32);
            assert_eq!(r.exprs, expect.exprs, "rule {i} of chain c3");
        }
    });
}

const HUNDRED_K: u32 = 100_000;

#[test]
fn hundred_thousand_rule_chain_dumps_back_intact() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let mut b = Batch::with_capacity(HUNDRED_K as usize * 232);
        b.add_table(&Table::new(Family::Ipv4, "h")).unwrap();
        b.add_chain(&Chain::user(Family::Ipv4, "h", "long"), true)
            .unwrap();
        // A neighbour chain the filtered dump must leave out.
        b.add_chain(&Chain::user(Family::Ipv4, "h", "other"), true)
            .unwrap();
        let mut r = small_rule("h", "long", 0);
        for n in 0..HUNDRED_K {
            retarget(&mut r, n.wrapping_mul(2_654_435_761));
            b.add_rule(&r, Placement::Append, false).unwrap();
        }
        for n in 0..10 {
            b.add_rule(&small_rule("h", "other", n), Placement::Append, false)
                .unwrap();
        }
        if !common::send_buffer_holds("a 100k-rule chain in one batch", b.wire_len()) {
            return;
        }
        let t0 = Instant::now();
        b.commit(&mut conn).unwrap();
        eprintln!("100k-rule chain: committed in {:?}", t0.elapsed());

        let t1 = Instant::now();
        let (rules, _) =
            list_rules(&mut conn, Some(Family::Ipv4), Some("h"), Some("long")).unwrap();
        eprintln!("100k-rule chain: dumped and decoded in {:?}", t1.elapsed());
        assert_eq!(rules.len(), HUNDRED_K as usize);
        let mut handles = HashSet::new();
        let mut expect = small_rule("h", "long", 0);
        for (i, got) in rules.iter().enumerate() {
            retarget(&mut expect, (i as u32).wrapping_mul(2_654_435_761));
            assert_eq!(got.family, Family::Ipv4);
            assert_eq!(got.table, "h");
            assert_eq!(got.chain, "long");
            assert_eq!(got.exprs, expect.exprs, "rule {i}");
            assert!(handles.insert(got.handle.expect("dumped rules have handles")));
        }
    });
}

const ECHOES: u32 = 5_000;

#[test]
fn five_thousand_echoed_handles_match_the_dump() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let mut b = Batch::new();
        b.add_table(&Table::new(Family::Ipv4, "e")).unwrap();
        b.add_chain(&Chain::user(Family::Ipv4, "e", "a"), true)
            .unwrap();
        b.add_chain(&Chain::user(Family::Ipv4, "e", "b"), true)
            .unwrap();
        let mut ops = Vec::with_capacity(ECHOES as usize);
        for n in 0..ECHOES {
            let chain = if n % 3 == 0 { "b" } else { "a" };
            let op = b
                .add_rule(&small_rule("e", chain, n), Placement::Append, true)
                .unwrap();
            ops.push((op, n));
        }
        let t0 = Instant::now();
        let done = b.commit(&mut conn).unwrap();
        eprintln!("5,000 echoed rules: committed in {:?}", t0.elapsed());

        let mut by_handle = std::collections::HashMap::new();
        for &(op, n) in &ops {
            let h = done
                .handle(op)
                .unwrap_or_else(|| panic!("no echoed handle for operation {op}"));
            assert!(by_handle.insert(h, n).is_none(), "handle {h} echoed twice");
        }
        assert_eq!(by_handle.len(), ECHOES as usize);
        // The table and chain operations asked for no echo.
        assert_eq!(done.handle(0), None);

        let (rules, _) = list_rules(&mut conn, Some(Family::Ipv4), Some("e"), None).unwrap();
        assert_eq!(rules.len(), ECHOES as usize);
        for r in &rules {
            let h = r.handle.expect("handle");
            let n = *by_handle
                .get(&h)
                .unwrap_or_else(|| panic!("dumped handle {h} was not echoed"));
            let expect = small_rule("e", if n % 3 == 0 { "b" } else { "a" }, n);
            assert_eq!(r.chain, expect.chain, "handle {h}");
            assert_eq!(r.exprs, expect.exprs, "handle {h}");
        }
    });
}

/// The socket's current `SO_SNDBUF`.
fn send_buffer_size(conn: &Conn) -> usize {
    conn.socket().unwrap().send_buffer_size().unwrap()
}

/// Batches whose size is right around the socket's send buffer size are sent whole: the
/// kernel refuses a message longer than the send buffer minus 32 bytes with EMSGSIZE, so the
/// buffer must be raised before that point.
#[test]
fn batches_around_the_send_buffer_size_commit() {
    common::in_netns(|| {
        let sndbuf = send_buffer_size(&Conn::open().unwrap());
        for delta in (-48i64..=16).step_by(4) {
            let target = (sndbuf as i64 + delta) as usize;
            let mut conn = Conn::open().unwrap();
            assert_eq!(send_buffer_size(&conn), sndbuf);
            let mut b = Batch::new();
            b.add_table(&Table::new(Family::Ipv4, "z")).unwrap();
            b.add_chain(&Chain::user(Family::Ipv4, "z", "c"), true)
                .unwrap();
            // Rules whose user data (up to 256 bytes) is sized so that the batch is exactly
            // `target` bytes.
            let mut r = small_rule("z", "c", 0);
            r.userdata = Some(Vec::new());
            let base = {
                let mut probe = Batch::new();
                let empty = probe.wire_len();
                probe.add_rule(&r, Placement::Append, false).unwrap();
                probe.wire_len() - empty
            };
            let mut n = 0;
            while b.wire_len() < target {
                let left = target - b.wire_len() - base;
                let mut u = left.min(256);
                if left - u != 0 && left - u < base {
                    u -= base;
                }
                retarget(&mut r, n);
                r.userdata = Some(vec![0xAB; u]);
                b.add_rule(&r, Placement::Append, false).unwrap();
                n += 1;
            }
            assert_eq!(b.wire_len(), target);
            b.commit(&mut conn).unwrap_or_else(|e| {
                panic!("batch of {target} bytes (send buffer {sndbuf} bytes): {e}")
            });
            let mut del = Batch::new();
            del.del_table(Family::Ipv4, "z").unwrap();
            del.commit(&mut conn).unwrap();
        }
    });
}
