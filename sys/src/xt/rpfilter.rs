//! `rpfilter` match (`xt_rpfilter.h`): reverse path filter, the reply to the packet would
//! leave through the interface it came in on (`--loose`, `--validmark`, `--accept-local`,
//! `--invert`).

/// `flags`: any route back is enough, not only via the input interface (`--loose`).
pub const XT_RPFILTER_LOOSE: u8 = 1 << 0;
/// `flags`: use the packet mark in the reverse lookup (`--validmark`).
pub const XT_RPFILTER_VALID_MARK: u8 = 1 << 1;
/// `flags`: accept packets from local addresses (`--accept-local`).
pub const XT_RPFILTER_ACCEPT_LOCAL: u8 = 1 << 2;
/// `flags`: negate the match (`--invert`).
pub const XT_RPFILTER_INVERT: u8 = 1 << 3;

bitflags::bitflags! {
    /// `flags` of [`xt_rpfilter_info`] (`XT_RPFILTER_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RpfilterFlags: u8 {
        /// `--loose`.
        const LOOSE = XT_RPFILTER_LOOSE;
        /// `--validmark`.
        const VALID_MARK = XT_RPFILTER_VALID_MARK;
        /// `--accept-local`.
        const ACCEPT_LOCAL = XT_RPFILTER_ACCEPT_LOCAL;
        /// `--invert`.
        const INVERT = XT_RPFILTER_INVERT;
    }
}

/// Info of the `rpfilter` match, revision 0 (`struct xt_rpfilter_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_rpfilter_info {
    /// `XT_RPFILTER_*` bits.
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
        assert_layout!(xt_rpfilter_info, 1, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_rpfilter_info, 1, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_rpfilter_info, 1, 1, 4);
    }
}
