//! Foreign rules: a ruleset written by `nft -f` with sets, maps, verdict maps and native
//! statements iptables never writes decodes without panic, keeps every expression typed, and
//! re-encodes to the very bytes the kernel dumped. Read as iptables rules, each is reported as
//! foreign with a reason, never misread.

mod common;

use iptnl::ipt::{decode_rule, encode_exprs, IpFamily};
use iptnl::netlink::Conn;
use iptnl::nft::{list_chains, list_sets, list_tables, Expr, Family};

const RULESET: &str = r#"
table ip nat {
    map svc { type ipv4_addr . inet_service : ipv4_addr . inet_service; elements = { 10.96.0.1 . 443 : 10.0.0.5 . 6443 } }
    chain pre { type nat hook prerouting priority dstnat; policy accept;
        dnat ip addr . port to ip daddr . tcp dport map @svc
        tcp dport 8080 dnat to 10.0.0.7:80
        tcp dport 25 redirect to :2525
        ip daddr 10.0.0.0/8 meta mark set numgen inc mod 3
    }
    chain post { type nat hook postrouting priority srcnat; policy accept;
        oifname "eth0" masquerade random,fully-random
        ip saddr 192.168.0.0/16 snat to 10.0.0.1-10.0.0.9 persistent
    }
}
table inet filter {
    set allowed { type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 192.168.1.1 } }
    set ports6 { type ipv6_addr . inet_service; elements = { ::1 . 22 } }
    map vm { type inet_service : verdict; elements = { 22 : jump ssh, 80 : accept } }
    counter c1 { }
    quota q1 { over 10 mbytes }
    chain ssh { ct state new limit rate 3/minute accept; drop; }
    chain input { type filter hook input priority filter; policy drop;
        ct state established,related accept
        ct state invalid drop
        iif "lo" accept
        ip saddr @allowed tcp dport vmap @vm
        ip6 saddr . tcp dport @ports6 accept
        tcp dport { 443, 8443 } counter name "c1" accept
        fib saddr . iif oif missing drop
        meta l4proto icmp icmp type echo-request limit rate 10/second accept
        quota name "q1" drop
        udp dport 53 jhash ip saddr mod 2 vmap { 0 : accept, 1 : drop }
        tcp flags syn tcp option maxseg size 1000-1400 drop
        reject with icmpx admin-prohibited
    }
    chain forward_c { type filter hook forward priority filter; policy accept;
        tcp flags syn tcp option maxseg size set rt mtu
        ct mark set meta mark
        ip daddr 10.0.0.1 reject with tcp reset
        quota over 1000 mbytes drop
        log prefix "fwd " level warn flags all
    }
    chain raw_c { type filter hook prerouting priority raw; policy accept;
        udp dport 4789 notrack
        meta l4proto tcp socket transparent 1 meta mark set 1 accept
    }
}
table ip6 t6 {
    chain out { type filter hook output priority 0;
        ip6 nexthdr ipv6-icmp accept
        ip6 daddr ff02::/16 counter accept
        meta skuid 1000 drop
    }
}
"#;

#[test]
fn foreign_ruleset_decodes_and_reencodes_byte_for_byte() {
    common::in_netns(|| {
        common::nft_load(RULESET);
        let mut conn = Conn::open().unwrap();
        let (tables, _) = list_tables(&mut conn, None).unwrap();
        assert_eq!(tables.len(), 3);
        let (chains, _) = list_chains(&mut conn, None, None).unwrap();
        assert_eq!(chains.len(), 7);
        let (sets, _) = list_sets(&mut conn, None, None).unwrap();
        assert!(sets.len() >= 5, "{sets:?}");
        let mut total = 0;
        let mut foreign = 0;
        for fam in [Family::Ipv4, Family::Inet, Family::Ipv6] {
            for d in common::dump_rules_raw(&mut conn, fam) {
                total += 1;
                let r = &d.rule;
                assert_eq!(r.exprs_bytes(), d.raw_exprs, "re-encoding differs for\n{r}");
                let raw: Vec<&Expr> = r
                    .exprs
                    .iter()
                    .filter(|e| matches!(e, Expr::Raw(_)))
                    .collect();
                assert!(raw.is_empty(), "undecoded expressions {raw:?} in\n{r}");
                // As an iptables rule: foreign, with a reason, never a panic or a misread.
                if let Some(ipf) = match fam {
                    Family::Ipv4 => Some(IpFamily::V4),
                    Family::Ipv6 => Some(IpFamily::V6),
                    _ => None,
                } {
                    match decode_rule(r, ipf) {
                        Err(f) => {
                            assert!(!f.reason.is_empty());
                            foreign += 1;
                        }
                        // Readable as iptables only if that reading is faithful: encoding it
                        // again gives the very same expressions.
                        Ok(spec) => {
                            let again = encode_exprs(&spec, ipf, &r.table, &r.chain).unwrap();
                            assert_eq!(
                                again,
                                r.exprs,
                                "misread as {:?}:\n{r}",
                                spec.to_save_args()
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(total, 30);
        assert!(foreign >= 8, "only {foreign} rules were reported foreign");
    });
}
