//! `mac` match (`xt_mac.h`): the source MAC address (`--mac-source`).

use super::x_tables::ETH_ALEN;

/// Info of the `mac` match, revision 0 (`struct xt_mac_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_mac_info {
    /// The source MAC address, in wire order.
    pub srcaddr: [u8; ETH_ALEN],
    /// Nonzero to negate the match (`! --mac-source`).
    pub invert: i32,
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
        assert_layout!(xt_mac_info, 12, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_mac_info, 12, 4, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_mac_info, 12, 4, 12);
    }
}
