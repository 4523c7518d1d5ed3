//! `mark` match and `MARK` target (`xt_mark.h`, `xt_MARK.h`): the packet's netfilter mark
//! (skb->mark).

/// Info of the `mark` match, revision 1 (`struct xt_mark_mtinfo1`): matches when
/// `(skb->mark & mask) == mark` (`--mark value[/mask]`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_mark_mtinfo1 {
    /// Value compared with the masked packet mark.
    pub mark: u32,
    /// Mask applied to the packet mark (`0xffffffff` when none is given).
    pub mask: u32,
    /// Nonzero to negate the match (`! --mark`).
    pub invert: u8,
}

/// Info of the `MARK` target, revision 2 (`struct xt_mark_tginfo2`): sets
/// `skb->mark = (skb->mark & !mask) ^ mark`. `--set-xmark value/mask` maps directly;
/// `--set-mark v/m` is `mark = v, mask = m | v`; `--and-mark m` is `mark = 0, mask = !m`;
/// `--or-mark m` is `mark = m, mask = m`; `--xor-mark m` is `mark = m, mask = 0`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_mark_tginfo2 {
    /// Bits XORed into the mark after masking.
    pub mark: u32,
    /// Bits of the mark cleared first.
    pub mask: u32,
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
        assert_layout!(xt_mark_mtinfo1, 12, 4);
        assert_layout!(xt_mark_tginfo2, 8, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_mark_mtinfo1, 12, 4, 16);
        assert_layout!(xt_mark_tginfo2, 8, 4, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_mark_mtinfo1, 12, 4, 12);
        assert_layout!(xt_mark_tginfo2, 8, 4, 8);
    }
}
