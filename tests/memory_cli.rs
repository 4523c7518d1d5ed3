//! The command sequences of `tests/cli.rs` (`common/cli_seqs.rs`) run by iptnl against an
//! in-memory ruleset (`iptnl serve --memory`, no kernel involved in the commands) give what
//! iptables-nft gives against the kernel: the same stdout, stderr and exit code at every
//! step. A sequence that uses something the in-memory ruleset does not model must say so
//! (`does not model`): it is counted and printed, not compared.

#[path = "common/cli_seqs.rs"]
mod cli_seqs;
mod common;

use std::io::BufRead;
use std::process::{Command, Stdio};

use cli_seqs::*;

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// Runs `f` in a fresh namespace where `iptnl serve --memory` listens.
fn with_memory_server<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    common::in_netns(|| {
        let mut server = Command::new(BIN)
            .args(["serve", "--memory"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("iptnl serve --memory");
        let mut first = String::new();
        std::io::BufReader::new(server.stdout.take().expect("stdout"))
            .read_line(&mut first)
            .expect("server line");
        assert!(first.contains("in-memory ruleset"), "{first:?}");
        let out = f();
        let _ = server.kill();
        let _ = server.wait();
        out
    })
}

/// Runs `lines` with `bin` in a fresh namespace where `iptnl serve --memory` listens.
fn run_on_memory(bin: &str, lines: &[Vec<String>]) -> Vec<Step> {
    with_memory_server(|| {
        lines
            .iter()
            .map(|args| {
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                step(&common::run_status(bin, &a, None))
            })
            .collect()
    })
}

/// A command at a reader floor other than the server's is served on the in-memory ruleset
/// all the same (a kernel server lets such a command run by itself, which here would write
/// the kernel's ruleset).
#[test]
fn another_reader_floor_stays_in_memory() {
    if !common::have("iptables-nft-save") {
        eprintln!("iptables-nft-save is not installed: skipped");
        return;
    }
    let tools = tools();
    let ours = tools.path("iptables");
    let (listed, kernel) = with_memory_server(|| {
        for floor in ["1.8.7", "1.8.11"] {
            let add = common::run_status(
                &ours,
                &[
                    "--reader-floor",
                    floor,
                    "-A",
                    "INPUT",
                    "-p",
                    "tcp",
                    "--dport",
                    "22",
                    "-j",
                    "ACCEPT",
                ],
                None,
            );
            assert!(add.status.success(), "{floor}: {add:?}");
        }
        let listed = common::run_status(&ours, &["-S", "INPUT"], None);
        let kernel = common::run_status("iptables-nft-save", &[], None);
        (listed, kernel)
    });
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "-P INPUT ACCEPT\n-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n\
         -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
    );
    assert!(
        !String::from_utf8_lossy(&kernel.stdout).contains("--dport 22"),
        "the kernel's ruleset was written: {kernel:?}"
    );
}

fn check(v6: bool, seqs: &[&str]) {
    let oracle = if v6 { "ip6tables-nft" } else { "iptables-nft" };
    if !common::have(oracle) {
        eprintln!("{oracle} is not installed: skipped");
        return;
    }
    let tools = tools();
    let ours = tools.path(if v6 { "ip6tables" } else { "iptables" });
    let mut diffs = Vec::new();
    let mut unmodelled = Vec::new();
    for seq in seqs {
        if let Some(why) = common::unmapped_owner_ids(seq) {
            common::skip(&format!("sequence {seq:?}"), &why);
            continue;
        }
        let lines = parse_seq(seq);
        let mut want = run_seq(oracle, &[], &lines, false);
        for w in &mut want {
            w.0 = protocols_as_1_8_11(&w.0);
        }
        let got = run_on_memory(&ours, &lines);
        if let Some(g) = got.iter().find(|g| g.1.contains("does not model")) {
            unmodelled.push(format!("{seq:?}: {}", g.1.trim()));
            continue;
        }
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            if w != g {
                diffs.push(format!(
                    "sequence {seq:?}\n  step {}: {:?}\n  oracle: rc={} out={:?} err={:?}\n  memory: rc={} out={:?} err={:?}",
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
    for u in &unmodelled {
        eprintln!("not modelled: {u}");
    }
    assert!(
        diffs.is_empty(),
        "{} of {} sequences differ:\n{}",
        diffs.len(),
        seqs.len(),
        diffs.join("\n")
    );
}

/// Runs the groups named (every one of `GROUPS` is named by one test below).
fn groups(names: &[&str]) {
    for name in names {
        let g = GROUPS
            .iter()
            .find(|g| g.name == *name)
            .unwrap_or_else(|| panic!("no group {name}"));
        assert!(g.setup.is_empty(), "group {name} needs setup commands");
        check(g.v6, g.seqs);
    }
}

/// Every group of `GROUPS` is run by one of the tests below but `LIST_SETS`, whose rules
/// name ipsets: sets are outside what the in-memory ruleset models.
#[test]
fn every_group_is_run() {
    let named: Vec<&str> = [RULES_CHAINS, LISTINGS, EXTENSIONS, V6_GROUPS, OTHERS].concat();
    for g in GROUPS {
        assert!(
            g.name == "LIST_SETS" || named.contains(&g.name),
            "group {} is not run on memory",
            g.name
        );
    }
}

const RULES_CHAINS: &[&str] = &["RULES", "CHAINS"];
const LISTINGS: &[&str] = &["LISTING", "LIST_L", "VERBOSE"];
const EXTENSIONS: &[&str] = &["LIST_EXT", "LIST_EXT_TABLES", "LIST_EXT_MORE"];
const V6_GROUPS: &[&str] = &[
    "V6",
    "LIST_EXT6",
    "LIST_EXT6_MORE",
    "PROTO_GUARD6",
    "GROUPED6",
    "ADDR_FORMS6",
];
const OTHERS: &[&str] = &[
    "USAGE",
    "GO_IPTABLES",
    "PROTO_GUARD",
    "BUILTIN_DELETE",
    "ZERO_COMPAT",
    "GROUPED",
    "ADDR_FORMS",
];

#[test]
fn rules_and_chains_on_memory_match_iptables_nft() {
    groups(RULES_CHAINS);
}

#[test]
fn listings_on_memory_match_iptables_nft() {
    groups(LISTINGS);
}

#[test]
fn extensions_on_memory_match_iptables_nft() {
    groups(EXTENSIONS);
}

#[test]
fn ip6tables_on_memory_matches_ip6tables_nft() {
    groups(V6_GROUPS);
}

#[test]
fn usage_and_guards_on_memory_match_iptables_nft() {
    groups(OTHERS);
}
