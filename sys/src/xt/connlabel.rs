//! `connlabel` match (`xt_connlabel.h`): a conntrack label bit (`--label`, `--set`).

/// The highest label bit (`XT_CONNLABEL_MAXBIT`).
pub const XT_CONNLABEL_MAXBIT: u16 = 127;
/// `! --label` (`XT_CONNLABEL_OP_INVERT`).
pub const XT_CONNLABEL_OP_INVERT: u16 = 1 << 0;
/// `--set`: set the label on the connection (`XT_CONNLABEL_OP_SET`).
pub const XT_CONNLABEL_OP_SET: u16 = 1 << 1;

/// Info of the `connlabel` match, revision 0 (`struct xt_connlabel_mtinfo`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connlabel_mtinfo {
    /// The label bit.
    pub bit: u16,
    /// `XT_CONNLABEL_OP_*` bits.
    pub options: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the kernel UAPI headers with gcc 12.2
    // on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_connlabel_mtinfo, 4, 2);
        assert_offset!(xt_connlabel_mtinfo, options, 2);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_connlabel_mtinfo, 4, 2, 8);
    }
}
