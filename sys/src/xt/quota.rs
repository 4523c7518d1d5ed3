//! `quota` match (`xt_quota.h`): matches until a byte quota is used up (`--quota bytes`).

/// `flags`: negate the match (`! --quota`).
pub const XT_QUOTA_INVERT: u32 = 0x1;
/// All valid `flags` bits.
pub const XT_QUOTA_MASK: u32 = 0x1;

/// Info of the `quota` match, revision 0 (`struct xt_quota_info`): 24 bytes, 8-aligned
/// on every target (`quota` is an `__aligned_u64`).
#[allow(non_camel_case_types)]
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_quota_info {
    /// `XT_QUOTA_INVERT` or 0.
    pub flags: u32,
    /// Padding; send zero.
    pub pad: u32,
    /// The quota in bytes.
    pub quota: u64,
    /// Kernel-private `struct xt_quota_priv *master`; send zero.
    pub master: usize,
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
        assert_layout!(xt_quota_info, 24, 8);
        assert_offset!(xt_quota_info, quota, 8);
        assert_offset!(xt_quota_info, master, 16);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_quota_info, 24, 8, 24);
        assert_offset!(xt_quota_info, quota, 8);
        assert_offset!(xt_quota_info, master, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_quota_info, 24, 8, 24);
        assert_offset!(xt_quota_info, quota, 8);
        assert_offset!(xt_quota_info, master, 16);
    }
}
