//! The in-memory ruleset (`iptnl::memory`): what tests pay for it. No root needed.
//!
//! Groups (criterion, `memory/…`):
//! - `append_10k_calls`: 10,000 `IpTables::append` calls, one batch each, into a fresh
//!   in-memory handle (`-s ADDR -p tcp --dport PORT -j ACCEPT`, all different);
//! - `append_1k_calls_fresh` and `append_1k_calls_on_100k`: 1,000 such calls into a
//!   fresh handle, and into `INPUT` of a handle whose `INPUT` already holds 100,000 rules
//!   (loaded once; it grows by 1,000 rules per iteration): the cost of one append must not
//!   depend on what the chain holds, so the two are the same;
//! - `append_10k_transaction`: the same 10,000 rules as one transaction;
//! - `append_10k_batch`: the memory's own part of that: a batch of 10,000 `NEWRULE`
//!   messages, built before the timing, committed to a fresh ruleset;
//! - `load_200k_restore`: `IpTables::restore` of the kube-proxy workload of about 200,000
//!   rules (`iptnl::workload::kube_proxy`) into a fresh in-memory handle, from text;
//! - `load_200k_batch`: the memory's own part of that: the restore's batch, planned before
//!   the timing, committed to a fresh ruleset.
//!
//! Before the groups, the heap a loaded 200k-rule ruleset holds is measured (a counting
//! allocator: live bytes after the restore and after the handle that planned it is gone,
//! the ruleset alone) and printed beside the save text's size.
//!
//! `IPTNL_BENCH_MEMORY_RULES` changes the size of the load (default 200000). Run with
//! `cargo bench --bench memory`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use criterion::{BatchSize, Criterion};
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{plan_restore, RestoreOptions};
use iptnl::iptables::IpTables;
use iptnl::memory::Ruleset;
use iptnl::workload::{kube_proxy, KubeProxyOptions};

/// Counts live heap bytes.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is
// updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on as it is.
        unsafe { System.alloc(l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with this layout.
        unsafe { System.dealloc(p, l) }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        // SAFETY: as for `realloc` of `System`, with the caller's arguments.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn rule(i: usize) -> String {
    format!(
        "-s 10.{}.{}.{} -p tcp --dport {} -j ACCEPT",
        (i >> 16) & 0xff,
        (i >> 8) & 0xff,
        i & 0xff,
        1 + i % 60_000
    )
}

fn rules() -> usize {
    std::env::var("IPTNL_BENCH_MEMORY_RULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000)
}

/// The heap held by a loaded ruleset, against the size of its save text.
fn footprint(text: &str) {
    let base = live();
    let ruleset = Ruleset::new();
    let ipt = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let report = ipt.restore(text, &RestoreOptions::default()).unwrap();
    let with_handle = live() - base;
    drop(ipt);
    let alone = live() - base;
    let saved = IpTables::from_conn(IpFamily::V4, ruleset.conn())
        .save(None, false)
        .unwrap();
    let (exprs, expr_bytes) = ruleset.expression_stats();
    eprintln!("memory/footprint: {:?}", ruleset.footprint());
    eprintln!(
        "memory/footprint: {} rules; save text {:.1} MiB (input {:.1} MiB); ruleset alone \
         {:.1} MiB = {:.2}x the save text ({:.1} MiB with the handle that restored it); \
         {exprs} distinct expressions, {:.1} MiB",
        report.rules_added,
        saved.len() as f64 / 1048576.0,
        text.len() as f64 / 1048576.0,
        alone as f64 / 1048576.0,
        alone as f64 / saved.len() as f64,
        with_handle as f64 / 1048576.0,
        expr_bytes as f64 / 1048576.0,
    );
    drop(ruleset);
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    let (text, stats) = kube_proxy(&KubeProxyOptions::sized(rules()));
    eprintln!(
        "memory: workload of {} rules, {:.1} MiB of text",
        stats.rules,
        text.len() as f64 / 1048576.0
    );
    footprint(&text);

    let mut g = c.benchmark_group("memory");
    g.bench_function("append_10k_calls", |b| {
        b.iter_batched(
            || IpTables::in_memory(IpFamily::V4),
            |ipt| {
                for i in 0..10_000 {
                    ipt.append("filter", "INPUT", rule(i).as_str()).unwrap();
                }
                ipt
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("append_1k_calls_fresh", |b| {
        b.iter_batched(
            || IpTables::in_memory(IpFamily::V4),
            |ipt| {
                for i in 0..1_000 {
                    ipt.append("filter", "INPUT", rule(i).as_str()).unwrap();
                }
                ipt
            },
            BatchSize::PerIteration,
        )
    });
    let loaded = IpTables::in_memory(IpFamily::V4);
    {
        let mut t = String::from("*filter\n:INPUT ACCEPT [0:0]\n");
        for i in 0..100_000 {
            t.push_str("-A INPUT ");
            t.push_str(&rule(i));
            t.push('\n');
        }
        t.push_str("COMMIT\n");
        loaded.restore(&t, &RestoreOptions::default()).unwrap();
    }
    let mut next = 100_000;
    g.bench_function("append_1k_calls_on_100k", |b| {
        b.iter(|| {
            for _ in 0..1_000 {
                loaded
                    .append("filter", "INPUT", rule(next).as_str())
                    .unwrap();
                next += 1;
            }
        })
    });
    drop(loaded);
    let specs: Vec<String> = (0..10_000).map(rule).collect();
    g.bench_function("append_10k_transaction", |b| {
        b.iter_batched(
            || IpTables::in_memory(IpFamily::V4),
            |ipt| {
                let mut tx = ipt.transaction();
                for s in &specs {
                    tx.append("filter", "INPUT", s.as_str());
                }
                tx.commit().unwrap();
                ipt
            },
            BatchSize::PerIteration,
        )
    });
    let append_batch = {
        let mut t = String::from("*filter\n:INPUT ACCEPT [0:0]\n");
        for s in &specs {
            t.push_str("-A INPUT ");
            t.push_str(s);
            t.push('\n');
        }
        t.push_str("COMMIT\n");
        let mut conn = Ruleset::new().conn();
        plan_restore(&mut conn, IpFamily::V4, &t, &RestoreOptions::default())
            .unwrap()
            .0
    };
    g.bench_function("append_10k_batch", |b| {
        b.iter_batched(
            || (Ruleset::new(), append_batch.clone()),
            |(ruleset, mut batch)| {
                batch.commit(&mut ruleset.conn()).unwrap();
                ruleset
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("load_200k_restore", |b| {
        b.iter_batched(
            || IpTables::in_memory(IpFamily::V4),
            |ipt| {
                ipt.restore(&text, &RestoreOptions::default()).unwrap();
                ipt
            },
            BatchSize::PerIteration,
        )
    });
    let load_batch = {
        let mut conn = Ruleset::new().conn();
        plan_restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default())
            .unwrap()
            .0
    };
    g.bench_function("load_200k_batch", |b| {
        b.iter_batched(
            || (Ruleset::new(), load_batch.clone()),
            |(ruleset, mut batch)| {
                batch.commit(&mut ruleset.conn()).unwrap();
                ruleset
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    c.final_summary();
}
