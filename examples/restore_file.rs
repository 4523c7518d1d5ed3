//! Restores an iptables-restore file with iptnl in the current network namespace and prints
//! the report: used by `benches/restore.rs` to measure peak RSS in a child process.
//!
//! `restore_file FILE [--noflush] [--save]` (with `--save`, saves the ruleset instead and
//! prints its size). `RESTORE_FILE_PLAN_ONLY=1` plans without committing and prints the time
//! and peak memory; `RESTORE_FILE_THEN=DELTA` restores DELTA with `--noflush` right after, on
//! the same connection, and prints its wall and commit times.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: restore_file FILE [--noflush] [--save]");
        std::process::exit(2);
    };
    let mut conn = iptnl::netlink::Conn::open().expect("netlink socket");
    if args.iter().any(|a| a == "--save") {
        let out = iptnl::ipt::savefile::save(
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
    let input = std::fs::read_to_string(path).expect("read the input file");
    let opts = iptnl::ipt::restore::RestoreOptions {
        noflush: args.iter().any(|a| a == "--noflush"),
        ..Default::default()
    };
    if std::env::var_os("RESTORE_FILE_PLAN_ONLY").is_some() {
        let rss = || {
            std::fs::read_to_string("/proc/self/status")
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        eprintln!("after reading the input: {}", rss());
        let t = std::time::Instant::now();
        let (batch, r) =
            iptnl::ipt::restore::plan_restore(&mut conn, iptnl::ipt::IpFamily::V4, &input, &opts)
                .expect("plan");
        let planned = t.elapsed();
        eprintln!(
            "after planning ({:.1} ms): {} batch_bytes={} ops={}",
            planned.as_secs_f64() * 1e3,
            rss(),
            r.batch_bytes,
            batch.len()
        );
        return;
    }
    let t = std::time::Instant::now();
    match iptnl::ipt::restore::restore(&mut conn, iptnl::ipt::IpFamily::V4, &input, &opts) {
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
                let noflush = iptnl::ipt::restore::RestoreOptions {
                    noflush: true,
                    ..Default::default()
                };
                let t = std::time::Instant::now();
                let r = iptnl::ipt::restore::restore(
                    &mut conn,
                    iptnl::ipt::IpFamily::V4,
                    &delta,
                    &noflush,
                )
                .expect("delta");
                println!(
                    "delta: rules_added={} ms={:.2} commit_ms={:.2}",
                    r.rules_added,
                    t.elapsed().as_secs_f64() * 1e3,
                    r.commit_time.as_secs_f64() * 1e3
                );
            }
        }
        Err(e) => {
            eprintln!("restore failed: {e}");
            std::process::exit(1);
        }
    }
}
