//! The `iptnl` binary under the names `iptables` / `ip6tables` against the real
//! iptables-nft / ip6tables-nft 1.8.9: sequences of commands, each sequence run once through
//! the oracle and once through iptnl, each in its own fresh network namespace; every step
//! must give the same stdout, the same stderr (after replacing the program version) and the
//! same exit code. iptnl runs every sequence twice: each command by itself, and each handed
//! to an `iptnl serve` running in the sequence's namespace (one server, one kept-open handle
//! and cache for the whole sequence). The sequences, and the helpers that run one, are in
//! `common/cli_seqs.rs`.

#[path = "common/cli_seqs.rs"]
mod cli_seqs;
mod common;

use cli_seqs::*;

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// Runs every sequence through the oracle and through iptnl, each in a fresh namespace
/// with the `setup` commands run first, and returns the differences.
fn compare_with(v6: bool, setup: &[&[&str]], seqs: &[&str]) -> Vec<String> {
    let tools = tools();
    let (oracle, ours) = if v6 {
        ("ip6tables-nft", tools.path("ip6tables"))
    } else {
        ("iptables-nft", tools.path("iptables"))
    };
    let mut diffs = Vec::new();
    for seq in seqs {
        if let Some(why) = common::unmapped_owner_ids(seq) {
            common::skip(&format!("sequence {seq:?}"), &why);
            continue;
        }
        let lines = parse_seq(seq);
        let mut want = run_seq(oracle, setup, &lines, false);
        for w in &mut want {
            w.0 = protocols_as_1_8_11(&w.0);
        }
        // iptnl run by itself, and the same commands handed to `iptnl serve`.
        for served in [false, true] {
            let got = run_seq(&ours, setup, &lines, served);
            let who = if served { "iptnl (served)" } else { "iptnl" };
            for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                if w != g {
                    diffs.push(format!(
                        "sequence {seq:?}\n  step {}: {:?}\n  oracle: rc={} out={:?} err={:?}\n  {who}:  rc={} out={:?} err={:?}",
                        i + 1,
                        lines[i],
                        w.2,
                        w.0,
                        w.1,
                        g.2,
                        g.0,
                        g.1
                    ));
                    break;
                }
            }
        }
    }
    diffs
}

fn check(v6: bool, seqs: &[&str]) {
    check_with(v6, &[], seqs)
}

fn check_with(v6: bool, setup: &[&[&str]], seqs: &[&str]) {
    if !common::have(if v6 { "ip6tables-nft" } else { "iptables-nft" }) {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    let diffs = compare_with(v6, setup, seqs);
    assert!(
        diffs.is_empty(),
        "{} of {} sequences differ:\n{}",
        diffs.len(),
        seqs.len(),
        diffs.join("\n")
    );
}

#[test]
fn rules_match_iptables_nft() {
    check(false, RULES);
}

#[test]
fn chains_match_iptables_nft() {
    check(false, CHAINS);
}

#[test]
fn listing_matches_iptables_nft() {
    check(false, LISTING);
}

#[test]
fn usage_errors_match_iptables_nft() {
    check(false, USAGE);
}

#[test]
fn list_matches_iptables_nft() {
    check(false, LIST_L);
}

#[test]
fn list_extensions_match_iptables_nft() {
    check(false, LIST_EXT);
}

#[test]
fn list_extensions_in_tables_match_iptables_nft() {
    check(false, LIST_EXT_TABLES);
}

#[test]
fn list_sets_match_iptables_nft() {
    if !common::have("ipset") {
        eprintln!("ipset is not installed: skipped");
        return;
    }
    check_with(false, LIST_SETS_SETUP, LIST_SETS);
}

#[test]
fn ip6tables_list_extensions_match_ip6tables_nft() {
    check(true, LIST_EXT6);
}

#[test]
fn list_more_extensions_match_iptables_nft() {
    check(false, LIST_EXT_MORE);
}

#[test]
fn ip6tables_list_more_extensions_match_ip6tables_nft() {
    check(true, LIST_EXT6_MORE);
}

#[test]
fn go_iptables_calls_match_iptables_nft() {
    check(false, GO_IPTABLES);
}

#[test]
fn verbose_matches_iptables_nft() {
    check(false, VERBOSE);
}

#[test]
fn ip6tables_matches_ip6tables_nft() {
    check(true, V6);
}

/// `-V` as go-iptables reads it: `v(\d+)\.(\d+)\.(\d+)` and `(nf_tables)`.
#[test]
fn version_line_for_go_iptables() {
    let tools = tools();
    let o = common::run_status(&tools.path("iptables"), &["--version"], None);
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success());
    assert!(s.starts_with("iptables v1.8.11 (nf_tables)"), "{s}");
    assert!(s.contains(&format!("(iptnl {})", env!("CARGO_PKG_VERSION"))));
    let o = common::run_status(&tools.path("ip6tables-nft"), &["-V"], None);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("ip6tables v1.8.11 (nf_tables)"));
}

/// The same command under every name: `iptables`, `iptables-nft`, `iptnl iptables`,
/// `xtables-nft-multi iptables` (and the ip6tables forms).
#[test]
fn multi_call_names() {
    let tools = tools();
    common::in_netns(|| {
        let ok = |bin: &str, args: &[&str]| {
            let o = common::run_status(bin, args, None);
            assert!(
                o.status.success(),
                "{bin} {args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        ok(&tools.path("iptables"), &["-N", "A"]);
        ok(&tools.path("iptables-nft"), &["-A", "A", "-j", "ACCEPT"]);
        ok(BIN, &["iptables", "-A", "A", "-j", "DROP"]);
        ok(
            &tools.path("xtables-nft-multi"),
            &["iptables-nft", "-A", "A", "-j", "RETURN"],
        );
        ok(BIN, &["ip6tables-nft", "-N", "B6"]);
        ok(&tools.path("ip6tables"), &["-A", "B6", "-j", "ACCEPT"]);
        let want4 = "-N A\n-A A -j ACCEPT\n-A A -j DROP\n-A A -j RETURN\n";
        assert_eq!(
            ok(&tools.path("xtables-nft-multi"), &["iptables", "-S", "A"]),
            want4
        );
        assert_eq!(common::run("iptables-nft", &["-S", "A"]), want4);
        assert_eq!(
            ok(BIN, &["ip6tables", "-S", "B6"]),
            "-N B6\n-A B6 -j ACCEPT\n"
        );
        assert_eq!(
            common::run("ip6tables-nft", &["-S", "B6"]),
            "-N B6\n-A B6 -j ACCEPT\n"
        );
    });
}

/// Without CAP_NET_ADMIN: the same message and exit code 4 as iptables-nft.
#[test]
fn permission_denied_matches_iptables_nft() {
    if !common::have("setpriv") || !common::have("iptables-nft") {
        eprintln!("setpriv or iptables-nft missing: skipped");
        return;
    }
    if !common::uid_mapped(65534) {
        common::skip(
            "permission_denied_matches_iptables_nft",
            "this user namespace does not map uid 65534, which the test switches to",
        );
        return;
    }
    let tools = tools();
    let ours = tools.path("iptables");
    common::in_netns(|| {
        for args in [&["-S"][..], &["-A", "INPUT", "-j", "ACCEPT"][..]] {
            let run = |bin: &str| {
                let mut a = vec![
                    "--reuid",
                    "65534",
                    "--regid",
                    "65534",
                    "--clear-groups",
                    bin,
                ];
                a.extend_from_slice(args);
                step(&common::run_status("setpriv", &a, None))
            };
            let want = run("iptables-nft");
            assert_eq!(want.2, 4, "{want:?}");
            assert_eq!(run(&ours), want, "{args:?}");
            // A root `iptnl serve` declines the other user, who runs the command itself
            // and gets the same refusal from the kernel.
            let server = common::Server::start(BIN);
            assert_eq!(run(&ours), want, "{args:?} with a server");
            let log = server.wait_log("declined: user 65534 is not served", 1);
            assert!(log.contains("declined: user 65534 is not served"), "{log}");
            assert!(!log.contains("(exit "), "{log}");
        }
    });
}

/// The library's `stats` (go-iptables' `Stats`) gives the options column as go-iptables
/// reads it from `iptables -L CHAIN -n -v -x`: the `-L` words, blanks collapsed.
#[test]
fn stats_options_match_iptables_nft_listing() {
    if !common::have("iptables-nft") {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    common::in_netns(|| {
        for r in [
            "-N X",
            "-A INPUT -p tcp --dport 22 -m comment --comment \"a  b\" -j ACCEPT",
            "-A INPUT -p udp -m multiport --dports 53,5353 -m conntrack --ctstate NEW -j LOG --log-prefix x",
            "-A INPUT -m mark ! --mark 0x1/0xff -j REJECT",
            // (with a target: without one, the fields shift by one)
            "-A INPUT -m statistic --mode random --probability 0.25 -j DROP",
            "-A INPUT -p tcp ! --syn -g X",
        ] {
            let args = iptnl::ipt::split_args(r).unwrap();
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            assert!(common::run_status("iptables-nft", &a, None).status.success(), "{r}");
        }
        let listing = common::run("iptables-nft", &["-L", "INPUT", "-n", "-v", "-x"]);
        let want: Vec<String> = listing
            .lines()
            .skip(2)
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.get(9..).unwrap_or_default().join(" ")
            })
            .collect();
        let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4).unwrap();
        let got: Vec<String> = ipt
            .stats("filter", "INPUT")
            .unwrap()
            .into_iter()
            .map(|row| row[9].clone())
            .collect();
        assert_eq!(got, want);
        assert_eq!(got[0], "tcp dpt:22 /* a b */");
    });
}

#[test]
fn protocol_requirements_match_iptables_nft() {
    check(false, PROTO_GUARD);
}

#[test]
fn ip6tables_protocol_requirements_match_ip6tables_nft() {
    check(true, PROTO_GUARD6);
}

#[test]
fn builtin_chain_deletion_matches_iptables_nft() {
    check(false, BUILTIN_DELETE);
}

#[test]
fn ip6tables_builtin_chain_deletion_matches_ip6tables_nft() {
    check(true, &BUILTIN_DELETE[..4]);
}

#[test]
fn zeroing_protocol_checked_rules_matches_iptables_nft() {
    check(false, ZERO_COMPAT);
}

/// What iptables-restore does with `-X` of built-in chains: a chain whose policy is DROP, as
/// set in the input or in the kernel, is never deleted (iptables-nft-restore 1.8.9 deletes it
/// when the input declares it `:FORWARD DROP` or sets `-P OUTPUT DROP` before the `-X`, which
/// loses the policy; iptables 1.8.11 refuses it as `Directory not empty`, which iptnl
/// follows, so these are asserted here rather than compared).
#[test]
fn restore_never_deletes_a_builtin_chain_with_a_drop_policy() {
    let run = |input: &str, args: &[&str]| {
        let mut a = vec!["iptables-restore"];
        a.extend_from_slice(args);
        let o = common::run_status(BIN, &a, Some(input));
        (
            String::from_utf8_lossy(&o.stderr).into_owned(),
            o.status.code().unwrap_or(-1),
        )
    };
    let save = || {
        let o = common::run_status(BIN, &["iptables-save", "-t", "filter"], None);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let nft_chains = || {
        let o = common::run_status("nft", &["list", "table", "ip", "filter"], None);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    common::in_netns(|| {
        let (err, rc) = run("*filter\n:FORWARD DROP [0:0]\n-X FORWARD\nCOMMIT\n", &[]);
        assert_eq!(
            (err.as_str(), rc),
            ("iptables-restore: line 3 failed: Directory not empty.\n", 1)
        );
        let (err, rc) = run(
            "*filter\n:FORWARD DROP [0:0]\n-A INPUT -j ACCEPT\n-N U\n-X\nCOMMIT\n",
            &[],
        );
        assert_eq!((err.as_str(), rc), ("", 0));
        assert_eq!(
            save(),
            "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT"
        );
        let (err, rc) = run("*filter\n-X FORWARD\nCOMMIT\n", &["--noflush"]);
        assert_eq!(
            (err.as_str(), rc),
            ("iptables-restore: line 2 failed: Directory not empty.\n", 1)
        );
        let (err, rc) = run("*filter\n-X INPUT\nCOMMIT\n", &["--noflush"]);
        assert_eq!(
            (err.as_str(), rc),
            (
                "iptables-restore: line 2 failed: CHAIN_DEL failed (Device or resource busy): chain INPUT\n",
                1
            )
        );
        let (err, rc) = run(
            "*filter\n-P OUTPUT DROP\n-X OUTPUT\nCOMMIT\n",
            &["--noflush"],
        );
        assert_eq!(
            (err.as_str(), rc),
            ("iptables-restore: line 3 failed: Directory not empty.\n", 1)
        );
        // An empty ACCEPT built-in chain goes, by name and with the table's `-X`.
        let (err, rc) = run(
            "*filter\n-P OUTPUT ACCEPT\n-X OUTPUT\nCOMMIT\n",
            &["--noflush"],
        );
        assert_eq!((err.as_str(), rc), ("", 0));
        assert!(!nft_chains().contains("chain OUTPUT"));
        let (err, rc) = run("*filter\n-P OUTPUT ACCEPT\n-X\nCOMMIT\n", &["--noflush"]);
        assert_eq!((err.as_str(), rc), ("", 0));
        let chains = nft_chains();
        assert!(!chains.contains("chain OUTPUT"), "{chains}");
        assert!(chains.contains("chain FORWARD"), "{chains}");
        assert!(chains.contains("chain INPUT"), "{chains}");
        assert!(save().contains(":FORWARD DROP"));
    });
}

#[test]
fn grouped_short_options_match_iptables_nft() {
    check(false, GROUPED);
}

#[test]
fn ip6tables_grouped_short_options_match_ip6tables_nft() {
    check(true, GROUPED6);
}

#[test]
fn address_forms_match_iptables_nft() {
    check(false, ADDR_FORMS);
}

#[test]
fn ip6tables_address_forms_match_ip6tables_nft() {
    check(true, ADDR_FORMS6);
}

/// `-m NAME -h` / `-j NAME -h` for every extension, and the implicit match of `-p`: the
/// option sections as iptables-nft prints them, except the three that 1.8.11 changed
/// (sctp's chunk types, IDLETIMER's `--send_nl_msg`, icmp6's MLD names; the unit tests of
/// `ipt::ext::base::help` check those). LED, CLUSTERIP, ipvs, nfacct and ULOG are left out too: kernels may
/// lack them, and iptables-nft warns so before its help (iptnl's help asks no kernel); quota2,
/// which Debian's iptables-nft does not ship.
#[test]
fn extension_help_matches_iptables_nft() {
    for v6 in [false, true] {
        let family = if v6 {
            iptnl::ipt::IpFamily::V6
        } else {
            iptnl::ipt::IpFamily::V4
        };
        let mut seqs: Vec<String> = iptnl::ipt::ext::all()
            .iter()
            .filter(|d| d.family.is_none_or(|f| f == family))
            .filter(|d| {
                !matches!(
                    d.name,
                    "sctp"
                        | "IDLETIMER"
                        | "icmp6"
                        | "LED"
                        | "CLUSTERIP"
                        | "ipvs"
                        | "nfacct"
                        | "ULOG"
                        | "quota2"
                )
            })
            .map(|d| match d.kind {
                iptnl::ipt::ext::ExtKind::Match => format!("-m {} -h", d.name),
                iptnl::ipt::ext::ExtKind::Target => format!("-j {} -h", d.name),
            })
            .collect();
        seqs.extend(
            [
                "-p tcp -h",
                "-p UDP -m comment -h",
                "-m udp -m tcp -j LOG -h",
                "-m udp -h -m tcp",
                "-j ACCEPT -h",
                "-j NOSUCHCHAIN -h",
                "-m nosuch -h",
                "--match=mark -h",
            ]
            .map(String::from),
        );
        let seqs: Vec<&str> = seqs.iter().map(String::as_str).collect();
        check(v6, &seqs);
    }
}

/// Extensions whose kernel module this kernel may lack (LED, CLUSTERIP, ipvs, nfacct, ULOG):
/// the refusal, its warning and exit code as iptables-nft gives them, and nothing
/// installed. On a kernel that has them, both tools install the same rule instead.
#[test]
fn missing_kernel_modules_are_reported_as_iptables_nft() {
    check(
        false,
        &[
            "-A INPUT -j LED --led-trigger-id x\n-S",
            "-A INPUT -j CLUSTERIP --new --hashmode sourceip --clustermac 01:00:5e:00:00:01 --total-nodes 2 --local-node 1 -d 10.0.0.1\n-S",
            "-A INPUT -m ipvs --ipvs\n-A INPUT -m ipvs --vproto tcp --vport 22 --vdir REPLY\n-S",
            "-A INPUT -m nfacct --nfacct-name x\n-S",
            "-A INPUT -j ULOG --ulog-prefix fw --ulog-nlgroup 3\n-S",
        ],
    );
    check(true, &["-A INPUT -m ipvs ! --vaddr 2001:db8::/64\n-S"]);
}

/// `-Z` as iptables 1.8.11 has it (1.8.9 differs): a built-in chain that is not in the
/// kernel is zeroed as a fake one (nothing to do, no error), and `-v -Z` names every
/// built-in chain of the table.
#[test]
fn zero_takes_builtin_chains_not_in_the_kernel() {
    let tools = tools();
    let ours = tools.path("iptables");
    let ok = |out: &str| (out.to_owned(), String::new(), 0);
    let all = "Zeroing chain `INPUT'\nZeroing chain `FORWARD'\nZeroing chain `OUTPUT'\n";
    let cases: Vec<(&str, Vec<Step>)> = vec![
        ("-Z INPUT", vec![ok("")]),
        ("-N X\n-Z INPUT", vec![ok(""), ok("")]),
        (
            "-A INPUT -j ACCEPT\n-Z OUTPUT\n-Z INPUT",
            vec![ok(""), ok(""), ok("")],
        ),
        (
            "-v -Z INPUT\n-v -Z",
            vec![ok("Zeroing chain `INPUT'\n"), ok(all)],
        ),
        (
            "-N X\n-v -Z\n-v -Z INPUT",
            vec![
                ok(""),
                ok(&format!("{all}Zeroing chain `X'\n")),
                ok("Zeroing chain `INPUT'\n"),
            ],
        ),
        (
            "-A INPUT -j ACCEPT\n-v -Z\n-v -X",
            vec![ok(""), ok(all), ok("")],
        ),
        (
            "-Z NOPE",
            vec![(
                String::new(),
                "iptables: No chain/target/match by that name.\n".into(),
                1,
            )],
        ),
    ];
    for (seq, want) in cases {
        for served in [false, true] {
            let got = run_seq(&ours, &[], &parse_seq(seq), served);
            assert_eq!(got, want, "{seq:?} (served: {served})");
        }
    }
}

/// Listing a chain that does not exist fails with ENOENT, as iptables 1.8.11 has it (1.8.9
/// called the chain incompatible).
#[test]
fn listing_a_missing_chain_is_enoent() {
    let tools = tools();
    let ours = tools.path("iptables");
    let enoent = || {
        (
            String::new(),
            "iptables: No chain/target/match by that name.\n".to_owned(),
            1,
        )
    };
    let cases: Vec<(&str, Vec<Step>)> = vec![
        ("-L NOPE", vec![enoent()]),
        ("-n -L NOPE", vec![enoent()]),
        ("-nLX", vec![enoent()]),
        ("-S NOPE", vec![enoent()]),
        (
            "--wait -t filter -n -L NOPE\n--wait -t filter -N NOPE\n--wait -t filter -S NOPE",
            vec![
                enoent(),
                (String::new(), String::new(), 0),
                ("-N NOPE\n".to_owned(), String::new(), 0),
            ],
        ),
    ];
    for (seq, want) in cases {
        for served in [false, true] {
            let got = run_seq(&ours, &[], &parse_seq(seq), served);
            assert_eq!(got, want, "{seq:?} (served: {served})");
        }
    }
}

/// An unknown letter in a group of short options is named alone, as iptables 1.8.11's
/// getopt error has it (1.8.9 named a word of the command line instead).
#[test]
fn unknown_short_option_is_named_alone() {
    let tools = tools();
    for tool in ["iptables", "ip6tables"] {
        let ours = tools.path(tool);
        let refused = |opt: &str| {
            (
                String::new(),
                format!(
                    "{tool} VERSION: unknown option \"{opt}\"\nTry `{tool} -h' or '{tool} --help' for more information.\n"
                ),
                2,
            )
        };
        let cases: Vec<(&str, Vec<Step>)> = vec![
            ("-aL", vec![refused("-a")]),
            ("-naL", vec![refused("-a")]),
            ("-L -vxa", vec![refused("-a")]),
            ("-A INPUT -a", vec![refused("-a")]),
            ("-A INPUT -j ACCEPT -yz", vec![refused("-y")]),
            ("--bogus=1 -L", vec![refused("--bogus=1")]),
        ];
        for (seq, want) in cases {
            for served in [false, true] {
                let got = run_seq(&ours, &[], &parse_seq(seq), served);
                assert_eq!(got, want, "{tool} {seq:?} (served: {served})");
            }
        }
    }
}

/// `-Z CHAIN N` as iptables 1.8.11 has it (1.8.9 let a number past the end pass): one rule
/// zeroed, no "Zeroing chain" line, a missing rule or chain is a bad rule; given after `-L`
/// it takes that command's place (nothing is listed); `-Z -L CHAIN N` lists rule N, then
/// zeroes the whole chain.
#[test]
fn zero_one_rule_as_1_8_11() {
    let tools = tools();
    let ours = tools.path("iptables");
    let ok = |out: &str| (out.to_owned(), String::new(), 0);
    let bad = || {
        (
            String::new(),
            "iptables: Bad rule (does a matching rule exist in that chain?).\n".to_owned(),
            1,
        )
    };
    let load = "-A FORWARD -m mark --mark 0x1 -c 1 2\n-A FORWARD -m mark --mark 0x2 -c 2 3";
    let both = |a: &str, b: &str| {
        ok(&format!(
            "-A FORWARD -m mark --mark 0x1 -c {a}\n-A FORWARD -m mark --mark 0x2 -c {b}\n"
        ))
    };
    let rule = |n: u32, c: &str| {
        format!(
            "{c}            all  --  any    any     anywhere             anywhere             mark match 0x{n}\n"
        )
    };
    let cases: Vec<(String, Vec<Step>)> = vec![
        (
            format!("{load}\n-v -Z FORWARD 1\n-v -S FORWARD 1\n-v -S FORWARD 2"),
            vec![
                ok(""),
                ok(""),
                ok(""),
                ok("-A FORWARD -m mark --mark 0x1 -c 0 0\n"),
                ok("-A FORWARD -m mark --mark 0x2 -c 2 3\n"),
            ],
        ),
        (
            format!("{load}\n-v -Z FORWARD 3\n-Z NOPE 1\n-Z INPUT 1\n-t nat -Z PREROUTING 1"),
            vec![ok(""), ok(""), bad(), bad(), bad(), bad()],
        ),
        (
            format!("{load}\n-v -L -Z FORWARD 2\n-v -S FORWARD 1\n-v -S FORWARD 2"),
            vec![
                ok(""),
                ok(""),
                ok(""),
                ok("-A FORWARD -m mark --mark 0x1 -c 1 2\n"),
                ok("-A FORWARD -m mark --mark 0x2 -c 0 0\n"),
            ],
        ),
        (
            format!("{load}\n-v -Z -L FORWARD 1\n-v -Z -L FORWARD 2\n-v -Z -L FORWARD 3"),
            vec![
                ok(""),
                ok(""),
                ok(&format!(
                    "{}Zeroing chain `FORWARD'\n",
                    rule(1, "    1     2")
                )),
                ok(&format!(
                    "{}Zeroing chain `FORWARD'\n",
                    rule(2, "    0     0")
                )),
                ok("Zeroing chain `FORWARD'\n"),
            ],
        ),
        (
            format!("{load}\n-v -L FORWARD 2 -Z\n-v -S FORWARD 1\n-v -S FORWARD 2"),
            vec![
                ok(""),
                ok(""),
                ok(&format!(
                    "{}Zeroing chain `FORWARD'\n",
                    rule(2, "    2     3")
                )),
                ok("-A FORWARD -m mark --mark 0x1 -c 0 0\n"),
                ok("-A FORWARD -m mark --mark 0x2 -c 0 0\n"),
            ],
        ),
        (
            format!("{load}\n-Z FORWARD 1 -v -S\n-v -S FORWARD"),
            vec![
                ok(""),
                ok(""),
                ok("-A FORWARD -m mark --mark 0x1 -c 1 2\n"),
                {
                    let (o, e, c) = both("0 0", "2 3");
                    (format!("-P FORWARD ACCEPT -c 0 0\n{o}"), e, c)
                },
            ],
        ),
    ];
    for (seq, want) in cases {
        for served in [false, true] {
            let got = run_seq(&ours, &[], &parse_seq(&seq), served);
            assert_eq!(got, want, "{seq:?} (served: {served})");
        }
    }
}

/// A table that holds base chains iptables cannot express: every `-L` and `-S` starts with
/// iptables 1.8.11's line saying so (1.8.9 printed it for a whole table only), `-S` shows
/// the chains iptables can express, `-L` shows the others too.
#[test]
fn incompatible_base_chains_are_announced() {
    if !common::have("nft") {
        eprintln!("nft is not installed: skipped");
        return;
    }
    let tools = tools();
    let ours = tools.path("iptables");
    let line = "# Table `filter' contains incompatible base-chains, use 'nft' tool to list them.\n";
    common::in_netns(|| {
        common::nft_load(
            "table ip filter {\n chain a { type filter hook input priority filter; }\n chain INPUT { type filter hook input priority filter; counter accept; }\n}\n",
        );
        let run = |args: &[&str]| step(&common::run_status(&ours, args, None));
        let (out, _, code) = run(&["-S"]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            format!(
                "{line}-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n-A INPUT -j ACCEPT\n"
            )
        );
        // A chain listing reads that chain only, as iptables 1.8.11's cache does: the line
        // comes only when the chain listed is one iptables cannot express.
        let (out, _, code) = run(&["-S", "INPUT"]);
        assert_eq!(
            (out, code),
            ("-P INPUT ACCEPT\n-A INPUT -j ACCEPT\n".to_owned(), 0)
        );
        let (out, _, code) = run(&["-L", "-n"]);
        assert_eq!(code, 0);
        assert!(
            out.starts_with(&format!("{line}Chain INPUT (policy ACCEPT)\n")),
            "{out}"
        );
        assert!(
            out.contains("\nChain a (base chain iptables cannot express"),
            "{out}"
        );
        let (out, _, code) = run(&["-t", "nat", "-S"]);
        assert_eq!(code, 0);
        assert!(!out.contains("incompatible"), "{out}");
    });
    // `-S` as the installed iptables-nft prints it (whose `-L` hides the chain).
    if common::have("iptables-nft") {
        let diffs = compare_with(
            false,
            &[
                &["nft", "add", "table", "ip", "filter"],
                &[
                    "nft",
                    "add",
                    "chain",
                    "ip",
                    "filter",
                    "a",
                    "{ type filter hook input priority 0; }",
                ],
            ],
            &["-S", "-A INPUT -j ACCEPT\n-S"],
        );
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }
}
