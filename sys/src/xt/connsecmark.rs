//! `CONNSECMARK` target (`xt_CONNSECMARK.h`): copy the security mark between the packet and
//! its connection (`--save`, `--restore`).

/// [`xt_connsecmark_target_info::mode`] of `--save` (`CONNSECMARK_SAVE`).
pub const CONNSECMARK_SAVE: u8 = 1;
/// [`xt_connsecmark_target_info::mode`] of `--restore` (`CONNSECMARK_RESTORE`).
pub const CONNSECMARK_RESTORE: u8 = 2;

/// Info of the `CONNSECMARK` target, revision 0 (`struct xt_connsecmark_target_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connsecmark_target_info {
    /// [`CONNSECMARK_SAVE`] or [`CONNSECMARK_RESTORE`].
    pub mode: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the kernel UAPI headers with gcc 12.2
    // on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_connsecmark_target_info, 1, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_connsecmark_target_info, 1, 1, 8);
    }
}
