//! `ecn` match and `ECN` target (`xt_ecn.h`, `ipt_ecn.h`, `ipt_ECN.h`): Explicit
//! Congestion Notification bits of the IP and TCP headers.

/// The ECN bits of the IPv4 TOS / IPv6 traffic class byte (`~XT_DSCP_MASK`).
pub const XT_ECN_IP_MASK: u8 = !super::dscp::XT_DSCP_MASK;
/// `ecn` match `operation`: test the IP ECT codepoint (`--ecn-ip-ect`).
pub const XT_ECN_OP_MATCH_IP: u8 = 0x01;
/// `ecn` match `operation`: test the TCP ECE bit (`--ecn-tcp-ece`).
pub const XT_ECN_OP_MATCH_ECE: u8 = 0x10;
/// `ecn` match `operation`: test the TCP CWR bit (`--ecn-tcp-cwr`).
pub const XT_ECN_OP_MATCH_CWR: u8 = 0x20;
/// `ecn` match: mask of the `operation` bits (as the header defines it).
pub const XT_ECN_OP_MATCH_MASK: u8 = 0xce;

/// `ECN` target `operation`: set the ECN bits of the IPv4 header (`--ecn-ip-ect`; IPv4 only).
pub const IPT_ECN_OP_SET_IP: u8 = 0x01;
/// `ECN` target `operation`: set the TCP ECE bit from `ece` (`--ecn-tcp-remove` clears it).
pub const IPT_ECN_OP_SET_ECE: u8 = 0x10;
/// `ECN` target `operation`: set the TCP CWR bit from `cwr`.
pub const IPT_ECN_OP_SET_CWR: u8 = 0x20;
/// `ECN` target: mask of the `operation` bits (as the header defines it).
pub const IPT_ECN_OP_MASK: u8 = 0xce;

/// `ipt_ECN_info.proto_tcp` bit of the C bitfield `ece:1` (the first bitfield, the low bit
/// on little-endian targets, the high bit on big-endian ones).
#[cfg(target_endian = "little")]
pub const IPT_ECN_TCP_ECE: u8 = 0x01;
/// `ipt_ECN_info.proto_tcp` bit of the C bitfield `ece:1` (the first bitfield, the low bit
/// on little-endian targets, the high bit on big-endian ones).
#[cfg(target_endian = "big")]
pub const IPT_ECN_TCP_ECE: u8 = 0x80;
/// `ipt_ECN_info.proto_tcp` bit of the C bitfield `cwr:1` (the second bitfield).
#[cfg(target_endian = "little")]
pub const IPT_ECN_TCP_CWR: u8 = 0x02;
/// `ipt_ECN_info.proto_tcp` bit of the C bitfield `cwr:1` (the second bitfield).
#[cfg(target_endian = "big")]
pub const IPT_ECN_TCP_CWR: u8 = 0x40;

/// Info of the `ecn` match, revision 0 (`struct xt_ecn_info`, also `ipt_ecn_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_ecn_info {
    /// Which tests are active: `XT_ECN_OP_MATCH_*` bits.
    pub operation: u8,
    /// Which active tests are negated: `XT_ECN_OP_MATCH_*` bits.
    pub invert: u8,
    /// IP ECT codepoint to match, 0 to 3 (`--ecn-ip-ect`).
    pub ip_ect: u8,
    /// The C `union { struct { __u8 ect; } tcp; } proto`: `proto.tcp.ect`, unused by the
    /// kernel (the ECE/CWR tests only look at `operation` and `invert`).
    pub proto_tcp_ect: u8,
}

/// `ipt_ecn_info` is `xt_ecn_info` (`ipt_ecn.h`).
#[allow(non_camel_case_types)]
pub type ipt_ecn_info = xt_ecn_info;

/// Info of the `ECN` target, revision 0 (`struct ipt_ECN_info`, IPv4 only).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_ECN_info {
    /// What to set: `IPT_ECN_OP_SET_*` bits.
    pub operation: u8,
    /// ECT codepoint of the IPv4 header, 0 to 3 (pre-shifted: the low two bits).
    pub ip_ect: u8,
    /// The C `union { struct { __u8 ece:1, cwr:1; } tcp; } proto`: the TCP ECE and CWR
    /// values, as the bitfield bits `IPT_ECN_TCP_ECE` and `IPT_ECN_TCP_CWR`.
    pub proto_tcp: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(xt_ecn_info, 4, 1);
        assert_layout!(ipt_ECN_info, 3, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_ecn_info, 4, 1, 8);
        assert_layout!(ipt_ECN_info, 3, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_ecn_info, 4, 1, 4);
        assert_layout!(ipt_ECN_info, 3, 1, 4);
    }
}
