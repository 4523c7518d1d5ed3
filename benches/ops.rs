//! Single operations through the `IpTables` handle on a loaded kube-proxy ruleset.
//!
//! Ruleset sizes 0, 10k, 100k and 200k rules (`IPTNL_BENCH_SIZES=0,10000` limits them) come
//! from the Rust port of the shared generator (`iptnl::workload::kube_proxy`; size 0 is its
//! skeleton: the kube-proxy chains and about 20 rules, no service). Each size is loaded,
//! untimed, with `iptnl::iptables::restore` into a fresh network namespace, plus an empty nat chain
//! `IPTNL-BENCH` (holding 200 rules for the deletes). Then, through one warm handle (its
//! socket open, the chains it reads cached):
//!
//! - `append`, `insert` (position 1): a kube-proxy-like rule (`-d … -p tcp -m tcp --dport 80
//!   -j KUBE-MARK-MASQ`) into `IPTNL-BENCH`: blind writes, no read;
//! - `new_chain`: a new nat user chain;
//! - `delete_number`: rule 1 of `IPTNL-BENCH` (the API has no delete by kernel handle; the
//!   number is resolved in the cached chain, so this costs what a delete by handle costs);
//! - `check_unchanged`: `exists` of the last rule of `KUBE-SERVICES` (the whole chain is
//!   compared) while the generation has not moved: one GETGEN round trip, no dump;
//! - `check_moved`: the same after another writer (a second connection) committed, untimed,
//!   a change elsewhere: the handle dumps `KUBE-SERVICES` (about 6k rules at 200k) again;
//! - `delete_spec_moved`: another writer appends a rule to `KUBE-SERVICES` (untimed), then the
//!   warm handle deletes it by spec;
//! - `check_moved_events`, `delete_spec_moved_events`: the same two through a handle that
//!   follows the ruleset events (`IpTables::set_follow_events`): the other writer's commit
//!   is replayed onto its cache, no dump;
//! - `cold_append`: a new handle (new socket, empty cache, as in a new process) and its first
//!   append into `IPTNL-BENCH`.
//!
//! Kernel time is the time the handle's connection spent inside `sendmsg`
//! ([`iptnl::netlink::KernelTime`]; a batch is validated and committed inside that call), and
//! iptnl's own time is wall time minus that, as the targets define it. The time spent in `recv`
//! (copying replies out; the continuation of dumps is built there by the kernel) is printed too
//! and is part of own time.
//!
//! Run: `cargo bench --bench ops` (as root, or under `unshare -rn`). Prints one line per
//! operation and size with the medians, then the targets at the largest size with
//! PASS/FAIL.

mod common;

use common::ms;

use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::iptables::IpTables;
use iptnl::netlink::{Conn, KernelTime};
use iptnl::workload::{kube_proxy, KubeProxyOptions};

/// Prefilled rules of the bench chain (consumed by `delete_number`).
const PREFILL: usize = 200;
const BENCH: &str = "IPTNL-BENCH";
/// The rule appended and inserted (`{i}` varies the destination).
fn bench_rule(i: usize) -> String {
    format!(
        "-d 10.250.{}.{}/32 -p tcp -m comment --comment \"bench/{i} cluster IP\" -m tcp --dport 80 -j KUBE-MARK-MASQ",
        (i / 250) % 250,
        i % 250 + 1
    )
}

/// One measured call: wall time and the handle's kernel time during it.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    kernel: KernelTime,
}

impl Sample {
    fn own(&self) -> Duration {
        self.wall.saturating_sub(self.kernel.sendmsg)
    }
}

/// Times `f` on `ipt`.
fn timed<T>(ipt: &IpTables, f: impl FnOnce(&IpTables) -> T) -> (T, Sample) {
    let k0 = ipt.kernel_time();
    let t = Instant::now();
    let r = f(ipt);
    let wall = t.elapsed();
    let kernel = ipt.kernel_time().since(&k0);
    (r, Sample { wall, kernel })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Medians of one operation at one size.
struct Row {
    size: usize,
    op: &'static str,
    n: usize,
    own: Duration,
    own_min: Duration,
    kernel: Duration,
    recv: Duration,
    wall: Duration,
}

fn row(size: usize, op: &'static str, s: &[Sample]) -> Row {
    Row {
        size,
        op,
        n: s.len(),
        own: median(s.iter().map(Sample::own).collect()),
        own_min: s.iter().map(Sample::own).min().unwrap_or_default(),
        kernel: median(s.iter().map(|x| x.kernel.sendmsg).collect()),
        recv: median(s.iter().map(|x| x.kernel.recv).collect()),
        wall: median(s.iter().map(|x| x.wall).collect()),
    }
}

/// Runs `iters` calls of `step` (which returns the duration of its timed part) and adds them.
fn iterate(iters: u64, mut step: impl FnMut() -> Duration) -> Duration {
    (0..iters).map(|_| step()).sum()
}

/// The workload for `size` rules (0: the kube-proxy skeleton only), in restore format.
fn workload(size: usize) -> (String, String) {
    let (text, stats) = kube_proxy(&KubeProxyOptions::sized(size));
    eprintln!(
        "size {size}: {} rules ({} nat, {} in KUBE-SERVICES), {} chains",
        stats.rules, stats.nat_rules, stats.kube_services_nat_rules, stats.chains
    );
    // The last rule of nat KUBE-SERVICES, as rule-spec arguments.
    let mut in_nat = false;
    let mut last = None;
    for l in text.lines() {
        if let Some(t) = l.strip_prefix('*') {
            in_nat = t == "nat";
        } else if in_nat {
            if let Some(r) = l.strip_prefix("-A KUBE-SERVICES ") {
                last = Some(r.to_owned());
            }
        }
    }
    (text, last.expect("a KUBE-SERVICES rule in the workload"))
}

fn bench_size(c: &mut Criterion, size: usize, rows: &mut Vec<Row>) {
    let (text, last_svc_rule) = workload(size);
    // The namespace lives as long as a socket or file of it is open: load it from a thread
    // that moves into it, keep its file, and open every later connection through that.
    let (conn, ns) = iptnl::netns::run_in_fresh_netns(|| {
        let mut conn = Conn::open().expect("netlink socket");
        let t = Instant::now();
        restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default()).expect("restore");
        eprintln!("size {size}: loaded in {:.0} ms", ms(t.elapsed()));
        let ns = std::fs::File::open("/proc/thread-self/ns/net").expect("namespace file");
        (conn, ns)
    })
    .unwrap_or_else(|e| panic!("cannot create a network namespace ({e}): run as root"));
    drop(text);
    let ns_path = {
        use std::os::fd::AsRawFd;
        format!("/proc/self/fd/{}", ns.as_raw_fd())
    };
    let ipt = IpTables::from_conn(IpFamily::V4, conn);
    let other = IpTables::in_netns(IpFamily::V4, &ns_path).expect("second handle");
    {
        let mut tx = ipt.transaction();
        tx.new_chain("nat", BENCH);
        for i in 0..PREFILL {
            tx.append("nat", BENCH, bench_rule(100_000 + i));
        }
        tx.commit().expect("prefill");
    }
    // Warm the handle: its cache holds KUBE-SERVICES and the bench chain.
    assert!(ipt
        .exists("nat", "KUBE-SERVICES", last_svc_rule.as_str())
        .unwrap());
    ipt.list("nat", BENCH).unwrap();

    let mut g = c.benchmark_group(format!("ops/{size}"));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_millis(1));
    let mut counter = 0usize;
    let mut next = || {
        counter += 1;
        counter
    };

    let mut s = Vec::new();
    g.bench_function("append", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let rule = bench_rule(next());
                let (r, x) = timed(&ipt, |ipt| ipt.append("nat", BENCH, rule.as_str()));
                r.unwrap();
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "append", &s));

    let mut s = Vec::new();
    g.bench_function("insert", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let rule = bench_rule(next());
                let (r, x) = timed(&ipt, |ipt| ipt.insert("nat", BENCH, 1, rule.as_str()));
                r.unwrap();
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "insert", &s));

    let mut s = Vec::new();
    g.bench_function("new_chain", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let name = format!("IPTNL-N-{}", next());
                let (r, x) = timed(&ipt, |ipt| ipt.new_chain("nat", &name));
                r.unwrap();
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "new_chain", &s));

    // The blind writes above moved the generation past the cache: one untimed read.
    ipt.list("nat", BENCH).unwrap();
    let mut s = Vec::new();
    g.bench_function("delete_number", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let (r, x) = timed(&ipt, |ipt| ipt.delete_by_number("nat", BENCH, 1));
                r.unwrap();
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "delete_number", &s));

    assert!(ipt
        .exists("nat", "KUBE-SERVICES", last_svc_rule.as_str())
        .unwrap());
    let mut s = Vec::new();
    g.bench_function("check_unchanged", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let (r, x) = timed(&ipt, |ipt| {
                    ipt.exists("nat", "KUBE-SERVICES", last_svc_rule.as_str())
                });
                assert!(r.unwrap());
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "check_unchanged", &s));

    let mut s = Vec::new();
    g.bench_function("check_moved", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                // Another writer moves the generation (untimed).
                other
                    .new_chain("filter", &format!("IPTNL-MOVE-{}", next()))
                    .unwrap();
                let (r, x) = timed(&ipt, |ipt| {
                    ipt.exists("nat", "KUBE-SERVICES", last_svc_rule.as_str())
                });
                assert!(r.unwrap());
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "check_moved", &s));

    let mut s = Vec::new();
    g.bench_function("delete_spec_moved", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let rule = bench_rule(next());
                other.append("nat", "KUBE-SERVICES", rule.as_str()).unwrap();
                let (r, x) = timed(&ipt, |ipt| {
                    ipt.delete("nat", "KUBE-SERVICES", rule.as_str())
                });
                r.unwrap();
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "delete_spec_moved", &s));

    // The same two with a handle that follows the ruleset events (`set_follow_events`):
    // the other writer's commits are replayed onto its cache instead of a dump. It is
    // created only here: while it listens, every commit in the namespace builds events.
    let ev = IpTables::in_netns(IpFamily::V4, &ns_path).expect("events handle");
    ev.set_follow_events(true);
    assert!(ev
        .exists("nat", "KUBE-SERVICES", last_svc_rule.as_str())
        .unwrap());
    let mut s = Vec::new();
    g.bench_function("check_moved_events", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                other
                    .new_chain("filter", &format!("IPTNL-MOVE-{}", next()))
                    .unwrap();
                let (r, x) = timed(&ev, |ev| {
                    ev.exists("nat", "KUBE-SERVICES", last_svc_rule.as_str())
                });
                assert!(r.unwrap());
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "check_moved_events", &s));

    let mut s = Vec::new();
    g.bench_function("delete_spec_moved_events", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let rule = bench_rule(next());
                other.append("nat", "KUBE-SERVICES", rule.as_str()).unwrap();
                let (r, x) = timed(&ev, |ev| ev.delete("nat", "KUBE-SERVICES", rule.as_str()));
                r.unwrap();
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "delete_spec_moved_events", &s));
    drop(ev);

    let mut s = Vec::new();
    g.bench_function("cold_append", |b| {
        b.iter_custom(|iters| {
            iterate(iters, || {
                let rule = bench_rule(next());
                let t = Instant::now();
                let cold = IpTables::in_netns(IpFamily::V4, &ns_path).unwrap();
                let open = t.elapsed();
                let (r, mut x) = timed(&cold, |c| c.append("nat", BENCH, rule.as_str()));
                r.unwrap();
                x.wall += open;
                s.push(x);
                x.wall
            })
        })
    });
    rows.push(row(size, "cold_append", &s));
    g.finish();
    drop(ipt);
    drop(other);
    drop(ns);
}

fn main() {
    let sizes: Vec<usize> = std::env::var("IPTNL_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![0, 10_000, 100_000, 200_000]);
    let mut c = Criterion::default().configure_from_args();
    let mut rows = Vec::new();
    for &size in &sizes {
        bench_size(&mut c, size, &mut rows);
    }
    c.final_summary();

    println!();
    println!("== ops bench: IpTables handle on the kube-proxy workload, medians ==");
    println!(
        "{:>7} {:<24} {:>3} {:>8} {:>8} {:>10} {:>8} {:>9}",
        "rules", "op", "n", "own ms", "own min", "kernel ms", "recv ms", "wall ms"
    );
    for r in rows.iter().filter(|r| r.n > 0) {
        for (metric, d) in [
            ("own_ms", r.own),
            ("kernel_ms", r.kernel),
            ("recv_ms", r.recv),
            ("wall_ms", r.wall),
        ] {
            common::record("ops", r.size, r.op, metric, ms(d));
        }
        println!(
            "{:>7} {:<24} {:>3} {:>8.3} {:>8.3} {:>10.3} {:>8.3} {:>9.3}",
            r.size,
            r.op,
            r.n,
            ms(r.own),
            ms(r.own_min),
            ms(r.kernel),
            ms(r.recv),
            ms(r.wall)
        );
    }
    let Some(&top) = sizes.iter().max() else {
        return;
    };
    let targets: [(&str, &str, f64); 10] = [
        ("append", "append own <= 1 ms", 1.0),
        ("insert", "insert own <= 1 ms", 1.0),
        ("new_chain", "new chain own <= 1 ms", 1.0),
        (
            "delete_number",
            "delete by number (handle) own <= 1 ms",
            1.0,
        ),
        (
            "check_unchanged",
            "check, generation unchanged, own <= 1 ms",
            1.0,
        ),
        (
            "check_moved",
            "check on KUBE-SERVICES, moved, own <= 5 ms",
            5.0,
        ),
        (
            "delete_spec_moved",
            "delete by spec, moved, own <= 5 ms",
            5.0,
        ),
        (
            "check_moved_events",
            "check, moved, following events, own <= 5 ms",
            5.0,
        ),
        (
            "delete_spec_moved_events",
            "delete by spec, moved, following events, own <= 5 ms",
            5.0,
        ),
        ("cold_append", "cold handle first append own <= 5 ms", 5.0),
    ];
    println!("targets at {top} rules (stated for 200000):");
    for (op, what, limit) in targets {
        let Some(r) = rows.iter().find(|r| r.size == top && r.op == op && r.n > 0) else {
            continue;
        };
        println!(
            "target: {what:<52} own {:>8.3} ms {}",
            ms(r.own),
            if ms(r.own) <= limit { "PASS" } else { "FAIL" }
        );
    }
}
