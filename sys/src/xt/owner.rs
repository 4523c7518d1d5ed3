//! `owner` match (`xt_owner.h`): the socket owner of locally generated packets
//! (`--uid-owner`, `--gid-owner`, `--socket-exists`, `--suppl-groups`).

/// `match`/`invert` bit: test the socket's user ID range.
pub const XT_OWNER_UID: u8 = 1 << 0;
/// `match`/`invert` bit: test the socket's group ID range.
pub const XT_OWNER_GID: u8 = 1 << 1;
/// `match`/`invert` bit: the packet has a socket (`--socket-exists`).
pub const XT_OWNER_SOCKET: u8 = 1 << 2;
/// `match` bit: also test the supplementary groups (`--suppl-groups`, with `XT_OWNER_GID`).
pub const XT_OWNER_SUPPL_GROUPS: u8 = 1 << 3;
/// All valid `match`/`invert` bits.
pub const XT_OWNER_MASK: u8 = XT_OWNER_UID | XT_OWNER_GID | XT_OWNER_SOCKET | XT_OWNER_SUPPL_GROUPS;

bitflags::bitflags! {
    /// `match` and `invert` of [`xt_owner_match_info`] (`XT_OWNER_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OwnerFlags: u8 {
        /// `--uid-owner`.
        const UID = XT_OWNER_UID;
        /// `--gid-owner`.
        const GID = XT_OWNER_GID;
        /// `--socket-exists`.
        const SOCKET = XT_OWNER_SOCKET;
        /// `--suppl-groups`.
        const SUPPL_GROUPS = XT_OWNER_SUPPL_GROUPS;
    }
}

/// Info of the `owner` match, revision 1 (`struct xt_owner_match_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_owner_match_info {
    /// Lowest user ID (`--uid-owner min[-max]`).
    pub uid_min: u32,
    /// Highest user ID.
    pub uid_max: u32,
    /// Lowest group ID (`--gid-owner min[-max]`).
    pub gid_min: u32,
    /// Highest group ID.
    pub gid_max: u32,
    /// Which tests are active: `XT_OWNER_*` bits (C field `match`).
    pub r#match: u8,
    /// Which active tests are negated: `XT_OWNER_*` bits.
    pub invert: u8,
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
        assert_layout!(xt_owner_match_info, 20, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_owner_match_info, 20, 4, 24);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_owner_match_info, 20, 4, 20);
    }
}
