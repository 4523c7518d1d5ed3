//! The event replay of the cache (what keeps a handle that follows events, `iptnl serve` and
//! the owned-chain guard current): a cache of a few chains is advanced by the bytes of the
//! kernel's event messages.
//!
//! Input: a flag byte, then
//! - bit 0 clear: operations on a model of the kernel's ruleset, grouped into commits; the
//!   model sends, for each commit, the events the kernel sends (in its order, with the
//!   positions it gives: the previous rule in the chain's list at the time of the
//!   notification, none for a rule first or last; `NLM_F_APPEND` for an append or an insert
//!   after a rule), then `NEWGEN`. Oracle: every commit can be replayed (unless the input
//!   drops one, which must then be noticed); whatever the cache still holds afterwards
//!   equals the model (the rules of each chain, in order, with their handles; a chain cached
//!   as missing is missing; the chain list of a table), and a lookup by spec in a cached
//!   chain finds exactly the rules of that spec;
//! - bit 0 set: the rest as event messages, received as they are (no oracle but no panic).
#![no_main]

use iptnl::fuzzing::FollowedCache;
use iptnl::ipt::{canonical_exprs, encode_rule, parse_rule_str, IpFamily};
use iptnl::netlink::MsgWriter;
use iptnl::nft::{Chain, Expr, Family, Rule};
use iptnl::sys::netlink::NLM_F_APPEND;
use iptnl::sys::nf_tables::*;
use iptnl::sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
use libfuzzer_sys::fuzz_target;

const FAM: IpFamily = IpFamily::V4;
const G0: u32 = 0xffff_fff0; // wraps around within a long input

const TEMPLATES: &[&str] = &[
    "-j ACCEPT",
    "-p tcp -m tcp --dport 22 -j ACCEPT",
    "-j DROP",
    "-s 10.0.0.1/32 -j RETURN",
    "-m comment --comment x -j ACCEPT",
];
const NAMES: &[&str] = &["INPUT", "A", "B", "C", "D"];
const TABLES: &[&str] = &["filter", "nat"];

#[derive(Clone)]
struct MRule {
    handle: u64,
    tmpl: usize,
    /// Deleted in the commit being made, not yet notified.
    dying: bool,
}

#[derive(Clone)]
struct MChain {
    table: &'static str,
    name: String,
    handle: u64,
    rules: Vec<MRule>,
    /// Deleted in the commit being made.
    gone: bool,
}

struct Model {
    chains: Vec<MChain>,
    next: u64,
}

enum Trans {
    NewRule {
        table: &'static str,
        chain_handle: u64,
        handle: u64,
        append: bool,
    },
    DelRule {
        table: &'static str,
        chain_handle: u64,
        handle: u64,
    },
    NewChain {
        table: &'static str,
        handle: u64,
        name: String,
    },
    DelChain {
        table: &'static str,
        handle: u64,
        name: String,
    },
    DelTable {
        table: &'static str,
    },
}

fn exprs(tmpl: usize, table: &str, chain: &str) -> Vec<Expr> {
    let spec = &parse_rule_str(FAM, TEMPLATES[tmpl]).unwrap()[0];
    encode_rule(spec, FAM, table, chain).unwrap().exprs
}

fn rule_of(m: &MChain, r: &MRule) -> Rule {
    let mut rule = Rule::new(FAM.nft(), m.table, m.name.clone());
    rule.handle = Some(r.handle);
    rule.exprs = exprs(r.tmpl, m.table, &m.name);
    rule
}

fn put_msg(
    w: &mut MsgWriter,
    ty: u16,
    flags: u16,
    family: Family,
    body: impl FnOnce(&mut MsgWriter),
) {
    let m = w.begin(
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, ty),
        flags,
        0,
        family.raw(),
        0,
    );
    body(w);
    w.finish(m).unwrap();
}

impl Model {
    fn chain(&self, table: &str, handle: u64) -> Option<usize> {
        self.chains
            .iter()
            .position(|c| c.table == table && c.handle == handle)
    }

    /// Sends the events of one commit, as the kernel's commit loop does: in the order of
    /// its operations, each rule placed by the list as it is at that moment.
    fn commit(&mut self, trans: Vec<Trans>, gen: u32, w: &mut MsgWriter) {
        for t in trans {
            match t {
                Trans::NewRule {
                    table,
                    chain_handle,
                    handle,
                    append,
                } => {
                    let Some(ci) = self.chain(table, chain_handle) else {
                        continue;
                    };
                    let c = &self.chains[ci];
                    let at = c.rules.iter().position(|r| r.handle == handle).unwrap();
                    let pos = (at > 0 && at + 1 < c.rules.len()).then(|| c.rules[at - 1].handle);
                    let mut rule = rule_of(c, &c.rules[at]);
                    rule.position = pos;
                    let flags = if append { NLM_F_APPEND } else { 0 };
                    put_msg(w, NFT_MSG_NEWRULE, flags, FAM.nft(), |w| {
                        rule.encode(w, rule.handle, rule.position, None, None)
                    });
                }
                Trans::DelRule {
                    table,
                    chain_handle,
                    handle,
                } => {
                    let Some(ci) = self.chain(table, chain_handle) else {
                        continue;
                    };
                    let c = &mut self.chains[ci];
                    let at = c.rules.iter().position(|r| r.handle == handle).unwrap();
                    let r = c.rules.remove(at);
                    let rule = rule_of(c, &r);
                    put_msg(w, NFT_MSG_DELRULE, 0, FAM.nft(), |w| {
                        rule.encode(w, rule.handle, None, None, None)
                    });
                }
                Trans::NewChain {
                    table,
                    handle,
                    name,
                } => {
                    let mut c = Chain::user(FAM.nft(), table, name);
                    c.handle = Some(handle);
                    put_msg(w, NFT_MSG_NEWCHAIN, 0, FAM.nft(), |w| c.encode(w));
                }
                Trans::DelChain {
                    table,
                    handle,
                    name,
                } => {
                    let mut c = Chain::user(FAM.nft(), table, name);
                    c.handle = Some(handle);
                    put_msg(w, NFT_MSG_DELCHAIN, 0, FAM.nft(), |w| c.encode(w));
                }
                Trans::DelTable { table } => {
                    put_msg(w, NFT_MSG_DELTABLE, 0, FAM.nft(), |w| {
                        w.put_str(NFTA_TABLE_NAME, table)
                    });
                }
            }
        }
        put_msg(w, NFT_MSG_NEWGEN, 0, Family::Ipv4, |w| {
            w.put_be32(NFTA_GEN_ID, gen)
        });
    }

    /// The chains of a table as the model holds them now (no commit in progress).
    fn table(&self, table: &str) -> Vec<(String, u64)> {
        self.chains
            .iter()
            .filter(|c| c.table == table)
            .map(|c| (c.name.clone(), c.handle))
            .collect()
    }
}

fn initial() -> Model {
    let mut m = Model {
        chains: Vec::new(),
        next: 1,
    };
    for (table, name, n) in [
        ("filter", "INPUT", 3),
        ("filter", "A", 2),
        ("filter", "B", 0),
        ("nat", "C", 2),
    ] {
        let handle = m.next;
        m.next += 1;
        let mut c = MChain {
            table,
            name: name.into(),
            handle,
            rules: Vec::new(),
            gone: false,
        };
        for i in 0..n {
            c.rules.push(MRule {
                handle: m.next,
                tmpl: (i * 3) % TEMPLATES.len(),
                dying: false,
            });
            m.next += 1;
        }
        m.chains.push(c);
    }
    m
}

fn seed(m: &Model) -> FollowedCache {
    let mut cache = FollowedCache::new(FAM, G0);
    for c in &m.chains {
        let rules = c.rules.iter().map(|r| rule_of(c, r)).collect();
        cache.put_chain(c.table, &c.name, rules);
    }
    cache.put_missing("filter", "D");
    let list = m
        .chains
        .iter()
        .filter(|c| c.table == "filter")
        .map(|c| {
            let mut x = Chain::user(FAM.nft(), "filter", c.name.clone());
            x.handle = Some(c.handle);
            x
        })
        .collect();
    cache.put_table("filter", list);
    // A second lookup by spec builds each chain's canonical index.
    for c in &m.chains {
        for _ in 0..2 {
            cache.find(c.table, &c.name, &[]);
        }
    }
    cache
}

/// Plans one operation of the fuzz input into the commit being made (`trans`), on the model.
fn op(m: &mut Model, b: &[u8], trans: &mut Vec<Trans>) {
    let [code, a, x, ..] = *b else { return };
    let live: Vec<usize> = (0..m.chains.len()).filter(|&i| !m.chains[i].gone).collect();
    if live.is_empty() && code % 9 < 6 {
        return;
    }
    let ci = live.get(usize::from(a) % live.len().max(1)).copied();
    match code % 9 {
        // Append, prepend, insert before or after a rule.
        0..=3 => {
            let ci = ci.unwrap();
            let handle = m.next;
            m.next += 1;
            let rule = MRule {
                handle,
                tmpl: usize::from(x) % TEMPLATES.len(),
                dying: false,
            };
            let c = &mut m.chains[ci];
            let visible: Vec<usize> = (0..c.rules.len()).filter(|&i| !c.rules[i].dying).collect();
            let (at, append) = match code % 9 {
                0 => (c.rules.len(), true),
                1 => (0, false),
                k => {
                    let Some(&i) = visible.get(usize::from(x) % visible.len().max(1)) else {
                        return;
                    };
                    if k == 2 {
                        (i, false)
                    } else {
                        (i + 1, true)
                    }
                }
            };
            c.rules.insert(at, rule);
            trans.push(Trans::NewRule {
                table: c.table,
                chain_handle: c.handle,
                handle,
                append,
            });
        }
        // Delete a rule.
        4 => {
            let c = &mut m.chains[ci.unwrap()];
            let visible: Vec<usize> = (0..c.rules.len()).filter(|&i| !c.rules[i].dying).collect();
            let Some(&i) = visible.get(usize::from(x) % visible.len().max(1)) else {
                return;
            };
            c.rules[i].dying = true;
            trans.push(Trans::DelRule {
                table: c.table,
                chain_handle: c.handle,
                handle: c.rules[i].handle,
            });
        }
        // Flush a chain.
        5 => {
            let c = &mut m.chains[ci.unwrap()];
            for r in c.rules.iter_mut().filter(|r| !r.dying) {
                r.dying = true;
                trans.push(Trans::DelRule {
                    table: c.table,
                    chain_handle: c.handle,
                    handle: r.handle,
                });
            }
        }
        // Rename a chain.
        6 => {
            let Some(ci) = ci else { return };
            let name = NAMES[usize::from(x) % NAMES.len()];
            let table = m.chains[ci].table;
            if m.chains.iter().any(|c| c.table == table && c.name == name) {
                return;
            }
            if m.chains[ci].gone {
                return;
            }
            m.chains[ci].name = name.into();
            trans.push(Trans::NewChain {
                table,
                handle: m.chains[ci].handle,
                name: name.into(),
            });
        }
        // Add a chain.
        7 => {
            let table = TABLES[usize::from(a) % TABLES.len()];
            let name = NAMES[usize::from(x) % NAMES.len()];
            if m.chains.iter().any(|c| c.table == table && c.name == name) {
                return;
            }
            let handle = m.next;
            m.next += 1;
            m.chains.push(MChain {
                table,
                name: name.into(),
                handle,
                rules: Vec::new(),
                gone: false,
            });
            trans.push(Trans::NewChain {
                table,
                handle,
                name: name.into(),
            });
        }
        // Delete an empty chain, or a whole table.
        _ => {
            if x & 1 == 0 {
                let Some(ci) = ci else { return };
                let c = &mut m.chains[ci];
                if c.rules.iter().any(|r| !r.dying) {
                    return;
                }
                c.gone = true;
                trans.push(Trans::DelChain {
                    table: c.table,
                    handle: c.handle,
                    name: c.name.clone(),
                });
            } else {
                // As the kernel flushes a table: every rule, then every chain, then the table.
                let table = TABLES[usize::from(a) % TABLES.len()];
                for c in m.chains.iter_mut().filter(|c| c.table == table && !c.gone) {
                    for r in c.rules.iter_mut().filter(|r| !r.dying) {
                        r.dying = true;
                        trans.push(Trans::DelRule {
                            table,
                            chain_handle: c.handle,
                            handle: r.handle,
                        });
                    }
                }
                for c in m.chains.iter_mut().filter(|c| c.table == table && !c.gone) {
                    c.gone = true;
                    trans.push(Trans::DelChain {
                        table,
                        handle: c.handle,
                        name: c.name.clone(),
                    });
                }
                trans.push(Trans::DelTable { table });
            }
        }
    }
}

fn model_run(data: &[u8]) {
    let mut m = initial();
    let mut cache = seed(&m);
    let mut w = MsgWriter::new();
    let mut gen = G0;
    let mut dropped = false;
    // An old commit (the cache's own, or one read already) comes first: it must be skipped.
    initial().commit(vec![Trans::DelTable { table: "filter" }], G0, &mut w);
    for commit in data.split(|&b| b == 0xff).take(64) {
        let mut trans = Vec::new();
        for o in commit.chunks(3).take(32) {
            op(&mut m, o, &mut trans);
        }
        gen = gen.wrapping_add(1);
        let drop_it = commit.first() == Some(&0xfe);
        let mut sink = MsgWriter::new();
        let out = if drop_it { &mut sink } else { &mut w };
        dropped |= drop_it;
        // Chains deleted are removed only at their event (their rules' events come first).
        m.commit(trans, gen, out);
        m.chains.retain(|c| !c.gone);
        for c in &mut m.chains {
            c.rules.retain(|r| !r.dying);
        }
    }
    let followed = cache.follow(w.as_bytes(), gen);
    assert_eq!(
        followed, !dropped,
        "a lost commit not noticed, or commits not replayed"
    );
    if !followed {
        assert!(
            cache.cached_chains().is_empty(),
            "a cache that could not follow keeps chains"
        );
        return;
    }
    for (table, chain) in cache.cached_chains() {
        let model = m
            .chains
            .iter()
            .find(|c| c.table == table && c.name == chain);
        match (cache.chain(&table, &chain).unwrap(), model) {
            (None, None) => {}
            (None, Some(_)) => panic!("{table} {chain} cached as missing, but it exists"),
            (Some(_), None) => panic!("{table} {chain} cached, but it does not exist"),
            (Some(rules), Some(c)) => {
                let got: Vec<(Option<u64>, Vec<Expr>)> =
                    rules.iter().map(|r| (r.handle, r.exprs.clone())).collect();
                let want: Vec<(Option<u64>, Vec<Expr>)> = c
                    .rules
                    .iter()
                    .map(|r| (Some(r.handle), rule_of(c, r).exprs))
                    .collect();
                assert!(
                    got == want,
                    "{table} {chain}: cached {got:?}\nkernel {want:?}"
                );
                for (t, text) in TEMPLATES.iter().enumerate() {
                    let spec = &parse_rule_str(FAM, text).unwrap()[0];
                    let canon = canonical_exprs(spec, &table, &chain).unwrap();
                    let found = cache.find(&table, &chain, &canon).unwrap();
                    let mut want: Vec<u64> = c
                        .rules
                        .iter()
                        .filter(|r| r.tmpl == t)
                        .map(|r| r.handle)
                        .collect();
                    want.sort_unstable();
                    assert_eq!(found, want, "{table} {chain}: lookup of {text:?}");
                }
            }
        }
    }
    if let Some(list) = cache.table("filter") {
        let got: Vec<(String, u64)> = list
            .iter()
            .map(|c| (c.name.clone(), c.handle.unwrap_or(0)))
            .collect();
        assert_eq!(got, m.table("filter"), "the chain list of filter");
    }
}

fuzz_target!(|data: &[u8]| {
    iptnl::fuzzing::no_host_lookups();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    if flags & 1 == 0 {
        model_run(rest);
    } else {
        let m = initial();
        let mut cache = seed(&m);
        let to = rest
            .get(..4)
            .map_or(G0, |b| u32::from_le_bytes(b.try_into().unwrap()));
        if cache.follow(rest, to) {
            for (t, c) in cache.cached_chains() {
                let _ = cache.chain(&t, &c);
                let _ = cache.find(&t, &c, &[]);
            }
        }
    }
});
