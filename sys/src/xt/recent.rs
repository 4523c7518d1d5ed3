//! `recent` match (`xt_recent.h`): remembers addresses in a named list and tests them
//! (`--name`, `--set`, `--rcheck`, `--update`, `--remove`, `--seconds`, `--hitcount`,
//! `--rttl`, `--reap`, `--rsource`, `--rdest`, `--mask`).

use super::inet_addr::nf_inet_addr;

/// `check_set`: test whether the address is in the list (`--rcheck`).
pub const XT_RECENT_CHECK: u8 = 1 << 0;
/// `check_set`: add the address to the list (`--set`).
pub const XT_RECENT_SET: u8 = 1 << 1;
/// `check_set`: test and refresh the address (`--update`).
pub const XT_RECENT_UPDATE: u8 = 1 << 2;
/// `check_set`: test and remove the address (`--remove`).
pub const XT_RECENT_REMOVE: u8 = 1 << 3;
/// `check_set`: the TTL must match the one recorded (`--rttl`).
pub const XT_RECENT_TTL: u8 = 1 << 4;
/// `check_set`: purge entries older than `seconds` (`--reap`).
pub const XT_RECENT_REAP: u8 = 1 << 5;
/// `side`: use the source address (`--rsource`, the default).
pub const XT_RECENT_SOURCE: u8 = 0;
/// `side`: use the destination address (`--rdest`).
pub const XT_RECENT_DEST: u8 = 1;
/// Size of the list name buffer, including the NUL.
pub const XT_RECENT_NAME_LEN: usize = 200;
/// Bits allowed only with `--rcheck` and `--update`.
pub const XT_RECENT_MODIFIERS: u8 = XT_RECENT_TTL | XT_RECENT_REAP;
/// All valid `check_set` bits.
pub const XT_RECENT_VALID_FLAGS: u8 = XT_RECENT_CHECK
    | XT_RECENT_SET
    | XT_RECENT_UPDATE
    | XT_RECENT_REMOVE
    | XT_RECENT_TTL
    | XT_RECENT_REAP;

bitflags::bitflags! {
    /// `check_set` of the recent match infos (`XT_RECENT_*` command bits).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RecentFlags: u8 {
        /// `--rcheck`.
        const CHECK = XT_RECENT_CHECK;
        /// `--set`.
        const SET = XT_RECENT_SET;
        /// `--update`.
        const UPDATE = XT_RECENT_UPDATE;
        /// `--remove`.
        const REMOVE = XT_RECENT_REMOVE;
        /// `--rttl`.
        const TTL = XT_RECENT_TTL;
        /// `--reap`.
        const REAP = XT_RECENT_REAP;
    }
}

/// Info of the `recent` match, revision 0 (`struct xt_recent_mtinfo`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_recent_mtinfo {
    /// Only match entries seen within this many seconds (`--seconds`), 0 for no limit.
    pub seconds: u32,
    /// Only match entries seen at least this many times (`--hitcount`), 0 for no limit.
    pub hit_count: u32,
    /// `XT_RECENT_*` command and modifier bits.
    pub check_set: u8,
    /// Nonzero to negate the match (`!`).
    pub invert: u8,
    /// List name (`--name`, default `DEFAULT`), NUL-terminated.
    pub name: [u8; XT_RECENT_NAME_LEN],
    /// `XT_RECENT_SOURCE` or `XT_RECENT_DEST`.
    pub side: u8,
}

impl Default for xt_recent_mtinfo {
    fn default() -> Self {
        Self {
            seconds: 0,
            hit_count: 0,
            check_set: 0,
            invert: 0,
            name: [0; XT_RECENT_NAME_LEN],
            side: 0,
        }
    }
}

/// Info of the `recent` match, revision 1 (`struct xt_recent_mtinfo_v1`): revision 0 plus
/// an address mask.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_recent_mtinfo_v1 {
    /// Only match entries seen within this many seconds (`--seconds`), 0 for no limit.
    pub seconds: u32,
    /// Only match entries seen at least this many times (`--hitcount`), 0 for no limit.
    pub hit_count: u32,
    /// `XT_RECENT_*` command and modifier bits.
    pub check_set: u8,
    /// Nonzero to negate the match (`!`).
    pub invert: u8,
    /// List name (`--name`, default `DEFAULT`), NUL-terminated.
    pub name: [u8; XT_RECENT_NAME_LEN],
    /// `XT_RECENT_SOURCE` or `XT_RECENT_DEST`.
    pub side: u8,
    /// Netmask applied to the address before it is recorded (`--mask`, all ones by
    /// default), network byte order.
    pub mask: nf_inet_addr,
}

impl Default for xt_recent_mtinfo_v1 {
    fn default() -> Self {
        Self {
            seconds: 0,
            hit_count: 0,
            check_set: 0,
            invert: 0,
            name: [0; XT_RECENT_NAME_LEN],
            side: 0,
            mask: nf_inet_addr::default(),
        }
    }
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
        assert_layout!(xt_recent_mtinfo, 212, 4);
        assert_layout!(xt_recent_mtinfo_v1, 228, 4);
        assert_offset!(xt_recent_mtinfo_v1, side, 210);
        assert_offset!(xt_recent_mtinfo_v1, mask, 212);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_recent_mtinfo, 212, 4, 216);
        assert_layout!(xt_recent_mtinfo_v1, 228, 4, 232);
        assert_offset!(xt_recent_mtinfo_v1, side, 210);
        assert_offset!(xt_recent_mtinfo_v1, mask, 212);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_recent_mtinfo, 212, 4, 212);
        assert_layout!(xt_recent_mtinfo_v1, 228, 4, 228);
        assert_offset!(xt_recent_mtinfo_v1, side, 210);
        assert_offset!(xt_recent_mtinfo_v1, mask, 212);
    }
}
