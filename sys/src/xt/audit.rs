//! `AUDIT` target (`xt_AUDIT.h`): write an audit record for the packet (`--type`).

/// `type`: the packet is accepted (`--type accept`).
pub const XT_AUDIT_TYPE_ACCEPT: u8 = 0;
/// `type`: the packet is dropped (`--type drop`).
pub const XT_AUDIT_TYPE_DROP: u8 = 1;
/// `type`: the packet is rejected (`--type reject`).
pub const XT_AUDIT_TYPE_REJECT: u8 = 2;
/// Highest valid `type`.
pub const XT_AUDIT_TYPE_MAX: u8 = XT_AUDIT_TYPE_REJECT;

/// Info of the `AUDIT` target, revision 0 (`struct xt_audit_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_audit_info {
    /// `XT_AUDIT_TYPE_*` (checked against `XT_AUDIT_TYPE_MAX`; recent kernels no longer
    /// put it in the record).
    pub r#type: u8,
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
        assert_layout!(xt_audit_info, 1, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_audit_info, 1, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_audit_info, 1, 1, 4);
    }
}
