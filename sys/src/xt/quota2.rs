//! `quota2` match (`xt_quota2.h`): a named byte or packet quota, or a growing counter
//! (`--quota`, `--name`, `--grow`, `--packets`, `--no-change`).

use super::x_tables::AlignedKernelPtr;

/// `! --quota` (`XT_QUOTA_INVERT` of `xt_quota2.h`).
pub const XT_QUOTA2_INVERT: u8 = 1 << 0;
/// `--grow`: count up instead of down (`XT_QUOTA_GROW`).
pub const XT_QUOTA2_GROW: u8 = 1 << 1;
/// `--packets`: count packets, not bytes (`XT_QUOTA_PACKET`).
pub const XT_QUOTA2_PACKET: u8 = 1 << 2;
/// `--no-change`: never change the counter (`XT_QUOTA_NO_CHANGE`).
pub const XT_QUOTA2_NO_CHANGE: u8 = 1 << 3;
/// Size of the name buffer.
pub const XT_QUOTA2_NAME_LEN: usize = 15;

/// Info of the `quota2` match, revision 3 (`struct xt_quota_mtinfo2`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_quota_mtinfo2 {
    /// The quota's name, NUL-terminated.
    pub name: [u8; XT_QUOTA2_NAME_LEN],
    /// `XT_QUOTA2_*` bits.
    pub flags: u8,
    /// The quota (`aligned_u64`).
    pub quota: u64,
    /// Kernel-private `struct xt_quota_counter *master __attribute__((aligned(8)))`.
    pub master: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the header with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_quota_mtinfo2, 32, 8, 32);
        assert_offset!(xt_quota_mtinfo2, flags, 15);
        assert_offset!(xt_quota_mtinfo2, quota, 16);
    }
}
