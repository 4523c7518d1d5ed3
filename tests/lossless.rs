//! Property test: whatever wrote the rules of the iptables tables (iptnl, iptables-nft with
//! extensions iptnl does not model, `nft` with native expressions and anonymous sets), iptnl's
//! save followed by iptnl's restore gives back the same rules byte for byte (expressions,
//! order, user data), the same chains and policies; and the listing commands show and number
//! every rule at its kernel position (`-S`, `-L --line-numbers`, `-D N`). Each case runs in a
//! fresh network namespace.

mod common;

use std::collections::BTreeMap;

use iptnl::ipt::savefile::SaveOptions;
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::iptables::save::save;
use iptnl::netlink::Conn;
use iptnl::nft::{list_chains, list_set_elems, list_sets, Batch};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Writer {
    Iptnl,
    IptablesNft,
    Nft,
}

/// (table, chain) pairs the rules go into.
const PLACES: &[(&str, &str)] = &[
    ("filter", "INPUT"),
    ("filter", "OUTPUT"),
    ("filter", "LOSS"),
    ("nat", "POSTROUTING"),
    ("mangle", "PREROUTING"),
    // A base chain iptables-nft calls incompatible (priority 10): only `nft` writes there.
    ("filter", "fwd10"),
];

/// Rules per writer and table, as (table, IPv4 text, IPv6 text); `None` where the rule has
/// no form in that family. `JUMP` rules are only written into built-in chains.
type Pool = &'static [(&'static str, &'static str, &'static str)];

const IPTNL: Pool = &[
    (
        "filter",
        "-s 10.0.0.1 -j ACCEPT",
        "-s 2001:db8::1 -j ACCEPT",
    ),
    (
        "filter",
        "-p tcp --dport 22 -j ACCEPT",
        "-p tcp --dport 22 -j ACCEPT",
    ),
    (
        "filter",
        "-m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
        "-m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
    ),
    (
        "filter",
        "-i eth0 -m comment --comment \"x y\" -j DROP",
        "-i eth0 -m comment --comment \"x y\" -j DROP",
    ),
    (
        "filter",
        "-p udp -m multiport --dports 53,67 -j ACCEPT",
        "-p udp -m multiport --dports 53,547 -j ACCEPT",
    ),
    (
        "filter",
        "-m mark --mark 0x1/0xff -j RETURN",
        "-m mark --mark 0x1/0xff -j RETURN",
    ),
    (
        "filter",
        "-m limit --limit 5/s -j LOG --log-prefix \"p \"",
        "-m limit --limit 5/s -j LOG --log-prefix \"p \"",
    ),
    ("filter", "JUMP -j LOSS", "JUMP -j LOSS"),
    (
        "nat",
        "-s 10.0.0.0/8 -j MASQUERADE",
        "-s fd00::/8 -j MASQUERADE",
    ),
    (
        "nat",
        "-p tcp -j SNAT --to-source 1.2.3.4",
        "-p tcp -j SNAT --to-source 2001:db8::9",
    ),
    (
        "mangle",
        "-j MARK --set-mark 0x10",
        "-j MARK --set-mark 0x10",
    ),
];

const IPTABLES_NFT: Pool = &[
    (
        "filter",
        "-p sctp -m sctp --dport 80 -j DROP",
        "-p sctp -m sctp --dport 80 -j DROP",
    ),
    (
        "filter",
        "-m quota --quota 1000 -j ACCEPT",
        "-m quota --quota 1000 -j ACCEPT",
    ),
    (
        "filter",
        "-m time --timestart 10:00 --timestop 11:00 -j ACCEPT",
        "-m time --timestart 10:00 --timestop 11:00 -j ACCEPT",
    ),
    (
        "filter",
        "-m u32 --u32 \"0x0>>0x16&0x3c@0x4&0xff=0x6\" -j ACCEPT",
        "-m u32 --u32 \"0x6&0xff=0x6\" -j ACCEPT",
    ),
    (
        "filter",
        "-p tcp -m tcpmss --mss 100:200 -j ACCEPT",
        "-p tcp -m tcpmss --mss 100:200 -j ACCEPT",
    ),
    (
        "filter",
        "-m cpu --cpu 0 -j ACCEPT",
        "-m cpu --cpu 0 -j ACCEPT",
    ),
    (
        "filter",
        "-m string --algo bm --string foo -j DROP",
        "-m string --algo bm --string foo -j DROP",
    ),
    (
        "filter",
        "-m connbytes --connbytes 10:100 --connbytes-dir both --connbytes-mode bytes -j ACCEPT",
        "-m connbytes --connbytes 10:100 --connbytes-dir both --connbytes-mode bytes -j ACCEPT",
    ),
    (
        "filter",
        "-p tcp --dport 80 -j ACCEPT",
        "-p tcp --dport 80 -j ACCEPT",
    ),
    (
        "mangle",
        "-j TEE --gateway 1.2.3.4",
        "-j TEE --gateway 2001:db8::1",
    ),
    (
        "mangle",
        "-p tcp -j TCPOPTSTRIP --strip-options 5",
        "-p tcp -j TCPOPTSTRIP --strip-options 5",
    ),
    (
        "mangle",
        "-j HMARK --hmark-tuple src --hmark-mod 10 --hmark-rnd 1",
        "-j HMARK --hmark-tuple src --hmark-mod 10 --hmark-rnd 1",
    ),
    (
        "nat",
        "-j NETMAP --to 10.0.0.0/24",
        "-j NETMAP --to 2001:db8::/64",
    ),
    (
        "filter",
        "-p dccp -m dccp --dport 5:6 --dccp-types REQUEST -j DROP",
        "-p dccp -m dccp --dport 5:6 --dccp-types REQUEST -j DROP",
    ),
    (
        "filter",
        "-m connlabel ! --label 3 --set -j ACCEPT",
        "-m connlabel ! --label 3 --set -j ACCEPT",
    ),
    (
        "filter",
        "-m bpf --bytecode \"2,48 0 0 9,6 0 0 1\" -j ACCEPT",
        "-m bpf --bytecode \"1,6 0 0 1\" -j ACCEPT",
    ),
    (
        "mangle",
        "-m cluster --cluster-total-nodes 2 --cluster-local-node 1 --cluster-hash-seed 0x1 -j ACCEPT",
        "-m cluster --cluster-total-nodes 2 --cluster-local-nodemask 3 --cluster-hash-seed 0x1 -j ACCEPT",
    ),
    (
        "mangle",
        "-j RATEEST --rateest-name r1 --rateest-interval 250ms --rateest-ewmalog 500ms",
        "-j RATEEST --rateest-name r1 --rateest-interval 1s --rateest-ewmalog 2s",
    ),
    (
        "filter",
        "-m string --algo kmp --hex-string \"|0d0a|x\" --from 2 --to 90 -j DROP",
        "-p ipcomp -m ipcomp --ipcompspi 3:4 -j DROP",
    ),
    (
        "mangle",
        "-j CONNSECMARK --save",
        "-j IDLETIMER --timeout 10 --label t",
    ),
];

const NFT: Pool = &[
    (
        "filter",
        "ct state established,related counter accept",
        "ct state established,related counter accept",
    ),
    (
        "filter",
        "ip saddr { 5.5.5.5, 6.6.6.6 } drop",
        "ip6 saddr { ::5, ::6 } drop",
    ),
    (
        "filter",
        "tcp dport { 22, 80, 443 } counter accept",
        "tcp dport { 22, 80, 443 } counter accept",
    ),
    (
        "filter",
        "meta l4proto tcp counter accept comment \"hello\"",
        "meta l4proto tcp counter accept comment \"hello\"",
    ),
    (
        "filter",
        "JUMP ip protocol udp counter jump LOSS",
        "JUMP ip6 nexthdr udp counter jump LOSS",
    ),
    ("filter", "counter", "counter"),
    ("filter", "log prefix \"n \"", "log prefix \"n \""),
    (
        "filter",
        "limit rate 10/second accept",
        "limit rate 10/second accept",
    ),
    (
        "filter",
        "meta mark 0x1 counter drop",
        "meta mark 0x1 counter drop",
    ),
    (
        "filter",
        "reject with icmp type host-unreachable",
        "reject with icmpv6 type no-route",
    ),
    // A named set and a named counter belong to the table: a restore keeps them.
    ("filter", "ip saddr @blk drop", "ip6 saddr @blk drop"),
    (
        "filter",
        "counter name cnt accept",
        "counter name cnt accept",
    ),
    (
        "nat",
        "ip daddr 1.2.3.4 snat to 5.6.7.8",
        "ip6 daddr ::4 snat to [2001:db8::1]",
    ),
    (
        "mangle",
        "meta mark set 0x5 counter",
        "meta mark set 0x5 counter",
    ),
];

#[derive(Debug, Clone)]
struct Op {
    writer: Writer,
    /// Index into PLACES.
    place: usize,
    /// Index into the writer's pool (among the rules of the place's table).
    rule: usize,
    /// Where it goes, as a fraction of the chain's length at that time.
    at: u8,
}

#[derive(Debug, Clone)]
struct Case {
    v6: bool,
    ops: Vec<Op>,
    noflush: bool,
    counters: bool,
    forward_drop: bool,
    /// Order the writers run in.
    order: Vec<Writer>,
}

fn pool(w: Writer) -> Pool {
    match w {
        Writer::Iptnl => IPTNL,
        Writer::IptablesNft => IPTABLES_NFT,
        Writer::Nft => NFT,
    }
}

fn case_strategy(v6: bool) -> impl Strategy<Value = Case> {
    let op =
        (0..3u8, 0..PLACES.len(), any::<usize>(), any::<u8>()).prop_map(|(w, place, rule, at)| {
            Op {
                writer: [Writer::Iptnl, Writer::IptablesNft, Writer::Nft][w as usize],
                place,
                rule,
                at,
            }
        });
    (
        proptest::collection::vec(op, 1..14),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        Just(vec![Writer::Iptnl, Writer::IptablesNft, Writer::Nft]).prop_shuffle(),
    )
        .prop_map(move |(ops, noflush, counters, forward_drop, order)| Case {
            v6,
            ops,
            noflush,
            counters,
            forward_drop,
            order,
        })
}

/// One planned insertion: writer, table, chain, 0-based position, rule text.
struct Planned {
    writer: Writer,
    table: &'static str,
    chain: &'static str,
    pos: usize,
    text: String,
}

/// Turns the ops into insertions in execution order (writer by writer), with positions
/// valid at the time each runs.
fn plan(case: &Case) -> Vec<Planned> {
    let mut len: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for &w in &case.order {
        for op in case.ops.iter().filter(|o| o.writer == w) {
            let (table, chain) = PLACES[op.place];
            if chain == "fwd10" && w != Writer::Nft {
                continue;
            }
            let choices: Vec<&str> = pool(w)
                .iter()
                .filter(|(t, _, _)| *t == table)
                .map(|(_, v4, v6)| if case.v6 { *v6 } else { *v4 })
                .filter(|text| !(text.starts_with("JUMP ") && chain == "LOSS"))
                .collect();
            if choices.is_empty() {
                continue;
            }
            let text = choices[op.rule % choices.len()].trim_start_matches("JUMP ");
            let n = len.entry((table, chain)).or_insert(0);
            let pos = usize::from(op.at) * (*n + 1) / 256;
            *n += 1;
            out.push(Planned {
                writer: w,
                table,
                chain,
                pos,
                text: text.to_owned(),
            });
        }
    }
    out
}

fn family(case: &Case) -> IpFamily {
    if case.v6 {
        IpFamily::V6
    } else {
        IpFamily::V4
    }
}

/// Writes the case's rules with their writers.
fn write_rules(case: &Case, planned: &[Planned]) {
    let fam = family(case);
    let (nft_fam, iptables_restore, ipt_name) = if case.v6 {
        ("ip6", "ip6tables-nft-restore", "ip6tables")
    } else {
        ("ip", "iptables-nft-restore", "iptables")
    };
    let _ = ipt_name;
    // The tables, their built-in chains and the user chain, and a named set for `nft`.
    let policy = if case.forward_drop { "DROP" } else { "ACCEPT" };
    let setup = format!(
        "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD {policy} [0:0]\n:OUTPUT ACCEPT [0:0]\n:LOSS - [0:0]\nCOMMIT\n*nat\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n*mangle\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n"
    );
    let mut conn = Conn::open().unwrap();
    restore(&mut conn, fam, &setup, &RestoreOptions::default()).unwrap();
    let (addr_type, elem) = if case.v6 {
        ("ipv6_addr", "2001:db8::66")
    } else {
        ("ipv4_addr", "9.9.9.9")
    };
    common::nft_load(&format!(
        "add set {nft_fam} filter blk {{ type {addr_type}; }}\nadd element {nft_fam} filter blk {{ {elem} }}\n\
         add counter {nft_fam} filter cnt\n\
         add chain {nft_fam} filter fwd10 {{ type filter hook input priority 10; policy accept; }}\n"
    ));
    let counters = if case.counters {
        Some((5u64, 300u64))
    } else {
        None
    };
    for &w in &case.order {
        let mine: Vec<&Planned> = planned.iter().filter(|p| p.writer == w).collect();
        if mine.is_empty() {
            continue;
        }
        match w {
            Writer::Iptnl => {
                let ipt = iptnl::IpTables::from_conn(fam, Conn::open().unwrap());
                for p in mine {
                    let text = match counters {
                        Some((pk, b)) => format!("-c {pk} {b} {}", p.text),
                        None => p.text.clone(),
                    };
                    ipt.insert(p.table, p.chain, p.pos as u32 + 1, text.as_str())
                        .unwrap_or_else(|e| panic!("iptnl -I {} {}: {e}", p.chain, p.text));
                }
            }
            Writer::IptablesNft => {
                let mut input = String::new();
                for p in mine {
                    input.push_str(&format!("*{}\n", p.table));
                    let c = counters.map_or(String::new(), |(pk, b)| format!(" -c {pk} {b}"));
                    input.push_str(&format!(
                        "-I {} {}{c} {}\nCOMMIT\n",
                        p.chain,
                        p.pos + 1,
                        p.text
                    ));
                }
                let out = common::run_status(iptables_restore, &["--noflush"], Some(&input));
                assert!(
                    out.status.success(),
                    "{iptables_restore} failed: {}\n{input}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            Writer::Nft => {
                let mut script = String::new();
                for p in mine {
                    // `counter name X` refers to a named counter: it has no values.
                    let text = match counters {
                        Some((pk, b)) if !p.text.contains("counter name") => p.text.replacen(
                            "counter",
                            &format!("counter packets {pk} bytes {b}"),
                            1,
                        ),
                        _ => p.text.clone(),
                    };
                    let len = chain_len(&mut conn, fam, p.table, p.chain) + script_adds(&script, p);
                    if p.pos < len {
                        script.push_str(&format!(
                            "insert rule {nft_fam} {} {} index {} {text}\n",
                            p.table, p.chain, p.pos
                        ));
                    } else {
                        script.push_str(&format!(
                            "add rule {nft_fam} {} {} {text}\n",
                            p.table, p.chain
                        ));
                    }
                    script.push_str(&format!("# {} {}\n", p.table, p.chain));
                }
                common::nft_load(&script);
            }
        }
    }
}

/// How many rules the script so far adds to the chain of `p`.
fn script_adds(script: &str, p: &Planned) -> usize {
    let mark = format!("# {} {}", p.table, p.chain);
    script.lines().filter(|l| *l == mark).count()
}

fn chain_len(conn: &mut Conn, fam: IpFamily, table: &str, chain: &str) -> usize {
    common::dump_rules_raw(conn, fam.nft())
        .iter()
        .filter(|r| r.rule.table == table && r.rule.chain == chain)
        .count()
}

/// What must survive: every rule's table, chain, expression bytes (anonymous set names made
/// independent of the numbers the kernel picked) and user data, in order; the elements of
/// the anonymous sets; every chain with its hook policy.
/// A rule as compared: table, chain, expression bytes, user data.
type Seen = (String, String, Vec<u8>, Option<Vec<u8>>);

#[derive(Debug, PartialEq)]
struct Snapshot {
    rules: Vec<Seen>,
    anon_sets: Vec<Vec<Vec<u8>>>,
    chains: BTreeMap<(String, String), Option<String>>,
}

fn snapshot(conn: &mut Conn, fam: IpFamily) -> Snapshot {
    let nf = fam.nft();
    let mut rules = Vec::new();
    let mut names: Vec<String> = Vec::new();
    // Tables and chains are independent of each other: only the order within a chain counts.
    let mut dumped = common::dump_rules_raw(conn, nf);
    dumped.sort_by(|a, b| (&a.rule.table, &a.rule.chain).cmp(&(&b.rule.table, &b.rule.chain)));
    for r in dumped {
        let mut bytes = r.raw_exprs.clone();
        // `__setN\0`: N is the kernel's pick; name the sets by first use instead.
        let mut i = 0;
        while let Some(k) = find(&bytes[i..], b"__set") {
            let at = i + k + 5;
            let end = at + bytes[at..].iter().position(|&b| b == 0).unwrap_or(0);
            let name = String::from_utf8_lossy(&bytes[i + k..end]).into_owned();
            let idx = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name.clone());
                names.len() - 1
            });
            assert!(
                idx < 10 && end == at + 1,
                "test keeps anonymous sets below 10"
            );
            bytes[at] = b'0' + idx as u8;
            i = end;
        }
        rules.push((
            r.rule.table.clone(),
            r.rule.chain.clone(),
            bytes,
            r.rule.userdata.clone(),
        ));
    }
    let mut anon_sets = Vec::new();
    for name in &names {
        let table = rules
            .iter()
            .find(|(_, _, b, _)| find(b, b"__set").is_some())
            .map(|(t, _, _, _)| t.clone())
            .unwrap_or_default();
        let (sets, _) = list_sets(conn, Some(nf), None).unwrap();
        let set = sets
            .iter()
            .find(|s| &s.name == name)
            .expect("anonymous set");
        let (elems, _) = list_set_elems(conn, nf, &set.table, name).unwrap();
        let _ = table;
        let mut keys: Vec<Vec<u8>> = elems
            .iter()
            .map(|e| {
                let mut k = e
                    .key
                    .as_ref()
                    .map(|v| v.as_bytes().to_vec())
                    .unwrap_or_default();
                k.extend(e.flags.to_be_bytes());
                k
            })
            .collect();
        keys.sort();
        anon_sets.push(keys);
    }
    let (chains, _) = list_chains(conn, Some(nf), None).unwrap();
    let chains = chains
        .into_iter()
        .map(|c| {
            let policy = c
                .hook
                .as_ref()
                .and_then(|h| h.policy)
                .map(|p| p.to_string());
            ((c.table.clone(), c.name.clone()), policy)
        })
        .collect();
    Snapshot {
        rules,
        anon_sets,
        chains,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Deletes every rule of the chains iptables manages (anonymous sets go with their rules);
/// the base chain iptables-nft calls incompatible keeps its rules, as a restore keeps them.
fn flush(conn: &mut Conn, fam: IpFamily) {
    let (chains, _) = list_chains(conn, Some(fam.nft()), None).unwrap();
    let mut b = Batch::new();
    for c in chains.iter().filter(|c| c.name != "fwd10") {
        b.flush_chain(fam.nft(), &c.table, &c.name).unwrap();
    }
    b.commit(conn).unwrap();
}

fn iptnl_cli(fam: IpFamily, args: &[&str]) -> (i32, String, String) {
    let tool = match fam {
        IpFamily::V4 => "iptables",
        IpFamily::V6 => "ip6tables",
    };
    let mut all = vec![tool];
    all.extend_from_slice(args);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iptnl"))
        .args(&all)
        .env("IPTNL_DIRECT", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let fam = family(case);
    let planned = plan(case);
    write_rules(case, &planned);
    let mut conn = Conn::open().unwrap();
    let before = snapshot(&mut conn, fam);
    // Saved and restored at the kernel's default reader floor.
    let opts = SaveOptions {
        counters: case.counters,
        table: None,
        floor: None,
    };
    let text = save(&mut conn, fam, &opts).unwrap();
    // The rules of the base chain iptables cannot express are shown too (as comments: a
    // restore keeps that chain as it is), in save and in `-L`.
    let fwd10 = before.rules.iter().filter(|r| r.1 == "fwd10").count();
    let saved = text
        .lines()
        .filter(|l| l.starts_with("#   ") && l.contains("-A fwd10"))
        .count();
    prop_assert_eq!(saved, fwd10, "save shows the fwd10 rules:\n{}", text);
    let (code, l, _) = iptnl_cli(fam, &["-L", "-n"]);
    prop_assert_eq!(code, 0);
    let listed = l
        .split("\n\n")
        .find(|s| s.starts_with("Chain fwd10 (base chain"))
        .map_or(0, |s| s.lines().count() - 2);
    prop_assert_eq!(listed, fwd10, "-L shows the fwd10 rules:\n{}", l);
    flush(&mut conn, fam);
    let ropts = RestoreOptions {
        noflush: case.noflush,
        counters: case.counters,
        ..RestoreOptions::default()
    };
    restore(&mut conn, fam, &text, &ropts)
        .map_err(|e| TestCaseError::fail(format!("restore: {e}\n{text}")))?;
    let after = snapshot(&mut conn, fam);
    prop_assert_eq!(
        &before.rules,
        &after.rules,
        "rules differ; save was:\n{}",
        text
    );
    prop_assert_eq!(&before.anon_sets, &after.anon_sets);
    // Built-in chains the save lists that did not exist are created empty with policy
    // ACCEPT, as iptables-nft-restore creates them; every other chain is as it was.
    for (k, p) in &after.chains {
        match before.chains.get(k) {
            Some(q) => prop_assert_eq!(p, q, "chain {:?}", k),
            None => {
                prop_assert_eq!(p.as_deref(), Some("ACCEPT"), "new chain {:?}", k);
                prop_assert!(!after
                    .rules
                    .iter()
                    .any(|(t, c, _, _)| (t, c) == (&k.0, &k.1)));
            }
        }
    }
    for k in before.chains.keys() {
        prop_assert!(after.chains.contains_key(k), "chain {:?} lost", k);
    }

    // Every rule is listed and numbered at its kernel position, and -D N deletes exactly it.
    let Some(p) = planned.first() else {
        return Ok(());
    };
    let (table, chain) = (p.table, p.chain);
    if chain == "fwd10" {
        return Ok(());
    }
    let kernel: Vec<&Seen> = after
        .rules
        .iter()
        .filter(|(t, c, _, _)| t == table && c == chain)
        .collect();
    let (code, s, _) = iptnl_cli(fam, &["-t", table, "-S", chain]);
    prop_assert_eq!(code, 0);
    let listed = s.lines().filter(|l| l.starts_with("-A ")).count();
    prop_assert_eq!(listed, kernel.len(), "-S shows every rule:\n{}", s);
    let (code, l, _) = iptnl_cli(fam, &["-t", table, "-L", chain, "-n", "--line-numbers"]);
    prop_assert_eq!(code, 0);
    let nums: Vec<usize> = l
        .lines()
        .filter_map(|x| x.split_whitespace().next()?.parse().ok())
        .collect();
    prop_assert_eq!(
        nums,
        (1..=kernel.len()).collect::<Vec<_>>(),
        "-L numbers:\n{}",
        l
    );
    if !kernel.is_empty() {
        let n = usize::from(planned.len() as u8) % kernel.len() + 1;
        let before_delete: Vec<(String, String, Option<u64>)> =
            common::dump_rules_raw(&mut conn, fam.nft())
                .into_iter()
                .map(|r| (r.rule.table, r.rule.chain, r.rule.handle))
                .collect();
        let (code, _, err) = iptnl_cli(fam, &["-t", table, "-D", chain, &n.to_string()]);
        prop_assert_eq!(code, 0, "{}", err);
        let handles = |conn: &mut Conn| -> Vec<(String, String, Option<u64>)> {
            common::dump_rules_raw(conn, fam.nft())
                .into_iter()
                .map(|r| (r.rule.table, r.rule.chain, r.rule.handle))
                .collect()
        };
        let gone = handles(&mut conn);
        prop_assert_eq!(gone.len() + 1, before_delete.len());
        let mut want = before_delete.clone();
        let idx = want
            .iter()
            .enumerate()
            .filter(|(_, (t, c, _))| t == table && c == chain)
            .nth(n - 1)
            .map(|(i, _)| i)
            .unwrap();
        want.remove(idx);
        prop_assert_eq!(gone, want, "-D {} {} deleted another rule", chain, n);
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("IPTNL_LOSSLESS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500)
}

fn run_family(v6: bool) {
    if !common::have("nft") || !common::have("iptables-nft") {
        eprintln!("skipped: nft and iptables-nft are needed (apt-get install nftables iptables)");
        return;
    }
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&case_strategy(v6), |case| {
            common::in_netns(|| run_case(&case))
        })
        .unwrap();
}

#[test]
fn save_then_restore_gives_back_every_rule_ipv4() {
    run_family(false);
}

#[test]
fn save_then_restore_gives_back_every_rule_ipv6() {
    run_family(true);
}

/// Runs `f` in a fresh namespace whose table ip filter has a chain INPUT made by `nft`;
/// skipped without the oracles.
fn with_input_chain(f: impl FnOnce() + Send) {
    if !common::have("nft") || !common::have("iptables-nft") {
        eprintln!("skipped: nft and iptables-nft are needed");
        return;
    }
    common::in_netns(|| {
        common::nft_load(
            "add table ip filter\nadd chain ip filter INPUT { type filter hook input priority 0; }\n",
        );
        f()
    });
}

/// `-Z` re-sends each rule with zeroed counters: a rule with an anonymous set gets a set of
/// its own with the same elements (the old one belongs to the old rule), and an x_tables
/// match iptnl does not model keeps its protocol info; the rules stay as they were.
#[test]
fn zeroing_keeps_rules_iptables_cannot_express() {
    with_input_chain(|| {
        common::nft_load(
            "add rule ip filter INPUT ip saddr { 5.5.5.5, 6.6.6.6 } counter packets 3 bytes 9 drop\n",
        );
        common::run(
            "iptables-nft",
            &[
                "-A", "INPUT", "-p", "sctp", "-m", "sctp", "--dport", "80", "-c", "4", "8", "-j",
                "DROP",
            ],
        );
        let mut conn = Conn::open().unwrap();
        let zeroed = |conn: &mut Conn| {
            let mut s = snapshot(conn, IpFamily::V4);
            for r in &mut s.rules {
                let mut rule = iptnl::nft::Rule::new(iptnl::nft::Family::Ipv4, "", "");
                let mut w = Vec::new();
                w.extend_from_slice(&((r.2.len() + 4) as u16).to_ne_bytes());
                w.extend_from_slice(
                    &(iptnl::sys::nf_tables::NFTA_RULE_EXPRESSIONS | 0x8000).to_ne_bytes(),
                );
                w.extend_from_slice(&r.2);
                rule.set_content(&w).unwrap();
                let raw = iptnl::ipt::raw::RawRule::of(&rule);
                r.2 = raw.to_hex().into_bytes();
            }
            s
        };
        let before = zeroed(&mut conn);
        for args in [&["-Z", "INPUT"][..], &["-Z", "INPUT", "1"], &["-Z"]] {
            let (code, _, err) = iptnl_cli(IpFamily::V4, args);
            assert_eq!(code, 0, "{args:?}: {err}");
        }
        let (code, _, err) = {
            let out = common::run_status(
                env!("CARGO_BIN_EXE_iptnl"),
                &["iptables-restore", "--noflush"],
                Some("*filter\n-Z INPUT 1\nCOMMIT\n"),
            );
            (
                out.status.code(),
                (),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(zeroed(&mut conn), before);
        let save = common::run("iptables-nft-save", &["-c"]);
        assert!(!save.contains("[3:9]") && !save.contains("[4:8]"), "{save}");
        let list = common::nft_list();
        assert!(list.contains("{ 5.5.5.5, 6.6.6.6 }"), "{list}");
    });
}

/// iptables-nft-restore refuses a save holding a rule carried whole, rather than loading
/// something else; iptnl's restore of the same text
/// writes the rule back exactly.
#[test]
fn iptables_nft_restore_refuses_the_whole_rule_form() {
    with_input_chain(|| {
        common::nft_load("add rule ip filter INPUT ct state established counter accept\n");
        let mut conn = Conn::open().unwrap();
        let text = save(&mut conn, IpFamily::V4, &SaveOptions::default()).unwrap();
        assert!(text.contains("-A INPUT -m nft --nft-rule "), "{text}");
        let before = snapshot(&mut conn, IpFamily::V4);
        let out = common::run_status("iptables-nft-restore", &[], Some(&text));
        assert!(!out.status.success(), "iptables-nft-restore took:\n{text}");
        // It loaded no rule (1.8.9 does leave the built-in chains it created behind).
        assert_eq!(snapshot(&mut conn, IpFamily::V4).rules, before.rules);
        restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default()).unwrap();
        assert_eq!(snapshot(&mut conn, IpFamily::V4).rules, before.rules);
    });
}
