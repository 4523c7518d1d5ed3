//! iptables match and target extensions, one file each, as iptables' own
//! `extensions/libxt_*.c`: each file owns the extension's options, validation, encoding into
//! nf_tables expressions (native or x_tables struct + revision, exactly as iptables-nft 1.8.9),
//! decoding from every encoding iptables-nft 1.8.0–1.8.11 produce, and save-format printing.
//!
//! An extension is described once by a static [`ExtDesc`] (name, options, decoders) and lives
//! in a rule as a `Box<dyn Extension>` holding its parsed options.
//!
//! This module is the registry: it lists the extensions ([`all`]) and finds them by name.
//! What they are given and share stands in a floor of its own, [`base`], that knows no
//! extension: [`base::api`] (the [`Extension`] trait and its contexts), [`base::opts`] (the
//! option tables and their enforcement), [`base::libxt`] (libxtables' parsers and printers),
//! [`base::names`] (host, service and user names), [`base::ports`] (tcp/udp port ranges),
//! [`base::xtbuf`] (x_tables structs) and the rest. An extension imports from the floor
//! only, never from another extension.

use super::IpFamily;

// What the extensions are given and share: the floor below them.
pub mod base;

// The extensions, one file each.
pub mod addrtype;
pub mod audit;
pub mod bpf;
pub mod cgroup;
pub mod checksum;
pub mod classify;
pub mod cluster;
pub mod clusterip;
pub mod comment;
pub mod connbytes;
pub mod connlabel;
pub mod connlimit;
pub mod connmark;
pub mod connsecmark;
pub mod conntrack;
pub mod cpu;
pub mod ct;
pub mod dccp;
pub mod devgroup;
pub mod dscp_match;
pub mod dscp_target;
pub mod ecn;
pub mod ecn_target;
pub mod esp_ah;
pub mod eui64;
pub mod frag;
pub mod hashlimit;
pub mod hbh_dst;
pub mod helper;
pub mod hmark;
pub mod icmp;
pub mod idletimer;
pub mod ipcomp;
pub mod iprange;
pub mod ipv6header;
pub mod ipvs;
pub mod led;
pub mod length;
pub mod limit;
pub mod log;
pub mod mac;
pub mod mark;
pub mod mh;
pub mod multiport;
pub mod nat;
pub mod netmap;
pub mod nfacct;
pub mod nflog;
pub mod nfqueue;
pub mod npt;
pub mod osf;
pub mod owner;
pub mod physdev;
pub mod pkttype;
pub mod policy;
pub mod quota;
pub mod quota2;
pub mod rateest;
pub mod rateest_target;
pub mod realm;
pub mod recent;
pub mod reject;
pub mod rpfilter;
pub mod rt;
pub mod sctp;
pub mod secmark;
pub mod set;
pub mod socket;
pub mod srh;
pub mod statistic;
pub mod string;
pub mod synproxy;
pub mod tcp;
pub mod tcpmss_match;
pub mod tcpmss_target;
pub mod tcpoptstrip;
pub mod tee;
pub mod time;
pub mod tos_target;
pub mod tproxy;
pub mod trace;
pub mod ttl_hl;
pub mod u32;
pub mod udp;
pub mod ulog;

pub use base::api::{
    parse_uint, save_inv, save_string, xt_match, xt_target, DecodeCtx, EncodeCtx, EncodeError,
    ExprCursor, ExtDesc, ExtKind, Extension, NativeDecoder, NoSets, ParseCtx, PrintCtx, SetIndex,
    XtDecoder,
};
pub use base::opts::{Given, Opt, ShownOpt, Ty, Val, STR, U16, U32, U8};
pub use base::xtbuf::{XtBuf, XtView};

/// The registry: native decoders are tried in this order.
static ALL: &[&ExtDesc] = &[
    &tcp::DESC,
    &udp::DESC,
    &comment::DESC,
    &mark::MATCH,
    &mark::TARGET,
    &conntrack::CONNTRACK,
    &conntrack::STATE,
    &addrtype::DESC,
    &multiport::DESC,
    &set::MATCH,
    &set::TARGET,
    &connmark::MATCH,
    &connmark::TARGET,
    &nat::MASQUERADE,
    &nat::SNAT,
    &nat::DNAT,
    &nat::REDIRECT,
    &reject::DESC,
    &log::DESC,
    &nflog::DESC,
    &ct::CT,
    &ct::NOTRACK,
    &tproxy::DESC,
    &tcpmss_target::DESC,
    &nfqueue::DESC,
    &checksum::DESC,
    &classify::DESC,
    &trace::DESC,
    &audit::DESC,
    &dscp_target::DESC,
    &tos_target::DESC,
    &statistic::DESC,
    &recent::DESC,
    &owner::DESC,
    &limit::DESC,
    &icmp::ICMP,
    &icmp::ICMP6,
    &length::DESC,
    &pkttype::DESC,
    &physdev::DESC,
    &iprange::DESC,
    &mac::DESC,
    &socket::DESC,
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
    &cpu::DESC,
    &quota::DESC,
    &tcpmss_match::DESC,
    &ecn::DESC,
    &devgroup::DESC,
    &realm::DESC,
    &connbytes::DESC,
    &ipcomp::DESC,
    &cgroup::DESC,
    &connlabel::DESC,
    &u32::DESC,
    &cluster::DESC,
    &bpf::DESC,
    &osf::DESC,
    &eui64::DESC,
    &sctp::DESC,
    &dccp::DESC,
    &nfacct::DESC,
    &quota2::DESC,
    &ipvs::DESC,
    &hmark::DESC,
    &tcpoptstrip::DESC,
    &idletimer::DESC,
    &connsecmark::DESC,
    &secmark::DESC,
    &synproxy::DESC,
    &netmap::DESC,
    &tee::DESC,
    &ecn_target::DESC,
    &npt::DNPT,
    &npt::SNPT,
    &led::DESC,
    &ulog::DESC,
    &clusterip::DESC,
    &srh::DESC,
    &rateest_target::DESC,
    &rateest::DESC,
    &string::DESC,
    &time::DESC,
    &policy::DESC,
];

/// Every extension iptnl knows, matches and targets, in the order native decoders are tried.
pub fn all() -> &'static [&'static ExtDesc] {
    ALL
}

/// Finds an extension by `-m`/`-j` name for a family.
pub fn find(kind: ExtKind, name: &str, family: IpFamily) -> Option<&'static ExtDesc> {
    // By name first (a restore looks up several names per line, and `-j CHAIN` misses
    // them all), then the first of those in list order that fits. The keys are the fixed
    // extension names, so a hash of a few of their bytes does (SipHash cost 200
    // instructions a lookup).
    type ByName = std::collections::HashMap<
        &'static str,
        Vec<&'static ExtDesc>,
        std::hash::BuildHasherDefault<NameHash>,
    >;
    static BY_NAME: std::sync::OnceLock<ByName> = std::sync::OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut m = ByName::default();
        for &d in all() {
            m.entry(d.name).or_default().push(d);
        }
        m
    });
    by_name
        .get(name)?
        .iter()
        .copied()
        .find(|d| d.kind == kind && d.family.is_none_or(|f| f == family))
}

/// The hash of the map of extension names in [`find`]: the length and four of the bytes,
/// spread by a multiplication (the same cost for a long chain name given to `-j`).
#[derive(Default)]
struct NameHash(u64);

impl std::hash::Hasher for NameHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let at = |i: usize| bytes.get(i).map_or(0, |&b| u64::from(b));
        let summary =
            n as u64 ^ at(0) << 8 ^ at(n.wrapping_sub(1)) << 16 ^ at(n / 2) << 24 ^ at(n / 4) << 32;
        self.0 = (self.0.rotate_left(29) ^ summary).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Finds the extension that decodes a kernel x_tables `match`/`target` of that name.
pub fn find_xt(kind: ExtKind, xt_name: &str, family: IpFamily) -> Option<&'static ExtDesc> {
    all().iter().copied().find(|d| {
        d.kind == kind
            && d.decode_xt.is_some()
            && d.xt_names.contains(&xt_name)
            && d.family.is_none_or(|f| f == family)
    })
}

/// The options column of `iptables -L` for a rule: `[goto] ` is the caller's; then each
/// match's and the target's `print` words, each piece with its leading space (`tcp dpt:22`
/// is ` tcp dpt:22`). `numeric` is `-n`.
pub fn list_options(spec: &super::RuleSpec, numeric: bool) -> String {
    if let Some(v) = &spec.view {
        return list_options(v, numeric);
    }
    let ctx = PrintCtx {
        family: spec.family,
        proto: spec.proto.map_or(0, |p| p.num),
        numeric,
    };
    let mut out = String::new();
    if let Some(raw) = &spec.raw {
        out.push(' ');
        out.push_str(super::raw::RAW_LIST_MARK);
        out.push(' ');
        out.push_str(&raw.describe());
        return out;
    }
    for m in &spec.matches {
        m.print(&ctx, &mut out);
    }
    if let Some(super::RuleTarget::Ext(t)) = &spec.target {
        t.print(&ctx, &mut out);
    }
    out
}

#[cfg(test)]
mod print_tests {
    use super::list_options;
    use crate::ipt::{parse_rule_str, IpFamily};

    fn listed(f: IpFamily, spec: &str, numeric: bool) -> String {
        list_options(&parse_rule_str(f, spec).unwrap()[0], numeric)
    }

    #[test]
    fn options_column_words() {
        let v4 = IpFamily::V4;
        assert_eq!(
            listed(
                v4,
                "-p tcp --dport 22 -m comment --comment \"a b\" -j ACCEPT",
                true
            ),
            " tcp dpt:22 /* a b */"
        );
        assert_eq!(
            listed(v4, "-p tcp ! --sport 1:1024 --syn -j REJECT", true),
            " tcp spts:!1:1024 flags:0x17/0x02 reject-with icmp-port-unreachable"
        );
        assert_eq!(
            listed(
                v4,
                "-m mark --mark 0x1/0xff -j MARK --or-mark 0x4000",
                false
            ),
            " mark match 0x1/0xff MARK or 0x4000"
        );
        assert_eq!(
            listed(v4, "-j LOG --log-prefix x --log-uid", false),
            " LOG level warn uid prefix \"x\""
        );
        assert_eq!(
            listed(v4, "-j LOG --log-prefix x", true),
            " LOG flags 0 level 4 prefix \"x\""
        );
        assert_eq!(
            listed(
                v4,
                "-p udp -j MASQUERADE --to-ports 1000-2000 --random-fully",
                true
            ),
            " masq ports: 1000-2000 random-fully"
        );
        assert_eq!(
            listed(IpFamily::V6, "-p ipv6-icmp --icmpv6-type 1/3", true),
            " ipv6-icmptype 1 code 3"
        );
        assert_eq!(listed(v4, "-j ACCEPT", true), "");
    }
}

#[cfg(test)]
mod header_tests {
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

/// For the extensions' unit tests: `args` parsed, encoded into a filter INPUT rule, decoded
/// and printed as iptables-save prints them (the first rule of an expansion).
#[cfg(test)]
pub(crate) fn save_round(family: IpFamily, args: &str) -> Result<String, String> {
    use crate::ipt::{decode_rule, encode_rule, parse_rule};
    let args: Vec<&str> = args.split(' ').collect();
    let spec = parse_rule(family, &args).map_err(|e| e.to_string())?;
    let first = spec.first().ok_or("no rule")?;
    let r = encode_rule(first, family, "filter", "INPUT").map_err(|e| e.to_string())?;
    decode_rule(&r, family)
        .map(|d| d.to_save_args())
        .map_err(|e| e.to_string())
}
