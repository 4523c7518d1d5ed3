//! Test harness: every test that touches netfilter runs in its own fresh network namespace,
//! and oracle binaries are spawned from inside it.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `f` in a fresh network namespace (see `iptnl::netns`). Panics with a clear message
/// when namespaces cannot be created (not root, and not under `unshare -rn`).
pub fn in_netns<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    iptnl::netns::run_in_fresh_netns(f).unwrap_or_else(|e| {
        panic!("cannot create a network namespace ({e}): run the tests as root or under `unshare -rn cargo test`")
    })
}

/// Whether this process runs in the initial user namespace (its uid map is the identity of
/// every uid). Outside it, the kernel refuses a few things even to root of the namespace;
/// inside it nothing is ever skipped.
pub fn in_initial_user_namespace() -> bool {
    std::fs::read_to_string("/proc/self/uid_map")
        .map(|m| m.split_whitespace().collect::<Vec<_>>() == ["0", "0", "4294967295"])
        .unwrap_or(true)
}

/// Prints why a test (or a case of one) is skipped: only for what the kernel cannot do in a
/// user namespace.
pub fn skip(what: &str, why: &str) {
    eprintln!("skipping {what}: {why}");
}

/// The longest batch a netlink socket of this process can send (`None`: no limit, as with
/// CAP_NET_ADMIN in the initial user namespace).
pub fn send_limit() -> Option<usize> {
    iptnl::netlink::Socket::send_limit().unwrap_or(None)
}

/// Whether a batch of `bytes` can be sent here; if not (in a user namespace, where the send
/// buffer is capped at twice `net.core.wmem_max`), prints why `what` is skipped.
pub fn send_buffer_holds(what: &str, bytes: usize) -> bool {
    match send_limit() {
        Some(limit) if bytes > limit && !in_initial_user_namespace() => {
            skip(what, &send_buffer_words(bytes, limit));
            false
        }
        _ => true,
    }
}

fn send_buffer_words(bytes: usize, limit: usize) -> String {
    format!(
        "the send buffer cannot hold {bytes} bytes in this user namespace (at most {limit}; \
         needs CAP_NET_ADMIN in the initial user namespace or net.core.wmem_max={})",
        iptnl::netlink::wmem_max_needed(bytes)
    )
}

/// Whether `err` (an error's text, or a tool's stderr) is a batch refused for the send buffer
/// limit of a user namespace: iptnl's error, or iptables-nft's `Message too long` (it raises
/// its buffer only with SO_SNDBUFFORCE, so it is held to net.core.wmem_default there).
/// `Some(reason)` in a user namespace only, `None` everywhere else.
pub fn send_buffer_refusal(err: &str) -> Option<String> {
    if in_initial_user_namespace() {
        return None;
    }
    let line = err.lines().find(|l| {
        l.contains("socket send buffer could only be raised") || l.contains("Message too long")
    })?;
    Some(format!(
        "the send buffer cannot hold the batch in this user namespace ({})",
        line.trim()
    ))
}

/// In a user namespace only: why `input` cannot be restored there, by the oracle `rbin`
/// (`iptables-nft-restore` or `ip6tables-nft-restore`, with `args`) or by iptnl, after
/// `setup` (restored by the oracle), when the reason is the send buffer limit of a user
/// namespace. Tried in a throwaway namespace. `None` in the initial user namespace, without
/// trying anything, and whenever both load it (or fail for any other reason, which the test
/// itself then reports).
pub fn restore_refused_here(
    rbin: &str,
    args: &[&str],
    setup: Option<&str>,
    input: &str,
) -> Option<String> {
    // Under 4 KiB of text, no batch comes near net.core.wmem_default (208 KiB by default).
    if in_initial_user_namespace() || setup.map_or(0, str::len) + input.len() < 4096 {
        return None;
    }
    let family = if rbin.starts_with("ip6") {
        iptnl::ipt::IpFamily::V6
    } else {
        iptnl::ipt::IpFamily::V4
    };
    let opts = iptnl::iptables::restore::RestoreOptions {
        noflush: args.contains(&"--noflush") || args.contains(&"-n"),
        ..Default::default()
    };
    let setup_then = |run: &(dyn Fn() -> Option<String> + Sync)| {
        in_netns(|| {
            if let Some(s) = setup {
                let o = run_status(rbin, &[], Some(s));
                if !o.status.success() {
                    return send_buffer_refusal(&String::from_utf8_lossy(&o.stderr));
                }
            }
            run()
        })
    };
    let oracle = setup_then(&|| {
        let o = run_status(rbin, args, Some(input));
        if o.status.success() {
            return None;
        }
        send_buffer_refusal(&String::from_utf8_lossy(&o.stderr)).map(|w| format!("{rbin}: {w}"))
    });
    oracle.or_else(|| {
        setup_then(&|| {
            let mut conn = iptnl::netlink::Conn::open().ok()?;
            let e = iptnl::iptables::restore::restore(&mut conn, family, input, &opts).err()?;
            send_buffer_refusal(&e.to_string()).map(|w| format!("iptnl: {w}"))
        })
    })
}

/// Whether `id` is mapped in `/proc/self/{map}` (`uid_map` or `gid_map`).
fn id_mapped(map: &str, id: u64) -> bool {
    let Ok(text) = std::fs::read_to_string(format!("/proc/self/{map}")) else {
        return true;
    };
    text.lines().any(|l| {
        let f: Vec<u64> = l
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        matches!(f[..], [inside, _, count] if id >= inside && id - inside < count)
    })
}

/// Whether this user namespace maps `uid` (the kernel refuses to switch to an unmapped one).
pub fn uid_mapped(uid: u64) -> bool {
    id_mapped("uid_map", uid)
}

/// The id named `name` in `/etc/passwd` or `/etc/group` (`file`).
fn id_by_name(file: &str, name: &str) -> Option<u64> {
    std::fs::read_to_string(file).ok()?.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.len() > 2 && f[0] == name).then(|| f[2].parse().ok())?
    })
}

/// An owner match's id as iptables reads it: decimal, hexadecimal or a name.
fn owner_id(file: &str, v: &str) -> Option<u64> {
    let v = v.trim();
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok().or_else(|| id_by_name(file, v)),
    }
}

/// The uids and gids of `--uid-owner`/`--gid-owner` in `text` (rule specs or a restore
/// input) that this user namespace does not map, in words, or `None` when all are mapped.
/// The kernel refuses an owner match on an unmapped id (EINVAL), whatever tool writes it.
pub fn unmapped_owner_ids(text: &str) -> Option<String> {
    let mut bad = Vec::new();
    for line in text.lines() {
        let words = iptnl::ipt::split_args(line)
            .unwrap_or_else(|_| line.split_whitespace().map(str::to_owned).collect());
        for w in words.windows(2) {
            let (map, file, name) = match w[0].as_str() {
                "--uid-owner" => ("uid_map", "/etc/passwd", "uid"),
                "--gid-owner" => ("gid_map", "/etc/group", "gid"),
                _ => continue,
            };
            let ends: Vec<u64> = w[1]
                .split(['-', ':'])
                .filter_map(|v| owner_id(file, v))
                .collect();
            let word = format!("{name} {}", w[1]);
            if ends.iter().any(|&id| !id_mapped(map, id)) && !bad.contains(&word) {
                bad.push(word);
            }
        }
    }
    if bad.is_empty() {
        None
    } else {
        Some(format!(
            "this user namespace does not map {} (the kernel refuses -m owner on an unmapped id)",
            bad.join(", ")
        ))
    }
}

/// Whether an oracle binary is installed.
pub fn have(bin: &str) -> bool {
    Command::new(bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Runs an oracle command (in the calling thread's namespace) and returns its output;
/// panics with its stderr when it fails.
pub fn run(bin: &str, args: &[&str]) -> String {
    let out = run_status(bin, args, None);
    assert!(
        out.status.success(),
        "{bin} {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Runs an oracle command with optional stdin and returns the raw output.
pub fn run_status(bin: &str, args: &[&str], stdin: Option<&str>) -> Output {
    run_status_env(bin, args, stdin, &[])
}

/// [`run_status`] with environment variables set for the command.
pub fn run_status_env(
    bin: &str,
    args: &[&str],
    stdin: Option<&str>,
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.envs(env.iter().copied());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e} (apt-get install nftables iptables)"));
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

/// Loads a ruleset with `nft -f -`.
pub fn nft_load(ruleset: &str) {
    let out = run_status("nft", &["-f", "-"], Some(ruleset));
    assert!(
        out.status.success(),
        "nft -f failed: {}\n{ruleset}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Loads a ruleset with `nft -f -`, or, when `nft` cannot send it in this user namespace
/// (`Message too long`: it raises its send buffer only with SO_SNDBUFFORCE), prints why
/// `what` is skipped and returns false.
pub fn nft_load_here(what: &str, ruleset: &str) -> bool {
    let out = run_status("nft", &["-f", "-"], Some(ruleset));
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if let Some(why) = send_buffer_refusal(&err) {
            skip(what, &format!("nft: {why}"));
            return false;
        }
    }
    assert!(out.status.success(), "nft -f failed: {err}\n{ruleset}");
    true
}

/// `nft list ruleset`.
pub fn nft_list() -> String {
    run("nft", &["list", "ruleset"])
}

/// A rule as dumped, with the payload of its `NFTA_RULE_EXPRESSIONS` exactly as the kernel
/// sent it.
pub struct RawRule {
    pub rule: iptnl::nft::Rule,
    pub raw_exprs: Vec<u8>,
}

/// Dumps every rule of `family` (all tables), keeping the raw expression bytes.
pub fn dump_rules_raw(conn: &mut iptnl::netlink::Conn, family: iptnl::nft::Family) -> Vec<RawRule> {
    use iptnl::sys::nf_tables::{NFTA_RULE_EXPRESSIONS, NFT_MSG_GETRULE, NFT_MSG_NEWRULE};
    use iptnl::sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
    let mut out = Vec::new();
    let st = conn
        .dump(
            "dumping rules",
            nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
            family.raw(),
            |_| {},
            |m| {
                if nfnl_msg_id(m.msg_type()) != NFT_MSG_NEWRULE {
                    return Ok(());
                }
                let mut raw = Vec::new();
                for a in m.nfgen()?.attrs() {
                    let a = a?;
                    if a.kind() == NFTA_RULE_EXPRESSIONS {
                        raw = a.data().to_vec();
                    }
                }
                out.push(RawRule {
                    rule: iptnl::nft::Rule::decode(m)?,
                    raw_exprs: raw,
                });
                Ok(())
            },
        )
        .unwrap();
    assert!(!st.interrupted, "dump interrupted");
    out
}

/// A temporary directory of symlinks to the iptnl binary under tool names (`iptables`,
/// `iptables-restore`, …), removed when dropped.
pub struct ToolLinks {
    /// The directory.
    pub dir: std::path::PathBuf,
}

impl ToolLinks {
    /// Links each of `names` to the iptnl binary in a new directory named after `prefix`.
    pub fn new(prefix: &str, names: &[&str]) -> ToolLinks {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for name in names {
            let _ = std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iptnl"), dir.join(name));
        }
        ToolLinks { dir }
    }

    /// The path of one of the links.
    pub fn path(&self, name: &str) -> String {
        self.dir.join(name).to_string_lossy().into_owned()
    }

    /// Writes a file in the directory and returns its path.
    pub fn file(&self, name: &str, content: &str) -> String {
        let p = self.dir.join(name);
        std::fs::write(&p, content).unwrap();
        p.to_string_lossy().into_owned()
    }
}

impl Drop for ToolLinks {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The shared kube-proxy workload (`../shared/workloads/gen_kubeproxy.py`, or under
/// `IPTNL_SHARED`) with about `rules` rules; `None` (and a note) when the generator is absent.
pub fn shared_workload(rules: usize, ipv6: bool) -> Option<String> {
    let base = std::env::var_os("IPTNL_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared").into());
    let gen = base.join("workloads/gen_kubeproxy.py");
    if !gen.exists() {
        eprintln!("skipping: {} not found", gen.display());
        return None;
    }
    let mut cmd = Command::new("python3");
    cmd.arg(gen).arg("--rules").arg(rules.to_string());
    if ipv6 {
        cmd.arg("--ipv6");
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    Some(String::from_utf8(out.stdout).unwrap())
}

/// `iptnl serve --verbose`, started in the calling thread's network namespace (the child
/// inherits it) and stopped when dropped. Its log (one line per command served) is kept.
pub struct Server {
    child: std::process::Child,
    log: std::sync::Arc<std::sync::Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Starts the server `bin` (the iptnl binary) and waits until it listens.
    pub fn start(bin: &str) -> Server {
        let mut cmd = Command::new(bin);
        cmd.args(["serve", "--verbose"]).stdin(Stdio::null());
        Server::start_command(cmd)
    }

    /// Starts a server with `cmd` (its standard input as the caller set it up) and waits
    /// until it listens.
    pub fn start_command(mut cmd: Command) -> Server {
        use std::io::BufRead;
        let bin = format!("{:?}", cmd.get_program());
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {bin} serve: {e}"));
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        if !first.contains("listening") {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "iptnl serve did not start: {first:?} {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let stderr = child.stderr.take().unwrap();
        let l = log.clone();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut g = l.lock().unwrap();
                g.push_str(&line);
                g.push('\n');
            }
        });
        Server {
            child,
            log,
            reader: Some(reader),
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits (up to 5 s) until the log holds `n` lines that contain `needle`; returns the
    /// log. The server logs a command just after answering it.
    pub fn wait_log(&self, needle: &str, n: usize) -> String {
        let t = std::time::Instant::now();
        loop {
            let log = self.log();
            if log.lines().filter(|l| l.contains(needle)).count() >= n
                || t.elapsed() > std::time::Duration::from_secs(5)
            {
                return log;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Sends the server a signal (`TERM`, `USR1`, …) with `kill`.
    pub fn signal(&self, sig: &str) {
        assert!(self.send(sig), "kill -s {sig} {}", self.child.id());
    }

    /// Sends the server a signal with `kill`; whether it was sent (not when the server has
    /// exited already).
    fn send(&self, sig: &str) -> bool {
        Command::new("kill")
            .args(["-s", sig, &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Waits (up to 30 s) for the server to exit by itself; returns its exit code (`None`
    /// when it had to be killed) and its whole log.
    pub fn wait_exit(mut self) -> (Option<i32>, String) {
        let t = std::time::Instant::now();
        let code = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break st.code(),
                _ if t.elapsed() > std::time::Duration::from_secs(30) => break None,
                _ => std::thread::sleep(std::time::Duration::from_millis(5)),
            }
        };
        self.kill();
        (code, self.log())
    }

    /// Stops the server as an operator does, with SIGTERM (it finishes the commands in flight
    /// and logs them: each is logged just after its client got the answer), and returns its
    /// whole log. Killed when it has not exited within 30 s.
    pub fn stop(self) -> String {
        // A server that has exited already is simply waited for.
        self.send("TERM");
        self.wait_exit().1
    }

    /// Kills the server (SIGKILL) and returns its log so far: a command answered just before
    /// may not be logged yet.
    pub fn kill_now(mut self) -> String {
        self.kill();
        self.log()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A save line (`-A …`, or `[p:b] -A …`) of iptables-nft 1.8.9 with its protocol as iptables
/// 1.8.11 saves it: 1.8.9 took a name from `/etc/protocols` (`-p gre`), 1.8.11 names only
/// the protocols of its own list and saves any other as its number (`-p 47`). Also
/// `-m recent --seconds`, which 1.8.9 printed with `%d` (`-1`) and 1.8.11 prints unsigned
/// (`4294967295`).
pub fn save_line_protocols_as_1_8_11(line: &str) -> String {
    use iptnl::ipt::{proto_name, proto_number, IpFamily};
    let words: Vec<&str> = line.split(' ').collect();
    let mut fixed: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let bare = w.trim_end_matches('\n');
        let renamed = (i > 0 && words[i - 1] == "-p" && !bare.bytes().all(|b| b.is_ascii_digit()))
            .then(|| proto_number(bare))
            .flatten()
            .filter(|&n| proto_name(n, IpFamily::V4).is_none());
        let unsigned = (i > 0 && words[i - 1] == "--seconds" && line.contains(" -m recent "))
            .then(|| bare.parse::<i32>().ok())
            .flatten()
            .filter(|n| *n < 0);
        match (renamed, unsigned) {
            (Some(n), _) => fixed.push(w.replace(bare, &n.to_string())),
            (None, Some(n)) => fixed.push(w.replace(bare, &(n as u32).to_string())),
            (None, None) => fixed.push((*w).to_owned()),
        }
    }
    fixed.join(" ")
}

/// The rules of the rule corpus (tests/corpus/*.rules, files in name order): for each line
/// that iptables accepts (not `!`, `#` or `@`), one (family, table, chain, rule text) per
/// family the line is for.
pub fn corpus_rules() -> Vec<(iptnl::ipt::IpFamily, String, String, String)> {
    use iptnl::ipt::IpFamily;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', '!', '@']) {
                continue;
            }
            let mut w = line.splitn(4, ' ');
            let (Some(fams), Some(table), Some(chain), Some(spec)) =
                (w.next(), w.next(), w.next(), w.next())
            else {
                continue;
            };
            for (c, fam) in [('4', IpFamily::V4), ('6', IpFamily::V6)] {
                if fams.contains(c) {
                    out.push((fam, table.to_owned(), chain.to_owned(), spec.to_owned()));
                }
            }
        }
    }
    out
}
