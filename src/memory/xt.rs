//! The x_tables extensions this model knows, with what the kernel checks of each when a rule
//! uses it through nf_tables' `match` and `target` expressions (`xt_check_match`,
//! `xt_check_target` and the extension's `checkentry`): the info size, the table it is
//! restricted to, the hooks it may run in, the layer-4 protocol it needs, and the checks of
//! its own that an info iptables writes can fail.
//!
//! An extension (or revision, or family) that is not listed here is answered
//! [`Unsupported`](crate::netlink::Error::Unsupported): the kernel may offer it or not, and
//! its checks are not known here.

use std::mem::size_of;

use iptnl_sys::netfilter::{
    NF_INET_FORWARD, NF_INET_LOCAL_IN, NF_INET_LOCAL_OUT, NF_INET_POST_ROUTING, NF_INET_PRE_ROUTING,
};
use iptnl_sys::xt::*;

const PRE: u32 = 1 << NF_INET_PRE_ROUTING;
const IN: u32 = 1 << NF_INET_LOCAL_IN;
const FWD: u32 = 1 << NF_INET_FORWARD;
const OUT: u32 = 1 << NF_INET_LOCAL_OUT;
const POST: u32 = 1 << NF_INET_POST_ROUTING;

const TCP: u16 = 6;
const UDP: u16 = 17;
const ICMP: u16 = 1;
const ICMPV6: u16 = 58;
const SCTP: u16 = 132;
const DCCP: u16 = 33;
const UDPLITE: u16 = 136;

/// What a check sees of the rule and where it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckCtx<'a> {
    pub v6: bool,
    /// The table's name (x_tables restrictions compare it by name).
    pub table: &'a str,
    /// `1 << hook` for a rule in a base chain, 0 in a user chain (at rule creation) or the
    /// hook of the base chain it is reached from (at validation).
    pub hook_mask: u32,
    /// `NFTA_RULE_COMPAT` protocol and inversion (0 and false without it).
    pub proto: u16,
    pub inv_proto: bool,
}

type Check = fn(&CheckCtx<'_>, &[u8]) -> Result<(), i32>;

/// One extension revision, for one family or both.
#[derive(Debug)]
pub(crate) struct XtExt {
    pub name: &'static str,
    pub target: bool,
    pub rev: u32,
    /// `Some(false)`: IPv4 only; `Some(true)`: IPv6 only; `None`: both.
    pub v6: Option<bool>,
    /// The info size (`XT_ALIGN`ed).
    pub size: usize,
    /// Bytes of the info the kernel dumps back (the rest is kernel-private, dumped as zero);
    /// `None`: all of it.
    pub usersize: Option<usize>,
    pub table: Option<&'static str>,
    /// Hooks it may run in (0: any).
    pub hooks: u32,
    /// The protocol the rule must match, uninverted (0: any).
    pub proto: u16,
    pub check: Option<Check>,
}

const fn al(n: usize) -> usize {
    (n + 7) & !7
}

macro_rules! ext {
    ($name:expr, $target:expr, $rev:expr, $v6:expr, $size:expr) => {
        XtExt {
            name: $name,
            target: $target,
            rev: $rev,
            v6: $v6,
            size: al($size),
            usersize: None,
            table: None,
            hooks: 0,
            proto: 0,
            check: None,
        }
    };
}

const M: bool = false;
const T: bool = true;
const V4: Option<bool> = Some(false);
const V6: Option<bool> = Some(true);
const ANY: Option<bool> = None;

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map(|x| u16::from_ne_bytes([x[0], x[1]]))
        .unwrap_or(0)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map(|x| u32::from_ne_bytes([x[0], x[1], x[2], x[3]]))
        .unwrap_or(0)
}

fn byte(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

fn einval(bad: bool) -> Result<(), i32> {
    if bad {
        Err(libc::EINVAL)
    } else {
        Ok(())
    }
}

// nf_nat_ipv4_multi_range_compat: rangesize u32, then range[0].flags u32.
fn nat_compat_one_range(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 0) != 1)
}

fn masq_v4(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 4) & NF_NAT_RANGE_MAP_IPS != 0 || u32_at(b, 0) != 1)
}

// nf_nat_range: flags u32 first.
fn no_map_ips(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 0) & NF_NAT_RANGE_MAP_IPS != 0)
}

fn netmap_v4(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 4) & NF_NAT_RANGE_MAP_IPS == 0 || u32_at(b, 0) != 1)
}

fn netmap_v6(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 0) & NF_NAT_RANGE_MAP_IPS == 0)
}

fn reject_v4(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let with = u32_at(b, 0);
    einval(with == IPT_ICMP_ECHOREPLY || (with == IPT_TCP_RESET && (c.proto != TCP || c.inv_proto)))
}

fn reject_v6(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let with = u32_at(b, 0);
    einval(
        with == IP6T_ICMP6_ECHOREPLY || (with == IP6T_TCP_RESET && (c.proto != TCP || c.inv_proto)),
    )
}

// xt_log_info: level u8, logflags u8, prefix[30].
fn log(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) >= 8 || !b.get(2..32).is_some_and(|p| p.contains(&0)))
}

// xt_nflog_info (what iptables-nft 1.8.7 writes for NFLOG): len u32, group u16,
// threshold u16, flags u16, pad u16, prefix [64] (NUL-terminated).
fn nflog(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let last = size_of::<xt_nflog_info>() - 1;
    einval(u16_at(b, 8) & !XT_NFLOG_MASK != 0 || byte(b, last) != 0)
}

fn tcp_or_udp(c: &CheckCtx<'_>, _: &[u8]) -> Result<(), i32> {
    einval(!((c.proto == TCP || c.proto == UDP) && !c.inv_proto))
}

fn tcp_only(c: &CheckCtx<'_>, _: &[u8]) -> Result<(), i32> {
    einval(c.proto != TCP || c.inv_proto)
}

// xt_multiport_v1: flags u8, count u8, ports[15] u16, pflags[15] u8, invert u8.
fn multiport(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let ok_proto = matches!(c.proto, TCP | UDP | UDPLITE | SCTP | DCCP) && !c.inv_proto;
    einval(!ok_proto || byte(b, 0) > 2 || byte(b, 1) > 15)
}

// xt_statistic_info: mode u16, flags u16.
fn statistic(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u16_at(b, 0) > 1 || u16_at(b, 2) & !1 != 0)
}

// xt_addrtype_info_v1: source u16, dest u16, flags u32.
fn addrtype_v1(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let flags = u32_at(b, 4);
    let (src, dst) = (u16_at(b, 0), u16_at(b, 2));
    if flags & XT_ADDRTYPE_LIMIT_IFACE_IN != 0 && flags & XT_ADDRTYPE_LIMIT_IFACE_OUT != 0 {
        return Err(libc::EINVAL);
    }
    if c.hook_mask & (PRE | IN) != 0 && flags & XT_ADDRTYPE_LIMIT_IFACE_OUT != 0 {
        return Err(libc::EINVAL);
    }
    if c.hook_mask & (POST | OUT) != 0 && flags & XT_ADDRTYPE_LIMIT_IFACE_IN != 0 {
        return Err(libc::EINVAL);
    }
    if c.v6 {
        let bad = XT_ADDRTYPE_BLACKHOLE | XT_ADDRTYPE_PROHIBIT;
        if (src | dst) & bad != 0 || (src | dst) & XT_ADDRTYPE_BROADCAST != 0 {
            return Err(libc::EINVAL);
        }
    }
    Ok(())
}

// xt_physdev_info: physindev[16], in_mask[16], physoutdev[16], out_mask[16], invert u8,
// bitmask u8.
fn physdev(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let (invert, bitmask) = (byte(b, 64), byte(b, 65));
    if bitmask & XT_PHYSDEV_OP_MASK == 0 || bitmask & !XT_PHYSDEV_OP_MASK != 0 {
        return Err(libc::EINVAL);
    }
    einval(!physdev_hooks(b, c.hook_mask) || invert & !XT_PHYSDEV_OP_MASK != 0)
}

fn physdev_hooks(b: &[u8], hook_mask: u32) -> bool {
    let (invert, bitmask) = (byte(b, 64), byte(b, 65));
    let out = bitmask & (XT_PHYSDEV_OP_OUT | XT_PHYSDEV_OP_ISOUT) != 0;
    let bridged = bitmask & XT_PHYSDEV_OP_BRIDGED != 0 && invert & XT_PHYSDEV_OP_BRIDGED == 0;
    !(out && !bridged && hook_mask & OUT != 0)
}

// xt_ct_target_info_v1: flags u16, zone u16, ct_events u32, exp_events u32, helper[16],
// timeout[32].
fn ct_v2(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u16_at(b, 0) & !XT_CT_MASK != 0)
}

fn ct_unmodelled(b: &[u8]) -> Option<&'static str> {
    let helper = b.get(12..28).is_some_and(|h| h[0] != 0);
    let timeout = b.get(28..60).is_some_and(|t| t[0] != 0);
    (helper || timeout).then_some("the CT target with a helper or a timeout policy")
}

// xt_NFQ_info_v3: queuenum u16, queues_total u16, flags u16.
fn nfqueue_v3(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    const NFQ_FLAG_MASK: u16 = 0x07;
    let (num, total, flags) = (u16_at(b, 0), u16_at(b, 2), u16_at(b, 4));
    if total == 0 || flags & !NFQ_FLAG_MASK != 0 {
        return Err(libc::EINVAL);
    }
    if u32::from(num) + u32::from(total) - 1 > 0xffff {
        return Err(libc::ERANGE);
    }
    Ok(())
}

// xt_tcpmss_info: mss u16.
fn tcpmss(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(!tcpmss_hooks(b, c.hook_mask))
}

fn tcpmss_hooks(b: &[u8], hook_mask: u32) -> bool {
    const XT_TCPMSS_CLAMP_PMTU: u16 = 0xffff;
    !(u16_at(b, 0) == XT_TCPMSS_CLAMP_PMTU && hook_mask & !(FWD | OUT | POST) != 0)
}

// xt_DSCP_info / xt_dscp_info: dscp u8 first.
fn dscp(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) > 0x3f)
}

// ipt_TTL_info / ip6t_HL_info: mode u8, ttl u8.
fn ttl_target(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) > 2 || (byte(b, 0) == 2 && byte(b, 1) == 0))
}

// xt_CHECKSUM_info: operation u8.
fn checksum(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) == 0 || byte(b, 0) & !1 != 0)
}

// xt_rpfilter_info: flags u8.
fn rpfilter(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) & !0x0f != 0 || !(c.table == "raw" || c.table == "mangle"))
}

// xt_socket_mtinfo3: flags u8.
fn socket_v3(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) & !0x0f != 0)
}

// xt_time_info: date_start u32, date_stop u32, daytime_start u32, daytime_stop u32,
// monthdays_match u32, weekdays_match u8, flags u8.
fn time(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    const SECONDS_PER_DAY: u32 = 86400;
    einval(
        u32_at(b, 8) >= SECONDS_PER_DAY
            || u32_at(b, 12) >= SECONDS_PER_DAY
            || byte(b, 21) & !0x07 != 0,
    )
}

// xt_owner_match_info: uid_min, uid_max, gid_min, gid_max u32, match u8, invert u8.
fn owner(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    const XT_OWNER_MASK: u8 = 0x0f;
    einval(byte(b, 16) & !XT_OWNER_MASK != 0 || byte(b, 17) & !XT_OWNER_MASK != 0)
}

/// Every extension revision this model knows.
pub(crate) static CATALOG: &[XtExt] = &[
    // Matches with no check an info iptables writes can fail.
    ext!("comment", M, 0, ANY, size_of::<xt_comment_info>()),
    ext!("conntrack", M, 1, ANY, size_of::<xt_conntrack_mtinfo1>()),
    ext!("conntrack", M, 2, ANY, size_of::<xt_conntrack_mtinfo2>()),
    ext!("conntrack", M, 3, ANY, size_of::<xt_conntrack_mtinfo3>()),
    ext!("state", M, 0, ANY, size_of::<xt_state_info>()),
    ext!("mark", M, 1, ANY, size_of::<xt_mark_mtinfo1>()),
    ext!("connmark", M, 1, ANY, size_of::<xt_connmark_mtinfo1>()),
    ext!("pkttype", M, 0, ANY, size_of::<xt_pkttype_info>()),
    ext!("length", M, 0, ANY, size_of::<xt_length_info>()),
    ext!("iprange", M, 1, ANY, size_of::<xt_iprange_mtinfo>()),
    ext!("ttl", M, 0, V4, size_of::<ipt_ttl_info>()),
    ext!("hl", M, 0, V6, size_of::<ip6t_hl_info>()),
    ext!("tos", M, 1, ANY, size_of::<xt_tos_match_info>()),
    ext!("helper", M, 0, ANY, size_of::<xt_helper_info>()),
    XtExt {
        check: Some(dscp),
        ..ext!("dscp", M, 0, ANY, size_of::<xt_dscp_info>())
    },
    XtExt {
        proto: TCP,
        ..ext!("tcp", M, 0, ANY, size_of::<xt_tcp>())
    },
    XtExt {
        proto: UDP,
        ..ext!("udp", M, 0, ANY, size_of::<xt_udp>())
    },
    XtExt {
        proto: ICMP,
        ..ext!("icmp", M, 0, V4, size_of::<ipt_icmp>())
    },
    XtExt {
        proto: ICMPV6,
        ..ext!("icmp6", M, 0, V6, size_of::<ip6t_icmp>())
    },
    XtExt {
        proto: TCP,
        ..ext!("tcpmss", M, 0, ANY, size_of::<xt_tcpmss_match_info>())
    },
    XtExt {
        check: Some(multiport),
        ..ext!("multiport", M, 1, ANY, size_of::<xt_multiport_v1>())
    },
    XtExt {
        check: Some(addrtype_v1),
        ..ext!("addrtype", M, 1, ANY, size_of::<xt_addrtype_info_v1>())
    },
    XtExt {
        usersize: Some(core::mem::offset_of!(xt_statistic_info, master)),
        check: Some(statistic),
        ..ext!("statistic", M, 0, ANY, size_of::<xt_statistic_info>())
    },
    XtExt {
        check: Some(physdev),
        ..ext!("physdev", M, 0, ANY, size_of::<xt_physdev_info>())
    },
    XtExt {
        hooks: OUT | POST,
        check: Some(owner),
        ..ext!("owner", M, 1, ANY, size_of::<xt_owner_match_info>())
    },
    XtExt {
        hooks: PRE | IN | FWD,
        ..ext!("mac", M, 0, ANY, size_of::<xt_mac_info>())
    },
    XtExt {
        hooks: PRE,
        check: Some(rpfilter),
        ..ext!("rpfilter", M, 0, ANY, size_of::<xt_rpfilter_info>())
    },
    XtExt {
        hooks: PRE | IN,
        check: Some(socket_v3),
        ..ext!("socket", M, 3, ANY, size_of::<xt_socket_mtinfo3>())
    },
    XtExt {
        check: Some(time),
        ..ext!("time", M, 0, ANY, size_of::<xt_time_info>())
    },
    // Targets.
    ext!("MARK", T, 2, ANY, size_of::<xt_mark_tginfo2>()),
    ext!("CONNMARK", T, 1, ANY, size_of::<xt_connmark_tginfo1>()),
    ext!("CONNMARK", T, 2, ANY, size_of::<xt_connmark_tginfo2>()),
    XtExt {
        hooks: OUT | FWD | POST,
        ..ext!("CLASSIFY", T, 0, ANY, size_of::<xt_classify_target_info>())
    },
    XtExt {
        table: Some("raw"),
        ..ext!("TRACE", T, 0, ANY, 0)
    },
    XtExt {
        check: Some(log),
        ..ext!("LOG", T, 0, ANY, size_of::<xt_log_info>())
    },
    XtExt {
        check: Some(nflog),
        ..ext!("NFLOG", T, 0, ANY, size_of::<xt_nflog_info>())
    },
    XtExt {
        check: Some(nfqueue_v3),
        ..ext!("NFQUEUE", T, 3, ANY, size_of::<xt_NFQ_info_v3>())
    },
    XtExt {
        proto: TCP,
        check: Some(tcpmss),
        ..ext!("TCPMSS", T, 0, ANY, size_of::<xt_tcpmss_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(dscp),
        ..ext!("DSCP", T, 0, ANY, size_of::<xt_DSCP_info>())
    },
    XtExt {
        table: Some("mangle"),
        ..ext!("TOS", T, 1, ANY, size_of::<xt_tos_target_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(ttl_target),
        ..ext!("TTL", T, 0, V4, size_of::<ipt_TTL_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(ttl_target),
        ..ext!("HL", T, 0, V6, size_of::<ip6t_HL_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(checksum),
        ..ext!("CHECKSUM", T, 0, ANY, size_of::<xt_CHECKSUM_info>())
    },
    XtExt {
        table: Some("raw"),
        hooks: PRE | OUT,
        check: Some(ct_v2),
        ..ext!("CT", T, 2, ANY, size_of::<xt_ct_target_info_v1>())
    },
    XtExt {
        table: Some("mangle"),
        hooks: PRE,
        check: Some(tcp_or_udp),
        ..ext!("TPROXY", T, 1, ANY, size_of::<xt_tproxy_target_info_v1>())
    },
    XtExt {
        hooks: IN | FWD,
        check: Some(tcp_only),
        ..ext!("SYNPROXY", T, 0, ANY, size_of::<xt_synproxy_info>())
    },
    XtExt {
        table: Some("filter"),
        hooks: IN | FWD | OUT,
        check: Some(reject_v4),
        ..ext!("REJECT", T, 0, V4, size_of::<ipt_reject_info>())
    },
    XtExt {
        table: Some("filter"),
        hooks: IN | FWD | OUT,
        check: Some(reject_v6),
        ..ext!("REJECT", T, 0, V6, size_of::<ip6t_reject_info>())
    },
    XtExt {
        table: Some("nat"),
        hooks: POST,
        check: Some(masq_v4),
        ..ext!(
            "MASQUERADE",
            T,
            0,
            V4,
            size_of::<nf_nat_ipv4_multi_range_compat>()
        )
    },
    XtExt {
        table: Some("nat"),
        hooks: POST,
        check: Some(no_map_ips),
        ..ext!("MASQUERADE", T, 0, V6, size_of::<nf_nat_range>())
    },
    XtExt {
        table: Some("nat"),
        hooks: POST | IN,
        check: Some(nat_compat_one_range),
        ..ext!(
            "SNAT",
            T,
            0,
            V4,
            size_of::<nf_nat_ipv4_multi_range_compat>()
        )
    },
    XtExt {
        table: Some("nat"),
        hooks: POST | IN,
        ..ext!("SNAT", T, 1, ANY, size_of::<nf_nat_range>())
    },
    XtExt {
        table: Some("nat"),
        hooks: POST | IN,
        ..ext!("SNAT", T, 2, ANY, size_of::<nf_nat_range2>())
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | OUT,
        check: Some(nat_compat_one_range),
        ..ext!(
            "DNAT",
            T,
            0,
            V4,
            size_of::<nf_nat_ipv4_multi_range_compat>()
        )
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | OUT,
        ..ext!("DNAT", T, 1, ANY, size_of::<nf_nat_range>())
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | OUT,
        ..ext!("DNAT", T, 2, ANY, size_of::<nf_nat_range2>())
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | OUT,
        check: Some(masq_v4),
        ..ext!(
            "REDIRECT",
            T,
            0,
            V4,
            size_of::<nf_nat_ipv4_multi_range_compat>()
        )
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | OUT,
        check: Some(no_map_ips),
        ..ext!("REDIRECT", T, 0, V6, size_of::<nf_nat_range>())
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | POST | OUT | IN,
        check: Some(netmap_v4),
        ..ext!(
            "NETMAP",
            T,
            0,
            V4,
            size_of::<nf_nat_ipv4_multi_range_compat>()
        )
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | POST | OUT | IN,
        check: Some(netmap_v6),
        ..ext!("NETMAP", T, 0, V6, size_of::<nf_nat_range>())
    },
];

/// Why an info this model cannot judge is refused as unsupported (the catalog entry is
/// known, but the info asks for something whose kernel check depends on more than the
/// info: a conntrack helper module, for one).
pub(crate) fn unmodelled(e: &XtExt, info: &[u8]) -> Option<&'static str> {
    match e.name {
        "CT" => ct_unmodelled(info),
        _ => None,
    }
}

/// The kernel's checks of an x_tables extension when a rule using it is added
/// (`xt_check_match`/`xt_check_target`): size, table, hooks, protocol, then the extension's
/// own.
pub(crate) fn check(e: &XtExt, ctx: &CheckCtx<'_>, info: &[u8]) -> Result<(), i32> {
    if al(info.len()) != e.size {
        return Err(libc::EINVAL);
    }
    if e.table.is_some_and(|t| t != ctx.table) {
        return Err(libc::EINVAL);
    }
    if e.hooks != 0 && ctx.hook_mask & !e.hooks != 0 {
        return Err(libc::EINVAL);
    }
    if e.proto != 0 && (e.proto != ctx.proto || ctx.inv_proto) {
        return Err(libc::EINVAL);
    }
    match e.check {
        Some(c) => c(ctx, info),
        None => Ok(()),
    }
}

/// Whether the dumped form of `info` is `info` itself: the kernel dumps only `usersize`
/// bytes and zeroes the kernel-private rest.
pub(crate) fn private_zero(e: &XtExt, info: &[u8]) -> bool {
    match e.usersize {
        Some(u) => info
            .get(u..)
            .is_none_or(|rest| rest.iter().all(|&b| b == 0)),
        None => true,
    }
}
