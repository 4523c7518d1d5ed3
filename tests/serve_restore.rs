//! `iptables-restore` through `iptnl serve`: the restore tools hand their command line and
//! their input (standard input or the named file, read by the client) to the server of their
//! network namespace, which runs the restore on its own connection. A served restore prints
//! exactly what a direct one prints and leaves the same ruleset; it runs beside commands the
//! server commits meanwhile without failing any of them; and without a server the tools run
//! by themselves.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

fn tools() -> common::ToolLinks {
    common::ToolLinks::new(
        "iptnl-serve-restore",
        &[
            "iptables",
            "iptables-restore",
            "ip6tables-restore",
            "iptables-nft-restore",
        ],
    )
}

/// How a case hands its input to the tool.
#[derive(Clone, Copy, Debug)]
enum Via {
    /// Standard input redirected from a regular file.
    StdinFile,
    /// Standard input from a pipe.
    Pipe,
    /// The file named on the command line.
    Operand,
}

struct Case {
    tool: &'static str,
    args: &'static [&'static str],
    via: Via,
    setup: &'static str,
    input: &'static str,
}

/// stdout, stderr, exit code, and the ruleset after (`iptables-nft-save` and
/// `ip6tables-nft-save`, without their date lines).
type Seen = (String, String, Option<i32>, String);

fn without_dates(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("# "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn run_case(t: &common::ToolLinks, c: &Case, i: usize, served: bool) -> Seen {
    common::in_netns(|| {
        let server = served.then(|| common::Server::start(BIN));
        if !c.setup.is_empty() {
            let o = common::run_status("iptables-nft-restore", &[], Some(c.setup));
            assert!(o.status.success(), "setup of case {i}: {o:?}");
        }
        let file = t.file(&format!("case{i}-{served}.rules"), c.input);
        let mut cmd = Command::new(t.path(c.tool));
        cmd.args(c.args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !served {
            cmd.env("IPTNL_DIRECT", "1");
        }
        match c.via {
            Via::StdinFile => {
                cmd.stdin(std::fs::File::open(&file).unwrap());
            }
            Via::Pipe => {
                cmd.stdin(Stdio::piped());
            }
            Via::Operand => {
                cmd.arg(&file).stdin(Stdio::null());
            }
        }
        let mut child = cmd.spawn().unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            if matches!(c.via, Via::Pipe) {
                stdin.write_all(c.input.as_bytes()).unwrap();
            }
        }
        let o = child.wait_with_output().unwrap();
        if let Some(server) = server {
            // The server logs each command it ran just after answering it.
            let log = server.wait_log("(exit ", 1);
            assert!(
                log.lines()
                    .any(|l| l.contains(&format!("iptnl serve: {} ", c.tool))
                        || l.contains(&format!("iptnl serve: {} (", c.tool))),
                "case {i} was not served:\n{log}"
            );
        }
        let save = format!(
            "{}\n{}",
            without_dates(&common::run("iptables-nft-save", &[])),
            without_dates(&common::run("ip6tables-nft-save", &[]))
        );
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
            o.status.code(),
            save,
        )
    })
}

const BASE: &str = "*filter\n:INPUT ACCEPT [0:0]\n:KEEP - [0:0]\n-A KEEP -s 10.9.9.9/32 -j DROP\n\
-A INPUT -j KEEP\nCOMMIT\n*nat\n:PREROUTING ACCEPT [0:0]\n:SVC - [0:0]\n\
-A SVC -p tcp --dport 80 -j DNAT --to-destination 10.1.1.1:8080\nCOMMIT\n";

const CASES: &[Case] = &[
    // A full restore, verbose, of a table the kernel has.
    Case {
        tool: "iptables-restore",
        args: &["-v"],
        via: Via::StdinFile,
        setup: BASE,
        input: "*filter\n:INPUT DROP [0:0]\n:NEW - [0:0]\n-A NEW -s 10.0.0.1/32 -j ACCEPT\n\
-A INPUT -j NEW\n-A INPUT -p tcp -m multiport --dports 22,80 -j ACCEPT\nCOMMIT\n",
    },
    // --noflush from a pipe: the chain line refills KEEP, the rest is appended.
    Case {
        tool: "iptables-restore",
        args: &["--noflush"],
        via: Via::Pipe,
        setup: BASE,
        input: "*filter\n:KEEP - [0:0]\n-A KEEP -s 10.9.9.9/32 -j DROP\n\
-A KEEP -s 10.8.8.8/32 -j DROP\n-A INPUT -i lo -j ACCEPT\nCOMMIT\n",
    },
    // The file named on the command line, two tables, counters.
    Case {
        tool: "iptables-restore",
        args: &["-c"],
        via: Via::Operand,
        setup: "",
        input: "*nat\n:POSTROUTING ACCEPT [5:300]\n[7:420] -A POSTROUTING -o eth0 -j MASQUERADE\n\
COMMIT\n*filter\n:FORWARD DROP [0:0]\nCOMMIT\n",
    },
    // -T: only the nat table of the input.
    Case {
        tool: "iptables-restore",
        args: &["-T", "nat"],
        via: Via::StdinFile,
        setup: BASE,
        input: "*filter\n:ONLY-FILTER - [0:0]\nCOMMIT\n*nat\n:SVC - [0:0]\n\
-A SVC -p udp --dport 53 -j DNAT --to-destination 10.2.2.2\nCOMMIT\n",
    },
    // A parameter problem on line 3: nothing is applied.
    Case {
        tool: "iptables-restore",
        args: &[],
        via: Via::Pipe,
        setup: BASE,
        input: "*filter\n:X - [0:0]\n-A X -p tcp --bogus 1 -j ACCEPT\nCOMMIT\n",
    },
    // A chain that does not exist, with --noflush.
    Case {
        tool: "iptables-restore",
        args: &["--noflush"],
        via: Via::StdinFile,
        setup: BASE,
        input: "*filter\n-A NOPE -j ACCEPT\nCOMMIT\n",
    },
    // A jump to a chain that does not exist (found when the table commits).
    Case {
        tool: "iptables-restore",
        args: &[],
        via: Via::Operand,
        setup: BASE,
        input: "*filter\n:A - [0:0]\n-A A -j MISSING\nCOMMIT\n",
    },
    // --test: checked, not applied.
    Case {
        tool: "iptables-restore",
        args: &["--test"],
        via: Via::Pipe,
        setup: BASE,
        input: "*filter\n:T - [0:0]\n-A T -j ACCEPT\nCOMMIT\n",
    },
    // No COMMIT at the end.
    Case {
        tool: "iptables-restore",
        args: &[],
        via: Via::StdinFile,
        setup: BASE,
        input: "*filter\n:T - [0:0]\n-A T -j ACCEPT\n",
    },
    // An empty input.
    Case {
        tool: "iptables-restore",
        args: &[],
        via: Via::Pipe,
        setup: BASE,
        input: "",
    },
    // IPv6, and another name for the tool.
    Case {
        tool: "ip6tables-restore",
        args: &["-v", "--noflush"],
        via: Via::StdinFile,
        setup: "",
        input: "*filter\n:V6 - [0:0]\n-A V6 -s 2001:db8::/32 -p tcp --dport 443 -j ACCEPT\n\
-A INPUT -j V6\nCOMMIT\n",
    },
    Case {
        tool: "iptables-nft-restore",
        args: &[],
        via: Via::StdinFile,
        setup: BASE,
        input: "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment \"a b\" -j ACCEPT\n\
COMMIT\n",
    },
];

#[test]
fn served_restores_print_and_do_what_direct_ones_do() {
    let t = tools();
    for (i, c) in CASES.iter().enumerate() {
        let direct = run_case(&t, c, i, false);
        let served = run_case(&t, c, i, true);
        assert_eq!(
            served, direct,
            "case {i} ({} {:?} via {:?}):\n{}",
            c.tool, c.args, c.via, c.input
        );
    }
}

/// Options that end the command before any input is read (`-h`, `-V`, a bad option, a file
/// that cannot be opened) are answered by the tool itself, as without a server.
#[test]
fn command_line_answers_need_no_server() {
    let t = tools();
    let tool = t.path("iptables-restore");
    for args in [
        &["-h"][..],
        &["-V"],
        &["--bogus"],
        &["/nonexistent/rules"],
        &["a", "b"],
    ] {
        let direct = Command::new(&tool)
            .args(args)
            .env("IPTNL_DIRECT", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let served = common::in_netns(|| {
            let server = common::Server::start(BIN);
            let o = Command::new(&tool)
                .args(args)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!server.log().contains("(exit "), "{args:?} was served");
            o
        });
        assert_eq!(served, direct, "{args:?}");
    }
}

/// A big `--noflush` restore through the server while 40 `iptables -A` run through it at
/// the same time: every command and the restore succeed (none fails because the others
/// changed the ruleset), and the ruleset holds all of them.
#[test]
fn a_restore_beside_concurrent_commands() {
    let t = tools();
    let (ipt, restore) = (t.path("iptables"), t.path("iptables-restore"));
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        common::run(&ipt, &["-N", "CNI"]);
        let mut input = String::from("*filter\n");
        for c in 0..300 {
            input.push_str(&format!(":SVC-{c} - [0:0]\n"));
        }
        for c in 0..300 {
            for r in 0..10 {
                input.push_str(&format!(
                    "-A SVC-{c} -s 10.{}.{}.{r}/32 -j RETURN\n",
                    c / 256,
                    c % 256
                ));
            }
        }
        input.push_str("COMMIT\n");
        let file = t.file("big.rules", &input);
        let appends: Vec<_> = (0..40)
            .map(|i| {
                Command::new(&ipt)
                    .args(["-A", "CNI", "-s", &format!("10.200.0.{i}"), "-j", "ACCEPT"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let restores: Vec<_> = (0..2)
            .map(|_| {
                Command::new(&restore)
                    .args(["--noflush", &file])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in appends.into_iter().chain(restores) {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{o:?}");
        }
        let save = common::run("iptables-nft-save", &[]);
        for i in 0..40 {
            let rule = format!("-A CNI -s 10.200.0.{i}/32 -j ACCEPT\n");
            assert_eq!(save.matches(&rule).count(), 1, "{rule}");
        }
        assert_eq!(save.matches("-j RETURN").count(), 3000);
        let log = server.wait_log("(exit 0", 43);
        assert_eq!(
            log.lines()
                .filter(|l| l.contains("iptnl serve: iptables-restore --noflush")
                    && l.contains("(exit 0"))
                .count(),
            2,
            "{log}"
        );
    });
}

/// Without a server, or when it is gone, the restore runs by itself; a stopped server's
/// name is free again.
#[test]
fn restores_run_by_themselves_without_a_server() {
    let t = tools();
    let restore = t.path("iptables-restore");
    common::in_netns(|| {
        let server = common::Server::start(BIN);
        let o = common::run_status(
            &restore,
            &["--noflush"],
            Some("*filter\n:ONE - [0:0]\nCOMMIT\n"),
        );
        assert!(o.status.success(), "{o:?}");
        // The server logs a request after it answered it: wait for the line, or a stop
        // (SIGKILL) may cut it.
        server.wait_log("(exit 0", 1);
        let log = server.stop();
        assert!(
            log.contains("iptnl serve: iptables-restore --noflush"),
            "{log}"
        );
        let o = common::run_status(
            &restore,
            &["--noflush"],
            Some("*filter\n:TWO - [0:0]\nCOMMIT\n"),
        );
        assert!(o.status.success(), "{o:?}");
        let save = common::run("iptables-nft-save", &[]);
        assert!(
            save.contains(":ONE - ") && save.contains(":TWO - "),
            "{save}"
        );
    });
}
