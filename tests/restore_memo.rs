//! A handle (and so `iptnl serve`) remembers the last restore it applied: the same input
//! again, with nothing changed since, is answered without a parse or a read and commits
//! nothing. Each sequence of restores and outside changes below runs three ways in fresh
//! namespaces: `iptables-nft-restore` (the oracle), the `iptables-restore` name through
//! `iptnl serve`, and one `IpTables` handle; after every step the ruleset is the oracle's,
//! and the served tool prints what a direct run prints.

mod common;

use std::process::{Command, Stdio};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::RestoreOptions;
use iptnl::iptables::IpTables;

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// A step of a sequence.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// `iptables-restore` with options and input; `true` when the handle must answer it
    /// from its memo.
    Restore(&'static [&'static str], &'static str, bool),
    /// An outside change, by iptables-nft.
    Outside(&'static [&'static str]),
}

use Step::{Outside, Restore};

const FULL: &str = "*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:SVC - [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -j SVC
-A SVC -s 10.0.0.0/8 -m comment --comment \"svc a\" -j ACCEPT
-A SVC -j RETURN
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-A - [0:0]
-A PREROUTING -j KUBE-SERVICES
-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-A
-A KUBE-SVC-A -p tcp -j DNAT --to-destination 192.168.0.1:6443
COMMIT
";

/// FULL with one rule changed.
const CHANGED: &str = "*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:SVC - [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -j SVC
-A SVC -s 10.0.0.0/8 -m comment --comment \"svc b\" -j ACCEPT
-A SVC -j RETURN
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-A - [0:0]
-A PREROUTING -j KUBE-SERVICES
-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-A
-A KUBE-SVC-A -p tcp -j DNAT --to-destination 192.168.0.1:6443
COMMIT
";

/// A kube-proxy-style partial sync: with `--noflush`, chains declared and refilled.
const SYNC: &str = "*nat
:KUBE-SERVICES - [0:0]
:KUBE-SVC-B - [0:0]
-A KUBE-SERVICES -d 10.96.0.2/32 -p udp -m udp --dport 53 -j KUBE-SVC-B
-A KUBE-SVC-B -p udp -j DNAT --to-destination 192.168.0.2:53
COMMIT
";

/// With `--noflush`, an append to a chain the input does not empty: each run adds a copy.
const APPEND: &str = "*filter
-A INPUT -s 192.0.2.1/32 -j DROP
COMMIT
";

/// Deletes a rule FULL has: the second run has nothing to delete.
const DELETE: &str = "*filter
-D SVC -j RETURN
COMMIT
";

/// A line the kernel cannot take.
const BAD: &str = "*filter
:INPUT ACCEPT [0:0]
-A INPUT -j NOSUCHCHAIN
COMMIT
";

const SEQUENCES: &[&[Step]] = &[
    &[
        Restore(&[], FULL, false),
        Restore(&[], FULL, true),
        Restore(&[], FULL, true),
        Outside(&["-A", "INPUT", "-j", "DROP"]),
        Restore(&[], FULL, false),
        Restore(&[], FULL, true),
        Outside(&["-t", "nat", "-N", "OTHER"]),
        Restore(&[], FULL, false),
        Restore(&[], FULL, true),
    ],
    &[
        Restore(&[], FULL, false),
        Restore(&[], CHANGED, false),
        Restore(&[], CHANGED, true),
        Restore(&[], FULL, false),
        // Its appends to built-in chains add copies each time.
        Restore(&["--noflush"], FULL, false),
        Restore(&["--noflush"], FULL, false),
        Restore(&["-n"], SYNC, false),
        Restore(&["-n"], SYNC, true),
        Outside(&["-t", "nat", "-A", "KUBE-SVC-B", "-j", "RETURN"]),
        Restore(&["-n"], SYNC, false),
        Restore(&["-n"], SYNC, true),
        // As kube-proxy restores: --noflush --counters, user chains only.
        Restore(&["-n", "-c"], SYNC, false),
        Restore(&["-n", "-c"], SYNC, true),
        Outside(&["-t", "nat", "-I", "KUBE-SERVICES", "-j", "RETURN"]),
        Restore(&["-n", "-c"], SYNC, false),
        Restore(&["-n", "-c"], SYNC, true),
    ],
    &[
        Restore(&[], FULL, false),
        Restore(&["--noflush"], APPEND, false),
        Restore(&["--noflush"], APPEND, false),
        Restore(&["--noflush"], DELETE, false),
        Restore(&["--noflush"], DELETE, false),
        Restore(&[], BAD, false),
        Restore(&[], BAD, false),
        Restore(&["--test"], CHANGED, false),
        Restore(&["--test"], CHANGED, false),
        // With --counters, built-in chain lines set the chains' counters again each time.
        Restore(&["-c"], FULL, false),
        Restore(&["-c"], FULL, false),
        Restore(&["-v"], FULL, false),
        Restore(&["-v"], FULL, false),
        Restore(&["-T", "nat"], FULL, false),
        Restore(&["-T", "nat"], FULL, true),
    ],
];

fn save() -> String {
    let s = common::run("iptables-nft-save", &[]);
    s.lines()
        .filter(|l| !l.starts_with("# "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn outside(args: &[&str]) {
    let o = common::run_status("iptables-nft", args, None);
    assert!(o.status.success(), "{args:?}: {o:?}");
}

/// The restore tool `bin` (with `env`), fed `input`: stdout, stderr, exit code.
fn restore_tool(
    bin: &str,
    env: &[(&str, &str)],
    args: &[&str],
    input: &str,
) -> (String, String, Option<i32>) {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

fn opts_of(args: &[&str]) -> RestoreOptions {
    let mut o = RestoreOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--noflush" | "-n" => o.noflush = true,
            "--test" | "-t" => o.test = true,
            "-c" | "--counters" => o.counters = true,
            "-v" | "--verbose" => o.verbose = true,
            "-T" | "--table" => o.table = it.next().map(|t| t.to_string()),
            other => panic!("option {other} not handled here"),
        }
    }
    o
}

fn genid() -> u32 {
    iptnl::netlink::Conn::open().unwrap().genid().unwrap()
}

#[test]
fn the_same_restore_again_is_answered_from_memory_and_ends_as_the_oracle() {
    let links = common::ToolLinks::new("iptnl-restore-memo", &["iptables-restore"]);
    let tool = links.path("iptables-restore");
    for (s, seq) in SEQUENCES.iter().enumerate() {
        // The oracle: exit code and ruleset after each step.
        let oracle: Vec<(Option<i32>, String)> = common::in_netns(|| {
            seq.iter()
                .filter_map(|step| match *step {
                    Restore(args, input, _) => {
                        let (_, _, code) = restore_tool("iptables-nft-restore", &[], args, input);
                        Some((code, save()))
                    }
                    Outside(args) => {
                        outside(args);
                        None
                    }
                })
                .collect()
        });
        // iptnl, direct: stdout, stderr and exit code of each restore.
        let direct: Vec<(String, String, Option<i32>)> = common::in_netns(|| {
            seq.iter()
                .filter_map(|step| match *step {
                    Restore(args, input, _) => {
                        Some(restore_tool(&tool, &[("IPTNL_DIRECT", "1")], args, input))
                    }
                    Outside(args) => {
                        outside(args);
                        None
                    }
                })
                .collect()
        });
        // iptnl, served: the same output as direct, the oracle's ruleset.
        common::in_netns(|| {
            let server = common::Server::start(BIN);
            let mut k = 0;
            for (i, step) in seq.iter().enumerate() {
                match *step {
                    Restore(args, input, _) => {
                        let got = restore_tool(&tool, &[], args, input);
                        assert_eq!(got, direct[k], "sequence {s}, step {i}, served");
                        assert_eq!(got.2, oracle[k].0, "sequence {s}, step {i}: exit code");
                        assert_eq!(save(), oracle[k].1, "sequence {s}, step {i}, served");
                        k += 1;
                    }
                    Outside(args) => outside(args),
                }
            }
            let log = server.stop();
            assert_eq!(
                log.lines().filter(|l| l.contains("(exit ")).count(),
                k,
                "every restore was served: {log}"
            );
        });
        // One handle: the oracle's ruleset; answered from its memory exactly when marked,
        // and then without a commit.
        common::in_netns(|| {
            let h = IpTables::new(IpFamily::V4).unwrap();
            let mut k = 0;
            for (i, step) in seq.iter().enumerate() {
                match *step {
                    Restore(args, input, remembered) => {
                        let before = genid();
                        let r = h.try_restore(input, &opts_of(args));
                        let ok = oracle[k].0 == Some(0);
                        assert_eq!(r.is_ok(), ok, "sequence {s}, step {i}: {r:?}");
                        if let Ok(r) = &r {
                            assert_eq!(r.remembered, remembered, "sequence {s}, step {i}");
                            if remembered {
                                assert_eq!(genid(), before, "sequence {s}, step {i}");
                                assert_eq!(r.generation, Some(before));
                            }
                        }
                        assert_eq!(save(), oracle[k].1, "sequence {s}, step {i}, handle");
                        k += 1;
                    }
                    Outside(args) => outside(args),
                }
            }
        });
    }
}
