//! `ipcomp` match (`xt_ipcomp.h`): the CPI of IPComp headers (`--ipcompspi spi[:spi]`).

/// `invflags`: negate the SPI test.
pub const XT_IPCOMP_INV_SPI: u8 = 0x01;
/// All valid `invflags` bits.
pub const XT_IPCOMP_INV_MASK: u8 = 0x01;

/// Info of the `ipcomp` match, revision 0 (`struct xt_ipcomp`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_ipcomp {
    /// Smallest and largest CPI that match.
    pub spis: [u32; 2],
    /// `XT_IPCOMP_INV_*` bits.
    pub invflags: u8,
    /// Nonzero to test the reserved field (`--compres`; the kernel ignores it).
    pub hdrres: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers.
    #[test]
    fn layout() {
        assert_layout!(xt_ipcomp, 12, 4);
        assert_offset!(xt_ipcomp, invflags, 8);
        assert_offset!(xt_ipcomp, hdrres, 9);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_ipcomp, 12, 4, 16);
    }
}
