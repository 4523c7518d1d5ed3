//! `realm` match (`xt_realm.h`): the routing realm of the packet's route (`--realm
//! value[/mask]`; IPv4 only).

/// Info of the `realm` match, revision 0 (`struct xt_realm_info`): the test is
/// `(realm & mask) == id`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_realm_info {
    /// Realm value.
    pub id: u32,
    /// Realm mask (all ones when none is given).
    pub mask: u32,
    /// Nonzero to negate the match (`! --realm`).
    pub invert: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the kernel UAPI headers with gcc 12.2
    // on x86_64, and with `gcc -m32` for the i386 numbers.
    #[test]
    fn layout() {
        assert_layout!(xt_realm_info, 12, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_realm_info, 12, 4, 16);
    }
}
