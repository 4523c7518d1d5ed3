//! NAT ranges (`nf_nat.h`, `nf_conntrack_tuple_common.h`): the infos of the `SNAT`, `DNAT`,
//! `MASQUERADE`, `REDIRECT` and `NETMAP` targets.
//!
//! Revision 0 of the IPv4 targets takes [`nf_nat_ipv4_multi_range_compat`]; revision 1
//! (IPv4 and IPv6; revision 0 of the IPv6 `MASQUERADE`, `REDIRECT` and `NETMAP`) takes
//! [`nf_nat_range`]; revision 2 of `SNAT`/`DNAT` takes [`nf_nat_range2`].

use super::inet_addr::nf_inet_addr;

/// Range flag: the address range is given (`--to-source`/`--to-destination` with an
/// address).
pub const NF_NAT_RANGE_MAP_IPS: u32 = 1 << 0;
/// Range flag: the port range is given (`:port[-port]`, `--to-ports`).
pub const NF_NAT_RANGE_PROTO_SPECIFIED: u32 = 1 << 1;
/// Range flag: randomize the source port (`--random`).
pub const NF_NAT_RANGE_PROTO_RANDOM: u32 = 1 << 2;
/// Range flag: give a client the same address for each connection (`--persistent`).
pub const NF_NAT_RANGE_PERSISTENT: u32 = 1 << 3;
/// Range flag: fully randomize the port (`--random-fully`).
pub const NF_NAT_RANGE_PROTO_RANDOM_FULLY: u32 = 1 << 4;
/// Range flag: shift ports by an offset from `base_proto` (`nf_nat_range2` only,
/// `--to-destination a:p-p/base`).
pub const NF_NAT_RANGE_PROTO_OFFSET: u32 = 1 << 5;
/// Range flag: map addresses one to one (the `NETMAP` behaviour).
pub const NF_NAT_RANGE_NETMAP: u32 = 1 << 6;
/// Range flags: either kind of port randomization.
pub const NF_NAT_RANGE_PROTO_RANDOM_ALL: u32 =
    NF_NAT_RANGE_PROTO_RANDOM | NF_NAT_RANGE_PROTO_RANDOM_FULLY;
/// All valid range flags.
pub const NF_NAT_RANGE_MASK: u32 = NF_NAT_RANGE_MAP_IPS
    | NF_NAT_RANGE_PROTO_SPECIFIED
    | NF_NAT_RANGE_PROTO_RANDOM
    | NF_NAT_RANGE_PERSISTENT
    | NF_NAT_RANGE_PROTO_RANDOM_FULLY
    | NF_NAT_RANGE_PROTO_OFFSET
    | NF_NAT_RANGE_NETMAP;

bitflags::bitflags! {
    /// `flags` of the NAT ranges (`NF_NAT_RANGE_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct NatRangeFlags: u32 {
        /// `NF_NAT_RANGE_MAP_IPS`.
        const MAP_IPS = NF_NAT_RANGE_MAP_IPS;
        /// `NF_NAT_RANGE_PROTO_SPECIFIED`.
        const PROTO_SPECIFIED = NF_NAT_RANGE_PROTO_SPECIFIED;
        /// `NF_NAT_RANGE_PROTO_RANDOM`.
        const PROTO_RANDOM = NF_NAT_RANGE_PROTO_RANDOM;
        /// `NF_NAT_RANGE_PERSISTENT`.
        const PERSISTENT = NF_NAT_RANGE_PERSISTENT;
        /// `NF_NAT_RANGE_PROTO_RANDOM_FULLY`.
        const PROTO_RANDOM_FULLY = NF_NAT_RANGE_PROTO_RANDOM_FULLY;
        /// `NF_NAT_RANGE_PROTO_OFFSET`.
        const PROTO_OFFSET = NF_NAT_RANGE_PROTO_OFFSET;
        /// `NF_NAT_RANGE_NETMAP`.
        const NETMAP = NF_NAT_RANGE_NETMAP;
    }
}

/// The protocol part of a conntrack tuple that NAT can change (`union
/// nf_conntrack_man_proto`): 2 bytes, always in network byte order. The C union names it
/// `all`, `tcp.port`, `udp.port`, `icmp.id`, `dccp.port`, `sctp.port` or `gre.key`.
///
/// ```
/// use iptnl_sys::xt::nf_conntrack_man_proto;
/// let p = nf_conntrack_man_proto::from_port(8080);
/// assert_eq!(p.all, 8080u16.to_be());
/// assert_eq!(p.port(), 8080);
/// ```
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct nf_conntrack_man_proto {
    /// The port (or ICMP id, or GRE key), network byte order.
    pub all: u16,
}

impl nf_conntrack_man_proto {
    /// The value for a host-order port (stored big-endian).
    pub const fn from_port(port: u16) -> Self {
        Self { all: port.to_be() }
    }

    /// The port in host byte order.
    pub const fn port(&self) -> u16 {
        u16::from_be(self.all)
    }
}

/// An IPv4 NAT range (`struct nf_nat_ipv4_range`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct nf_nat_ipv4_range {
    /// `NF_NAT_RANGE_*` bits.
    pub flags: u32,
    /// First address of the range, network byte order.
    pub min_ip: u32,
    /// Last address of the range, network byte order.
    pub max_ip: u32,
    /// First port of the range (network byte order).
    pub min: nf_conntrack_man_proto,
    /// Last port of the range (network byte order).
    pub max: nf_conntrack_man_proto,
}

/// Info of the IPv4 NAT targets, revision 0 (`struct nf_nat_ipv4_multi_range_compat`):
/// `SNAT`, `DNAT`, `MASQUERADE`, `REDIRECT`, `NETMAP` for IPv4.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct nf_nat_ipv4_multi_range_compat {
    /// Number of ranges; must be 1.
    pub rangesize: u32,
    /// The range.
    pub range: [nf_nat_ipv4_range; 1],
}

/// A NAT range for IPv4 or IPv6, revision 1 (`struct nf_nat_range`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct nf_nat_range {
    /// `NF_NAT_RANGE_*` bits.
    pub flags: u32,
    /// First address of the range, network byte order.
    pub min_addr: nf_inet_addr,
    /// Last address of the range, network byte order.
    pub max_addr: nf_inet_addr,
    /// First port of the range (network byte order).
    pub min_proto: nf_conntrack_man_proto,
    /// Last port of the range (network byte order).
    pub max_proto: nf_conntrack_man_proto,
}

/// A NAT range for IPv4 or IPv6, revision 2 (`struct nf_nat_range2`): revision 1 plus the
/// base port of a port shift.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct nf_nat_range2 {
    /// `NF_NAT_RANGE_*` bits.
    pub flags: u32,
    /// First address of the range, network byte order.
    pub min_addr: nf_inet_addr,
    /// Last address of the range, network byte order.
    pub max_addr: nf_inet_addr,
    /// First port of the range (network byte order).
    pub min_proto: nf_conntrack_man_proto,
    /// Last port of the range (network byte order).
    pub max_proto: nf_conntrack_man_proto,
    /// With `NF_NAT_RANGE_PROTO_OFFSET`: the original port that maps to `min_proto`
    /// (network byte order).
    pub base_proto: nf_conntrack_man_proto,
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
        assert_layout!(nf_conntrack_man_proto, 2, 2);
        assert_layout!(nf_nat_ipv4_range, 16, 4);
        assert_layout!(nf_nat_ipv4_multi_range_compat, 20, 4);
        assert_layout!(nf_nat_range, 40, 4);
        assert_layout!(nf_nat_range2, 44, 4);
        assert_offset!(nf_nat_range2, min_addr, 4);
        assert_offset!(nf_nat_range2, max_addr, 20);
        assert_offset!(nf_nat_range2, min_proto, 36);
        assert_offset!(nf_nat_range2, max_proto, 38);
        assert_offset!(nf_nat_range2, base_proto, 40);
        assert_offset!(nf_nat_ipv4_multi_range_compat, range, 4);
        assert_offset!(nf_nat_ipv4_range, min, 12);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(nf_conntrack_man_proto, 2, 2, 8);
        assert_layout!(nf_nat_ipv4_range, 16, 4, 16);
        assert_layout!(nf_nat_ipv4_multi_range_compat, 20, 4, 24);
        assert_layout!(nf_nat_range, 40, 4, 40);
        assert_layout!(nf_nat_range2, 44, 4, 48);
        assert_offset!(nf_nat_range2, min_addr, 4);
        assert_offset!(nf_nat_range2, max_addr, 20);
        assert_offset!(nf_nat_range2, min_proto, 36);
        assert_offset!(nf_nat_range2, max_proto, 38);
        assert_offset!(nf_nat_range2, base_proto, 40);
        assert_offset!(nf_nat_ipv4_multi_range_compat, range, 4);
        assert_offset!(nf_nat_ipv4_range, min, 12);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(nf_conntrack_man_proto, 2, 2, 4);
        assert_layout!(nf_nat_ipv4_range, 16, 4, 16);
        assert_layout!(nf_nat_ipv4_multi_range_compat, 20, 4, 20);
        assert_layout!(nf_nat_range, 40, 4, 40);
        assert_layout!(nf_nat_range2, 44, 4, 44);
        assert_offset!(nf_nat_range2, min_addr, 4);
        assert_offset!(nf_nat_range2, max_addr, 20);
        assert_offset!(nf_nat_range2, min_proto, 36);
        assert_offset!(nf_nat_range2, max_proto, 38);
        assert_offset!(nf_nat_range2, base_proto, 40);
        assert_offset!(nf_nat_ipv4_multi_range_compat, range, 4);
        assert_offset!(nf_nat_ipv4_range, min, 12);
    }
}
