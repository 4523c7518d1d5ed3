//! The catalog: every extension revision the model knows, with its restrictions and checks.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::*;

use super::*;
use super::{checks, packet, tracking};

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
        check: Some(checks::dscp),
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
        check: Some(checks::multiport),
        ..ext!("multiport", M, 1, ANY, size_of::<xt_multiport_v1>())
    },
    XtExt {
        check: Some(checks::addrtype_v1),
        ..ext!("addrtype", M, 1, ANY, size_of::<xt_addrtype_info_v1>())
    },
    XtExt {
        usersize: Some(core::mem::offset_of!(xt_statistic_info, master)),
        check: Some(checks::statistic),
        ..ext!("statistic", M, 0, ANY, size_of::<xt_statistic_info>())
    },
    XtExt {
        check: Some(checks::physdev),
        ..ext!("physdev", M, 0, ANY, size_of::<xt_physdev_info>())
    },
    XtExt {
        hooks: OUT | POST,
        check: Some(checks::owner),
        ..ext!("owner", M, 1, ANY, size_of::<xt_owner_match_info>())
    },
    XtExt {
        hooks: PRE | IN | FWD,
        ..ext!("mac", M, 0, ANY, size_of::<xt_mac_info>())
    },
    XtExt {
        hooks: PRE,
        check: Some(checks::rpfilter),
        ..ext!("rpfilter", M, 0, ANY, size_of::<xt_rpfilter_info>())
    },
    XtExt {
        hooks: PRE | IN,
        check: Some(checks::socket_v3),
        ..ext!("socket", M, 3, ANY, size_of::<xt_socket_mtinfo3>())
    },
    XtExt {
        check: Some(checks::time),
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
        check: Some(checks::log),
        ..ext!("LOG", T, 0, ANY, size_of::<xt_log_info>())
    },
    XtExt {
        check: Some(checks::nflog),
        ..ext!("NFLOG", T, 0, ANY, size_of::<xt_nflog_info>())
    },
    XtExt {
        check: Some(checks::nfqueue_v3),
        ..ext!("NFQUEUE", T, 3, ANY, size_of::<xt_NFQ_info_v3>())
    },
    XtExt {
        proto: TCP,
        check: Some(checks::tcpmss),
        ..ext!("TCPMSS", T, 0, ANY, size_of::<xt_tcpmss_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(checks::dscp),
        ..ext!("DSCP", T, 0, ANY, size_of::<xt_DSCP_info>())
    },
    XtExt {
        table: Some("mangle"),
        ..ext!("TOS", T, 1, ANY, size_of::<xt_tos_target_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(checks::ttl_target),
        ..ext!("TTL", T, 0, V4, size_of::<ipt_TTL_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(checks::ttl_target),
        ..ext!("HL", T, 0, V6, size_of::<ip6t_HL_info>())
    },
    XtExt {
        table: Some("mangle"),
        check: Some(checks::checksum),
        ..ext!("CHECKSUM", T, 0, ANY, size_of::<xt_CHECKSUM_info>())
    },
    XtExt {
        table: Some("raw"),
        hooks: PRE | OUT,
        check: Some(checks::ct_v2),
        ..ext!("CT", T, 2, ANY, size_of::<xt_ct_target_info_v1>())
    },
    XtExt {
        table: Some("mangle"),
        hooks: PRE,
        check: Some(checks::tcp_or_udp),
        ..ext!("TPROXY", T, 1, ANY, size_of::<xt_tproxy_target_info_v1>())
    },
    XtExt {
        hooks: IN | FWD,
        check: Some(checks::tcp_only),
        ..ext!("SYNPROXY", T, 0, ANY, size_of::<xt_synproxy_info>())
    },
    XtExt {
        table: Some("filter"),
        hooks: IN | FWD | OUT,
        check: Some(checks::reject_v4),
        ..ext!("REJECT", T, 0, V4, size_of::<ipt_reject_info>())
    },
    XtExt {
        table: Some("filter"),
        hooks: IN | FWD | OUT,
        check: Some(checks::reject_v6),
        ..ext!("REJECT", T, 0, V6, size_of::<ip6t_reject_info>())
    },
    XtExt {
        table: Some("nat"),
        hooks: POST,
        check: Some(checks::masq_v4),
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
        check: Some(checks::no_map_ips),
        ..ext!("MASQUERADE", T, 0, V6, size_of::<nf_nat_range>())
    },
    XtExt {
        table: Some("nat"),
        hooks: POST | IN,
        check: Some(checks::nat_compat_one_range),
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
        check: Some(checks::nat_compat_one_range),
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
        check: Some(checks::masq_v4),
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
        check: Some(checks::no_map_ips),
        ..ext!("REDIRECT", T, 0, V6, size_of::<nf_nat_range>())
    },
    XtExt {
        table: Some("nat"),
        hooks: PRE | POST | OUT | IN,
        check: Some(checks::netmap_v4),
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
        check: Some(checks::netmap_v6),
        ..ext!("NETMAP", T, 0, V6, size_of::<nf_nat_range>())
    },
    // The matches on what one packet holds.
    XtExt {
        proto: SCTP,
        check: Some(packet::sctp),
        ..ext!("sctp", M, 0, ANY, size_of::<xt_sctp_info>())
    },
    XtExt {
        proto: DCCP,
        check: Some(packet::dccp),
        ..ext!("dccp", M, 0, ANY, size_of::<xt_dccp_info>())
    },
    XtExt {
        proto: ESP,
        check: Some(packet::esp),
        ..ext!("esp", M, 0, ANY, size_of::<xt_esp>())
    },
    XtExt {
        proto: AH,
        check: Some(packet::ah_v4),
        ..ext!("ah", M, 0, V4, size_of::<ipt_ah>())
    },
    XtExt {
        check: Some(packet::ah_v6),
        ..ext!("ah", M, 0, V6, size_of::<ip6t_ah>())
    },
    XtExt {
        proto: COMP,
        check: Some(packet::ipcomp),
        ..ext!("ipcomp", M, 0, ANY, size_of::<xt_ipcomp>())
    },
    XtExt {
        check: Some(packet::ecn),
        ..ext!("ecn", M, 0, ANY, size_of::<xt_ecn_info>())
    },
    XtExt {
        check: Some(packet::frag),
        ..ext!("frag", M, 0, V6, size_of::<ip6t_frag>())
    },
    XtExt {
        check: Some(packet::opts),
        ..ext!("hbh", M, 0, V6, size_of::<ip6t_opts>())
    },
    XtExt {
        check: Some(packet::opts),
        ..ext!("dst", M, 0, V6, size_of::<ip6t_opts>())
    },
    XtExt {
        check: Some(packet::rt),
        ..ext!("rt", M, 0, V6, size_of::<ip6t_rt>())
    },
    XtExt {
        check: Some(packet::ipv6header),
        ..ext!("ipv6header", M, 0, V6, size_of::<ip6t_ipv6header_info>())
    },
    XtExt {
        proto: MH,
        check: Some(packet::mh),
        ..ext!("mh", M, 0, V6, size_of::<ip6t_mh>())
    },
    XtExt {
        hooks: PRE | IN | FWD,
        ..ext!("eui64", M, 0, V6, size_of::<i32>())
    },
    XtExt {
        usersize: Some(offset_of!(xt_string_info, config)),
        check: Some(packet::string),
        ..ext!("string", M, 1, ANY, size_of::<xt_string_info>())
    },
    XtExt {
        check: Some(packet::u32_match),
        ..ext!("u32", M, 0, ANY, size_of::<xt_u32>())
    },
    XtExt {
        hooks: IN | FWD | OUT | POST,
        ..ext!("realm", M, 0, V4, size_of::<xt_realm_info>())
    },
    XtExt {
        check: Some(packet::policy),
        ..ext!("policy", M, 0, ANY, size_of::<xt_policy_info>())
    },
    XtExt {
        check: Some(packet::devgroup),
        ..ext!("devgroup", M, 0, ANY, size_of::<xt_devgroup_info>())
    },
    XtExt {
        check: Some(packet::cpu),
        ..ext!("cpu", M, 0, ANY, size_of::<xt_cpu_info>())
    },
    // The matches that keep state across packets.
    XtExt {
        check: Some(tracking::recent),
        ..ext!("recent", M, 0, ANY, size_of::<xt_recent_mtinfo>())
    },
    XtExt {
        check: Some(tracking::recent),
        ..ext!("recent", M, 1, ANY, size_of::<xt_recent_mtinfo_v1>())
    },
    XtExt {
        usersize: Some(offset_of!(xt_connlimit_info, data)),
        ..ext!("connlimit", M, 1, ANY, size_of::<xt_connlimit_info>())
    },
    XtExt {
        check: Some(tracking::connbytes),
        ..ext!("connbytes", M, 0, ANY, size_of::<xt_connbytes_info>())
    },
    XtExt {
        usersize: Some(offset_of!(xt_quota_info, master)),
        check: Some(tracking::quota),
        ..ext!("quota", M, 0, ANY, size_of::<xt_quota_info>())
    },
    XtExt {
        check: Some(tracking::connlabel),
        ..ext!("connlabel", M, 0, ANY, size_of::<xt_connlabel_mtinfo>())
    },
    XtExt {
        check: Some(tracking::cluster),
        ..ext!("cluster", M, 0, ANY, size_of::<xt_cluster_match_info>())
    },
    // More targets.
    XtExt {
        check: Some(checks::audit),
        ..ext!("AUDIT", T, 0, ANY, size_of::<xt_audit_info>())
    },
    XtExt {
        check: Some(checks::hmark),
        ..ext!("HMARK", T, 0, ANY, size_of::<xt_hmark_info>())
    },
    XtExt {
        table: Some("mangle"),
        proto: TCP,
        ..ext!(
            "TCPOPTSTRIP",
            T,
            0,
            ANY,
            size_of::<xt_tcpoptstrip_target_info>()
        )
    },
    XtExt {
        table: Some("mangle"),
        check: Some(checks::ecn_target),
        ..ext!("ECN", T, 0, V4, size_of::<ipt_ECN_info>())
    },
];
