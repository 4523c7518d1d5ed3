//! `iptnl demo`: generates a kube-proxy-style ruleset, loads it with iptnl and — each in its
//! own fresh network namespace — with iptables-nft-restore and iptables-legacy-restore when
//! they are installed, then compares load time, peak memory and a few single operations at
//! that size.
//!
//! Every loader runs as a child process (iptnl's as `iptnl __demo-load FILE`), so that peak
//! memory is measured the same way for all: `VmHWM` of `/proc/PID/status`, polled every few
//! milliseconds until the child exits.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use iptnl::ipt::savefile::SaveOptions;
use iptnl::ipt::{canonical_exprs_with, canonical_of_rule_with, parse_command_with, IpFamily};
use iptnl::iptables::ipset::KernelSets;
use iptnl::iptables::restore::{restore, restore_file, RestoreOptions};
use iptnl::iptables::save::save;
use iptnl::netlink::Conn;
use iptnl::nft::error::group_thousands;
use iptnl::nft::list_rules;
use iptnl::workload::{kube_proxy, KubeProxyOptions, KubeProxyStats};

/// The hidden subcommand the demo runs iptnl's load in.
pub const LOAD_SUBCOMMAND: &str = "__demo-load";

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

/// A text progress bar on stderr (redrawn in place on a terminal, one line per step
/// otherwise).
struct Progress {
    total: usize,
    done: usize,
    label: String,
    tty: bool,
    last_draw: Instant,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            label: String::new(),
            tty: std::io::stderr().is_terminal(),
            last_draw: Instant::now(),
        }
    }

    fn bar(&self, extra: &str) -> String {
        const W: usize = 30;
        let filled = (self.done * W / self.total.max(1)).min(W);
        format!(
            "[{}{}] {:3}% {}{}",
            "#".repeat(filled),
            ".".repeat(W - filled),
            self.done * 100 / self.total.max(1),
            self.label,
            extra
        )
    }

    fn start(&mut self, label: impl Into<String>) {
        self.label = label.into();
        let line = self.bar("");
        if self.tty {
            eprint!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
        self.last_draw = Instant::now();
    }

    /// Redraws with the time spent in the current step (terminal only, at most 10 per second).
    fn tick(&mut self, elapsed: Duration) {
        if self.tty && self.last_draw.elapsed() >= Duration::from_millis(100) {
            let line = self.bar(&format!(" … {:.1} s", elapsed.as_secs_f64()));
            eprint!("\r\x1b[2K{line}");
            let _ = std::io::stderr().flush();
            self.last_draw = Instant::now();
        }
    }

    fn step_done(&mut self) {
        self.done += 1;
    }

    fn finish(&mut self) {
        self.done = self.total;
        self.label = "done".into();
        let line = self.bar("");
        if self.tty {
            eprintln!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
    }
}

/// A child process's wall time, peak resident memory and outcome.
struct Measured {
    wall: Duration,
    peak_kib: u64,
    ok: bool,
    stdout: String,
    stderr: String,
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `cmd` to completion, polling its peak RSS (VmHWM) every 2 ms.
fn run_measured(
    cmd: &mut Command,
    tmp: &Path,
    progress: &mut Progress,
) -> Result<Measured, String> {
    let out_path = tmp.with_extension("out");
    let err_path = tmp.with_extension("err");
    let out = std::fs::File::create(&out_path).map_err(|e| e.to_string())?;
    let err = std::fs::File::create(&err_path).map_err(|e| e.to_string())?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(v) = vm_hwm_kib(pid) {
            peak = peak.max(v);
        }
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => {}
            Err(e) => return Err(e.to_string()),
        }
        std::thread::sleep(Duration::from_millis(2));
        progress.tick(start.elapsed());
    };
    let wall = start.elapsed();
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    Ok(Measured {
        wall,
        peak_kib: peak,
        ok: status.success(),
        stdout,
        stderr,
    })
}

/// Where an executable is: `PATH`, then the sbin directories (not always in a user's `PATH`).
fn find_tool(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Iptnl,
    Nft,
    Legacy,
}

struct Contender {
    kind: Kind,
    /// The restore tool's name (column title).
    name: String,
    restore: PathBuf,
    /// The single-rule command (`iptables-nft`, `iptables-legacy`); none for iptnl.
    cmd: Option<PathBuf>,
    save: Option<PathBuf>,
}

#[derive(Default)]
struct Outcome {
    load: Option<Result<Measured, String>>,
    /// Append, check, delete.
    ops: Option<Result<[Duration; 3], String>>,
    /// Save time and rules counted in the saved text.
    save: Option<Result<(Duration, usize), String>>,
    excerpt: Option<String>,
    batch: Option<String>,
}

fn demo_rule(v6: bool) -> Vec<String> {
    let d = if v6 {
        "fd00:ffff::1/128"
    } else {
        "10.255.255.1/32"
    };
    [
        "-d",
        d,
        "-p",
        "tcp",
        "-m",
        "tcp",
        "--dport",
        "80",
        "-j",
        "KUBE-MARK-MASQ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

const OP_CHAIN: &str = "KUBE-SERVICES";

/// Append, check and delete one rule with iptnl's library (each opening its own socket, as a
/// tool would).
fn iptnl_ops(family: IpFamily) -> Result<[Duration; 3], String> {
    let rule = demo_rule(family == IpFamily::V6).join(" ");
    let noflush = RestoreOptions {
        noflush: true,
        ..Default::default()
    };
    let t = Instant::now();
    let mut conn = Conn::open().map_err(|e| e.to_string())?;
    restore(
        &mut conn,
        family,
        &format!("*nat\n-A {OP_CHAIN} {rule}\nCOMMIT\n"),
        &noflush,
    )
    .map_err(|e| format!("append: {e}"))?;
    let append = t.elapsed();

    let t = Instant::now();
    let mut conn = Conn::open().map_err(|e| e.to_string())?;
    let mut args = vec!["-t".to_owned(), "nat".into(), "-C".into(), OP_CHAIN.into()];
    args.extend(demo_rule(family == IpFamily::V6));
    let cl = parse_command_with(family, &args, &KernelSets).map_err(|e| format!("check: {e}"))?;
    let spec = cl.rules.first().ok_or("check: no rule")?;
    let (rules, _) = list_rules(&mut conn, Some(family.nft()), Some("nat"), Some(OP_CHAIN))
        .map_err(|e| format!("check: {e}"))?;
    // What rule_matches_spec does for each rule, with the spec's side computed once.
    let want = canonical_exprs_with(spec, "nat", OP_CHAIN, &KernelSets)
        .map_err(|e| format!("check: {e}"))?;
    if !rules
        .iter()
        .any(|r| canonical_of_rule_with(r, family, &KernelSets).is_some_and(|c| c == want))
    {
        return Err("check: the appended rule was not found".into());
    }
    let check = t.elapsed();

    let t = Instant::now();
    let mut conn = Conn::open().map_err(|e| e.to_string())?;
    restore(
        &mut conn,
        family,
        &format!("*nat\n-D {OP_CHAIN} {rule}\nCOMMIT\n"),
        &noflush,
    )
    .map_err(|e| format!("delete: {e}"))?;
    Ok([append, check, t.elapsed()])
}

/// Append, check and delete one rule with `iptables-nft`/`iptables-legacy`.
fn tool_ops(cmd: &Path, v6: bool) -> Result<[Duration; 3], String> {
    let mut out = [Duration::ZERO; 3];
    for (i, op) in ["-A", "-C", "-D"].iter().enumerate() {
        let t = Instant::now();
        let o = Command::new(cmd)
            .args(["-t", "nat", op, OP_CHAIN])
            .args(demo_rule(v6))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{}: {e}", cmd.display()))?;
        out[i] = t.elapsed();
        if !o.status.success() {
            return Err(format!(
                "{} {op}: {}",
                cmd.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
    }
    Ok(out)
}

/// Rounds of append, check, delete; the table shows the median of each.
const ROUNDS: usize = 3;

fn median_of_rounds(
    mut f: impl FnMut() -> Result<[Duration; 3], String>,
) -> Result<[Duration; 3], String> {
    let mut runs = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        runs.push(f()?);
    }
    let mut out = [Duration::ZERO; 3];
    for (k, o) in out.iter_mut().enumerate() {
        let mut v: Vec<Duration> = runs.iter().map(|r| r[k]).collect();
        v.sort();
        *o = v[v.len() / 2];
    }
    Ok(out)
}

fn count_rules(save_text: &str) -> usize {
    save_text.lines().filter(|l| l.starts_with("-A ")).count()
}

/// Loads the ruleset with one contender in the calling thread's (fresh) namespace, then runs
/// the single operations and a save.
fn run_contender(
    c: &Contender,
    file: &Path,
    family: IpFamily,
    keep_going: bool,
    progress: &mut Progress,
) -> Outcome {
    let v6 = family == IpFamily::V6;
    let mut o = Outcome::default();
    progress.start(format!("loading with {}", c.name));
    let mut cmd = match c.kind {
        Kind::Iptnl => {
            let mut cmd = Command::new(std::env::current_exe().unwrap_or_else(|_| "iptnl".into()));
            cmd.arg(LOAD_SUBCOMMAND).arg(file);
            if v6 {
                cmd.arg("--ipv6");
            }
            cmd
        }
        _ => {
            let mut cmd = Command::new(&c.restore);
            cmd.arg(file);
            cmd
        }
    };
    let load = run_measured(&mut cmd, file, progress).and_then(|m| {
        if m.ok {
            Ok(m)
        } else {
            Err(m.stderr.trim().to_owned())
        }
    });
    progress.step_done();
    let loaded = load.is_ok();
    if let Ok(m) = &load {
        o.batch = m.stdout.lines().next().map(str::to_owned);
    }
    o.load = Some(load);
    if !loaded && !keep_going {
        return o;
    }

    progress.start(format!("single operations with {}", c.name));
    let ops = match (&c.kind, &c.cmd) {
        (Kind::Iptnl, _) => median_of_rounds(|| iptnl_ops(family)),
        (_, Some(cmd)) => median_of_rounds(|| tool_ops(cmd, v6)),
        (_, None) => Err("no single-rule command installed".into()),
    };
    progress.step_done();
    let ops_ok = ops.is_ok();
    o.ops = Some(ops);
    if !ops_ok && !keep_going {
        return o;
    }

    progress.start(format!("saving with {}", c.name));
    let t = Instant::now();
    let saved: Result<String, String> = match (&c.kind, &c.save) {
        (Kind::Iptnl, _) => Conn::open()
            .map_err(|e| e.to_string())
            .and_then(|mut conn| {
                save(&mut conn, family, &SaveOptions::default()).map_err(|e| e.to_string())
            }),
        (_, Some(s)) => Command::new(s)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())
            .and_then(|out| {
                if out.status.success() {
                    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
                } else {
                    Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
                }
            }),
        (_, None) => Err("no save tool installed".into()),
    };
    let took = t.elapsed();
    progress.step_done();
    if let (Kind::Iptnl, Ok(text)) = (c.kind, &saved) {
        let ex: Vec<&str> = text.lines().skip_while(|l| *l != "*nat").take(15).collect();
        o.excerpt = Some(ex.join("\n"));
    }
    o.save = Some(saved.map(|t| (took, count_rules(&t))));
    o
}

fn fmt_dur(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 0.01 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{:.2} ms", s * 1000.0)
    }
}

fn fmt_mem(kib: u64) -> String {
    let mib = kib as f64 / 1024.0;
    if mib >= 100.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{mib:.1} MiB")
    }
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
    // In a user namespace the other loaders meet limits of their own (see `userns_notes`):
    // their failures are reported in the table instead of ending the demo (a loader that
    // failed to load is not timed further, unless --keep-going), and
    // iptables-legacy gets a lock file this user may open (`/run/xtables.lock` is root's).
    let userns = limit.is_some();
    let lock = std::env::temp_dir().join(format!("iptnl-demo-{}.xtables.lock", std::process::id()));
    if userns && std::env::var_os("XTABLES_LOCKFILE").is_none() {
        std::env::set_var("XTABLES_LOCKFILE", &lock);
    }

    // Who takes part.
    let mut contenders = vec![Contender {
        kind: Kind::Iptnl,
        name: "iptnl".into(),
        restore: PathBuf::new(),
        cmd: None,
        save: None,
    }];
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
                name,
                restore,
                cmd: find_tool(&format!("{p6}tables-{suffix}")),
                save: find_tool(&format!("{p6}tables-{suffix}-save")),
            }),
            None => skipped.push(format!("{name}: not installed")),
        }
    }

    let mut progress = Progress::new(1 + 3 * contenders.len());
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

    let keep_going = |c: &Contender| a.keep_going || (userns && c.kind != Kind::Iptnl);
    let mut outcomes = Vec::new();
    for c in &contenders {
        let res = iptnl::netns::run_in_fresh_netns(|| {
            run_contender(c, &file, family, a.keep_going, &mut progress)
        });
        match res {
            Ok(o) => {
                let failed = o
                    .load
                    .as_ref()
                    .and_then(|r| r.as_ref().err())
                    .or(o.ops.as_ref().and_then(|r| r.as_ref().err()))
                    .cloned();
                outcomes.push(o);
                if let (Some(e), false) = (failed, keep_going(c)) {
                    let _ = std::fs::remove_file(&file);
                    eprintln!(
                        "\niptnl demo: {} failed: {e}\n(--keep-going reports failures and goes on)",
                        c.name
                    );
                    return 1;
                }
            }
            Err(e) => {
                let _ = std::fs::remove_file(&file);
                eprintln!(
                    "\niptnl demo: cannot create a network namespace ({e}): run as root or under `unshare -rn`"
                );
                return 1;
            }
        }
    }
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&lock);
    progress.finish();
    print_report(
        &a,
        &stats,
        lowered.as_ref(),
        &contenders,
        &outcomes,
        &skipped,
    );
    if userns {
        userns_notes(&contenders, &outcomes);
    }
    0
}

/// Whether a step failed with a message that holds `what`.
fn failed_with<T>(r: &Option<Result<T, String>>, what: &str) -> bool {
    matches!(r, Some(Err(e)) if e.contains(what))
}

/// What the other loaders cannot do in a user namespace, for those that failed there for
/// that reason.
fn userns_notes(contenders: &[Contender], outcomes: &[Outcome]) {
    let mut out = std::io::stdout().lock();
    for (c, o) in contenders.iter().zip(outcomes) {
        let why = match c.kind {
            Kind::Nft if failed_with(&o.load, "Message too long") => format!(
                "{} raises its socket send buffer only with SO_SNDBUFFORCE (CAP_NET_ADMIN in the initial user namespace), so a batch of more than net.core.wmem_default ({} bytes) fails with `Message too long'",
                c.name,
                std::fs::read_to_string("/proc/sys/net/core/wmem_default")
                    .map(|s| s.trim().to_owned())
                    .unwrap_or_else(|_| "?".into())
            ),
            Kind::Legacy if failed_with(&o.save, "Permission denied") => format!(
                "{} could not save: it was refused /proc/net/ip_tables_names, which it lists the tables from",
                c.name.replace("-restore", "-save")
            ),
            _ => continue,
        };
        let _ = writeln!(out, "note: in this user namespace, {why}");
    }
}

/// The requested ruleset did not fit the send buffer this user can get.
struct Lowered {
    /// Rules asked for (as generated).
    asked: usize,
    /// Its batch, in bytes.
    bytes: usize,
    /// The longest batch this user can send.
    limit: usize,
}

impl Lowered {
    fn words(&self) -> String {
        format!(
            "the batch of {} rules is {} bytes ({:.1} MiB), and this user's netlink send buffer holds at most {} bytes ({:.1} MiB): a batch goes to the kernel in one message, and a buffer bigger than twice net.core.wmem_max needs CAP_NET_ADMIN in the initial user namespace (root in a user namespace is not enough)",
            group_thousands(self.asked as u64),
            group_thousands(self.bytes as u64),
            self.bytes as f64 / (1024.0 * 1024.0),
            group_thousands(self.limit as u64),
            self.limit as f64 / (1024.0 * 1024.0),
        )
    }
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

fn print_report(
    a: &Args,
    st: &KubeProxyStats,
    lowered: Option<&Lowered>,
    contenders: &[Contender],
    outcomes: &[Outcome],
    skipped: &[String],
) {
    let mut out = std::io::stdout().lock();
    let g = |n: usize| group_thousands(n as u64);
    let _ = writeln!(
        out,
        "\nkube-proxy-style ruleset ({}): {} rules in {} chains — {} services × {} endpoints, {} NodePorts, {} services without endpoints",
        if a.ipv6 { "IPv6" } else { "IPv4" },
        g(st.rules),
        g(st.chains),
        g(st.services_with_eps),
        st.endpoints.checked_div(st.services_with_eps).unwrap_or(0),
        g(st.nodeports),
        g(st.services_noep),
    );
    if let Some(low) = lowered {
        let _ = writeln!(
            out,
            "lowered from {} rules: {}; for the full size, run as root or have root run `sysctl -w net.core.wmem_max={}`",
            g(low.asked),
            low.words(),
            iptnl::netlink::wmem_max_needed(low.bytes)
        );
    }
    let _ = writeln!(
        out,
        "each loader ran in its own fresh network namespace; single operations (median of {ROUNDS}) on nat {OP_CHAIN} ({} rules) after the load\n",
        g(st.kube_services_nat_rules)
    );
    let _ = writeln!(
        out,
        "load and save: a process each (iptnl's too); append, check and delete: a process each for the other tools, an in-process library call for iptnl (its own netlink socket each; a served or direct `iptables` process adds the process's start)\n"
    );
    let err_cell = |e: &str| {
        let first = e.lines().next().unwrap_or("").to_owned();
        let short: String = first.chars().take(22).collect();
        format!("failed: {short}")
    };
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let col = |f: &dyn Fn(&Outcome) -> String| outcomes.iter().map(f).collect::<Vec<_>>();
    rows.push((
        "load (wall time)".into(),
        col(&|o| match &o.load {
            Some(Ok(m)) => fmt_dur(m.wall),
            Some(Err(e)) => err_cell(e),
            None => "-".into(),
        }),
    ));
    rows.push((
        "peak memory (VmHWM)".into(),
        col(&|o| match &o.load {
            Some(Ok(m)) => fmt_mem(m.peak_kib),
            _ => "-".into(),
        }),
    ));
    for (i, name) in ["append 1 rule", "check 1 rule (-C)", "delete 1 rule"]
        .iter()
        .enumerate()
    {
        rows.push((
            (*name).into(),
            col(&|o| match &o.ops {
                Some(Ok(d)) => fmt_dur(d[i]),
                Some(Err(e)) => err_cell(e),
                None => "-".into(),
            }),
        ));
    }
    rows.push((
        "save whole ruleset".into(),
        col(&|o| match &o.save {
            Some(Ok((d, _))) => fmt_dur(*d),
            Some(Err(e)) => err_cell(e),
            None => "-".into(),
        }),
    ));
    rows.push((
        "rules in the save".into(),
        col(&|o| match &o.save {
            Some(Ok((_, n))) => g(*n),
            _ => "-".into(),
        }),
    ));
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = contenders
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .map(|r| r.1[i].chars().count())
                .chain([c.name.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut header = format!("{:w0$}", "");
    for (c, w) in contenders.iter().zip(&widths) {
        header.push_str(&format!("   {:>w$}", c.name, w = *w));
    }
    let _ = writeln!(out, "{header}");
    for (label, cells) in &rows {
        let mut line = format!("{label:w0$}");
        for (cell, w) in cells.iter().zip(&widths) {
            line.push_str(&format!("   {cell:>w$}", w = *w));
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(b) = outcomes.first().and_then(|o| o.batch.as_deref()) {
        let _ = writeln!(out, "\niptnl: {b}");
    }
    for s in skipped {
        let _ = writeln!(out, "skipped {s}");
    }
    if let Some(ex) = outcomes.first().and_then(|o| o.excerpt.as_deref()) {
        let _ = writeln!(
            out,
            "\nthe nat table as iptnl saves it (first 15 lines):\n{ex}\n…"
        );
    }

    // Verdict.
    let ours = match outcomes.first().and_then(|o| o.load.as_ref()) {
        Some(Ok(m)) => m,
        _ => {
            let _ = writeln!(out, "\niptnl could not load the ruleset (see above)");
            return;
        }
    };
    let mut parts = Vec::new();
    for (c, o) in contenders.iter().zip(outcomes).skip(1) {
        if let Some(Ok(m)) = &o.load {
            let speed = m.wall.as_secs_f64() / ours.wall.as_secs_f64().max(1e-9);
            let speed = if speed >= 1.0 {
                format!("{speed:.1}× faster than")
            } else {
                format!("{:.1}× slower than", 1.0 / speed)
            };
            let mem = if m.peak_kib > 0 {
                format!(
                    " using {:.0}% of its memory",
                    ours.peak_kib as f64 * 100.0 / m.peak_kib as f64
                )
            } else {
                String::new()
            };
            parts.push(format!("{speed} {}{mem}", c.name));
        }
    }
    let _ = if parts.is_empty() {
        writeln!(
            out,
            "\niptnl loaded {} rules in {} using {} (nothing to compare with: {})",
            g(st.rules),
            fmt_dur(ours.wall),
            fmt_mem(ours.peak_kib),
            if skipped.is_empty() {
                "the other loaders failed".to_owned()
            } else {
                skipped.join("; ")
            }
        )
    } else {
        writeln!(
            out,
            "\niptnl loaded {} rules {} (the load row only; the other rows are in the table)",
            g(st.rules),
            parts.join(", and ")
        )
    };
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
