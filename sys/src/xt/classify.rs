//! `CLASSIFY` target (`xt_CLASSIFY.h`): set the packet's traffic control class
//! (`--set-class major:minor`).

/// Info of the `CLASSIFY` target, revision 0 (`struct xt_classify_target_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_classify_target_info {
    /// The class as skb->priority: `major << 16 | minor` (`TC_H_MAKE`, both parsed as hex).
    pub priority: u32,
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
        assert_layout!(xt_classify_target_info, 4, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_classify_target_info, 4, 4, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_classify_target_info, 4, 4, 4);
    }
}
