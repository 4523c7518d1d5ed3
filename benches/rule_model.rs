//! The iptables rule model on the kube-proxy workload (../shared/workloads/gen_kubeproxy.py,
//! 200k rules by default; `IPTNL_BENCH_RULES` changes it, the largest of a comma list).
//!
//! - `parse_encode`: every `-A` line parsed (`parse_rule_str`) and encoded into nf_tables
//!   expressions (`encode_rule_into`, one `Rule` reused from line to line as the restore does),
//!   compared with the kernel's commit time for those rules;
//! - `parse_encode_wire`: the same, each rule also serialized into a netlink batch (reused from
//!   one run to the next): everything from text to the bytes sent to the kernel;
//! - `decode_print`: every rule read back from the kernel decoded (`decode_rule`) and printed
//!   as iptables-save prints it, compared with the time `iptables-nft-save` takes on the same
//!   ruleset (when installed);
//! - `decode_exact_print`: the same with the decoding a save and the cache use
//!   (`decode_rule_or_raw`: a rule is shown as an iptables rule only when that form reads back
//!   to its expressions, otherwise it is carried whole).
//!
//! Run: `cargo bench --bench rule_model` (as root, or under `unshare -rn`). The commit and the
//! save run in a throwaway network namespace.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{black_box, Criterion, SamplingMode};
use iptnl::ipt::{
    decode_rule, decode_rule_or_raw, encode_rule, encode_rule_into, parse_rule_str, IpFamily,
    RuleSpec,
};
use iptnl::netlink::Conn;
use iptnl::nft::{list_rules, Batch, Chain, Family, Hook, Placement, Policy, Rule, Table};

struct Line {
    table: String,
    chain: String,
    args: String,
}

/// The workload generator: `IPTNL_SHARED` or ../shared next to the repository.
fn generator() -> Option<PathBuf> {
    let base = std::env::var_os("IPTNL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    let p = base.join("workloads/gen_kubeproxy.py");
    p.exists().then_some(p)
}

/// A chain declaration: table and chain name.
type ChainDecl = (String, String);

fn workload(rules: usize) -> Option<(Vec<Line>, Vec<ChainDecl>)> {
    let gen = generator()?;
    let out = Command::new("python3")
        .arg(gen)
        .arg("--rules")
        .arg(rules.to_string())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let mut table = String::new();
    let mut lines = Vec::new();
    let mut chains = Vec::new();
    for l in text.lines() {
        if let Some(t) = l.strip_prefix('*') {
            table = t.to_owned();
        } else if let Some(c) = l.strip_prefix(':') {
            let name = c.split_whitespace().next().unwrap_or("").to_owned();
            chains.push((table.clone(), name));
        } else if let Some(rest) = l.strip_prefix("-A ") {
            let (chain, args) = rest.split_once(' ').unwrap_or((rest, ""));
            lines.push(Line {
                table: table.clone(),
                chain: chain.to_owned(),
                args: args.to_owned(),
            });
        }
    }
    Some((lines, chains))
}

fn parse_encode(lines: &[Line]) -> Vec<Rule> {
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        let specs: Vec<RuleSpec> =
            parse_rule_str(IpFamily::V4, &l.args).unwrap_or_else(|e| panic!("{}: {e}", l.args));
        for s in &specs {
            out.push(encode_rule(s, IpFamily::V4, &l.table, &l.chain).unwrap());
        }
    }
    out
}

/// Parses and encodes every line into one reused rule (what the restore does); with a batch,
/// each rule is also written into it. Returns the number of expressions, so that nothing is
/// optimized away.
fn parse_encode_into(lines: &[Line], mut batch: Option<&mut Batch>) -> usize {
    let mut rule = Rule::new(Family::Ipv4, "", "");
    let mut n = 0;
    for l in lines {
        let specs =
            parse_rule_str(IpFamily::V4, &l.args).unwrap_or_else(|e| panic!("{}: {e}", l.args));
        for s in &specs {
            encode_rule_into(s, IpFamily::V4, &l.table, &l.chain, &mut rule).unwrap();
            n += rule.exprs.len();
            if let Some(b) = batch.as_deref_mut() {
                b.add_rule(&rule, Placement::Append, false).unwrap();
            }
        }
    }
    n
}

fn base_hook(table: &str, chain: &str) -> Option<Hook> {
    use iptnl::nft::ChainType;
    let num = match chain {
        "PREROUTING" => 0,
        "INPUT" => 1,
        "FORWARD" => 2,
        "OUTPUT" => 3,
        "POSTROUTING" => 4,
        _ => return None,
    };
    let (ty, prio) = match (table, chain) {
        ("nat", "PREROUTING" | "OUTPUT") => (ChainType::Nat, -100),
        ("nat", _) => (ChainType::Nat, 100),
        ("mangle", "OUTPUT") => (ChainType::Route, -150),
        ("mangle", _) => (ChainType::Filter, -150),
        ("raw", _) => (ChainType::Filter, -300),
        _ => (ChainType::Filter, 0),
    };
    Some(Hook {
        num,
        priority: prio,
        chain_type: ty,
        policy: Some(Policy::Accept),
        devices: Vec::new(),
    })
}

fn load(conn: &mut Conn, chains: &[ChainDecl], rules: &[Rule]) -> Duration {
    let mut b = Batch::with_capacity(rules.len() * 700);
    let mut tables: Vec<&str> = chains.iter().map(|(t, _)| t.as_str()).collect();
    tables.dedup();
    for t in &tables {
        b.add_table(&Table::new(Family::Ipv4, *t)).unwrap();
    }
    for (t, c) in chains {
        let ch = match base_hook(t, c) {
            Some(h) => Chain::base(Family::Ipv4, t.as_str(), c.as_str(), h),
            None => Chain::user(Family::Ipv4, t.as_str(), c.as_str()),
        };
        b.add_chain(&ch, false).unwrap();
    }
    for r in rules {
        b.add_rule(r, Placement::Append, false).unwrap();
    }
    let t = Instant::now();
    b.commit(conn).unwrap();
    t.elapsed()
}

fn main() {
    // A comma list (as the restore bench takes) means its largest size.
    let n: usize = std::env::var("IPTNL_BENCH_RULES")
        .ok()
        .and_then(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).max())
        .unwrap_or(200_000);
    let Some((lines, chains)) = workload(n) else {
        eprintln!("rule_model bench skipped: ../shared/workloads/gen_kubeproxy.py not found (set IPTNL_SHARED)");
        return;
    };
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("rule_model");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let mut pe = Vec::new();
    g.bench_function("parse_encode", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                black_box(parse_encode_into(black_box(&lines), None));
                let d = t.elapsed();
                pe.push(d);
                total += d;
            }
            total
        })
    });
    let mut pw = Vec::new();
    let mut wire = Batch::with_capacity(lines.len() * 700);
    g.bench_function("parse_encode_wire", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                wire.clear();
                let t = Instant::now();
                black_box(parse_encode_into(black_box(&lines), Some(&mut wire)));
                let d = t.elapsed();
                pw.push(d);
                total += d;
            }
            total
        })
    });
    drop(wire);
    let rules = parse_encode(&lines);
    let measured = iptnl::netns::run_in_fresh_netns(|| {
        let mut conn = Conn::open().ok()?;
        let commit = load(&mut conn, &chains, &rules);
        let (dumped, _) = list_rules(&mut conn, Some(Family::Ipv4), None, None).ok()?;
        let save = Command::new("iptables-nft-save").output().ok().map(|_| {
            let t = Instant::now();
            let _ = Command::new("iptables-nft-save").output();
            t.elapsed()
        });
        Some((commit, dumped, save))
    });
    let (commit, dumped, save) = match measured {
        Ok(Some(m)) => m,
        _ => {
            eprintln!("commit and save skipped: no network namespace (run as root)");
            g.finish();
            return;
        }
    };
    let mut dp = Vec::new();
    g.bench_function("decode_print", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let mut bytes = 0;
                for r in black_box(&dumped) {
                    let s = decode_rule(r, IpFamily::V4).unwrap();
                    bytes += s.to_save_line(&r.chain, false).len();
                }
                let d = t.elapsed();
                black_box(bytes);
                dp.push(d);
                total += d;
            }
            total
        })
    });
    // As a save and the cache read: exactly, or carried whole.
    let mut dx = Vec::new();
    g.bench_function("decode_exact_print", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let mut bytes = 0;
                for r in black_box(&dumped) {
                    let s = decode_rule_or_raw(r, IpFamily::V4);
                    bytes += s.to_save_line(&r.chain, false).len();
                }
                let d = t.elapsed();
                black_box(bytes);
                dx.push(d);
                total += d;
            }
            total
        })
    });
    g.finish();
    dx.sort();
    pe.sort();
    pw.sort();
    dp.sort();
    let median = |v: &[Duration]| v.get(v.len() / 2).copied();
    // A filter on the command line leaves some benchmarks unrun: no summary then.
    let (Some(pe), Some(pw), Some(dp)) = (median(&pe), median(&pw), median(&dp)) else {
        return;
    };
    let rps = |d: Duration| rules.len() as f64 / d.as_secs_f64();
    let n = rules.len();
    for (series, d) in [
        ("parse_encode", Some(pe)),
        ("parse_encode_wire", Some(pw)),
        ("decode_print", Some(dp)),
        ("decode_exact_print", median(&dx)),
        ("kernel_commit", Some(commit)),
        ("iptables-nft-save", save),
    ] {
        if let Some(d) = d {
            common::record("rule_model", n, series, "ms", d.as_secs_f64() * 1e3);
        }
    }
    println!(
        "{} rules: parse+encode {:.1} ms ({:.0} rules/s), kernel commit {:.1} ms, ratio {:.1}%",
        rules.len(),
        pe.as_secs_f64() * 1e3,
        rps(pe),
        commit.as_secs_f64() * 1e3,
        pe.as_secs_f64() / commit.as_secs_f64() * 100.0
    );
    println!(
        "parse+encode+netlink bytes {:.1} ms ({:.0} rules/s), ratio {:.1}% of the commit",
        pw.as_secs_f64() * 1e3,
        rps(pw),
        pw.as_secs_f64() / commit.as_secs_f64() * 100.0
    );
    match save {
        Some(s) => println!(
            "decode+print {:.1} ms ({:.0} rules/s), iptables-nft-save {:.1} ms, ratio {:.1}%",
            dp.as_secs_f64() * 1e3,
            rps(dp),
            s.as_secs_f64() * 1e3,
            dp.as_secs_f64() / s.as_secs_f64() * 100.0
        ),
        None => println!(
            "decode+print {:.1} ms ({:.0} rules/s); iptables-nft-save not installed",
            dp.as_secs_f64() * 1e3,
            rps(dp)
        ),
    }
}
