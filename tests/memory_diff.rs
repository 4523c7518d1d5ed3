//! Differential property test of the in-memory ruleset against the kernel: random sequences
//! of 1–50 operations drawn from the whole `IpTables` API (writes, reads, transactions,
//! restores, saves, owned-chain syncs, counters, a second writer), many of them failing on
//! purpose (missing tables and chains, duplicates, chains in use, loops, chains nested too
//! deep, targets outside their table or hook, bad positions, transactions and restores with
//! a bad step in the middle), run against a fresh network namespace and against
//! `IpTables::in_memory` side by side. After every operation the results must be equal
//! (the same value, or the same error with the same text) and the full dumps of tables,
//! chains and rules byte-identical, with the same generation.
//!
//! `IPTNL_MEMDIFF_CASES` sets the number of sequences (2,000 by default; the longer run is
//! documented in `docs/memory.md`); a failing sequence is shrunk and its seed recorded in
//! `tests/memory_diff.proptest-regressions`, replayed first by every later run. The error
//! kinds the run produced are counted and written to
//! `$CARGO_TARGET_TMPDIR/memory_diff_coverage.txt`.

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;

use iptnl::ipt::{IpFamily, ReaderFloor};
use iptnl::iptables::restore::RestoreOptions;
use iptnl::iptables::IpTables;
use iptnl::netlink::Conn;
use iptnl::nft::Policy;
use iptnl::sync::{Desired, Owner};
use iptnl::Position;
use iptnl_sys::nf_tables::{NFT_MSG_GETCHAIN, NFT_MSG_GETRULE, NFT_MSG_GETTABLE};
use iptnl_sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

const TABLES: &[&str] = &["filter", "nat", "mangle", "raw"];

fn chains_of(table: &str) -> &'static [&'static str] {
    match table {
        "filter" => &["INPUT", "FORWARD", "OUTPUT", "A", "B", "C"],
        "nat" => &[
            "PREROUTING",
            "INPUT",
            "OUTPUT",
            "POSTROUTING",
            "A",
            "B",
            "C",
        ],
        "mangle" => &[
            "PREROUTING",
            "INPUT",
            "FORWARD",
            "OUTPUT",
            "POSTROUTING",
            "A",
            "B",
        ],
        _ => &["PREROUTING", "OUTPUT", "A", "B"],
    }
}

/// Rule specs, valid somewhere (many only in some tables, hooks or with a protocol).
const SPECS: &[&str] = &[
    "-j ACCEPT",
    "-j DROP",
    "-j RETURN",
    "-p tcp --dport 80 -j ACCEPT",
    "-p udp --sport 53 -j DROP",
    "-s 10.0.0.0/8 -j DROP",
    "-d 192.168.1.1 -p tcp -j ACCEPT",
    "-i eth0 -j ACCEPT",
    "-o lo ! -p icmp -j DROP",
    "-m comment --comment \"kube: a service\" -j ACCEPT",
    "-m conntrack --ctstate NEW,ESTABLISHED -j ACCEPT",
    "-m state --state INVALID -j DROP",
    "-m mark --mark 0x4000/0x4000 -j RETURN",
    "-j MARK --set-xmark 0x4000/0x4000",
    "-j CONNMARK --set-mark 1",
    "-m addrtype --dst-type LOCAL -j RETURN",
    "-m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT",
    "-p tcp -m multiport --dports 80,443 -j ACCEPT",
    "-m statistic --mode random --probability 0.50000000000 -j RETURN",
    "-j MASQUERADE",
    "-p tcp -j MASQUERADE --to-ports 1024-65535",
    "-p tcp -j DNAT --to-destination 10.0.0.1:8080",
    "-j SNAT --to-source 10.0.0.2",
    "-p tcp -j REDIRECT --to-ports 8080",
    "-j REJECT",
    "-p tcp -j REJECT --reject-with tcp-reset",
    "-j REJECT --reject-with tcp-reset",
    "-j LOG --log-prefix \"dropped: \"",
    "-j NFLOG --nflog-group 2",
    "-j CT --notrack",
    "-j CT --zone 3",
    "-p tcp -j TPROXY --on-port 1080 --tproxy-mark 0x1/0x1",
    "-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu",
    "-j TCPMSS --set-mss 1400",
    "-j DSCP --set-dscp 10",
    "-m limit --limit 5/second -j ACCEPT",
    "-m physdev --physdev-out eth0 -j ACCEPT",
    "-m owner --uid-owner 0 -j ACCEPT",
    "-m pkttype --pkt-type broadcast -j DROP",
    "-m length --length 100:200 -j DROP",
    "-m iprange --src-range 10.0.0.1-10.0.0.9 -j DROP",
    "-j TRACE",
    "-j NFQUEUE --queue-num 3",
    "-j CLASSIFY --set-class 1:1",
    "-j A",
    "-j B",
    "-j C",
    "-g A",
    "-p tcp -j B",
    "-j NOSUCH",
    "-m recent --name aff --rsource --rcheck --seconds 10800 --reap -j ACCEPT",
    "-m recent --name aff --set -j ACCEPT",
    "-p sctp --dport 80 -j ACCEPT",
    "-p esp -m esp --espspi 100 -j ACCEPT",
    "-m string --algo bm --string evil -j DROP",
    "-m policy --dir in --pol ipsec -j ACCEPT",
    "-m policy --dir out --pol none -j ACCEPT",
    "-m devgroup --src-group 1 -j ACCEPT",
    "-m connlimit --connlimit-above 10 -j DROP",
    "-p tcp -m ecn --ecn-tcp-cwr -j ACCEPT",
    "-m realm --realm 1 -j ACCEPT",
    "-j AUDIT --type drop",
    "-p tcp -j TCPOPTSTRIP --strip-options mss",
];

/// The same for IPv6 where a spec is IPv4-only.
fn spec_for(family: IpFamily, s: &str) -> String {
    if family == IpFamily::V4 {
        return s.to_owned();
    }
    s.replace("10.0.0.0/8", "fd00::/8")
        .replace("192.168.1.1", "2001:db8::1")
        .replace("! -p icmp", "! -p ipv6-icmp")
        .replace("10.0.0.1:8080", "[fd00::1]:8080")
        .replace("10.0.0.2", "fd00::2")
        .replace("10.0.0.1-10.0.0.9", "fd00::1-fd00::9")
}

#[derive(Debug, Clone)]
enum Tx {
    Append(usize, usize, usize),
    Insert(usize, usize, u32, usize),
    Delete(usize, usize, usize),
    DeleteNumber(usize, usize, u32),
    NewChain(usize, usize),
    DeleteChain(usize, usize),
    Flush(usize, usize),
    Policy(usize, usize, bool),
}

#[derive(Debug, Clone)]
enum Op {
    Append(usize, usize, usize),
    AppendUnique(usize, usize, usize),
    Insert(usize, usize, u32, usize),
    InsertUnique(usize, usize, u32, usize),
    Replace(usize, usize, u32, usize),
    Delete(usize, usize, usize),
    DeleteIfExists(usize, usize, usize),
    DeleteAll(usize, usize, usize),
    DeleteNumber(usize, usize, u32),
    Exists(usize, usize, usize),
    List(usize, usize),
    ListCounters(usize, usize),
    ListChains(usize),
    ChainExists(usize, usize),
    NewChain(usize, usize),
    ClearChain(usize, usize),
    Rename(usize, usize, usize),
    DeleteChain(usize, usize),
    ClearAndDelete(usize, usize),
    ClearAll(usize),
    DeleteAllChains(usize),
    SetPolicy(usize, usize, bool),
    GetPolicy(usize, usize),
    Zero(usize, usize, Option<u32>),
    Stats(usize, usize),
    Txn(Vec<Tx>),
    Restore {
        table: usize,
        lines: Vec<String>,
        noflush: bool,
        counters: bool,
        commit: bool,
    },
    Save(Option<usize>, bool),
    /// Owned chains: one chain of the owner with these rules, hooked into a built-in chain.
    Sync {
        table: usize,
        rules: Vec<usize>,
        hook: usize,
        first: bool,
    },
    /// `n` user chains jumping each other, the first jumped to from a built-in chain.
    Deep(usize, usize),
    /// An operation through a second handle on the same ruleset.
    Other(Box<Op>),
    /// A restore with an unknown chain in the middle: nothing may be applied.
    BadRestore(usize, usize),
    /// A batch of nf_tables operations sent as it is, past the planner (what the kernel
    /// itself refuses: missing objects, duplicates, chains in use, bad positions…).
    Raw(Vec<RawOp>),
}

#[derive(Debug, Clone)]
enum RawOp {
    AddTable(usize, bool),
    DelTable(usize),
    AddChain(usize, usize, bool),
    AddBase(usize, u32, i32, u8),
    DelChain(usize, usize),
    Rename(usize, u64, usize),
    Policy(usize, usize, bool),
    AddRule(usize, usize, usize, RawPos, bool),
    DelRule(usize, usize, u64),
    Flush(usize, usize),
    FlushTable(usize),
}

#[derive(Debug, Clone, Copy)]
enum RawPos {
    Append,
    Prepend,
    After(u64),
    Before(u64),
    Replace(u64),
}

fn t() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0..2usize, 1 => 2..4usize]
}

fn c() -> impl Strategy<Value = usize> {
    0..7usize
}

fn s() -> impl Strategy<Value = usize> {
    0..SPECS.len()
}

fn pos() -> impl Strategy<Value = u32> {
    0..5u32
}

fn restore_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (c(), s(), any::<bool>()).prop_map(|(c, s, cnt)| format!(
            "{}-A {{{c}}} {}",
            if cnt { "[3:120] " } else { "" },
            SPECS[s]
        )),
        1 => (c(), 1..4u32, s()).prop_map(|(c, n, s)| format!("-I {{{c}}} {n} {}", SPECS[s])),
        1 => (c(), 1..3u32).prop_map(|(c, n)| format!("-D {{{c}}} {n}")),
        1 => c().prop_map(|c| format!(":{{{c}}} - [0:0]")),
        1 => (c(), any::<bool>()).prop_map(|(c, d)| format!(
            ":{{{c}}} {} [5:500]",
            if d { "DROP" } else { "ACCEPT" }
        )),
        1 => c().prop_map(|c| format!("-F {{{c}}}")),
        1 => c().prop_map(|c| format!("-X {{{c}}}")),
        1 => c().prop_map(|c| format!("-N {{{c}}}")),
        1 => (c(), any::<bool>()).prop_map(|(c, d)| format!(
            "-P {{{c}}} {}",
            if d { "DROP" } else { "ACCEPT" }
        )),
        1 => Just("-Z".to_owned()),
    ]
}

fn tx_op() -> impl Strategy<Value = Tx> {
    prop_oneof![
        4 => (t(), c(), s()).prop_map(|(t, c, s)| Tx::Append(t, c, s)),
        1 => (t(), c(), pos(), s()).prop_map(|(t, c, p, s)| Tx::Insert(t, c, p, s)),
        1 => (t(), c(), s()).prop_map(|(t, c, s)| Tx::Delete(t, c, s)),
        1 => (t(), c(), pos()).prop_map(|(t, c, n)| Tx::DeleteNumber(t, c, n)),
        2 => (t(), c()).prop_map(|(t, c)| Tx::NewChain(t, c)),
        1 => (t(), c()).prop_map(|(t, c)| Tx::DeleteChain(t, c)),
        1 => (t(), c()).prop_map(|(t, c)| Tx::Flush(t, c)),
        1 => (t(), c(), any::<bool>()).prop_map(|(t, c, d)| Tx::Policy(t, c, d)),
    ]
}

fn base_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (t(), c(), s()).prop_map(|(t, c, s)| Op::Append(t, c, s)),
        2 => (t(), c(), s()).prop_map(|(t, c, s)| Op::AppendUnique(t, c, s)),
        4 => (t(), c(), pos(), s()).prop_map(|(t, c, p, s)| Op::Insert(t, c, p, s)),
        1 => (t(), c(), pos(), s()).prop_map(|(t, c, p, s)| Op::InsertUnique(t, c, p, s)),
        2 => (t(), c(), pos(), s()).prop_map(|(t, c, p, s)| Op::Replace(t, c, p, s)),
        2 => (t(), c(), s()).prop_map(|(t, c, s)| Op::Delete(t, c, s)),
        1 => (t(), c(), s()).prop_map(|(t, c, s)| Op::DeleteIfExists(t, c, s)),
        1 => (t(), c(), s()).prop_map(|(t, c, s)| Op::DeleteAll(t, c, s)),
        2 => (t(), c(), pos()).prop_map(|(t, c, n)| Op::DeleteNumber(t, c, n)),
        2 => (t(), c(), s()).prop_map(|(t, c, s)| Op::Exists(t, c, s)),
        1 => (t(), c()).prop_map(|(t, c)| Op::List(t, c)),
        1 => (t(), c()).prop_map(|(t, c)| Op::ListCounters(t, c)),
        1 => t().prop_map(Op::ListChains),
        1 => (t(), c()).prop_map(|(t, c)| Op::ChainExists(t, c)),
        6 => (t(), c()).prop_map(|(t, c)| Op::NewChain(t, c)),
        1 => (t(), c()).prop_map(|(t, c)| Op::ClearChain(t, c)),
        2 => (t(), c(), c()).prop_map(|(t, a, b)| Op::Rename(t, a, b)),
        3 => (t(), c()).prop_map(|(t, c)| Op::DeleteChain(t, c)),
        1 => (t(), c()).prop_map(|(t, c)| Op::ClearAndDelete(t, c)),
        1 => t().prop_map(Op::ClearAll),
        1 => t().prop_map(Op::DeleteAllChains),
        2 => (t(), c(), any::<bool>()).prop_map(|(t, c, d)| Op::SetPolicy(t, c, d)),
        1 => (t(), c()).prop_map(|(t, c)| Op::GetPolicy(t, c)),
        1 => (t(), c(), prop::option::of(pos())).prop_map(|(t, c, r)| Op::Zero(t, c, r)),
        1 => (t(), c()).prop_map(|(t, c)| Op::Stats(t, c)),
        3 => prop::collection::vec(tx_op(), 1..6).prop_map(Op::Txn),
        3 => (
            t(),
            prop::collection::vec(restore_line(), 0..8),
            any::<bool>(),
            any::<bool>(),
            prop::bool::weighted(0.9)
        )
            .prop_map(|(table, lines, noflush, counters, commit)| Op::Restore {
                table,
                lines,
                noflush,
                counters,
                commit
            }),
        1 => (prop::option::of(t()), any::<bool>()).prop_map(|(t, c)| Op::Save(t, c)),
        2 => (t(), prop::collection::vec(s(), 0..4), c(), any::<bool>()).prop_map(
            |(table, rules, hook, first)| Op::Sync {
                table,
                rules,
                hook,
                first
            }
        ),
        1 => (t(), 13..19usize).prop_map(|(t, n)| Op::Deep(t, n)),
        1 => (t(), c()).prop_map(|(t, c)| Op::BadRestore(t, c)),
        4 => prop::collection::vec(raw_op(), 1..6).prop_map(Op::Raw),
    ]
}

fn handle() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 1..12u64, 1 => 12..40u64]
}

fn raw_op() -> impl Strategy<Value = RawOp> {
    prop_oneof![
        1 => (t(), any::<bool>()).prop_map(|(t, x)| RawOp::AddTable(t, x)),
        1 => t().prop_map(RawOp::DelTable),
        3 => (t(), c(), any::<bool>()).prop_map(|(t, c, x)| RawOp::AddChain(t, c, x)),
        1 => (t(), 0..6u32, prop_oneof![Just(0i32), Just(-300), Just(100), Just(-200)], 0..4u8)
            .prop_map(|(t, h, p, ty)| RawOp::AddBase(t, h, p, ty)),
        2 => (t(), c()).prop_map(|(t, c)| RawOp::DelChain(t, c)),
        1 => (t(), handle(), c()).prop_map(|(t, h, c)| RawOp::Rename(t, h, c)),
        1 => (t(), c(), any::<bool>()).prop_map(|(t, c, d)| RawOp::Policy(t, c, d)),
        5 => (
            t(),
            c(),
            s(),
            prop_oneof![
                3 => Just(RawPos::Append),
                1 => Just(RawPos::Prepend),
                1 => handle().prop_map(RawPos::After),
                1 => handle().prop_map(RawPos::Before),
                1 => handle().prop_map(RawPos::Replace),
            ],
            any::<bool>()
        )
            .prop_map(|(t, c, s, p, e)| RawOp::AddRule(t, c, s, p, e)),
        2 => (t(), c(), handle()).prop_map(|(t, c, h)| RawOp::DelRule(t, c, h)),
        1 => (t(), c()).prop_map(|(t, c)| RawOp::Flush(t, c)),
        1 => t().prop_map(RawOp::FlushTable),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => base_op(),
        1 => base_op().prop_map(|o| Op::Other(Box::new(o))),
    ]
}

fn chain(t: usize, c: usize) -> &'static str {
    let cs = chains_of(TABLES[t]);
    cs[c % cs.len()]
}

fn pol(d: bool) -> Policy {
    if d {
        Policy::Drop
    } else {
        Policy::Accept
    }
}

/// Runs one operation; its result as text (values and errors alike).
fn run(ipt: &IpTables, other: &IpTables, op: &Op) -> String {
    let f = ipt.family();
    let sp = |s: usize| spec_for(f, SPECS[s]);
    let r = |x: Result<String, iptnl::iptables::Error>| match x {
        Ok(v) => format!("ok {v}"),
        Err(e) => format!("err {e:?}"),
    };
    match op {
        Op::Append(t, c, s) => r(ipt
            .append(TABLES[*t], chain(*t, *c), sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::AppendUnique(t, c, s) => r(ipt
            .append_unique(TABLES[*t], chain(*t, *c), sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::Insert(t, c, p, s) => r(ipt
            .insert(TABLES[*t], chain(*t, *c), *p, sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::InsertUnique(t, c, p, s) => r(ipt
            .insert_unique(TABLES[*t], chain(*t, *c), *p, sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::Replace(t, c, p, s) => r(ipt
            .replace(TABLES[*t], chain(*t, *c), *p, sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::Delete(t, c, s) => r(ipt
            .delete(TABLES[*t], chain(*t, *c), sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::DeleteIfExists(t, c, s) => r(ipt
            .delete_if_exists(TABLES[*t], chain(*t, *c), sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::DeleteAll(t, c, s) => r(ipt
            .delete_all(TABLES[*t], chain(*t, *c), sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::DeleteNumber(t, c, n) => r(ipt
            .delete_by_number(TABLES[*t], chain(*t, *c), *n)
            .map(|v| format!("{v:?}"))),
        Op::Exists(t, c, s) => r(ipt
            .exists(TABLES[*t], chain(*t, *c), sp(*s).as_str())
            .map(|v| format!("{v:?}"))),
        Op::List(t, c) => r(ipt
            .list(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::ListCounters(t, c) => r(ipt
            .list_with_counters(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::ListChains(t) => r(ipt.list_chains(TABLES[*t]).map(|v| format!("{v:?}"))),
        Op::ChainExists(t, c) => r(ipt
            .chain_exists(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::NewChain(t, c) => r(ipt
            .new_chain(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::ClearChain(t, c) => r(ipt
            .clear_chain(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::Rename(t, a, b) => r(ipt
            .rename_chain(TABLES[*t], chain(*t, *a), chain(*t, *b))
            .map(|v| format!("{v:?}"))),
        Op::DeleteChain(t, c) => r(ipt
            .delete_chain(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::ClearAndDelete(t, c) => r(ipt
            .clear_and_delete_chain(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::ClearAll(t) => r(ipt.clear_all(TABLES[*t]).map(|v| format!("{v:?}"))),
        Op::DeleteAllChains(t) => r(ipt.delete_all_chains(TABLES[*t]).map(|v| format!("{v:?}"))),
        Op::SetPolicy(t, c, d) => r(ipt
            .set_policy(TABLES[*t], chain(*t, *c), pol(*d))
            .map(|v| format!("{v:?}"))),
        Op::GetPolicy(t, c) => r(ipt
            .get_policy(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::Zero(t, c, n) => r(ipt
            .zero(TABLES[*t], chain(*t, *c), *n)
            .map(|v| format!("{v:?}"))),
        Op::Stats(t, c) => r(ipt
            .stats(TABLES[*t], chain(*t, *c))
            .map(|v| format!("{v:?}"))),
        Op::Txn(ops) => {
            let mut tx = ipt.transaction();
            for o in ops {
                match o {
                    Tx::Append(t, c, s) => tx.append(TABLES[*t], chain(*t, *c), sp(*s).as_str()),
                    Tx::Insert(t, c, p, s) => {
                        tx.insert(TABLES[*t], chain(*t, *c), *p, sp(*s).as_str())
                    }
                    Tx::Delete(t, c, s) => tx.delete(TABLES[*t], chain(*t, *c), sp(*s).as_str()),
                    Tx::DeleteNumber(t, c, n) => tx.delete_by_number(TABLES[*t], chain(*t, *c), *n),
                    Tx::NewChain(t, c) => tx.new_chain(TABLES[*t], chain(*t, *c)),
                    Tx::DeleteChain(t, c) => tx.delete_chain(TABLES[*t], chain(*t, *c)),
                    Tx::Flush(t, c) => tx.clear_chain(TABLES[*t], chain(*t, *c)),
                    Tx::Policy(t, c, d) => tx.set_policy(TABLES[*t], chain(*t, *c), pol(*d)),
                };
            }
            r(tx.commit().map(|v| format!("{v:?}")))
        }
        Op::Restore {
            table,
            lines,
            noflush,
            counters,
            commit,
        } => {
            let mut text = format!("*{}\n", TABLES[*table]);
            for l in lines {
                let mut l = l.clone();
                for (i, name) in chains_of(TABLES[*table]).iter().enumerate() {
                    l = l.replace(&format!("{{{i}}}"), name);
                }
                l = l.replace("{6}", chain(*table, 6));
                text.push_str(&spec_for(f, &l));
                text.push('\n');
            }
            if *commit {
                text.push_str("COMMIT\n");
            }
            let opts = RestoreOptions {
                noflush: *noflush,
                counters: *counters,
                ..RestoreOptions::default()
            };
            r(ipt.restore(&text, &opts).map(|rep| {
                format!(
                    "{:?} ops {} added {} kept {} deleted {} bytes {} retries {}",
                    rep.tables,
                    rep.ops,
                    rep.rules_added,
                    rep.rules_kept,
                    rep.rules_deleted,
                    rep.batch_bytes,
                    rep.retries
                )
            }))
        }
        Op::BadRestore(t, c) => {
            let text = format!(
                "*{}\n-A {} -j ACCEPT\n-N FRESH\n-A NOSUCHCHAIN -j DROP\n-A {} -j DROP\nCOMMIT\n",
                TABLES[*t],
                chain(*t, *c),
                chain(*t, *c)
            );
            let opts = RestoreOptions {
                noflush: true,
                ..RestoreOptions::default()
            };
            r(ipt
                .restore(&text, &opts)
                .map(|rep| format!("{:?}", rep.tables)))
        }
        Op::Save(t, counters) => r(ipt.save(t.map(|t| TABLES[t]), *counters).map(|s| {
            s.lines()
                .filter(|l| !l.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        })),
        Op::Sync {
            table,
            rules,
            hook,
            first,
        } => {
            let tb = TABLES[*table];
            let hook_chain = chain(*table, *hook);
            let run_sync = || -> Result<String, iptnl::iptables::Error> {
                let mut d = Desired::new(f, Owner::new("OWN-", "own")?);
                let specs: Vec<String> = rules.iter().map(|&s| sp(s)).collect();
                d.chain(tb, "OWN-X", &specs)?;
                let at = if *first {
                    Position::First
                } else {
                    Position::Last
                };
                d.hook(tb, hook_chain, at, "-j OWN-X")?;
                iptnl::sync::sync(ipt, &d).map(|rep| format!("{rep:?}"))
            };
            r(run_sync())
        }
        Op::Deep(t, n) => {
            let tb = TABLES[*t];
            let mut tx = ipt.transaction();
            for i in 0..*n {
                tx.new_chain(tb, &format!("D{i}"));
            }
            for i in 0..n - 1 {
                tx.append(tb, &format!("D{i}"), format!("-j D{}", i + 1).as_str());
            }
            let from = chains_of(tb)[0];
            tx.append(tb, from, "-j D0");
            r(tx.commit().map(|v| format!("{v:?}")))
        }
        Op::Other(o) => format!("other: {}", run(other, other, o)),
        Op::Raw(ops) => raw(ipt, ops),
    }
}

/// Sends `ops` as one batch, past the planner.
fn raw(ipt: &IpTables, ops: &[RawOp]) -> String {
    use iptnl::nft::{Batch, Chain, ChainType, Hook, Placement, Table};
    let f = ipt.family();
    let fam = f.nft();
    let mut b = Batch::new();
    for o in ops {
        let r = match o {
            RawOp::AddTable(t, excl) => {
                if *excl {
                    let table = Table::new(fam, TABLES[*t]);
                    b.push_raw(
                        iptnl_sys::nf_tables::NFT_MSG_NEWTABLE,
                        iptnl_sys::netlink::NLM_F_CREATE | iptnl_sys::netlink::NLM_F_EXCL,
                        fam,
                        false,
                        |w| table.encode(w),
                    )
                } else {
                    b.add_table(&Table::new(fam, TABLES[*t]))
                }
            }
            RawOp::DelTable(t) => b.del_table(fam, TABLES[*t]),
            RawOp::AddChain(t, c, excl) => {
                b.add_chain(&Chain::user(fam, TABLES[*t], chain(*t, *c)), *excl)
            }
            RawOp::AddBase(t, hook, prio, ty) => {
                let chain_type = match ty {
                    0 => ChainType::Filter,
                    1 => ChainType::Nat,
                    2 => ChainType::Route,
                    _ => ChainType::Other("bogus".into()),
                };
                let name = [
                    "PREROUTING",
                    "INPUT",
                    "FORWARD",
                    "OUTPUT",
                    "POSTROUTING",
                    "X",
                ][*hook as usize % 6];
                let h = Hook {
                    num: *hook,
                    priority: *prio,
                    chain_type,
                    policy: Some(Policy::Accept),
                    devices: Vec::new(),
                };
                b.add_chain(&Chain::base(fam, TABLES[*t], name, h), false)
            }
            RawOp::DelChain(t, c) => b.del_chain(fam, TABLES[*t], chain(*t, *c)),
            RawOp::Rename(t, h, c) => b.rename_chain(fam, TABLES[*t], *h, chain(*t, *c)),
            RawOp::Policy(t, c, d) => b.set_policy(fam, TABLES[*t], chain(*t, *c), pol(*d)),
            RawOp::AddRule(t, c, s, p, echo) => {
                let text = spec_for(f, SPECS[*s]);
                let Ok(specs) = iptnl::ipt::parse_rule_str(f, &text) else {
                    continue;
                };
                let Ok(rule) = iptnl::ipt::encode_rule(&specs[0], f, TABLES[*t], chain(*t, *c))
                else {
                    continue;
                };
                let pos = match p {
                    RawPos::Append => Placement::Append,
                    RawPos::Prepend => Placement::Prepend,
                    RawPos::After(h) => Placement::After(*h),
                    RawPos::Before(h) => Placement::Before(*h),
                    RawPos::Replace(h) => Placement::Replace(*h),
                };
                b.add_rule(&rule, pos, *echo)
            }
            RawOp::DelRule(t, c, h) => b.del_rule(fam, TABLES[*t], chain(*t, *c), *h),
            RawOp::Flush(t, c) => b.flush_chain(fam, TABLES[*t], chain(*t, *c)),
            RawOp::FlushTable(t) => b.flush_table(fam, TABLES[*t]),
        };
        if let Err(e) = r {
            return format!("encode {e}");
        }
    }
    let res = ipt.with_conn(|conn| b.commit(conn));
    match res {
        Ok(done) => {
            let handles: Vec<_> = (0..b.len()).filter_map(|i| done.handle(i)).collect();
            format!("ok {handles:?}")
        }
        Err(e) => format!("err {e} / {:?}", e.errno()),
    }
}

fn genid(ipt: &IpTables) -> u32 {
    ipt.with_conn(|conn: &mut Conn| conn.genid().expect("genid"))
}

/// The events queued on `sub` since the last call, each message with its sequence number and
/// port id cleared (they differ between connections).
fn events(sub: &mut Box<dyn iptnl::netlink::Transport>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    loop {
        match sub.recv(&mut buf, false) {
            Ok(true) => {
                for m in iptnl::netlink::Messages::new(&buf).flatten() {
                    let mut b = m.bytes().to_vec();
                    b[8..16].fill(0);
                    out.push(b);
                }
            }
            Ok(false) => return out,
            Err(e) => {
                out.push(format!("lost: {e}").into_bytes());
                return out;
            }
        }
    }
}

/// The raw dumps of tables, chains and rules of `family`, with the sequence and port id of
/// each message cleared, and the generation.
fn dumps(ipt: &IpTables) -> (u32, Vec<Vec<u8>>) {
    let family = ipt.family().nft().raw();
    ipt.with_conn(|conn: &mut Conn| {
        let mut out = Vec::new();
        let genid = conn.genid().expect("genid");
        for msg in [NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE] {
            conn.dump(
                "dump",
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
                family,
                |_| {},
                |m| {
                    let mut b = m.bytes().to_vec();
                    b[8..16].fill(0);
                    out.push(b);
                    Ok(())
                },
            )
            .expect("dump");
        }
        (genid, out)
    })
}

fn kind(result: &str) -> Option<String> {
    let result = result.strip_prefix("other: ").unwrap_or(result);
    if let Some(raw) = result.strip_prefix("err ") {
        if let Some(errno) = raw
            .rsplit(" / Some(")
            .next()
            .filter(|_| raw.contains(" / Some("))
            .and_then(|n| n.trim_end_matches(')').parse::<i32>().ok())
        {
            return Some(format!(
                "Raw batch {}",
                std::io::Error::from_raw_os_error(errno)
            ));
        }
    }
    let e = result.strip_prefix("err ")?;
    let mut variant = e.split([' ', '(', '{']).next().unwrap_or("?").to_owned();
    if let Some(source) = e.split("source: ").nth(1) {
        // A transaction's error: counted under the kind of the operation's own error too.
        variant = format!(
            "{variant} {}",
            source.split([' ', '(', '{']).next().unwrap_or("?")
        );
    }
    let errno = e
        .split("errno: ")
        .nth(1)
        .and_then(|s| s.split([',', ' ', '}']).next())
        .and_then(|n| n.parse::<i32>().ok())
        .map(|n| format!(" {}", std::io::Error::from_raw_os_error(n)));
    Some(format!("{variant}{}", errno.unwrap_or_default()))
}

/// Error kinds seen, with how often and one example.
static COVERAGE: Mutex<BTreeMap<String, (usize, String)>> = Mutex::new(BTreeMap::new());

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Runs `ops` on both sides; `Err` describes the first divergence.
fn compare(family: IpFamily, floor: Option<ReaderFloor>, ops: &[Op]) -> Result<(), String> {
    common::in_netns(|| {
        let kernel = IpTables::new(family).expect("kernel handle");
        let kernel2 = IpTables::new(family).expect("second kernel handle");
        let ruleset = iptnl::memory::Ruleset::new();
        let mem = IpTables::from_conn(family, ruleset.conn());
        let mem2 = IpTables::from_conn(family, ruleset.conn());
        for h in [&kernel, &kernel2, &mem, &mem2] {
            match floor {
                Some(f) => h.set_reader_floor(f),
                // The default comes from the kernel's (or the memory's) nft_compat.
                None => assert_eq!(h.reader_floor(), ReaderFloor::V1_8_7),
            }
        }
        let group = iptnl_sys::nfnetlink::NFNLGRP_NFTABLES;
        let mut kernel_events = kernel
            .with_conn(|c| c.subscribe(group, 8 << 20))
            .expect("subscribe");
        let mut mem_events = mem
            .with_conn(|c| c.subscribe(group, 8 << 20))
            .expect("subscribe");
        let mut kinds = Vec::new();
        // The generation both sides were last compared at (dumps are equal there).
        let mut compared = (genid(&kernel), genid(&mem));
        for (i, op) in ops.iter().enumerate() {
            let k = run(&kernel, &kernel2, op);
            let m = run(&mem, &mem2, op);
            if k != m {
                return Err(format!(
                    "operation {i} ({op:?}) differs:\n  kernel: {k}\n  memory: {m}"
                ));
            }
            if let Some(kd) = kind(&k) {
                kinds.push((kd, k.clone()));
            }
            let (ke, me) = (events(&mut kernel_events), events(&mut mem_events));
            if ke != me {
                let at = ke
                    .iter()
                    .zip(&me)
                    .position(|(a, b)| a != b)
                    .unwrap_or(ke.len().min(me.len()));
                return Err(format!(
                    "operation {i} ({op:?}): the events differ at message {at} ({} and {} messages):\n  kernel: {}\n  memory: {}",
                    ke.len(),
                    me.len(),
                    ke.get(at).map(|b| hex(b)).unwrap_or_default(),
                    me.get(at).map(|b| hex(b)).unwrap_or_default()
                ));
            }
            // A ruleset whose generation did not move did not change (on either side, each
            // commit that changes anything moves it): the dumps are still the equal ones.
            if (genid(&kernel), genid(&mem)) == compared {
                continue;
            }
            let (kg, kd) = dumps(&kernel);
            let (mg, md) = dumps(&mem);
            if kg != mg {
                return Err(format!(
                    "after operation {i} ({op:?}) the generation differs: kernel {kg}, memory {mg}"
                ));
            }
            if kd != md {
                let at = kd
                    .iter()
                    .zip(&md)
                    .position(|(a, b)| a != b)
                    .unwrap_or(kd.len().min(md.len()));
                return Err(format!(
                    "after operation {i} ({op:?}) the dumps differ at message {at} ({} and {} messages):\n  kernel: {}\n  memory: {}",
                    kd.len(),
                    md.len(),
                    kd.get(at).map(|b| hex(b)).unwrap_or_default(),
                    md.get(at).map(|b| hex(b)).unwrap_or_default()
                ));
            }
            compared = (kg, mg);
        }
        let mut cov = COVERAGE.lock().unwrap();
        for (k, text) in kinds {
            let e = cov.entry(k).or_insert((0, text));
            e.0 += 1;
        }
        Ok(())
    })
}

fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `cases` sequences drawn from `seed`; the first divergence, shrunk.
fn run_cases(cases: u32, seed: u64) -> Result<(), String> {
    use proptest::test_runner::{RngAlgorithm, TestRng};
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/memory_diff.proptest-regressions"
        )))),
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    // The rules are written at the default reader floor (1.8.7: x_tables forms of tcp,
    // udp, mark and NFLOG) or at a later one (native forms).
    let strategy = (
        prop_oneof![3 => Just(IpFamily::V4), 1 => Just(IpFamily::V6)],
        prop_oneof![
            2 => Just(None),
            1 => Just(Some(ReaderFloor::V1_8_9)),
            1 => Just(Some(ReaderFloor::V1_8_11)),
        ],
        prop::collection::vec(op(), 1..=50),
    );
    runner
        .run(&strategy, |(family, floor, ops)| {
            compare(family, floor, &ops).map_err(TestCaseError::fail)
        })
        .map_err(|e| format!("seed {seed}: {e}"))
}

#[test]
fn memory_matches_the_kernel() {
    // Most of the kernel's time is spent waiting (namespaces set up, grace periods): the
    // sequences run on several threads, each from its own seed.
    let cases = env_u32("IPTNL_MEMDIFF_CASES", 2000);
    let threads = env_u32("IPTNL_MEMDIFF_THREADS", 4).max(1);
    let seed = std::env::var("IPTNL_MEMDIFF_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("memory_diff: {cases} sequences on {threads} threads, IPTNL_MEMDIFF_SEED={seed}");
    let results: Vec<Result<(), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let n = cases / threads + u32::from(i < cases % threads);
                s.spawn(move || run_cases(n, seed.wrapping_add(u64::from(i))))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect()
    });
    let cov = COVERAGE.lock().unwrap().clone();
    let report: String = cov
        .iter()
        .map(|(k, (n, example))| {
            let ex: String = example.chars().take(220).collect();
            format!("{n:>7}  {k}\n         e.g. {ex}\n")
        })
        .collect();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("memory_diff_coverage.txt");
    let _ = std::fs::write(&path, &report);
    eprintln!("error kinds over {cases} sequences:\n{report}");
    for r in results {
        if let Err(e) = r {
            panic!("{e}");
        }
    }
    if cases >= 1000 {
        for want in [
            "Kernel Invalid argument",
            "Kernel Too many links",
            "NotFound",
            "AlreadyExists",
            "NotEmpty",
            "ChainInUse",
        ] {
            assert!(
                cov.keys().any(|k| k.contains(want)),
                "no {want} error in the run: {:?}",
                cov.keys().collect::<Vec<_>>()
            );
        }
    }
}

/// The index of `spec` in [`SPECS`].
fn spec(text: &str) -> usize {
    SPECS
        .iter()
        .position(|s| *s == text)
        .unwrap_or_else(|| panic!("no spec {text:?}"))
}

/// Runs `ops` at the default reader floor and at 1.8.9's.
fn regression(family: IpFamily, ops: &[Op]) {
    for floor in [None, Some(ReaderFloor::V1_8_9)] {
        if let Err(e) = compare(family, floor, ops) {
            panic!("at floor {floor:?}: {e}");
        }
    }
}

// Each divergence the property test found, as the sequence that showed it.

/// The kernel checks `physdev`'s hooks when the rule is added, not for the base chains that
/// reach it later.
#[test]
fn physdev_in_a_chain_reached_from_output() {
    let physdev = spec("-m physdev --physdev-out eth0 -j ACCEPT");
    regression(
        IpFamily::V4,
        &[Op::Sync {
            table: 0,
            rules: vec![physdev],
            hook: 2,
            first: false,
        }],
    );
}

/// `--reject-with tcp-reset` with `-p tcp` (and the other values of `REJECT`).
#[test]
fn reject_values() {
    for s in [
        "-p tcp -j REJECT --reject-with tcp-reset",
        "-j REJECT --reject-with tcp-reset",
        "-j REJECT",
    ] {
        regression(IpFamily::V4, &[Op::Append(0, 0, spec(s))]);
        regression(IpFamily::V6, &[Op::Append(0, 0, spec(s))]);
    }
}

/// A chain jumping to itself is allowed until a base chain reaches it; a base chain is no
/// jump target.
#[test]
fn loops_and_jumps_to_base_chains() {
    let to_b = spec("-j B");
    regression(
        IpFamily::V4,
        &[
            Op::NewChain(1, 5),
            Op::Insert(1, 5, 1, to_b),
            Op::Append(1, 0, to_b),
            Op::Raw(vec![RawOp::AddRule(0, 4, to_b, RawPos::Append, false)]),
        ],
    );
}

/// Validation that failed makes the tables created afterwards validated rule by rule until
/// the next commit, and a batch refused by validation uses its handles twice.
#[test]
fn validation_state_and_handles() {
    regression(
        IpFamily::V4,
        &[
            Op::Append(1, 0, spec("-m limit --limit 5/second -j ACCEPT")),
            Op::Deep(0, 16),
            Op::Deep(1, 16),
            Op::NewChain(1, 4),
        ],
    );
    regression(
        IpFamily::V4,
        &[
            Op::Deep(0, 16),
            Op::Other(Box::new(Op::Deep(0, 16))),
            Op::Append(0, 6, spec("-j ACCEPT")),
        ],
    );
}

/// Deleted chains and tables are reported by name and handle only.
#[test]
fn deletion_events() {
    regression(
        IpFamily::V4,
        &[Op::ClearChain(1, 4), Op::DeleteAllChains(1)],
    );
    regression(
        IpFamily::V4,
        &[
            Op::Deep(1, 13),
            Op::Other(Box::new(Op::Restore {
                table: 1,
                lines: Vec::new(),
                noflush: false,
                counters: false,
                commit: true,
            })),
        ],
    );
}

/// An update may restate a base chain's hook, never change it; an unknown chain type is not
/// found.
#[test]
fn base_chain_updates() {
    regression(
        IpFamily::V4,
        &[
            Op::Restore {
                table: 1,
                lines: vec!["-P {3} ACCEPT".into()],
                noflush: false,
                counters: false,
                commit: true,
            },
            Op::Raw(vec![RawOp::AddBase(1, 4, -200, 3)]),
            Op::Raw(vec![RawOp::AddBase(1, 4, 100, 1)]),
            Op::Raw(vec![RawOp::AddBase(1, 4, 100, 0)]),
        ],
    );
    regression(
        IpFamily::V4,
        &[
            Op::Append(0, 0, 0),
            Op::Raw(vec![RawOp::AddBase(0, 1, 0, 3)]),
        ],
    );
}

/// `CLASSIFY` runs in OUTPUT, FORWARD and POSTROUTING only.
#[test]
fn classify_hooks() {
    let classify = spec("-j CLASSIFY --set-class 1:1");
    let ops: Vec<Op> = (0..4)
        .flat_map(|t| (0..7).map(move |c| Op::Append(t, c, classify)))
        .collect();
    regression(IpFamily::V4, &ops);
}

/// At the default reader floor, 1.8.7, NFLOG is written as the x_tables target (revision 0),
/// which the kernel takes.
#[test]
fn nflog_at_the_default_reader_floor() {
    let nflog = SPECS
        .iter()
        .position(|s| s.contains("-j NFLOG"))
        .expect("an NFLOG spec");
    regression(IpFamily::V4, &[Op::Append(1, 0, nflog)]);
    regression(IpFamily::V6, &[Op::AppendUnique(0, 0, nflog)]);
}

/// A failed validation leaves the ruleset validated rule by rule until a commit that
/// changes something: a flush of an empty chain commits nothing and does not end it.
#[test]
fn an_empty_commit_keeps_the_validation_state() {
    regression(
        IpFamily::V4,
        &[
            Op::NewChain(0, 5),
            Op::Deep(0, 16),
            Op::ClearChain(0, 5),
            Op::Deep(1, 16),
            Op::Append(2, 0, spec("-j ACCEPT")),
        ],
    );
}

/// A chain renamed in the batch that also deletes a rule jumping to it: the rule's deletion
/// event names the chain as it is at that point of the commit (the new name when the rename
/// comes first), however the rule goes (its table deleted or flushed, its chain flushed, by
/// handle).
#[test]
fn a_rename_and_a_deletion_of_a_jump_to_it_in_one_batch() {
    // `Deep(1, 13)` gives nat's chains D0..D12 the handles 1..13, the jumps between them
    // 14..25, and PREROUTING's `-j D0` the handle 27; D0 becomes `A`.
    let rename = RawOp::Rename(1, 1, 4);
    for delete in [
        RawOp::DelTable(1),
        RawOp::FlushTable(1),
        RawOp::Flush(1, 0),
        RawOp::DelRule(1, 0, 27),
    ] {
        for ops in [
            vec![rename.clone(), delete.clone()],
            vec![delete.clone(), rename.clone()],
        ] {
            regression(IpFamily::V4, &[Op::Deep(1, 13), Op::Raw(ops)]);
        }
    }
}

/// The hook checks of the extensions modelled beyond iptables-nft's most used ones: those a
/// registration declares (`realm`, validated again for each base chain that reaches the
/// rule) and those in an extension's own check (`policy`, `devgroup`: at creation only, in
/// the base chain the rule is added to).
#[test]
fn hook_checks_of_more_extensions() {
    let policy_in = spec("-m policy --dir in --pol ipsec -j ACCEPT");
    let policy_out = spec("-m policy --dir out --pol none -j ACCEPT");
    let devgroup = spec("-m devgroup --src-group 1 -j ACCEPT");
    let realm = spec("-m realm --realm 1 -j ACCEPT");
    let to_a = spec("-j A");
    regression(
        IpFamily::V4,
        &[
            Op::Append(0, 2, policy_in),
            Op::Append(0, 0, policy_in),
            Op::Append(0, 0, policy_out),
            Op::Append(0, 2, policy_out),
            Op::Append(0, 2, devgroup),
            Op::NewChain(0, 3),
            Op::Append(0, 3, policy_in),
            Op::Append(0, 3, devgroup),
            Op::Append(0, 2, to_a),
            Op::Append(2, 0, realm),
            Op::Append(2, 1, realm),
            Op::NewChain(2, 5),
            Op::Append(2, 5, realm),
            Op::Append(2, 0, to_a),
            Op::Append(2, 3, to_a),
        ],
    );
}
