//! Single commands, one process each, beside the kube-proxy workload: iptnl against
//! iptables-nft, and iptnl handing its commands to an `iptnl serve`.
//!
//! For each ruleset size (`IPTNL_BENCH_SIZES`, default 10k, 50k, 100k and 200k rules, from
//! the Rust port of the shared generator, `iptnl::workload::kube_proxy`), the workload is
//! loaded, untimed, by `iptnl::iptables::restore` into a fresh network namespace. Then each
//! command below runs as its own process in that namespace, as a script or an agent runs
//! it: `iptnl iptables ARGS` (the release binary, `IPTNL_BIN` picks another) and
//! `iptables-nft ARGS` in turn (who goes first alternates), `IPTNL_BENCH_RUNS` times each
//! (default 5; 3 for the whole-table commands). The time is the wall time from spawning
//! the process to its exit, its output written to `/dev/null`. Then an `iptnl serve` is
//! started in the namespace and the `iptables` commands run again through it ("served"):
//! `iptnl iptables ARGS` hands the command to the server, which keeps its socket and cache,
//! and so does `iptnl iptables-restore` (with its input). `iptables-save` is not served.
//!
//! Writes are undone in the same round (`-A`/`-D` by spec, `-I 1`/`-D 1`, `-N`/`-X`), so
//! every round sees the same table, apart from the one rule the `--noflush` restore adds
//! to `KUBE-MARK-MASQ` per run.
//!
//! Prints a table of medians (ms) per size and command, and writes the figures to
//! `iptnl-bench/cold.jsonl` (see `benches/common`).
//!
//! Run: `cargo bench --bench cold` (as root: it creates network namespaces).

mod common;

use common::{iptnl_bin, median, ms, split, Server};

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::netlink::Conn;
use iptnl::workload::{kube_proxy, KubeProxyOptions};

/// Who runs the command.
#[derive(Clone, Copy, PartialEq)]
enum Tool {
    IptablesNft,
    Iptnl,
    Served,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::IptablesNft => "iptables-nft",
            Tool::Iptnl => "iptnl",
            Tool::Served => "iptnl served",
        }
    }
}

/// One command of the set.
struct Cmd {
    /// The label in tables and plots.
    label: &'static str,
    /// `iptables`, `iptables-save` or `iptables-restore`.
    prog: &'static str,
    args: Vec<String>,
    stdin: Option<String>,
    /// Reads or writes the whole table: fewer runs.
    whole: bool,
}

fn cmd(label: &'static str, args: &str) -> Cmd {
    Cmd {
        label,
        prog: "iptables",
        args: split(args),
        stdin: None,
        whole: false,
    }
}

/// The commands, in the order of a round (each write is undone later in the round).
fn commands(first_svc_rule: &str) -> Vec<Cmd> {
    let rule = "-d 10.255.0.1/32 -p tcp -m tcp --dport 80 -j KUBE-MARK-MASQ";
    let mut v = vec![
        cmd("-S KUBE-SERVICES", "-t nat -S KUBE-SERVICES"),
        cmd("-L KUBE-SERVICES -n", "-t nat -L KUBE-SERVICES -n"),
        cmd(
            "-C KUBE-SERVICES (exists)",
            &format!("-t nat -C KUBE-SERVICES {first_svc_rule}"),
        ),
        cmd(
            "-A KUBE-SERVICES",
            &format!("-t nat -A KUBE-SERVICES {rule}"),
        ),
        cmd(
            "-D KUBE-SERVICES spec",
            &format!("-t nat -D KUBE-SERVICES {rule}"),
        ),
        cmd(
            "-I KUBE-SERVICES 1",
            "-t nat -I KUBE-SERVICES 1 -d 10.255.0.2/32 -j KUBE-MARK-MASQ",
        ),
        cmd("-D KUBE-SERVICES 1", "-t nat -D KUBE-SERVICES 1"),
        cmd("-N chain", "-t nat -N BENCH-COLD"),
        cmd("-X chain", "-t nat -X BENCH-COLD"),
        Cmd {
            label: "restore --noflush 1 rule",
            prog: "iptables-restore",
            args: vec!["--noflush".into()],
            stdin: Some("*nat\n-A KUBE-MARK-MASQ -s 10.255.0.3/32 -j RETURN\nCOMMIT\n".into()),
            whole: false,
        },
    ];
    let mut s = cmd("-S (nat table)", "-t nat -S");
    s.whole = true;
    v.push(s);
    v.push(Cmd {
        label: "iptables-save",
        prog: "iptables-save",
        args: Vec::new(),
        stdin: None,
        whole: true,
    });
    v
}

/// Runs `c` with `tool` (in the calling thread's namespace), returns its wall time.
fn run(bin: &Path, tool: Tool, c: &Cmd) -> Duration {
    let mut command = match tool {
        Tool::IptablesNft => Command::new(match c.prog {
            "iptables" => "iptables-nft",
            "iptables-save" => "iptables-nft-save",
            _ => "iptables-nft-restore",
        }),
        Tool::Iptnl | Tool::Served => {
            let mut x = Command::new(bin);
            x.arg(c.prog);
            x
        }
    };
    command
        .args(&c.args)
        .stdin(if c.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tool.name()));
    if let Some(input) = &c.stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "{} {} {:?} failed: {}",
        tool.name(),
        c.prog,
        c.args,
        String::from_utf8_lossy(&out.stderr)
    );
    d
}

fn main() {
    let sizes: Vec<usize> = std::env::var("IPTNL_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 50_000, 100_000, 200_000]);
    let runs: usize = std::env::var("IPTNL_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    // `cargo bench` passes `--bench`; a filter argument that names another bench skips this.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"cold".contains(a.as_str()))
    {
        return;
    }
    let bin = iptnl_bin();
    let mut table: Vec<(usize, &'static str, Tool, Duration, usize)> = Vec::new();
    for &size in &sizes {
        let (text, stats) = kube_proxy(&KubeProxyOptions::sized(size));
        eprintln!(
            "cold: size {size}: {} rules ({} nat), {} chains",
            stats.rules, stats.nat_rules, stats.chains
        );
        let first_svc_rule = {
            let mut in_nat = false;
            text.lines()
                .find_map(|l| {
                    if let Some(t) = l.strip_prefix('*') {
                        in_nat = t == "nat";
                    }
                    in_nat
                        .then(|| l.strip_prefix("-A KUBE-SERVICES "))
                        .flatten()
                        .map(str::to_owned)
                })
                .expect("a KUBE-SERVICES rule")
        };
        let cmds = commands(&first_svc_rule);
        let mut measured = iptnl::netns::run_in_fresh_netns(|| {
            let mut conn = Conn::open().expect("netlink socket");
            restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default()).expect("load");
            drop(conn);
            let mut t: Vec<Vec<Vec<Duration>>> = vec![vec![Vec::new(); 3]; cmds.len()];
            for round in 0..runs {
                // Tool by tool, each running the whole round (its writes and undos).
                let order = if round % 2 == 0 {
                    [Tool::IptablesNft, Tool::Iptnl]
                } else {
                    [Tool::Iptnl, Tool::IptablesNft]
                };
                for tool in order {
                    for (i, c) in cmds.iter().enumerate() {
                        if c.whole && round >= runs.min(3) {
                            continue;
                        }
                        t[i][tool as usize].push(run(&bin, tool, c));
                    }
                }
            }
            let _server = Server::start(&bin);
            for round in 0..runs {
                for (i, c) in cmds.iter().enumerate() {
                    if c.prog == "iptables-save" || (c.whole && round >= runs.min(3)) {
                        continue;
                    }
                    t[i][Tool::Served as usize].push(run(&bin, Tool::Served, c));
                }
            }
            t
        })
        .unwrap_or_else(|e| panic!("cannot create a network namespace ({e}): run as root"));
        for (i, c) in cmds.iter().enumerate() {
            for tool in [Tool::IptablesNft, Tool::Iptnl, Tool::Served] {
                let v = &mut measured[i][tool as usize];
                if v.is_empty() {
                    continue;
                }
                let n = v.len();
                let m = median(v);
                common::record(
                    "cold",
                    size,
                    &format!("{}|{}", c.label, tool.name()),
                    "ms",
                    ms(m),
                );
                table.push((size, c.label, tool, m, n));
            }
        }
    }
    println!();
    println!("== cold commands: one process per command, medians (ms) ==");
    println!(
        "{:>7} {:<26} {:>13} {:>10} {:>13} {:>3}",
        "rules", "command", "iptables-nft", "iptnl", "iptnl served", "n"
    );
    let mut seen = Vec::new();
    for &(size, label, _, _, n) in &table {
        if seen.contains(&(size, label)) {
            continue;
        }
        seen.push((size, label));
        let get = |tool: Tool| {
            table
                .iter()
                .find(|r| r.0 == size && r.1 == label && r.2 == tool)
                .map_or("-".to_owned(), |r| format!("{:.1}", ms(r.3)))
        };
        println!(
            "{size:>7} {label:<26} {:>13} {:>10} {:>13} {n:>3}",
            get(Tool::IptablesNft),
            get(Tool::Iptnl),
            get(Tool::Served)
        );
    }
}
