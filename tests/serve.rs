//! `iptnl serve`: the `iptables` name hands its commands to the server of its own network
//! namespace and falls back to running them itself whenever the server is absent, declines,
//! or stops before starting the command. (That served commands print exactly what direct
//! ones print is shown by tests/cli.rs, which runs all its sequences both ways.)

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdout, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

fn tools() -> common::ToolLinks {
    common::ToolLinks::new("iptnl-serve", &["iptables", "ip6tables"])
}

fn served_lines(log: &str) -> usize {
    log.lines().filter(|l| l.contains("(exit ")).count()
}

/// Waits until the server has logged `n` commands it ran (it logs each just after
/// answering), asserts it ran exactly `n`, and returns its log.
fn served(server: &common::Server, n: usize) -> String {
    let log = server.wait_log("(exit ", n);
    assert_eq!(served_lines(&log), n, "{log}");
    log
}

/// A command in another namespace never reaches this namespace's server: it runs there,
/// by itself, and changes that namespace only.
#[test]
fn each_namespace_has_its_own_server() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        common::run(&ipt, &["-N", "SERVED"]);
        let other = common::in_netns(|| {
            common::run(&ipt, &["-N", "DIRECT"]);
            common::run(&ipt, &["-S"])
        });
        assert!(
            other.contains("-N DIRECT") && !other.contains("SERVED"),
            "{other}"
        );
        let here = common::run(&ipt, &["-S"]);
        assert!(
            here.contains("-N SERVED") && !here.contains("DIRECT"),
            "{here}"
        );
        let log = served(&server, 2);
        assert!(!log.contains("DIRECT"), "{log}");
    });
}

/// A second server in the same namespace refuses to start; IPTNL_DIRECT bypasses the server.
#[test]
fn one_server_per_namespace_and_direct_mode() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        let second = common::run_status(BIN, &["serve"], None);
        assert_eq!(second.status.code(), Some(1));
        let why = String::from_utf8_lossy(&second.stderr);
        assert!(
            why.contains("@iptnl is already taken")
                && why.contains(&format!("by pid {}, uid 0", server.pid()))
                && !why.contains("ignore it"),
            "{second:?}"
        );
        let o = std::process::Command::new(&ipt)
            .args(["-A", "INPUT", "-j", "ACCEPT"])
            .env("IPTNL_DIRECT", "1")
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        common::run(&ipt, &["-C", "INPUT", "-j", "ACCEPT"]);
        let log = served(&server, 1);
        assert!(log.contains("-C INPUT -j ACCEPT"), "{log}");
    });
}

/// Killed between commands, the server is not missed: the next command runs by itself.
#[test]
fn commands_run_by_themselves_when_the_server_is_gone() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        common::run(&ipt, &["-N", "A"]);
        // The server logs a command just after answering it: wait for the line, then stop.
        served(&server, 1);
        let log = server.kill_now();
        assert_eq!(served_lines(&log), 1, "{log}");
        common::run(&ipt, &["-N", "B"]);
        let s = common::run("iptables-nft-save", &[]);
        assert!(s.contains(":A - [0:0]") && s.contains(":B - [0:0]"), "{s}");
    });
}

/// Stopped with SIGTERM right after its last answer, the server has logged every command it
/// answered: it logs a command just after answering it, and a stop waits for the commands in
/// flight, so a log read once the server has exited is whole (what `iptnl demo` counts to
/// tell served commands from ones that ran by themselves). Stopped at once, many times.
#[test]
fn a_stopped_server_has_logged_every_command_it_answered() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        for round in 0..20 {
            let server = common::Server::start(BIN);
            let n = 1 + round % 3;
            for i in 0..n {
                common::run(&ipt, &["-N", &format!("R{round}C{i}")]);
            }
            let log = server.stop();
            assert_eq!(served_lines(&log), n, "round {round}: {log}");
            assert!(log.contains("iptnl serve: stopped"), "round {round}: {log}");
        }
    });
}

/// Garbage, a cut request and a request from another iptnl version do not stop the server;
/// the other version is declined with a reason.
#[test]
fn bad_requests_leave_the_server_serving() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        let addr = SocketAddr::from_abstract_name(b"iptnl").unwrap();
        let mut s = UnixStream::connect_addr(&addr).unwrap();
        s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        assert!(reply.is_empty(), "{reply:?}");
        let mut s = UnixStream::connect_addr(&addr).unwrap();
        s.write_all(b"IPTNL-SERVE/1\x05\x00").unwrap();
        drop(s);
        // Another version: "declined".
        let mut s = UnixStream::connect_addr(&addr).unwrap();
        let mut req = b"IPTNL-SERVE/1".to_vec();
        let version = b"0.0.0-other";
        req.extend_from_slice(&(version.len() as u32).to_le_bytes());
        req.extend_from_slice(version);
        req.extend_from_slice(&2u32.to_le_bytes());
        for a in [&b"iptables"[..], b"-S"] {
            req.extend_from_slice(&(a.len() as u32).to_le_bytes());
            req.extend_from_slice(a);
        }
        s.write_all(&req).unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        assert!(reply.starts_with(b"IPTNL-SERVE/1\x01"), "{reply:?}");
        assert!(
            String::from_utf8_lossy(&reply).contains("differs from the server's"),
            "{reply:?}"
        );
        common::run(&ipt, &["-N", "STILL"]);
        let log = served(&server, 1);
        assert!(log.contains("a bad request"), "{log}");
    });
}

/// 20 processes at once through one server: every rule lands once, in both families.
#[test]
fn concurrent_clients_lose_nothing() {
    let t = tools();
    let (ipt, ip6t) = (t.path("iptables"), t.path("ip6tables"));
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        common::run(&ipt, &["-N", "C"]);
        common::run(&ip6t, &["-N", "C"]);
        let children: Vec<_> = (0..20)
            .map(|i| {
                let (bin, addr) = if i % 2 == 0 {
                    (&ipt, format!("10.0.0.{i}"))
                } else {
                    (&ip6t, format!("2001:db8::{i}"))
                };
                std::process::Command::new(bin)
                    .args(["-w", "-A", "C", "-s", &addr, "-j", "ACCEPT"])
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
        let v4 = common::run("iptables-nft-save", &[]);
        let v6 = common::run("ip6tables-nft-save", &[]);
        for i in 0..20 {
            let (save, rule) = if i % 2 == 0 {
                (&v4, format!("-A C -s 10.0.0.{i}/32 -j ACCEPT\n"))
            } else {
                (&v6, format!("-A C -s 2001:db8::{i}/128 -j ACCEPT\n"))
            };
            assert_eq!(save.matches(&rule).count(), 1, "{rule} in\n{save}");
        }
        let log = server.wait_log("(exit 0", 22);
        assert_eq!(served_lines(&log), 22, "{log}");
    });
}

/// SIGUSR1 prints a line of figures; SIGTERM stops accepting, finishes every command the
/// server started (none is lost: each client's command is applied once, by the server or,
/// once the name is free, by the client itself) and exits 0; the name is then free for a
/// new server.
#[test]
fn sigterm_finishes_the_commands_started() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        common::run(&ipt, &["-N", "C"]);
        served(&server, 1);
        server.signal("USR1");
        let log = server.wait_log("stats: requests 1,", 1);
        assert!(
            log.contains("iptnl serve: stats: requests 1, clients declined 0, in flight 0; iptables: commits 1, operations 1"),
            "{log}"
        );
        let children: Vec<_> = (0..40)
            .map(|i| {
                std::process::Command::new(&ipt)
                    .args(["-A", "C", "-s", &format!("10.0.1.{i}"), "-j", "ACCEPT"])
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        // Stop while the commands arrive.
        server.wait_log("(exit 0", 3);
        server.signal("TERM");
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let (code, log) = server.wait_exit();
        assert_eq!(code, Some(0), "{log}");
        assert!(log.contains("SIGTERM: no new commands"), "{log}");
        assert!(log.ends_with("iptnl serve: stopped\n"), "{log}");
        let save = common::run("iptables-nft-save", &[]);
        for i in 0..40 {
            let rule = format!("-A C -s 10.0.1.{i}/32 -j ACCEPT\n");
            assert_eq!(save.matches(&rule).count(), 1, "{rule} in\n{save}");
        }
        // The name is free again.
        let again = common::Server::start(BIN);
        common::run(&ipt, &["-S", "C"]);
        served(&again, 1);
    });
}

/// A server whose log reader is gone (its stderr a pipe nobody reads) keeps serving, and
/// SIGTERM still stops it with exit 0.
#[test]
fn a_closed_log_stops_nothing() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let mut child = Command::new(BIN)
            .args(["serve", "--verbose", "--stats", "0.01"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.contains("listening"), "{first}");
        drop(child.stderr.take());
        for i in 0..5 {
            let out = Command::new(&ipt)
                .args(["-N", &format!("C{i}")])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let kill = Command::new("kill")
            .args(["-s", "TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let t0 = std::time::Instant::now();
        let code = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st.code();
            }
            if t0.elapsed() > std::time::Duration::from_secs(20) {
                let _ = child.kill();
                panic!("the server did not stop");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(code, Some(0));
        // Every command was served: its chain is there.
        let save = common::run("iptables-nft-save", &[]);
        for i in 0..5 {
            assert!(save.contains(&format!(":C{i} - [0:0]")), "{save}");
        }
    });
}

/// One of the commands of the crowd: its arguments, and which invalid kind it is, for the
/// invalid tenth (0: bad syntax, 1: a missing chain, 2: a duplicate `-N`).
fn crowd_command(i: usize) -> (Vec<String>, Option<usize>) {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let addr = format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256);
    if i % 10 != 7 {
        return (s(&["-A", "C", "-s", &addr, "-j", "ACCEPT"]), None);
    }
    let args = match i % 3 {
        0 => s(&["-A", "C", "-s", &addr, "-j"]),
        1 => s(&["-A", "MISSING", "-s", &addr, "-j", "ACCEPT"]),
        _ => s(&["-N", "C"]),
    };
    (args, Some(i % 3))
}

/// A finished process's exit code, stdout and stderr.
fn outcome(child: Child) -> (Option<i32>, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn spawn_piped(bin: &str, args: &[String], direct: bool) -> Child {
    let mut c = Command::new(bin);
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    if direct {
        c.env("IPTNL_DIRECT", "1");
    }
    c.spawn().unwrap()
}

/// 500 processes at once through one server, a tenth of them invalid: every valid one
/// succeeds and its rule lands once; every invalid one gets exactly what it gets when run
/// by itself (iptables' message and exit code), whatever its neighbours.
#[test]
fn a_crowd_with_bad_commands_fails_only_the_bad_ones() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        common::run(&ipt, &["-N", "C"]);
        // What each invalid kind gets when run by itself (its words name no address).
        let alone: Vec<_> = [7, 17, 27]
            .into_iter()
            .map(|i| {
                let (args, kind) = crowd_command(i);
                (kind.unwrap(), outcome(spawn_piped(&ipt, &args, true)))
            })
            .collect();
        for (kind, (code, _, err)) in &alone {
            assert!(
                *code != Some(0) && !err.is_empty(),
                "kind {kind}: {code:?} {err}"
            );
        }
        let server = common::Server::start(BIN);
        let children: Vec<_> = (0..500)
            .map(|i| {
                let (args, kind) = crowd_command(i);
                (i, kind, spawn_piped(&ipt, &args, false))
            })
            .collect();
        for (i, kind, child) in children {
            let got = outcome(child);
            match kind {
                Some(k) => {
                    let want = &alone.iter().find(|a| a.0 == k).unwrap().1;
                    assert_eq!(&got, want, "command {i}");
                }
                None => assert_eq!(got, (Some(0), String::new(), String::new()), "command {i}"),
            }
        }
        let log = server.wait_log("(exit ", 500);
        assert_eq!(served_lines(&log), 500, "{log}");
        let save = common::run("iptables-nft-save", &[]);
        for i in (0..500).filter(|&i| crowd_command(i).1.is_none()) {
            let args = crowd_command(i).0;
            let rule = format!("-A C -s {}/32 -j ACCEPT\n", args[3]);
            assert_eq!(save.matches(&rule).count(), 1, "{rule}");
        }
        assert_eq!(save.matches("-A C ").count(), 450, "{save}");
    });
}

/// The server killed while 200 commands arrive: no command it acknowledged is lost (every
/// client that exited 0 has its rule in the kernel, once), and the clients it had not
/// started run their commands themselves; a client whose command was running when the
/// server died says it may or may not have been applied (exit 4).
#[test]
fn killing_the_server_loses_no_acknowledged_command() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        common::run(&ipt, &["-N", "C"]);
        let server = common::Server::start(BIN);
        let children: Vec<_> = (0..200)
            .map(|i| {
                let addr = format!("10.9.{}.{}", i / 256, i % 256);
                let args = ["-A", "C", "-s", &addr, "-j", "ACCEPT"].map(String::from);
                (addr.clone(), spawn_piped(&ipt, &args, false))
            })
            .collect();
        server.wait_log("(exit 0", 20);
        drop(server);
        let save_of = |addr: &str| format!("-A C -s {addr}/32 -j ACCEPT\n");
        let results: Vec<_> = children.into_iter().map(|(a, c)| (a, outcome(c))).collect();
        let save = common::run("iptables-nft-save", &[]);
        let mut unsure = 0;
        for (addr, (code, _, err)) in &results {
            match code {
                Some(0) => assert_eq!(save.matches(&save_of(addr)).count(), 1, "{addr}"),
                Some(4) => {
                    assert!(err.contains("may or may not have been applied"), "{err}");
                    assert!(save.matches(&save_of(addr)).count() <= 1, "{addr}");
                    unsure += 1;
                }
                other => panic!("{addr}: exit {other:?}: {err}"),
            }
        }
        assert!(unsure < 200, "every command was in flight");
    });
}

/// The user the impostor runs as: `nobody`, no privileges.
const NOBODY: u32 = 65534;

/// What the impostor runs: it binds `@iptnl`, says "ready", and answers every request with
/// "running", exit 0 and the output `impostor`; after each connection it prints how many
/// bytes the client sent (`got N`).
const IMPOSTOR: &str = r#"
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0iptnl")
s.listen(16)
print("ready", flush=True)
out = b"impostor\n"
reply = (b"IPTNL-SERVE/1\x00" + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")
         + b"\x01" + len(out).to_bytes(4, "little") + out)
while True:
    c, _ = s.accept()
    got = 0
    try:
        c.settimeout(5)
        b = c.recv(65536)
        got = len(b)
        if b:
            c.sendall(reply)
            while b:
                b = c.recv(65536)
                got += len(b)
    except OSError:
        pass
    c.close()
    print("got", got, flush=True)
"#;

/// An unprivileged process holding `@iptnl` in the calling thread's network namespace,
/// killed when dropped.
struct Impostor {
    child: Child,
    stdout: BufReader<ChildStdout>,
}

impl Impostor {
    /// Starts `script` (such as [`IMPOSTOR`]) with `python` as uid and gid [`NOBODY`] and
    /// waits until it says it listens.
    fn start(python: &str, script: &str) -> Impostor {
        let mut child = Command::new(python)
            .args(["-c", script])
            .uid(NOBODY)
            .gid(NOBODY)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut imp = Impostor { child, stdout };
        assert_eq!(imp.line(), "ready");
        imp
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The impostor's next line (after a connection: `got N`).
    fn line(&mut self) -> String {
        let mut l = String::new();
        self.stdout.read_line(&mut l).unwrap();
        l.trim_end().to_owned()
    }
}

impl Drop for Impostor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A python3 that an unprivileged user can run (not a shim under /root).
fn python_for_nobody() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

/// An unprivileged process that took `@iptnl` first is never handed a root command: the
/// command runs by itself, exactly as in direct mode, with a warning naming the impostor's
/// uid and pid; `iptnl serve` says who holds the name and exits 1. Only the impostor's own
/// user trusts it (it can fool nobody else). Once it is gone, the real server is trusted.
#[test]
fn an_impostor_server_is_never_trusted() {
    let Some(python) = python_for_nobody() else {
        eprintln!("skipping: no python3 outside /root for the unprivileged impostor");
        return;
    };
    let t = tools();
    let (ipt, ip6t) = (t.path("iptables"), t.path("ip6tables"));
    common::in_netns(|| {
        let mut imp = Impostor::start(python, IMPOSTOR);
        let warning = format!(
            "ignoring the iptnl server on @iptnl: it runs as uid {NOBODY} (pid {}), not as root; \
             running the command directly\n",
            imp.pid()
        );

        let o = Command::new(&ipt)
            .args(["-A", "INPUT", "-s", "1.2.3.4", "-j", "ACCEPT"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert!(o.stdout.is_empty(), "{o:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("iptables: {warning}")
        );
        assert_eq!(imp.line(), "got 0", "the impostor was sent the command");
        let save = common::run("iptables-nft-save", &[]);
        assert!(
            save.contains("-A INPUT -s 1.2.3.4/32 -j ACCEPT\n"),
            "{save}"
        );

        // A failing command: the same exit code and output as in direct mode, warning first.
        let args = ["-C", "INPUT", "-s", "5.6.7.8", "-j", "ACCEPT"];
        let o = Command::new(&ipt).args(args).output().unwrap();
        assert_eq!(imp.line(), "got 0");
        let direct = Command::new(&ipt)
            .args(args)
            .env("IPTNL_DIRECT", "1")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        assert_eq!(o.status.code(), direct.status.code());
        assert_eq!(o.stdout, direct.stdout);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "iptables: {warning}{}",
                String::from_utf8_lossy(&direct.stderr)
            )
        );

        let o = Command::new(&ip6t).args(["-S", "INPUT"]).output().unwrap();
        assert_eq!(imp.line(), "got 0");
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "-P INPUT ACCEPT\n");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("ip6tables: {warning}")
        );

        // The real server cannot start, and says who holds the name.
        let second = common::run_status(BIN, &["serve"], None);
        assert_eq!(imp.line(), "got 0");
        assert_eq!(second.status.code(), Some(1), "{second:?}");
        let why = String::from_utf8_lossy(&second.stderr);
        assert!(
            why.contains("the socket name @iptnl is already taken in this network namespace")
                && why.contains(&format!("by pid {}, uid {NOBODY}", imp.pid()))
                && why.contains("another server, or an impostor, holds it"),
            "{why}"
        );
        assert!(second.stdout.is_empty(), "{second:?}");

        // Its own user trusts it: the impostor answers, and fools only that user.
        let o = Command::new(&ipt)
            .args(["-S"])
            .uid(NOBODY)
            .gid(NOBODY)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "impostor\n");
        assert!(o.stderr.is_empty(), "{o:?}");
        assert_ne!(imp.line(), "got 0");

        // Gone, it leaves the name to the real server, which is trusted.
        drop(imp);
        let server = common::Server::start(BIN);
        let o = Command::new(&ipt)
            .args(["-C", "INPUT", "-s", "1.2.3.4", "-j", "ACCEPT"])
            .output()
            .unwrap();
        assert!(o.status.success() && o.stderr.is_empty(), "{o:?}");
        served(&server, 1);
    });
}

/// An unprivileged process that binds `@iptnl` and never accepts (its backlog fills at
/// once) holds up no command for more than about a second: each runs by itself and lands.
#[test]
fn an_impostor_that_never_accepts_holds_up_nothing() {
    let Some(python) = python_for_nobody() else {
        eprintln!("skipping: no python3 outside /root for the unprivileged impostor");
        return;
    };
    let script = "import socket, time\n\
                  s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n\
                  s.bind('\\0iptnl')\n\
                  s.listen(0)\n\
                  print('ready', flush=True)\n\
                  time.sleep(600)\n";
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        let imp = Impostor::start(python, script);
        let mut timed_out = 0;
        for i in 1..=3 {
            let start = std::time::Instant::now();
            let o = Command::new(&ipt)
                .args(["-A", "INPUT", "-s", &format!("10.9.9.{i}"), "-j", "ACCEPT"])
                .output()
                .unwrap();
            assert!(start.elapsed() < std::time::Duration::from_secs(5), "{o:?}");
            assert_eq!(o.status.code(), Some(0), "{o:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            if err.contains("accepted no connection within 1 s; running the command directly") {
                timed_out += 1;
            } else {
                let pid = format!("uid {NOBODY} (pid {}), not as root", imp.pid());
                assert!(err.contains(&pid), "{err}");
            }
        }
        assert!(timed_out >= 2, "{timed_out}");
        let save = common::run("iptables-nft-save", &[]);
        for i in 1..=3 {
            let rule = format!("-A INPUT -s 10.9.9.{i}/32 -j ACCEPT\n");
            assert!(save.contains(&rule), "{save}");
        }
        let second = common::run_status(BIN, &["serve"], None);
        assert_eq!(second.status.code(), Some(1), "{second:?}");
        let why = String::from_utf8_lossy(&second.stderr);
        assert!(
            why.contains("@iptnl is already taken") && why.contains("accepted no connection"),
            "{why}"
        );
    });
}

/// A big listing (over the size the server sends as a file) prints the same served and
/// direct, whether standard output is a pipe, a regular file, or a pipe closed after its
/// first line; the server's answers to commands after it are unchanged.
#[test]
fn big_listings_print_the_same_served_and_direct() {
    let t = tools();
    let ipt = t.path("iptables");
    common::in_netns(|| {
        // About 400 KiB of `-S` text.
        let mut input = String::from("*filter\n:BIG - [0:0]\n");
        for i in 0..6000 {
            input.push_str(&format!(
                "-A BIG -s 10.{}.{}.0/24 -p tcp -m tcp --dport {} -m comment --comment \"a rule that makes the listing long {i}\" -j ACCEPT\n",
                i / 256,
                i % 256,
                1 + i % 60000,
            ));
        }
        input.push_str("COMMIT\n");
        let o = common::run_status(BIN, &["iptables-restore"], Some(&input));
        assert!(o.status.success(), "{o:?}");
        let direct = |args: &[&str]| {
            let o = Command::new(&ipt)
                .args(args)
                .env("IPTNL_DIRECT", "1")
                .output()
                .unwrap();
            assert!(o.status.success(), "{o:?}");
            String::from_utf8(o.stdout).unwrap()
        };
        let want = direct(&["-S"]);
        assert!(want.len() > 400_000, "{}", want.len());
        let server = common::Server::start(BIN);
        // To a pipe: the first listing in the server's handle, a second from its cache.
        for _ in 0..2 {
            assert_eq!(common::run(&ipt, &["-S"]), want);
        }
        // To a regular file (no splice), twice.
        let dir = std::env::temp_dir().join(format!("iptnl-serve-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..2 {
            let path = dir.join(format!("out{i}"));
            let o = Command::new("sh")
                .args(["-c", &format!("exec \"$0\" -S > {}", path.display()), &ipt])
                .output()
                .unwrap();
            assert!(o.status.success(), "{o:?}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
        }
        // A pipe closed after the first line: no error, exit 0.
        let mut child = Command::new(&ipt)
            .arg("-S")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert_eq!(first, "-P INPUT ACCEPT\n");
        let (code, _, err) = outcome(child);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.is_empty(), "{err}");
        // After a change, the new listing.
        common::run(&ipt, &["-A", "BIG", "-j", "DROP"]);
        let changed = common::run(&ipt, &["-S"]);
        assert_eq!(changed, direct(&["-S"]));
        assert!(changed.ends_with("-A BIG -j DROP\n"));
        let _ = std::fs::remove_dir_all(&dir);
        let log = served(&server, 7);
        assert!(!log.contains("reply lost"), "{log}");
    });
}
