//! `string` match (`xt_string.h`): a pattern searched for in the packet with a kernel
//! text-search algorithm (`--algo bm|kmp`, `--from`, `--to`, `--string`, `--hex-string`,
//! `--icase`).

use super::x_tables::AlignedKernelPtr;

/// Longest pattern (`XT_STRING_MAX_PATTERN_SIZE`).
pub const XT_STRING_MAX_PATTERN_SIZE: usize = 128;
/// Size of the algorithm name field, NUL included (`XT_STRING_MAX_ALGO_NAME_SIZE`).
pub const XT_STRING_MAX_ALGO_NAME_SIZE: usize = 16;

/// `u.v1.flags` (revision 1): negate the match.
pub const XT_STRING_FLAG_INVERT: u8 = 0x01;
/// `u.v1.flags` (revision 1): ignore case (`--icase`).
pub const XT_STRING_FLAG_IGNORECASE: u8 = 0x02;

/// Info of the `string` match, revisions 0 and 1 (`struct xt_string_info`): 160 bytes,
/// 8-aligned. The byte after `patlen` is `u.v0.invert` (revision 0, 0 or 1) or
/// `u.v1.flags` (revision 1, `XT_STRING_FLAG_*`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_string_info {
    /// First offset searched (`--from`).
    pub from_offset: u16,
    /// Last offset searched (`--to`; 65535 by default).
    pub to_offset: u16,
    /// Algorithm name, NUL-terminated.
    pub algo: [u8; XT_STRING_MAX_ALGO_NAME_SIZE],
    /// The pattern, `patlen` bytes of it used.
    pub pattern: [u8; XT_STRING_MAX_PATTERN_SIZE],
    /// Length of the pattern.
    pub patlen: u8,
    /// `u.v0.invert` or `u.v1.flags`.
    pub u: u8,
    /// Kernel-private search config pointer; send as zero.
    pub config: AlignedKernelPtr,
}

impl Default for xt_string_info {
    fn default() -> Self {
        xt_string_info {
            from_offset: 0,
            to_offset: 0,
            algo: [0; XT_STRING_MAX_ALGO_NAME_SIZE],
            pattern: [0; XT_STRING_MAX_PATTERN_SIZE],
            patlen: 0,
            u: 0,
            config: AlignedKernelPtr::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and offsetof taken from the kernel UAPI headers with gcc 12.2 on
    // x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_string_info, 160, 8);
        assert_offset!(xt_string_info, algo, 4);
        assert_offset!(xt_string_info, pattern, 20);
        assert_offset!(xt_string_info, patlen, 148);
        assert_offset!(xt_string_info, u, 149);
        assert_offset!(xt_string_info, config, 152);
    }
}
