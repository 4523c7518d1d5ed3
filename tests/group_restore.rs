//! A restore queued with other callers of one `IpTables` handle carries, in its own batch,
//! the commands that do not depend on what it changes: one kernel commit for all of them.
//! Commands on chains the restore names are committed after it; a refused command, or a
//! refused restore, fails nobody else. Each test runs in its own network namespaces; the
//! result is compared with iptables-nft running the same restore and then the same
//! commands one at a time.

mod common;

use std::sync::{Arc, Barrier};

use common::{in_netns, run, run_status};
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::RestoreOptions;
use iptnl::iptables::{Error, IpTables};

/// The chains the commands use, made before the group.
const SETUP: &str = "*nat
:CNI-HOSTPORT-DNAT - [0:0]
:CNI-USED - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-A - [0:0]
-A PREROUTING -j CNI-HOSTPORT-DNAT
-A CNI-HOSTPORT-DNAT -j CNI-USED
-A KUBE-SERVICES -d 10.96.0.1/32 -j KUBE-SVC-A
COMMIT
";

/// A kube-proxy style resync: its own chains only, refilled.
const RESYNC: &str = "*nat
:KUBE-SERVICES - [0:0]
:KUBE-SVC-A - [0:0]
:KUBE-SVC-B - [0:0]
-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp --dport 443 -j KUBE-SVC-A
-A KUBE-SERVICES -d 10.96.0.2/32 -p tcp --dport 80 -j KUBE-SVC-B
-A KUBE-SVC-A -p tcp -j DNAT --to-destination 10.1.0.1:6443
-A KUBE-SVC-B -p tcp -j DNAT --to-destination 10.1.0.2:8080
COMMIT
";

/// Independent appends (one per caller), in chains the restore does not name.
const APPENDS: usize = 12;

fn noflush() -> RestoreOptions {
    RestoreOptions {
        noflush: true,
        ..Default::default()
    }
}

/// The nat table's chain and rule lines as iptables-nft saves them, sorted (callers of one
/// group are committed in the order they queued, which the threads do not fix).
fn saved_nat() -> Vec<String> {
    let mut v: Vec<String> = run("iptables-nft-save", &["-t", "nat"])
        .lines()
        .filter(|l| l.starts_with(':') || l.starts_with("-A "))
        .map(|l| match l.split_once(" [") {
            Some((chain, _)) if l.starts_with(':') => chain.to_owned(),
            _ => l.to_owned(),
        })
        .collect();
    v.sort();
    v
}

/// What each kind of caller does, in iptables words for the oracle.
fn appended(i: usize) -> String {
    format!("-p tcp --dport {} -j RETURN", 8000 + i)
}

/// iptables-nft: the setup, the restore, then each command alone, in the order the group
/// commits them (the restore first, then the commands; the refused ones fail).
fn oracle() -> Vec<String> {
    in_netns(|| {
        let ok = |args: &[&str], stdin: Option<&str>| {
            let o = run_status(args[0], &args[1..], stdin);
            (
                o.status.success(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        };
        assert!(ok(&["iptables-nft-restore"], Some(SETUP)).0);
        assert!(ok(&["iptables-nft-restore", "--noflush"], Some(RESYNC)).0);
        for i in 0..APPENDS {
            let spec = appended(i);
            let mut args = vec!["iptables-nft", "-t", "nat", "-A", "CNI-HOSTPORT-DNAT"];
            args.extend(spec.split(' '));
            assert!(ok(&args, None).0);
        }
        assert!(
            ok(
                &[
                    "iptables-nft",
                    "-t",
                    "nat",
                    "-A",
                    "KUBE-SVC-A",
                    "-j",
                    "RETURN"
                ],
                None
            )
            .0
        );
        assert!(
            !ok(
                &["iptables-nft", "-t", "nat", "-A", "NO-SUCH", "-j", "RETURN"],
                None
            )
            .0
        );
        assert!(!ok(&["iptables-nft", "-t", "nat", "-X", "CNI-USED"], None).0);
        saved_nat()
    })
}

/// The restore, the independent appends, an append to a chain the restore refills, an
/// append the planner refuses and a chain delete the kernel refuses, all queued at once
/// behind a gathering window: one commit carries the restore and the appends, one more the
/// dependent append, and the result equals iptables-nft's one at a time.
#[test]
fn a_restore_carries_the_commands_queued_beside_it() {
    let want = oracle();
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        ipt.restore(SETUP, &RestoreOptions::default()).unwrap();
        ipt.set_group_window(std::time::Duration::from_millis(300));
        let before = ipt.commit_stats();
        let callers = APPENDS + 4;
        let start = Arc::new(Barrier::new(callers));
        let threads: Vec<_> = (0..callers)
            .map(|i| {
                let (ipt, start) = (ipt.clone(), start.clone());
                std::thread::spawn(move || -> Result<bool, String> {
                    start.wait();
                    let e = |e: Error| e.to_string();
                    match i {
                        0 => ipt
                            .try_restore(RESYNC, &noflush())
                            .map(|r| r.ops > 0)
                            .map_err(|e| e.to_string()),
                        1 => ipt
                            .append("nat", "KUBE-SVC-A", "-j RETURN")
                            .map(|_| true)
                            .map_err(e),
                        2 => ipt
                            .append("nat", "NO-SUCH", "-j RETURN")
                            .map(|_| true)
                            .map_err(e),
                        3 => ipt.delete_chain("nat", "CNI-USED").map(|_| true).map_err(e),
                        _ => ipt
                            .append("nat", "CNI-HOSTPORT-DNAT", appended(i - 4).as_str())
                            .map(|_| true)
                            .map_err(e),
                    }
                })
            })
            .collect();
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(results[0], Ok(true), "the restore");
        assert_eq!(
            results[1],
            Ok(true),
            "the append to a chain the restore refills"
        );
        assert!(results[2].is_err(), "an append to a missing chain");
        assert!(results[3].is_err(), "deleting a chain in use");
        for (i, r) in results.iter().enumerate().skip(4) {
            assert_eq!(r, &Ok(true), "caller {i}");
        }
        let after = ipt.commit_stats();
        assert_eq!(
            after.commits - before.commits,
            2,
            "one commit for the restore and the commands beside it, one for the command after it: {after:?}"
        );
        assert_eq!(saved_nat(), want);
        // The commands beside it changed nothing the restore names: the same resync again
        // is answered from the handle's memory.
        let again = ipt.try_restore(RESYNC, &noflush()).unwrap();
        assert!(!again.remembered, "the append after it changed KUBE-SVC-A");
    });
}

/// A restore the kernel refuses fails alone: nothing of it is applied, and the commands
/// queued with it are committed after it.
#[test]
fn a_refused_restore_fails_alone() {
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        ipt.restore(SETUP, &RestoreOptions::default()).unwrap();
        let before_restore = saved_nat();
        ipt.set_group_window(std::time::Duration::from_millis(300));
        let bad = "*nat\n:KUBE-SVC-A - [0:0]\n-A KUBE-SVC-A -j KUBE-MISSING\nCOMMIT\n";
        let callers = 1 + APPENDS;
        let start = Arc::new(Barrier::new(callers));
        let threads: Vec<_> = (0..callers)
            .map(|i| {
                let (ipt, start) = (ipt.clone(), start.clone());
                std::thread::spawn(move || -> Result<(), String> {
                    start.wait();
                    if i == 0 {
                        return ipt
                            .try_restore(bad, &noflush())
                            .map(|_| ())
                            .map_err(|e| e.to_string());
                    }
                    ipt.append("nat", "CNI-HOSTPORT-DNAT", appended(i).as_str())
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let err = results[0].clone().unwrap_err();
        assert!(err.starts_with("line 3: "), "{err}");
        for r in &results[1..] {
            assert_eq!(r, &Ok(()));
        }
        let mut want = before_restore;
        for i in 1..callers {
            want.push(format!(
                "-A CNI-HOSTPORT-DNAT -p tcp -m tcp --dport {} -j RETURN",
                8000 + i
            ));
        }
        want.sort();
        assert_eq!(saved_nat(), want);
    });
}

/// A restore and a command queued with it share one commit, and the memory of the restore
/// survives the command: it changes nothing the restore names, so the same input again is
/// answered without a commit.
#[test]
fn a_command_beside_a_restore_shares_its_commit_and_keeps_it_remembered() {
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        ipt.restore(SETUP, &RestoreOptions::default()).unwrap();
        ipt.set_group_window(std::time::Duration::from_millis(300));
        let start = Arc::new(Barrier::new(2));
        let t = {
            let (ipt, start) = (ipt.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                ipt.append("nat", "CNI-HOSTPORT-DNAT", "-j RETURN").unwrap();
            })
        };
        let before = ipt.commit_stats();
        start.wait();
        let first = ipt.try_restore(RESYNC, &noflush()).unwrap();
        t.join().unwrap();
        assert!(first.ops > 0);
        let after = ipt.commit_stats();
        assert_eq!(
            after.commits - before.commits,
            1,
            "one commit for both: {after:?}"
        );
        assert_eq!(after.grouped - before.grouped, 2, "{after:?}");
        let again = ipt.try_restore(RESYNC, &noflush()).unwrap();
        assert!(again.remembered, "{again:?}");
        assert_eq!(again.generation, first.generation);
        assert!(run("iptables-nft-save", &["-t", "nat"]).contains("-A CNI-HOSTPORT-DNAT -j RETURN"));
    });
}

/// A command on a chain the restore appends to waits for it even where the restore plans
/// the appends one by one (its table named a second time in the input): a delete of the
/// rule the restore appends finds it.
#[test]
fn a_command_on_a_chain_the_restore_appends_to_waits_for_it() {
    in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        ipt.restore(SETUP, &RestoreOptions::default()).unwrap();
        ipt.new_chain("nat", "LATE").unwrap();
        ipt.set_group_window(std::time::Duration::from_millis(300));
        let input = format!("{RESYNC}*nat\n-A LATE -j RETURN\nCOMMIT\n");
        let start = Arc::new(Barrier::new(2));
        let t = {
            let (ipt, start) = (ipt.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                ipt.delete("nat", "LATE", "-j RETURN")
            })
        };
        start.wait();
        ipt.try_restore(&input, &noflush()).unwrap();
        t.join().unwrap().unwrap();
        let saved = run("iptables-nft-save", &["-t", "nat"]);
        assert!(!saved.contains("-A LATE"), "{saved}");
        assert!(saved.contains(":LATE - "), "{saved}");
    });
}
