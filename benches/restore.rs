//! Restore and save of the kube-proxy workload against the real tools.
//!
//! The input is `gen_kubeproxy.py --rules N` for each N of `IPTNL_BENCH_RULES` (a comma
//! list, default `10000,50000,100000,200000`; the generator is found via `IPTNL_SHARED` or
//! `../shared` next to the repository; without it the bench says so and exits).
//! `IPTNL_BENCH_SAMPLES` (default and minimum 10, criterion's floor) is the number of runs
//! of each tool per size. Every measurement runs in a fresh network namespace with
//! the same setup (empty for a full restore; the whole workload loaded by iptnl for
//! `--noflush` deltas), and the real tools are spawned from inside that namespace. Each run
//! starts once the machine is idle: the kernel tears the previous run's namespace (and its
//! 200k rules) down on a worker for about a second afterwards.
//!
//! Groups (criterion, `restore/…`):
//! - `iptnl_restore`: `iptnl::iptables::restore::restore` of the whole file (from a fresh copy of
//!   its text, made untimed just before), wall time;
//!   Each run is paired with the kernel alone for iptnl's own batch, in another fresh
//!   namespace (first or second in turn): the batch is planned with `plan_restore` (not
//!   timed) and only `batch.commit` is timed (printed as "kernel alone": the kernel's floor
//!   for this ruleset; the pairs share the machine's state of the moment). Twice
//!   `IPTNL_BENCH_SAMPLES` pairs;
//! - `iptables_nft_restore`, `iptables_legacy_restore`, `nft_f_translated` (`nft -f` of the
//!   `iptables-restore-translate -f FILE` output, with the transport protocol of the DNAT
//!   rules put back, see [`fix_translation`]): the tools on the same file, wall time
//!   (`nft -f` outside criterion, `IPTNL_BENCH_NFT_RUNS` runs, default 3: it takes tens of
//!   seconds at 200k rules);
//! - `iptnl_noflush_delta`, `iptables_nft_noflush_delta`: a 10-rule `--noflush` delta (six
//!   `-A`, two `-I`, two `-D`) into the loaded workload; iptnl's own time is its wall time
//!   minus `RestoreReport::commit_time`;
//! - `iptnl_resync`: the same file restored again (without `--noflush`) into the loaded
//!   workload: only the comparison, nothing is committed;
//! - `iptnl_resync_remembered`: the same again through an `IpTables` handle that applied it
//!   (as `iptnl serve` holds one): answered from the handle's memory of its last restore;
//! - `iptnl_save`, `iptables_nft_save`: save of the loaded workload.
//!
//! Peak RSS: the `restore_file` example (iptnl) and the tools each run once as a child in a
//! fresh namespace; the peak is the child's VmHWM, polled from `/proc/PID/status` every
//! millisecond until it exits (`ru_maxrss` is useless here: a child started with
//! vfork/posix_spawn inherits the parent's high-water mark).
//!
//! Prints one line per target at the end of each size with medians, the ratio and
//! PASS/FAIL, and writes the figures to `iptnl-bench/restore.jsonl` (see `benches/common`).
//! Run with `cargo bench --bench restore` (as root).

mod common;

use common::{median, ms};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use iptnl::ipt::savefile::SaveOptions;
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{plan_restore, restore, RestoreOptions};
use iptnl::iptables::save::save;
use iptnl::netlink::Conn;

fn shared_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("IPTNL_SHARED") {
        return Some(PathBuf::from(d));
    }
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    d.is_dir().then_some(d)
}

fn have(bin: &str) -> bool {
    Command::new(bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Busy and total CPU time of the machine so far (`/proc/stat`, in clock ticks).
fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let v: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let total: u64 = v.iter().sum();
    // idle + iowait
    let idle = v.get(3)? + v.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// Waits until the machine is idle (under 10% busy over 100 ms; at most
/// `IPTNL_BENCH_SETTLE_SECS`, default 10 s): the kernel tears down the previous run's
/// namespace, with its 200k rules, on a worker for about a second after the run, and a timed
/// run must not share the CPUs with that. On a machine that other work keeps busy every wait
/// lasts the whole limit: lower it there.
fn settle() {
    let limit = std::env::var("IPTNL_BENCH_SETTLE_SECS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(10.0);
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs_f64(limit) {
        let Some((b0, t0)) = cpu_ticks() else { return };
        std::thread::sleep(Duration::from_millis(100));
        let Some((b1, t1)) = cpu_ticks() else { return };
        if t1 > t0 && (b1 - b0) * 10 < t1 - t0 {
            return;
        }
    }
}

/// Runs `f` in a fresh network namespace, once the machine is idle (see [`settle`]).
fn in_netns<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    settle();
    iptnl::netns::run_in_fresh_netns(f)
        .unwrap_or_else(|e| panic!("cannot create a network namespace ({e}): run as root"))
}

/// Runs a tool to completion (in the calling thread's namespace); panics when it fails.
fn run_tool(bin: &str, args: &[&str], stdin: Option<&[u8]>) -> Duration {
    let t = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "{bin} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    d
}

/// Runs a tool to completion in the network namespace `ns`; panics when it fails.
fn run_tool_in(ns: &std::fs::File, bin: &str, args: &[&str]) -> Duration {
    // A helper thread enters the namespace and runs the tool from there (the child inherits
    // the thread's namespace); the bench's own threads do not move.
    std::thread::scope(|sc| {
        sc.spawn(|| {
            iptnl::netlink::enter_net_namespace(ns).expect("entering the namespace");
            run_tool(bin, args, None)
        })
        .join()
        .unwrap()
    })
}

/// Peak RSS (KiB) of a child process: the last VmHWM read from `/proc/PID/status` (polled
/// every millisecond until it exits; the high-water mark only grows, so a late poll still
/// sees an earlier peak).
fn peak_rss(bin: &Path, args: &[&str]) -> (u64, String) {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let pid = child.id();
    let status_path = format!("/proc/{pid}/status");
    let mut polled = 0u64;
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    loop {
        if let Ok(st) = std::fs::read_to_string(&status_path) {
            if let Some(kb) = st
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
            {
                polled = polled.max(kb);
            }
        }
        // ru_maxrss is not used: a child spawned with vfork/posix_spawn inherits the parent's
        // high-water mark at exec, so it is at least the bench's own peak.
        if let Some(status) = child.try_wait().expect("waiting for the child") {
            assert!(status.success(), "{} {args:?} failed", bin.display());
            let out = reader.join().unwrap();
            return (polled, out);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The `restore_file` example (built by `cargo bench`; built here if it is missing).
fn restore_file_example() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?;
    let p = dir.join("examples/restore_file");
    if !p.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let _ = Command::new(cargo)
            .args(["build", "--release", "--example", "restore_file"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status();
    }
    p.exists().then_some(p)
}

/// A 10-rule delta for the loaded workload: six -A, two -I (one positional, so that iptnl
/// reads a chain), two -D by rule spec of rules that exist.
fn delta_for(input: &str) -> String {
    let svc_rule = input
        .lines()
        .find(|l| l.starts_with("-A KUBE-SVC-") && l.contains("--probability"))
        .expect("a KUBE-SVC rule in the workload");
    let svc_chain = svc_rule.split_whitespace().nth(1).unwrap();
    let sep_rules: Vec<&str> = input
        .lines()
        .filter(|l| l.starts_with("-A KUBE-SEP-"))
        .take(2)
        .collect();
    let mut d = String::from("*nat\n");
    for i in 0..6 {
        d.push_str(&format!(
            "-A KUBE-SERVICES -d 10.199.0.{i}/32 -p tcp -m comment --comment \"bench/delta-{i} cluster IP\" -m tcp --dport 80 -j KUBE-MARK-MASQ\n"
        ));
    }
    d.push_str("-I KUBE-SERVICES 1 -d 10.199.1.1/32 -p tcp -m tcp --dport 81 -j KUBE-MARK-MASQ\n");
    d.push_str(&format!(
        "-I {svc_chain} 2 -s 10.199.2.2/32 -m comment --comment \"bench delta\" -j KUBE-MARK-MASQ\n"
    ));
    for r in sep_rules {
        d.push_str(&format!("-D{}\n", &r[2..]));
    }
    d.push_str("COMMIT\n");
    d
}

/// `iptables-restore-translate` output that `nft -f` accepts. iptables 1.8.9 drops the
/// `-p tcp` of a rule whose `-m tcp` has no option (kube-proxy's `KUBE-SEP-…` DNAT rules:
/// `-p tcp -m comment … -m tcp -j DNAT --to-destination IP:PORT`), and nft refuses a `dnat
/// to IP:PORT` without a transport protocol. The translation has one `add rule` line per
/// `-A` line, in order: the protocol of each such DNAT rule is put back as `meta l4proto`.
fn fix_translation(input: &str, translated: &[u8]) -> String {
    let text = String::from_utf8_lossy(translated);
    let mut appends = input.lines().filter(|l| l.starts_with("-A "));
    let mut out = String::with_capacity(text.len() + 4096);
    for line in text.lines() {
        if line.starts_with("add rule ") {
            let src = appends.next().unwrap_or("");
            if line.contains(" dnat to ") && !line.contains("l4proto") {
                let proto = src.split_whitespace().skip_while(|w| *w != "-p").nth(1);
                // add rule <family> <table> <chain> <rest>
                let mut parts = line.splitn(6, ' ');
                let head: Vec<&str> = parts.by_ref().take(5).collect();
                if let (Some(p), 5, Some(rest)) = (proto, head.len(), parts.next()) {
                    out.push_str(&head.join(" "));
                    out.push_str(" meta l4proto ");
                    out.push_str(p);
                    out.push(' ');
                    out.push_str(rest);
                    out.push('\n');
                    continue;
                }
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

struct Target {
    what: &'static str,
    detail: String,
    pass: Option<bool>,
}

fn main() {
    let sizes: Vec<usize> = std::env::var("IPTNL_BENCH_RULES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 50_000, 100_000, 200_000]);
    let samples: usize = std::env::var("IPTNL_BENCH_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10)
        .max(10);
    let Some(shared) = shared_dir() else {
        eprintln!("restore bench skipped: ../shared/workloads/gen_kubeproxy.py not found (set IPTNL_SHARED)");
        return;
    };
    let gen = shared.join("workloads/gen_kubeproxy.py");
    if !gen.exists() {
        eprintln!("restore bench skipped: {} not found", gen.display());
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    for rules in sizes {
        bench_size(&mut c, &gen, rules, samples);
    }
    c.final_summary();
}

/// The whole bench for one ruleset size (`samples` runs of each tool, twice as many
/// restore / kernel-alone pairs).
fn bench_size(c: &mut Criterion, gen: &Path, rules: usize, samples: usize) {
    let dir = std::env::temp_dir().join(format!("iptnl-bench-restore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("kubeproxy-{rules}.rules"));
    let st = Command::new("python3")
        .arg(gen)
        .args(["--rules", &rules.to_string(), "-o"])
        .arg(&file)
        .stderr(Stdio::piped())
        .output()
        .expect("python3");
    assert!(st.status.success(), "gen_kubeproxy.py failed");
    eprintln!("workload: {}", String::from_utf8_lossy(&st.stderr).trim());
    let input = std::fs::read_to_string(&file).unwrap();
    let file_s = file.to_str().unwrap().to_owned();
    let delta = delta_for(&input);
    let delta_file = dir.join("delta.rules");
    std::fs::write(&delta_file, &delta).unwrap();
    let delta_s = delta_file.to_str().unwrap().to_owned();
    let nft_restore = have("iptables-nft-restore");
    let legacy_restore = have("iptables-legacy-restore");
    let translate = have("iptables-restore-translate") && have("nft");
    let nft_save = have("iptables-nft-save");

    let full = RestoreOptions::default();
    let noflush = RestoreOptions {
        noflush: true,
        ..Default::default()
    };
    let mut g = c.benchmark_group(format!("restore/{rules}"));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(samples)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_millis(1));

    // (a) iptnl full restore, and (b) the kernel alone for iptnl's batch, in pairs: each
    // restore goes with a commit of the same batch, planned untimed, in another fresh
    // namespace, so that both see the same state of this shared machine (measured one group
    // after the other, the two medians drifted apart by up to 7%). 20 pairs: a commit of
    // this size varies by ±15% from run to run here.
    let mut t_iptnl = Vec::new();
    let mut t_iptnl_commit = Vec::new();
    let mut t_iptnl_rest = Vec::new();
    let mut t_kernel = Vec::new();
    let mut batch_bytes = 0;
    let mut pairs = 0usize;
    g.sample_size(2 * samples);
    g.bench_function("iptnl_restore", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let iptnl = || {
                    in_netns(|| {
                        let mut conn = Conn::open().unwrap();
                        // A fresh copy of the input (not timed), as an agent restores a text
                        // it has just generated: on this VM, memory left idle for a second or
                        // two (the input, during the previous run's commit) is several times
                        // slower to touch again, with no page fault in the guest.
                        let text = input.clone();
                        let t = Instant::now();
                        let r = restore(&mut conn, IpFamily::V4, &text, &full).unwrap();
                        (t.elapsed(), r)
                    })
                };
                let kernel = || {
                    in_netns(|| {
                        let mut conn = Conn::open().unwrap();
                        let text = input.clone();
                        let (mut batch, _) =
                            plan_restore(&mut conn, IpFamily::V4, &text, &full).unwrap();
                        let t = Instant::now();
                        batch.commit(&mut conn).unwrap();
                        t.elapsed()
                    })
                };
                // Every other pair the kernel alone goes first, so that neither side is
                // always the one that follows the other.
                let ((d, r), k) = if pairs % 2 == 0 {
                    let a = iptnl();
                    (a, kernel())
                } else {
                    let k = kernel();
                    (iptnl(), k)
                };
                pairs += 1;
                assert_eq!(r.retries, 0);
                batch_bytes = r.batch_bytes;
                total += d;
                t_iptnl.push(d);
                t_iptnl_commit.push(r.commit_time);
                t_iptnl_rest.push(d.saturating_sub(r.commit_time));
                t_kernel.push(k);
            }
            total
        })
    });
    g.sample_size(samples);

    // (c) the real tools on the same file.
    let mut t_nft = Vec::new();
    let mut t_legacy = Vec::new();
    let mut t_translated = Vec::new();
    let mut nft_ok: Option<String> = None;
    if nft_restore {
        g.bench_function("iptables_nft_restore", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let d = in_netns(|| run_tool("iptables-nft-restore", &[&file_s], None));
                    total += d;
                    t_nft.push(d);
                }
                total
            })
        });
    } else {
        eprintln!("iptables-nft-restore not installed: skipped");
    }
    if legacy_restore {
        g.bench_function("iptables_legacy_restore", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let d = in_netns(|| run_tool("iptables-legacy-restore", &[&file_s], None));
                    total += d;
                    t_legacy.push(d);
                }
                total
            })
        });
    } else {
        eprintln!("iptables-legacy-restore not installed: skipped");
    }
    if translate {
        let nft_text = Command::new("iptables-restore-translate")
            .args(["-f", &file_s])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout);
        match nft_text {
            Some(text) => {
                let nft_file = dir.join("translated.nft");
                std::fs::write(&nft_file, fix_translation(&input, &text)).unwrap();
                let nft_file = nft_file.to_str().unwrap().to_owned();
                let probe = in_netns(|| {
                    Command::new("nft")
                        .args(["-f", &nft_file])
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .output()
                        .unwrap()
                });
                if !probe.status.success() {
                    let err = String::from_utf8_lossy(&probe.stderr);
                    eprintln!(
                        "nft -f of the iptables-restore-translate output fails ({} error lines, first: {}): skipped",
                        err.lines().filter(|l| l.contains("Error:")).count(),
                        err.lines().find(|l| l.contains("Error:")).unwrap_or("?").trim()
                    );
                } else {
                    nft_ok = Some(nft_file.clone());
                    // Not through criterion (at least 10 samples): `nft -f` takes tens of
                    // seconds at 200k rules. `IPTNL_BENCH_NFT_RUNS` runs, default 3.
                    let runs: usize = std::env::var("IPTNL_BENCH_NFT_RUNS")
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(3);
                    for _ in 0..runs {
                        let d = in_netns(|| run_tool("nft", &["-f", &nft_file], None));
                        eprintln!("restore/{rules}/nft_f_translated: {:.0} ms", ms(d));
                        t_translated.push(d);
                    }
                }
            }
            None => eprintln!("iptables-restore-translate failed on the workload: nft -f skipped"),
        }
    } else {
        eprintln!("iptables-restore-translate or nft not installed: nft -f skipped");
    }

    // (e) --noflush deltas into the loaded workload (loaded by iptnl, not timed).
    let mut t_delta_own = Vec::new();
    let mut t_delta_wall = Vec::new();
    let mut t_delta_commit = Vec::new();
    let mut t_delta_nft = Vec::new();
    g.bench_function("iptnl_noflush_delta", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (wall, r) = in_netns(|| {
                    let mut conn = Conn::open().unwrap();
                    restore(&mut conn, IpFamily::V4, &input, &full).unwrap();
                    let t = Instant::now();
                    let r = restore(&mut conn, IpFamily::V4, &delta, &noflush).unwrap();
                    (t.elapsed(), r)
                });
                assert_eq!(r.rules_added, 8);
                total += wall;
                t_delta_wall.push(wall);
                t_delta_commit.push(r.commit_time);
                t_delta_own.push(wall.saturating_sub(r.commit_time));
            }
            total
        })
    });
    if nft_restore {
        g.bench_function("iptables_nft_noflush_delta", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let d = in_netns(|| {
                        let mut conn = Conn::open().unwrap();
                        restore(&mut conn, IpFamily::V4, &input, &full).unwrap();
                        run_tool("iptables-nft-restore", &["--noflush", &delta_s], None)
                    });
                    total += d;
                    t_delta_nft.push(d);
                }
                total
            })
        });
    }

    // (f) save of the loaded workload: one namespace, loaded once, saved repeatedly.
    let mut t_save = Vec::new();
    let mut t_nft_save = Vec::new();
    // The socket (opened in the namespace) keeps it alive; the tool joins it by its fd.
    let (mut conn, ns, handle) = in_netns(|| {
        let mut conn = Conn::open().unwrap();
        restore(&mut conn, IpFamily::V4, &input, &full).unwrap();
        let ns = std::fs::File::open("/proc/thread-self/ns/net").unwrap();
        // A handle that applied the same input (nothing to change: it remembers it).
        let handle = iptnl::iptables::IpTables::new(IpFamily::V4).unwrap();
        handle.try_restore(&input, &full).unwrap();
        (conn, ns, handle)
    });
    // (f') the same input restored again into the loaded workload: nothing changes, so
    // nothing is committed.
    let mut t_resync = Vec::new();
    g.bench_function("iptnl_resync", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let r = restore(&mut conn, IpFamily::V4, &input, &full).unwrap();
                let d = t.elapsed();
                assert_eq!(r.ops, 0, "a resync changed something: {r:?}");
                total += d;
                t_resync.push(d);
            }
            total
        })
    });
    // (f'') the same again through one `IpTables` handle that applied it (as `iptnl serve`
    // holds one): answered from the handle's memory of its last restore, after one
    // generation read.
    let mut t_remembered = Vec::new();
    g.bench_function("iptnl_resync_remembered", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let r = handle.try_restore(&input, &full).unwrap();
                let d = t.elapsed();
                assert!(
                    r.remembered && r.ops == 0,
                    "not answered from memory: {r:?}"
                );
                total += d;
                t_remembered.push(d);
            }
            total
        })
    });
    drop(handle);
    {
        g.bench_function("iptnl_save", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    let out = save(&mut conn, IpFamily::V4, &SaveOptions::default()).unwrap();
                    let d = t.elapsed();
                    assert!(out.len() > input.len() / 2);
                    total += d;
                    t_save.push(d);
                }
                total
            })
        });
        if nft_save {
            g.bench_function("iptables_nft_save", |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let d = run_tool_in(&ns, "iptables-nft-save", &[]);
                        total += d;
                        t_nft_save.push(d);
                    }
                    total
                })
            });
        }
    }
    g.finish();

    // (d) peak RSS, one child run each in a fresh namespace.
    let rss_iptnl = restore_file_example().map(|ex| {
        let (kb, out) = in_netns(|| peak_rss(&ex, &[&file_s]));
        eprintln!("restore_file: {}", out.trim());
        kb
    });
    if rss_iptnl.is_none() {
        eprintln!("the restore_file example is missing: iptnl's peak RSS skipped");
    }
    let rss_nft = nft_restore
        .then(|| in_netns(|| peak_rss(Path::new("/usr/sbin/iptables-nft-restore"), &[&file_s]).0));
    let rss_legacy = legacy_restore.then(|| {
        in_netns(|| peak_rss(Path::new("/usr/sbin/iptables-legacy-restore"), &[&file_s]).0)
    });
    let rss_nft_f = nft_ok
        .as_ref()
        .map(|f| in_netns(|| peak_rss(Path::new("/usr/sbin/nft"), &["-f", f]).0));

    // Per pair (before the medians sort the samples): restore / kernel alone.
    let mut paired: Vec<f64> = t_iptnl
        .iter()
        .zip(&t_kernel)
        .map(|(a, k)| a.as_secs_f64() / k.as_secs_f64())
        .collect();
    paired.sort_by(f64::total_cmp);
    let paired_median = paired.get(paired.len() / 2).copied().unwrap_or(0.0);
    let m_iptnl = median(&mut t_iptnl);
    let m_iptnl_commit = median(&mut t_iptnl_commit);
    let m_iptnl_rest = median(&mut t_iptnl_rest);
    let m_kernel = median(&mut t_kernel);
    let m_nft = median(&mut t_nft);
    let m_legacy = median(&mut t_legacy);
    let m_translated = median(&mut t_translated);
    let m_own = median(&mut t_delta_own);
    let m_dwall = median(&mut t_delta_wall);
    let m_dcommit = median(&mut t_delta_commit);
    let m_dnft = median(&mut t_delta_nft);
    let m_save = median(&mut t_save);
    let m_nft_save = median(&mut t_nft_save);

    let m_resync = median(&mut t_resync);
    let m_remembered = median(&mut t_remembered);
    println!();
    println!("== restore bench: {rules} kube-proxy rules, medians ==");
    println!(
        "resync (same input again, full restore, nothing committed): iptnl {:.0} ms; through the handle that applied it {:.1} ms",
        ms(m_resync),
        ms(m_remembered)
    );
    println!(
        "iptnl restore {:.0} ms | kernel alone {:.0} ms | iptables-nft-restore {:.0} ms | iptables-legacy-restore {:.0} ms | nft -f translated {:.0} ms",
        ms(m_iptnl),
        ms(m_kernel),
        ms(m_nft),
        ms(m_legacy),
        ms(m_translated)
    );
    // The same restores split (medians of each part): their commit (sendmsg to the last
    // ack) and the rest.
    println!(
        "iptnl restore split: commit {:.0} ms, the rest (read, parse, plan, encode) {:.0} ms",
        ms(m_iptnl_commit),
        ms(m_iptnl_rest)
    );
    println!(
        "iptnl restore / kernel alone, pair by pair: median {paired_median:.3} over {} pairs (min {:.3}, max {:.3})",
        paired.len(),
        paired.first().copied().unwrap_or(0.0),
        paired.last().copied().unwrap_or(0.0)
    );
    println!(
        "noflush delta: iptnl wall {:.2} ms (commit {:.2} ms, own {:.2} ms) | iptables-nft-restore --noflush {:.1} ms",
        ms(m_dwall),
        ms(m_dcommit),
        ms(m_own),
        ms(m_dnft)
    );
    println!(
        "save: iptnl {:.0} ms | iptables-nft-save {:.0} ms",
        ms(m_save),
        ms(m_nft_save)
    );
    println!(
        "peak RSS: iptnl {} | iptables-nft-restore {} | iptables-legacy-restore {} | nft -f {} | batch {:.1} MiB",
        rss_iptnl.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0)),
        rss_nft.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0)),
        rss_legacy.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0)),
        rss_nft_f.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0)),
        batch_bytes as f64 / 1048576.0
    );
    let rec =
        |series: &str, metric: &str, v: f64| common::record("restore", rules, series, metric, v);
    for (series, d) in [
        ("iptnl", m_iptnl),
        ("kernel_alone", m_kernel),
        ("iptables-nft-restore", m_nft),
        ("iptables-legacy-restore", m_legacy),
        ("nft -f", m_translated),
        ("iptnl_commit", m_iptnl_commit),
        ("iptnl_own", m_iptnl_rest),
        ("noflush_iptnl_wall", m_dwall),
        ("noflush_iptnl_own", m_own),
        ("noflush_iptables-nft-restore", m_dnft),
        ("save_iptnl", m_save),
        ("save_iptables-nft-save", m_nft_save),
        ("resync_iptnl", m_resync),
        ("resync_iptnl_remembered", m_remembered),
    ] {
        if !d.is_zero() {
            rec(series, "ms", ms(d));
        }
    }
    rec("iptnl/kernel_alone_paired", "ratio", paired_median);
    for (series, kb) in [
        ("iptnl", rss_iptnl),
        ("iptables-nft-restore", rss_nft),
        ("iptables-legacy-restore", rss_legacy),
        ("nft -f", rss_nft_f),
    ] {
        if let Some(kb) = kb {
            rec(series, "peak_rss_mib", kb as f64 / 1024.0);
        }
    }
    rec("batch", "mib", batch_bytes as f64 / 1048576.0);
    rec("input", "mib", input.len() as f64 / 1048576.0);
    let secs = |d: Duration| d.as_secs_f64();
    let have_t = |d: Duration| !d.is_zero();
    let mut targets = vec![
        Target {
            what: "full restore <= 1.15 x kernel alone",
            detail: format!("ratio {:.3}", secs(m_iptnl) / secs(m_kernel)),
            pass: Some(secs(m_iptnl) <= 1.15 * secs(m_kernel)),
        },
        Target {
            what: ">= 2.5x faster than iptables-nft-restore",
            detail: format!("speedup {:.2}x", secs(m_nft) / secs(m_iptnl)),
            pass: have_t(m_nft).then(|| secs(m_nft) >= 2.5 * secs(m_iptnl)),
        },
        Target {
            what: "faster than iptables-legacy-restore",
            detail: format!("speedup {:.2}x", secs(m_legacy) / secs(m_iptnl)),
            pass: have_t(m_legacy).then(|| m_iptnl < m_legacy),
        },
    ];
    if let Some(k) = rss_iptnl {
        let bytes = k as f64 * 1024.0;
        targets.push(Target {
            what: "peak RSS <= 1.5 x batch bytes",
            detail: format!("ratio {:.3}", bytes / batch_bytes as f64),
            pass: Some(bytes <= 1.5 * batch_bytes as f64),
        });
        targets.push(Target {
            what: "peak RSS <= 40% of iptables-nft-restore's",
            detail: rss_nft.map_or("n/a".into(), |n| {
                format!("{:.1}%", k as f64 / n as f64 * 100.0)
            }),
            pass: rss_nft.map(|n| k as f64 <= 0.4 * n as f64),
        });
    }
    targets.push(Target {
        what: "noflush 10-rule delta: own time <= 10 ms on top of commit",
        detail: format!("own {:.2} ms", ms(m_own)),
        pass: Some(m_own <= Duration::from_millis(10)),
    });
    targets.push(Target {
        what: "save faster than iptables-nft-save",
        detail: format!("speedup {:.2}x", secs(m_nft_save) / secs(m_save)),
        pass: have_t(m_nft_save).then(|| m_save < m_nft_save),
    });
    for t in &targets {
        println!(
            "target: {:<58} {:<16} {}",
            t.what,
            t.detail,
            match t.pass {
                Some(true) => "PASS",
                Some(false) => "FAIL",
                None => "SKIPPED (tool missing)",
            }
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
