//! The `kube_services` example (a kube-proxy-like sync through `IpTables` transactions):
//! its second sync, which applies only the delta in one transaction, must leave the nat table
//! exactly as a full sync of the new state does in a fresh namespace (`iptables-nft-save` is
//! the oracle); and the example's binary, as `cargo test` builds it, runs.

mod common;

#[allow(dead_code)]
#[path = "../examples/kube_services.rs"]
mod kube_services;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{in_netns, run};
use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;
use kube_services::{delta_sync, desired, full_sync, Options};

/// The nat table as chain -> rules (`iptables-nft-save -t nat`, counters and comments on
/// the dump left out). KUBE-SERVICES jumps are sorted (their order does not matter to
/// kube-proxy) after checking that the nodeports rule is last.
fn nat_model() -> BTreeMap<String, Vec<String>> {
    let save = run("iptables-nft-save", &["-t", "nat"]);
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in save.lines() {
        if let Some(c) = l.strip_prefix(':') {
            let name = c.split_whitespace().next().unwrap().to_owned();
            m.entry(name).or_default();
        } else if let Some(r) = l.strip_prefix("-A ") {
            let (chain, rule) = r.split_once(' ').unwrap();
            m.entry(chain.to_owned()).or_default().push(rule.to_owned());
        }
    }
    let svc = m.get_mut("KUBE-SERVICES").expect("KUBE-SERVICES");
    let last = svc.pop().expect("a rule in KUBE-SERVICES");
    assert!(
        last.contains("-j KUBE-NODEPORTS"),
        "nodeports rule not last: {last}"
    );
    svc.sort();
    svc.push(last);
    m
}

fn opts(args: &[&str]) -> Options {
    Options::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
}

#[test]
fn delta_sync_leaves_what_a_full_sync_writes() {
    let o = opts(&["--services", "40", "--endpoints", "3", "--added", "3"]);
    assert_eq!((o.changed, o.removed, o.added), (4, 2, 3));
    let (first, second) = desired(&o);
    assert_eq!(second.len(), 41);

    let (after_delta, s1, s2) = in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        let s1 = full_sync(&ipt, &first).unwrap();
        let before = nat_model();
        assert_eq!(before["KUBE-SERVICES"].len(), first.len() + 1);
        let s2 = delta_sync(&ipt, &first, &second).unwrap();
        (nat_model(), s1, s2)
    });
    let after_full = in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        full_sync(&ipt, &second).unwrap();
        nat_model()
    });
    assert_eq!(
        after_delta.keys().collect::<Vec<_>>(),
        after_full.keys().collect::<Vec<_>>(),
        "chains differ"
    );
    for (chain, rules) in &after_full {
        assert_eq!(&after_delta[chain], rules, "chain {chain}");
    }
    assert_eq!(
        after_delta
            .keys()
            .filter(|c| c.starts_with("KUBE-SVC-"))
            .count(),
        41
    );
    // The delta is a small part of a full sync.
    assert!(s1.ops > 400, "first sync: {s1:?}");
    assert!(s2.ops < s1.ops / 3, "delta: {s2:?} vs full {s1:?}");
    assert!(s2.kernel <= s2.wall);
}

#[test]
fn delta_sync_is_one_transaction() {
    // A delta whose last operation fails (deleting a jump that is not there) applies nothing.
    let o = opts(&["--services", "10", "--changed", "2", "--removed", "1"]);
    let (first, second) = desired(&o);
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        full_sync(&ipt, &first).unwrap();
        let save = || {
            run("iptables-nft-save", &["-t", "nat"])
                .lines()
                .filter(|l| !l.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let before = save();
        let mut old = first.clone();
        old[0].cluster_ip = "10.96.250.250".into();
        let e = delta_sync(&ipt, &old, &second).unwrap_err();
        assert!(e.is_not_found(), "{e}");
        assert_eq!(save(), before);
    });
}

/// The example's binary (built by `cargo test` with the other examples).
fn example_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("examples");
    let p = dir.join("kube_services");
    p.exists().then_some(p)
}

#[test]
fn example_binary_runs() {
    let Some(bin) = example_binary() else {
        eprintln!("examples/kube_services not built (cargo test --all builds it): skipped");
        return;
    };
    // The example makes its own namespace; spawned from one anyway, so nothing leaks.
    let out = in_netns(|| run(bin.to_str().unwrap(), &["--services", "20"]));
    assert!(out.contains("sync 1: 20 services"), "{out}");
    assert!(
        out.contains("KUBE-SERVICES now holds 20 service jumps (expected 20)"),
        "{out}"
    );
}
