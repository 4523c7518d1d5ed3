//! The `IpTables` handle against go-iptables' documented behaviour, with `iptables-nft -S`,
//! `iptables-nft -L` and `iptables-nft-save` as oracles. Each test runs in its own network
//! namespace.
// Specs are written `&["-j", "ACCEPT"]` as go-iptables users write them (arrays work
// by value too).
#![allow(clippy::needless_borrows_for_generic_args)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::{in_netns, run, run_status};
use iptnl::ipt::IpFamily;
use iptnl::iptables::{Error, IpTables, OpResult, What};
use iptnl::nft::Policy;
use iptnl::Position;

fn v4() -> IpTables {
    IpTables::new(IpFamily::V4).expect("netlink socket")
}

/// `iptables-nft [-t table] args` output as lines.
fn ipt_lines(table: &str, args: &[&str]) -> Vec<String> {
    let mut a = vec!["-t", table];
    a.extend_from_slice(args);
    run("iptables-nft", &a).lines().map(str::to_owned).collect()
}

fn oracle_s(table: &str, chain: &str) -> Vec<String> {
    ipt_lines(table, &["-S", chain])
}

/// iptables-save output without the comment lines (dates and versions differ).
fn strip_comments(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn list_equals_iptables_s() {
    in_netns(|| {
        let ipt = v4();
        ipt.append(
            "filter",
            "INPUT",
            &["-s", "10.0.0.1,10.0.0.2", "-j", "ACCEPT"],
        )
        .unwrap();
        ipt.new_chain("filter", "FOO").unwrap();
        ipt.new_chain("filter", "BAR").unwrap();
        ipt.append(
            "filter",
            "FOO",
            "-p tcp --dport 80 -m comment --comment \"web in\" -j ACCEPT",
        )
        .unwrap();
        ipt.append(
            "filter",
            "FOO",
            &["-i", "eth0", "!", "-d", "192.168.0.0/16", "-j", "DROP"],
        )
        .unwrap();
        ipt.append("filter", "INPUT", &["-j", "FOO"]).unwrap();
        ipt.append("filter", "INPUT", &["-p", "udp", "-g", "BAR"])
            .unwrap();
        ipt.append(
            "nat",
            "POSTROUTING",
            &["-o", "eth0", "-j", "MASQUERADE", "--random-fully"],
        )
        .unwrap();
        for (t, c) in [
            ("filter", "INPUT"),
            ("filter", "FOO"),
            ("filter", "BAR"),
            ("filter", "OUTPUT"),
            ("nat", "POSTROUTING"),
            ("nat", "PREROUTING"),
            ("raw", "OUTPUT"),
        ] {
            assert_eq!(ipt.list(t, c).unwrap(), oracle_s(t, c), "-S {c} in {t}");
            assert_eq!(
                ipt.list_with_counters(t, c).unwrap(),
                ipt_lines(t, &["-v", "-S", c]),
                "-v -S {c} in {t}"
            );
        }
        assert_eq!(
            ipt.list_table("filter").unwrap(),
            ipt_lines("filter", &["-S"])
        );
        assert_eq!(ipt.list_table("nat").unwrap(), ipt_lines("nat", &["-S"]));
        assert_eq!(
            ipt.list_chains("filter").unwrap(),
            ["INPUT", "FORWARD", "OUTPUT", "BAR", "FOO"]
        );
        assert_eq!(ipt.list_chains("mangle").unwrap().len(), 5);
        assert_eq!(
            ipt.list_by_number("filter", "INPUT", 2).unwrap(),
            ipt_lines("filter", &["-S", "INPUT", "2"])[0]
        );
        assert!(ipt
            .list_by_number("filter", "INPUT", 9)
            .unwrap_err()
            .is_not_found());
        let e = ipt.list("filter", "NOPE").unwrap_err();
        assert!(e.is_not_found(), "{e}");
        // Whole ruleset against iptables-nft-save.
        assert_eq!(
            strip_comments(&ipt.save(None, false).unwrap()),
            strip_comments(&run("iptables-nft-save", &[]))
        );
        assert_eq!(
            strip_comments(&ipt.save(Some("nat"), true).unwrap()),
            strip_comments(&run("iptables-nft-save", &["-c", "-t", "nat"]))
        );
    });
}

#[test]
fn builtin_chain_created_as_iptables_nft_does() {
    let ours = in_netns(|| {
        let ipt = v4();
        ipt.append("filter", "INPUT", &["-s", "1.2.3.4", "-j", "ACCEPT"])
            .unwrap();
        ipt.insert("nat", "OUTPUT", 1, &["-d", "1.1.1.1", "-j", "RETURN"])
            .unwrap();
        common::nft_list()
    });
    let theirs = in_netns(|| {
        run(
            "iptables-nft",
            &["-A", "INPUT", "-s", "1.2.3.4", "-j", "ACCEPT"],
        );
        run(
            "iptables-nft",
            &[
                "-t", "nat", "-I", "OUTPUT", "1", "-d", "1.1.1.1", "-j", "RETURN",
            ],
        );
        common::nft_list()
    });
    assert_eq!(ours, theirs);
    // An existing policy is left alone when a built-in chain is written to.
    in_netns(|| {
        run("iptables-nft", &["-P", "FORWARD", "DROP"]);
        let ipt = v4();
        ipt.append("filter", "FORWARD", &["-j", "ACCEPT"]).unwrap();
        assert_eq!(ipt.get_policy("filter", "FORWARD").unwrap(), Policy::Drop);
        assert_eq!(
            ipt.list("filter", "FORWARD").unwrap(),
            oracle_s("filter", "FORWARD")
        );
    });
}

#[test]
fn exists_and_unique_follow_go_iptables() {
    in_netns(|| {
        let ipt = v4();
        let spec = ["-p", "tcp", "--dport", "22", "-j", "ACCEPT"];
        // Missing chain and missing rule: false, no error. go-iptables' Exists returns
        // (false, nil) on exit status 1, which is what iptables-nft -C gives for both.
        for chain in ["NOPE", "INPUT"] {
            let o = run_status("iptables-nft", &["-C", chain, "-j", "ACCEPT"], None);
            assert_eq!(o.status.code(), Some(1));
        }
        assert!(!ipt.exists("filter", "NOPE", &spec).unwrap());
        assert!(!ipt.exists("filter", "INPUT", &spec).unwrap());
        assert!(ipt.append_unique("filter", "INPUT", &spec).unwrap());
        assert!(!ipt.append_unique("filter", "INPUT", &spec).unwrap());
        assert!(!ipt
            .append_unique("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT")
            .unwrap());
        assert!(ipt.exists("filter", "INPUT", &spec).unwrap());
        assert!(ipt
            .check("filter", "INPUT", "-p tcp -m tcp --dport 22 -j ACCEPT")
            .unwrap());
        assert_eq!(oracle_s("filter", "INPUT").len(), 2);
        // The oracle agrees it is there.
        assert!(run_status(
            "iptables-nft",
            &["-C", "INPUT", "-p", "tcp", "--dport", "22", "-j", "ACCEPT"],
            None
        )
        .status
        .success());
        // insert_unique
        assert!(!ipt.insert_unique("filter", "INPUT", 1, &spec).unwrap());
        assert!(ipt
            .insert_unique("filter", "INPUT", 1, &["-i", "lo", "-j", "ACCEPT"])
            .unwrap());
        assert_eq!(
            ipt.list("filter", "INPUT").unwrap(),
            [
                "-P INPUT ACCEPT",
                "-A INPUT -i lo -j ACCEPT",
                "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT"
            ]
        );
        // A rule iptables-nft wrote is found (and deleted) by spec.
        run(
            "iptables-nft",
            &[
                "-A",
                "INPUT",
                "-s",
                "10.9.0.0/16",
                "-m",
                "comment",
                "--comment",
                "x y",
                "-j",
                "DROP",
            ],
        );
        assert!(ipt
            .exists(
                "filter",
                "INPUT",
                r#"-s 10.9.0.0/16 -m comment --comment "x y" -j DROP"#
            )
            .unwrap());
        ipt.delete(
            "filter",
            "INPUT",
            r#"-s 10.9.0.0/16 -m comment --comment "x y" -j DROP"#,
        )
        .unwrap();
        assert_eq!(
            ipt.list("filter", "INPUT").unwrap(),
            oracle_s("filter", "INPUT")
        );
        // Invalid specs are typed.
        match ipt.append("filter", "INPUT", &["-p", "tcp", "--dport", "99999"]) {
            Err(Error::InvalidSpec(e)) => assert!(e.to_string().contains("--dport"), "{e}"),
            r => panic!("{r:?}"),
        }
    });
}

#[test]
fn deletes_follow_go_iptables() {
    in_netns(|| {
        let ipt = v4();
        // delete_if_exists: missing chain and missing rule are fine.
        assert!(!ipt.delete_if_exists("filter", "NOPE", "-j ACCEPT").unwrap());
        assert!(!ipt
            .delete_if_exists("filter", "INPUT", "-j ACCEPT")
            .unwrap());
        // delete: missing rule / chain are NotFound.
        let e = ipt.delete("filter", "INPUT", "-j ACCEPT").unwrap_err();
        assert!(
            matches!(
                e,
                Error::NotFound {
                    what: What::Rule,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = ipt.delete("filter", "NOPE", "-j ACCEPT").unwrap_err();
        assert!(
            matches!(
                e,
                Error::NotFound {
                    what: What::Chain,
                    ..
                }
            ),
            "{e:?}"
        );
        for _ in 0..3 {
            ipt.append("filter", "INPUT", "-j ACCEPT").unwrap();
        }
        ipt.append("filter", "INPUT", "-s 1.1.1.1 -j DROP").unwrap();
        assert!(ipt
            .delete_if_exists("filter", "INPUT", "-j ACCEPT")
            .unwrap());
        assert_eq!(oracle_s("filter", "INPUT").len(), 4);
        ipt.delete("filter", "INPUT", "-j ACCEPT").unwrap();
        ipt.append("filter", "INPUT", "-j ACCEPT").unwrap();
        assert_eq!(ipt.delete_all("filter", "INPUT", "-j ACCEPT").unwrap(), 2);
        assert_eq!(
            oracle_s("filter", "INPUT"),
            ["-P INPUT ACCEPT", "-A INPUT -s 1.1.1.1/32 -j DROP"]
        );
        // By number.
        ipt.append("filter", "INPUT", "-s 2.2.2.2 -j DROP").unwrap();
        ipt.append("filter", "INPUT", "-s 3.3.3.3 -j DROP").unwrap();
        ipt.delete_by_number("filter", "INPUT", 2).unwrap();
        assert_eq!(
            oracle_s("filter", "INPUT"),
            [
                "-P INPUT ACCEPT",
                "-A INPUT -s 1.1.1.1/32 -j DROP",
                "-A INPUT -s 3.3.3.3/32 -j DROP"
            ]
        );
        assert!(ipt
            .delete_by_number("filter", "INPUT", 3)
            .unwrap_err()
            .is_not_found());
        assert!(ipt
            .delete_by_number("filter", "NOPE", 1)
            .unwrap_err()
            .is_not_found());
        // Insert and replace by position.
        ipt.insert("filter", "INPUT", 2, "-s 4.4.4.4 -j DROP")
            .unwrap();
        ipt.insert("filter", "INPUT", 4, "-s 5.5.5.5 -j DROP")
            .unwrap();
        assert!(ipt
            .insert("filter", "INPUT", 9, "-j DROP")
            .unwrap_err()
            .is_not_found());
        ipt.replace("filter", "INPUT", 1, "-s 6.6.6.6 -j ACCEPT")
            .unwrap();
        assert!(ipt
            .replace("filter", "INPUT", 9, "-j DROP")
            .unwrap_err()
            .is_not_found());
        assert_eq!(
            ipt.list("filter", "INPUT").unwrap(),
            [
                "-P INPUT ACCEPT",
                "-A INPUT -s 6.6.6.6/32 -j ACCEPT",
                "-A INPUT -s 4.4.4.4/32 -j DROP",
                "-A INPUT -s 3.3.3.3/32 -j DROP",
                "-A INPUT -s 5.5.5.5/32 -j DROP"
            ]
        );
        assert_eq!(
            ipt.list("filter", "INPUT").unwrap(),
            oracle_s("filter", "INPUT")
        );
        // Missing user chain on append: NotFound.
        let e = ipt.append("filter", "NOPE", "-j ACCEPT").unwrap_err();
        assert!(e.is_not_found(), "{e:?}");
    });
}

#[test]
fn chains_follow_go_iptables() {
    in_netns(|| {
        let ipt = v4();
        assert!(!ipt.chain_exists("filter", "FOO").unwrap());
        assert!(ipt.chain_exists("filter", "INPUT").unwrap());
        // ClearChain on a missing chain creates it.
        ipt.clear_chain("filter", "FOO").unwrap();
        assert_eq!(oracle_s("filter", "FOO"), ["-N FOO"]);
        assert!(ipt.chain_exists("filter", "FOO").unwrap());
        ipt.append("filter", "FOO", "-j ACCEPT").unwrap();
        ipt.clear_chain("filter", "FOO").unwrap();
        assert_eq!(oracle_s("filter", "FOO"), ["-N FOO"]);
        // Flushing a built-in chain of an absent table creates nothing.
        ipt.clear_chain("raw", "PREROUTING").unwrap();
        assert!(!common::nft_list().contains("table ip raw"));
        // NewChain twice: AlreadyExists.
        let e = ipt.new_chain("filter", "FOO").unwrap_err();
        assert!(e.is_exists(), "{e:?}");
        assert!(ipt.new_chain("filter", "INPUT").unwrap_err().is_exists());
        assert!(matches!(
            ipt.new_chain("filter", "ACCEPT"),
            Err(Error::Invalid(_))
        ));
        // DeleteChain: not empty, in use, missing.
        ipt.append("filter", "FOO", "-j ACCEPT").unwrap();
        let e = ipt.delete_chain("filter", "FOO").unwrap_err();
        assert!(matches!(e, Error::NotEmpty { .. }), "{e:?}");
        ipt.new_chain("filter", "BAR").unwrap();
        ipt.append("filter", "INPUT", "-j BAR").unwrap();
        let e = ipt.delete_chain("filter", "BAR").unwrap_err();
        assert!(matches!(e, Error::ChainInUse { .. }), "{e:?}");
        assert!(e.is_in_use());
        assert!(ipt
            .delete_chain("filter", "NOPE")
            .unwrap_err()
            .is_not_found());
        // A built-in chain goes only when empty with policy ACCEPT, as with iptables-nft.
        assert!(matches!(
            ipt.delete_chain("filter", "INPUT"),
            Err(Error::NotEmpty { .. })
        ));
        ipt.set_policy("filter", "FORWARD", Policy::Drop).unwrap();
        for e in [
            ipt.delete_chain("filter", "FORWARD").unwrap_err(),
            ipt.clear_and_delete_chain("filter", "FORWARD").unwrap_err(),
        ] {
            assert!(matches!(e, Error::BuiltinKept { .. }), "{e:?}");
        }
        let mut tx = ipt.transaction();
        tx.delete_chain("filter", "FORWARD");
        assert!(matches!(tx.commit(), Err(Error::BuiltinKept { .. })));
        assert!(common::nft_list().contains("chain FORWARD"));
        ipt.set_policy("filter", "OUTPUT", Policy::Accept).unwrap();
        ipt.delete_chain("filter", "OUTPUT").unwrap();
        assert!(!common::nft_list().contains("chain OUTPUT"));
        // Rename.
        assert!(ipt
            .rename_chain("filter", "FOO", "BAR")
            .unwrap_err()
            .is_exists());
        assert!(ipt
            .rename_chain("filter", "NOPE", "X")
            .unwrap_err()
            .is_not_found());
        ipt.rename_chain("filter", "BAR", "BAZ").unwrap();
        assert_eq!(
            ipt.list_table("filter").unwrap(),
            ipt_lines("filter", &["-S"])
        );
        assert!(ipt
            .list_table("filter")
            .unwrap()
            .contains(&"-A INPUT -j BAZ".to_string()));
        // ClearAndDeleteChain: missing is fine, non-empty is deleted.
        ipt.clear_and_delete_chain("filter", "NOPE").unwrap();
        ipt.clear_and_delete_chain("filter", "FOO").unwrap();
        assert!(!ipt.chain_exists("filter", "FOO").unwrap());
        // Still referenced: ChainInUse.
        assert!(ipt
            .clear_and_delete_chain("filter", "BAZ")
            .unwrap_err()
            .is_in_use());
        // ClearAll, then delete every user chain.
        ipt.new_chain("filter", "Q").unwrap();
        ipt.append("filter", "Q", "-j DROP").unwrap();
        ipt.clear_all("filter").unwrap();
        ipt.delete_all_chains("filter").unwrap();
        assert_eq!(
            ipt_lines("filter", &["-S"]),
            ["-P INPUT ACCEPT", "-P FORWARD DROP", "-P OUTPUT ACCEPT"]
        );
        // The empty ACCEPT built-in chains went too; FORWARD and its DROP policy stay.
        let listed = common::nft_list();
        assert!(listed.contains("chain FORWARD"), "{listed}");
        assert!(!listed.contains("chain INPUT"), "{listed}");
        ipt.clear_all("mangle").unwrap();
    });
}

#[test]
fn policy_zero_stats() {
    in_netns(|| {
        let ipt = v4();
        assert_eq!(ipt.get_policy("filter", "FORWARD").unwrap(), Policy::Accept);
        ipt.set_policy("filter", "FORWARD", Policy::Drop).unwrap();
        assert_eq!(ipt.get_policy("filter", "FORWARD").unwrap(), Policy::Drop);
        assert_eq!(oracle_s("filter", "FORWARD"), ["-P FORWARD DROP"]);
        assert!(matches!(
            ipt.set_policy("filter", "FOO", Policy::Drop),
            Err(Error::Invalid(_))
        ));
        ipt.new_chain("filter", "FOO").unwrap();
        ipt.append("filter", "INPUT", "-s 1.2.3.4 -i eth0 -j ACCEPT")
            .unwrap();
        ipt.append("filter", "INPUT", "-p tcp ! -d 10.0.0.0/8 -o lo -j FOO")
            .unwrap();
        ipt.append("filter", "INPUT", "-f -j DROP").unwrap();
        ipt.append("filter", "INPUT", "-g FOO").unwrap();
        // Counters written by restore, zeroed by zero().
        ipt.restore(
            "*filter\n[7:700] -A FOO -j RETURN\n[3:30] -A FOO -s 9.9.9.9 -j RETURN\nCOMMIT\n",
            &iptnl::iptables::restore::RestoreOptions {
                noflush: true,
                counters: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            ipt.list_with_counters("filter", "FOO").unwrap(),
            ipt_lines("filter", &["-v", "-S", "FOO"])
        );
        assert!(ipt.list_with_counters("filter", "FOO").unwrap()[1].contains("-c 7 700"));
        ipt.zero("filter", "FOO", Some(1)).unwrap();
        let l = ipt.list_with_counters("filter", "FOO").unwrap();
        assert!(l[1].contains("-c 0 0") && l[2].contains("-c 3 30"), "{l:?}");
        ipt.zero("filter", "FOO", None).unwrap();
        assert_eq!(
            ipt_lines("filter", &["-v", "-S", "FOO"]),
            [
                "-N FOO",
                "-A FOO -c 0 0 -j RETURN",
                "-A FOO -s 9.9.9.9/32 -c 0 0 -j RETURN"
            ]
        );
        // Stats: the nine columns before the options, as iptables -L -n -v -x prints them.
        let oracle: Vec<Vec<String>> = ipt_lines("filter", &["-L", "INPUT", "-n", "-v", "-x"])
            .into_iter()
            .skip(2)
            .map(|l| l.split_whitespace().map(str::to_owned).collect())
            .collect();
        let ours = ipt.stats("filter", "INPUT").unwrap();
        assert_eq!(ours.len(), oracle.len());
        for (o, t) in ours.iter().zip(&oracle) {
            assert_eq!(o.len(), 10);
            assert_eq!(&o[..9], &t[..9], "ours {o:?} theirs {t:?}");
        }
        assert_eq!(ours[3][9], "[goto]");
        let st = ipt.structured_stats("filter", "INPUT").unwrap();
        assert_eq!(st[0].source.to_string(), "1.2.3.4/32");
        assert_eq!(st[0].input, "eth0");
        assert!(st[1].destination_inverted);
        assert_eq!(st[1].protocol, "6");
        assert_eq!(st[2].opt, "-f");
        assert!(ipt.stats("filter", "NOPE").unwrap_err().is_not_found());
        assert!(ipt.has_check() && ipt.has_wait() && ipt.has_random_fully());
        assert!(ipt.version() >= (1, 8, 9));
    });
}

#[test]
fn ipv6_handle() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V6).unwrap();
        ipt.append("filter", "INPUT", "-s ::1 -p tcp --dport 22 -j ACCEPT")
            .unwrap();
        assert!(ipt
            .exists(
                "filter",
                "INPUT",
                "-s ::1/128 -p tcp -m tcp --dport 22 -j ACCEPT"
            )
            .unwrap());
        assert_eq!(
            ipt.list("filter", "INPUT").unwrap(),
            run("ip6tables-nft", &["-S", "INPUT"])
                .lines()
                .collect::<Vec<_>>()
        );
        let s = ipt.stats("filter", "INPUT").unwrap();
        assert_eq!(&s[0][3..9], ["6", "--", "*", "*", "::1", "::/0"]);
        let oracle: Vec<String> = run("ip6tables-nft", &["-L", "INPUT", "-n", "-v", "-x"])
            .lines()
            .nth(2)
            .unwrap()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        assert_eq!(s[0][..9], oracle[..9]);
        let st = ipt.structured_stats("filter", "INPUT").unwrap();
        assert_eq!((st[0].opt.as_str(), st[0].protocol.as_str()), ("--", "6"));
        assert_eq!(st[0].source.to_string(), "::1/128");
        assert_eq!(st[0].destination.to_string(), "::/0");
        // The IPv4 table is untouched.
        assert!(!common::nft_list().contains("table ip filter"));
    });
}

#[test]
fn transaction_is_one_batch() {
    in_netns(|| {
        let ipt = v4();
        let mut tx = ipt.transaction();
        tx.new_chain("nat", "DN")
            .append("nat", "DN", "-p tcp -j DNAT --to-destination 10.0.0.2:80")
            .append_unique("nat", "PREROUTING", "-p tcp --dport 8080 -j DN")
            .append_unique("nat", "PREROUTING", "-p tcp --dport 8080 -j DN")
            .insert("nat", "DN", 2, "-s 1.1.1.1 -j RETURN")
            .delete_by_number("nat", "DN", 1);
        assert_eq!(tx.len(), 6);
        let r = tx.commit().unwrap();
        assert_eq!(r[0], OpResult::Done);
        assert!(r[1].handle().is_some());
        assert!(matches!(r[2], OpResult::Added { .. }));
        assert_eq!(r[3], OpResult::AlreadyPresent);
        assert_eq!(r[5], OpResult::Deleted { count: 1 });
        assert_eq!(
            oracle_s("nat", "DN"),
            ["-N DN", "-A DN -s 1.1.1.1/32 -j RETURN"]
        );
        assert_eq!(oracle_s("nat", "PREROUTING").len(), 2);
        // A failing operation leaves nothing applied.
        let before = common::nft_list();
        let mut tx = ipt.transaction();
        tx.append("nat", "DN", "-j RETURN")
            .new_chain("nat", "OTHER")
            .delete("nat", "DN", "-s 9.9.9.9 -j RETURN");
        assert!(tx.commit().unwrap_err().is_not_found());
        let mut tx = ipt.transaction();
        tx.append("nat", "DN", "-j RETURN").new_chain("nat", "DN");
        assert!(tx.commit().unwrap_err().is_exists());
        let mut tx = ipt.transaction();
        tx.append("nat", "DN", &["--bogus"]);
        assert!(matches!(tx.commit(), Err(Error::InvalidSpec(_))));
        assert_eq!(common::nft_list(), before);
        // The builder chains from the handle to the commit, in one expression; a refused
        // operation is named by its place and its rule.
        let e = ipt
            .transaction()
            .append("nat", "DN", "-j RETURN")
            .delete("nat", "DN", "-s 9.9.9.9 -j RETURN")
            .commit()
            .unwrap_err();
        assert!(
            matches!(&e, Error::InTransaction { index: 2, operation, .. } if operation.contains("-D DN -s 9.9.9.9/32 -j RETURN")),
            "{e:?}"
        );
        assert_eq!(common::nft_list(), before);
        let r = iptnl::IpTables::transaction(&ipt)
            .append("nat", "DN", "-j RETURN")
            .delete("nat", "DN", "-j RETURN")
            .commit()
            .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(common::nft_list(), before);
        // Handles from the echo are the kernel's.
        let r = ipt.append("filter", "INPUT", "-j ACCEPT").unwrap();
        let h = r.handle().unwrap();
        assert!(
            run("nft", &["-a", "list", "chain", "ip", "filter", "INPUT"])
                .contains(&format!("# handle {h}"))
        );
    });
}

#[test]
fn cache_sees_changes_by_others() {
    in_netns(|| {
        let ipt = v4();
        ipt.new_chain("filter", "C").unwrap();
        assert!(!ipt.exists("filter", "C", "-j ACCEPT").unwrap());
        // Another writer (iptables-nft) changes the chain: the generation moved.
        run("iptables-nft", &["-A", "C", "-j", "ACCEPT"]);
        assert!(ipt.exists("filter", "C", "-j ACCEPT").unwrap());
        // Our own read-dependent writes keep the cache right.
        assert!(ipt.append_unique("filter", "C", "-j DROP").unwrap());
        assert!(ipt.exists("filter", "C", "-j DROP").unwrap());
        assert_eq!(ipt.list("filter", "C").unwrap(), oracle_s("filter", "C"));
        assert!(ipt.delete_if_exists("filter", "C", "-j ACCEPT").unwrap());
        assert!(!ipt.exists("filter", "C", "-j ACCEPT").unwrap());
        assert_eq!(ipt.list("filter", "C").unwrap(), oracle_s("filter", "C"));
        run("iptables-nft", &["-F", "C"]);
        assert!(!ipt.exists("filter", "C", "-j DROP").unwrap());
        // A second handle's writes are seen too.
        let other = v4();
        other.append("filter", "C", "-j RETURN").unwrap();
        assert!(ipt.exists("filter", "C", "-j RETURN").unwrap());
    });
}

/// Rules (chain, spec) and how many times each is in the chain.
type Model = BTreeMap<(String, String), usize>;

/// What one thread does, and what it leaves behind: its rules in the shared chains (as a
/// multiset) and whether its own chain exists.
fn thread_ops(
    t: usize,
    ops: usize,
    ipt: &IpTables,
    model: &mut BTreeMap<(String, String), usize>,
) -> bool {
    let chains = ["S1", "S2"];
    let mut own = false;
    let own_name = format!("T{t}");
    for i in 0..ops {
        let chain = chains[i % 2];
        let spec = format!("-s 10.{t}.{}.0/24 -j ACCEPT", i % 7);
        let key = (chain.to_string(), spec.clone());
        match i % 5 {
            0 | 1 => {
                if ipt.append_unique("filter", chain, spec.as_str()).unwrap() {
                    *model.entry(key.clone()).or_default() += 1;
                }
                assert!(model.get(&key).copied().unwrap_or(0) >= 1);
            }
            2 => {
                let deleted = ipt
                    .delete_if_exists("filter", chain, spec.as_str())
                    .unwrap();
                let n = model.entry(key).or_default();
                assert_eq!(deleted, *n > 0, "thread {t} op {i}");
                if deleted {
                    *n -= 1;
                }
            }
            3 => {
                ipt.insert("filter", chain, 1, spec.as_str()).unwrap();
                *model.entry(key).or_default() += 1;
            }
            _ => {
                if own {
                    ipt.delete_chain("filter", &own_name).unwrap();
                } else {
                    ipt.new_chain("filter", &own_name).unwrap();
                }
                own = !own;
                let e = if own {
                    ipt.new_chain("filter", &own_name).unwrap_err()
                } else {
                    ipt.delete_chain("filter", &own_name).unwrap_err()
                };
                assert!(if own { e.is_exists() } else { e.is_not_found() }, "{e:?}");
            }
        }
    }
    own
}

/// 32 threads × 200 mixed operations (append_unique, delete_if_exists, insert at 1, new and
/// delete chain) on two shared chains, half the threads on one shared handle, half with their
/// own: every call succeeds (conflicts are retried, never surfaced) and the final state is
/// the serial model's. `IPTNL_API_STRESS=8x100` sets other numbers.
#[test]
fn threads_match_the_serial_model() {
    let (threads, ops) = std::env::var("IPTNL_API_STRESS")
        .ok()
        .and_then(|v| {
            let (a, b) = v.split_once('x')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .unwrap_or((32usize, 200usize));
    in_netns(|| {
        let shared = Arc::new(v4());
        shared.new_chain("filter", "S1").unwrap();
        shared.new_chain("filter", "S2").unwrap();
        let results: Vec<(Model, bool)> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads)
                .map(|t| {
                    let shared = shared.clone();
                    s.spawn(move || {
                        // Half the threads share one handle, half have their own.
                        let own;
                        let ipt: &IpTables = if t % 2 == 0 {
                            &shared
                        } else {
                            own = v4();
                            &own
                        };
                        let mut model = BTreeMap::new();
                        let chain = thread_ops(t, ops, ipt, &mut model);
                        (model, chain)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut want: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut want_chains = vec!["S1".to_string(), "S2".to_string()];
        for (t, (m, own)) in results.iter().enumerate() {
            for (k, n) in m {
                if *n > 0 {
                    *want.entry(k.clone()).or_default() += n;
                }
            }
            if *own {
                want_chains.push(format!("T{t}"));
            }
        }
        want_chains.sort();
        let mut got: BTreeMap<(String, String), usize> = BTreeMap::new();
        for chain in ["S1", "S2"] {
            for line in oracle_s("filter", chain).into_iter().skip(1) {
                let spec = line
                    .strip_prefix(&format!("-A {chain} "))
                    .unwrap()
                    .to_string();
                *got.entry((chain.to_string(), spec)).or_default() += 1;
            }
        }
        assert_eq!(got, want);
        let mut chains: Vec<String> = shared
            .list_chains("filter")
            .unwrap()
            .into_iter()
            .filter(|c| !["INPUT", "FORWARD", "OUTPUT"].contains(&c.as_str()))
            .collect();
        chains.sort();
        assert_eq!(chains, want_chains);
    });
}

#[test]
fn handle_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<IpTables>();
    check::<Error>();
}

#[test]
fn handle_opened_by_namespace_path() {
    in_netns(|| {
        let ipt = IpTables::in_netns(IpFamily::V4, "/proc/thread-self/ns/net").unwrap();
        ipt.append("filter", "OUTPUT", "-d 192.0.2.1 -j DROP")
            .unwrap();
        assert_eq!(
            oracle_s("filter", "OUTPUT"),
            ["-P OUTPUT ACCEPT", "-A OUTPUT -d 192.0.2.1/32 -j DROP"]
        );
    });
}

/// Single-rule operations read only the chain they need, blind writes read nothing, and a
/// chain read once is served from the cache while the generation stands: next to a 50,000-rule
/// chain, operations on a small chain (and blind appends to the big one) read a handful of
/// objects, and a second check of the big chain does not dump it again.
#[test]
fn reads_only_what_it_needs() {
    in_netns(|| {
        let ipt = v4();
        let mut input = String::from("*filter\n:BIG - [0:0]\n:SMALL - [0:0]\n");
        for i in 0..50_000u32 {
            input.push_str(&format!(
                "-A BIG -s 10.{}.{}.{} -j ACCEPT\n",
                i >> 16,
                (i >> 8) & 255,
                i & 255
            ));
        }
        input.push_str("COMMIT\n");
        if let Err(e) = ipt.restore(&input, &Default::default()) {
            if let Some(why) = common::send_buffer_refusal(&e.to_string()) {
                common::skip("reads_only_what_it_needs", &why);
                return;
            }
            panic!("{e}");
        }
        // What an operation read is counted in objects the kernel delivered by dumps, not
        // timed: a 50,000-rule chain read whole would be 50,000.
        let quick = |what: &str, f: &dyn Fn()| {
            let before = ipt.kernel_time();
            f();
            let read = ipt.kernel_time().since(&before).dumped;
            eprintln!("{what}: {read} objects read");
            assert!(read <= 8, "{what} read {read} objects");
        };
        quick("append_unique on a small chain", &|| {
            assert!(ipt.append_unique("filter", "SMALL", "-j RETURN").unwrap())
        });
        quick("exists on a small chain", &|| {
            assert!(ipt.exists("filter", "SMALL", "-j RETURN").unwrap())
        });
        quick("delete_if_exists on a small chain", &|| {
            assert!(ipt
                .delete_if_exists("filter", "SMALL", "-j RETURN")
                .unwrap())
        });
        quick("blind append to the big chain", &|| {
            ipt.append("filter", "BIG", "-j DROP").unwrap();
        });
        quick("insert at 1 into the big chain", &|| {
            ipt.insert("filter", "BIG", 1, "-j DROP").unwrap();
        });
        // First check of the big chain dumps it; the second is served from the cache.
        let before = ipt.kernel_time();
        assert!(ipt
            .exists("filter", "BIG", "-s 10.0.0.7 -j ACCEPT")
            .unwrap());
        let read = ipt.kernel_time().since(&before).dumped;
        assert!((50_002..50_010).contains(&read), "first check read {read}");
        quick("cached check of the big chain", &|| {
            assert!(ipt
                .exists("filter", "BIG", "-s 10.0.0.9 -j ACCEPT")
                .unwrap())
        });
        // A read-dependent write keeps the cache: the next check needs no dump either.
        ipt.delete("filter", "BIG", "-s 10.0.0.7 -j ACCEPT")
            .unwrap();
        quick("check after our own delete", &|| {
            assert!(ipt
                .exists("filter", "BIG", "-s 10.0.0.9 -j ACCEPT")
                .unwrap())
        });
        assert!(!ipt
            .exists("filter", "BIG", "-s 10.0.0.7 -j ACCEPT")
            .unwrap());
    });
}

/// Zeroing writes again only the rules whose counters are not zero, as iptables-nft does: a
/// chain whose counters are all zero costs no commit, and a rule with counters keeps its
/// place and loses only its counts.
#[test]
fn zeroing_skips_rules_already_at_zero() {
    common::in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.new_chain("filter", "Z").unwrap();
        for i in 0..3 {
            ipt.append("filter", "Z", format!("-s 10.0.0.{i} -j RETURN").as_str())
                .unwrap();
        }
        let g = ipt.with_conn(|c| c.genid()).unwrap();
        ipt.zero("filter", "Z", None).unwrap();
        assert_eq!(ipt.with_conn(|c| c.genid()).unwrap(), g);
        ipt.replace("filter", "Z", 2, "-s 10.0.0.1 -c 5 500 -j RETURN")
            .unwrap();
        ipt.zero("filter", "Z", None).unwrap();
        let lines = ipt.list_with_counters("filter", "Z").unwrap();
        assert_eq!(
            lines[1..],
            [
                "-A Z -s 10.0.0.0/32 -c 0 0 -j RETURN",
                "-A Z -s 10.0.0.1/32 -c 0 0 -j RETURN",
                "-A Z -s 10.0.0.2/32 -c 0 0 -j RETURN"
            ]
        );
    });
}

/// One `Position` places a rule for `insert`, `insert_unique` and transactions: first, last,
/// by rule number, or next to the first rule whose comment starts with a text (the end while
/// there is none); the chain reads back in iptables-nft's order.
#[test]
fn insert_takes_one_position_type() {
    in_netns(|| {
        let ipt = v4();
        ipt.new_chain("filter", "P").unwrap();
        let ins = |pos: Position, src: &str| ipt.insert("filter", "P", pos, src).unwrap();
        ipt.append("filter", "P", "-s 1.1.1.1 -m comment --comment anchor-a")
            .unwrap();
        ipt.append(
            "filter",
            "P",
            "-s 2.2.2.2 -m comment --comment \"anchor-b here\"",
        )
        .unwrap();
        ins(Position::Before("anchor-b".into()), "-s 3.3.3.3");
        ins(Position::After("anchor-a".into()), "-s 4.4.4.4");
        ins(Position::First, "-s 5.5.5.5");
        ins(Position::Last, "-s 6.6.6.6");
        ins(Position::Before("no such anchor".into()), "-s 7.7.7.7");
        // Several rules of one spec go there in order.
        ins(Position::After("anchor-b".into()), "-s 8.8.8.8,9.9.9.9");
        ipt.insert("filter", "P", 2, "-s 10.0.0.1").unwrap();
        ipt.insert("filter", "P", Position::Number(1), "-s 10.0.0.2")
            .unwrap();
        let want = [
            "-N P",
            "-A P -s 10.0.0.2/32",
            "-A P -s 5.5.5.5/32",
            "-A P -s 10.0.0.1/32",
            "-A P -s 1.1.1.1/32 -m comment --comment anchor-a",
            "-A P -s 4.4.4.4/32",
            "-A P -s 3.3.3.3/32",
            "-A P -s 2.2.2.2/32 -m comment --comment \"anchor-b here\"",
            "-A P -s 8.8.8.8/32",
            "-A P -s 9.9.9.9/32",
            "-A P -s 6.6.6.6/32",
            "-A P -s 7.7.7.7/32",
        ];
        assert_eq!(oracle_s("filter", "P"), want);
        assert_eq!(ipt.list("filter", "P").unwrap(), want);
        // Unique: present anywhere is present.
        assert!(!ipt
            .insert_unique(
                "filter",
                "P",
                Position::Before("anchor-a".into()),
                "-s 6.6.6.6"
            )
            .unwrap());
        assert!(matches!(
            ipt.insert("filter", "P", 0, "-s 1.1.1.1"),
            Err(Error::Invalid(_))
        ));
        assert!(ipt
            .insert("filter", "P", 99, "-s 1.1.1.1")
            .unwrap_err()
            .is_not_found());
        assert_eq!(oracle_s("filter", "P"), want);

        // In a transaction, an anchor sees the rules added before it.
        ipt.new_chain("filter", "T").unwrap();
        ipt.transaction()
            .append("filter", "T", "-s 1.0.0.1")
            .append("filter", "T", "-s 1.0.0.2 -m comment --comment mine")
            .insert("filter", "T", Position::Before("mine".into()), "-s 1.0.0.3")
            .insert("filter", "T", Position::After("mine".into()), "-s 1.0.0.4")
            .insert_unique("filter", "T", Position::First, "-s 1.0.0.1")
            .commit()
            .unwrap();
        assert_eq!(
            oracle_s("filter", "T"),
            [
                "-N T",
                "-A T -s 1.0.0.1/32",
                "-A T -s 1.0.0.3/32",
                "-A T -s 1.0.0.2/32 -m comment --comment mine",
                "-A T -s 1.0.0.4/32",
            ]
        );
        // A refused transaction applies nothing.
        let before = ipt.save(Some("filter"), false).unwrap();
        let err = ipt
            .transaction()
            .insert("filter", "T", Position::After("mine".into()), "-s 1.0.0.5")
            .insert("filter", "T", 0, "-s 1.0.0.6")
            .commit()
            .unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err}");
        assert_eq!(ipt.save(Some("filter"), false).unwrap(), before);
    });
}

/// `structured_stats` returns each field its documentation promises, with the values
/// `iptables -L -n -v -x` shows, counters included, on a handle that follows the kernel's
/// events as on one that does not.
#[test]
fn structured_stats_fields_are_what_iptables_lists() {
    in_netns(|| {
        let up = run_status("ip", &["link", "set", "lo", "up"], None);
        assert!(up.status.success(), "ip link set lo up");
        let following = v4();
        following.set_follow_events(true);
        let plain = v4();
        following.new_chain("filter", "Y").unwrap();
        for spec in [
            "-o lo -p udp --dport 9 -m comment --comment \"web traffic\" -j ACCEPT",
            "! -o eth+ ! -s 10.0.0.0/8 -d 192.168.1.1 ! -p tcp -f -j DROP",
            "-p tcp ! -f -g Y",
            "-s 1.2.3.4",
        ] {
            following.append("filter", "OUTPUT", spec).unwrap();
        }
        // Warm the following handle's cache before the traffic.
        assert_eq!(
            following.structured_stats("filter", "OUTPUT").unwrap()[0].packets,
            0
        );
        let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for _ in 0..3 {
            sock.send_to(b"xyz", "127.0.0.1:9").unwrap();
        }
        // An IPv4 header, a UDP header and 3 bytes, three times.
        let (packets, bytes) = (3, 3 * (20 + 8 + 3));
        let oracle: Vec<Vec<String>> = ipt_lines("filter", &["-L", "OUTPUT", "-n", "-v", "-x"])
            .into_iter()
            .skip(2)
            .map(|l| l.split_whitespace().map(str::to_owned).collect())
            .collect();
        let any = "0.0.0.0/0";
        for ipt in [&following, &plain] {
            let st = ipt.structured_stats("filter", "OUTPUT").unwrap();
            assert_eq!(st.len(), 4);
            let s = &st[0];
            assert_eq!((s.packets, s.bytes), (packets, bytes));
            assert_eq!(s.target, "ACCEPT");
            assert_eq!((s.protocol.as_str(), s.opt.as_str()), ("17", "--"));
            assert_eq!((s.input.as_str(), s.output.as_str()), ("*", "lo"));
            assert_eq!(s.source.to_string(), any);
            assert_eq!(s.destination.to_string(), any);
            assert!(!s.source_inverted && !s.destination_inverted);
            assert_eq!(s.options, "udp dpt:9 /* web traffic */");
            let s = &st[1];
            assert_eq!((s.packets, s.bytes), (0, 0));
            assert_eq!(s.target, "DROP");
            assert_eq!((s.protocol.as_str(), s.opt.as_str()), ("!6", "-f"));
            assert_eq!((s.input.as_str(), s.output.as_str()), ("*", "!eth+"));
            assert_eq!(s.source.to_string(), "10.0.0.0/8");
            assert!(s.source_inverted);
            assert_eq!(s.destination.to_string(), "192.168.1.1/32");
            assert!(!s.destination_inverted);
            assert_eq!(s.options, "");
            let s = &st[2];
            assert_eq!(s.target, "Y");
            assert_eq!((s.protocol.as_str(), s.opt.as_str()), ("6", "!f"));
            assert_eq!(s.options, "[goto]");
            let s = &st[3];
            assert_eq!(s.target, "");
            assert_eq!(s.source.to_string(), "1.2.3.4/32");
            // The typed fields are the columns iptables lists.
            for (s, t) in st.iter().zip(&oracle) {
                let t: Vec<&str> = t.iter().map(String::as_str).collect();
                let (head, opts) = if s.target.is_empty() {
                    // No target: the column is blank, and splitting drops it.
                    let mut h = vec![t[0], t[1], ""];
                    h.extend_from_slice(&t[2..8]);
                    (h, t[8..].join(" "))
                } else {
                    (t[..9].to_vec(), t[9..].join(" "))
                };
                let shown = |inv: bool, a: &iptnl::ipt::AddrMask| {
                    let a = a.to_string();
                    let a = a.strip_suffix("/32").unwrap_or(&a).to_owned();
                    format!("{}{a}", if inv { "!" } else { "" })
                };
                assert_eq!(
                    head,
                    [
                        s.packets.to_string().as_str(),
                        &s.bytes.to_string(),
                        &s.target,
                        &s.protocol,
                        &s.opt,
                        &s.input,
                        &s.output,
                        &shown(s.source_inverted, &s.source),
                        &shown(s.destination_inverted, &s.destination),
                    ],
                    "{s:?}"
                );
                assert_eq!(s.options, opts, "{s:?}");
            }
        }
    });
}
