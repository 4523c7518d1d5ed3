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
