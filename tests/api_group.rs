//! Group commit: callers of one `IpTables` handle on many threads share kernel commits, and
//! each gets exactly its own result. Each test runs in its own network namespace; what the
//! kernel holds afterwards is read back with `iptables-nft-save`.

mod common;

use std::sync::{Arc, Barrier};

use common::{in_netns, run};
use iptnl::ipt::IpFamily;
use iptnl::iptables::{Error, IpTables};

/// The rule lines of `chain` as iptables-nft saves them.
fn saved_rules(table: &str, chain: &str) -> Vec<String> {
    run("iptables-nft-save", &["-t", table])
        .lines()
        .filter(|l| l.starts_with(&format!("-A {chain} ")))
        .map(str::to_owned)
        .collect()
}

/// Makes `chain` with [`FILL`] rules, so that a commit to its table takes long enough for
/// other callers to queue behind it.
fn filled_chain(ipt: &IpTables, table: &str, chain: &str) {
    ipt.new_chain(table, chain).unwrap();
    let mut tx = ipt.transaction();
    for i in 0..FILL {
        tx.append(
            table,
            chain,
            format!("-d 10.{}.{}.1/32 -j RETURN", i / 256, i % 256).as_str(),
        );
    }
    tx.commit().unwrap();
}

/// How many rules [`filled_chain`] makes.
const FILL: usize = 3000;

/// With a kube-proxy-sized nat table every commit costs the kernel a re-validation of the
/// whole table; 64 threads appending at once must need far fewer commits than appends, and
/// every thread's two rules must be there, in its order.
#[test]
fn concurrent_callers_share_commits_and_keep_their_order() {
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        filled_chain(&ipt, "nat", "GROUP");
        let before = ipt.commit_stats();
        let n = 64;
        let start = Arc::new(Barrier::new(n));
        let threads: Vec<_> = (0..n)
            .map(|i| {
                let (ipt, start) = (ipt.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    for k in 0..2 {
                        ipt.append(
                            "nat",
                            "GROUP",
                            format!("-s 192.168.{i}.{k}/32 -j RETURN").as_str(),
                        )
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let after = ipt.commit_stats();
        let commits = after.commits - before.commits;
        assert!(
            commits < 2 * n as u64,
            "{commits} commits for {} appends",
            2 * n
        );
        assert!(after.grouped > before.grouped, "{after:?}");
        let rules = saved_rules("nat", "GROUP");
        assert_eq!(rules.len(), FILL + 2 * n);
        for i in 0..n {
            let pos = |k: usize| {
                let want = format!("-A GROUP -s 192.168.{i}.{k}/32 -j RETURN");
                rules.iter().position(|r| *r == want).unwrap()
            };
            assert!(pos(0) < pos(1), "caller {i}'s rules out of order");
        }
    });
}

/// A caller whose operation is refused gets its own error; the callers committed beside it
/// are not failed by it, and nothing of the refused caller is applied.
#[test]
fn a_refused_caller_does_not_fail_its_neighbours() {
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        filled_chain(&ipt, "filter", "G");
        let n = 32;
        let start = Arc::new(Barrier::new(n));
        let threads: Vec<_> = (0..n)
            .map(|i| {
                let (ipt, start) = (ipt.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    match i % 4 {
                        // Refused by the planner: no such rule.
                        0 => ipt
                            .delete(
                                "filter",
                                "G",
                                format!("-s 172.16.0.{i}/32 -j DROP").as_str(),
                            )
                            .map(|_| ()),
                        // Refused by the kernel: a jump to a chain that does not exist, in a
                        // transaction whose first append must not be applied either.
                        1 => {
                            let mut tx = ipt.transaction();
                            tx.append("filter", "G", format!("-s 172.17.0.{i}/32").as_str());
                            tx.append("filter", "G", "-j NO-SUCH-CHAIN");
                            tx.commit().map(|_| ())
                        }
                        _ => ipt
                            .append("filter", "G", format!("-s 172.18.0.{i}/32").as_str())
                            .map(|_| ()),
                    }
                })
            })
            .collect();
        let results: Vec<Result<(), Error>> =
            threads.into_iter().map(|t| t.join().unwrap()).collect();
        let rules = saved_rules("filter", "G");
        for (i, r) in results.iter().enumerate() {
            match i % 4 {
                0 | 1 => assert!(r.is_err(), "caller {i} should fail"),
                _ => {
                    assert!(r.is_ok(), "caller {i}: {r:?}");
                    assert!(rules.contains(&format!("-A G -s 172.18.0.{i}/32")));
                }
            }
        }
        assert!(
            !rules.iter().any(|r| r.contains("172.17.0.")),
            "a refused transaction left a rule"
        );
        assert_eq!(rules.len(), FILL + n / 2);
    });
}

/// Read-then-write operations of one group see each other's changes: a check-and-append
/// (`append_unique`) by many threads for the same rule adds it once, and deletes of rules
/// appended by neighbours in the same group find them.
#[test]
fn neighbours_in_a_group_see_each_others_changes() {
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        ipt.new_chain("filter", "U").unwrap();
        let n = 32;
        let start = Arc::new(Barrier::new(n));
        let threads: Vec<_> = (0..n)
            .map(|i| {
                let (ipt, start) = (ipt.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    ipt.append_unique("filter", "U", "-s 10.9.9.9/32 -j ACCEPT")
                        .unwrap();
                    let own = format!("-s 10.8.0.{i}/32 -j ACCEPT");
                    ipt.append("filter", "U", own.as_str()).unwrap();
                    ipt.delete("filter", "U", own.as_str()).unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(
            saved_rules("filter", "U"),
            vec!["-A U -s 10.9.9.9/32 -j ACCEPT".to_owned()]
        );
    });
}

/// A chain that exists, created again after another operation of the same plan named it (a
/// neighbour's append in the same group, here one transaction), is refused by the planner,
/// which asks the kernel: no batch goes to the kernel to be refused there (a refused batch
/// costs the abort path and a commit again without it).
#[test]
fn an_existing_chain_named_earlier_in_the_plan_is_refused_before_the_kernel() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.new_chain("filter", "X").unwrap();
        let before = ipt.commit_stats();
        let mut tx = ipt.transaction();
        tx.append("filter", "X", "-j RETURN")
            .new_chain("filter", "X");
        let e = tx.commit().unwrap_err();
        assert!(matches!(&e, Error::InTransaction { index: 2, .. }), "{e:?}");
        assert!(matches!(e.root(), Error::AlreadyExists { .. }), "{e:?}");
        assert_eq!(
            ipt.commit_stats().commits,
            before.commits,
            "a batch was sent"
        );
        assert!(saved_rules("filter", "X").is_empty());
    });
}
