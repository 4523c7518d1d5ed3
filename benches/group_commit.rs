//! The group commit of one shared `IpTables` handle: K callers append a rule with a verdict
//! into the nat table at the same moment, on a loaded kube-proxy ruleset.
//!
//! Each append alone costs the kernel one re-validation of the whole nat table; callers that
//! arrive while a commit is in flight share the next one, so K appends cost a few commits,
//! not K. For each ruleset size (0, 10k and 200k rules by default; `IPTNL_BENCH_SIZES=0,10000`
//! picks others) and each K in 1, 10, 100 and 1,000 (`IPTNL_BENCH_CALLERS`), K threads share
//! one handle; one criterion iteration releases all of them at once and ends when the last
//! append has returned. Printed per size and K: the wall time of the K appends, the kernel
//! commits they took, commits per second, appends per second, and each caller's latency
//! (median and slowest).
//!
//! Run: `cargo bench --bench group_commit` (as root, or under `unshare -rn`).

mod common;

use common::ms;

use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::iptables::IpTables;
use iptnl::netlink::Conn;
use iptnl::workload::{kube_proxy, KubeProxyOptions};

const BENCH: &str = "IPTNL-GROUP";

/// The rule caller `i` appends: kube-proxy-like, with a verdict (a jump), so that each commit
/// makes the kernel re-validate the nat table.
fn rule(i: usize) -> String {
    format!(
        "-d 10.{}.{}.{}/32 -p tcp -m tcp --dport 80 -j KUBE-MARK-MASQ",
        200 + (i / 62_500) % 50,
        (i / 250) % 250,
        i % 250 + 1
    )
}

/// K threads sharing one handle, each appending once per round.
struct Callers {
    start: Arc<Barrier>,
    done: Arc<Barrier>,
    latencies: Arc<Mutex<Vec<Duration>>>,
    threads: Vec<std::thread::JoinHandle<()>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Callers {
    fn new(ipt: &Arc<IpTables>, k: usize) -> Callers {
        let start = Arc::new(Barrier::new(k + 1));
        let done = Arc::new(Barrier::new(k + 1));
        let latencies = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let counter = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads = (0..k)
            .map(|_| {
                let (ipt, start, done, latencies, stop, counter) = (
                    ipt.clone(),
                    start.clone(),
                    done.clone(),
                    latencies.clone(),
                    stop.clone(),
                    counter.clone(),
                );
                // The handle's socket is in the namespace already: the threads need nothing
                // else of it.
                std::thread::spawn(move || loop {
                    start.wait();
                    if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    let i = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let t = Instant::now();
                    ipt.append("nat", BENCH, rule(i)).expect("append");
                    latencies.lock().unwrap().push(t.elapsed());
                    done.wait();
                })
            })
            .collect();
        Callers {
            start,
            done,
            latencies,
            threads,
            stop,
        }
    }

    /// One round: every caller appends once; returns the wall time.
    fn round(&self) -> Duration {
        let t = Instant::now();
        self.start.wait();
        self.done.wait();
        t.elapsed()
    }
}

impl Drop for Callers {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.start.wait();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

struct Row {
    size: usize,
    k: usize,
    rounds: usize,
    wall: Duration,
    commits: u64,
    p50: Duration,
    max: Duration,
}

fn bench_size(c: &mut Criterion, size: usize, ks: &[usize], rows: &mut Vec<Row>) {
    let (text, _) = kube_proxy(&KubeProxyOptions::sized(size));
    let (conn, ns) = iptnl::netns::run_in_fresh_netns(|| {
        let mut conn = Conn::open().expect("netlink socket");
        restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default()).expect("restore");
        let ns = std::fs::File::open("/proc/thread-self/ns/net").expect("namespace file");
        (conn, ns)
    })
    .unwrap_or_else(|e| panic!("cannot create a network namespace ({e}): run as root"));
    drop(text);
    // Kept open: the namespace lives while a file or socket of it does.
    let _ns = ns;
    let ipt = Arc::new(IpTables::from_conn(IpFamily::V4, conn));
    ipt.new_chain("nat", BENCH).expect("bench chain");
    let mut g = c.benchmark_group(format!("group_commit/{size}"));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_millis(1));
    for &k in ks {
        let callers = Callers::new(&ipt, k);
        let before = ipt.commit_stats().commits;
        let mut wall = Duration::ZERO;
        let mut rounds = 0;
        g.bench_function(format!("{k}_callers"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += callers.round();
                }
                wall += total;
                rounds += iters as usize;
                total
            })
        });
        let commits = ipt.commit_stats().commits - before;
        let mut lat = std::mem::take(&mut *callers.latencies.lock().unwrap());
        lat.sort_unstable();
        rows.push(Row {
            size,
            k,
            rounds,
            wall,
            commits,
            p50: lat.get(lat.len() / 2).copied().unwrap_or_default(),
            max: lat.last().copied().unwrap_or_default(),
        });
        drop(callers);
        // Empty the chain again between K's, so every K appends into the same table size.
        ipt.clear_chain("nat", BENCH).expect("flush");
    }
    g.finish();
}

fn list(var: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(var)
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() {
    let sizes = list("IPTNL_BENCH_SIZES", &[0, 10_000, 200_000]);
    let ks = list("IPTNL_BENCH_CALLERS", &[1, 10, 100, 1_000]);
    let mut c = Criterion::default().configure_from_args();
    let mut rows = Vec::new();
    for &size in &sizes {
        bench_size(&mut c, size, &ks, &mut rows);
    }
    c.final_summary();
    println!();
    println!("== group commit: K callers append at once through one handle (per round: wall time, kernel commits) ==");
    println!(
        "{:>7} {:>5} {:>6} {:>10} {:>8} {:>10} {:>11} {:>9} {:>9}",
        "rules", "K", "rounds", "round ms", "commits", "commits/s", "appends/s", "p50 ms", "max ms"
    );
    for r in &rows {
        if r.rounds == 0 {
            continue;
        }
        let secs = r.wall.as_secs_f64().max(1e-9);
        let series = format!("K={}", r.k);
        for (metric, v) in [
            ("round_ms", ms(r.wall) / r.rounds as f64),
            ("commits_per_round", r.commits as f64 / r.rounds as f64),
            ("appends_per_s", (r.k * r.rounds) as f64 / secs),
            ("p50_ms", ms(r.p50)),
            ("max_ms", ms(r.max)),
        ] {
            common::record("group_commit", r.size, &series, metric, v);
        }
        println!(
            "{:>7} {:>5} {:>6} {:>10.1} {:>8.1} {:>10.1} {:>11.0} {:>9.1} {:>9.1}",
            r.size,
            r.k,
            r.rounds,
            ms(r.wall) / r.rounds as f64,
            r.commits as f64 / r.rounds as f64,
            r.commits as f64 / secs,
            (r.k * r.rounds) as f64 / secs,
            ms(r.p50),
            ms(r.max)
        );
    }
}
