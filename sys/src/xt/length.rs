//! `length` match (`xt_length.h`): the layer-3 packet length (`--length min[:max]`).

/// Info of the `length` match, revision 0 (`struct xt_length_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_length_info {
    /// Smallest length that matches, in bytes.
    pub min: u16,
    /// Largest length that matches, in bytes.
    pub max: u16,
    /// Nonzero to negate the match (`! --length`).
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
        assert_layout!(xt_length_info, 6, 2);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_length_info, 6, 2, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_length_info, 6, 2, 8);
    }
}
