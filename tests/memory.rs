//! The in-memory ruleset through the whole API, without root or a kernel: what the kernel
//! refuses is refused the same way, transactions and restores are all or nothing, counters
//! are values, a stale generation is a conflict, events reach monitors and the cache, owned
//! chains are synced and repaired, and what is not modelled says so. (Its answers are
//! compared with the kernel's by `memory_diff.rs`, `memory_xt.rs` and `memory_cli.rs`.)

use std::sync::Arc;
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::RestoreOptions;
use iptnl::iptables::{Error, IpTables};
use iptnl::memory::Ruleset;
use iptnl::nft::monitor::{Event, Monitor};
use iptnl::nft::Policy;
use iptnl::sync::{Desired, Guard, GuardOptions, Owner};
use iptnl::Position;

fn v4() -> IpTables {
    IpTables::in_memory(IpFamily::V4)
}

/// The save text without its comment lines (they carry the time).
fn save(ipt: &IpTables, table: &str) -> String {
    ipt.save(Some(table), true)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn writes_and_reads_as_on_the_kernel() {
    let ipt = v4();
    ipt.append("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT")
        .unwrap();
    ipt.insert("filter", "INPUT", 1, "-i lo -j ACCEPT").unwrap();
    ipt.new_chain("filter", "LOGDROP").unwrap();
    ipt.append("filter", "LOGDROP", "-j LOG --log-prefix \"drop: \"")
        .unwrap();
    ipt.append("filter", "LOGDROP", "-j DROP").unwrap();
    ipt.append("filter", "INPUT", "-j LOGDROP").unwrap();
    ipt.set_policy("filter", "FORWARD", Policy::Drop).unwrap();
    assert!(ipt
        .exists("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT")
        .unwrap());
    assert_eq!(
        ipt.list("filter", "INPUT").unwrap(),
        [
            "-P INPUT ACCEPT",
            "-A INPUT -i lo -j ACCEPT",
            "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT",
            "-A INPUT -j LOGDROP",
        ]
    );
    assert_eq!(
        ipt.list_chains("filter").unwrap(),
        ["INPUT", "FORWARD", "OUTPUT", "LOGDROP"]
    );
    assert_eq!(ipt.get_policy("filter", "FORWARD").unwrap(), Policy::Drop);
    ipt.rename_chain("filter", "LOGDROP", "LOG-AND-DROP")
        .unwrap();
    assert_eq!(
        ipt.list("filter", "INPUT").unwrap()[3],
        "-A INPUT -j LOG-AND-DROP"
    );
    ipt.delete("filter", "INPUT", "-i lo -j ACCEPT").unwrap();
    ipt.delete_by_number("filter", "INPUT", 1).unwrap();
    assert_eq!(
        ipt.list("filter", "INPUT").unwrap(),
        ["-P INPUT ACCEPT", "-A INPUT -j LOG-AND-DROP"]
    );
}

#[test]
fn refuses_what_the_kernel_refuses() {
    let ipt = v4();
    ipt.new_chain("filter", "A").unwrap();
    assert!(ipt.new_chain("filter", "A").unwrap_err().is_exists());
    assert!(ipt
        .append("filter", "NOPE", "-j ACCEPT")
        .unwrap_err()
        .is_not_found());
    ipt.append("filter", "A", "-j ACCEPT").unwrap();
    ipt.append("filter", "INPUT", "-j A").unwrap();
    // A chain with rules, and one still jumped to.
    assert!(ipt.delete_chain("filter", "A").unwrap_err().is_in_use());
    ipt.clear_chain("filter", "A").unwrap();
    assert!(ipt.delete_chain("filter", "A").unwrap_err().is_in_use());
    // Targets outside their table or hook (the x_tables checks).
    for (table, chain, spec) in [
        ("filter", "INPUT", "-j MASQUERADE"),
        ("nat", "PREROUTING", "-j MASQUERADE"),
        ("filter", "INPUT", "-j CT --notrack"),
        ("nat", "PREROUTING", "-j SNAT --to-source 10.0.0.1"),
        ("filter", "INPUT", "-j REJECT --reject-with tcp-reset"),
        ("mangle", "PREROUTING", "-j REJECT"),
    ] {
        let e = ipt.append(table, chain, spec).unwrap_err();
        assert_eq!(e.errno(), Some(libc::EINVAL), "{table} {chain} {spec}: {e}");
    }
    // Allowed in a user chain, until a base chain with the wrong hook reaches it.
    ipt.new_chain("nat", "M").unwrap();
    ipt.append("nat", "M", "-j MASQUERADE").unwrap();
    let e = ipt.append("nat", "PREROUTING", "-j M").unwrap_err();
    assert_eq!(e.errno(), Some(libc::EINVAL), "{e}");
    ipt.append("nat", "POSTROUTING", "-j M").unwrap();
    // A loop is fine until a base chain reaches it; 16 nested chains are too many.
    ipt.new_chain("filter", "L1").unwrap();
    ipt.new_chain("filter", "L2").unwrap();
    ipt.append("filter", "L1", "-j L2").unwrap();
    ipt.append("filter", "L2", "-j L1").unwrap();
    let e = ipt.append("filter", "OUTPUT", "-j L1").unwrap_err();
    assert_eq!(e.errno(), Some(libc::EMLINK), "{e}");
    let mut tx = ipt.transaction();
    for i in 0..16 {
        tx.new_chain("filter", &format!("D{i}"));
    }
    for i in 0..15 {
        tx.append(
            "filter",
            &format!("D{i}"),
            format!("-j D{}", i + 1).as_str(),
        );
    }
    tx.append("filter", "FORWARD", "-j D0");
    assert_eq!(tx.commit().unwrap_err().errno(), Some(libc::EMLINK));
    // A built-in chain is kept unless empty with policy ACCEPT.
    ipt.set_policy("filter", "FORWARD", Policy::Drop).unwrap();
    assert!(matches!(
        ipt.delete_chain("filter", "FORWARD"),
        Err(Error::BuiltinKept { .. })
    ));
}

#[test]
fn a_failed_transaction_or_restore_changes_nothing() {
    let ipt = v4();
    ipt.append("filter", "INPUT", "-j ACCEPT").unwrap();
    let before = save(&ipt, "filter");
    let genid = ipt.with_conn(|c| c.genid()).unwrap();
    let mut tx = ipt.transaction();
    tx.new_chain("filter", "NEW")
        .append("filter", "NEW", "-j DROP")
        .append("filter", "INPUT", "-j MASQUERADE")
        .append("filter", "INPUT", "-j NEW");
    assert!(tx.commit().is_err());
    let bad = "*filter\n-A INPUT -j DROP\n-N X\n-A X -j NOSUCH\nCOMMIT\n";
    let opts = RestoreOptions {
        noflush: true,
        ..RestoreOptions::default()
    };
    assert!(ipt.restore(bad, &opts).is_err());
    assert_eq!(save(&ipt, "filter"), before);
    assert_eq!(ipt.with_conn(|c| c.genid()).unwrap(), genid);
}

#[test]
fn counters_are_values() {
    let ipt = v4();
    let text = "*filter\n:INPUT DROP [10:1000]\n[3:180] -A INPUT -p tcp --dport 443 -j ACCEPT\n[0:0] -A INPUT -j ACCEPT\nCOMMIT\n";
    let opts = RestoreOptions {
        counters: true,
        ..RestoreOptions::default()
    };
    ipt.restore(text, &opts).unwrap();
    let saved = save(&ipt, "filter");
    assert!(saved.contains(":INPUT DROP [10:1000]"), "{saved}");
    assert!(
        saved.contains("[3:180] -A INPUT -p tcp -m tcp --dport 443 -j ACCEPT"),
        "{saved}"
    );
    ipt.zero("filter", "INPUT", Some(1)).unwrap();
    assert!(save(&ipt, "filter").contains("[0:0] -A INPUT -p tcp -m tcp --dport 443 -j ACCEPT"));
    ipt.zero("filter", "INPUT", None).unwrap();
    assert!(save(&ipt, "filter").contains(":INPUT DROP [0:0]"));
}

#[test]
fn a_kube_proxy_ruleset_restores_and_saves_back() {
    use iptnl::workload::{kube_proxy, KubeProxyOptions};
    let (text, stats) = kube_proxy(&KubeProxyOptions::sized(5_000));
    let ipt = v4();
    let report = ipt.restore(&text, &RestoreOptions::default()).unwrap();
    assert_eq!(report.rules_added, stats.rules);
    let saved = ipt.save(None, false).unwrap();
    // Saved back, it restores to the same ruleset.
    let again = v4();
    again.restore(&saved, &RestoreOptions::default()).unwrap();
    let strip = |s: String| {
        s.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(again.save(None, false).unwrap()), strip(saved));
    // A small delta with --noflush, as kube-proxy's partial syncs send.
    let delta = "*nat\n-N KUBE-SVC-NEW\n-A KUBE-SVC-NEW -j KUBE-MARK-MASQ\nCOMMIT\n";
    let opts = RestoreOptions {
        noflush: true,
        ..RestoreOptions::default()
    };
    ipt.restore(delta, &opts).unwrap();
    assert!(ipt.chain_exists("nat", "KUBE-SVC-NEW").unwrap());
}

#[test]
fn a_stale_generation_is_a_conflict() {
    use iptnl::nft::{Batch, Chain, Family, Table};
    let ruleset = Ruleset::new();
    let mut a = ruleset.conn();
    let mut b = ruleset.conn();
    let genid = a.genid().unwrap();
    let mut batch = Batch::new();
    batch
        .add_table(&Table::new(Family::Ipv4, "filter"))
        .unwrap();
    batch.commit(&mut b).unwrap();
    let mut stale = Batch::new();
    stale.set_genid(Some(genid));
    stale
        .add_table(&Table::new(Family::Ipv4, "filter"))
        .unwrap();
    stale
        .add_chain(&Chain::user(Family::Ipv4, "filter", "X"), true)
        .unwrap();
    let e = stale.commit(&mut a).unwrap_err();
    assert!(matches!(e, iptnl::nft::Error::Conflict { .. }), "{e}");
    assert_eq!(ruleset.genid(), genid + 1);
    // Handles re-read and plan again when another writer moved the generation.
    let h1 = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let h2 = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    h1.append("filter", "INPUT", "-j ACCEPT").unwrap();
    assert!(h1.exists("filter", "INPUT", "-j ACCEPT").unwrap());
    h2.delete("filter", "INPUT", "-j ACCEPT").unwrap();
    assert!(!h1.exists("filter", "INPUT", "-j ACCEPT").unwrap());
}

#[test]
fn events_reach_monitors_and_the_cache() {
    let ruleset = Ruleset::new();
    let writer = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let reader = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    reader.set_follow_events(true);
    let mut monitor = Monitor::beside(&ruleset.conn()).unwrap();
    writer.append("filter", "INPUT", "-j ACCEPT").unwrap();
    assert!(reader.exists("filter", "INPUT", "-j ACCEPT").unwrap());
    writer
        .append("filter", "INPUT", "-s 10.0.0.1 -j DROP")
        .unwrap();
    assert!(reader
        .exists("filter", "INPUT", "-s 10.0.0.1 -j DROP")
        .unwrap());
    let mut seen = Vec::new();
    while let Some(ev) = monitor.try_next().unwrap() {
        seen.push(ev);
    }
    let rules = seen
        .iter()
        .filter(|e| matches!(e, Event::NewRule(_)))
        .count();
    let gens: Vec<u32> = seen
        .iter()
        .filter_map(|e| match e {
            Event::NewGen { genid, .. } => Some(*genid),
            _ => None,
        })
        .collect();
    assert_eq!(rules, 2, "{seen:?}");
    assert_eq!(gens, [2, 3], "{seen:?}");
    assert!(matches!(seen[0], Event::NewTable(_)), "{seen:?}");
}

#[test]
fn owned_chains_are_synced_and_repaired() {
    let ruleset = Ruleset::new();
    let ipt = Arc::new(IpTables::from_conn(IpFamily::V4, ruleset.conn()));
    let other = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let mut d = Desired::new(IpFamily::V4, Owner::new("FLANNEL-", "flannel").unwrap());
    d.chain(
        "nat",
        "FLANNEL-POSTRTG",
        &[
            "-s 10.244.0.0/16 -d 10.244.0.0/16 -j RETURN",
            "-s 10.244.0.0/16 ! -d 224.0.0.0/4 -j MASQUERADE --random-fully",
        ],
    )
    .unwrap();
    d.hook("nat", "POSTROUTING", Position::First, "-j FLANNEL-POSTRTG")
        .unwrap();
    let guard = Guard::spawn(ipt.clone(), d, GuardOptions::default()).unwrap();
    let wanted = ipt.list("nat", "FLANNEL-POSTRTG").unwrap();
    assert_eq!(wanted.len(), 3);
    // Someone deletes an owned rule: the guard puts it back.
    other.delete_by_number("nat", "FLANNEL-POSTRTG", 1).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while ipt.list("nat", "FLANNEL-POSTRTG").unwrap() != wanted {
        assert!(Instant::now() < deadline, "the guard did not repair");
        std::thread::sleep(Duration::from_millis(5));
    }
    let stats = guard.stop();
    assert!(stats.repairs >= 1, "{stats:?}");
}

#[test]
fn both_families_share_one_ruleset() {
    let ruleset = Ruleset::new();
    let v4 = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let v6 = IpTables::from_conn(IpFamily::V6, ruleset.conn());
    v4.append("filter", "INPUT", "-s 10.0.0.0/8 -j DROP")
        .unwrap();
    v6.append("filter", "INPUT", "-s fd00::/8 -j DROP").unwrap();
    assert_eq!(v4.list("filter", "INPUT").unwrap().len(), 2);
    assert_eq!(
        v6.list("filter", "INPUT").unwrap()[1],
        "-A INPUT -s fd00::/8 -j DROP"
    );
    assert_eq!(ruleset.genid(), 3);
}

#[test]
fn what_is_not_modelled_says_so_and_changes_nothing() {
    let ipt = v4();
    ipt.append("filter", "INPUT", "-j ACCEPT").unwrap();
    let genid = ipt.with_conn(|c| c.genid()).unwrap();
    let e = ipt
        .append(
            "filter",
            "INPUT",
            "-m hashlimit --hashlimit-upto 5/sec --hashlimit-name a -j ACCEPT",
        )
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("hashlimit"), "{e}");
    assert_eq!(ipt.with_conn(|c| c.genid()).unwrap(), genid);
    // The next rule gets the next handle: the refused one used none.
    let added = ipt.append("filter", "INPUT", "-j DROP").unwrap();
    assert_eq!(format!("{added:?}"), "Added { handles: [3] }");
}

/// Set in the environment of this binary's unprivileged run.
const UNPRIVILEGED: &str = "IPTNL_MEMORY_TESTS_UNPRIVILEGED";

/// These tests need no privileges, and this proves it: run as root (as CI runs them), this
/// binary runs all of them again in a user namespace of its own (`unshare -r`), where the
/// process keeps its files but has no capability over the network namespace it is in. There
/// the kernel refuses its netlink requests as it refuses any unprivileged user (checked
/// first), and every test must still pass.
#[test]
fn the_tests_pass_without_privileges() {
    if std::env::var_os(UNPRIVILEGED).is_some() {
        let refused = IpTables::new(IpFamily::V4).and_then(|h| h.list("filter", "INPUT"));
        match refused {
            Err(e) => assert!(e.is_permission(), "not refused for want of privileges: {e}"),
            Ok(rules) => panic!("the kernel answered an unprivileged process: {rules:?}"),
        }
        return;
    }
    if iptnl::netlink::effective_uid() != 0 {
        // Unprivileged already: the other tests show it.
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = match std::process::Command::new("unshare")
        .args(["--user", "--map-root-user"])
        .arg(&exe)
        .args(["--test-threads", "2"])
        .env(UNPRIVILEGED, "1")
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: cannot run unshare: {e}");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stdout.contains("test result") && stderr.contains("unshare failed") {
        eprintln!("skipped: no user namespace here: {stderr}");
        return;
    }
    assert!(
        out.status.success() && stdout.contains("test result: ok"),
        "without privileges:\n{stdout}\n{stderr}"
    );
}

/// A hook's `Position` counts the rules of others only: a number is a place among them (past
/// their end is the end), an anchor names one of them by its comment, and inserts of others
/// at the same `Position` type land where `IpTables::insert` puts them.
#[test]
fn hook_positions_count_the_rules_of_others() {
    let ruleset = Ruleset::new();
    let ipt = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    for (i, c) in ["one", "two", "three"].iter().enumerate() {
        ipt.append(
            "filter",
            "INPUT",
            format!("-s 10.0.0.{} -m comment --comment {c}", i + 1).as_str(),
        )
        .unwrap();
    }
    let mut d = Desired::new(IpFamily::V4, Owner::new("AG-", "ag").unwrap());
    d.chain("filter", "AG-A", &["-j RETURN"]).unwrap();
    d.hook("filter", "INPUT", 2, "-j AG-A").unwrap();
    d.hook(
        "filter",
        "INPUT",
        Position::After("three".into()),
        "-s 1.1.1.1 -j AG-A",
    )
    .unwrap();
    d.hook("filter", "INPUT", Position::Number(9), "-s 2.2.2.2 -j AG-A")
        .unwrap();
    assert!(d.hook("filter", "INPUT", 0, "-j AG-A").is_err());
    iptnl::sync::sync(&ipt, &d).unwrap();
    let shown: Vec<String> = ipt
        .list("filter", "INPUT")
        .unwrap()
        .into_iter()
        .map(|l| match l.split_once(" -m comment --comment ") {
            // Without the comment (the owner's hash, or the anchor's name).
            Some((a, b)) => format!("{a}{}", b.find(" -j").map_or("", |i| &b[i..])),
            None => l,
        })
        .collect();
    assert_eq!(
        shown,
        [
            "-P INPUT ACCEPT",
            "-A INPUT -s 10.0.0.1/32",
            "-A INPUT -j AG-A",
            "-A INPUT -s 10.0.0.2/32",
            "-A INPUT -s 10.0.0.3/32",
            "-A INPUT -s 1.1.1.1/32 -j AG-A",
            "-A INPUT -s 2.2.2.2/32 -j AG-A",
        ]
    );
    // Inserting at 2 counts every rule, the owner's hooks too.
    ipt.insert("filter", "INPUT", 2, "-s 3.3.3.3").unwrap();
    ipt.insert(
        "filter",
        "INPUT",
        Position::Before("two".into()),
        "-s 4.4.4.4",
    )
    .unwrap();
    let l = ipt.list("filter", "INPUT").unwrap();
    assert_eq!(l[2], "-A INPUT -s 3.3.3.3/32");
    assert_eq!(l[4], "-A INPUT -s 4.4.4.4/32");
    assert!(l[5].starts_with("-A INPUT -s 10.0.0.2/32"));
}

/// A rule appended to a built-in chain that this handle has seen, while the generation has
/// not moved since, is sent without reading the chain back first (one `sendmsg` per
/// append); whoever removes the chain meanwhile (another handle, this handle's own
/// `-X`, a restore that does not declare it) moves the generation, and the next append
/// creates the chain again, as iptables-nft does.
#[test]
fn appends_read_a_built_in_chain_back_only_when_something_changed() {
    let ruleset = Ruleset::new();
    let a = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let b = IpTables::from_conn(IpFamily::V4, ruleset.conn());
    let rule = |i: u32| format!("-s 10.0.0.{i} -j ACCEPT");
    let sends = |ipt: &IpTables, f: &dyn Fn()| {
        let before = ipt.kernel_time().sends;
        f();
        ipt.kernel_time().sends - before
    };
    a.append("filter", "INPUT", rule(1).as_str()).unwrap();
    a.append("filter", "INPUT", rule(2).as_str()).unwrap();
    for i in 3..6 {
        let n = sends(&a, &|| {
            a.append("filter", "INPUT", rule(i).as_str()).unwrap();
        });
        assert_eq!(n, 1, "append {i}: only the batch is sent");
    }
    // Another handle empties and deletes INPUT.
    b.clear_chain("filter", "INPUT").unwrap();
    b.delete_chain("filter", "INPUT").unwrap();
    let n = sends(&a, &|| {
        a.append("filter", "INPUT", rule(6).as_str()).unwrap();
    });
    assert!(
        n > 1,
        "the chain is read back after another handle's commit"
    );
    assert_eq!(
        a.list("filter", "INPUT").unwrap(),
        ["-P INPUT ACCEPT", "-A INPUT -s 10.0.0.6/32 -j ACCEPT"]
    );
    // The handle's own deletion.
    a.append("filter", "INPUT", rule(7).as_str()).unwrap();
    a.clear_chain("filter", "INPUT").unwrap();
    a.delete_chain("filter", "INPUT").unwrap();
    a.append("filter", "INPUT", rule(8).as_str()).unwrap();
    assert_eq!(
        a.list("filter", "INPUT").unwrap(),
        ["-P INPUT ACCEPT", "-A INPUT -s 10.0.0.8/32 -j ACCEPT"]
    );
    // A restore that rebuilds the table without INPUT.
    a.append("filter", "INPUT", rule(9).as_str()).unwrap();
    a.restore(
        "*filter\n:FORWARD ACCEPT [0:0]\nCOMMIT\n",
        &RestoreOptions::default(),
    )
    .unwrap();
    a.append("filter", "INPUT", rule(10).as_str()).unwrap();
    assert_eq!(
        b.list("filter", "INPUT").unwrap(),
        ["-P INPUT ACCEPT", "-A INPUT -s 10.0.0.10/32 -j ACCEPT"]
    );
}
