//! The checks of their own (`checkentry`) of the extensions iptables-nft writes most: NAT,
//! REJECT, LOG, NFLOG, NFQUEUE, CT, TCPMSS and the common matches.

use std::mem::size_of;

use iptnl_sys::xt::*;

use super::*;

// nf_nat_ipv4_multi_range_compat: rangesize u32, then range[0].flags u32.
pub(super) fn nat_compat_one_range(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 0) != 1)
}

pub(super) fn masq_v4(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 4) & NF_NAT_RANGE_MAP_IPS != 0 || u32_at(b, 0) != 1)
}

// nf_nat_range: flags u32 first.
pub(super) fn no_map_ips(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 0) & NF_NAT_RANGE_MAP_IPS != 0)
}

pub(super) fn netmap_v4(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 4) & NF_NAT_RANGE_MAP_IPS == 0 || u32_at(b, 0) != 1)
}

pub(super) fn netmap_v6(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, 0) & NF_NAT_RANGE_MAP_IPS == 0)
}

pub(super) fn reject_v4(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let with = u32_at(b, 0);
    einval(with == IPT_ICMP_ECHOREPLY || (with == IPT_TCP_RESET && (c.proto != TCP || c.inv_proto)))
}

pub(super) fn reject_v6(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let with = u32_at(b, 0);
    einval(
        with == IP6T_ICMP6_ECHOREPLY || (with == IP6T_TCP_RESET && (c.proto != TCP || c.inv_proto)),
    )
}

// xt_log_info: level u8, logflags u8, prefix[30].
pub(super) fn log(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) >= 8 || !b.get(2..32).is_some_and(|p| p.contains(&0)))
}

// xt_nflog_info (what iptables-nft 1.8.7 writes for NFLOG): len u32, group u16,
// threshold u16, flags u16, pad u16, prefix [64] (NUL-terminated).
pub(super) fn nflog(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let last = size_of::<xt_nflog_info>() - 1;
    einval(u16_at(b, 8) & !XT_NFLOG_MASK != 0 || byte(b, last) != 0)
}

pub(super) fn tcp_or_udp(c: &CheckCtx<'_>, _: &[u8]) -> Result<(), i32> {
    einval(!((c.proto == TCP || c.proto == UDP) && !c.inv_proto))
}

pub(super) fn tcp_only(c: &CheckCtx<'_>, _: &[u8]) -> Result<(), i32> {
    einval(c.proto != TCP || c.inv_proto)
}

// xt_multiport_v1: flags u8, count u8, ports[15] u16, pflags[15] u8, invert u8.
pub(super) fn multiport(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let ok_proto = matches!(c.proto, TCP | UDP | UDPLITE | SCTP | DCCP) && !c.inv_proto;
    einval(!ok_proto || byte(b, 0) > 2 || byte(b, 1) > 15)
}

// xt_statistic_info: mode u16, flags u16.
pub(super) fn statistic(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u16_at(b, 0) > 1 || u16_at(b, 2) & !1 != 0)
}

// xt_addrtype_info_v1: source u16, dest u16, flags u32.
pub(super) fn addrtype_v1(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
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
pub(super) fn physdev(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let (invert, bitmask) = (byte(b, 64), byte(b, 65));
    if bitmask & XT_PHYSDEV_OP_MASK == 0 || bitmask & !XT_PHYSDEV_OP_MASK != 0 {
        return Err(libc::EINVAL);
    }
    einval(!physdev_hooks(b, c.hook_mask) || invert & !XT_PHYSDEV_OP_MASK != 0)
}

pub(super) fn physdev_hooks(b: &[u8], hook_mask: u32) -> bool {
    let (invert, bitmask) = (byte(b, 64), byte(b, 65));
    let out = bitmask & (XT_PHYSDEV_OP_OUT | XT_PHYSDEV_OP_ISOUT) != 0;
    let bridged = bitmask & XT_PHYSDEV_OP_BRIDGED != 0 && invert & XT_PHYSDEV_OP_BRIDGED == 0;
    !(out && !bridged && hook_mask & OUT != 0)
}

// xt_ct_target_info_v1: flags u16, zone u16, ct_events u32, exp_events u32, helper[16],
// timeout[32].
pub(super) fn ct_v2(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u16_at(b, 0) & !XT_CT_MASK != 0)
}

pub(super) fn ct_unmodelled(b: &[u8]) -> Option<&'static str> {
    let helper = b.get(12..28).is_some_and(|h| h[0] != 0);
    let timeout = b.get(28..60).is_some_and(|t| t[0] != 0);
    (helper || timeout).then_some("the CT target with a helper or a timeout policy")
}

// xt_NFQ_info_v3: queuenum u16, queues_total u16, flags u16.
pub(super) fn nfqueue_v3(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
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
pub(super) fn tcpmss(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(!tcpmss_hooks(b, c.hook_mask))
}

pub(super) fn tcpmss_hooks(b: &[u8], hook_mask: u32) -> bool {
    const XT_TCPMSS_CLAMP_PMTU: u16 = 0xffff;
    !(u16_at(b, 0) == XT_TCPMSS_CLAMP_PMTU && hook_mask & !(FWD | OUT | POST) != 0)
}

// xt_DSCP_info / xt_dscp_info: dscp u8 first.
pub(super) fn dscp(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) > 0x3f)
}

// ipt_TTL_info / ip6t_HL_info: mode u8, ttl u8.
pub(super) fn ttl_target(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) > 2 || (byte(b, 0) == 2 && byte(b, 1) == 0))
}

// xt_CHECKSUM_info: operation u8.
pub(super) fn checksum(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) == 0 || byte(b, 0) & !1 != 0)
}

// xt_rpfilter_info: flags u8.
pub(super) fn rpfilter(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) & !0x0f != 0 || !(c.table == "raw" || c.table == "mangle"))
}

// xt_socket_mtinfo3: flags u8.
pub(super) fn socket_v3(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, 0) & !0x0f != 0)
}

// xt_time_info: date_start u32, date_stop u32, daytime_start u32, daytime_stop u32,
// monthdays_match u32, weekdays_match u8, flags u8.
pub(super) fn time(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    const SECONDS_PER_DAY: u32 = 86400;
    einval(
        u32_at(b, 8) >= SECONDS_PER_DAY
            || u32_at(b, 12) >= SECONDS_PER_DAY
            || byte(b, 21) & !0x07 != 0,
    )
}

// xt_owner_match_info: uid_min, uid_max, gid_min, gid_max u32, match u8, invert u8.
pub(super) fn owner(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    const XT_OWNER_MASK: u8 = 0x0f;
    einval(byte(b, 16) & !XT_OWNER_MASK != 0 || byte(b, 17) & !XT_OWNER_MASK != 0)
}

// xt_audit_info: type u8 (xt_AUDIT.c, audit_tg_check).
pub(super) fn audit(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    if byte(b, 0) > XT_AUDIT_TYPE_MAX {
        return Err(libc::ERANGE);
    }
    Ok(())
}

// struct xt_hmark_info (xt_HMARK.c, hmark_tg_check): a modulus; no protocol mask in L3
// mode; an SPI (or its mask) never with ports (or their masks).
pub(super) fn hmark(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_hmark_info;
    let f = |bit: u32| 1u32 << bit;
    let flags = u32_at(b, core::mem::offset_of!(I, flags));
    einval(
        u32_at(b, core::mem::offset_of!(I, hmodulus)) == 0
            || (u16_at(b, core::mem::offset_of!(I, proto_mask)) != 0
                && flags & f(XT_HMARK_METHOD_L3) != 0)
            || (flags & f(XT_HMARK_SPI_MASK) != 0
                && flags & (f(XT_HMARK_SPORT_MASK) | f(XT_HMARK_DPORT_MASK)) != 0)
            || (flags & f(XT_HMARK_SPI) != 0
                && flags & (f(XT_HMARK_SPORT) | f(XT_HMARK_DPORT)) != 0),
    )
}

// struct ipt_ECN_info: operation u8, ip_ect u8, proto_tcp (ipt_ECN.c, ecn_tg_check): the
// TCP bits need `-p tcp`.
pub(super) fn ecn_target(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let (op, ect) = (byte(b, 0), byte(b, 1));
    if op & IPT_ECN_OP_MASK != 0 || ect & !XT_ECN_IP_MASK != 0 {
        return Err(libc::EINVAL);
    }
    let tcp_bits = op & (IPT_ECN_OP_SET_ECE | IPT_ECN_OP_SET_CWR) != 0;
    einval(tcp_bits && (c.proto != TCP || c.inv_proto))
}
