//! `SECMARK` target (`xt_SECMARK.h`): set the packet's security mark from an SELinux
//! context (`--selctx`).

/// [`xt_secmark_target_info_v1::mode`] of SELinux (`SECMARK_MODE_SEL`).
pub const SECMARK_MODE_SEL: u8 = 0x01;
/// Size of the context fields, NUL included (`SECMARK_SECCTX_MAX`).
pub const SECMARK_SECCTX_MAX: usize = 256;

/// Info of the `SECMARK` target, revision 0 (`struct xt_secmark_target_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_secmark_target_info {
    /// [`SECMARK_MODE_SEL`].
    pub mode: u8,
    /// The security id; the kernel fills it in from `secctx`, send zero.
    pub secid: u32,
    /// The security context (`--selctx`), NUL-terminated.
    pub secctx: [u8; SECMARK_SECCTX_MAX],
}

impl Default for xt_secmark_target_info {
    fn default() -> Self {
        Self {
            mode: 0,
            secid: 0,
            secctx: [0; SECMARK_SECCTX_MAX],
        }
    }
}

/// Info of the `SECMARK` target, revision 1 (`struct xt_secmark_target_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_secmark_target_info_v1 {
    /// [`SECMARK_MODE_SEL`].
    pub mode: u8,
    /// The security context (`--selctx`), NUL-terminated.
    pub secctx: [u8; SECMARK_SECCTX_MAX],
    /// The security id; the kernel fills it in from `secctx`, send zero.
    pub secid: u32,
}

impl Default for xt_secmark_target_info_v1 {
    fn default() -> Self {
        Self {
            mode: 0,
            secctx: [0; SECMARK_SECCTX_MAX],
            secid: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64; no pointer, so the same on i386.
    #[test]
    fn layout() {
        assert_layout!(xt_secmark_target_info, 264, 4, 264);
        assert_offset!(xt_secmark_target_info, secid, 4);
        assert_offset!(xt_secmark_target_info, secctx, 8);
        assert_layout!(xt_secmark_target_info_v1, 264, 4, 264);
        assert_offset!(xt_secmark_target_info_v1, secctx, 1);
        assert_offset!(xt_secmark_target_info_v1, secid, 260);
    }
}
