//! `RATEEST` target and `rateest` match (`xt_RATEEST.h`, `xt_rateest.h`): a named rate
//! estimator that the target feeds (`--rateest-name`, `--rateest-interval`,
//! `--rateest-ewmalog`) and the match compares (`--rateest1`, `--rateest2`,
//! `--rateest-bps*`, `--rateest-pps*`, `--rateest-delta`, `--rateest-lt|gt|eq`).

use super::x_tables::{AlignedKernelPtr, IFNAMSIZ};

/// Info of the `RATEEST` target, revision 0 (`struct xt_rateest_target_info`): 32 bytes,
/// 8-aligned.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_rateest_target_info {
    /// The estimator's name, NUL-terminated.
    pub name: [u8; IFNAMSIZ],
    /// Measurement interval: `250ms << (interval + 2)`.
    pub interval: i8,
    /// Averaging time constant: the interval times `2^ewma_log`.
    pub ewma_log: u8,
    /// Kernel-private estimator pointer; send as zero.
    pub est: AlignedKernelPtr,
}

/// `flags` of the `rateest` match: negate the comparison.
pub const XT_RATEEST_MATCH_INVERT: u16 = 1 << 0;
/// `flags`: compare an estimator with given rates (`--rateest`).
pub const XT_RATEEST_MATCH_ABS: u16 = 1 << 1;
/// `flags`: compare two estimators (`--rateest1` and `--rateest2`).
pub const XT_RATEEST_MATCH_REL: u16 = 1 << 2;
/// `flags`: compare the difference of the rate and a given rate (`--rateest-delta`).
pub const XT_RATEEST_MATCH_DELTA: u16 = 1 << 3;
/// `flags`: compare bytes per second.
pub const XT_RATEEST_MATCH_BPS: u16 = 1 << 4;
/// `flags`: compare packets per second.
pub const XT_RATEEST_MATCH_PPS: u16 = 1 << 5;

/// `mode` of the `rateest` match: none.
pub const XT_RATEEST_MATCH_NONE: u16 = 0;
/// `mode`: equal (`--rateest-eq`).
pub const XT_RATEEST_MATCH_EQ: u16 = 1;
/// `mode`: less than (`--rateest-lt`).
pub const XT_RATEEST_MATCH_LT: u16 = 2;
/// `mode`: greater than (`--rateest-gt`).
pub const XT_RATEEST_MATCH_GT: u16 = 3;

/// Info of the `rateest` match, revision 0 (`struct xt_rateest_match_info`): 72 bytes,
/// 8-aligned.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_rateest_match_info {
    /// The first estimator's name, NUL-terminated.
    pub name1: [u8; IFNAMSIZ],
    /// The second estimator's name (relative mode).
    pub name2: [u8; IFNAMSIZ],
    /// `XT_RATEEST_MATCH_*` flags.
    pub flags: u16,
    /// `XT_RATEEST_MATCH_EQ`, `_LT` or `_GT`.
    pub mode: u16,
    /// First rate in bytes per second.
    pub bps1: u32,
    /// First rate in packets per second.
    pub pps1: u32,
    /// Second rate in bytes per second.
    pub bps2: u32,
    /// Second rate in packets per second.
    pub pps2: u32,
    /// Kernel-private estimator pointer; send as zero.
    pub est1: AlignedKernelPtr,
    /// Kernel-private estimator pointer; send as zero.
    pub est2: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and offsetof taken from the kernel UAPI headers with gcc 12.2 on
    // x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_rateest_target_info, 32, 8);
        assert_offset!(xt_rateest_target_info, interval, 16);
        assert_offset!(xt_rateest_target_info, ewma_log, 17);
        assert_offset!(xt_rateest_target_info, est, 24);
        assert_layout!(xt_rateest_match_info, 72, 8);
        assert_offset!(xt_rateest_match_info, flags, 32);
        assert_offset!(xt_rateest_match_info, mode, 34);
        assert_offset!(xt_rateest_match_info, bps1, 36);
        assert_offset!(xt_rateest_match_info, pps2, 48);
        assert_offset!(xt_rateest_match_info, est1, 56);
        assert_offset!(xt_rateest_match_info, est2, 64);
    }
}
