//! Owned chains that heal themselves, against the real kernel and the real tools: a
//! declaration (four masquerade rules in an owned chain, one jump from POSTROUTING) is
//! synced, tampered with by `iptables-nft` and `nft` in every way an administrator or a
//! script does, and the guard puts it back in one batch, never touching others' rules.

mod common;

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::sync::{remove, sync, Desired, Guard, GuardOptions, Owner, SyncReport};
use iptnl::IpTables;
use iptnl::Position;

const CHAIN: &str = "TEST-POSTRTG";

const OWNED: &[&str] = &[
    "-s 10.244.0.0/16 -d 10.244.0.0/16 -j RETURN",
    "-s 10.244.0.0/16 ! -d 224.0.0.0/4 -j MASQUERADE --random-fully",
    "! -s 10.244.0.0/16 -d 10.244.1.0/24 -j RETURN",
    "! -s 10.244.0.0/16 -d 10.244.0.0/16 -j MASQUERADE --random-fully",
];

/// Someone else's rule next to the hook.
const FOREIGN: &str = "-o eth9 -j MASQUERADE";

fn owner() -> Owner {
    Owner::new("TEST-", "testguard").unwrap()
}

fn desired() -> Desired {
    let mut d = Desired::new(IpFamily::V4, owner());
    d.chain("nat", CHAIN, OWNED)
        .unwrap()
        .hook("nat", "POSTROUTING", Position::First, "-j TEST-POSTRTG")
        .unwrap();
    d
}

fn ipt_nft(args: &str) {
    let words: Vec<&str> = args.split_whitespace().collect();
    common::run("iptables-nft", &words);
}

fn restore_noflush(text: &str) {
    let out = common::run_status("iptables-nft-restore", &["--noflush"], Some(text));
    assert!(
        out.status.success(),
        "{text}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `-A` lines of the nat table as iptables-nft saves them.
fn nat_rules() -> Vec<String> {
    common::run("iptables-nft-save", &["-t", "nat"])
        .lines()
        .filter(|l| l.starts_with("-A "))
        .map(str::to_owned)
        .collect()
}

/// The owned chain's lines and the POSTROUTING lines, as they should be.
struct Expect {
    owned: Vec<String>,
    hook: String,
    post: Vec<String>,
}

impl Expect {
    fn take() -> Expect {
        let all = nat_rules();
        let owned: Vec<String> = all
            .iter()
            .filter(|l| l.starts_with(&format!("-A {CHAIN} ")))
            .cloned()
            .collect();
        let hook = all
            .iter()
            .find(|l| l.starts_with("-A POSTROUTING ") && l.contains("testguard:"))
            .cloned()
            .expect("the hook rule");
        let post = all
            .iter()
            .filter(|l| l.starts_with("-A POSTROUTING "))
            .cloned()
            .collect();
        assert_eq!(owned.len(), OWNED.len(), "{all:?}");
        Expect { owned, hook, post }
    }

    /// Whether the kernel holds the declaration, with the hook first in POSTROUTING and the
    /// others' rules there after it: all of them (`foreign`), or none (after a flush).
    fn holds(&self, foreign: bool) -> Result<(), String> {
        let all = nat_rules();
        let owned: Vec<&String> = all
            .iter()
            .filter(|l| l.starts_with(&format!("-A {CHAIN} ")))
            .collect();
        if owned
            .iter()
            .map(|s| s.as_str())
            .ne(self.owned.iter().map(String::as_str))
        {
            return Err(format!("owned chain differs: {owned:#?}"));
        }
        let post: Vec<&String> = all
            .iter()
            .filter(|l| l.starts_with("-A POSTROUTING "))
            .collect();
        let want: Vec<&String> = if foreign {
            self.post.iter().collect()
        } else {
            vec![&self.hook]
        };
        if post != want {
            return Err(format!("POSTROUTING differs: {post:#?}"));
        }
        Ok(())
    }
}

#[test]
fn sync_creates_then_has_nothing_to_do() {
    if !common::have("iptables-nft") {
        eprintln!("skipped: iptables-nft is needed");
        return;
    }
    common::in_netns(|| {
        ipt_nft(&format!("-t nat -A POSTROUTING {FOREIGN}"));
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        let d = desired();
        let r = sync(&ipt, &d).unwrap();
        assert!(r.changed(), "{r}");
        assert_eq!(r.rules_added, 4);
        assert_eq!(r.hooks_added, 1);
        assert_eq!(r.chains_created, ["nat/TEST-POSTRTG"]);
        let e = Expect::take();
        e.holds(true).unwrap();
        // The hook carries the marker and a hash of the rule.
        assert!(
            e.hook.contains("-m comment --comment \"testguard:"),
            "{}",
            e.hook
        );
        // The commit is counted in the handle's stats, with the time it took (a kernel
        // commit takes well over 10 µs).
        let st = ipt.commit_stats();
        assert_eq!(st.commits, 1);
        let took = st.latency_percentile(100.0).unwrap();
        assert!(took > Duration::from_micros(10), "{took:?}");
        // Nothing to change: no batch (the generation does not move).
        let g = ipt.with_conn(|c| c.genid()).unwrap();
        let r = sync(&ipt, &d).unwrap();
        assert_eq!(
            r,
            SyncReport {
                tries: 1,
                rules_kept: 4,
                generation: Some(g),
                ..Default::default()
            }
        );
        assert_eq!(ipt.with_conn(|c| c.genid()).unwrap(), g);
        // A second handle sees the same.
        let other = IpTables::new(IpFamily::V4).unwrap();
        assert!(!sync(&other, &d).unwrap().changed());
    });
}

#[test]
fn sync_keeps_counters_of_rules_that_stay() {
    if !common::have("iptables-nft") {
        return;
    }
    common::in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        sync(&ipt, &desired()).unwrap();
        // Counters on rule 4, then rule 2 deleted by someone: only rule 2 comes back.
        ipt_nft(&format!("-t nat -Z {CHAIN}"));
        let line = nat_rules()
            .into_iter()
            .filter(|l| l.starts_with(&format!("-A {CHAIN} ")))
            .nth(3)
            .unwrap();
        let args = line
            .strip_prefix(&format!("-A {CHAIN} "))
            .unwrap()
            .to_owned();
        restore_noflush(&format!(
            "*nat\n-R {CHAIN} 4 -c 7 700 {args}\n-D {CHAIN} 2\nCOMMIT\n"
        ));
        let r = sync(&ipt, &desired()).unwrap();
        assert_eq!(
            (r.rules_added, r.rules_deleted, r.rules_kept),
            (1, 0, 3),
            "{r}"
        );
        let save = common::run("iptables-nft-save", &["-c", "-t", "nat"]);
        assert!(
            save.contains(&format!("[7:700] -A {CHAIN} {args}")),
            "{save}"
        );
    });
}

#[test]
fn remove_deletes_what_is_owned_and_nothing_else() {
    if !common::have("iptables-nft") {
        return;
    }
    common::in_netns(|| {
        ipt_nft(&format!("-t nat -A POSTROUTING {FOREIGN}"));
        ipt_nft("-t nat -N OTHER");
        ipt_nft("-t nat -A OTHER -j RETURN");
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        let mut d = desired();
        // A hook in someone else's chain too.
        d.hook("nat", "OTHER", Position::Last, "-j TEST-POSTRTG")
            .unwrap();
        sync(&ipt, &d).unwrap();
        assert_eq!(nat_rules().len(), 4 + 2 + 2);
        let before = ipt.with_conn(|c| c.genid()).unwrap();
        let r = remove(&ipt, &owner(), &["nat"]).unwrap();
        assert_eq!(r.hooks_deleted, 2, "{r}");
        assert_eq!(r.chains_deleted, ["nat/TEST-POSTRTG"]);
        // One batch.
        assert_eq!(
            ipt.with_conn(|c| c.genid()).unwrap(),
            before.wrapping_add(1)
        );
        assert_eq!(
            nat_rules(),
            [
                format!("-A POSTROUTING {FOREIGN}"),
                "-A OTHER -j RETURN".to_owned()
            ]
        );
        // Removing again changes nothing.
        assert!(!remove(&ipt, &owner(), &["nat"]).unwrap().changed());
    });
}

#[test]
fn a_refused_sync_applies_nothing_and_says_why() {
    if !common::have("iptables-nft") {
        return;
    }
    common::in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        sync(&ipt, &desired()).unwrap();
        // Someone else jumps to the owned chain: it cannot be deleted.
        ipt_nft("-t nat -N OTHER");
        ipt_nft(&format!("-t nat -A OTHER -j {CHAIN}"));
        let before = common::run("iptables-nft-save", &["-t", "nat"]);
        let mut d = Desired::new(IpFamily::V4, owner());
        d.table("nat").unwrap();
        let e = sync(&ipt, &d).unwrap_err().to_string();
        assert!(
            e.contains("TEST-POSTRTG") && e.contains("nothing was applied"),
            "{e}"
        );
        let after = common::run("iptables-nft-save", &["-t", "nat"]);
        let body = |s: &str| {
            s.lines()
                .filter(|l| !l.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(body(&before), body(&after));
    });
}

#[test]
fn declarations_are_checked_when_made() {
    let mut d = Desired::new(IpFamily::V4, owner());
    let e = d.chain("nat", "OTHER", OWNED).unwrap_err().to_string();
    assert!(e.contains("not owned"), "{e}");
    let e = d
        .chain("nat", CHAIN, &["-p tcp --dport 99999"])
        .unwrap_err();
    assert!(
        matches!(e.root(), iptnl::Error::InvalidSpec(_)),
        "a rule that does not parse is InvalidSpec: {e:?}"
    );
    let e = e.to_string();
    assert!(e.contains("99999") && e.contains(CHAIN), "{e}");
    let e = d
        .hook(
            "nat",
            "PREROUTING",
            Position::First,
            "-j NOSUCHTARGET --bogus",
        )
        .unwrap_err();
    assert!(matches!(e.root(), iptnl::Error::InvalidSpec(_)), "{e:?}");
    assert!(
        e.to_string()
            .contains("nat PREROUTING: `-j NOSUCHTARGET --bogus'"),
        "{e}"
    );
    let e = d
        .hook("nat", "TEST-X", Position::First, "-j ACCEPT")
        .unwrap_err()
        .to_string();
    assert!(e.contains("owned"), "{e}");
    assert!(d
        .hook("nosuch", "INPUT", Position::First, "-j ACCEPT")
        .is_err());
    assert!(Owner::new("X-", "a:b").is_err());
}

/// Every way of tampering, each followed by the guard's repair: the time from the
/// tampering commit to the repair commit is printed; the declared state and the foreign
/// rule are checked after each.
#[test]
fn the_guard_repairs_every_tampering() {
    if !common::have("iptables-nft") || !common::have("nft") {
        eprintln!("skipped: iptables-nft and nft are needed");
        return;
    }
    common::in_netns(|| tamper_and_repair(None));
}

/// The same beside the kube-proxy workload (200,000 rules, `IPTNL_GUARD_RULES` changes it):
/// each repair costs one kernel commit of the nat table more, whose time is printed too.
/// `cargo test --test sync -- --ignored --nocapture`.
#[test]
#[ignore]
fn the_guard_repairs_every_tampering_at_field_size() {
    let rules = std::env::var("IPTNL_GUARD_RULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let Some(text) = common::shared_workload(rules, false) else {
        return;
    };
    common::in_netns(|| tamper_and_repair(Some(&text)));
}

fn tamper_and_repair(workload: Option<&str>) {
    {
        if let Some(text) = workload {
            let ipt = IpTables::new(IpFamily::V4).unwrap();
            ipt.restore(text, &Default::default()).unwrap();
            // One kernel commit of the nat table: a rule added to a chain of its own.
            ipt.new_chain("nat", "COMMIT-PROBE").unwrap();
            let mut ms = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                ipt.append("nat", "COMMIT-PROBE", "-j RETURN").unwrap();
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            ms.sort_by(f64::total_cmp);
            eprintln!(
                "{} rules loaded; one commit of the nat table: median {:.1} ms",
                nat_rules().len(),
                ms[2]
            );
        }
        ipt_nft(&format!("-t nat -A POSTROUTING {FOREIGN}"));
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        let (tx, rx) = mpsc::channel::<(Instant, SyncReport)>();
        let tx = std::sync::Mutex::new(tx);
        let opts = GuardOptions {
            on_repair: Some(Arc::new(move |r: &SyncReport| {
                let _ = tx.lock().unwrap().send((Instant::now(), r.clone()));
            })),
            ..GuardOptions::default()
        };
        // Every commit as the kernel announces it: (when, generation).
        let gens = Arc::new(std::sync::Mutex::new(Vec::<(Instant, u32)>::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let observer = {
            let (gens, stop) = (gens.clone(), stop.clone());
            let mut m = iptnl::nft::monitor::Monitor::open().unwrap();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if let Ok(Some(iptnl::nft::monitor::Event::NewGen { genid, .. })) =
                        m.next(Some(Duration::from_millis(50)))
                    {
                        gens.lock().unwrap().push((Instant::now(), genid));
                    }
                }
            })
        };
        let guard = Guard::spawn(ipt.clone(), desired(), opts).unwrap();
        let mut first_reported = 0;
        while rx.try_recv().is_ok() {
            first_reported += 1;
        }
        let mut e = Expect::take();
        e.holds(true).unwrap();
        let hook_args = e.hook.strip_prefix("-A POSTROUTING ").unwrap().to_owned();
        let first_owned = e.owned[0]
            .strip_prefix(&format!("-A {CHAIN} "))
            .unwrap()
            .to_owned();
        type Tamper<'a> = Box<dyn Fn() + 'a>;
        let cases: Vec<(&str, Tamper<'_>, bool)> = vec![
            (
                "delete one owned rule",
                Box::new(|| ipt_nft(&format!("-t nat -D {CHAIN} 2"))),
                true,
            ),
            (
                "delete all owned rules",
                Box::new(|| ipt_nft(&format!("-t nat -F {CHAIN}"))),
                true,
            ),
            (
                "insert a foreign rule into the owned chain",
                Box::new(|| ipt_nft(&format!("-t nat -I {CHAIN} 2 -j ACCEPT"))),
                true,
            ),
            (
                "reorder",
                Box::new(|| {
                    restore_noflush(&format!(
                        "*nat\n-D {CHAIN} 1\n-A {CHAIN} {first_owned}\nCOMMIT\n"
                    ))
                }),
                true,
            ),
            (
                "modify a rule's match",
                Box::new(|| {
                    ipt_nft(&format!(
                        "-t nat -R {CHAIN} 3 ! -s 10.244.0.0/16 -d 10.244.9.0/24 -j RETURN"
                    ))
                }),
                true,
            ),
            (
                "replace the jump rule's target",
                Box::new(|| {
                    let args = hook_args.replace("-j TEST-POSTRTG", "-j RETURN");
                    restore_noflush(&format!("*nat\n-R POSTROUTING 1 {args}\nCOMMIT\n"))
                }),
                true,
            ),
            (
                "move the jump rule below another rule",
                Box::new(|| {
                    restore_noflush(&format!(
                        "*nat\n-D POSTROUTING 1\n-A POSTROUTING {hook_args}\nCOMMIT\n"
                    ))
                }),
                true,
            ),
            (
                "delete the owned chain after removing the jump",
                Box::new(|| {
                    restore_noflush(&format!(
                        "*nat\n-D POSTROUTING 1\n-F {CHAIN}\n-X {CHAIN}\nCOMMIT\n"
                    ))
                }),
                true,
            ),
            (
                "delete one owned rule with nft",
                Box::new(|| {
                    let list = common::run("nft", &["-a", "list", "chain", "ip", "nat", CHAIN]);
                    let handle = list
                        .lines()
                        .filter_map(|l| {
                            l.rsplit_once("# handle ").map(|(_, h)| h.trim().to_owned())
                        })
                        .nth(1)
                        .unwrap();
                    common::run(
                        "nft",
                        &["delete", "rule", "ip", "nat", CHAIN, "handle", &handle],
                    );
                }),
                true,
            ),
            (
                "rename the owned chain",
                Box::new(|| ipt_nft(&format!("-t nat -E {CHAIN} RENAMED"))),
                true,
            ),
            (
                "rename the owned chain with nft",
                Box::new(|| {
                    common::run("nft", &["rename", "chain", "ip", "nat", CHAIN, "RENAMED"])
                        .truncate(0)
                }),
                true,
            ),
            (
                "flush the whole table",
                Box::new(|| ipt_nft("-t nat -F")),
                false,
            ),
            (
                "delete the table",
                Box::new(|| common::run("nft", &["delete", "table", "ip", "nat"]).truncate(0)),
                false,
            ),
        ];
        let mut times = Vec::new();
        for (name, tamper, foreign_stays) in &cases {
            assert!(rx.try_recv().is_err(), "{name}: a repair nothing asked for");
            let before = ipt.with_conn(|c| c.genid()).unwrap();
            tamper();
            let t0 = Instant::now();
            let (t1, report) = rx
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("{name}: no repair; {:?}", guard.stats()));
            // The tampering was one commit and the repair the next: the ruleset went from
            // the tampered state straight to the declared one, with no state in between in
            // which a declared rule stood out of order.
            let repaired = report.committed.unwrap();
            assert_eq!(repaired, before.wrapping_add(2), "{name}: {report}");
            // From the tampering commit to the repair commit, as the kernel announced them.
            std::thread::sleep(Duration::from_millis(20));
            let g = gens.lock().unwrap().clone();
            let at = |genid: u32| g.iter().find(|(_, x)| *x == genid).map(|(t, _)| *t);
            // A flush of a big table sends more events than the observer's buffer holds:
            // then the tampering commit's own announcement may be lost.
            let commit_to_repair = match (at(repaired), at(repaired.wrapping_sub(1))) {
                (Some(fixed), Some(broken)) => Some(fixed.saturating_duration_since(broken)),
                _ => None,
            };
            times.push((name, commit_to_repair, t1.saturating_duration_since(t0)));
            // One repair per tampering.
            std::thread::sleep(Duration::from_millis(50));
            assert!(rx.try_recv().is_err(), "{name}: repaired twice");
            e.holds(*foreign_stays)
                .unwrap_or_else(|err| panic!("{name}: {err}\nrepair: {report}"));
            if name.starts_with("rename") {
                // The hook that followed the rename was replaced; the renamed chain is no
                // longer owned (its name lacks the prefix) and stays until its owner, here
                // the test, deletes it (no repair follows).
                assert_eq!(
                    (report.hooks_added, report.hooks_deleted),
                    (1, 1),
                    "{name}: {report}"
                );
                assert_eq!(
                    report.chains_created,
                    [format!("nat/{CHAIN}")],
                    "{name}: {report}"
                );
                ipt_nft("-t nat -F RENAMED");
                ipt_nft("-t nat -X RENAMED");
            }
            if !foreign_stays {
                // The tampering removed the foreign rule; put it back (the guard has
                // nothing to do then).
                ipt_nft(&format!("-t nat -A POSTROUTING {FOREIGN}"));
                e.post = vec![e.hook.clone(), format!("-A POSTROUTING {FOREIGN}")];
                e.holds(true).unwrap();
            }
        }
        let stats = guard.stop();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        observer.join().unwrap();
        eprintln!("commit to repair  command exit to repair");
        for (name, t, exit) in &times {
            let t = t.map_or("  (events lost)".to_owned(), |t| {
                format!("{:>8.2} ms", t.as_secs_f64() * 1e3)
            });
            eprintln!("{t}  {:>8.2} ms  {name}", exit.as_secs_f64() * 1e3);
        }
        let mut ms: Vec<f64> = times
            .iter()
            .filter_map(|(_, t, _)| t.map(|t| t.as_secs_f64() * 1e3))
            .collect();
        ms.sort_by(f64::total_cmp);
        eprintln!("median {:.2} ms; {stats:?}", ms[ms.len() / 2]);
        assert_eq!(stats.errors, 0, "{stats:?}");
        // The first sync, then one repair per tampering, each reported.
        assert_eq!(stats.repairs as usize, cases.len() + 1, "{stats:?}");
        assert_eq!(first_reported, 1, "the first repair reaches on_repair too");
    }
}

/// CPU time (user + system, in clock ticks) of the thread `tid` of this process, from
/// /proc/self/task/TID/stat; `None` once that thread has ended.
fn cpu_ticks(tid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    // Fields after the command name (which ends with the last `)`): utime is the 12th, stime
    // the 13th of them.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    Some(f[11].parse::<u64>().ok()? + f[12].parse::<u64>().ok()?)
}

/// The threads of this process named `iptnl-guard`.
fn guard_threads() -> std::collections::HashSet<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|tid| {
            std::fs::read_to_string(format!("/proc/self/task/{tid}/comm"))
                .is_ok_and(|c| c.trim() == "iptnl-guard")
        })
        .collect()
}

/// A guard over 10,000 owned rules, with nothing tampered with, sleeps in the kernel: over
/// two seconds it uses no measurable CPU and runs no sync, while others' commits to other
/// tables go by.
#[test]
fn an_idle_guard_uses_no_cpu() {
    common::in_netns(|| {
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        let rules: Vec<String> = (0..10_000)
            .map(|i| format!("-s 10.{}.{}.0/24 -j ACCEPT", i / 256, i % 256))
            .collect();
        let mut d = Desired::new(IpFamily::V4, owner());
        d.chain("filter", "TEST-BIG", &rules)
            .unwrap()
            .hook("filter", "FORWARD", Position::First, "-j TEST-BIG")
            .unwrap();
        // The guard's own thread is measured: other tests of this file run beside it.
        let earlier = guard_threads();
        let guard = Guard::spawn(ipt.clone(), d, GuardOptions::default()).unwrap();
        assert_eq!(guard.stats().repairs, 1);
        let other = IpTables::new(IpFamily::V4).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        // Looked for once the thread has surely named itself (a new thread sets its own
        // name when it starts running).
        let mine: Vec<String> = guard_threads().difference(&earlier).cloned().collect();
        let tid = match mine.as_slice() {
            [one] => one.clone(),
            _ => {
                // Another test started a guard at the same instant: which is ours is unknown.
                eprintln!("skipped: the guard's thread cannot be told apart");
                return;
            }
        };
        // A thread that ended was another test's guard, started at the same instant as ours
        // and stopped since: which one is ours is unknown then.
        let Some(before) = cpu_ticks(&tid) else {
            eprintln!("skipped: the guard's thread cannot be told apart");
            return;
        };
        let syncs = guard.stats().syncs;
        // Someone else's commits elsewhere (the mangle table) do not wake a sync.
        for i in 0..5 {
            other
                .append(
                    "mangle",
                    "PREROUTING",
                    format!("-s 10.9.9.{i} -j ACCEPT").as_str(),
                )
                .unwrap();
        }
        std::thread::sleep(Duration::from_secs(2));
        let used = cpu_ticks(&tid).expect("the guard's thread runs until stopped") - before;
        let stats = guard.stop();
        eprintln!("CPU over 2 s: {used} ticks; {stats:?}");
        assert_eq!(stats.syncs, syncs, "{stats:?}");
        // Reading and dropping the five commits' events is all it may do: at most one clock
        // tick of user time and one of system time (the kernel charges a whole tick to the
        // thread that runs when one ends, so a few microseconds across a tick show as one).
        assert!(used <= 2, "{used} ticks");
    });
}

/// IPv6: the same declaration model in ip6 tables, repaired after `ip6tables-nft` tampers.
#[test]
fn ipv6_chains_are_synced_too() {
    if !common::have("ip6tables-nft") {
        return;
    }
    common::in_netns(|| {
        let ipt = IpTables::new(IpFamily::V6).unwrap();
        let mut d = Desired::new(IpFamily::V6, owner());
        d.chain(
            "filter",
            "TEST-IN6",
            &[
                "-s fd00::/8 -p tcp --dport 22 -j ACCEPT",
                "-p ipv6-icmp --icmpv6-type echo-request -j ACCEPT",
                "-s 2001:db8::/32 -j DROP",
            ],
        )
        .unwrap()
        .hook("filter", "INPUT", Position::Last, "-j TEST-IN6")
        .unwrap();
        common::run(
            "ip6tables-nft",
            &["-A", "INPUT", "-i", "lo", "-j", "ACCEPT"],
        );
        assert!(sync(&ipt, &d).unwrap().changed());
        let save = || common::run("ip6tables-nft-save", &["-t", "filter"]);
        let want: Vec<String> = save()
            .lines()
            .filter(|l| l.starts_with("-A"))
            .map(str::to_owned)
            .collect();
        assert_eq!(want.len(), 5, "{want:?}");
        assert!(want[1].contains("-j TEST-IN6"), "{want:?}");
        common::run("ip6tables-nft", &["-D", "TEST-IN6", "2"]);
        common::run(
            "ip6tables-nft",
            &["-A", "INPUT", "-s", "::1/128", "-j", "ACCEPT"],
        );
        let r = sync(&ipt, &d).unwrap();
        assert_eq!(
            (r.rules_added, r.hooks_added, r.hooks_deleted),
            (1, 1, 1),
            "{r}"
        );
        let got: Vec<String> = save()
            .lines()
            .filter(|l| l.starts_with("-A"))
            .map(str::to_owned)
            .collect();
        // The hook is last again, after the rule added meanwhile.
        assert_eq!(got.len(), 6, "{got:?}");
        assert!(got[2].contains("-j TEST-IN6"), "{got:?}");
        assert_eq!(&got[3..], &want[2..], "{got:?}");
        assert!(remove(&ipt, &owner(), &["filter"]).unwrap().changed());
        let left: Vec<String> = save()
            .lines()
            .filter(|l| l.starts_with("-A"))
            .map(str::to_owned)
            .collect();
        assert_eq!(
            left,
            ["-A INPUT -i lo -j ACCEPT", "-A INPUT -s ::1/128 -j ACCEPT"]
        );
    });
}

/// A hook placed in a chain of others follows that chain when it is renamed, and the guard
/// notices either rename, though no rule event names what it owns: renaming the owned chain
/// renames every jump to it, and renaming the hook's chain takes the hook away under another
/// name. Each is repaired in the very next generation, as a plain `sync` with a fresh
/// handle repairs it.
#[test]
fn the_guard_follows_renames_of_its_chains_and_its_hooks_chains() {
    if !common::have("iptables-nft") || !common::have("nft") {
        eprintln!("skipped: iptables-nft and nft are needed");
        return;
    }
    common::in_netns(|| {
        ipt_nft("-t filter -N OTHERS");
        ipt_nft("-t filter -A OTHERS -s 10.9.0.0/16 -j ACCEPT");
        ipt_nft("-t filter -A INPUT -j OTHERS");
        let mut d = Desired::new(IpFamily::V4, owner());
        d.chain("filter", "TEST-A", &["-s 10.1.0.0/16 -j DROP", "-j RETURN"])
            .unwrap()
            .hook("filter", "INPUT", Position::First, "-j TEST-A")
            .unwrap()
            .hook("filter", "OTHERS", Position::Last, "-j TEST-A")
            .unwrap();
        let ipt = Arc::new(IpTables::new(IpFamily::V4).unwrap());
        let (tx, rx) = mpsc::channel::<SyncReport>();
        let tx = std::sync::Mutex::new(tx);
        let opts = GuardOptions {
            on_repair: Some(Arc::new(move |r: &SyncReport| {
                let _ = tx.lock().unwrap().send(r.clone());
            })),
            ..GuardOptions::default()
        };
        let guard = Guard::spawn(ipt.clone(), d.clone(), opts).unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(1)).unwrap().changed());
        let save = || common::run("iptables-nft-save", &["-t", "filter"]);
        let declared = save();
        let fresh = || IpTables::new(IpFamily::V4).unwrap();
        // The owned chain renamed: the hooks now jump to the renamed chain.
        let before = ipt.with_conn(|c| c.genid()).unwrap();
        ipt_nft("-t filter -E TEST-A GONE");
        let r = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no repair; {:?}", guard.stats()));
        assert_eq!(r.committed, Some(before.wrapping_add(2)), "{r}");
        assert_eq!(
            (r.hooks_added, r.hooks_deleted, r.rules_added),
            (2, 2, 2),
            "{r}"
        );
        assert!(!sync(&fresh(), &d).unwrap().changed(), "{r}\n{}", save());
        ipt_nft("-t filter -F GONE");
        ipt_nft("-t filter -X GONE");
        // The hook's chain renamed: the hook went with it, and there is no chain OTHERS to
        // put it back into. The guard tries at once and says why it cannot.
        let errors = guard.stats().errors;
        ipt_nft("-t filter -E OTHERS OTHERS2");
        let t = Instant::now();
        while guard.stats().errors == errors {
            assert!(t.elapsed() < Duration::from_secs(10), "{:?}", guard.stats());
            std::thread::sleep(Duration::from_millis(5));
        }
        let why = guard.stats().last_error.unwrap();
        assert!(why.contains("chain OTHERS does not exist"), "{why}");
        assert!(!why.contains("of the batch"), "{why}");
        // Renamed back, with its hook: as declared again, nothing to repair.
        ipt_nft("-t filter -E OTHERS2 OTHERS");
        let at = ipt.with_conn(|c| c.genid()).unwrap();
        let t = Instant::now();
        while guard.stats().generation != Some(at) {
            assert!(t.elapsed() < Duration::from_secs(10), "{:?}", guard.stats());
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(rx.try_recv().is_err(), "a repair after the rename back");
        assert!(!sync(&fresh(), &d).unwrap().changed(), "{}", save());
        assert_eq!(
            save()
                .lines()
                .filter(|l| l.starts_with("-A"))
                .collect::<Vec<_>>(),
            declared
                .lines()
                .filter(|l| l.starts_with("-A"))
                .collect::<Vec<_>>()
        );
        let stats = guard.stop();
        assert_eq!(stats.errors, errors + 1, "{stats:?}");
    });
}
