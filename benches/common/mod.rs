//! Machine-readable figures of the benches, for `scripts/plots.py`.
//!
//! Each bench appends one JSON object per figure to `<dir>/<bench>.jsonl`, where `<dir>` is
//! `IPTNL_BENCH_OUT` or, by default, `iptnl-bench` in the target directory (found from the
//! bench binary's own path: `<target>/release/deps/<bench>-<hash>`). A figure is
//! `{"bench", "size", "series", "metric", "value", "unix", "load1"}`: `size` is the ruleset
//! size in rules (or K callers, as the bench says), `series` the tool or operation, `metric`
//! what `value` is (`ms`, `mib`, …), `unix` the time it was written and `load1` the
//! one-minute load average then. Files are appended to: a reader keeps the last figure of
//! each (bench, size, series, metric); `scripts/bench-report.sh` empties the directory first.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The median of `v` (sorted in place; zero when empty).
pub fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// `d` in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The directory the figures go to (created when missing).
pub fn out_dir() -> PathBuf {
    let dir = std::env::var_os("IPTNL_BENCH_OUT")
        .map(PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            // <target>/release/deps/<bench>-<hash>
            Some(exe.parent()?.parent()?.parent()?.join("iptnl-bench"))
        })
        .unwrap_or_else(|| PathBuf::from("target/iptnl-bench"));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The one-minute load average (0 when unknown).
pub fn load1() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Appends one figure to `<dir>/<bench>.jsonl`. Failing to write is reported, not fatal.
pub fn record(bench: &str, size: usize, series: &str, metric: &str, value: f64) {
    if !value.is_finite() {
        return;
    }
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let line = format!(
        "{{\"bench\":{},\"size\":{size},\"series\":{},\"metric\":{},\"value\":{value},\"unix\":{unix},\"load1\":{}}}\n",
        json_str(bench),
        json_str(series),
        json_str(metric),
        load1()
    );
    let path = out_dir().join(format!("{bench}.jsonl"));
    let r = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = r {
        eprintln!("cannot write {}: {e}", path.display());
    }
}

/// The iptnl binary: `IPTNL_BIN`, or the release build next to this bench (built when
/// missing).
pub fn iptnl_bin() -> PathBuf {
    if let Some(b) = std::env::var_os("IPTNL_BIN") {
        return PathBuf::from(b);
    }
    let exe = std::env::current_exe().expect("bench path");
    let p = exe.parent().unwrap().parent().unwrap().join("iptnl");
    if !p.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let st = Command::new(cargo)
            .args(["build", "--release", "--bin", "iptnl"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo");
        assert!(st.success(), "cargo build --release --bin iptnl failed");
    }
    p
}

/// An `iptnl serve` in the calling thread's namespace, stopped when dropped.
pub struct Server(std::process::Child);

impl Server {
    pub fn start(bin: &Path) -> Server {
        use std::io::BufRead;
        let mut child = Command::new(bin)
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("iptnl serve");
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.contains("listening"), "iptnl serve: {first:?}");
        Server(child)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM, so that it stops as a service manager stops it.
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

/// Splits a rule spec into words as a shell does for double quotes.
pub fn split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}
