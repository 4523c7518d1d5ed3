//! `comment` match (`xt_comment.h`): attaches a comment to a rule; it always matches.

/// Longest comment, including the NUL (`--comment` takes at most 255 characters).
pub const XT_MAX_COMMENT_LEN: usize = 256;

/// Info of the `comment` match, revision 0 (`struct xt_comment_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_comment_info {
    /// The comment text, NUL-terminated and NUL-padded.
    pub comment: [u8; XT_MAX_COMMENT_LEN],
}

impl Default for xt_comment_info {
    fn default() -> Self {
        Self {
            comment: [0; XT_MAX_COMMENT_LEN],
        }
    }
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
        assert_layout!(xt_comment_info, 256, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_comment_info, 256, 1, 256);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_comment_info, 256, 1, 256);
    }
}
