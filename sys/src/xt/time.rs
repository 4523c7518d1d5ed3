//! `time` match (`xt_time.h`): the arrival time of the packet (`--datestart`,
//! `--datestop`, `--timestart`, `--timestop`, `--monthdays`, `--weekdays`, `--kerneltz`,
//! `--contiguous`).

/// `flags`: compare with the kernel's time zone instead of UTC (`--kerneltz`).
pub const XT_TIME_LOCAL_TZ: u8 = 1 << 0;
/// `flags`: a `timestart` after `timestop` is one period over midnight (`--contiguous`).
pub const XT_TIME_CONTIGUOUS: u8 = 1 << 1;
/// Every flag (`XT_TIME_ALL_FLAGS`).
pub const XT_TIME_ALL_FLAGS: u8 = XT_TIME_LOCAL_TZ | XT_TIME_CONTIGUOUS;
/// `monthdays_match` of every day (bits 1 to 31).
pub const XT_TIME_ALL_MONTHDAYS: u32 = 0xFFFF_FFFE;
/// `weekdays_match` of every day (bits 1, Monday, to 7, Sunday).
pub const XT_TIME_ALL_WEEKDAYS: u8 = 0xFE;
/// Earliest `daytime_start`.
pub const XT_TIME_MIN_DAYTIME: u32 = 0;
/// Latest `daytime_stop` (23:59:59).
pub const XT_TIME_MAX_DAYTIME: u32 = 24 * 60 * 60 - 1;

/// Info of the `time` match, revision 0 (`struct xt_time_info`): 24 bytes, 4-aligned.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_time_info {
    /// First second matched, seconds since the epoch.
    pub date_start: u32,
    /// Last second matched (`INT_MAX` for none).
    pub date_stop: u32,
    /// First second of the day matched.
    pub daytime_start: u32,
    /// Last second of the day matched.
    pub daytime_stop: u32,
    /// Days of the month matched (bit N for day N).
    pub monthdays_match: u32,
    /// Days of the week matched (bit 1 Monday … bit 7 Sunday).
    pub weekdays_match: u8,
    /// `XT_TIME_*` flags.
    pub flags: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and offsetof taken from the kernel UAPI headers with gcc 12.2 on
    // x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_time_info, 24, 4);
        assert_offset!(xt_time_info, monthdays_match, 16);
        assert_offset!(xt_time_info, weekdays_match, 20);
        assert_offset!(xt_time_info, flags, 21);
    }
}
