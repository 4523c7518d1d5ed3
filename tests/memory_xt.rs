//! The in-memory ruleset's x_tables checks against the kernel's: every rule of the rule
//! corpus (`tests/corpus/*.rules`) is appended, through the API, in each built-in chain of
//! each table and in user chains that base chains of each table reach (where the kernel
//! checks hooks again) or that nothing reaches, on the kernel (a fresh namespace per corpus
//! file) and in memory. Where the memory models the extension the answers must be the
//! same (value or error, with its text), and at the end of each file the dumps of the
//! whole ruleset byte-identical; where it does not, it must answer `Unsupported` (counted,
//! and printed as the scope it leaves out).

mod common;

use std::collections::BTreeMap;

use iptnl::ipt::IpFamily;
use iptnl::iptables::{Error, IpTables};
use iptnl::netlink::Conn;
use iptnl_sys::nf_tables::{NFT_MSG_GETCHAIN, NFT_MSG_GETRULE, NFT_MSG_GETTABLE};
use iptnl_sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

/// Where each rule is tried: built-in chains, and user chains reached from a base chain
/// (`R`) or from nowhere (`U`).
const WHERE: &[(&str, &str)] = &[
    ("filter", "INPUT"),
    ("filter", "FORWARD"),
    ("filter", "OUTPUT"),
    ("filter", "R"),
    ("nat", "PREROUTING"),
    ("nat", "INPUT"),
    ("nat", "OUTPUT"),
    ("nat", "POSTROUTING"),
    ("nat", "R"),
    ("nat", "U"),
    ("mangle", "PREROUTING"),
    ("mangle", "FORWARD"),
    ("mangle", "POSTROUTING"),
    ("mangle", "R"),
    ("raw", "PREROUTING"),
    ("raw", "OUTPUT"),
    ("raw", "R"),
];

/// The base chain of each table that jumps to its chain `R`.
const REACH: &[(&str, &str)] = &[
    ("filter", "OUTPUT"),
    ("nat", "PREROUTING"),
    ("mangle", "OUTPUT"),
    ("raw", "PREROUTING"),
];

/// User chains the corpus jumps to.
const USER_CHAINS: &[&str] = &[
    "KUBE-SVC-X",
    "KUBE-SEP-Y",
    "KUBE-MARK-MASQ",
    "CHAIN-A",
    "DOCKER",
    "cali-fw",
];

fn setup(ipt: &IpTables) {
    for (t, base) in REACH {
        ipt.new_chain(t, "R").unwrap();
        ipt.new_chain(t, "U").unwrap();
        for c in USER_CHAINS {
            ipt.new_chain(t, c).unwrap();
        }
        ipt.append(t, base, "-j R").unwrap();
    }
}

fn dumps(ipt: &IpTables) -> Vec<Vec<u8>> {
    let family = ipt.family().nft().raw();
    ipt.with_conn(|conn: &mut Conn| {
        let mut out = Vec::new();
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
            .unwrap();
        }
        out
    })
}

struct Case {
    families: Vec<IpFamily>,
    spec: String,
    ext: String,
}

fn corpus() -> BTreeMap<String, Vec<Case>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut out = BTreeMap::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    for f in files {
        let mut cases = Vec::new();
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') || l.starts_with('!') || l.starts_with('@') {
                continue;
            }
            let mut parts = l.splitn(4, ' ');
            let fam = parts.next().unwrap_or("");
            let (_table, _chain) = (parts.next(), parts.next());
            let spec = parts.next().unwrap_or("").to_owned();
            let mut families = Vec::new();
            if fam.contains('4') {
                families.push(IpFamily::V4);
            }
            if fam.contains('6') {
                families.push(IpFamily::V6);
            }
            let toks: Vec<&str> = spec.split_whitespace().collect();
            let ext = toks
                .windows(2)
                .filter(|w| w[0] == "-m" || w[0] == "-j")
                .map(|w| w[1].trim_matches('"'))
                .collect::<Vec<_>>()
                .join("+");
            cases.push(Case {
                families,
                spec,
                ext,
            });
        }
        out.insert(f.file_name().unwrap().to_string_lossy().into_owned(), cases);
    }
    out
}

/// A result as text, without the handles (they part ways once one answer differs).
fn text(r: &Result<impl std::fmt::Debug, Error>) -> String {
    let s = format!("{r:?}");
    match s.find("handles: [") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// What a result says, in short.
fn verdict(r: &Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => match e.errno() {
            Some(n) => format!("errno {n}"),
            None => "refused".into(),
        },
    }
}

/// One corpus file in one family, in a fresh namespace: how many appends were compared,
/// what the memory does not model, and the differences.
fn run_file(file: &str, cases: &[Case], family: IpFamily) -> (usize, Vec<String>, Vec<String>) {
    common::in_netns(|| {
        let kernel = IpTables::new(family).unwrap();
        let mem = IpTables::in_memory(family);
        setup(&kernel);
        setup(&mem);
        let mut n = 0;
        let mut unsup: Vec<String> = Vec::new();
        let mut fails = Vec::new();
        let mut diverged = false;
        for c in cases.iter().filter(|c| c.families.contains(&family)) {
            for (t, ch) in WHERE {
                let m = mem.append(t, ch, c.spec.as_str());
                if let Err(Error::Unsupported(why)) = &m {
                    unsup.push(format!("{}: {why}", c.ext));
                    break;
                }
                let k = kernel.append(t, ch, c.spec.as_str());
                n += 1;
                if text(&k) != text(&m) {
                    diverged = true;
                    fails.push(format!(
                        "{:<28} {t:>6} {ch:<11} kernel {:<9} memory {:<9} {}",
                        c.ext,
                        verdict(&k),
                        verdict(&m),
                        c.spec
                    ));
                    // Keep both sides holding the same rules.
                    if k.is_ok() {
                        let _ = kernel.delete(t, ch, c.spec.as_str());
                    }
                    if m.is_ok() {
                        let _ = mem.delete(t, ch, c.spec.as_str());
                    }
                }
            }
        }
        let (kd, md) = (dumps(&kernel), dumps(&mem));
        if !diverged && kd != md {
            let at = kd.iter().zip(&md).position(|(a, b)| a != b).unwrap_or(0);
            let hex = |b: Option<&Vec<u8>>| {
                b.map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>())
                    .unwrap_or_default()
            };
            fails.push(format!(
                "{file} [{family:?}]: the dumps differ at message {at} of {}/{}:\n  kernel: {}\n  memory: {}",
                kd.len(),
                md.len(),
                hex(kd.get(at)),
                hex(md.get(at))
            ));
        }
        (n, unsup, fails)
    })
}

#[test]
fn xt_checks_match_the_kernel() {
    let corpus = corpus();
    let jobs: Vec<(&String, &Vec<Case>, IpFamily)> = corpus
        .iter()
        .flat_map(|(f, c)| [(f, c, IpFamily::V4), (f, c, IpFamily::V6)])
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // The kernel's part is mostly waiting: four files at a time.
    let results: Vec<(usize, Vec<String>, Vec<String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((file, cases, family)) = jobs.get(i) else {
                            return out;
                        };
                        out.push(run_file(file, cases, *family));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect()
    });
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let mut compared = 0usize;
    let mut failures = Vec::new();
    for (n, unsup, fails) in results {
        compared += n;
        for u in unsup {
            *unsupported.entry(u).or_default() += 1;
        }
        failures.extend(fails);
    }
    eprintln!("{compared} appends compared; not modelled (answered Unsupported):");
    for (what, n) in &unsupported {
        eprintln!("{n:>5}  {what}");
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
