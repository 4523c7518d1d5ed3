//! Atomicity of big batches against the real kernel: a 10,000-operation batch with one bad
//! rule (first, middle or last) is refused as a whole, the error names the right operation,
//! and the ruleset is left byte-for-byte as it was.

mod common;

use iptnl::netlink::{Conn, MsgWriter};
use iptnl::nft::error::group_thousands;
use iptnl::nft::expr::{
    Cmp, CmpOp, Counter, Expr, Immediate, Match, Payload, PayloadBase, RawExpr,
};
use iptnl::nft::{Batch, Chain, Error, Family, Placement, Rule, Table, Value, Verdict};
use iptnl::sys::nf_tables::*;
use iptnl::sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

/// Number of rules in the batch (on top of the table and chain operations).
const RULES: usize = 10_000;
/// User chains the service rules jump to.
const ENDPOINT_CHAINS: usize = 10;

const EXISTING: &str = "\
table ip t {
    chain input {
        type filter hook input priority filter; policy accept;
        ip saddr 192.0.2.1 counter accept
        tcp dport 22 counter jump existing
    }
    chain existing {
        ip daddr 198.51.100.0/24 counter drop
        counter return
    }
}
table ip6 other {
    chain forward_in {
        type filter hook forward priority filter; policy drop;
        ip6 saddr 2001:db8::1 counter accept
    }
}
";

/// Concatenated payloads (nfgenmsg + attributes) of every table, chain, rule, set and
/// object dump message of every family.
fn raw_ruleset(conn: &mut Conn) -> Vec<u8> {
    let mut out = Vec::new();
    for msg in [
        NFT_MSG_GETTABLE,
        NFT_MSG_GETCHAIN,
        NFT_MSG_GETRULE,
        NFT_MSG_GETSET,
        NFT_MSG_GETOBJ,
    ] {
        let mut tries = 0;
        loop {
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
            if !st.interrupted {
                out.extend_from_slice(&buf);
                break;
            }
            tries += 1;
            assert!(
                tries < 10,
                "dump of message type {msg} keeps being interrupted"
            );
        }
    }
    out
}

fn payload_cmp(base: PayloadBase, offset: u32, bytes: &[u8]) -> [Expr; 2] {
    [
        Payload::load(base, offset, bytes.len() as u32, 1).into(),
        Cmp {
            sreg: 1,
            op: CmpOp::Eq,
            data: Value::new(bytes).unwrap(),
        }
        .into(),
    ]
}

fn ep_chain(i: usize) -> String {
    format!("ep{i}")
}

/// Rule `i` of the batch: every fifth one is a "service" rule in chain `svc` (daddr, tcp,
/// dport, counter, jump to an endpoint chain); the others are "endpoint" rules (saddr,
/// counter, accept) spread over the endpoint chains.
fn good_rule(i: usize) -> Rule {
    let n = i as u32;
    if i % 5 == 0 {
        let mut r = Rule::new(Family::Ipv4, "t", "svc");
        let ip = 0x0a60_0000u32 | n;
        r.exprs
            .extend(payload_cmp(PayloadBase::Network, 16, &ip.to_be_bytes()));
        r.exprs.extend(payload_cmp(PayloadBase::Network, 9, &[6]));
        r.exprs.extend(payload_cmp(
            PayloadBase::Transport,
            2,
            &(1024 + (n % 60000) as u16).to_be_bytes(),
        ));
        r.exprs.push(Counter::default().into());
        r.exprs
            .push(Immediate::verdict(Verdict::Jump(ep_chain((i / 5) % ENDPOINT_CHAINS))).into());
        r
    } else {
        let mut r = Rule::new(Family::Ipv4, "t", ep_chain(i % ENDPOINT_CHAINS));
        let ip = 0x0af4_0000u32 | n;
        r.exprs
            .extend(payload_cmp(PayloadBase::Network, 12, &ip.to_be_bytes()));
        r.exprs.push(Counter::default().into());
        r.exprs.push(Immediate::verdict(Verdict::Accept).into());
        r
    }
}

/// How the bad rule is broken.
#[derive(Debug, Clone, Copy)]
enum Breakage {
    /// Its verdict jumps to a chain that does not exist.
    MissingJumpTarget,
    /// It uses an x_tables match the kernel does not have.
    UnknownMatch,
    /// Its `cmp` carries an operator value the kernel does not know.
    InvalidAttribute,
}

/// The bad version of rule `i`, and the 1-based number of the expression that is wrong.
fn bad_rule(i: usize, how: Breakage) -> (Rule, usize) {
    let mut r = good_rule(i);
    match how {
        Breakage::MissingJumpTarget => {
            *r.exprs.last_mut().unwrap() = Immediate::verdict(Verdict::Jump("NOPE".into())).into();
            let n = r.exprs.len();
            (r, n)
        }
        Breakage::UnknownMatch => {
            let at = r.exprs.len() - 2;
            r.exprs.insert(
                at,
                Match {
                    name: "nosuchmatch".into(),
                    rev: 0,
                    info: vec![0; 8],
                }
                .into(),
            );
            (r, at + 1)
        }
        Breakage::InvalidAttribute => {
            let mut w = MsgWriter::new();
            w.put_be32(NFTA_CMP_SREG, 1);
            w.put_be32(NFTA_CMP_OP, 99);
            let n = w.nest(NFTA_CMP_DATA);
            w.put(NFTA_DATA_VALUE, &[10, 0, 0, 1]);
            w.end_nest(n);
            r.exprs[1] = Expr::Raw(RawExpr {
                name: "cmp".into(),
                data: Some(w.into_bytes()),
            });
            (r, 2)
        }
    }
}

/// The 10,000-rule batch, with the rule whose operation index is `bad_op` broken. Returns the
/// batch, the index of the first rule operation and the bad rule with its expression number.
fn build(bad: Option<(usize, Breakage)>) -> (Batch, usize, Option<(Rule, usize)>) {
    let mut b = Batch::with_capacity(RULES * 256);
    b.add_table(&Table::new(Family::Ipv4, "t")).unwrap();
    b.add_chain(&Chain::user(Family::Ipv4, "t", "svc"), true)
        .unwrap();
    for c in 0..ENDPOINT_CHAINS {
        b.add_chain(&Chain::user(Family::Ipv4, "t", ep_chain(c)), true)
            .unwrap();
    }
    let first_rule_op = b.len();
    let mut bad_out = None;
    for i in 0..RULES {
        let op_index = first_rule_op + i;
        let r = match bad {
            Some((k, how)) if k == op_index => {
                let (r, expr_no) = bad_rule(i, how);
                bad_out = Some((r.clone(), expr_no));
                r
            }
            _ => good_rule(i),
        };
        let op = b.add_rule(&r, Placement::Append, false).unwrap();
        assert_eq!(op, op_index);
    }
    (b, first_rule_op, bad_out)
}

fn check_refused(how: Breakage) {
    common::in_netns(|| {
        common::nft_load(EXISTING);
        let mut conn = Conn::open().unwrap();
        let before = raw_ruleset(&mut conn);
        assert!(before.len() > 200, "the existing ruleset was not dumped");
        let before_text = common::nft_list();
        let genid_before = conn.genid().unwrap();
        let (probe, first_rule_op, _) = build(None);
        let last_op = probe.len() - 1;
        assert_eq!(probe.len(), first_rule_op + RULES);
        for k in [first_rule_op, first_rule_op + RULES / 2, last_op] {
            let (mut b, _, bad) = build(Some((k, how)));
            let (bad, expr_no) = bad.unwrap();
            let t0 = std::time::Instant::now();
            let err = b
                .commit(&mut conn)
                .expect_err("a batch with a bad rule must fail");
            eprintln!("{how:?} at op {k}: refused in {:?}", t0.elapsed());
            let msg = err.to_string();
            eprintln!("  {msg}");
            let Error::Rejected { failures } = &err else {
                panic!("expected Error::Rejected, got {err:?}");
            };
            assert_eq!(failures.len(), 1, "{failures:?}");
            let f = &failures[0];
            assert_eq!(f.index, k, "{msg}");
            let op_words = format!("operation {} of the batch", group_thousands(k as u64 + 1));
            assert!(msg.contains(&op_words), "{msg:?} lacks {op_words:?}");
            let what = format!("(append rule to chain {} in table ip t)", bad.chain);
            assert!(msg.contains(&what), "{msg:?} lacks {what:?}");
            assert!(msg.contains("nothing was applied"), "{msg}");
            let (errno, words) = match how {
                Breakage::MissingJumpTarget => (
                    libc::ENOENT,
                    format!(
                        "expression {expr_no} (immediate): jump target chain NOPE does not exist in table ip t"
                    ),
                ),
                Breakage::UnknownMatch => (
                    libc::ENOENT,
                    format!("expression {expr_no} (match): the kernel does not offer the x_tables match `nosuchmatch' revision 0"),
                ),
                Breakage::InvalidAttribute => (
                    libc::EINVAL,
                    format!("expression {expr_no} (cmp) was refused as invalid"),
                ),
            };
            assert_eq!(f.errno, errno, "{msg}");
            assert!(msg.contains(&words), "{msg:?} lacks {words:?}");
            let after = raw_ruleset(&mut conn);
            assert!(
                before == after,
                "the ruleset changed after a refused batch ({} bytes before, {} after)",
                before.len(),
                after.len()
            );
            assert_eq!(common::nft_list(), before_text);
            assert_eq!(conn.genid().unwrap(), genid_before);
        }
        // The same batch without the bad rule goes through, so the refusal was the bad rule's.
        let (mut good, _, _) = build(None);
        good.commit(&mut conn)
            .expect("the batch without the bad rule");
        let (rules, _) =
            iptnl::nft::list_rules(&mut conn, Some(Family::Ipv4), Some("t"), None).unwrap();
        assert_eq!(rules.len(), RULES + 4);
        assert_ne!(raw_ruleset(&mut conn), before);
    });
}

#[test]
fn missing_jump_target_refuses_the_whole_batch() {
    check_refused(Breakage::MissingJumpTarget);
}

#[test]
fn unknown_xt_match_refuses_the_whole_batch() {
    check_refused(Breakage::UnknownMatch);
}

#[test]
fn invalid_expression_attribute_refuses_the_whole_batch() {
    check_refused(Breakage::InvalidAttribute);
}
