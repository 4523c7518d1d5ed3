//! `ttl` / `hl` matches and `TTL` / `HL` targets (`ipt_ttl.h`, `ipt_TTL.h`, `ip6t_hl.h`,
//! `ip6t_HL.h`): the IPv4 time-to-live and IPv6 hop limit.

/// `ttl` match `mode`: equal (`--ttl-eq`).
pub const IPT_TTL_EQ: u8 = 0;
/// `ttl` match `mode`: not equal (`! --ttl-eq`).
pub const IPT_TTL_NE: u8 = 1;
/// `ttl` match `mode`: less than (`--ttl-lt`).
pub const IPT_TTL_LT: u8 = 2;
/// `ttl` match `mode`: greater than (`--ttl-gt`).
pub const IPT_TTL_GT: u8 = 3;

/// `hl` match `mode`: equal (`--hl-eq`).
pub const IP6T_HL_EQ: u8 = 0;
/// `hl` match `mode`: not equal (`! --hl-eq`).
pub const IP6T_HL_NE: u8 = 1;
/// `hl` match `mode`: less than (`--hl-lt`).
pub const IP6T_HL_LT: u8 = 2;
/// `hl` match `mode`: greater than (`--hl-gt`).
pub const IP6T_HL_GT: u8 = 3;

/// `TTL` target `mode`: set (`--ttl-set`).
pub const IPT_TTL_SET: u8 = 0;
/// `TTL` target `mode`: increment (`--ttl-inc`).
pub const IPT_TTL_INC: u8 = 1;
/// `TTL` target `mode`: decrement (`--ttl-dec`).
pub const IPT_TTL_DEC: u8 = 2;
/// Highest valid `TTL` target mode.
pub const IPT_TTL_MAXMODE: u8 = IPT_TTL_DEC;

/// `HL` target `mode`: set (`--hl-set`).
pub const IP6T_HL_SET: u8 = 0;
/// `HL` target `mode`: increment (`--hl-inc`).
pub const IP6T_HL_INC: u8 = 1;
/// `HL` target `mode`: decrement (`--hl-dec`).
pub const IP6T_HL_DEC: u8 = 2;
/// Highest valid `HL` target mode.
pub const IP6T_HL_MAXMODE: u8 = IP6T_HL_DEC;

/// Info of the `ttl` match, revision 0 (`struct ipt_ttl_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_ttl_info {
    /// Comparison: `IPT_TTL_EQ`, `_NE`, `_LT` or `_GT`.
    pub mode: u8,
    /// TTL to compare with.
    pub ttl: u8,
}

/// Info of the `hl` match, revision 0 (`struct ip6t_hl_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_hl_info {
    /// Comparison: `IP6T_HL_EQ`, `_NE`, `_LT` or `_GT`.
    pub mode: u8,
    /// Hop limit to compare with.
    pub hop_limit: u8,
}

/// Info of the `TTL` target, revision 0 (`struct ipt_TTL_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_TTL_info {
    /// `IPT_TTL_SET`, `_INC` or `_DEC`.
    pub mode: u8,
    /// Value to set, or amount to add or subtract.
    pub ttl: u8,
}

/// Info of the `HL` target, revision 0 (`struct ip6t_HL_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_HL_info {
    /// `IP6T_HL_SET`, `_INC` or `_DEC`.
    pub mode: u8,
    /// Value to set, or amount to add or subtract.
    pub hop_limit: u8,
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
        assert_layout!(ipt_ttl_info, 2, 1);
        assert_layout!(ip6t_hl_info, 2, 1);
        assert_layout!(ipt_TTL_info, 2, 1);
        assert_layout!(ip6t_HL_info, 2, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ipt_ttl_info, 2, 1, 8);
        assert_layout!(ip6t_hl_info, 2, 1, 8);
        assert_layout!(ipt_TTL_info, 2, 1, 8);
        assert_layout!(ip6t_HL_info, 2, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(ipt_ttl_info, 2, 1, 4);
        assert_layout!(ip6t_hl_info, 2, 1, 4);
        assert_layout!(ipt_TTL_info, 2, 1, 4);
        assert_layout!(ip6t_HL_info, 2, 1, 4);
    }
}
