//! `dscp` / `tos` matches and `DSCP` / `TOS` targets (`xt_dscp.h`, `xt_DSCP.h`): the
//! DiffServ code point and the IPv4 TOS / IPv6 traffic class byte.

/// The DSCP bits of the TOS / traffic class byte (`11111100`).
pub const XT_DSCP_MASK: u8 = 0xfc;
/// Shift of the DSCP within the TOS byte.
pub const XT_DSCP_SHIFT: u8 = 2;
/// Largest DSCP value.
pub const XT_DSCP_MAX: u8 = 0x3f;

/// Info of the `dscp` match, revision 0 (`struct xt_dscp_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_dscp_info {
    /// DSCP to match, 0 to `XT_DSCP_MAX` (`--dscp`, or a `--dscp-class` translated).
    pub dscp: u8,
    /// Nonzero to negate the match.
    pub invert: u8,
}

/// Info of the `tos` match, revision 1 (`struct xt_tos_match_info`): matches when
/// `(tos & tos_mask) == tos_value` (`--tos value[/mask]`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tos_match_info {
    /// Mask applied to the TOS byte (0xff when none is given).
    pub tos_mask: u8,
    /// Value compared with the masked TOS byte.
    pub tos_value: u8,
    /// Nonzero to negate the match.
    pub invert: u8,
}

/// Info of the `DSCP` target, revision 0 (`struct xt_DSCP_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_DSCP_info {
    /// DSCP to set, 0 to `XT_DSCP_MAX` (`--set-dscp`, `--set-dscp-class`).
    pub dscp: u8,
}

/// Info of the `TOS` target, revision 1 (`struct xt_tos_target_info`): sets
/// `tos = (tos & !tos_mask) ^ tos_value` (`--set-tos`, `--and-tos`, `--or-tos`,
/// `--xor-tos`, as for `MARK`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tos_target_info {
    /// Bits XORed into the TOS byte after masking.
    pub tos_value: u8,
    /// Bits of the TOS byte cleared first.
    pub tos_mask: u8,
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
        assert_layout!(xt_dscp_info, 2, 1);
        assert_layout!(xt_tos_match_info, 3, 1);
        assert_layout!(xt_DSCP_info, 1, 1);
        assert_layout!(xt_tos_target_info, 2, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_dscp_info, 2, 1, 8);
        assert_layout!(xt_tos_match_info, 3, 1, 8);
        assert_layout!(xt_DSCP_info, 1, 1, 8);
        assert_layout!(xt_tos_target_info, 2, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_dscp_info, 2, 1, 4);
        assert_layout!(xt_tos_match_info, 3, 1, 4);
        assert_layout!(xt_DSCP_info, 1, 1, 4);
        assert_layout!(xt_tos_target_info, 2, 1, 4);
    }
}
