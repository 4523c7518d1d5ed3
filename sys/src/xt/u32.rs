//! `u32` match (`xt_u32.h`): tests on 32-bit words read from the packet (`--u32 tests`).

/// The most tests, locations and values (`XT_U32_MAXSIZE`; the arrays hold one more).
pub const XT_U32_MAXSIZE: usize = 10;
/// Location operator `&` (`XT_U32_AND`).
pub const XT_U32_AND: u8 = 0;
/// Location operator `<<` (`XT_U32_LEFTSH`).
pub const XT_U32_LEFTSH: u8 = 1;
/// Location operator `>>` (`XT_U32_RIGHTSH`).
pub const XT_U32_RIGHTSH: u8 = 2;
/// Location operator `@` (`XT_U32_AT`).
pub const XT_U32_AT: u8 = 3;

/// One step of a location (`struct xt_u32_location_element`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_u32_location_element {
    /// The operand.
    pub number: u32,
    /// `XT_U32_*`: how it combines with what comes before.
    pub nextop: u8,
}

/// One value range (`struct xt_u32_value_element`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_u32_value_element {
    /// Smallest value.
    pub min: u32,
    /// Largest value.
    pub max: u32,
}

/// One test: a location and the values it may have (`struct xt_u32_test`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_u32_test {
    /// The location steps.
    pub location: [xt_u32_location_element; XT_U32_MAXSIZE + 1],
    /// The value ranges.
    pub value: [xt_u32_value_element; XT_U32_MAXSIZE + 1],
    /// How many location steps.
    pub nnums: u8,
    /// How many value ranges.
    pub nvalues: u8,
}

/// Info of the `u32` match, revision 0 (`struct xt_u32`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_u32 {
    /// The tests, all of which must hold.
    pub tests: [xt_u32_test; XT_U32_MAXSIZE + 1],
    /// How many tests.
    pub ntests: u8,
    /// Nonzero to negate the match.
    pub invert: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, offsetof and XT_ALIGN(sizeof) taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_u32_location_element, 8, 4);
        assert_layout!(xt_u32_value_element, 8, 4);
        assert_layout!(xt_u32_test, 180, 4);
        assert_offset!(xt_u32_test, value, 88);
        assert_offset!(xt_u32_test, nnums, 176);
        assert_offset!(xt_u32_test, nvalues, 177);
        assert_offset!(xt_u32, ntests, 1980);
        assert_offset!(xt_u32, invert, 1981);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_u32, 1984, 4, 1984);
    }
}
