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
    let mut cmd = Command::new(bin);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
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
        use std::io::BufRead;
        let mut child = Command::new(bin)
            .args(["serve", "--verbose"])
            .stdin(Stdio::null())
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
        let ok = Command::new("kill")
            .args(["-s", sig, &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill -s {sig} {}", self.child.id());
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

    /// Stops the server and returns its whole log.
    pub fn stop(mut self) -> String {
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
/// the protocols of its own list and saves any other as its number (`-p 47`).
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
        match renamed {
            Some(n) => fixed.push(w.replace(bare, &n.to_string())),
            None => fixed.push((*w).to_owned()),
        }
    }
    fixed.join(" ")
}
