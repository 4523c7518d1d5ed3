//! `ipvs` match (`xt_ipvs.h`): IPVS connection properties of the packet (`--ipvs`,
//! `--vproto`, `--vaddr`, `--vport`, `--vdir`, `--vmethod`, `--vportctl`).

use super::inet_addr::nf_inet_addr;

/// `bitmask`/`invert`: the packet belongs to an IPVS connection (`--ipvs`; implied by all
/// others).
pub const XT_IPVS_IPVS_PROPERTY: u8 = 1 << 0;
/// `bitmask`/`invert`: test the virtual service protocol (`--vproto`).
pub const XT_IPVS_PROTO: u8 = 1 << 1;
/// `bitmask`/`invert`: test the virtual address (`--vaddr`).
pub const XT_IPVS_VADDR: u8 = 1 << 2;
/// `bitmask`/`invert`: test the virtual port (`--vport`).
pub const XT_IPVS_VPORT: u8 = 1 << 3;
/// `bitmask`/`invert`: test the direction (`--vdir`; inverted means REPLY).
pub const XT_IPVS_DIR: u8 = 1 << 4;
/// `bitmask`/`invert`: test the forwarding method (`--vmethod`).
pub const XT_IPVS_METHOD: u8 = 1 << 5;
/// `bitmask`/`invert`: test the control connection's virtual port (`--vportctl`).
pub const XT_IPVS_VPORTCTL: u8 = 1 << 6;
/// All valid bits.
pub const XT_IPVS_MASK: u8 = (1 << 7) - 1;
/// Bits that may each be given once.
pub const XT_IPVS_ONCE_MASK: u8 = XT_IPVS_MASK & !XT_IPVS_IPVS_PROPERTY;

/// Info of the `ipvs` match, revision 0 (`struct xt_ipvs_mtinfo`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_ipvs_mtinfo {
    /// Virtual address (`--vaddr`), network byte order.
    pub vaddr: nf_inet_addr,
    /// Netmask for `vaddr`.
    pub vmask: nf_inet_addr,
    /// Virtual port (`--vport`), network byte order.
    pub vport: u16,
    /// Virtual service protocol (`--vproto`).
    pub l4proto: u8,
    /// Forwarding method (`--vmethod`): `IP_VS_CONN_F_MASQ`, `_TUNNEL` or `_DROUTE`.
    pub fwd_method: u8,
    /// Control connection's virtual port (`--vportctl`), network byte order.
    pub vportctl: u16,
    /// Which active tests are negated: `XT_IPVS_*` bits.
    pub invert: u8,
    /// Which tests are active: `XT_IPVS_*` bits.
    pub bitmask: u8,
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
        assert_layout!(xt_ipvs_mtinfo, 40, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_ipvs_mtinfo, 40, 4, 40);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_ipvs_mtinfo, 40, 4, 40);
    }
}
