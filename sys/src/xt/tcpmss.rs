//! `tcpmss` match and `TCPMSS` target (`xt_tcpmss.h`, `xt_TCPMSS.h`): the MSS option of
//! TCP SYN packets.

/// `TCPMSS` `mss` value meaning "clamp to the path MTU minus headers"
/// (`--clamp-mss-to-pmtu`).
pub const XT_TCPMSS_CLAMP_PMTU: u16 = 0xffff;

/// Info of the `tcpmss` match, revision 0 (`struct xt_tcpmss_match_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tcpmss_match_info {
    /// Smallest MSS that matches (`--mss min[:max]`).
    pub mss_min: u16,
    /// Largest MSS that matches.
    pub mss_max: u16,
    /// Nonzero to negate the match.
    pub invert: u8,
}

/// Info of the `TCPMSS` target, revision 0 (`struct xt_tcpmss_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tcpmss_info {
    /// MSS to set (`--set-mss`), or `XT_TCPMSS_CLAMP_PMTU`.
    pub mss: u16,
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
        assert_layout!(xt_tcpmss_match_info, 6, 2);
        assert_layout!(xt_tcpmss_info, 2, 2);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_tcpmss_match_info, 6, 2, 8);
        assert_layout!(xt_tcpmss_info, 2, 2, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_tcpmss_match_info, 6, 2, 8);
        assert_layout!(xt_tcpmss_info, 2, 2, 4);
    }
}
