//! `NFLOG` target (`xt_NFLOG.h`): send the packet to a netlink log group
//! (`--nflog-group`, `--nflog-prefix`, `--nflog-size`, `--nflog-threshold`).

/// Default `group`.
pub const XT_NFLOG_DEFAULT_GROUP: u16 = 0x1;
/// Default `threshold`.
pub const XT_NFLOG_DEFAULT_THRESHOLD: u16 = 0;
/// All valid `flags` bits.
pub const XT_NFLOG_MASK: u16 = 0x1;
/// `flags`: `len` is set (`--nflog-size`; `--nflog-range` leaves it unset).
pub const XT_NFLOG_F_COPY_LEN: u16 = 0x1;

/// Info of the `NFLOG` target, revision 0 (`struct xt_nflog_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_nflog_info {
    /// Bytes of the packet to copy to userspace; used only with `XT_NFLOG_F_COPY_LEN`.
    pub len: u32,
    /// Netlink log group (`--nflog-group`, 0 to 65535).
    pub group: u16,
    /// Packets to queue in the kernel before sending (`--nflog-threshold`).
    pub threshold: u16,
    /// `XT_NFLOG_F_*` bits.
    pub flags: u16,
    /// Padding; send zero.
    pub pad: u16,
    /// Log prefix (`--nflog-prefix`, up to 63 characters), NUL-terminated.
    pub prefix: [u8; 64],
}

impl Default for xt_nflog_info {
    fn default() -> Self {
        Self {
            len: 0,
            group: 0,
            threshold: 0,
            flags: 0,
            pad: 0,
            prefix: [0; 64],
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
        assert_layout!(xt_nflog_info, 76, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_nflog_info, 76, 4, 80);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_nflog_info, 76, 4, 76);
    }
}
