//! Restores an iptables-restore file with iptnl in the current network namespace and prints
//! the report: used by `benches/restore.rs` to measure peak RSS in a child process.
//!
//! `restore_file FILE [--noflush] [--save]` (with `--save`, saves the ruleset instead and
//! prints its size). The file is restored with `iptnl::iptables::restore::restore_file`, which reads
//! it in pieces, as the `iptables-restore` tool does. `RESTORE_FILE_PLAN_ONLY=1` reads the file
//! whole, plans without committing and prints the time and peak memory (the input's text
//! included); `RESTORE_FILE_THEN=DELTA` restores DELTA with `--noflush` right after, on the
//! same connection, planned and committed as `restore` does, and prints the planning (iptnl's
//! own time) and the commit apart: wall time, the thread's CPU time, and how long the thread
//! was runnable but waiting for a CPU.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: restore_file FILE [--noflush] [--save]");
        std::process::exit(2);
    };
    let mut conn = iptnl::netlink::Conn::open().expect("netlink socket");
    if args.iter().any(|a| a == "--save") {
        let out = iptnl::iptables::save::save(
            &mut conn,
            iptnl::ipt::IpFamily::V4,
            &iptnl::ipt::savefile::SaveOptions::default(),
        )
        .expect("save");
        if let Some(path) = std::env::var_os("RESTORE_FILE_SAVE_OUT") {
            std::fs::write(path, &out).expect("write the saved ruleset");
        }
        println!("saved {} bytes", out.len());
        return;
    }
    let opts = iptnl::iptables::restore::RestoreOptions {
        noflush: args.iter().any(|a| a == "--noflush"),
        ..Default::default()
    };
    if std::env::var_os("RESTORE_FILE_PLAN_ONLY").is_some() {
        let input = std::fs::read_to_string(path).expect("read the input file");
        let rss = || {
            std::fs::read_to_string("/proc/self/status")
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        eprintln!("after reading the input: {}", rss());
        // RESTORE_FILE_PLAN_ONLY=N plans N times, each on a new thread, as a long-lived agent
        // (or the bench) would, to show the cost of what earlier restores left in the heap.
        let times: usize = std::env::var("RESTORE_FILE_PLAN_ONLY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1)
            .max(1);
        for _ in 0..times {
            std::thread::scope(|s| {
                s.spawn(|| {
                    let t = std::time::Instant::now();
                    let (batch, r) = iptnl::iptables::restore::plan_restore(
                        &mut conn,
                        iptnl::ipt::IpFamily::V4,
                        &input,
                        &opts,
                    )
                    .expect("plan");
                    let planned = t.elapsed();
                    eprintln!(
                        "after planning ({:.1} ms): {} batch_bytes={} ops={}",
                        planned.as_secs_f64() * 1e3,
                        rss(),
                        r.batch_bytes,
                        batch.len()
                    );
                });
            });
        }
        return;
    }
    let file = std::fs::File::open(path).expect("open the input file");
    let t = std::time::Instant::now();
    match iptnl::iptables::restore::restore_file(&mut conn, iptnl::ipt::IpFamily::V4, &file, &opts)
    {
        Ok(r) => {
            println!(
                "rules_added={} ops={} batch_bytes={} ms={:.1} commit_ms={:.1}",
                r.rules_added,
                r.ops,
                r.batch_bytes,
                t.elapsed().as_secs_f64() * 1e3,
                r.commit_time.as_secs_f64() * 1e3
            );
            // RESTORE_FILE_THEN=DELTA: a --noflush restore of DELTA right after, on the same
            // connection (what benches/restore.rs times), reported the same way.
            if let Some(delta) = std::env::var_os("RESTORE_FILE_THEN") {
                let delta = std::fs::read_to_string(delta).expect("read the delta file");
                let noflush = iptnl::iptables::restore::RestoreOptions {
                    noflush: true,
                    ..Default::default()
                };
                // Planned and committed as `restore` does (it would retry on a conflict), so
                // that the planning, iptnl's own time, is measured alone: its wall time, the
                // thread's CPU time and the time it was runnable but waiting for a CPU.
                let s0 = schedstat();
                let t = std::time::Instant::now();
                let (mut batch, r) = iptnl::iptables::restore::plan_restore(
                    &mut conn,
                    iptnl::ipt::IpFamily::V4,
                    &delta,
                    &noflush,
                )
                .expect("delta");
                let plan = t.elapsed();
                let s1 = schedstat();
                let t = std::time::Instant::now();
                batch.commit(&mut conn).expect("delta commit");
                let commit = t.elapsed();
                let s2 = schedstat();
                let ms = |ns: u64| ns as f64 / 1e6;
                println!(
                    "delta: rules_added={} own_ms={:.2} (cpu {:.2}, waiting for a cpu {:.2}) commit_ms={:.2} (cpu {:.2}, waiting {:.2})",
                    r.rules_added,
                    plan.as_secs_f64() * 1e3,
                    ms(s1.0 - s0.0),
                    ms(s1.1 - s0.1),
                    commit.as_secs_f64() * 1e3,
                    ms(s2.0 - s1.0),
                    ms(s2.1 - s1.1),
                );
            }
        }
        Err(e) => {
            eprintln!("restore failed: {e}");
            std::process::exit(1);
        }
    }
}

/// This thread's CPU time and time spent runnable but waiting for a CPU, in nanoseconds
/// (`/proc/thread-self/schedstat`; zeros where it is missing).
fn schedstat() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let mut f = s.split_whitespace().map(|v| v.parse::<u64>().unwrap_or(0));
    (f.next().unwrap_or(0), f.next().unwrap_or(0))
}
