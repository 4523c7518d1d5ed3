//! The header and rate matches: hashlimit, connlimit, rpfilter, ttl, hl, dscp, tos, helper, and the IPv6 header matches frag, hbh, dst, rt, ah, esp, ipv6header, mh.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

#[path = "connlimit.rs"]
pub mod connlimit;
#[path = "dscp_match.rs"]
pub mod dscp_match;
#[path = "esp_ah.rs"]
pub mod esp_ah;
#[path = "frag.rs"]
pub mod frag;
#[path = "hashlimit.rs"]
pub mod hashlimit;
#[path = "hbh_dst.rs"]
pub mod hbh_dst;
#[path = "hdr_util.rs"]
pub mod hdr_util;
#[path = "helper.rs"]
pub mod helper;
#[path = "ipv6header.rs"]
pub mod ipv6header;
#[path = "mh.rs"]
pub mod mh;
#[path = "rpfilter.rs"]
pub mod rpfilter;
#[path = "rt.rs"]
pub mod rt;
#[path = "ttl_hl.rs"]
pub mod ttl_hl;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[
    &hashlimit::DESC,
    &connlimit::DESC,
    &rpfilter::DESC,
    &ttl_hl::TTL_MATCH,
    &ttl_hl::HL_MATCH,
    &ttl_hl::TTL_TARGET,
    &ttl_hl::HL_TARGET,
    &dscp_match::DSCP,
    &dscp_match::TOS,
    &helper::DESC,
    &frag::DESC,
    &hbh_dst::HBH,
    &hbh_dst::DST,
    &rt::DESC,
    &esp_ah::AH4,
    &esp_ah::AH6,
    &esp_ah::ESP,
    &ipv6header::DESC,
    &mh::DESC,
];

#[cfg(test)]
mod tests {
    use crate::ipt::ext::xt_match;
    use crate::ipt::{decode_rule, encode_rule, parse_rule_str, IpFamily};
    use crate::nft::expr::{Counter, Expr};
    use crate::nft::{Rule, RuleCompat};

    /// Every spec decodes from its own encoding to an equal spec printing the same line.
    #[test]
    fn encode_decode_round_trip() {
        let specs: &[(IpFamily, &str, &str)] = &[
            (IpFamily::V4, "-m hashlimit --hashlimit-above 512kb/s --hashlimit-burst 1mb --hashlimit-mode srcip,dstport --hashlimit-name a --hashlimit-srcmask 24", "filter"),
            (IpFamily::V6, "-m hashlimit --hashlimit-upto 3/min --hashlimit-rate-match --hashlimit-rate-interval 5 --hashlimit-name b --hashlimit-dstmask 64", "filter"),
            (IpFamily::V4, "-m connlimit --connlimit-upto 5 --connlimit-mask 24 --connlimit-daddr", "filter"),
            (IpFamily::V6, "-m connlimit ! --connlimit-upto 5 --connlimit-mask 64", "filter"),
            (IpFamily::V4, "-m rpfilter --loose --validmark --accept-local --invert", "raw"),
            (IpFamily::V4, "-m ttl ! --ttl-eq 5 -j TTL --ttl-dec 2", "mangle"),
            (IpFamily::V6, "-m hl --hl-lt 5 -j HL --hl-inc 3", "mangle"),
            (IpFamily::V6, "-m dscp ! --dscp-class AF41 -m tos ! --tos 0x10/0x3f -m helper ! --helper \"a b\"", "filter"),
            (IpFamily::V6, "-m frag ! --fragid 1:2 ! --fraglen 3 --fragres --fragfirst --fragmore -m hbh ! --hbh-len 3 --hbh-opts 1,2:3 -m dst --dst-opts 4", "filter"),
            (IpFamily::V6, "-m rt --rt-type 0 ! --rt-segsleft 2:3 ! --rt-len 8 --rt-0-res --rt-0-addrs ::1,2001:db8::2 --rt-0-not-strict", "filter"),
            (IpFamily::V6, "-m ah ! --ahspi 5: ! --ahlen 0 --ahres -m ipv6header ! --header frag,auth --soft", "filter"),
            (IpFamily::V6, "-p mh -m mh ! --mh-type bu:be", "filter"),
            (IpFamily::V4, "-p ah -m ah --ahspi :7", "filter"),
            (IpFamily::V4, "-p esp -m esp ! --espspi 0:4294967295", "filter"),
        ];
        for (f, s, table) in specs {
            let spec = &parse_rule_str(*f, s).unwrap()[0];
            let rule = encode_rule(spec, *f, table, "PREROUTING").unwrap();
            let back = decode_rule(&rule, *f).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(back.to_save_args(), spec.to_save_args(), "{s}");
            let again = encode_rule(&back, *f, table, "PREROUTING").unwrap();
            assert_eq!(again.exprs, rule.exprs, "{s}");
        }
    }

    fn saved(f: IpFamily, name: &'static str, rev: u32, info: Vec<u8>) -> String {
        let mut r = Rule::new(f.nft(), "filter", "INPUT");
        r.exprs = vec![
            xt_match(name, rev, info),
            Expr::Counter(Counter {
                packets: 0,
                bytes: 0,
            }),
        ];
        r.compat = Some(RuleCompat { proto: 0, flags: 0 });
        let d = decode_rule(&r, f).unwrap();
        let again = encode_rule(&d, f, "filter", "INPUT").unwrap();
        assert_eq!(again.exprs, r.exprs);
        d.to_save_args()
    }

    /// Older revisions iptables or the kernel may have used decode and print as iptables
    /// prints them with those revisions' own save functions.
    #[test]
    fn older_revisions() {
        // hashlimit rev 1 (avg in 1/10000 s): 5/sec, srcip, dstmask 24.
        let mut i = vec![0u8; 56];
        i[..2].copy_from_slice(b"r1");
        for (k, v) in [(16, 4u32), (20, 2000), (24, 5), (36, 1000), (40, 1000)] {
            i[k..k + 4].copy_from_slice(&v.to_ne_bytes());
        }
        i[44] = 32;
        i[45] = 24;
        assert_eq!(
            saved(IpFamily::V4, "hashlimit", 1, i),
            "-m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 5 --hashlimit-mode srcip --hashlimit-name r1 --hashlimit-dstmask 24"
        );
        // hashlimit rev 2, IPv6: 5/sec, dstip, expire 2000, srcmask 64.
        let mut i = vec![0u8; 304];
        i[..2].copy_from_slice(b"r2");
        i[256..264].copy_from_slice(&200000u64.to_ne_bytes());
        i[264..272].copy_from_slice(&5u64.to_ne_bytes());
        for (k, v) in [(272, 1u32), (284, 1000), (288, 2000)] {
            i[k..k + 4].copy_from_slice(&v.to_ne_bytes());
        }
        i[292] = 64;
        i[293] = 128;
        assert_eq!(
            saved(IpFamily::V6, "hashlimit", 2, i),
            "-m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 5 --hashlimit-mode dstip --hashlimit-name r2 --hashlimit-htable-expire 2000 --hashlimit-srcmask 64"
        );
        // connlimit rev 0: no saddr/daddr.
        let mut i = vec![0xffu8; 16];
        i.extend_from_slice(&7u32.to_ne_bytes());
        i.extend_from_slice(&[0; 12]);
        assert_eq!(
            saved(IpFamily::V4, "connlimit", 0, i),
            "-m connlimit --connlimit-above 7 --connlimit-mask 32"
        );
        // tos rev 0 (IPv4).
        assert_eq!(
            saved(IpFamily::V4, "tos", 0, vec![0x10, 1, 0, 0, 0, 0, 0, 0]),
            "-m tos ! --tos 0x10"
        );
    }
}
