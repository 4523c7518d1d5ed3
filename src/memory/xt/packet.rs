//! The checks of their own (`checkentry`) of the matches on what one packet holds: the
//! SCTP, DCCP, IPsec and IPComp headers, ECN bits, the IPv6 extension headers, string
//! search, `u32`, IPsec policy, device groups and the CPU.
//!
//! A few checks of out-of-range counts reached the kernel's stable releases during 6.18's
//! life (`hbh`/`dst` option lists, `rt` address lists, `u32` shifts): an info that only
//! they would refuse is not judged here (the `*_unmodelled` functions), as the answer
//! depends on the kernel's point release. iptables never writes one.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::*;

use super::*;

// struct xt_sctp_info (xt_sctp.c, sctp_mt_check).
pub(super) fn sctp(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_sctp_info;
    let count = u32_at(b, offset_of!(I, flag_count)) as i32;
    let flags = u32_at(b, offset_of!(I, flags));
    let inv = u32_at(b, offset_of!(I, invflags));
    if !(0..=XT_NUM_SCTP_FLAGS as i32).contains(&count)
        || flags & !XT_SCTP_VALID_FLAGS != 0
        || inv & !XT_SCTP_VALID_FLAGS != 0
        || inv & !flags != 0
    {
        return Err(libc::EINVAL);
    }
    if flags & XT_SCTP_CHUNK_TYPES == 0 {
        return Ok(());
    }
    let any = SCTP_CHUNK_MATCH_ALL | SCTP_CHUNK_MATCH_ANY | SCTP_CHUNK_MATCH_ONLY;
    einval(u32_at(b, offset_of!(I, chunk_match_type)) & any == 0)
}

// struct xt_dccp_info (xt_dccp.c, dccp_mt_check).
pub(super) fn dccp(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_dccp_info;
    let flags = u16_at(b, offset_of!(I, flags));
    let inv = u16_at(b, offset_of!(I, invflags));
    einval(
        flags & !XT_DCCP_VALID_FLAGS != 0 || inv & !XT_DCCP_VALID_FLAGS != 0 || inv & !flags != 0,
    )
}

// struct xt_esp (xt_esp.c, esp_mt_check).
pub(super) fn esp(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, offset_of!(xt_esp, invflags)) & !XT_ESP_INV_MASK != 0)
}

// struct ipt_ah (ipt_ah.c, checkentry).
pub(super) fn ah_v4(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, offset_of!(ipt_ah, invflags)) & !IPT_AH_INV_MASK != 0)
}

// struct ip6t_ah (ip6t_ah.c, ah_mt6_check).
pub(super) fn ah_v6(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, offset_of!(ip6t_ah, invflags)) & !IP6T_AH_INV_MASK != 0)
}

// struct xt_ipcomp (xt_ipcomp.c, comp_mt_check).
pub(super) fn ipcomp(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, offset_of!(xt_ipcomp, invflags)) & !XT_IPCOMP_INV_MASK != 0)
}

// struct xt_ecn_info (xt_ecn.c, ecn_mt_check4/6): the TCP bits need `-p tcp`.
pub(super) fn ecn(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_ecn_info;
    let op = byte(b, offset_of!(I, operation));
    if op & XT_ECN_OP_MATCH_MASK != 0 || byte(b, offset_of!(I, invert)) & XT_ECN_OP_MATCH_MASK != 0
    {
        return Err(libc::EINVAL);
    }
    let tcp_bits = op & (XT_ECN_OP_MATCH_ECE | XT_ECN_OP_MATCH_CWR) != 0;
    einval(tcp_bits && (c.proto != TCP || c.inv_proto))
}

// struct ip6t_frag (ip6t_frag.c, frag_mt6_check).
pub(super) fn frag(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, offset_of!(ip6t_frag, invflags)) & !IP6T_FRAG_INV_MASK != 0)
}

// struct ip6t_opts (ip6t_hbh.c, hbh_mt6_check, for `hbh` and `dst`): a non-strict option
// list is not implemented.
pub(super) fn opts(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = ip6t_opts;
    einval(
        byte(b, offset_of!(I, invflags)) & !IP6T_OPTS_INV_MASK != 0
            || byte(b, offset_of!(I, flags)) & IP6T_OPTS_NSTRICT != 0,
    )
}

/// Why an `hbh`/`dst` info is not judged here: more options than the list holds.
pub(super) fn opts_unmodelled(b: &[u8]) -> Option<&'static str> {
    (usize::from(byte(b, offset_of!(ip6t_opts, optsnr))) > IP6T_OPTS_OPTSNR)
        .then_some("an hbh or dst match with more options than its list holds")
}

// struct ip6t_rt (ip6t_rt.c, rt_mt6_check): the type 0 options need `--rt-type 0`.
pub(super) fn rt(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = ip6t_rt;
    let (flags, inv) = (
        byte(b, offset_of!(I, flags)),
        byte(b, offset_of!(I, invflags)),
    );
    if inv & !IP6T_RT_INV_MASK != 0 {
        return Err(libc::EINVAL);
    }
    let type0 = flags & IP6T_RT_TYP != 0
        && u32_at(b, offset_of!(I, rt_type)) == 0
        && inv & IP6T_RT_INV_TYP == 0;
    einval(flags & (IP6T_RT_RES | IP6T_RT_FST_MASK) != 0 && !type0)
}

/// Why an `rt` info is not judged here: an address count out of range, or none with an
/// address list to match.
pub(super) fn rt_unmodelled(b: &[u8]) -> Option<&'static str> {
    type I = ip6t_rt;
    let n = usize::from(byte(b, offset_of!(I, addrnr)));
    let list = byte(b, offset_of!(I, flags)) & IP6T_RT_FST_MASK != 0;
    (n > IP6T_RT_HOPS || (list && n == 0))
        .then_some("an rt match whose address count is out of range or zero with a list")
}

// struct ip6t_ipv6header_info (ip6t_ipv6header.c, ipv6header_mt6_check): in hard mode the
// inversion is all or nothing.
pub(super) fn ipv6header(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = ip6t_ipv6header_info;
    let inv = byte(b, offset_of!(I, invflags));
    einval(byte(b, offset_of!(I, modeflag)) == 0 && inv != 0 && inv != 0xff)
}

// struct ip6t_mh (ip6t_mh.c, mh_mt6_check).
pub(super) fn mh(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(byte(b, offset_of!(ip6t_mh, invflags)) & !IP6T_MH_INV_MASK != 0)
}

// struct xt_string_info, revision 1 (xt_string.c, string_mt_check). The search algorithm is
// a module of its own (`ts_bm`, `ts_kmp`): only those two are modelled (see
// `string_unmodelled`).
pub(super) fn string(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_string_info;
    let from = u16_at(b, offset_of!(I, from_offset));
    let to = u16_at(b, offset_of!(I, to_offset));
    let algo_end = offset_of!(I, algo) + XT_STRING_MAX_ALGO_NAME_SIZE - 1;
    let patlen = usize::from(byte(b, offset_of!(I, patlen)));
    let flags = byte(b, offset_of!(I, u));
    if from > to
        || byte(b, algo_end) != 0
        || patlen > XT_STRING_MAX_PATTERN_SIZE
        || flags & !(XT_STRING_FLAG_IGNORECASE | XT_STRING_FLAG_INVERT) != 0
    {
        return Err(libc::EINVAL);
    }
    // textsearch_prepare: an empty pattern.
    einval(patlen == 0)
}

/// Why a `string` info is not judged here: an algorithm other than `bm` and `kmp`, whose
/// module the kernel may or may not have.
pub(super) fn string_unmodelled(b: &[u8]) -> Option<&'static str> {
    type I = xt_string_info;
    let algo = b.get(offset_of!(I, algo)..offset_of!(I, algo) + XT_STRING_MAX_ALGO_NAME_SIZE)?;
    let name = algo.split(|&c| c == 0).next().unwrap_or(algo);
    (name != b"bm" && name != b"kmp")
        .then_some("the string match with a search algorithm other than bm and kmp")
}

// struct xt_policy_info (xt_policy.c, policy_mt_check): a direction that the hook can see,
// and at most four elements.
pub(super) fn policy(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_policy_info;
    let flags = u16_at(b, offset_of!(I, flags));
    let (dir_in, dir_out) = (
        flags & XT_POLICY_MATCH_IN != 0,
        flags & XT_POLICY_MATCH_OUT != 0,
    );
    einval(
        !(dir_in || dir_out)
            || (c.hook_mask & (PRE | IN) != 0 && dir_out)
            || (c.hook_mask & (POST | OUT) != 0 && dir_in)
            || usize::from(u16_at(b, offset_of!(I, len))) > XT_POLICY_MAX_ELEM,
    )
}

// struct xt_devgroup_info (xt_devgroup.c, devgroup_mt_checkentry): the input device only
// where there is one, the output device likewise.
pub(super) fn devgroup(c: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let flags = u32_at(b, offset_of!(xt_devgroup_info, flags));
    let all = XT_DEVGROUP_MATCH_SRC
        | XT_DEVGROUP_INVERT_SRC
        | XT_DEVGROUP_MATCH_DST
        | XT_DEVGROUP_INVERT_DST;
    einval(
        flags & !all != 0
            || (flags & XT_DEVGROUP_MATCH_SRC != 0 && c.hook_mask & !(PRE | IN | FWD) != 0)
            || (flags & XT_DEVGROUP_MATCH_DST != 0 && c.hook_mask & !(FWD | OUT | POST) != 0),
    )
}

// struct xt_cpu_info (xt_cpu.c, cpu_mt_check).
pub(super) fn cpu(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, offset_of!(xt_cpu_info, invert)) & !1 != 0)
}

// struct xt_u32 (xt_u32.c, u32_mt_checkentry): at most 11 tests of 11 locations and 11
// value ranges each.
pub(super) fn u32_match(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    let most = XT_U32_MAXSIZE + 1;
    if usize::from(byte(b, offset_of!(xt_u32, ntests))) > most {
        return Err(libc::EINVAL);
    }
    for t in u32_tests(b) {
        let at = |f: usize| usize::from(byte(b, t + f));
        if at(offset_of!(xt_u32_test, nnums)) > most || at(offset_of!(xt_u32_test, nvalues)) > most
        {
            return Err(libc::EINVAL);
        }
    }
    Ok(())
}

/// Where each test of a `u32` info starts.
fn u32_tests(b: &[u8]) -> impl Iterator<Item = usize> {
    let n = usize::from(byte(b, offset_of!(xt_u32, ntests))).min(XT_U32_MAXSIZE + 1);
    (0..n).map(|i| offset_of!(xt_u32, tests) + i * size_of::<xt_u32_test>())
}

/// Why a `u32` info is not judged here: a shift by 32 or more.
pub(super) fn u32_unmodelled(b: &[u8]) -> Option<&'static str> {
    type L = xt_u32_location_element;
    for t in u32_tests(b) {
        let nnums =
            usize::from(byte(b, t + offset_of!(xt_u32_test, nnums))).min(XT_U32_MAXSIZE + 1);
        for j in 1..nnums {
            let l = t + offset_of!(xt_u32_test, location) + j * size_of::<L>();
            let op = byte(b, l + offset_of!(L, nextop));
            if matches!(op, XT_U32_LEFTSH | XT_U32_RIGHTSH)
                && u32_at(b, l + offset_of!(L, number)) >= 32
            {
                return Some("a u32 match that shifts by 32 or more");
            }
        }
    }
    None
}
