//! The handle's cache of chains it has read: its index of canonical rule forms follows the
//! handle's own writes (added and deleted rules, duplicates) and is dropped when another
//! writer moves the generation. `iptables-nft -C` is the oracle.

mod common;

use common::{in_netns, nft_load, run, run_status};
use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;

/// `iptables-nft -C` on chain C of the filter table.
fn oracle_has(rule: &[&str]) -> bool {
    let mut args = vec!["-t", "filter", "-C", "C"];
    args.extend_from_slice(rule);
    run_status("iptables-nft", &args, None).status.success()
}

#[test]
fn cached_index_follows_own_writes_and_others() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.new_chain("filter", "C").unwrap();
        for i in 0..50 {
            ipt.append("filter", "C", format!("-s 10.0.0.{i} -j ACCEPT"))
                .unwrap();
        }
        let drop9 = ["-s", "10.9.9.9", "-j", "DROP"];
        let acc3 = ["-s", "10.0.0.3", "-j", "ACCEPT"];
        // Reads the chain and builds its index.
        assert!(ipt.exists("filter", "C", acc3).unwrap());
        assert!(!ipt.exists("filter", "C", drop9).unwrap());
        // Read-dependent writes keep the cache: the index must follow them.
        assert!(ipt.append_unique("filter", "C", drop9).unwrap());
        assert!(ipt.exists("filter", "C", drop9).unwrap());
        assert!(!ipt.append_unique("filter", "C", drop9).unwrap());
        ipt.insert("filter", "C", 3, drop9).unwrap();
        assert_eq!(
            run("iptables-nft", &["-t", "filter", "-S", "C"])
                .lines()
                .filter(|l| l.contains("10.9.9.9"))
                .count(),
            2
        );
        ipt.delete("filter", "C", drop9).unwrap();
        assert!(ipt.exists("filter", "C", drop9).unwrap());
        assert!(oracle_has(&drop9));
        ipt.delete("filter", "C", drop9).unwrap();
        assert!(!ipt.exists("filter", "C", drop9).unwrap());
        assert!(!oracle_has(&drop9));
        ipt.delete("filter", "C", acc3).unwrap();
        assert!(!ipt.exists("filter", "C", acc3).unwrap());
        assert!(!oracle_has(&acc3));
        assert!(ipt.exists("filter", "C", "-s 10.0.0.4 -j ACCEPT").unwrap());
        // Another writer: the generation moved, the chain is read again.
        run(
            "iptables-nft",
            &["-t", "filter", "-A", "C", "-s", "10.7.7.7", "-j", "DROP"],
        );
        assert!(ipt.exists("filter", "C", "-s 10.7.7.7 -j DROP").unwrap());
        run(
            "iptables-nft",
            &["-t", "filter", "-D", "C", "-s", "10.0.0.4", "-j", "ACCEPT"],
        );
        assert!(!ipt.exists("filter", "C", "-s 10.0.0.4 -j ACCEPT").unwrap());
        // Replace and zero rewrite rules in place: nf_tables keeps the handle of a replaced rule.
        ipt.replace("filter", "C", 1, "-s 10.8.8.8 -j DROP")
            .unwrap();
        assert!(!ipt.exists("filter", "C", "-s 10.0.0.0 -j ACCEPT").unwrap());
        assert!(ipt.exists("filter", "C", "-s 10.8.8.8 -j DROP").unwrap());
        ipt.zero("filter", "C", None).unwrap();
        assert!(ipt.exists("filter", "C", "-s 10.8.8.8 -j DROP").unwrap());
        assert!(ipt.exists("filter", "C", "-s 10.0.0.49 -j ACCEPT").unwrap());
        assert!(!oracle_has(&["-s", "10.0.0.0", "-j", "ACCEPT"]));
    });
}

/// The first lookup of a chain by spec compares every rule; later ones use the chain's
/// canonical index. Both must find exactly what `iptables-nft -C` finds, duplicates, rules of
/// other writers and an `nft` rule iptables reads as the same spec included.
#[test]
fn first_and_later_lookups_agree_with_iptables_nft() {
    in_netns(|| {
        run("iptables-nft", &["-t", "filter", "-N", "C"]);
        for i in 0..40 {
            let src = format!("10.1.0.{}", i % 13);
            run(
                "iptables-nft",
                &[
                    "-t", "filter", "-A", "C", "-s", &src, "-p", "tcp", "-j", "ACCEPT",
                ],
            );
        }
        nft_load("add rule ip filter C ip saddr 10.2.0.1 counter drop\n");
        let specs: Vec<Vec<String>> = [
            "-s 10.1.0.3 -p tcp -j ACCEPT",
            "-s 10.1.0.12 -p tcp -j ACCEPT",
            "-s 10.1.0.13 -p tcp -j ACCEPT",
            "-s 10.1.0.3 -p udp -j ACCEPT",
            "-s 10.1.0.3 -j ACCEPT",
            "-s 10.2.0.1 -j DROP",
            "-s 10.2.0.1/32 -j DROP",
            "-s 10.2.0.2 -j DROP",
        ]
        .iter()
        .map(|s| s.split(' ').map(str::to_owned).collect())
        .collect();
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        for round in 0..3 {
            for spec in &specs {
                let args: Vec<&str> = spec.iter().map(String::as_str).collect();
                let want = oracle_has(&args);
                let got = ipt.exists("filter", "C", spec.join(" ")).unwrap();
                assert_eq!(got, want, "round {round}: -C {}", spec.join(" "));
            }
        }
        // Delete by spec finds the same rules (10.1.0.3 is there three times).
        for _ in 0..3 {
            ipt.delete("filter", "C", "-s 10.1.0.3 -p tcp -j ACCEPT")
                .unwrap();
        }
        assert!(!oracle_has(&[
            "-s", "10.1.0.3", "-p", "tcp", "-j", "ACCEPT"
        ]));
        assert!(ipt
            .delete("filter", "C", "-s 10.1.0.3 -p tcp -j ACCEPT")
            .is_err());
        ipt.delete("filter", "C", "-s 10.2.0.1 -j DROP").unwrap();
        assert!(!oracle_has(&["-s", "10.2.0.1", "-j", "DROP"]));
    });
}

/// `iptables-nft -S C` (or `None` when the chain does not exist).
fn oracle_list() -> Option<Vec<String>> {
    let out = run_status("iptables-nft", &["-t", "filter", "-S", "C"], None);
    out.status.success().then(|| {
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    })
}

#[test]
fn following_events_keeps_the_cache_exact_without_dumps() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.set_follow_events(true);
        let other = IpTables::new(IpFamily::V4).unwrap();
        ipt.new_chain("filter", "C").unwrap();
        ipt.new_chain("filter", "D").unwrap();
        for i in 0..20 {
            ipt.append("filter", "C", format!("-s 10.0.0.{i} -j ACCEPT"))
                .unwrap();
        }
        let ipt_list = || ipt.list("filter", "C").ok();
        assert_eq!(ipt_list(), oracle_list());
        // Served from the cache, then kept current from events: one round trip (GETGEN).
        let sends = |f: &dyn Fn()| {
            let k0 = ipt.kernel_time();
            f();
            ipt.kernel_time().since(&k0).sends
        };
        let mut x: u64 = 7;
        let mut next = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n.max(1)
        };
        for step in 0..80u32 {
            let len = oracle_list().map_or(0, |l| l.len().saturating_sub(1)) as u64;
            let a = format!("10.1.{}.{}", step / 200, step % 200 + 1);
            let kind = next(9);
            let mut one_trip = false;
            match kind {
                0 => {
                    run(
                        "iptables-nft",
                        &["-t", "filter", "-A", "C", "-s", &a, "-j", "DROP"],
                    );
                    one_trip = true;
                }
                1 => {
                    run(
                        "iptables-nft",
                        &["-t", "filter", "-I", "C", "1", "-s", &a, "-j", "DROP"],
                    );
                }
                2 if len > 1 => {
                    let n = (next(len) + 2).to_string();
                    run(
                        "iptables-nft",
                        &["-t", "filter", "-I", "C", &n, "-s", &a, "-j", "RETURN"],
                    );
                }
                3 if len > 0 => {
                    let n = (next(len) + 1).to_string();
                    run("iptables-nft", &["-t", "filter", "-D", "C", &n]);
                }
                4 if len > 0 => {
                    let n = (next(len) + 1).to_string();
                    run(
                        "iptables-nft",
                        &["-t", "filter", "-R", "C", &n, "-s", &a, "-j", "ACCEPT"],
                    );
                }
                5 => {
                    run(
                        "iptables-nft",
                        &["-t", "filter", "-A", "D", "-s", &a, "-j", "DROP"],
                    );
                    one_trip = true;
                }
                6 => {
                    let mut tx = other.transaction();
                    tx.append("filter", "C", format!("-d {a} -j ACCEPT"))
                        .append("filter", "C", format!("-d {a} -j DROP"))
                        .append("filter", "D", format!("-d {a} -j DROP"));
                    if len > 0 {
                        tx.delete_by_number("filter", "C", next(len) as u32 + 1);
                    }
                    tx.commit().unwrap();
                }
                7 if step % 20 == 7 => {
                    run("iptables-nft", &["-t", "filter", "-F", "C"]);
                }
                8 if step % 10 == 8 => {
                    run("iptables-nft", &["-t", "filter", "-E", "C", "X"]);
                    assert!(ipt.list("filter", "C").unwrap_err().is_not_found());
                    run("iptables-nft", &["-t", "filter", "-E", "X", "C"]);
                }
                _ => {
                    // Our own writes, blind and read-dependent.
                    ipt.append("filter", "C", format!("-s {a} -j RETURN"))
                        .unwrap();
                    if len > 2 {
                        ipt.delete_by_number("filter", "C", 2).unwrap();
                    }
                }
            }
            let n = sends(&|| {
                assert_eq!(ipt_list(), oracle_list(), "step {step} (kind {kind})");
            });
            if one_trip {
                assert_eq!(n, 1, "step {step} (kind {kind}) needed a dump");
            }
        }
        // Checks and deletes by spec see the replayed rules.
        run(
            "iptables-nft",
            &["-t", "filter", "-A", "C", "-s", "10.9.9.9", "-j", "DROP"],
        );
        assert!(ipt.exists("filter", "C", "-s 10.9.9.9 -j DROP").unwrap());
        ipt.delete("filter", "C", "-s 10.9.9.9 -j DROP").unwrap();
        assert!(!oracle_has(&["-s", "10.9.9.9", "-j", "DROP"]));
        assert_eq!(ipt_list(), oracle_list());
    });
}

/// Counters move with traffic, not with the generation: listings with counters are read again
/// every time, never served from the cache.
#[test]
fn counters_are_read_fresh_when_the_generation_has_not_moved() {
    in_netns(|| {
        let up = run_status("ip", &["link", "set", "lo", "up"], None);
        if !up.status.success() {
            eprintln!("skipping: `ip link set lo up' failed");
            return;
        }
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.append("filter", "OUTPUT", "-o lo -p udp --dport 9 -j ACCEPT")
            .unwrap();
        let packets = |ipt: &IpTables| ipt.structured_stats("filter", "OUTPUT").unwrap()[0].packets;
        assert_eq!(packets(&ipt), 0);
        let before = ipt.list_with_counters("filter", "OUTPUT").unwrap();
        let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for _ in 0..3 {
            sock.send_to(b"x", "127.0.0.1:9").unwrap();
        }
        // Same generation, new counters: what iptables-nft prints.
        assert_eq!(packets(&ipt), 3);
        let after = ipt.list_with_counters("filter", "OUTPUT").unwrap();
        assert_ne!(after, before);
        assert!(after[1].contains(" -c 3 "), "{after:?}");
        let oracle = run("iptables-nft", &["-t", "filter", "-v", "-S", "OUTPUT"]);
        assert!(oracle.contains("-c 3 "), "{oracle}");
        assert_eq!(ipt.stats("filter", "OUTPUT").unwrap()[0][0], "3");
    });
}

/// A handle that lists whole tables (`list_table`, as `iptnl serve` answers `iptables -S`)
/// keeps them cached and updates them with its own writes, blind ones included; after every
/// few steps of a pseudo-random mix of its own writes, another handle's and iptables-nft's,
/// its listing equals iptables-nft's `-S` of the table. With and without following events.
#[test]
fn cached_table_listings_follow_every_writer() {
    if !common::have("iptables-nft") {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    for follow in [false, true] {
        in_netns(|| {
            let ipt = IpTables::new(IpFamily::V4).unwrap();
            ipt.set_follow_events(follow);
            let other = IpTables::new(IpFamily::V4).unwrap();
            let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut next = |n: u64| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 33) % n
            };
            for step in 0..400 {
                let who = next(4); // 0, 1: the cached handle; 2: another handle; 3: iptables-nft
                let table = ["filter", "nat"][next(2) as usize];
                let chain = format!("C{}", next(5));
                let builtin = if table == "filter" {
                    "INPUT"
                } else {
                    "PREROUTING"
                };
                let rule = format!("-s 10.0.{}.{} -j ACCEPT", next(3), next(4));
                let args: Vec<String> = match next(9) {
                    0 => vec!["-N".into(), chain.clone()],
                    1 | 2 => {
                        let mut v = vec!["-A".into(), chain.clone()];
                        v.extend(rule.split(' ').map(String::from));
                        v
                    }
                    3 => {
                        let mut v = vec!["-I".into(), builtin.into(), "1".into()];
                        v.extend(rule.split(' ').map(String::from));
                        v
                    }
                    4 => {
                        let mut v = vec!["-D".into(), chain.clone()];
                        v.extend(rule.split(' ').map(String::from));
                        v
                    }
                    5 => vec!["-F".into(), chain.clone()],
                    6 => vec!["-X".into(), chain.clone()],
                    7 => vec!["-E".into(), chain.clone(), format!("C{}", next(5))],
                    _ => vec![
                        "-P".into(),
                        if table == "filter" {
                            "FORWARD"
                        } else {
                            "OUTPUT"
                        }
                        .into(),
                        ["ACCEPT", "DROP"][next(2) as usize].into(),
                    ],
                };
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                if who == 3 {
                    let mut v = vec!["-t", table];
                    v.extend_from_slice(&a);
                    let _ = run_status("iptables-nft", &v, None);
                } else {
                    let h = if who == 2 { &other } else { &ipt };
                    let rest = a[2..].join(" ");
                    let (c, r) = (a[1], rest.as_str());
                    let _ = match a[0] {
                        "-N" => h.new_chain(table, c),
                        "-A" => h.append(table, c, r).map(|_| ()),
                        "-I" => h.insert(table, c, 1, r).map(|_| ()),
                        "-D" => h.delete(table, c, r),
                        "-F" => h.clear_chain(table, c),
                        "-X" => h.delete_chain(table, c),
                        "-E" => h.rename_chain(table, c, a[2]),
                        _ => h.set_policy(
                            table,
                            c,
                            if a[2] == "DROP" {
                                iptnl::nft::Policy::Drop
                            } else {
                                iptnl::nft::Policy::Accept
                            },
                        ),
                    };
                }
                // Not after every step: writes by several writers between two listings.
                if next(2) == 0 {
                    continue;
                }
                for t in ["filter", "nat"] {
                    let got = ipt.list_table(t).unwrap();
                    let want: Vec<String> = run("iptables-nft", &["-t", t, "-S"])
                        .lines()
                        .map(String::from)
                        .collect();
                    assert_eq!(
                        got, want,
                        "follow={follow}, step {step} ({who}: -t {table} {a:?}), table {t}"
                    );
                }
            }
        });
    }
}

/// A table's first whole listing is read chain by chain and kept nowhere (half of the chains
/// on a second connection when there are many); later ones come from the cache. Both print
/// what `iptables-nft -S` prints, with hundreds of chains, and both say that a rule without an
/// iptables form is there.
#[test]
fn first_and_later_table_listings_agree() {
    in_netns(|| {
        let mut input = String::from("*filter\n");
        for c in 0..400 {
            input.push_str(&format!(":C{c} - [0:0]\n"));
        }
        for c in 0..400 {
            for r in 0..(c % 4) {
                input.push_str(&format!(
                    "-A C{c} -s 10.{}.{}.{r}/32 -j RETURN\n",
                    c / 256,
                    c % 256
                ));
            }
            input.push_str(&format!("-A INPUT -p tcp --dport {} -j C{c}\n", 1000 + c));
        }
        input.push_str("COMMIT\n");
        let o = run_status("iptables-nft-restore", &[], Some(&input));
        assert!(o.status.success(), "{o:?}");
        let oracle = run("iptables-nft", &["-t", "filter", "-S"]);
        nft_load("add rule ip filter C7 ct state established counter accept\n");
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        let first = ipt.list_table_shared("filter").unwrap();
        let second = ipt.list_table_shared("filter").unwrap();
        ipt.append("filter", "C3", "-j ACCEPT").unwrap();
        let third = ipt.list_table_shared("filter").unwrap();
        let text = |t: &iptnl::iptables::TableText| {
            t.lines().map(|l| format!("{l}\n")).collect::<String>()
        };
        // The oracle's listing with `line` after the last rule of `chain`.
        let with = |base: &str, chain: &str, line: &str| {
            let mut out: Vec<String> = base.lines().map(str::to_owned).collect();
            let prefix = format!("-A {chain} ");
            let at = out.iter().rposition(|l| l.starts_with(&prefix)).unwrap() + 1;
            out.insert(at, line.to_owned());
            out.iter().map(|l| format!("{l}\n")).collect::<String>()
        };
        let raw = text(&first)
            .lines()
            .find(|l| l.starts_with("-A C7 -m nft --nft-rule "))
            .unwrap_or_else(|| panic!("no raw rule in\n{}", text(&first)))
            .to_owned();
        let expected = with(&oracle, "C7", &raw);
        assert_eq!(text(&first), expected);
        assert_eq!(text(&second), expected);
        assert!(first.has_raw_rules() && second.has_raw_rules());
        let expected = with(&expected, "C3", "-A C3 -j ACCEPT");
        assert_eq!(text(&third), expected);
        // A handle that follows events (a server's) reads the table into its cache at its
        // first listing: the same text, and the same after another writer's change.
        let follower = IpTables::new(IpFamily::V4).unwrap();
        follower.set_follow_events(true);
        assert_eq!(
            text(&follower.list_table_shared("filter").unwrap()),
            expected
        );
        ipt.append("filter", "C5", "-j DROP").unwrap();
        let expected = with(&expected, "C5", "-A C5 -j DROP");
        assert_eq!(
            text(&follower.list_table_shared("filter").unwrap()),
            expected
        );
        assert_eq!(
            text(&follower.list_table_shared("filter").unwrap()),
            expected
        );
    });
}

/// `iptables-nft -S CHAIN` of the filter table.
fn oracle_chain(chain: &str) -> Vec<String> {
    run("iptables-nft", &["-t", "filter", "-S", chain])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A chain of more rules than the cache keeps decoded: listed, looked up by spec and written
/// through a handle that follows events, with other writers' changes (rules added, deleted,
/// inserted; the chain it jumps to renamed) in between. It is served from its kept lines and
/// canonical index, read again when it changed, and every answer is iptables-nft's.
#[test]
fn a_chain_too_big_to_keep_decoded_is_served_exactly() {
    in_netns(|| {
        let mut input = String::from("*filter\n:BIG - [0:0]\n:T - [0:0]\n");
        for i in 0..6000 {
            input.push_str(&format!(
                "-A BIG -s 10.{}.{}.0/24 -p tcp -m tcp --dport {} -j T\n",
                i / 256,
                i % 256,
                1000 + i % 50
            ));
        }
        input.push_str("-A T -j ACCEPT\nCOMMIT\n");
        assert!(run_status("iptables-nft-restore", &[], Some(&input))
            .status
            .success());
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.set_follow_events(true);
        let fresh = || IpTables::new(IpFamily::V4).unwrap();
        let rule = |i: u32| {
            format!(
                "-s 10.{}.{}.0/24 -p tcp -m tcp --dport {} -j T",
                i / 256,
                i % 256,
                1000 + i % 50
            )
        };
        let same = |what: &str| {
            assert_eq!(
                ipt.list_table_text("filter").unwrap(),
                fresh().list_table_text("filter").unwrap(),
                "{what}: -S"
            );
            assert_eq!(
                ipt.list("filter", "BIG").unwrap(),
                oracle_chain("BIG"),
                "{what}"
            );
            for i in [0, 1, 2999, 5999, 7000] {
                let args = rule(i);
                let v: Vec<&str> = args.split(' ').collect();
                let want = run_status("iptables-nft", &[&["-C", "BIG"][..], &v].concat(), None)
                    .status
                    .success();
                // Twice: the first lookup compares, the second builds the index.
                for _ in 0..2 {
                    let got = ipt.exists("filter", "BIG", args.as_str()).unwrap();
                    assert_eq!(got, want, "{what}: -C BIG {args}");
                }
            }
        };
        same("as loaded");
        // Other writers.
        run("iptables-nft", &["-D", "BIG", "1"]);
        run(
            "iptables-nft",
            &["-I", "BIG", "2", "-s", "10.99.0.0/16", "-j", "T"],
        );
        let add = format!("-A BIG {}", rule(7000));
        run("iptables-nft", &add.split(' ').collect::<Vec<_>>());
        same("after others' writes");
        // Its own writes.
        ipt.delete("filter", "BIG", rule(2999)).unwrap();
        ipt.append("filter", "BIG", rule(0)).unwrap();
        same("after its own writes");
        // The chain BIG jumps to is renamed by another writer: every line names the new one.
        run("iptables-nft", &["-E", "T", "T2"]);
        assert!(ipt.list("filter", "BIG").unwrap()[1].ends_with("-j T2"));
        assert_eq!(ipt.list("filter", "BIG").unwrap(), oracle_chain("BIG"));
        assert_eq!(
            ipt.list_table_text("filter").unwrap(),
            fresh().list_table_text("filter").unwrap()
        );
        assert!(!ipt.exists("filter", "BIG", rule(5)).unwrap());
        assert!(ipt
            .exists("filter", "BIG", rule(5).replace("-j T", "-j T2"))
            .unwrap());
        assert_eq!(ipt.follow_stats().lost, 0);
    });
}

/// A chain too long to keep decoded is kept as its canonical index and its handles in order:
/// deletes by spec (duplicates included: the first in the chain goes), inserts and deletes
/// by number, replacements, appends and counter zeroing through a handle that follows
/// events, in a pseudo-random order mixed with other writers' changes (which the handle
/// edits into the index and the chain's lines from their events, without reading the chain
/// again), each leave exactly the chain a model of the same operations holds, as
/// iptables-nft lists it.
#[test]
fn a_chain_kept_as_its_index_is_written_exactly() {
    in_netns(|| {
        let rule = |i: u32| format!("-s 10.{}.{}.0/24 -j T", i / 256, i % 256);
        let mut model: Vec<String> = (0..5000).map(rule).collect();
        let mut input = String::from("*filter\n:BIG - [0:0]\n:T - [0:0]\n");
        for r in &model {
            input.push_str(&format!("-A BIG {r}\n"));
        }
        input.push_str("-A T -j ACCEPT\nCOMMIT\n");
        assert!(run_status("iptables-nft-restore", &[], Some(&input))
            .status
            .success());
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.set_follow_events(true);
        let check = |model: &[String], what: &str| {
            let want: Vec<String> = std::iter::once("-N BIG".to_owned())
                .chain(model.iter().map(|r| format!("-A BIG {r}")))
                .collect();
            assert_eq!(oracle_chain("BIG"), want, "{what}: iptables-nft -S");
            // The table listed (its chains' lines are kept, and edited by the next write),
            // then the chain.
            let fresh = IpTables::new(IpFamily::V4).unwrap();
            assert_eq!(
                ipt.list_table_text("filter").unwrap(),
                fresh.list_table_text("filter").unwrap(),
                "{what}: -S of the table"
            );
            assert_eq!(ipt.list("filter", "BIG").unwrap(), want, "{what}: -S");
        };
        // Read, listed, looked up twice (the index is built): from here on the chain's own
        // writes work from its index.
        check(&model, "as loaded");
        for _ in 0..2 {
            assert!(ipt.exists("filter", "BIG", rule(7).as_str()).unwrap());
        }
        // Duplicates of one spec, near the front and at the back.
        let dup = "-s 10.200.0.0/24 -j T".to_owned();
        run(
            "iptables-nft",
            &["-I", "BIG", "3", "-s", "10.200.0.0/24", "-j", "T"],
        );
        model.insert(2, dup.clone());
        run(
            "iptables-nft",
            &["-A", "BIG", "-s", "10.200.0.0/24", "-j", "T"],
        );
        model.push(dup.clone());
        check(&model, "duplicates added");
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n.max(1)
        };
        let mut others = None;
        for step in 0..48 {
            let len = model.len();
            let what = match step % 8 {
                0 => {
                    // A delete by spec of a rule somewhere, or of the duplicated one.
                    let spec = if step % 16 == 0 && model.contains(&dup) {
                        dup.clone()
                    } else {
                        model[next(len)].clone()
                    };
                    ipt.delete("filter", "BIG", spec.as_str()).unwrap();
                    let at = model.iter().position(|r| *r == spec).unwrap();
                    model.remove(at);
                    format!("-D BIG {spec}")
                }
                1 => {
                    let n = next(len) + 1;
                    let spec = rule(6000 + step);
                    ipt.insert("filter", "BIG", n as u32, spec.as_str())
                        .unwrap();
                    model.insert(n - 1, spec.clone());
                    format!("-I BIG {n} {spec}")
                }
                2 => {
                    let n = next(len) + 1;
                    ipt.delete_by_number("filter", "BIG", n as u32).unwrap();
                    model.remove(n - 1);
                    format!("-D BIG {n}")
                }
                3 => {
                    // Another writer deletes and inserts: the handle edits the chain's index
                    // and lines from the events (checked after the listing below).
                    others = Some(ipt.follow_stats());
                    let n = next(len) + 1;
                    run("iptables-nft", &["-D", "BIG", &n.to_string()]);
                    model.remove(n - 1);
                    let spec = rule(7000 + step);
                    let m = next(len - 1) + 1;
                    let mut args = vec!["-I", "BIG"];
                    let ms = m.to_string();
                    args.push(&ms);
                    args.extend(spec.split(' '));
                    run("iptables-nft", &args);
                    model.insert(m - 1, spec);
                    format!("others: -D BIG {n}, -I BIG {m}")
                }
                4 => {
                    let n = next(len) + 1;
                    let spec = rule(8000 + step);
                    ipt.replace("filter", "BIG", n as u32, spec.as_str())
                        .unwrap();
                    model[n - 1] = spec.clone();
                    format!("-R BIG {n} {spec}")
                }
                5 => {
                    let spec = rule(9000 + step);
                    ipt.append("filter", "BIG", spec.as_str()).unwrap();
                    model.push(spec.clone());
                    // Looked up again: the index follows the append.
                    for _ in 0..2 {
                        assert!(ipt.exists("filter", "BIG", spec.as_str()).unwrap());
                    }
                    format!("-A BIG {spec}")
                }
                6 => {
                    ipt.zero("filter", "BIG", Some(1)).unwrap();
                    "-Z BIG 1".to_owned()
                }
                _ => {
                    // A delete by spec of a rule that is not there changes nothing.
                    assert!(ipt.delete("filter", "BIG", rule(60000).as_str()).is_err());
                    "-D of a missing rule".to_owned()
                }
            };
            check(&model, &what);
            if let Some(before) = others.take() {
                let after = ipt.follow_stats();
                assert_eq!(
                    after.chains_forgotten, before.chains_forgotten,
                    "{what}: the chain was forgotten, not edited"
                );
                assert!(after.chains_edited > before.chains_edited, "{what}");
            }
            let probe = model[next(model.len())].clone();
            assert!(
                ipt.exists("filter", "BIG", probe.as_str()).unwrap(),
                "{what}"
            );
        }
        assert!(ipt.exists("filter", "BIG", dup.as_str()).unwrap() == model.contains(&dup));
        assert_eq!(ipt.follow_stats().lost, 0);
    });
}
