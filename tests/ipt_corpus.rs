//! Differential tests of the iptables rule model against the installed `iptables-nft`.
//!
//! Corpus files under tests/corpus/*.rules hold one rule per line (each file runs in its own
//! namespace and thread; `IPTNL_CORPUS=a.rules,b.rules` runs only those files):
//! `FAMILIES TABLE CHAIN SPEC…` where FAMILIES is `4`, `6` or `46`. A line starting with `!`
//! is a spec that iptables 1.8.11 rejects: iptnl must reject it with an error naming the
//! option (the test reports whether the installed oracle wrongly accepted it). Blank lines
//! and `#` comments are skipped. A line `@ COMMAND ARGS…` is a setup command (e.g.
//! `@ ipset create NAME hash:ip`) run in the file's namespace, in file order, before the
//! rules that follow it.
//!
//! For every accepted spec, in a fresh network namespace:
//! (a) written by iptnl, `iptables-nft-save` prints exactly the line iptables-nft prints for it;
//! (b) written by `iptables-nft`, iptnl prints the same line and its canonical form equals
//!     iptnl's own encoding of the spec (check-by-spec finds it);
//! (c) the kernel's expression dump of both rules is byte-identical (expressions and userdata);
//! (d) where iptables 1.8.11 is installed beside the system's (`scripts/oracles.sh`), it
//!     prints iptnl's rule exactly as iptnl prints it: iptnl's text is 1.8.11's, not only
//!     1.8.9's with known differences folded.

mod common;

use std::collections::BTreeMap;

use iptnl::ipt::{
    decode_rule_with, encode_rule_with, parse_rule_str_with, rule_matches_spec_with, IpFamily,
};
use iptnl::iptables::ipset::KernelSets;
use iptnl::netlink::Conn;
use iptnl::nft::{list_rules, Batch, Family, Placement, Rule};

const USER_CHAINS: &[&str] = &[
    "KUBE-SVC-X",
    "KUBE-SEP-Y",
    "KUBE-MARK-MASQ",
    "CHAIN-A",
    "DOCKER",
    "cali-fw",
];

struct Case {
    line: usize,
    file: String,
    families: Vec<IpFamily>,
    table: String,
    chain: String,
    spec: String,
    must_reject: bool,
    /// A setup command (`@ …` line) instead of a rule.
    setup: Option<Vec<String>>,
}

fn load_corpus() -> Vec<Case> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let fname = f.file_name().unwrap().to_string_lossy().into_owned();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(cmd) = line.strip_prefix("@ ") {
                out.push(Case {
                    line: n + 1,
                    file: fname.clone(),
                    families: Vec::new(),
                    table: String::new(),
                    chain: String::new(),
                    spec: String::new(),
                    must_reject: false,
                    setup: Some(cmd.split_whitespace().map(str::to_owned).collect()),
                });
                continue;
            }
            let (must_reject, line) = match line.strip_prefix('!') {
                Some(rest) if rest.starts_with(' ') => (true, rest.trim_start()),
                _ => (false, line),
            };
            let mut parts = line.splitn(4, ' ');
            let fam = parts.next().unwrap();
            let table = parts
                .next()
                .unwrap_or_else(|| panic!("{fname}:{}: missing table", n + 1))
                .to_owned();
            let chain = parts
                .next()
                .unwrap_or_else(|| panic!("{fname}:{}: missing chain", n + 1))
                .to_owned();
            let spec = parts.next().unwrap_or("").to_owned();
            let families = match fam {
                "4" => vec![IpFamily::V4],
                "6" => vec![IpFamily::V6],
                "46" => vec![IpFamily::V4, IpFamily::V6],
                other => panic!("{fname}:{}: bad family {other}", n + 1),
            };
            out.push(Case {
                line: n + 1,
                file: fname.clone(),
                families,
                table,
                chain,
                spec,
                must_reject,
                setup: None,
            });
        }
    }
    out
}

fn ipt_bin(f: IpFamily) -> &'static str {
    match f {
        IpFamily::V4 => "iptables-nft",
        IpFamily::V6 => "ip6tables-nft",
    }
}

fn save_bin(f: IpFamily) -> &'static str {
    match f {
        IpFamily::V4 => "iptables-nft-save",
        IpFamily::V6 => "ip6tables-nft-save",
    }
}

/// The oracle's save lines of `chain`, with protocols as iptables 1.8.11 saves them.
fn oracle_lines(f: IpFamily, table: &str, chain: &str) -> Vec<String> {
    chain_lines(&common::run(save_bin(f), &["-t", table]), chain)
        .map(common::save_line_protocols_as_1_8_11)
        .collect()
}

/// The rule lines of `chain` in a save's output.
fn chain_lines<'a>(save: &'a str, chain: &str) -> impl Iterator<Item = &'a str> {
    let prefix = format!("-A {chain} ");
    let bare = format!("-A {chain}");
    save.lines()
        .filter(move |l| l.starts_with(&prefix) || *l == bare)
}

/// iptables 1.8.11's save command, where `scripts/oracles.sh` installed it.
fn save_1_8_11(f: IpFamily) -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("IPTNL_ORACLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/var/cache/iptnl-oracles".into());
    let bin = dir.join("1.8.11/bin").join(match f {
        IpFamily::V4 => "iptables-save",
        IpFamily::V6 => "ip6tables-save",
    });
    dir.join("1.8.11/.complete").exists().then_some(bin)
}

fn dump_chain(conn: &mut Conn, f: IpFamily, table: &str, chain: &str) -> Vec<Rule> {
    list_rules(conn, Some(f.nft()), Some(table), Some(chain))
        .unwrap()
        .0
}

fn wire(r: &Rule) -> (Vec<u8>, Option<Vec<u8>>) {
    (r.exprs_bytes(), r.userdata.clone())
}

fn flush(conn: &mut Conn, f: IpFamily, table: &str, chain: &str) {
    let mut b = Batch::new();
    b.flush_chain(f.nft(), table, chain).unwrap();
    b.commit(conn).unwrap();
}

#[derive(Default)]
struct Tally {
    pass: usize,
    fail: Vec<String>,
    notes: Vec<String>,
}

fn ext_names(spec: &str) -> Vec<String> {
    let toks: Vec<&str> = spec.split_whitespace().collect();
    let mut out = Vec::new();
    for w in toks.windows(2) {
        if w[0] == "-m" || w[0] == "-j" {
            out.push(w[1].trim_matches('"').to_owned());
        }
    }
    if out.is_empty() {
        out.push("core".into());
    }
    out
}

fn run_case(conn: &mut Conn, c: &Case, f: IpFamily, t: &mut Tally) -> Result<(), String> {
    let whence = format!(
        "{}:{} [{}] -t {} -A {} {}",
        c.file,
        c.line,
        ipt_bin(f),
        c.table,
        c.chain,
        c.spec
    );
    flush(conn, f, &c.table, &c.chain);
    let parsed = parse_rule_str_with(f, &c.spec, &KernelSets);
    let mut args = vec!["-t", c.table.as_str(), "-A", c.chain.as_str()];
    let split = iptnl::ipt::split_args(&c.spec).unwrap();
    args.extend(split.iter().map(String::as_str));
    let oracle = common::run_status(ipt_bin(f), &args, None);
    if c.must_reject {
        flush(conn, f, &c.table, &c.chain);
        return match parsed {
            Err(e) => {
                if oracle.status.success() {
                    t.notes.push(format!("{whence}: iptables-nft 1.8.9 accepts it, iptnl rejects it as 1.8.11 does: {e}"));
                }
                Ok(())
            }
            // Refused by the kernel, as iptables-nft's own rule is (an x_tables extension's
            // protocol check: `-m icmp` without `-p icmp`): iptnl installs nothing either.
            Ok(specs) if !oracle.status.success() && kernel_refuses(conn, f, c, &specs) => Ok(()),
            Ok(_) => Err(format!(
                "{whence}: iptnl accepted a spec iptables 1.8.11 rejects"
            )),
        };
    }
    if !oracle.status.success() {
        return Err(format!(
            "{whence}: the oracle refused it: {}",
            String::from_utf8_lossy(&oracle.stderr)
        ));
    }
    let specs = parsed.map_err(|e| format!("{whence}: iptnl rejected it: {e}"))?;
    // (b) written by iptables-nft, read by iptnl.
    let want = oracle_lines(f, &c.table, &c.chain);
    let theirs = dump_chain(conn, f, &c.table, &c.chain);
    if theirs.len() != want.len() || theirs.len() != specs.len() {
        return Err(format!(
            "{whence}: rule count: oracle save {}, dump {}, iptnl spec {}",
            want.len(),
            theirs.len(),
            specs.len()
        ));
    }
    for (i, r) in theirs.iter().enumerate() {
        let d = decode_rule_with(r, f, &KernelSets)
            .map_err(|e| format!("{whence}: iptnl cannot decode the oracle's rule: {e}\n{r}"))?;
        let line = d.to_save_line(&c.chain, false);
        if line != want[i] {
            return Err(format!(
                "{whence}: (b) iptnl prints\n  {line}\nthe oracle prints\n  {}",
                want[i]
            ));
        }
        if !rule_matches_spec_with(r, &specs[i], &KernelSets) {
            return Err(format!(
                "{whence}: (b) check-by-spec would not find the rule:\n{r}"
            ));
        }
    }
    let theirs_wire: Vec<_> = theirs.iter().map(wire).collect();
    flush(conn, f, &c.table, &c.chain);
    // (a) written by iptnl, read by iptables-nft-save.
    let mut b = Batch::new();
    for s in &specs {
        let r = encode_rule_with(s, f, &c.table, &c.chain, &KernelSets)
            .map_err(|e| format!("{whence}: encode: {e}"))?;
        b.add_rule(&r, Placement::Append, false).unwrap();
    }
    b.commit(conn)
        .map_err(|e| format!("{whence}: the kernel refused iptnl's rule: {e}"))?;
    let got = oracle_lines(f, &c.table, &c.chain);
    if got != want {
        flush(conn, f, &c.table, &c.chain);
        return Err(format!("{whence}: (a) iptables-nft-save prints for iptnl's rule\n  {got:?}\nfor its own\n  {want:?}"));
    }
    // (d) iptables 1.8.11 prints iptnl's rule as iptnl prints it.
    if let Some(save) = save_1_8_11(f) {
        let out = common::run(save.to_str().unwrap_or_default(), &["-t", &c.table]);
        let theirs: Vec<&str> = chain_lines(&out, &c.chain).collect();
        let ours: Vec<String> = dump_chain(conn, f, &c.table, &c.chain)
            .iter()
            .filter_map(|r| decode_rule_with(r, f, &KernelSets).ok())
            .map(|d| d.to_save_line(&c.chain, false))
            .collect();
        if theirs != ours {
            flush(conn, f, &c.table, &c.chain);
            return Err(format!(
                "{whence}: (d) iptables 1.8.11 prints iptnl's rule\n  {theirs:?}\niptnl prints\n  {ours:?}"
            ));
        }
    }
    // (c) byte-identical kernel dumps.
    let ours_wire: Vec<_> = dump_chain(conn, f, &c.table, &c.chain)
        .iter()
        .map(wire)
        .collect();
    flush(conn, f, &c.table, &c.chain);
    if ours_wire != theirs_wire {
        return Err(format!(
            "{whence}: (c) kernel dumps differ:\nours   {:02x?}\ntheirs {:02x?}",
            ours_wire, theirs_wire
        ));
    }
    Ok(())
}

/// Whether the kernel refuses iptnl's encoding of `specs` (nothing is left installed).
fn kernel_refuses(conn: &mut Conn, f: IpFamily, c: &Case, specs: &[iptnl::ipt::RuleSpec]) -> bool {
    let mut b = Batch::new();
    for s in specs {
        let Ok(r) = encode_rule_with(s, f, &c.table, &c.chain, &KernelSets) else {
            return true;
        };
        if b.add_rule(&r, Placement::Append, false).is_err() {
            return true;
        }
    }
    let refused = b.commit(conn).is_err();
    flush(conn, f, &c.table, &c.chain);
    refused
}

fn run_file(cases: &[Case]) -> (Tally, BTreeMap<String, (usize, usize)>) {
    let mut by_ext: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let tally = common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let mut t = Tally::default();
        // Base chains and the user chains the corpus jumps to, created by the oracle.
        for f in [IpFamily::V4, IpFamily::V6] {
            for table in ["filter", "nat", "mangle", "raw", "security"] {
                // iptables-nft 1.8.9 creates base chains on demand only: setting the policy
                // creates them.
                let base: &[&str] = match table {
                    "filter" | "security" => &["INPUT", "FORWARD", "OUTPUT"],
                    "nat" => &["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
                    "raw" => &["PREROUTING", "OUTPUT"],
                    _ => &["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
                };
                for ch in base {
                    common::run(ipt_bin(f), &["-t", table, "-P", ch, "ACCEPT"]);
                }
                for ch in USER_CHAINS {
                    common::run(ipt_bin(f), &["-t", table, "-N", ch]);
                }
            }
        }
        for c in cases {
            if let Some(cmd) = &c.setup {
                let args: Vec<&str> = cmd[1..].iter().map(String::as_str).collect();
                if !common::have(&cmd[0]) {
                    panic!(
                        "{}:{}: `{}` is not installed (apt-get install {})",
                        c.file, c.line, cmd[0], cmd[0]
                    );
                }
                common::run(&cmd[0], &args);
                continue;
            }
            if let Some(why) = common::unmapped_owner_ids(&c.spec) {
                common::skip(&format!("{}:{}", c.file, c.line), &why);
                continue;
            }
            for &f in &c.families {
                let names = ext_names(&c.spec);
                let ok = match run_case(&mut conn, c, f, &mut t) {
                    Ok(()) => {
                        t.pass += 1;
                        true
                    }
                    Err(e) => {
                        t.fail.push(e);
                        false
                    }
                };
                for name in names {
                    let e = by_ext.entry(name).or_default();
                    if ok {
                        e.0 += 1;
                    } else {
                        e.1 += 1;
                    }
                }
            }
        }
        t
    });
    (tally, by_ext)
}

#[test]
fn corpus_matches_iptables_nft() {
    // Names as iptables-nft finds them (protocols, services, users: the /etc files).
    iptnl::iptables::sysdb::use_system_databases();
    if !common::have("iptables-nft") {
        panic!("iptables-nft is not installed (apt-get install iptables)");
    }
    let mut cases = load_corpus();
    // IPTNL_CORPUS=name.rules[,other.rules] runs only those files.
    if let Ok(only) = std::env::var("IPTNL_CORPUS") {
        let only: Vec<&str> = only.split(',').collect();
        cases.retain(|c| only.contains(&c.file.as_str()));
    }
    // One namespace and one thread per corpus file, run side by side.
    let mut files: BTreeMap<String, Vec<Case>> = BTreeMap::new();
    for c in cases {
        files.entry(c.file.clone()).or_default().push(c);
    }
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .values()
            .map(|cases| s.spawn(move || run_file(cases)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut by_ext: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut total = Tally::default();
    for (t, e) in results {
        total.pass += t.pass;
        total.fail.extend(t.fail);
        total.notes.extend(t.notes);
        for (k, (p, f)) in e {
            let x = by_ext.entry(k).or_default();
            x.0 += p;
            x.1 += f;
        }
    }
    eprintln!("\n{:<20} {:>6} {:>6}", "extension", "pass", "fail");
    for (name, (p, f)) in &by_ext {
        eprintln!("{name:<20} {p:>6} {f:>6}");
    }
    for n in &total.notes {
        eprintln!("note: {n}");
    }
    eprintln!("corpus: {} passed, {} failed", total.pass, total.fail.len());
    assert!(
        total.fail.is_empty(),
        "{} corpus case(s) failed:\n{}",
        total.fail.len(),
        total.fail.join("\n\n")
    );
}

#[test]
fn families_match() {
    assert_eq!(IpFamily::V4.nft(), Family::Ipv4);
}
