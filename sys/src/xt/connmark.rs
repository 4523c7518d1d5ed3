//! `connmark` match and `CONNMARK` target (`xt_connmark.h`, `xt_CONNMARK.h`): the mark of
//! the connection tracking entry (ct->mark).

/// `CONNMARK` mode: set the connection mark (`--set-xmark`, `--set-mark`, `--and-mark`, …).
pub const XT_CONNMARK_SET: u8 = 0;
/// `CONNMARK` mode: copy the packet mark to the connection mark (`--save-mark`).
pub const XT_CONNMARK_SAVE: u8 = 1;
/// `CONNMARK` mode: copy the connection mark to the packet mark (`--restore-mark`).
pub const XT_CONNMARK_RESTORE: u8 = 2;

/// `CONNMARK` revision 2 `shift_dir`: shift the mark left.
pub const D_SHIFT_LEFT: u8 = 0;
/// `CONNMARK` revision 2 `shift_dir`: shift the mark right.
pub const D_SHIFT_RIGHT: u8 = 1;

/// Info of the `connmark` match, revision 1 (`struct xt_connmark_mtinfo1`): matches when
/// `(ct->mark & mask) == mark` (`--mark value[/mask]`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connmark_mtinfo1 {
    /// Value compared with the masked connection mark.
    pub mark: u32,
    /// Mask applied to the connection mark (`0xffffffff` when none is given).
    pub mask: u32,
    /// Nonzero to negate the match (`! --mark`).
    pub invert: u8,
}

/// Info of the `CONNMARK` target, revision 1 (`struct xt_connmark_tginfo1`).
///
/// `XT_CONNMARK_SET`: `ct->mark = (ct->mark & !ctmask) ^ ctmark`.
/// `XT_CONNMARK_SAVE`: `ct->mark = (ct->mark & !ctmask) ^ (skb->mark & nfmask)`.
/// `XT_CONNMARK_RESTORE`: `skb->mark = (skb->mark & !nfmask) ^ (ct->mark & ctmask)`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connmark_tginfo1 {
    /// Mark value XORed in (`XT_CONNMARK_SET`).
    pub ctmark: u32,
    /// Mask on the connection mark.
    pub ctmask: u32,
    /// Mask on the packet mark (`--nfmask`).
    pub nfmask: u32,
    /// `XT_CONNMARK_SET`, `XT_CONNMARK_SAVE` or `XT_CONNMARK_RESTORE`.
    pub mode: u8,
}

/// Info of the `CONNMARK` target, revision 2 (`struct xt_connmark_tginfo2`): revision 1
/// plus a shift applied to the copied mark (`--left-shift-mark`, `--right-shift-mark`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connmark_tginfo2 {
    /// Mark value XORed in (`XT_CONNMARK_SET`).
    pub ctmark: u32,
    /// Mask on the connection mark.
    pub ctmask: u32,
    /// Mask on the packet mark (`--nfmask`).
    pub nfmask: u32,
    /// `D_SHIFT_LEFT` or `D_SHIFT_RIGHT`.
    pub shift_dir: u8,
    /// Number of bits to shift (0 for none).
    pub shift_bits: u8,
    /// `XT_CONNMARK_SET`, `XT_CONNMARK_SAVE` or `XT_CONNMARK_RESTORE`.
    pub mode: u8,
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
        assert_layout!(xt_connmark_mtinfo1, 12, 4);
        assert_layout!(xt_connmark_tginfo1, 16, 4);
        assert_layout!(xt_connmark_tginfo2, 16, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_connmark_mtinfo1, 12, 4, 16);
        assert_layout!(xt_connmark_tginfo1, 16, 4, 16);
        assert_layout!(xt_connmark_tginfo2, 16, 4, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_connmark_mtinfo1, 12, 4, 12);
        assert_layout!(xt_connmark_tginfo1, 16, 4, 16);
        assert_layout!(xt_connmark_tginfo2, 16, 4, 16);
    }
}
