//! `TCPOPTSTRIP` target (`xt_TCPOPTSTRIP.h`): remove TCP options from the packet
//! (`--strip-options`).

/// Info of the `TCPOPTSTRIP` target, revision 0 (`struct xt_tcpoptstrip_target_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tcpoptstrip_target_info {
    /// Bitmap of TCP option kinds to strip: kind `k` is bit `k & 31` of
    /// `strip_bmap[k >> 5]` (`tcpoptstrip_set_bit`).
    pub strip_bmap: [u32; 8],
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
        assert_layout!(xt_tcpoptstrip_target_info, 32, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_tcpoptstrip_target_info, 32, 4, 32);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_tcpoptstrip_target_info, 32, 4, 32);
    }
}
