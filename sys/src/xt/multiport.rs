//! `multiport` match (`xt_multiport.h`): up to 15 ports or port ranges (`--sports`,
//! `--dports`, `--ports`).

/// Largest number of entries in `ports` (a range takes two).
pub const XT_MULTI_PORTS: usize = 15;

// enum xt_multiport_flags: values of the `flags` field (a selector, not a bit set)

/// `flags`: match the source port (`--sports`).
pub const XT_MULTIPORT_SOURCE: u8 = 0;
/// `flags`: match the destination port (`--dports`).
pub const XT_MULTIPORT_DESTINATION: u8 = 1;
/// `flags`: match the source or the destination port (`--ports`).
pub const XT_MULTIPORT_EITHER: u8 = 2;

/// Info of the `multiport` match, revision 0 (`struct xt_multiport`): single ports only.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_multiport {
    /// Which port to compare: `XT_MULTIPORT_SOURCE`, `_DESTINATION` or `_EITHER`.
    pub flags: u8,
    /// Number of entries used in `ports`.
    pub count: u8,
    /// The ports, host byte order.
    pub ports: [u16; XT_MULTI_PORTS],
}

/// Info of the `multiport` match, revision 1 (`struct xt_multiport_v1`): ports and port
/// ranges, with negation.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_multiport_v1 {
    /// Which port to compare: `XT_MULTIPORT_SOURCE`, `_DESTINATION` or `_EITHER`.
    pub flags: u8,
    /// Number of entries used in `ports`.
    pub count: u8,
    /// The ports, host byte order; a range `a:b` takes two entries.
    pub ports: [u16; XT_MULTI_PORTS],
    /// Per entry: 1 when `ports[i]` starts a range that ends at `ports[i + 1]`, else 0.
    pub pflags: [u8; XT_MULTI_PORTS],
    /// Nonzero to negate the match (`!`).
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
        assert_layout!(xt_multiport, 32, 2);
        assert_layout!(xt_multiport_v1, 48, 2);
        assert_offset!(xt_multiport_v1, pflags, 32);
        assert_offset!(xt_multiport_v1, invert, 47);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_multiport, 32, 2, 32);
        assert_layout!(xt_multiport_v1, 48, 2, 48);
        assert_offset!(xt_multiport_v1, pflags, 32);
        assert_offset!(xt_multiport_v1, invert, 47);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_multiport, 32, 2, 32);
        assert_layout!(xt_multiport_v1, 48, 2, 48);
        assert_offset!(xt_multiport_v1, pflags, 32);
        assert_offset!(xt_multiport_v1, invert, 47);
    }
}
