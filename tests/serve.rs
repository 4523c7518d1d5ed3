//! `iptnl serve`: the `iptables` name hands its commands to the server of its own network
//! namespace and falls back to running them itself whenever the server is absent, declines,
//! or stops before starting the command. (That served commands print exactly what direct
//! ones print is shown by tests/cli.rs, which runs all its sequences both ways.)

mod common;

use std::io::{Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixStream};

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
        let log = server.stop();
        assert_eq!(served_lines(&log), 1, "{log}");
        common::run(&ipt, &["-N", "B"]);
        let s = common::run("iptables-nft-save", &[]);
        assert!(s.contains(":A - [0:0]") && s.contains(":B - [0:0]"), "{s}");
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
