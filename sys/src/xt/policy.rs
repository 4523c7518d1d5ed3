//! `policy` match (`xt_policy.h`): the IPsec policy used to decapsulate or that will
//! encapsulate the packet (`--dir in|out`, `--pol ipsec|none`, `--strict`, `--reqid`,
//! `--spi`, `--proto`, `--mode`, `--tunnel-src`, `--tunnel-dst`, `--next`).

use super::inet_addr::nf_inet_addr;

/// Most policy elements one match can list (`--next` separated).
pub const XT_POLICY_MAX_ELEM: usize = 4;

/// `flags`: match the policy used for decapsulation (`--dir in`).
pub const XT_POLICY_MATCH_IN: u16 = 0x1;
/// `flags`: match the policy that will encapsulate (`--dir out`).
pub const XT_POLICY_MATCH_OUT: u16 = 0x2;
/// `flags`: match packets not subject to IPsec (`--pol none`).
pub const XT_POLICY_MATCH_NONE: u16 = 0x4;
/// `flags`: the elements must match the policy exactly, in order (`--strict`).
pub const XT_POLICY_MATCH_STRICT: u16 = 0x8;

/// `mode`: transport mode (`--mode transport`).
pub const XT_POLICY_MODE_TRANSPORT: u8 = 0;
/// `mode`: tunnel mode (`--mode tunnel`).
pub const XT_POLICY_MODE_TUNNEL: u8 = 1;

// Bits of the C bitfield struct xt_policy_spec (not kernel names). GCC allocates bitfields
// from the low bit on little-endian targets and from the high bit on big-endian ones.

/// `xt_policy_spec` bitfield `saddr:1`: test the tunnel source address.
#[cfg(target_endian = "little")]
pub const XT_POLICY_SPEC_SADDR: u8 = 1 << 0;
/// `xt_policy_spec` bitfield `daddr:1`: test the tunnel destination address.
#[cfg(target_endian = "little")]
pub const XT_POLICY_SPEC_DADDR: u8 = 1 << 1;
/// `xt_policy_spec` bitfield `proto:1`: test the IPsec protocol.
#[cfg(target_endian = "little")]
pub const XT_POLICY_SPEC_PROTO: u8 = 1 << 2;
/// `xt_policy_spec` bitfield `mode:1`: test the mode.
#[cfg(target_endian = "little")]
pub const XT_POLICY_SPEC_MODE: u8 = 1 << 3;
/// `xt_policy_spec` bitfield `spi:1`: test the SPI.
#[cfg(target_endian = "little")]
pub const XT_POLICY_SPEC_SPI: u8 = 1 << 4;
/// `xt_policy_spec` bitfield `reqid:1`: test the reqid.
#[cfg(target_endian = "little")]
pub const XT_POLICY_SPEC_REQID: u8 = 1 << 5;
/// `xt_policy_spec` bitfield `saddr:1`: test the tunnel source address.
#[cfg(target_endian = "big")]
pub const XT_POLICY_SPEC_SADDR: u8 = 1 << 7;
/// `xt_policy_spec` bitfield `daddr:1`: test the tunnel destination address.
#[cfg(target_endian = "big")]
pub const XT_POLICY_SPEC_DADDR: u8 = 1 << 6;
/// `xt_policy_spec` bitfield `proto:1`: test the IPsec protocol.
#[cfg(target_endian = "big")]
pub const XT_POLICY_SPEC_PROTO: u8 = 1 << 5;
/// `xt_policy_spec` bitfield `mode:1`: test the mode.
#[cfg(target_endian = "big")]
pub const XT_POLICY_SPEC_MODE: u8 = 1 << 4;
/// `xt_policy_spec` bitfield `spi:1`: test the SPI.
#[cfg(target_endian = "big")]
pub const XT_POLICY_SPEC_SPI: u8 = 1 << 3;
/// `xt_policy_spec` bitfield `reqid:1`: test the reqid.
#[cfg(target_endian = "big")]
pub const XT_POLICY_SPEC_REQID: u8 = 1 << 2;

bitflags::bitflags! {
    /// `flags` of [`xt_policy_info`] (`XT_POLICY_MATCH_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PolicyFlags: u16 {
        /// `--dir in`.
        const MATCH_IN = XT_POLICY_MATCH_IN;
        /// `--dir out`.
        const MATCH_OUT = XT_POLICY_MATCH_OUT;
        /// `--pol none`.
        const MATCH_NONE = XT_POLICY_MATCH_NONE;
        /// `--strict`.
        const MATCH_STRICT = XT_POLICY_MATCH_STRICT;
    }
}

/// Which fields of a policy element are tested, or negated (`struct xt_policy_spec`, a
/// C bitfield byte): an OR of `XT_POLICY_SPEC_*`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_policy_spec {
    /// The bitfield byte: `XT_POLICY_SPEC_*` bits.
    pub bits: u8,
}

/// An IPv4 or IPv6 address of a policy element (`union xt_policy_addr` of `struct in_addr`
/// and `struct in6_addr`): the same 16 bytes, 4-aligned, as [`nf_inet_addr`], network byte
/// order.
#[allow(non_camel_case_types)]
pub type xt_policy_addr = nf_inet_addr;

/// One element of a policy match (`struct xt_policy_elem`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_policy_elem {
    /// Tunnel source address (`--tunnel-src`).
    pub saddr: xt_policy_addr,
    /// Netmask for `saddr`.
    pub smask: xt_policy_addr,
    /// Tunnel destination address (`--tunnel-dst`).
    pub daddr: xt_policy_addr,
    /// Netmask for `daddr`.
    pub dmask: xt_policy_addr,
    /// Security parameter index (`--spi`), network byte order.
    pub spi: u32,
    /// Policy request ID (`--reqid`), host byte order.
    pub reqid: u32,
    /// IPsec protocol number: `IPPROTO_AH`, `IPPROTO_ESP` or `IPPROTO_COMP` (`--proto`).
    pub proto: u8,
    /// `XT_POLICY_MODE_TRANSPORT` or `XT_POLICY_MODE_TUNNEL` (`--mode`).
    pub mode: u8,
    /// Which fields are tested (C field `match`).
    pub r#match: xt_policy_spec,
    /// Which tested fields are negated.
    pub invert: xt_policy_spec,
}

/// Info of the `policy` match, revision 0 (`struct xt_policy_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_policy_info {
    /// The elements, `len` of them used.
    pub pol: [xt_policy_elem; XT_POLICY_MAX_ELEM],
    /// `XT_POLICY_MATCH_*` bits.
    pub flags: u16,
    /// Number of elements used in `pol`.
    pub len: u16,
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
        assert_layout!(xt_policy_spec, 1, 1);
        assert_layout!(xt_policy_addr, 16, 4);
        assert_layout!(xt_policy_elem, 76, 4);
        assert_layout!(xt_policy_info, 308, 4);
        assert_offset!(xt_policy_elem, spi, 64);
        assert_offset!(xt_policy_elem, r#match, 74);
        assert_offset!(xt_policy_info, flags, 304);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_policy_spec, 1, 1, 8);
        assert_layout!(xt_policy_addr, 16, 4, 16);
        assert_layout!(xt_policy_elem, 76, 4, 80);
        assert_layout!(xt_policy_info, 308, 4, 312);
        assert_offset!(xt_policy_elem, spi, 64);
        assert_offset!(xt_policy_elem, r#match, 74);
        assert_offset!(xt_policy_info, flags, 304);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_policy_spec, 1, 1, 4);
        assert_layout!(xt_policy_addr, 16, 4, 16);
        assert_layout!(xt_policy_elem, 76, 4, 76);
        assert_layout!(xt_policy_info, 308, 4, 308);
        assert_offset!(xt_policy_elem, spi, 64);
        assert_offset!(xt_policy_elem, r#match, 74);
        assert_offset!(xt_policy_info, flags, 304);
    }
}
