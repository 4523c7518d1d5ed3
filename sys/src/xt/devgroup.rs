//! `devgroup` match (`xt_devgroup.h`): the device group of the input or output interface
//! (`--src-group`, `--dst-group`).

/// `flags`: test the input interface's group (`--src-group`).
pub const XT_DEVGROUP_MATCH_SRC: u32 = 0x1;
/// `flags`: negate the input group test.
pub const XT_DEVGROUP_INVERT_SRC: u32 = 0x2;
/// `flags`: test the output interface's group (`--dst-group`).
pub const XT_DEVGROUP_MATCH_DST: u32 = 0x4;
/// `flags`: negate the output group test.
pub const XT_DEVGROUP_INVERT_DST: u32 = 0x8;

/// Info of the `devgroup` match, revision 0 (`struct xt_devgroup_info`): a group test is
/// `(group & mask) == value`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_devgroup_info {
    /// `XT_DEVGROUP_*` bits.
    pub flags: u32,
    /// Input interface group value.
    pub src_group: u32,
    /// Input interface group mask (all ones when none is given).
    pub src_mask: u32,
    /// Output interface group value.
    pub dst_group: u32,
    /// Output interface group mask.
    pub dst_mask: u32,
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
        assert_layout!(xt_devgroup_info, 20, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_devgroup_info, 20, 4, 24);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_devgroup_info, 20, 4, 20);
    }
}
