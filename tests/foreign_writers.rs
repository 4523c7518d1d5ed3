//! Never wrong after someone else writes: random sequences of foreign writes by every tool a
//! node has (`iptables-nft`, `ip6tables-nft`, `iptables-nft-restore` with and without
//! `--noflush`, `nft` with one change or several in one transaction, `ipset`), interleaved
//! with reads and writes through `iptnl serve`, through a library handle that follows the
//! kernel's events and under an owned-chain guard.
//!
//! Each sequence runs in two fresh network namespaces that see the same history: in `A`
//! the subjects answer from their caches; in `B` every answer comes from a fresh read (a
//! command run by itself, a new handle per call, a plain `sync` after each step). After
//! every step the answers (stdout, stderr and exit code; `Ok` value or error text) are equal,
//! and so are the two rulesets, so no rule exists that the sequence did not ask for.
//!
//! `IPTNL_FOREIGN_CASES=N` runs N sequences (default 1,000); a failing one is shrunk and its
//! seed kept in `tests/foreign_writers.proptest-regressions`.

mod common;

use std::fs::File;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;
use iptnl::netlink::{enter_net_namespace, unshare_net_namespace, Conn};
use iptnl::sync::{sync, Desired, Guard, GuardOptions, Owner};
use iptnl::Position;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};

#[path = "foreign_writers/steps.rs"]
mod steps;

use steps::*;

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// The kernel's ruleset, every family, as comparable text: chains (hook, policy) and rules
/// (expressions and user data) in dump order, without handles; with `sets`, the ipsets.
fn ruleset(conn: &mut Conn, sets: bool) -> String {
    let (chains, rules, _) = iptnl::nft::list_chains_and_rules(conn, None, None).unwrap();
    let mut s = String::new();
    for c in &chains {
        let hook = c.hook.as_ref().map(|h| (h.num, h.priority, h.policy));
        s.push_str(&format!(
            "chain {:?} {} {} {:?}\n",
            c.family, c.table, c.name, hook
        ));
    }
    for r in &rules {
        let fam = match r.family {
            iptnl::nft::Family::Ipv6 => IpFamily::V6,
            _ => IpFamily::V4,
        };
        let text = iptnl::ipt::decode_rule_or_raw(r, fam).to_save_args();
        let bytes: String = r.exprs_bytes().iter().map(|b| format!("{b:02x}")).collect();
        s.push_str(&format!(
            "rule {:?} {} {}: {text} [{bytes} {:?}]\n",
            r.family, r.table, r.chain, r.userdata
        ));
    }
    if !sets {
        return s;
    }
    // The sets' members and names; `initval` is random per set, and so is the order of a
    // hash set's members in `ipset save`, so the lines are compared sorted.
    let sets = exec("ipset", &["save".into()], None, &[]);
    let mut lines: Vec<&str> = sets
        .lines()
        .map(|l| l.split(" initval ").next().unwrap_or(l))
        .collect();
    lines.sort_unstable();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A network namespace, kept open by a file.
struct Ns(File);

impl Ns {
    /// A fresh namespace; the calling thread is left in it.
    fn fresh() -> Ns {
        unshare_net_namespace().expect("unshare");
        Ns(File::open("/proc/thread-self/ns/net").unwrap())
    }
    fn enter(&self) {
        enter_net_namespace(&self.0.as_fd()).unwrap();
    }
}

/// The owned chains and hooks the guard keeps in force.
fn desired(family: IpFamily) -> Desired {
    let mut d = Desired::new(family, Owner::new("G-", "g").unwrap());
    let host = if family == IpFamily::V6 {
        "fd00::1"
    } else {
        "10.0.0.1"
    };
    d.chain(
        "filter",
        "G-A",
        &[format!("-s {host} -j ACCEPT"), "-j G-B".into()],
    )
    .unwrap()
    .chain("filter", "G-B", &["-j RETURN"])
    .unwrap()
    .hook("filter", "INPUT", Position::First, "-j G-A")
    .unwrap()
    .hook("filter", "FORWARD", Position::Last, "-j G-B")
    .unwrap();
    d
}

/// What every sequence starts from, in both namespaces: chains that jump to each other,
/// so that most steps act on something that exists.
fn seed(family: IpFamily) -> String {
    let net = if family == IpFamily::V6 {
        "fd00::/8"
    } else {
        "10.0.0.0/8"
    };
    format!(
        "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n\
         :A - [0:0]\n:B - [0:0]\n:C - [0:0]\n\
         -A INPUT -j A\n-A INPUT -s {net} -j B\n-A A -p tcp --dport 80 -j B\n-A A -g C\n\
         -A B -j C\n-A B -j RETURN\n-A C -j ACCEPT\n-A FORWARD -j B\nCOMMIT\n\
         *nat\n:PREROUTING ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n\
         :A - [0:0]\n:B - [0:0]\n-A PREROUTING -j A\n-A A -j B\n-A POSTROUTING -s {net} -j B\n\
         COMMIT\n"
    )
}

/// Loads the seed of both families in the calling thread's namespace.
fn load_seed() {
    for (prog, f) in [
        ("iptables-nft-restore", IpFamily::V4),
        ("ip6tables-nft-restore", IpFamily::V6),
    ] {
        let out = exec(prog, &[], Some(&seed(f)), &[]);
        assert!(out.starts_with("exit Some(0)"), "{out}");
    }
}

/// One sequence: its steps, the subject family, and whether a guard runs.
#[derive(Debug, Clone)]
pub struct Case {
    pub v6: bool,
    pub guard: bool,
    pub steps: Vec<Step>,
}

fn run_case(case: &Case, links: &common::ToolLinks) -> Result<(), TestCaseError> {
    let family = if case.v6 { IpFamily::V6 } else { IpFamily::V4 };
    let (tool, restore) = if case.v6 {
        ("ip6tables", "ip6tables-restore")
    } else {
        ("iptables", "iptables-restore")
    };
    let (tool, restore) = (links.path(tool), links.path(restore));
    std::thread::scope(|s| {
        s.spawn(|| -> Result<(), TestCaseError> {
            let b = Ns::fresh();
            load_seed();
            let a = Ns::fresh();
            load_seed();
            // In A: the server, the handle that follows events, the guard.
            let server = common::Server::start(BIN);
            let ipt = IpTables::new(family).unwrap();
            ipt.set_follow_events(true);
            let mut conn_a = Conn::open().unwrap();
            let d = desired(family);
            let guard = case.guard.then(|| {
                let g = Arc::new(IpTables::new(family).unwrap());
                Guard::spawn(g, d.clone(), GuardOptions::default()).unwrap()
            });
            b.enter();
            let mut conn_b = Conn::open().unwrap();
            let fresh_b = || IpTables::new(family).unwrap();
            if case.guard {
                sync(&fresh_b(), &d).unwrap();
            }
            let settle = |conn: &mut Conn| {
                if let Some(g) = &guard {
                    let t = Instant::now();
                    loop {
                        let at = conn.genid().unwrap();
                        if g.stats().generation == Some(at) {
                            break;
                        }
                        assert!(
                            t.elapsed() < Duration::from_secs(10),
                            "the guard did not settle at {at}: {:?}",
                            g.stats()
                        );
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            };
            for (i, step) in case.steps.iter().enumerate() {
                let (got, want) = match step {
                    Step::Served { t, cmd } => {
                        let table = TABLES[usize::from(*t) % 2];
                        let args = cmd.args(family, table);
                        a.enter();
                        let got = exec(&tool, &args, None, &[]);
                        b.enter();
                        (got, exec(&tool, &args, None, &[("IPTNL_DIRECT", "1")]))
                    }
                    Step::ServedRestore { t, lines } => {
                        let table = TABLES[usize::from(*t) % 2];
                        let input = restore_text(family, table, lines);
                        let args = vec!["--noflush".to_owned()];
                        a.enter();
                        let got = exec(&restore, &args, Some(&input), &[]);
                        b.enter();
                        (
                            got,
                            exec(&restore, &args, Some(&input), &[("IPTNL_DIRECT", "1")]),
                        )
                    }
                    Step::Call { t, call: c } => {
                        let table = TABLES[usize::from(*t) % 2];
                        let got = call(&ipt, family, table, c);
                        (got, call(&fresh_b(), family, table, c))
                    }
                    _ => {
                        a.enter();
                        let got = foreign(step, family);
                        b.enter();
                        (got, foreign(step, family))
                    }
                };
                prop_assert_eq!(&got, &want, "step {} {:?}: the answers differ", i, step);
                if case.guard {
                    sync(&fresh_b(), &d).unwrap();
                    settle(&mut conn_a);
                }
                // Every subject's view of a table (each in turn), after every step.
                let table = TABLES[i % 2];
                let args = vec!["-t".to_owned(), table.to_owned(), "-S".to_owned()];
                a.enter();
                let got = exec(&tool, &args, None, &[]);
                b.enter();
                let want = exec(&tool, &args, None, &[("IPTNL_DIRECT", "1")]);
                prop_assert_eq!(
                    &got,
                    &want,
                    "after step {} {:?}: served -S differs",
                    i,
                    step
                );
                let got = format!("{:?}", ipt.list_table_text(table));
                let want = format!("{:?}", fresh_b().list_table_text(table));
                prop_assert_eq!(
                    &got,
                    &want,
                    "after step {} {:?}: the handle's listing differs",
                    i,
                    step
                );
                let sets = case.steps.iter().any(|s| matches!(s, Step::Ipset(_)));
                let (ra, rb) = (
                    ruleset_in(&a, &mut conn_a, sets),
                    ruleset_in(&b, &mut conn_b, sets),
                );
                if ra != rb {
                    return Err(TestCaseError::fail(format!(
                        "step {i} {step:?}: the rulesets differ\n{}",
                        diff(&ra, &rb)
                    )));
                }
            }
            drop(guard);
            drop(server);
            Ok(())
        })
        .join()
        .unwrap()
    })
}

/// The lines of `a` missing from `b` (`-`) and those of `b` missing from `a` (`+`).
fn diff(a: &str, b: &str) -> String {
    let mut out = String::new();
    for l in a.lines().filter(|l| !b.lines().any(|x| x == *l)) {
        out.push_str(&format!("- {l}\n"));
    }
    for l in b.lines().filter(|l| !a.lines().any(|x| x == *l)) {
        out.push_str(&format!("+ {l}\n"));
    }
    out
}

fn ruleset_in(ns: &Ns, conn: &mut Conn, sets: bool) -> String {
    ns.enter();
    ruleset(conn, sets)
}

#[test]
fn answers_equal_a_fresh_read_whatever_others_write() {
    if !common::have("nft") || !common::have("iptables-nft") || !common::have("ipset") {
        common::skip("foreign writers", "nft, iptables-nft and ipset are needed");
        return;
    }
    let cases = std::env::var("IPTNL_FOREIGN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let links = common::ToolLinks::new(
        "iptnl-foreign",
        &[
            "iptables",
            "ip6tables",
            "iptables-restore",
            "ip6tables-restore",
        ],
    );
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        max_shrink_iters: 200,
        source_file: Some(file!()),
        ..Config::default()
    });
    let r = runner.run(&case(), |c| run_case(&c, &links));
    if let Err(e) = r {
        panic!("{e}");
    }
}

/// Runs one fixed sequence (a divergence found once, kept as a regression test).
fn regression(case: Case) {
    if !common::have("nft") || !common::have("iptables-nft") || !common::have("ipset") {
        common::skip("foreign writers", "nft, iptables-nft and ipset are needed");
        return;
    }
    let links = common::ToolLinks::new(
        "iptnl-foreign",
        &[
            "iptables",
            "ip6tables",
            "iptables-restore",
            "ip6tables-restore",
        ],
    );
    if let Err(e) = run_case(&case, &links) {
        panic!("{e}");
    }
}

/// `iptables-nft -E A D` renames every jump to A: a served listing of a chain read before
/// shows `-j D`, and a check for `-j D` finds the rule.
#[test]
fn a_foreign_rename_renames_the_jumps_a_server_shows() {
    regression(Case {
        v6: false,
        guard: false,
        steps: vec![
            Step::Served {
                t: 0,
                cmd: Cmd::List(Some(12)),
            },
            Step::Ipt {
                v6: false,
                t: 0,
                cmd: Cmd::Rename(0, 8),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::List(Some(12)),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::Check(12, 4, 8),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::List(None),
            },
        ],
    });
}

/// The same through a library handle: after `nft rename chain`, `exists(-j A)` is false and
/// `delete(-j A)` fails instead of deleting the rule that now jumps to D.
#[test]
fn a_foreign_rename_never_makes_a_handle_delete_another_rule() {
    regression(Case {
        v6: false,
        guard: false,
        steps: vec![
            Step::Call {
                t: 0,
                call: Call::Exists(12, 4, 0),
            },
            Step::Nft {
                v6: false,
                t: 0,
                op: NftOp::Rename(0, 8),
            },
            Step::Call {
                t: 0,
                call: Call::Exists(12, 4, 0),
            },
            Step::Call {
                t: 0,
                call: Call::Delete(12, 4, 0),
            },
            Step::Call {
                t: 0,
                call: Call::ListTable,
            },
        ],
    });
}

/// `nft`'s `iif "d0"` compares the interface's index, which iptables shows by name: after
/// `ip link set d0 name d1` (no ruleset event at all), every answer shows `-i d1`.
#[test]
fn an_interface_renamed_shows_in_every_answer() {
    regression(Case {
        v6: false,
        guard: false,
        steps: vec![
            Step::Link(LinkOp::Add(false)),
            Step::Nft {
                v6: false,
                t: 0,
                op: NftOp::IifRule(12, false),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::List(Some(12)),
            },
            Step::Call {
                t: 0,
                call: Call::List(12),
            },
            Step::Link(LinkOp::Rename(false)),
            Step::Served {
                t: 0,
                cmd: Cmd::List(Some(12)),
            },
            Step::Call {
                t: 0,
                call: Call::List(12),
            },
            Step::Call {
                t: 0,
                call: Call::ListTable,
            },
        ],
    });
}

/// A replaced rule keeps its place, first or last in its chain: the kernel notifies the
/// deletion first, then the new rule under the same handle, with no position when the rule
/// is first or last (found by the sequences: the replacement of a first rule went last).
#[test]
fn a_replaced_rule_keeps_its_place() {
    regression(Case {
        v6: false,
        guard: false,
        steps: vec![
            Step::Served {
                t: 0,
                cmd: Cmd::List(Some(12)),
            },
            Step::Call {
                t: 0,
                call: Call::List(12),
            },
            // nft replaces the first rule of INPUT, then iptnl (served) the last.
            Step::Nft {
                v6: false,
                t: 0,
                op: NftOp::ReplaceAt(15, 0, 1),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::List(Some(12)),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::Replace(12, 1, 0, 0),
            },
            Step::Call {
                t: 0,
                call: Call::List(12),
            },
            Step::Served {
                t: 0,
                cmd: Cmd::ListL(Some(12)),
            },
        ],
    });
}

/// One `nft` transaction deletes a table whose chains were all deleted and makes it again
/// with a chain: the handle that follows events lists the new chain (found by the event
/// fuzzer: the table's cached empty chain list outlived the `DELTABLE`, and the chain events
/// after it were dropped as belonging to the deleted table).
#[test]
fn a_table_deleted_and_made_again_in_one_commit_lists_its_new_chains() {
    let nft = |op| Step::Nft {
        v6: false,
        t: 0,
        op,
    };
    let chains = || Step::Call {
        t: 0,
        call: Call::Chains,
    };
    regression(Case {
        v6: false,
        guard: false,
        steps: vec![
            nft(NftOp::DelTable),
            nft(NftOp::AddTable),
            nft(NftOp::AddChain(0)),
            chains(),
            // The cached list of filter is now empty.
            nft(NftOp::DelChain(0)),
            chains(),
            Step::NftTx {
                v6: false,
                t: 0,
                ops: vec![NftOp::DelTable, NftOp::AddTable, NftOp::AddChain(3)],
            },
            chains(),
            Step::Call {
                t: 0,
                call: Call::ListTable,
            },
        ],
    });
}

/// The members of a hash set are listed in an order set by its random `initval`: two
/// namespaces given the same members compare equal in whatever order each lists them.
#[test]
fn a_hash_sets_members_compare_equal_in_any_order() {
    let mut steps = vec![Step::Ipset(IpsetOp::Create(true, true))];
    steps.extend((1..=8).map(|i| Step::Ipset(IpsetOp::Add(true, i * 29))));
    regression(Case {
        v6: true,
        guard: false,
        steps,
    });
}
