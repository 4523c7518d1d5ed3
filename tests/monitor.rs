//! Ruleset events from NFNLGRP_NFTABLES: what iptnl and others commit shows up, in order.

mod common;

use std::time::Duration;

use iptnl::netlink::Conn;
use iptnl::nft::expr::{Counter, Immediate};
use iptnl::nft::monitor::{Event, Monitor};
use iptnl::nft::{Batch, Chain, Family, Placement, Rule, Table, Verdict};

fn until_gen(m: &mut Monitor) -> Vec<Event> {
    let mut out = Vec::new();
    loop {
        let e = m
            .next(Some(Duration::from_secs(5)))
            .unwrap()
            .expect("an event within 5 s");
        let done = matches!(e, Event::NewGen { .. });
        out.push(e);
        if done {
            return out;
        }
    }
}

#[test]
fn commits_show_up_as_events() {
    common::in_netns(|| {
        let mut m = Monitor::open().unwrap();
        assert_eq!(
            m.next(Some(Duration::from_millis(50))).unwrap(),
            None,
            "no event before any change"
        );
        let mut conn = Conn::open().unwrap();
        let before = conn.genid().unwrap();
        let mut b = Batch::new();
        b.add_table(&Table::new(Family::Ipv4, "t")).unwrap();
        b.add_chain(&Chain::user(Family::Ipv4, "t", "c"), true)
            .unwrap();
        let mut r = Rule::new(Family::Ipv4, "t", "c");
        r.exprs = vec![
            Counter::default().into(),
            Immediate::verdict(Verdict::Accept).into(),
        ];
        let op = b.add_rule(&r, Placement::Append, true).unwrap();
        let handle = b.commit(&mut conn).unwrap().handle(op).unwrap();
        let evs = until_gen(&mut m);
        assert!(
            matches!(&evs[0], Event::NewTable(t) if t.name == "t"),
            "{evs:?}"
        );
        assert!(
            matches!(&evs[1], Event::NewChain(c) if c.name == "c"),
            "{evs:?}"
        );
        match &evs[2] {
            Event::NewRule(got) => {
                assert_eq!(got.handle, Some(handle));
                assert_eq!(got.exprs, r.exprs);
            }
            other => panic!("{other:?}"),
        }
        match &evs[3] {
            Event::NewGen { genid, pid, .. } => {
                assert_eq!(*genid, before + 1);
                // The kernel reports the committing task: this thread.
                let tid: u32 = std::fs::read_link("/proc/thread-self")
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .parse()
                    .unwrap();
                assert_eq!(*pid, Some(tid));
            }
            other => panic!("{other:?}"),
        }
        // Another writer's change, and a deletion.
        common::run("nft", &["add", "rule", "ip", "t", "c", "drop"]);
        let evs = until_gen(&mut m);
        assert!(
            matches!(&evs[0], Event::NewRule(r) if r.chain == "c"),
            "{evs:?}"
        );
        assert!(
            matches!(evs.last(), Some(Event::NewGen { name: Some(n), .. }) if n == "nft"),
            "{evs:?}"
        );
        let mut b = Batch::new();
        b.del_rule(Family::Ipv4, "t", "c", handle).unwrap();
        b.commit(&mut conn).unwrap();
        let evs = until_gen(&mut m);
        assert!(
            matches!(&evs[0], Event::DelRule(r) if r.handle == Some(handle)),
            "{evs:?}"
        );
    });
}
