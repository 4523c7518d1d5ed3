//! `CHECKSUM` target (`xt_CHECKSUM.h`): compute a missing checksum (`--checksum-fill`).

/// `operation`: fill in the checksum (`--checksum-fill`).
pub const XT_CHECKSUM_OP_FILL: u8 = 0x01;

/// Info of the `CHECKSUM` target, revision 0 (`struct xt_CHECKSUM_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_CHECKSUM_info {
    /// `XT_CHECKSUM_OP_*` bits.
    pub operation: u8,
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
        assert_layout!(xt_CHECKSUM_info, 1, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_CHECKSUM_info, 1, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_CHECKSUM_info, 1, 1, 4);
    }
}
