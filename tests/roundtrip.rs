//! Round trip: a ruleset of 10,000+ rules using every expression kind iptnl models, in tables
//! with base and user chains, sets, maps and stateful objects, is read with iptnl from one
//! namespace and written with iptnl into a fresh one. The rules dump back byte-identical and
//! `nft list ruleset` prints the same text in both.

mod common;

use std::fmt::Write;

use iptnl::netlink::Conn;
use iptnl::nft::{
    list_chains, list_set_elems, list_sets, list_tables, Batch, Expr, Family, Placement, Table,
};
use iptnl::sys::nf_tables::*;

const COPIES: usize = 290;

fn ruleset() -> String {
    let mut s = String::new();
    s.push_str(
        r#"
table ip rtt {
    set s4 { type ipv4_addr; elements = { 10.0.0.1, 10.0.0.2 } }
    set net4 { type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 192.168.0.0/16 } }
    set dyn { type ipv4_addr; flags dynamic; }
    map m4 { type ipv4_addr : ipv4_addr; elements = { 10.0.0.1 : 10.1.0.1 } }
    map vm { type inet_service : verdict; elements = { 22 : accept, 23 : drop } }
    counter cnt { }
    quota q { over 100 mbytes }
    chain input { type filter hook input priority filter; policy accept; }
    chain output { type filter hook output priority filter; policy accept; }
    chain rawpre { type filter hook prerouting priority raw; policy accept;
        udp dport 4789 notrack
        meta l4proto tcp socket transparent 1 accept
        fib saddr . iif oif missing drop
        meta l4proto tcp tproxy to :1234 meta mark set 1
    }
    chain pre { type nat hook prerouting priority dstnat; policy accept;
        tcp dport 8080 dnat to 10.0.0.7:80
        tcp dport 25 redirect to :2525
        dnat to ip saddr map @m4
    }
    chain post { type nat hook postrouting priority srcnat; policy accept;
        oifname "eth0" masquerade random
        ip saddr 192.168.0.0/16 snat to 10.0.0.1-10.0.0.9 persistent
    }
    chain leaf { return; }
"#,
    );
    for i in 0..COPIES {
        let a = i % 250 + 1;
        let _ = write!(
            s,
            r#"
    chain c{i} {{
        ip saddr 10.0.0.{a} tcp dport {p} counter accept
        ip saddr 10.{a}.0.0/12 drop
        ip daddr 172.16.{a}.0/24 ip protocol udp udp sport 53 accept
        tcp dport 1000-{r} counter
        tcp dport != 2000-3000 drop
        ip saddr @s4 accept
        ip daddr != @net4 drop
        tcp dport vmap @vm
        meta mark 0x{a:x} meta mark set 0x{b:x}
        iifname "eth{a}" oifname "veth*" accept
        ct state established,related accept
        ct mark set 0x{a:x}
        ct original saddr 10.0.0.{a} accept
        limit rate {a}/second burst 5 packets accept
        limit rate over 1 mbytes/second drop
        log prefix "p{i} " level debug
        log group 2 snaplen 64
        counter name "cnt"
        quota name "q" drop
        quota over {a} mbytes drop
        tcp dport 22 reject with tcp reset
        reject with icmp type host-unreachable
        meta mark set numgen inc mod 4
        meta mark set jhash ip saddr mod 4 seed 0x{a:x}
        meta mark set symhash mod 2
        tcp option maxseg size 1460 accept
        ip option rr exists accept
        add @dyn {{ ip saddr }}
        ct count over {a} drop
        meta skuid {a} accept
        meta mark & 0xff00 == 0x{b:x}00 accept
        ip dscp cs1 accept
        rt mtu 1500 accept
        jump leaf
        goto leaf
    }}"#,
            p = 1000 + i,
            r = 1001 + i,
            b = a + 1,
        );
    }
    s.push_str("\n}\n");
    s
}

/// The whole ruleset read with iptnl, written with iptnl into the calling namespace.
fn copy_ruleset(src: &mut Conn, dst: &mut Conn) -> usize {
    let mut b = Batch::with_capacity(8 << 20);
    let (tables, _) = list_tables(src, None).unwrap();
    for t in &tables {
        let mut t2 = Table::new(t.family, t.name.as_str());
        t2.flags = t.flags;
        t2.userdata = t.userdata.clone();
        b.add_table(&t2).unwrap();
    }
    // Stateful objects (counter, quota), as raw messages.
    b.push_raw(NFT_MSG_NEWOBJ, 0x400, Family::Ipv4, false, |w| {
        w.put_str(NFTA_OBJ_TABLE, "rtt");
        w.put_str(NFTA_OBJ_NAME, "cnt");
        w.put_be32(NFTA_OBJ_TYPE, NFT_OBJECT_COUNTER);
        let n = w.nest(NFTA_OBJ_DATA);
        w.end_nest(n);
    })
    .unwrap();
    b.push_raw(NFT_MSG_NEWOBJ, 0x400, Family::Ipv4, false, |w| {
        w.put_str(NFTA_OBJ_TABLE, "rtt");
        w.put_str(NFTA_OBJ_NAME, "q");
        w.put_be32(NFTA_OBJ_TYPE, NFT_OBJECT_QUOTA);
        let n = w.nest(NFTA_OBJ_DATA);
        w.put_be64(NFTA_QUOTA_BYTES, 100 * 1024 * 1024);
        w.put_be32(NFTA_QUOTA_FLAGS, NFT_QUOTA_F_INV);
        w.end_nest(n);
    })
    .unwrap();
    let (chains, _) = list_chains(src, None, None).unwrap();
    for c in &chains {
        let mut c2 = c.clone();
        c2.handle = None;
        c2.use_count = None;
        c2.flags = None;
        b.add_chain(&c2, true).unwrap();
    }
    let (sets, _) = list_sets(src, None, None).unwrap();
    for s in &sets {
        let mut s2 = s.clone();
        s2.handle = None;
        s2.unknown.clear();
        s2.id = None;
        b.add_set(&s2).unwrap();
        let (elems, _) = list_set_elems(src, s.family, &s.table, &s.name).unwrap();
        if !elems.is_empty() {
            b.add_set_elems(s.family, &s.table, &s.name, &elems)
                .unwrap();
        }
    }
    let mut n = 0;
    for fam in Family::ALL {
        for d in common::dump_rules_raw(src, fam) {
            let mut r = d.rule.clone();
            r.handle = None;
            r.position = None;
            b.add_rule(&r, Placement::Append, false).unwrap();
            n += 1;
        }
    }
    b.commit(dst).unwrap();
    n
}

#[test]
fn ten_thousand_rules_of_every_kind_round_trip() {
    let text = ruleset();
    let Some((src_list, src_rules, kinds)) = common::in_netns(|| {
        if !common::nft_load_here("ten_thousand_rules_of_every_kind_round_trip", &text) {
            return None;
        }
        let mut conn = Conn::open().unwrap();
        let rules = common::dump_rules_raw(&mut conn, Family::Ipv4);
        let mut kinds: Vec<String> = rules
            .iter()
            .flat_map(|d| d.rule.exprs.iter().map(|e| e.name().to_owned()))
            .collect();
        kinds.sort();
        kinds.dedup();
        for d in &rules {
            assert_eq!(
                d.rule.exprs_bytes(),
                d.raw_exprs,
                "re-encoding differs:\n{}",
                d.rule
            );
            assert!(
                !d.rule.exprs.iter().any(|e| matches!(e, Expr::Raw(_))),
                "undecoded:\n{}",
                d.rule
            );
        }
        Some((
            common::nft_list(),
            rules.into_iter().map(|d| d.raw_exprs).collect::<Vec<_>>(),
            kinds,
        ))
    }) else {
        return;
    };
    assert!(src_rules.len() > 10_000, "{} rules", src_rules.len());
    eprintln!(
        "{} rules, expression kinds: {}",
        src_rules.len(),
        kinds.join(" ")
    );
    for k in [
        "payload",
        "cmp",
        "bitwise",
        "meta",
        "counter",
        "immediate",
        "range",
        "lookup",
        "limit",
        "log",
        "ct",
        "nat",
        "masq",
        "redir",
        "reject",
        "fib",
        "notrack",
        "quota",
        "socket",
        "tproxy",
        "numgen",
        "hash",
        "objref",
        "exthdr",
        "dynset",
        "connlimit",
        "rt",
    ] {
        assert!(
            kinds.iter().any(|x| x == k),
            "the ruleset has no {k} expression"
        );
    }
    // Read from one namespace, written into a fresh one, both with iptnl.
    let (dst_list, dst_rules) = common::in_netns(|| {
        let mut dst = Conn::open().unwrap();
        // The source namespace is gone; rebuild it to read from (the oracle loads it again).
        let src_ns = std::thread::scope(|s| {
            s.spawn(|| {
                iptnl::netlink::unshare_net_namespace().unwrap();
                common::nft_load(&text);
                let mut src = Conn::open().unwrap();
                copy_ruleset(&mut src, &mut dst)
            })
            .join()
            .unwrap()
        });
        assert!(src_ns > 10_000);
        let rules = common::dump_rules_raw(&mut dst, Family::Ipv4);
        (
            common::nft_list(),
            rules.into_iter().map(|d| d.raw_exprs).collect::<Vec<_>>(),
        )
    });
    assert_eq!(dst_rules.len(), src_rules.len());
    for (i, (a, b)) in src_rules.iter().zip(&dst_rules).enumerate() {
        assert_eq!(a, b, "rule {i} differs");
    }
    if src_list != dst_list {
        let (a, b): (Vec<_>, Vec<_>) = (src_list.lines().collect(), dst_list.lines().collect());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "nft list ruleset differs");
        }
        assert_eq!(a.len(), b.len(), "nft list ruleset differs in length");
    }
}
