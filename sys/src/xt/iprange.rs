//! `iprange` match (`xt_iprange.h`): source or destination address in a range
//! (`--src-range a-b`, `--dst-range a-b`).

use super::inet_addr::nf_inet_addr;

/// `flags`: test the source address (`--src-range`).
pub const IPRANGE_SRC: u8 = 1 << 0;
/// `flags`: test the destination address (`--dst-range`).
pub const IPRANGE_DST: u8 = 1 << 1;
/// `flags`: negate the source test (`! --src-range`).
pub const IPRANGE_SRC_INV: u8 = 1 << 4;
/// `flags`: negate the destination test (`! --dst-range`).
pub const IPRANGE_DST_INV: u8 = 1 << 5;

bitflags::bitflags! {
    /// `flags` of [`xt_iprange_mtinfo`] (`IPRANGE_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct IprangeFlags: u8 {
        /// `--src-range`.
        const SRC = IPRANGE_SRC;
        /// `--dst-range`.
        const DST = IPRANGE_DST;
        /// `! --src-range`.
        const SRC_INV = IPRANGE_SRC_INV;
        /// `! --dst-range`.
        const DST_INV = IPRANGE_DST_INV;
    }
}

/// Info of the `iprange` match, revision 1 (`struct xt_iprange_mtinfo`). Addresses are in
/// network byte order.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_iprange_mtinfo {
    /// First source address of the range.
    pub src_min: nf_inet_addr,
    /// Last source address of the range.
    pub src_max: nf_inet_addr,
    /// First destination address of the range.
    pub dst_min: nf_inet_addr,
    /// Last destination address of the range.
    pub dst_max: nf_inet_addr,
    /// `IPRANGE_*` bits.
    pub flags: u8,
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
        assert_layout!(xt_iprange_mtinfo, 68, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_iprange_mtinfo, 68, 4, 72);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_iprange_mtinfo, 68, 4, 68);
    }
}
