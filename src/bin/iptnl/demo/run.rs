//! The demo's runs, each called in a fresh network namespace of its own: iptnl (its load,
//! its `iptables` commands run directly and then served, its save), the kernel's floor, and
//! each other tool.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::measure::{median_of_rounds, run_measured, status_kib, Measured, Progress, ROUNDS};
use super::model::{
    Cell, Column, Contender, How, Kind, Setup, COMMIT_SUBCOMMAND, LOAD_SUBCOMMAND, OP_CHAIN,
};
use crate::serve::client::DIRECT_ENV;
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{plan_restore, RestoreOptions};
use iptnl::netlink::Conn;

/// The rule appended, checked and deleted.
fn demo_rule(v6: bool) -> [&'static str; 10] {
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
}

/// What iptnl's run gives: its two columns (processes, served), its batch's summary and the
/// start of its nat table as saved.
pub(super) struct IptnlRun {
    pub(super) columns: Vec<Column>,
    pub(super) batch: Option<String>,
    pub(super) excerpt: Option<String>,
}

/// iptnl's load as a process (`iptnl __demo-load FILE`).
fn iptnl_load(s: &Setup, progress: &mut Progress) -> Result<Measured, String> {
    let mut cmd = Command::new(&s.exe);
    cmd.arg(LOAD_SUBCOMMAND).arg(&s.file);
    if s.family == iptnl::ipt::IpFamily::V6 {
        cmd.arg("--ipv6");
    }
    run_measured(&mut cmd, &s.file, progress).and_then(|m| {
        if m.ok {
            Ok(m)
        } else {
            Err(m.stderr.trim().to_owned())
        }
    })
}

/// This binary under the name `name` (what a link of that name runs).
fn link(s: &Setup, name: &str) -> Command {
    let mut cmd = Command::new(&s.exe);
    cmd.arg0(name);
    cmd
}

/// Appends, checks and deletes the demo's rule with the `iptables` command `make` gives, a
/// process each; the error names the command and holds its whole message.
fn ops(make: &dyn Fn() -> Command, v6: bool) -> Result<[Duration; 3], String> {
    let mut out = [Duration::ZERO; 3];
    for (i, op) in ["-A", "-C", "-D"].iter().enumerate() {
        let t = Instant::now();
        let o = make()
            .args(["-t", "nat", op, OP_CHAIN])
            .args(demo_rule(v6))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot start: {e}"))?;
        out[i] = t.elapsed();
        if !o.status.success() {
            return Err(format!(
                "-t nat {op} {OP_CHAIN} …: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
    }
    Ok(out)
}

fn ops_cells(tool: &str, r: Result<[Duration; 3], String>) -> [Cell; 3] {
    match r {
        Ok(d) => d.map(Cell::Time),
        Err(e) => [0, 1, 2].map(|_| Cell::failure(tool, &e)),
    }
}

/// Saves with `cmd` (a process); its time and text.
fn save_with(mut cmd: Command) -> Result<(Duration, String), String> {
    let t = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start: {e}"))?;
    let took = t.elapsed();
    if out.status.success() {
        Ok((took, String::from_utf8_lossy(&out.stdout).into_owned()))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

fn count_rules(save_text: &str) -> usize {
    save_text.lines().filter(|l| l.starts_with("-A ")).count()
}

/// iptnl: the load, the `iptables` commands run directly, the save, then the same commands
/// through an `iptnl serve` started in this namespace.
pub(super) fn iptnl(s: &Setup, p6: &str, progress: &mut Progress) -> IptnlRun {
    let v6 = s.family == iptnl::ipt::IpFamily::V6;
    let mut direct = Column::new(Kind::Iptnl, How::Process, p6, "");
    let mut served = Column::new(Kind::Iptnl, How::Served, p6, "");
    let mut run = IptnlRun {
        columns: Vec::new(),
        batch: None,
        excerpt: None,
    };
    progress.start("loading with iptnl");
    let load = iptnl_load(s, progress);
    progress.step_done();
    match load {
        Ok(m) => {
            direct.load = Cell::Time(m.wall);
            direct.mem = Cell::Mem(m.peak_kib);
            run.batch = m.stdout.lines().next().map(str::to_owned);
        }
        Err(e) => {
            direct.load = Cell::Failed(format!("iptnl: {e}"));
            run.columns = vec![direct, served];
            return run;
        }
    }

    progress.start(format!("{} commands run directly", direct.tool));
    let tool = direct.tool.clone();
    let direct_cmd = || {
        let mut c = link(s, &tool);
        c.env(DIRECT_ENV, "1");
        c
    };
    direct.ops = ops_cells(&tool, median_of_rounds(|| ops(&direct_cmd, v6)));
    progress.step_done();

    progress.start(format!("saving with {}", direct.save_name));
    match save_with(link(s, &direct.save_name)) {
        Ok((took, text)) => {
            direct.save = Cell::Time(took);
            direct.saved_rules = Cell::Count(count_rules(&text));
            let ex: Vec<&str> = text.lines().skip_while(|l| *l != "*nat").take(15).collect();
            run.excerpt = Some(ex.join("\n"));
        }
        Err(e) => direct.save = Cell::failure(&direct.save_name, &e),
    }
    progress.step_done();

    progress.start(format!("{} commands served by iptnl serve", direct.tool));
    serve_and_run(s, &tool, v6, &mut served);
    progress.step_done();
    run.columns = vec![direct, served];
    run
}

/// Starts `iptnl serve` here, runs the commands through it (after one untimed listing of
/// the chain, which fills its cache, as a resident server's is), and stops it.
fn serve_and_run(s: &Setup, tool: &str, v6: bool, col: &mut Column) {
    let log = s.file.with_extension("serve.log");
    let not_available = |col: &mut Column, why: String| {
        col.ops = [0, 1, 2].map(|_| Cell::NotAvailable(why.clone()));
    };
    let log_file = match std::fs::File::create(&log) {
        Ok(f) => f,
        Err(e) => return not_available(col, format!("no log file for the server: {e}")),
    };
    let mut server = match link(s, "iptnl")
        .args(["serve", "--verbose"])
        .env_remove(DIRECT_ENV)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log_file)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return not_available(col, format!("iptnl serve could not be started: {e}")),
    };
    // It says so on its standard output once it listens; keep the pipe open until it stops.
    let mut out = BufReader::new(server.stdout.take().expect("piped"));
    let mut first = String::new();
    let _ = out.read_line(&mut first);
    if !first.contains("listening") {
        let _ = server.kill();
        let _ = server.wait();
        let why = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        return not_available(
            col,
            format!("iptnl serve did not start here: {}", why.trim()),
        );
    }
    let served_cmd = || {
        let mut c = link(s, tool);
        c.env_remove(DIRECT_ENV);
        c
    };
    let _ = served_cmd()
        .args(["-t", "nat", "-S", OP_CHAIN])
        .stdin(Stdio::null())
        .output();
    col.ops = ops_cells(tool, median_of_rounds(|| ops(&served_cmd, v6)));
    let pid = server.id();
    if let (Some(hwm), Some(rss)) = (status_kib(pid, "VmHWM"), status_kib(pid, "VmRSS")) {
        col.mem = Cell::Mem(hwm);
        col.note = Some(format!(
            "peak memory is the server's, which keeps the table it read (resident: {})",
            super::measure::fmt_mem(rss)
        ));
    }
    stop_server(&mut server);
    drop(out);
    // Every command must have been served (a declined one runs by itself, and says nothing).
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let served = text
        .lines()
        .filter(|l| l.contains(OP_CHAIN) && l.contains("(exit "))
        .count();
    if col.ops.iter().all(Cell::is_figure) && served < 3 * ROUNDS + 1 {
        not_available(
            col,
            format!(
                "iptnl serve served {served} of the {} commands; the others ran by themselves: {}",
                3 * ROUNDS + 1,
                text.lines().find(|l| l.contains("declined")).unwrap_or("")
            ),
        );
    }
}

/// Stops the server as an operator does, with SIGTERM: it finishes (and logs) the commands
/// in flight, each logged just after its client got the answer, so the log is whole once it
/// has exited. Killed only when it has not exited within 10 s.
fn stop_server(server: &mut std::process::Child) {
    if iptnl::netlink::send_signal(server.id(), libc::SIGTERM).is_ok() {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = server.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// The kernel's floor: iptnl's batch planned here (untimed), then committed by a process that
/// only sends it and reads the answers.
pub(super) fn floor(s: &Setup, progress: &mut Progress) -> Cell {
    progress.start("the kernel alone committing iptnl's batch");
    let batch = s.file.with_extension("batch");
    let res = plan_to_file(&s.file, s.family, &batch).and_then(|()| {
        let mut cmd = Command::new(&s.exe);
        cmd.arg(COMMIT_SUBCOMMAND).arg(&batch);
        run_measured(&mut cmd, &batch, progress)
    });
    let _ = std::fs::remove_file(&batch);
    progress.step_done();
    match res {
        Ok(m) if m.ok => Cell::Time(m.wall),
        Ok(m) => Cell::Failed(format!("the kernel's commit alone: {}", m.stderr.trim())),
        Err(e) => Cell::Failed(format!("the kernel's commit alone: {e}")),
    }
}

/// Another tool: its restore (a process), its single commands and its save.
pub(super) fn tool(s: &Setup, c: &Contender, progress: &mut Progress) -> Column {
    let v6 = s.family == iptnl::ipt::IpFamily::V6;
    let suffix = if c.kind == Kind::Nft {
        "-nft"
    } else {
        "-legacy"
    };
    let mut col = Column::new(c.kind, How::Process, s.p6(), suffix);
    progress.start(format!("loading with {}", col.restore));
    let mut cmd = Command::new(&c.restore);
    cmd.arg(&s.file);
    let load = run_measured(&mut cmd, &s.file, progress).and_then(|m| {
        if m.ok {
            Ok(m)
        } else {
            Err(m.stderr.trim().to_owned())
        }
    });
    progress.step_done();
    let mut loaded = true;
    match load {
        Ok(m) => {
            col.load = Cell::Time(m.wall);
            col.mem = Cell::Mem(m.peak_kib);
        }
        Err(e) => {
            col.load = Cell::failure(&col.restore, &e);
            if let Cell::NotAvailable(why) = &col.load {
                col.mem = Cell::NotAvailable(why.clone());
                // iptables-nft's commands work on the rules iptnl writes (the same bytes):
                // they can still be timed at this size.
                loaded = c.kind == Kind::Nft && iptnl_load(s, progress).is_ok();
                if loaded {
                    col.note = Some(format!(
                        "{} could not load here; its commands and save ran on the same ruleset loaded by iptnl, which writes the rules iptables-nft writes",
                        col.restore
                    ));
                } else {
                    let why = format!("nothing was loaded: {why}");
                    col.ops = [0, 1, 2].map(|_| Cell::NotAvailable(why.clone()));
                    col.save = Cell::NotAvailable(why);
                }
            } else {
                loaded = s.keep_going;
            }
        }
    }

    progress.start(format!("{} commands", col.tool));
    if loaded {
        col.ops = match &c.cmd {
            Some(path) => ops_cells(
                &col.tool,
                median_of_rounds(|| ops(&|| Command::new(path), v6)),
            ),
            None => [0, 1, 2].map(|_| Cell::NotAvailable(format!("{} is not installed", col.tool))),
        };
    }
    progress.step_done();

    progress.start(format!("saving with {}", col.save_name));
    if loaded {
        match &c.save {
            Some(path) => match save_with(Command::new(path)) {
                Ok((took, text)) => {
                    col.save = Cell::Time(took);
                    col.saved_rules = Cell::Count(count_rules(&text));
                }
                Err(e) => col.save = Cell::failure(&col.save_name, &e),
            },
            None => col.save = Cell::NotAvailable(format!("{} is not installed", col.save_name)),
        }
    }
    progress.step_done();
    col
}

/// Plans the restore of `file` into the (empty) namespace of the calling thread and writes
/// its batch to `out`, as `iptables-restore FILE` would send it there.
fn plan_to_file(
    file: &std::path::Path,
    family: IpFamily,
    out: &std::path::Path,
) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let mut conn = Conn::open().map_err(|e| e.to_string())?;
    let (mut batch, _) = plan_restore(&mut conn, family, &text, &RestoreOptions::default())
        .map_err(|e| e.to_string())?;
    std::fs::write(out, batch.to_wire(1)).map_err(|e| e.to_string())
}
