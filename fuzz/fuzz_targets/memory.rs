//! The in-memory nf_tables (`iptnl::memory`): batches of any nf_tables messages, as any
//! program holding one of its connections may send, against a small seeded ruleset.
//!
//! It never panics; a refused batch leaves every dump and the generation exactly as they
//! were (all or nothing); an accepted one moves the generation at most once, and leaves the
//! dumps as they were when it does not move it; every rule it then dumps is shown (as an
//! iptables rule or raw) and saved. And a handle that read the ruleset before and follows
//! its events lists every table and its chains as a fresh handle reads them, whatever the
//! batches did (renames, deletions and replacements among them, in one commit).
//!
//! Input: a first byte (bit 0: IPv6), then up to four batches, each a count and that many
//! operations: tables, chains (user and base), renames, policies, rules from a list of
//! iptables rules at any position, deletions and flushes, rules whose expression list is
//! the input's bytes, and messages of any type whose attributes are the input's bytes.
#![no_main]

use iptnl::ipt::{encode_rule, parse_rule_str, IpFamily};
use iptnl::iptables::restore::RestoreOptions;
use iptnl::iptables::IpTables;
use iptnl::memory::Ruleset;
use iptnl::netlink::Conn;
use iptnl::nft::{Batch, Chain, ChainType, Family, Hook, Placement, Policy, Table};
use iptnl::sys::netlink::{NLA_F_NESTED, NLM_F_APPEND, NLM_F_CREATE};
use iptnl::sys::nf_tables::{
    NFTA_RULE_CHAIN, NFTA_RULE_EXPRESSIONS, NFTA_RULE_TABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE,
    NFT_MSG_GETTABLE, NFT_MSG_MAX, NFT_MSG_NEWRULE,
};
use iptnl::sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
use libfuzzer_sys::fuzz_target;

const TABLES: &[&str] = &["filter", "nat", "mangle", "raw", "t"];
const CHAINS: &[&str] = &[
    "INPUT",
    "FORWARD",
    "OUTPUT",
    "PREROUTING",
    "POSTROUTING",
    "A",
    "B",
    "C",
];
const SPECS: &[&str] = &[
    "-j ACCEPT",
    "-p tcp --dport 80 -j DROP",
    "-s 10.0.0.0/8 -j RETURN",
    "-m conntrack --ctstate NEW -j ACCEPT",
    "-m comment --comment c -j ACCEPT",
    "-j A",
    "-g B",
    "-j C",
    "-j MASQUERADE",
    "-p tcp -j DNAT --to-destination 10.0.0.1:80",
    "-j REJECT",
    "-j LOG --log-prefix x",
    "-m limit --limit 5/second -j ACCEPT",
    "-j MARK --set-xmark 0x1/0x1",
    "-j CT --notrack",
    "-m recent --name r --rcheck --seconds 10 -j DROP",
    "-m policy --dir in --pol none -j ACCEPT",
    "-m realm --realm 1 -j ACCEPT",
    "-p tcp -j TCPOPTSTRIP --strip-options mss",
    "-m addrtype --dst-type LOCAL -j RETURN",
];

/// The seeded ruleset: built-in and user chains, jumps, and rules of several extensions.
const SEED: &[(&str, &str)] = &[
    (
        "filter",
        "*filter\n:INPUT ACCEPT [0:0]\n:OUTPUT DROP [0:0]\n:A - [0:0]\n:B - [0:0]\n\
         -A INPUT -j A\n-A A -p tcp --dport 22 -j ACCEPT\n-A A -g B\n-A B -j RETURN\n\
         -A OUTPUT -m conntrack --ctstate ESTABLISHED -j ACCEPT\nCOMMIT\n",
    ),
    (
        "nat",
        "*nat\n:PREROUTING ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n:C - [0:0]\n\
         -A PREROUTING -j C\n-A POSTROUTING -j MASQUERADE\nCOMMIT\n",
    ),
];

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        b
    }

    fn pick<'s>(&mut self, from: &'s [&'s str]) -> &'s str {
        from[usize::from(self.byte()) % from.len()]
    }

    fn bytes(&mut self) -> &[u8] {
        let n = usize::from(self.byte()).min(self.0.len());
        let (b, rest) = self.0.split_at(n);
        self.0 = rest;
        b
    }

    fn handle(&mut self) -> u64 {
        u64::from(self.byte() % 48)
    }
}

fn dumps(conn: &mut Conn, family: Family) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for msg in [NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE] {
        let r = conn.dump(
            "dump",
            nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
            family.raw(),
            |_| {},
            |m| {
                let mut b = m.bytes().to_vec();
                b[8..16].fill(0);
                out.push(b);
                Ok(())
            },
        );
        if let Err(e) = r {
            out.push(format!("dump error {e}").into_bytes());
        }
    }
    out
}

/// Adds one operation read from `inp` to `b`; an operation that cannot be encoded is left
/// out.
fn push_op(b: &mut Batch, inp: &mut Input<'_>, f: IpFamily) {
    let fam = f.nft();
    let op = inp.byte() % 13;
    let t = inp.pick(TABLES);
    let _ = match op {
        0 => b.add_table(&Table::new(fam, t)),
        1 => b.del_table(fam, t),
        2 => {
            let excl = inp.byte() & 1 != 0;
            b.add_chain(&Chain::user(fam, t, inp.pick(CHAINS)), excl)
        }
        3 => {
            let num = u32::from(inp.byte() % 6);
            let priority = i32::from(inp.byte() as i8) * 50;
            let chain_type = match inp.byte() % 4 {
                0 => ChainType::Filter,
                1 => ChainType::Nat,
                2 => ChainType::Route,
                _ => ChainType::Other("bogus".into()),
            };
            let policy = Some(if inp.byte() & 1 != 0 {
                Policy::Drop
            } else {
                Policy::Accept
            });
            let hook = Hook {
                num,
                priority,
                chain_type,
                policy,
                devices: Vec::new(),
            };
            b.add_chain(&Chain::base(fam, t, inp.pick(CHAINS), hook), false)
        }
        4 => b.del_chain(fam, t, inp.pick(CHAINS)),
        5 => {
            let h = inp.handle();
            b.rename_chain(fam, t, h, inp.pick(CHAINS))
        }
        6 => {
            let p = if inp.byte() & 1 != 0 {
                Policy::Drop
            } else {
                Policy::Accept
            };
            b.set_policy(fam, t, inp.pick(CHAINS), p)
        }
        7 => {
            let c = inp.pick(CHAINS);
            let text = inp.pick(SPECS);
            let (kind, h, echo) = (inp.byte(), inp.handle(), inp.byte() & 1 != 0);
            let Ok(specs) = parse_rule_str(f, text) else {
                return;
            };
            let Some(spec) = specs.first() else {
                return;
            };
            let Ok(rule) = encode_rule(spec, f, t, c) else {
                return;
            };
            let pos = match kind % 5 {
                0 => Placement::Append,
                1 => Placement::Prepend,
                2 => Placement::After(h),
                3 => Placement::Before(h),
                _ => Placement::Replace(h),
            };
            b.add_rule(&rule, pos, echo)
        }
        8 => {
            let c = inp.pick(CHAINS);
            b.del_rule(fam, t, c, inp.handle())
        }
        9 => b.flush_chain(fam, t, inp.pick(CHAINS)),
        10 => b.flush_table(fam, t),
        11 => {
            let c = inp.pick(CHAINS);
            let exprs = inp.bytes().to_vec();
            b.push_raw(
                NFT_MSG_NEWRULE,
                NLM_F_CREATE | NLM_F_APPEND,
                fam,
                false,
                |w| {
                    w.put_str(NFTA_RULE_TABLE, t);
                    w.put_str(NFTA_RULE_CHAIN, c);
                    w.put(NFTA_RULE_EXPRESSIONS | NLA_F_NESTED, &exprs);
                },
            )
        }
        _ => {
            let msg = u16::from(inp.byte()) % (NFT_MSG_MAX + 2);
            let flags = u16::from(inp.byte()) << 8 | u16::from(inp.byte());
            let mut attrs = Vec::new();
            for _ in 0..inp.byte() % 5 {
                let ty = u16::from(inp.byte()) | u16::from(inp.byte() & 0x80) << 8;
                attrs.push((ty, inp.bytes().to_vec()));
            }
            b.push_raw(msg, flags, fam, false, |w| {
                for (ty, data) in &attrs {
                    w.put(*ty, data);
                }
            })
        }
    };
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let f = if inp.byte() & 1 != 0 {
        IpFamily::V6
    } else {
        IpFamily::V4
    };
    let rs = Ruleset::new();
    let ipt = IpTables::from_conn(f, rs.conn());
    for (_, text) in SEED {
        let text = if f == IpFamily::V6 {
            text.replace("10.0.0.0/8", "fd00::/8")
        } else {
            (*text).to_owned()
        };
        ipt.restore(&text, &RestoreOptions::default())
            .expect("the seed restores");
    }
    // A handle that read everything before, and follows the events of what comes after.
    let follower = IpTables::from_conn(f, rs.conn());
    follower.set_follow_events(true);
    for t in TABLES {
        let _ = follower.list_table_text(t);
    }
    let mut conn = rs.conn();
    let fam = f.nft();
    for _ in 0..4 {
        if inp.0.is_empty() {
            break;
        }
        let mut b = Batch::new();
        for _ in 0..inp.byte() % 9 {
            push_op(&mut b, &mut inp, f);
        }
        let (gen, before) = (rs.genid(), dumps(&mut conn, fam));
        let r = b.commit(&mut conn);
        let (gen_after, after) = (rs.genid(), dumps(&mut conn, fam));
        match &r {
            Err(e) => {
                assert_eq!(gen, gen_after, "a refused batch ({e}) moved the generation");
                assert!(before == after, "a refused batch ({e}) changed the ruleset");
            }
            Ok(_) => {
                assert!(
                    gen_after == gen || gen_after == gen.wrapping_add(1) || gen_after == 1,
                    "one batch moved the generation from {gen} to {gen_after}"
                );
                if gen_after == gen {
                    assert!(
                        before == after,
                        "a batch changed the ruleset but not the generation"
                    );
                }
            }
        }
        // Every rule is shown and saved.
        if let Ok((_, rules, _)) = iptnl::nft::list_chains_and_rules(&mut conn, None, None) {
            for r in &rules {
                let fam = match r.family {
                    Family::Ipv6 => IpFamily::V6,
                    _ => IpFamily::V4,
                };
                let _ = iptnl::ipt::decode_rule_or_raw(r, fam).to_save_args();
            }
        }
        let fresh = IpTables::from_conn(f, rs.conn());
        let _ = fresh.save(None, false);
        for t in TABLES {
            let want = format!("{:?}", fresh.list_table_text(t));
            let got = format!("{:?}", follower.list_table_text(t));
            assert_eq!(got, want, "the following handle lists {t} otherwise");
            let want = format!("{:?}", fresh.list_chains(t));
            let got = format!("{:?}", follower.list_chains(t));
            assert_eq!(
                got, want,
                "the following handle lists {t}'s chains otherwise"
            );
        }
    }
});
