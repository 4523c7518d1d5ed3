//! `HMARK` target (`xt_HMARK.h`): set the packet mark from a hash of its addresses, ports,
//! SPI and protocol (`--hmark-tuple`, `--hmark-mod`, `--hmark-offset`, …).

use super::inet_addr::nf_inet_addr;

/// Flag index (bit `1 << index` of [`xt_hmark_info::flags`], `XT_HMARK_FLAG`): `src_mask`
/// is set.
pub const XT_HMARK_SADDR_MASK: u32 = 0;
/// Flag index: `dst_mask` is set.
pub const XT_HMARK_DADDR_MASK: u32 = 1;
/// Flag index: `port_set` holds an SPI.
pub const XT_HMARK_SPI: u32 = 2;
/// Flag index: `port_mask` holds an SPI mask.
pub const XT_HMARK_SPI_MASK: u32 = 3;
/// Flag index: `port_set` holds a source port.
pub const XT_HMARK_SPORT: u32 = 4;
/// Flag index: `port_set` holds a destination port.
pub const XT_HMARK_DPORT: u32 = 5;
/// Flag index: `port_mask` holds a source port mask.
pub const XT_HMARK_SPORT_MASK: u32 = 6;
/// Flag index: `port_mask` holds a destination port mask.
pub const XT_HMARK_DPORT_MASK: u32 = 7;
/// Flag index: `proto_mask` is set.
pub const XT_HMARK_PROTO_MASK: u32 = 8;
/// Flag index: `hashrnd` is set.
pub const XT_HMARK_RND: u32 = 9;
/// Flag index: `hmodulus` is set.
pub const XT_HMARK_MODULUS: u32 = 10;
/// Flag index: `hoffset` is set.
pub const XT_HMARK_OFFSET: u32 = 11;
/// Flag index: hash the conntrack tuple instead of the packet (`--hmark-tuple ct`).
pub const XT_HMARK_CT: u32 = 12;
/// Flag index: hash the layer-3 fields only (the kernel refuses a protocol mask with it).
pub const XT_HMARK_METHOD_L3: u32 = 13;
/// Flag index: hash layer-3 and layer-4 fields.
pub const XT_HMARK_METHOD_L3_4: u32 = 14;

/// Ports or SPI of [`xt_hmark_info`] (`union hmark_ports`): the source port in bytes 0–1
/// and the destination port in bytes 2–3, both in network byte order, or a 32-bit SPI in
/// network byte order over all four.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct hmark_ports {
    /// The four bytes of the union (`v32`).
    pub v32: u32,
}

/// Info of the `HMARK` target, revision 0 (`struct xt_hmark_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_hmark_info {
    /// Mask of the source address (`--hmark-src-prefix`).
    pub src_mask: nf_inet_addr,
    /// Mask of the destination address (`--hmark-dst-prefix`).
    pub dst_mask: nf_inet_addr,
    /// Masks of the ports or SPI (`--hmark-sport-mask`, `--hmark-dport-mask`,
    /// `--hmark-spi-mask`).
    pub port_mask: hmark_ports,
    /// Values ORed into the ports or SPI (`--hmark-sport`, `--hmark-dport`, `--hmark-spi`).
    pub port_set: hmark_ports,
    /// Which fields are set: bit `1 << XT_HMARK_*`.
    pub flags: u32,
    /// Mask of the protocol number (`--hmark-proto-mask`), host byte order.
    pub proto_mask: u16,
    /// Random seed of the hash (`--hmark-rnd`), host byte order.
    pub hashrnd: u32,
    /// The mark is the hash modulo this (`--hmark-mod`).
    pub hmodulus: u32,
    /// Added to the mark (`--hmark-offset`).
    pub hoffset: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64; the layout has no pointer, so it is the same on i386 but
    // for XT_ALIGN.
    #[test]
    fn layout() {
        assert_layout!(xt_hmark_info, 60, 4);
        assert_offset!(xt_hmark_info, port_mask, 32);
        assert_offset!(xt_hmark_info, port_set, 36);
        assert_offset!(xt_hmark_info, flags, 40);
        assert_offset!(xt_hmark_info, proto_mask, 44);
        assert_offset!(xt_hmark_info, hashrnd, 48);
        assert_offset!(xt_hmark_info, hmodulus, 52);
        assert_offset!(xt_hmark_info, hoffset, 56);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_hmark_info, 60, 4, 64);
    }
}
