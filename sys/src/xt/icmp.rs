//! `icmp` and `icmp6` matches (`ip_tables.h`, `ip6_tables.h`): ICMP type and code range
//! (`-p icmp --icmp-type`, `-p ipv6-icmp --icmpv6-type`).

/// `ipt_icmp.invflags`: negate the type/code test.
pub const IPT_ICMP_INV: u8 = 0x01;
/// `ip6t_icmp.invflags`: negate the type/code test.
pub const IP6T_ICMP_INV: u8 = 0x01;

/// Info of the `icmp` match, revision 0 (`struct ipt_icmp`). `--icmp-type any` is type
/// 0xff with codes `[0, 0xff]`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_icmp {
    /// ICMP type to match (0xff matches any type).
    pub r#type: u8,
    /// Code range `[min, max]`; a type given without a code is `[0, 0xff]`.
    pub code: [u8; 2],
    /// `IPT_ICMP_INV` or 0.
    pub invflags: u8,
}

/// Info of the `icmp6` match, revision 0 (`struct ip6t_icmp`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_icmp {
    /// ICMPv6 type to match.
    pub r#type: u8,
    /// Code range `[min, max]`; a type given without a code is `[0, 0xff]`.
    pub code: [u8; 2],
    /// `IP6T_ICMP_INV` or 0.
    pub invflags: u8,
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
        assert_layout!(ipt_icmp, 4, 1);
        assert_layout!(ip6t_icmp, 4, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ipt_icmp, 4, 1, 8);
        assert_layout!(ip6t_icmp, 4, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(ipt_icmp, 4, 1, 4);
        assert_layout!(ip6t_icmp, 4, 1, 4);
    }
}
