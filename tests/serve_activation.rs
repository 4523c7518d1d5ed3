//! `iptnl serve` started the way systemd starts a socket-activated service: the listening
//! socket `@iptnl` is opened by the manager and inherited as descriptor 3 (`LISTEN_FDS=1`,
//! `LISTEN_PID` the server's pid). A command that arrives before any server runs waits in
//! the socket's backlog and is served once the server starts; with `--idle-exit` the server
//! exits when idle, and the manager's socket, still listening, starts the next one.

mod common;

use std::os::fd::OwnedFd;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// The server, started by a shell that moves the socket from its standard input to
/// descriptor 3 and sets the variables for its own pid, which `exec` keeps: what systemd
/// does between fork and exec.
fn activate(listener: &UnixListener, extra_env: &[(&str, &str)]) -> common::Server {
    let fd: OwnedFd = listener.try_clone().unwrap().into();
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        r#"exec 3<&0 </dev/null; export LISTEN_FDS=1 LISTEN_PID=$$; exec "$0" serve --verbose --idle-exit 1"#,
        BIN,
    ])
    .stdin(Stdio::from(fd));
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    common::Server::start_command(cmd)
}

fn served_lines(log: &str) -> usize {
    log.lines().filter(|l| l.contains("(exit ")).count()
}

#[test]
fn socket_activated_server_serves_and_exits_when_idle() {
    let t = common::ToolLinks::new("iptnl-activation", &["iptables"]);
    let ipt = t.path("iptables");
    common::in_netns(|| {
        // The manager's socket: nothing accepts on it yet.
        let addr = SocketAddr::from_abstract_name(b"iptnl").unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        // The first command connects and waits in the backlog until a server starts.
        let early = {
            let ipt = ipt.clone();
            std::thread::spawn(move || common::run_status(&ipt, &["-N", "EARLY"], None))
        };
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !early.is_finished(),
            "the command did not wait for the server"
        );
        let server = activate(&listener, &[]);
        let o = early.join().unwrap();
        assert!(o.status.success(), "{o:?}");
        // It takes the socket it was given instead of binding one (which would fail: the
        // name is taken) and serves every command.
        common::run(&ipt, &["-A", "EARLY", "-j", "ACCEPT"]);
        let s = common::run(&ipt, &["-S", "EARLY"]);
        assert_eq!(s, "-N EARLY\n-A EARLY -j ACCEPT\n");
        let log = server.wait_log("(exit ", 3);
        assert_eq!(served_lines(&log), 3, "{log}");
        // Idle for a second: it exits by itself, with 0.
        let t0 = Instant::now();
        let (code, log) = server.wait_exit();
        assert_eq!(code, Some(0), "{log}");
        assert!(log.contains("no command for 1 s: exiting"), "{log}");
        assert!(t0.elapsed() < Duration::from_secs(10), "{log}");
        // The manager's socket still listens: a command arriving now waits, and the next
        // server started on the socket serves it.
        let late = {
            let ipt = ipt.clone();
            std::thread::spawn(move || common::run_status(&ipt, &["-N", "LATE"], None))
        };
        std::thread::sleep(Duration::from_millis(200));
        let server = activate(&listener, &[]);
        let o = late.join().unwrap();
        assert!(o.status.success(), "{o:?}");
        let log = server.wait_log("(exit ", 1);
        assert!(log.contains("-N LATE"), "{log}");
        let s = common::run("iptables-nft-save", &[]);
        assert!(
            s.contains(":EARLY - [0:0]") && s.contains(":LATE - [0:0]"),
            "{s}"
        );
    });
}

/// A socket meant for another process (`LISTEN_PID` not the server's) is not taken: the
/// server binds its own name, and here finds it taken by the manager's socket.
#[test]
fn a_socket_for_another_pid_is_not_taken() {
    common::in_netns(|| {
        let addr = SocketAddr::from_abstract_name(b"iptnl").unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        let fd: OwnedFd = listener.try_clone().unwrap().into();
        let o = Command::new("sh")
            .args([
                "-c",
                r#"exec 3<&0 </dev/null; export LISTEN_FDS=1 LISTEN_PID=1; exec "$0" serve"#,
                BIN,
            ])
            .stdin(Stdio::from(fd))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        let why = String::from_utf8_lossy(&o.stderr);
        assert!(why.contains("@iptnl is already taken"), "{why}");
    });
}

/// A socket on another name is refused with the unit setting that fixes it.
#[test]
fn a_socket_on_another_name_is_refused() {
    common::in_netns(|| {
        let addr = SocketAddr::from_abstract_name(b"not-iptnl").unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        let fd: OwnedFd = listener.try_clone().unwrap().into();
        let o = Command::new("sh")
            .args([
                "-c",
                r#"exec 3<&0 </dev/null; export LISTEN_FDS=1 LISTEN_PID=$$; exec "$0" serve"#,
                BIN,
            ])
            .stdin(Stdio::from(fd))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        let why = String::from_utf8_lossy(&o.stderr);
        assert!(
            why.contains("listens on @not-iptnl, not on @iptnl")
                && why.contains("ListenStream=@iptnl"),
            "{why}"
        );
    });
}
