//! How the demo times and measures: a progress bar, whole processes timed with their peak
//! memory, and the formatting of the figures.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A text progress bar on stderr (redrawn in place on a terminal, one line per step
/// otherwise).
pub(super) struct Progress {
    total: usize,
    done: usize,
    label: String,
    tty: bool,
    last_draw: Instant,
}

impl Progress {
    pub(super) fn new(total: usize) -> Progress {
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
            (self.done * 100 / self.total.max(1)).min(100),
            self.label,
            extra
        )
    }

    pub(super) fn start(&mut self, label: impl Into<String>) {
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
    pub(super) fn tick(&mut self, elapsed: Duration) {
        if self.tty && self.last_draw.elapsed() >= Duration::from_millis(100) {
            let line = self.bar(&format!(" … {:.1} s", elapsed.as_secs_f64()));
            eprint!("\r\x1b[2K{line}");
            let _ = std::io::stderr().flush();
            self.last_draw = Instant::now();
        }
    }

    pub(super) fn step_done(&mut self) {
        self.done += 1;
    }

    pub(super) fn finish(&mut self) {
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
pub(super) struct Measured {
    pub(super) wall: Duration,
    pub(super) peak_kib: u64,
    pub(super) ok: bool,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

/// A `/proc/PID/status` figure in KiB (`VmHWM`, `VmRSS`).
pub(super) fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `cmd` to completion, polling its peak RSS (VmHWM) every 2 ms; its output goes to
/// files next to `tmp`.
pub(super) fn run_measured(
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
        if let Some(v) = status_kib(pid, "VmHWM") {
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
pub(super) fn find_tool(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Rounds of append, check, delete; the table shows the median of each.
pub(super) const ROUNDS: usize = 3;

/// The median of each of the three figures over [`ROUNDS`] runs of `f`.
pub(super) fn median_of_rounds<E>(
    mut f: impl FnMut() -> Result<[Duration; 3], E>,
) -> Result<[Duration; 3], E> {
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

pub(super) fn fmt_dur(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 0.01 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{:.2} ms", s * 1000.0)
    }
}

pub(super) fn fmt_mem(kib: u64) -> String {
    let mib = kib as f64 / 1024.0;
    if mib >= 100.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{mib:.1} MiB")
    }
}
