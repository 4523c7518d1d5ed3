//! `addrtype` match (`xt_addrtype.h`): the routing type of the source or destination
//! address (`--src-type`, `--dst-type`, `--limit-iface-in`, `--limit-iface-out`).

/// Revision 1 `flags`: negate the source type test (`! --src-type`).
pub const XT_ADDRTYPE_INVERT_SOURCE: u32 = 0x0001;
/// Revision 1 `flags`: negate the destination type test (`! --dst-type`).
pub const XT_ADDRTYPE_INVERT_DEST: u32 = 0x0002;
/// Revision 1 `flags`: look the address up on the incoming interface only
/// (`--limit-iface-in`).
pub const XT_ADDRTYPE_LIMIT_IFACE_IN: u32 = 0x0004;
/// Revision 1 `flags`: look the address up on the outgoing interface only
/// (`--limit-iface-out`).
pub const XT_ADDRTYPE_LIMIT_IFACE_OUT: u32 = 0x0008;

/// Address type bit (`1 << RTN_UNSPEC`): unspecified.
pub const XT_ADDRTYPE_UNSPEC: u16 = 1 << 0;
/// Address type bit (`1 << RTN_UNICAST`): a unicast address.
pub const XT_ADDRTYPE_UNICAST: u16 = 1 << 1;
/// Address type bit (`1 << RTN_LOCAL`): a local address of this host.
pub const XT_ADDRTYPE_LOCAL: u16 = 1 << 2;
/// Address type bit (`1 << RTN_BROADCAST`): a broadcast address.
pub const XT_ADDRTYPE_BROADCAST: u16 = 1 << 3;
/// Address type bit (`1 << RTN_ANYCAST`): an anycast address.
pub const XT_ADDRTYPE_ANYCAST: u16 = 1 << 4;
/// Address type bit (`1 << RTN_MULTICAST`): a multicast address.
pub const XT_ADDRTYPE_MULTICAST: u16 = 1 << 5;
/// Address type bit (`1 << RTN_BLACKHOLE`): a blackhole route.
pub const XT_ADDRTYPE_BLACKHOLE: u16 = 1 << 6;
/// Address type bit (`1 << RTN_UNREACHABLE`): an unreachable route.
pub const XT_ADDRTYPE_UNREACHABLE: u16 = 1 << 7;
/// Address type bit (`1 << RTN_PROHIBIT`): a prohibited route.
pub const XT_ADDRTYPE_PROHIBIT: u16 = 1 << 8;
/// Address type bit (`1 << RTN_THROW`): a throw route.
pub const XT_ADDRTYPE_THROW: u16 = 1 << 9;
/// Address type bit (`1 << RTN_NAT`): a NAT route.
pub const XT_ADDRTYPE_NAT: u16 = 1 << 10;
/// Address type bit (`1 << RTN_XRESOLVE`): an external resolver route.
pub const XT_ADDRTYPE_XRESOLVE: u16 = 1 << 11;

bitflags::bitflags! {
    /// Address type masks (`source`, `dest`) of the addrtype infos: the `XT_ADDRTYPE_*`
    /// type bits.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AddrtypeMask: u16 {
        /// `UNSPEC`.
        const UNSPEC = XT_ADDRTYPE_UNSPEC;
        /// `UNICAST`.
        const UNICAST = XT_ADDRTYPE_UNICAST;
        /// `LOCAL`.
        const LOCAL = XT_ADDRTYPE_LOCAL;
        /// `BROADCAST`.
        const BROADCAST = XT_ADDRTYPE_BROADCAST;
        /// `ANYCAST`.
        const ANYCAST = XT_ADDRTYPE_ANYCAST;
        /// `MULTICAST`.
        const MULTICAST = XT_ADDRTYPE_MULTICAST;
        /// `BLACKHOLE`.
        const BLACKHOLE = XT_ADDRTYPE_BLACKHOLE;
        /// `UNREACHABLE`.
        const UNREACHABLE = XT_ADDRTYPE_UNREACHABLE;
        /// `PROHIBIT`.
        const PROHIBIT = XT_ADDRTYPE_PROHIBIT;
        /// `THROW`.
        const THROW = XT_ADDRTYPE_THROW;
        /// `NAT`.
        const NAT = XT_ADDRTYPE_NAT;
        /// `XRESOLVE`.
        const XRESOLVE = XT_ADDRTYPE_XRESOLVE;
    }
}

bitflags::bitflags! {
    /// `flags` of [`xt_addrtype_info_v1`]: negations and interface limits.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AddrtypeFlags: u32 {
        /// `! --src-type`.
        const INVERT_SOURCE = XT_ADDRTYPE_INVERT_SOURCE;
        /// `! --dst-type`.
        const INVERT_DEST = XT_ADDRTYPE_INVERT_DEST;
        /// `--limit-iface-in`.
        const LIMIT_IFACE_IN = XT_ADDRTYPE_LIMIT_IFACE_IN;
        /// `--limit-iface-out`.
        const LIMIT_IFACE_OUT = XT_ADDRTYPE_LIMIT_IFACE_OUT;
    }
}

/// Info of the `addrtype` match, revision 1 (`struct xt_addrtype_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_addrtype_info_v1 {
    /// Source address types that match (`--src-type`): `XT_ADDRTYPE_*` type bits, 0 for no
    /// test.
    pub source: u16,
    /// Destination address types that match (`--dst-type`): `XT_ADDRTYPE_*` type bits.
    pub dest: u16,
    /// `XT_ADDRTYPE_INVERT_*` and `XT_ADDRTYPE_LIMIT_IFACE_*` bits.
    pub flags: u32,
}

/// Info of the `addrtype` match, revision 0 (`struct xt_addrtype_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_addrtype_info {
    /// Source address types that match: `XT_ADDRTYPE_*` type bits.
    pub source: u16,
    /// Destination address types that match: `XT_ADDRTYPE_*` type bits.
    pub dest: u16,
    /// Nonzero to negate the source test.
    pub invert_source: u32,
    /// Nonzero to negate the destination test.
    pub invert_dest: u32,
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
        assert_layout!(xt_addrtype_info, 12, 4);
        assert_layout!(xt_addrtype_info_v1, 8, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_addrtype_info, 12, 4, 16);
        assert_layout!(xt_addrtype_info_v1, 8, 4, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_addrtype_info, 12, 4, 12);
        assert_layout!(xt_addrtype_info_v1, 8, 4, 8);
    }
}
