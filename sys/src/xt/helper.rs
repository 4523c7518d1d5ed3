//! `helper` match (`xt_helper.h`): the conntrack helper of the connection (`--helper ftp`).

/// Info of the `helper` match, revision 0 (`struct xt_helper_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_helper_info {
    /// Nonzero to negate the match (`! --helper`).
    pub invert: i32,
    /// Helper name, NUL-terminated (a name like `ftp-21` also tests the port).
    pub name: [u8; 30],
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
        assert_layout!(xt_helper_info, 36, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_helper_info, 36, 4, 40);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_helper_info, 36, 4, 36);
    }
}
