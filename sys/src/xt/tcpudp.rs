//! `tcp` and `udp` matches (`xt_tcpudp.h`): port ranges, TCP flags and TCP option
//! (`-p tcp --sport`, `--dport`, `--tcp-flags`, `--syn`, `--tcp-option`; `-p udp --sport`,
//! `--dport`).

/// `xt_tcp.invflags`: negate the source port test.
pub const XT_TCP_INV_SRCPT: u8 = 0x01;
/// `xt_tcp.invflags`: negate the destination port test.
pub const XT_TCP_INV_DSTPT: u8 = 0x02;
/// `xt_tcp.invflags`: negate the TCP flags test.
pub const XT_TCP_INV_FLAGS: u8 = 0x04;
/// `xt_tcp.invflags`: negate the TCP option test.
pub const XT_TCP_INV_OPTION: u8 = 0x08;
/// `xt_tcp.invflags`: all valid bits.
pub const XT_TCP_INV_MASK: u8 = 0x0F;

/// `xt_udp.invflags`: negate the source port test.
pub const XT_UDP_INV_SRCPT: u8 = 0x01;
/// `xt_udp.invflags`: negate the destination port test.
pub const XT_UDP_INV_DSTPT: u8 = 0x02;
/// `xt_udp.invflags`: all valid bits.
pub const XT_UDP_INV_MASK: u8 = 0x03;

bitflags::bitflags! {
    /// `invflags` of [`xt_tcp`] (`XT_TCP_INV_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct TcpInvFlags: u8 {
        /// `! --sport`.
        const SRCPT = XT_TCP_INV_SRCPT;
        /// `! --dport`.
        const DSTPT = XT_TCP_INV_DSTPT;
        /// `! --tcp-flags` / `! --syn`.
        const FLAGS = XT_TCP_INV_FLAGS;
        /// `! --tcp-option`.
        const OPTION = XT_TCP_INV_OPTION;
    }
}

bitflags::bitflags! {
    /// `invflags` of [`xt_udp`] (`XT_UDP_INV_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct UdpInvFlags: u8 {
        /// `! --sport`.
        const SRCPT = XT_UDP_INV_SRCPT;
        /// `! --dport`.
        const DSTPT = XT_UDP_INV_DSTPT;
    }
}

bitflags::bitflags! {
    /// The TCP header flag bits that `flg_mask` and `flg_cmp` of [`xt_tcp`] hold (the names
    /// `--tcp-flags` takes; not from the kernel header). `--syn` is
    /// `mask = SYN | RST | ACK | FIN`, `cmp = SYN`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct TcpFlags: u8 {
        /// `FIN`.
        const FIN = 0x01;
        /// `SYN`.
        const SYN = 0x02;
        /// `RST`.
        const RST = 0x04;
        /// `PSH`.
        const PSH = 0x08;
        /// `ACK`.
        const ACK = 0x10;
        /// `URG`.
        const URG = 0x20;
        /// `ECE`.
        const ECE = 0x40;
        /// `CWR`.
        const CWR = 0x80;
    }
}

/// Info of the `tcp` match, revision 0 (`struct xt_tcp`). `Default` is all zero; iptables
/// starts from port ranges `[0, 0xffff]` (any port).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tcp {
    /// Source port range `[min, max]`, host byte order (`[0, 0xffff]` for any).
    pub spts: [u16; 2],
    /// Destination port range `[min, max]`, host byte order (`[0, 0xffff]` for any).
    pub dpts: [u16; 2],
    /// TCP option kind that must be present (`--tcp-option`), 0 for no test.
    pub option: u8,
    /// TCP flags to examine (`--tcp-flags mask comp`).
    pub flg_mask: u8,
    /// Of those, the flags that must be set.
    pub flg_cmp: u8,
    /// `XT_TCP_INV_*` bits.
    pub invflags: u8,
}

/// Info of the `udp` match, revision 0 (`struct xt_udp`). `Default` is all zero; iptables
/// starts from port ranges `[0, 0xffff]` (any port).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_udp {
    /// Source port range `[min, max]`, host byte order (`[0, 0xffff]` for any).
    pub spts: [u16; 2],
    /// Destination port range `[min, max]`, host byte order (`[0, 0xffff]` for any).
    pub dpts: [u16; 2],
    /// `XT_UDP_INV_*` bits.
    pub invflags: u8,
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
        assert_layout!(xt_tcp, 12, 2);
        assert_layout!(xt_udp, 10, 2);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_tcp, 12, 2, 16);
        assert_layout!(xt_udp, 10, 2, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_tcp, 12, 2, 12);
        assert_layout!(xt_udp, 10, 2, 12);
    }
}
