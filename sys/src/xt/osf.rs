//! `osf` match (`xt_osf.h`): the operating system of a TCP peer, by passive fingerprinting
//! (`--genre`, `--ttl`, `--log`).

/// Size of the genre buffer (`MAXGENRELEN`).
pub const MAXGENRELEN: usize = 32;
/// A genre is given (`XT_OSF_GENRE`).
pub const XT_OSF_GENRE: u32 = 1 << 0;
/// `--ttl` is given (`XT_OSF_TTL`).
pub const XT_OSF_TTL: u32 = 1 << 1;
/// `--log` is given (`XT_OSF_LOG`).
pub const XT_OSF_LOG: u32 = 1 << 2;
/// `! --genre` (`XT_OSF_INVERT`).
pub const XT_OSF_INVERT: u32 = 1 << 3;

/// Info of the `osf` match, revision 0 (`struct xt_osf_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_osf_info {
    /// The genre, NUL-terminated.
    pub genre: [u8; MAXGENRELEN],
    /// Its length.
    pub len: u32,
    /// `XT_OSF_*` bits.
    pub flags: u32,
    /// `--log` level.
    pub loglevel: u32,
    /// `--ttl` level.
    pub ttl: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, offsetof and XT_ALIGN(sizeof) taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_osf_info, 48, 4);
        assert_offset!(xt_osf_info, len, 32);
        assert_offset!(xt_osf_info, ttl, 44);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_osf_info, 48, 4, 48);
    }
}
