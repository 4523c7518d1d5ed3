//! `state` match (`xt_state.h`): the conntrack state of the packet (`--state`). iptables-nft
//! translates `-m state` into the `conntrack` match; the struct is kept for completeness.

use super::conntrack::{IP_CT_IS_REPLY, IP_CT_NUMBER};

/// `XT_STATE_BIT(ctinfo)`: the `statemask` bit of a conntrack info value
/// (`IP_CT_ESTABLISHED`, `IP_CT_RELATED`, `IP_CT_NEW`, or their `_REPLY` forms, which map to
/// the same bit).
#[allow(non_snake_case)]
pub const fn XT_STATE_BIT(ctinfo: u32) -> u32 {
    1 << (ctinfo % IP_CT_IS_REPLY + 1)
}

/// `statemask` bit: `INVALID`, the packet belongs to no known connection.
pub const XT_STATE_INVALID: u32 = 1 << 0;
/// `statemask` bit: `ESTABLISHED` (`XT_STATE_BIT(IP_CT_ESTABLISHED)`).
pub const XT_STATE_ESTABLISHED: u32 = XT_STATE_BIT(super::conntrack::IP_CT_ESTABLISHED);
/// `statemask` bit: `RELATED` (`XT_STATE_BIT(IP_CT_RELATED)`).
pub const XT_STATE_RELATED: u32 = XT_STATE_BIT(super::conntrack::IP_CT_RELATED);
/// `statemask` bit: `NEW` (`XT_STATE_BIT(IP_CT_NEW)`).
pub const XT_STATE_NEW: u32 = XT_STATE_BIT(super::conntrack::IP_CT_NEW);
/// `statemask` bit: `UNTRACKED`, the packet is exempt from tracking (`NOTRACK`/`CT --notrack`).
pub const XT_STATE_UNTRACKED: u32 = 1 << (IP_CT_NUMBER + 1);

bitflags::bitflags! {
    /// The `statemask` of [`xt_state_info`] as a flag set (the `XT_STATE_*` bits).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct StateMask: u32 {
        /// `INVALID`.
        const INVALID = XT_STATE_INVALID;
        /// `ESTABLISHED`.
        const ESTABLISHED = XT_STATE_ESTABLISHED;
        /// `RELATED`.
        const RELATED = XT_STATE_RELATED;
        /// `NEW`.
        const NEW = XT_STATE_NEW;
        /// `UNTRACKED`.
        const UNTRACKED = XT_STATE_UNTRACKED;
    }
}

/// Info of the `state` match, revision 0 (`struct xt_state_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_state_info {
    /// The states that match: an OR of `XT_STATE_*` bits.
    pub statemask: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_bits() {
        assert_eq!(XT_STATE_INVALID, 1);
        assert_eq!(XT_STATE_ESTABLISHED, 2);
        assert_eq!(XT_STATE_RELATED, 4);
        assert_eq!(XT_STATE_NEW, 8);
        assert_eq!(XT_STATE_UNTRACKED, 64);
    }

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(xt_state_info, 4, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_state_info, 4, 4, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_state_info, 4, 4, 4);
    }
}
