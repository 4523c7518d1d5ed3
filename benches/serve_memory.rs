//! What a resident `iptnl serve` holds in memory for a big table, and how fast it answers
//! reads of it.
//!
//! For each ruleset size (`IPTNL_BENCH_SIZES`, default 200k rules, from the Rust port of the
//! shared generator, `iptnl::workload::kube_proxy`), the workload is loaded, untimed, into a
//! fresh network namespace, and an `iptnl serve` (the release binary, `IPTNL_BIN` picks
//! another) is started there. Its resident memory (`VmRSS` of `/proc/PID/status`) is read:
//! - idle, before any command;
//! - after `iptables -t nat -S` through it (the server's first listing reads the table into
//!   its cache);
//! - after 100 commits through it (`-A` then `-D` of a rule in `KUBE-SERVICES`, 50 times),
//!   each followed by a listing of the table, as CNI plugins list it between their writes;
//!
//! each of the last two both at once and at rest (1.5 s later: a server with no connection
//! for a second gives back what its last commands freed).
//!
//! The figure it is held to is the nat table's `iptables-save` text (`iptnl iptables-save
//! -t nat`, run directly): at most twice that. Then the served reads of one chain are timed,
//! each a process as a script runs it, `IPTNL_BENCH_RUNS` times (default 11): `-S
//! KUBE-SERVICES` and `-C KUBE-SERVICES` of its first rule, wall time from spawn to exit.
//!
//! Prints the figures and writes them to `iptnl-bench/serve_memory.jsonl` (see
//! `benches/common`). Run: `cargo bench --bench serve_memory` (as root).

mod common;

use common::{iptnl_bin, median, ms, split, Server};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::netlink::Conn;
use iptnl::workload::{kube_proxy, KubeProxyOptions};

/// `VmRSS` and `VmHWM` of process `pid`, in KiB.
fn rss(pid: u32) -> (u64, u64) {
    let st = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let get = |key: &str| {
        st.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (get("VmRSS:"), get("VmHWM:"))
}

/// `VmRSS` and `VmHWM` of server `pid` at rest: once it has had no connection for a while
/// (it gives the memory its last commands freed back to the system after a second).
fn rested(pid: u32) -> (u64, u64) {
    std::thread::sleep(Duration::from_millis(1500));
    rss(pid)
}

/// Runs `iptnl PROG ARGS` (in the calling thread's namespace), output to `/dev/null` unless
/// `keep`; returns the wall time and what it printed.
fn run(bin: &Path, prog: &str, args: &[&str], keep: bool) -> (Duration, Vec<u8>) {
    let t = Instant::now();
    let out = Command::new(bin)
        .arg(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(if keep { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::piped())
        .output()
        .expect("iptnl");
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "iptnl {prog} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (d, out.stdout)
}

/// What one size measured: resident memory as `(VmRSS, VmHWM)` in KiB, times of the reads.
struct Figures {
    save: usize,
    listing: usize,
    t_list: Duration,
    idle: (u64, u64),
    listed: (u64, u64),
    listed_rest: (u64, u64),
    committed: (u64, u64),
    committed_rest: (u64, u64),
    end: (u64, u64),
    m_s: Duration,
    m_c: Duration,
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    let sizes: Vec<usize> = std::env::var("IPTNL_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![200_000]);
    let runs: usize = std::env::var("IPTNL_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11)
        .max(1);
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"serve_memory".contains(a.as_str()))
    {
        return;
    }
    let bin = iptnl_bin();
    for &size in &sizes {
        let (text, stats) = kube_proxy(&KubeProxyOptions::sized(size));
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
                .expect("a KUBE-SERVICES rule in nat")
        };
        let first = split(&first_svc_rule);
        let f = iptnl::netns::run_in_fresh_netns(|| {
            let mut conn = Conn::open().expect("netlink socket");
            restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default()).expect("load");
            drop(conn);
            let save = run(&bin, "iptables-save", &["-t", "nat"], true).1.len();
            let server = Server::start(&bin);
            let pid = server.pid();
            let idle = rss(pid);
            let (t_list, listing) = run(&bin, "iptables", &["-t", "nat", "-S"], true);
            let listed = rss(pid);
            let listed_rest = rested(pid);
            for i in 0..100 {
                // Rule i/2 appended, then deleted by spec.
                let verb = if i % 2 == 0 { "-A" } else { "-D" };
                let rule_ip = format!("10.254.0.{}/32", i / 2 + 1);
                run(
                    &bin,
                    "iptables",
                    &[
                        "-t",
                        "nat",
                        verb,
                        "KUBE-SERVICES",
                        "-d",
                        &rule_ip,
                        "-p",
                        "tcp",
                        "-m",
                        "tcp",
                        "--dport",
                        "80",
                        "-j",
                        "KUBE-MARK-MASQ",
                    ],
                    false,
                );
                run(&bin, "iptables", &["-t", "nat", "-S"], false);
            }
            let committed = rss(pid);
            let committed_rest = rested(pid);
            let mut t_s = Vec::new();
            let mut t_c = Vec::new();
            let mut c_args = vec!["-t", "nat", "-C", "KUBE-SERVICES"];
            c_args.extend(first.iter().map(String::as_str));
            for _ in 0..runs {
                t_s.push(
                    run(
                        &bin,
                        "iptables",
                        &["-t", "nat", "-S", "KUBE-SERVICES"],
                        false,
                    )
                    .0,
                );
                t_c.push(run(&bin, "iptables", &c_args, false).0);
            }
            let end = rss(pid);
            drop(server);
            Figures {
                save,
                listing: listing.len(),
                t_list,
                idle,
                listed,
                listed_rest,
                committed,
                committed_rest,
                end,
                m_s: median(&mut t_s),
                m_c: median(&mut t_c),
            }
        })
        .unwrap_or_else(|e| panic!("cannot create a network namespace ({e}): run as root"));
        let Figures {
            save,
            listing,
            t_list,
            idle,
            listed,
            listed_rest,
            committed,
            committed_rest,
            end,
            m_s,
            m_c,
        } = f;
        let save_mib = save as f64 / 1048576.0;
        println!();
        println!(
            "== iptnl serve memory: {} rules ({} nat) in {} chains ==",
            stats.rules, stats.nat_rules, stats.chains
        );
        println!(
            "nat save text {save_mib:.1} MiB, listing {:.1} MiB (first served listing {:.0} ms)",
            listing as f64 / 1048576.0,
            ms(t_list)
        );
        for (what, (r, h)) in [
            ("idle", idle),
            ("after listing", listed),
            ("  at rest", listed_rest),
            ("after 100 commits", committed),
            ("  at rest", committed_rest),
            ("after the timed reads", end),
        ] {
            println!(
                "{what:<22} VmRSS {:>7.1} MiB ({:.2} x save text), VmHWM {:>7.1} MiB",
                mib(r),
                mib(r) / save_mib,
                mib(h)
            );
        }
        println!(
            "served -S KUBE-SERVICES {:.1} ms, -C KUBE-SERVICES {:.1} ms (medians of {runs})",
            ms(m_s),
            ms(m_c)
        );
        for (what, r) in [
            ("after listing, at rest", listed_rest.0),
            ("after 100 commits, at rest", committed_rest.0),
        ] {
            println!(
                "target: VmRSS {what} <= 2 x save text: {}",
                if mib(r) <= 2.0 * save_mib {
                    "PASS"
                } else {
                    "FAIL"
                }
            );
        }
        let rec = |series: &str, metric: &str, v: f64| {
            common::record("serve_memory", size, series, metric, v)
        };
        rec("save_text", "mib", save_mib);
        rec("idle", "rss_mib", mib(idle.0));
        rec("after_listing", "rss_mib", mib(listed.0));
        rec("after_listing_at_rest", "rss_mib", mib(listed_rest.0));
        rec("after_100_commits", "rss_mib", mib(committed.0));
        rec(
            "after_100_commits_at_rest",
            "rss_mib",
            mib(committed_rest.0),
        );
        rec("after_100_commits", "hwm_mib", mib(committed.1));
        rec("served -S KUBE-SERVICES", "ms", ms(m_s));
        rec("served -C KUBE-SERVICES", "ms", ms(m_c));
    }
}
