//! `--noflush` restores racing 20 `iptables-nft -A` processes on the same tables and chains:
//! no writer's rule is lost, nothing is applied twice. The restores append, insert by number
//! and delete by spec, so they read the chains they change and carry the generation id they
//! read; a concurrent commit makes the kernel refuse the batch and the restore plans again
//! (counted in `RestoreReport::retries`).

mod common;

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, restore_file, RestoreOptions};
use iptnl::netlink::Conn;

const WRITERS: usize = 20;
const PER_WRITER: usize = 20;
const RESTORES: usize = 12;

/// The comments of the rules of `table`/`chain`, in order, from `iptables-nft-save`.
fn comments(save: &str, table: &str, chain: &str) -> Vec<String> {
    let mut in_table = false;
    let prefix = format!("-A {chain} ");
    let mut out = Vec::new();
    for l in save.lines() {
        if let Some(t) = l.strip_prefix('*') {
            in_table = t == table;
        } else if in_table && l.starts_with(&prefix) {
            let c = l
                .split("--comment ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .unwrap_or("<none>");
            out.push(c.trim_matches('"').to_owned());
        }
    }
    out
}

fn setup() -> String {
    let mut s = String::from("*filter\n:INPUT ACCEPT [0:0]\n:W - [0:0]\n-A INPUT -j W\n");
    s.push_str("-A W -m comment --comment seed-keep-0 -j ACCEPT\n");
    for i in 0..RESTORES {
        s.push_str(&format!(
            "-A W -m comment --comment seed-del-{i} -j ACCEPT\n"
        ));
    }
    s.push_str("-A W -m comment --comment seed-keep-1 -j ACCEPT\nCOMMIT\n");
    s.push_str("*nat\n:POSTROUTING ACCEPT [0:0]\n:WN - [0:0]\n-A POSTROUTING -j WN\n");
    s.push_str("-A WN -m comment --comment nseed-keep-0 -j RETURN\n");
    for i in 0..RESTORES {
        s.push_str(&format!(
            "-A WN -m comment --comment nseed-del-{i} -j RETURN\n"
        ));
    }
    s.push_str("COMMIT\n");
    s
}

fn delta(i: usize) -> String {
    format!(
        "*filter
-A W -m comment --comment restore-{i}-append -j ACCEPT
-I W 2 -m comment --comment restore-{i}-insert -j ACCEPT
-D W -m comment --comment seed-del-{i} -j ACCEPT
-A INPUT -m comment --comment restore-{i}-input -j RETURN
COMMIT
*nat
-I WN 2 -m comment --comment nrestore-{i}-insert -j RETURN
-D WN -m comment --comment nseed-del-{i} -j RETURN
-A WN -m comment --comment nrestore-{i}-append -j RETURN
COMMIT
"
    )
}

#[test]
fn noflush_restore_races_twenty_iptables_writers() {
    common::in_netns(|| {
        let o = common::run_status("iptables-nft-restore", &[], Some(&setup()));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Each writer: one shell running 20 `iptables-nft -A` in a row, alternating between
        // the filter and nat chains the restores also change.
        let writers: Vec<Child> = (0..WRITERS)
            .map(|w| {
                let script = format!(
                    "for j in $(seq 0 {}); do \
                       if [ $((j % 2)) -eq 0 ]; then \
                         iptables-nft -w -t filter -A W -m comment --comment w{w}-$j -j ACCEPT || exit 1; \
                       else \
                         iptables-nft -w -t nat -A WN -m comment --comment w{w}-$j -j RETURN || exit 1; \
                       fi; \
                     done",
                    PER_WRITER - 1
                );
                Command::new("sh")
                    .args(["-c", &script])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("sh")
            })
            .collect();
        let mut conn = Conn::open().unwrap();
        let opts = RestoreOptions {
            noflush: true,
            ..Default::default()
        };
        let mut retries = Vec::new();
        // Every other restore reads its input from a file, in pieces, again on each retry.
        let dir = std::env::temp_dir().join(format!("iptnl-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..RESTORES {
            let r = if i % 2 == 1 {
                let path = dir.join(format!("delta{i}.rules"));
                std::fs::write(&path, delta(i)).unwrap();
                let file = std::fs::File::open(&path).unwrap();
                restore_file(&mut conn, IpFamily::V4, &file, &opts)
            } else {
                restore(&mut conn, IpFamily::V4, &delta(i), &opts)
            }
            .unwrap_or_else(|e| panic!("restore {i}: {e}"));
            retries.push(r.retries);
            std::thread::sleep(std::time::Duration::from_millis(15));
        }
        for (w, c) in writers.into_iter().enumerate() {
            let o = c.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "writer {w}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!(
            "restore retries after generation-id conflicts (odd: from a file): {retries:?} (total {})",
            retries.iter().sum::<u32>()
        );

        let save = common::run("iptables-nft-save", &[]);
        let w = comments(&save, "filter", "W");
        let wn = comments(&save, "nat", "WN");
        let input = comments(&save, "filter", "INPUT");
        let mut count: HashMap<String, usize> = HashMap::new();
        for c in w.iter().chain(&wn).chain(&input) {
            *count.entry(c.clone()).or_default() += 1;
        }
        let dups: Vec<_> = count.iter().filter(|(_, n)| **n > 1).collect();
        assert!(dups.is_empty(), "duplicated rules: {dups:?}");
        for wr in 0..WRITERS {
            for j in 0..PER_WRITER {
                let c = format!("w{wr}-{j}");
                let list = if j % 2 == 0 { &w } else { &wn };
                assert!(list.contains(&c), "writer rule {c} lost");
            }
        }
        for i in 0..RESTORES {
            for c in [format!("restore-{i}-append"), format!("restore-{i}-insert")] {
                assert!(w.contains(&c), "{c} missing");
            }
            assert!(input.contains(&format!("restore-{i}-input")));
            assert!(wn.contains(&format!("nrestore-{i}-insert")));
            assert!(wn.contains(&format!("nrestore-{i}-append")));
            assert!(!w.contains(&format!("seed-del-{i}")));
            assert!(!wn.contains(&format!("nseed-del-{i}")));
        }
        // Inserted at 2 each time: newest first, right after seed-keep-0, then seed-keep-1.
        let mut want = vec!["seed-keep-0".to_owned()];
        want.extend((0..RESTORES).rev().map(|i| format!("restore-{i}-insert")));
        want.push("seed-keep-1".to_owned());
        assert_eq!(&w[..want.len()], &want[..]);
        assert_eq!(wn[0], "nseed-keep-0");
        // The restores really ran while the writers did: writer rules sit between the first
        // and the last restore's appended rule.
        let pos = |c: &str| w.iter().position(|x| x == c).unwrap();
        let (first, last) = (
            pos("restore-0-append"),
            pos(&format!("restore-{}-append", RESTORES - 1)),
        );
        assert!(
            w[first..last].iter().any(|c| c.starts_with('w')),
            "no writer rule landed between the restores: no concurrency was exercised"
        );
        // Everything else is accounted for.
        let expected = 2 + RESTORES * 2 + WRITERS * PER_WRITER / 2;
        assert_eq!(w.len(), expected, "rules in filter W");
        assert_eq!(wn.len(), 1 + RESTORES * 2 + WRITERS * PER_WRITER / 2);
        assert_eq!(input.len(), 1 + RESTORES);
        eprintln!(
            "{} writer rules and {} restores' changes present exactly once",
            WRITERS * PER_WRITER,
            RESTORES
        );
    });
}
