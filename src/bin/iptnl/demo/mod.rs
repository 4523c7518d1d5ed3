//! `iptnl demo`: generates a kube-proxy-style ruleset, loads it with iptnl and — each in its
//! own fresh network namespace — with iptables-nft-restore and iptables-legacy-restore when
//! they are installed, then compares load time, peak memory, a few single commands and a
//! save at that size.
//!
//! Every figure is a whole process (a fork and exec of a command, as a user runs it): iptnl's
//! load is `iptnl __demo-load FILE` (its restore, in a process of its own so that its peak
//! memory is its own), its single commands are the `iptables` name of this binary run
//! directly (cold) and again through an `iptnl serve` the demo starts in that namespace, and
//! the kernel's floor is `iptnl __demo-commit BATCH`, which sends iptnl's planned batch and
//! reads the kernel's answers. Peak memory is `VmHWM` of `/proc/PID/status`, polled every few
//! milliseconds until the child exits.

mod measure;
mod model;
mod report;
mod run;
mod why;

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, restore_file, RestoreOptions};
use iptnl::netlink::{Conn, Messages, Socket};
use iptnl::nft::error::group_thousands;
use iptnl::workload::{kube_proxy, KubeProxyOptions};
use iptnl_sys::netlink::NLMSG_ERROR;

use measure::{find_tool, Progress};
use model::{Column, Contender, Kind, Lowered, Setup};

pub use model::{COMMIT_SUBCOMMAND, LOAD_SUBCOMMAND};

const DEMO_USAGE: &str = "Usage: iptnl demo [--rules N] [--ipv6] [--keep-going]\n\
    \x20 --rules N      size of the generated kube-proxy-style ruleset (default 100000)\n\
    \x20 --ipv6         the ip6tables variant\n\
    \x20 --keep-going   when a loader or an operation fails, report it and go on\n\
    Runs as root or under `unshare -rn`; every loader gets its own throwaway network\n\
    namespace, the host's ruleset is never touched. A ruleset is loaded in one batch, which\n\
    must fit the socket send buffer: a user without CAP_NET_ADMIN in the initial user\n\
    namespace gets at most twice net.core.wmem_max, so there the default size is lowered to\n\
    what fits (and the report says so); an explicit --rules that does not fit is refused.\n";

struct Args {
    rules: usize,
    /// `--rules` was given (a size that does not fit is refused instead of lowered).
    rules_given: bool,
    ipv6: bool,
    keep_going: bool,
}

fn parse_args(args: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args {
        rules: 100_000,
        rules_given: false,
        ipv6: false,
        keep_going: false,
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (arg, None),
        };
        match name {
            "--rules" | "-r" => {
                let v = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i - 1)
                            .cloned()
                            .ok_or("--rules needs a number of rules")?
                    }
                };
                let digits: String = v.chars().filter(|c| *c != '_' && *c != ',').collect();
                a.rules = digits
                    .parse()
                    .ok()
                    .filter(|n| (1..=10_000_000).contains(n))
                    .ok_or_else(|| format!("--rules {v}: give a number from 1 to 10000000"))?;
                a.rules_given = true;
            }
            "--ipv6" | "-6" => a.ipv6 = true,
            "--keep-going" | "-k" => a.keep_going = true,
            "--help" | "-h" => return Ok(None),
            other => return Err(format!("unknown option `{other}'")),
        }
    }
    Ok(Some(a))
}

/// `iptnl demo`.
pub fn main(args: &[String]) -> i32 {
    let a = match parse_args(args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{DEMO_USAGE}");
            return 0;
        }
        Err(e) => {
            eprint!("iptnl demo: {e}\n{DEMO_USAGE}");
            return 2;
        }
    };
    let family = if a.ipv6 { IpFamily::V6 } else { IpFamily::V4 };
    let p6 = if a.ipv6 { "ip6" } else { "ip" };
    // The longest batch this user can send (`None`: no limit, CAP_NET_ADMIN in the initial
    // user namespace). If the socket cannot even be opened, the load says why.
    let limit = iptnl::netlink::Socket::send_limit().ok().flatten();
    // In a user namespace the other tools meet limits of their own (see `why`): those are
    // shown as not available instead of ending the demo, and iptables-legacy gets a lock
    // file this user may open (`/run/xtables.lock` is root's).
    let userns = limit.is_some();
    let lock = std::env::temp_dir().join(format!("iptnl-demo-{}.xtables.lock", std::process::id()));
    if userns && std::env::var_os("XTABLES_LOCKFILE").is_none() {
        std::env::set_var("XTABLES_LOCKFILE", &lock);
    }

    // Who takes part.
    let mut contenders = Vec::new();
    let mut skipped = Vec::new();
    // IPTNL_DEMO_SKIP="iptables-legacy-restore …" leaves tools out (to try the demo as it
    // runs where they are not installed).
    let excluded = std::env::var("IPTNL_DEMO_SKIP").unwrap_or_default();
    for (kind, suffix) in [(Kind::Nft, "nft"), (Kind::Legacy, "legacy")] {
        let name = format!("{p6}tables-{suffix}-restore");
        if excluded.split([' ', ',']).any(|x| x == name) {
            skipped.push(format!("{name}: excluded by IPTNL_DEMO_SKIP"));
            continue;
        }
        match find_tool(&name) {
            Some(restore) => contenders.push(Contender {
                kind,
                restore,
                cmd: find_tool(&format!("{p6}tables-{suffix}")),
                save: find_tool(&format!("{p6}tables-{suffix}-save")),
            }),
            None => skipped.push(format!("{name}: not installed")),
        }
    }

    // Steps: generating, iptnl's load, commands, save, served commands, the floor; three
    // for each other tool.
    let mut progress = Progress::new(6 + 3 * contenders.len());
    progress.start(format!(
        "generating a kube-proxy-style ruleset of about {} rules",
        group_thousands(a.rules as u64)
    ));
    let mut rules = a.rules;
    let mut lowered: Option<Lowered> = None;
    let (text, stats) = loop {
        let (text, stats) = kube_proxy(&KubeProxyOptions {
            rules: Some(rules),
            ipv6: a.ipv6,
            ..Default::default()
        });
        let Some(limit) = limit else {
            break (text, stats);
        };
        let bytes = match batch_bytes(&text, family) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("\niptnl demo: {e}");
                return 1;
            }
        };
        if bytes <= limit {
            break (text, stats);
        }
        // The batch grows in proportion to the rules; keep a tenth in reserve for the other
        // loaders, whose batches are a little bigger.
        let fits = (rules as f64 * limit as f64 / bytes as f64 * 0.9) as usize;
        let low = Lowered {
            asked: stats.rules,
            bytes,
            limit,
        };
        if a.rules_given || fits < 100 {
            eprintln!(
                "\niptnl demo: {}\n{}",
                low.words(),
                if fits < 100 {
                    "run as root".to_owned()
                } else {
                    format!(
                        "--rules {fits} fits; for {} rules, run as root or have root run `sysctl -w net.core.wmem_max={}`",
                        group_thousands(stats.rules as u64),
                        iptnl::netlink::wmem_max_needed(bytes)
                    )
                }
            );
            return 1;
        }
        lowered.get_or_insert(low);
        rules = fits;
        progress.start(format!(
            "generating a kube-proxy-style ruleset of about {} rules (the most this user's send buffer holds)",
            group_thousands(rules as u64)
        ));
    };
    let file = std::env::temp_dir().join(format!("iptnl-demo-{}.rules", std::process::id()));
    if let Err(e) = std::fs::write(&file, &text) {
        eprintln!("\niptnl demo: cannot write {}: {e}", file.display());
        return 1;
    }
    drop(text);
    progress.step_done();

    let setup = Setup {
        exe: std::env::current_exe().unwrap_or_else(|_| "iptnl".into()),
        file,
        family,
        keep_going: a.keep_going,
    };
    let cleanup = || {
        let _ = std::fs::remove_file(&setup.file);
        let _ = std::fs::remove_file(setup.file.with_extension("batch"));
        let _ = std::fs::remove_file(&lock);
    };
    let netns_failed = |e: std::io::Error| {
        cleanup();
        eprintln!(
            "\niptnl demo: cannot create a network namespace ({e}): run as root or under `unshare -rn`"
        );
        1
    };
    let ours = match iptnl::netns::run_in_fresh_netns(|| run::iptnl(&setup, p6, &mut progress)) {
        Ok(o) => o,
        Err(e) => return netns_failed(e),
    };
    let floor = match iptnl::netns::run_in_fresh_netns(|| run::floor(&setup, &mut progress)) {
        Ok(f) => f,
        Err(e) => return netns_failed(e),
    };
    let mut columns = ours.columns;
    columns[0].floor = floor;
    for c in &contenders {
        match iptnl::netns::run_in_fresh_netns(|| run::tool(&setup, c, &mut progress)) {
            Ok(col) => columns.push(col),
            Err(e) => return netns_failed(e),
        }
    }
    cleanup();
    progress.finish();
    // Without --keep-going, a failure that is not a limit of where the demo runs ends it.
    if !a.keep_going {
        if let Some(e) = columns.iter().find_map(Column::failure) {
            eprintln!("\niptnl demo: {e}\n(--keep-going reports failures and goes on)");
            return 1;
        }
    }
    report::print(&report::Report {
        ipv6: a.ipv6,
        stats: &stats,
        lowered: lowered.as_ref(),
        columns: &columns,
        skipped: &skipped,
        batch: ours.batch.as_deref(),
        excerpt: ours.excerpt.as_deref(),
    });
    0
}

/// The size of the batch that loads `text` into an empty namespace, planned (not committed)
/// in a fresh one.
fn batch_bytes(text: &str, family: IpFamily) -> Result<usize, String> {
    iptnl::netns::run_in_fresh_netns(|| {
        let mut conn = Conn::open().map_err(|e| e.to_string())?;
        let opts = RestoreOptions {
            test: true,
            ..RestoreOptions::default()
        };
        restore(&mut conn, family, text, &opts)
            .map(|r| r.batch_bytes)
            .map_err(|e| e.to_string())
    })
    .unwrap_or_else(|e| {
        Err(format!(
            "cannot create a network namespace ({e}): run as root or under `unshare -rn`"
        ))
    })
}

/// `iptnl __demo-load FILE [--ipv6]`: iptnl's loader, in a process of its own.
pub fn load_main(args: &[String]) -> i32 {
    let Some(file) = args.first() else {
        eprintln!("iptnl {LOAD_SUBCOMMAND}: FILE [--ipv6]");
        return 2;
    };
    let family = if args.iter().any(|a| a == "--ipv6") {
        IpFamily::V6
    } else {
        IpFamily::V4
    };
    // Read in pieces, as `iptnl iptables-restore FILE` does (the text is never held whole).
    let input = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("iptnl: cannot read {file}: {e}");
            return 1;
        }
    };
    let res = Conn::open().map_err(|e| e.to_string()).and_then(|mut c| {
        restore_file(&mut c, family, &input, &RestoreOptions::default()).map_err(|e| e.to_string())
    });
    match res {
        Ok(r) => {
            println!(
                "{} rules added in one batch of {} operations, {:.1} MiB",
                group_thousands(r.rules_added as u64),
                group_thousands(r.ops as u64),
                r.batch_bytes as f64 / (1024.0 * 1024.0)
            );
            0
        }
        Err(e) => {
            eprintln!("iptnl: {e}");
            1
        }
    }
}

/// `iptnl __demo-commit BATCH`: sends a planned batch (the bytes `plan_restore` encodes) in
/// one `sendmsg` and reads the kernel's answers: the kernel's floor for a load, as a whole
/// process. Exits 1 when the kernel refused anything.
pub fn commit_main(args: &[String]) -> i32 {
    let Some(file) = args.first() else {
        eprintln!("iptnl {COMMIT_SUBCOMMAND}: BATCH");
        return 2;
    };
    let res = (|| -> Result<usize, String> {
        let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        let mut sock = Socket::open().map_err(|e| e.to_string())?;
        sock.ensure_sndbuf(bytes.len()).map_err(|e| e.to_string())?;
        sock.send(&bytes).map_err(|e| e.to_string())?;
        // The kernel answers a batch within its sendmsg: everything is queued now.
        let mut buf = Vec::new();
        let mut refused = 0;
        while sock.recv(&mut buf, false).map_err(|e| e.to_string())? {
            for m in Messages::new(&buf) {
                let m = m.map_err(|e| e.to_string())?;
                if m.msg_type() == NLMSG_ERROR && m.error().is_ok_and(|e| e.errno != 0) {
                    refused += 1;
                }
            }
        }
        Ok(refused)
    })();
    match res {
        Ok(0) => 0,
        Ok(n) => {
            eprintln!("iptnl: the kernel refused {n} messages of the batch");
            1
        }
        Err(e) => {
            eprintln!("iptnl: {e}");
            1
        }
    }
}
