//! `cpu` match (`xt_cpu.h`): the CPU handling the packet (`--cpu number`).

/// Info of the `cpu` match, revision 0 (`struct xt_cpu_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_cpu_info {
    /// The CPU number.
    pub cpu: u32,
    /// Nonzero to negate the match (`! --cpu`).
    pub invert: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the kernel UAPI headers with gcc 12.2
    // on x86_64, and with `gcc -m32` for the i386 numbers.
    #[test]
    fn layout() {
        assert_layout!(xt_cpu_info, 8, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_cpu_info, 8, 4, 8);
    }
}
