//! `connlimit` match (`xt_connlimit.h`): number of connections per address group
//! (`--connlimit-upto`, `--connlimit-above`, `--connlimit-mask`, `--connlimit-saddr`,
//! `--connlimit-daddr`).

use super::inet_addr::nf_inet_addr;
use super::x_tables::AlignedKernelPtr;

/// `flags`: match when the count is above the limit (`--connlimit-above`); clear means
/// up to the limit.
pub const XT_CONNLIMIT_INVERT: u32 = 1 << 0;
/// `flags`: group connections by destination address (`--connlimit-daddr`); clear means
/// by source.
pub const XT_CONNLIMIT_DADDR: u32 = 1 << 1;

bitflags::bitflags! {
    /// `flags` of [`xt_connlimit_info`] (`XT_CONNLIMIT_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ConnlimitFlags: u32 {
        /// `--connlimit-above`.
        const INVERT = XT_CONNLIMIT_INVERT;
        /// `--connlimit-daddr`.
        const DADDR = XT_CONNLIMIT_DADDR;
    }
}

/// Info of the `connlimit` match, revisions 0 and 1 (`struct xt_connlimit_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connlimit_info {
    /// Netmask grouping addresses (`--connlimit-mask`), network byte order; the C union
    /// also names it `v4_mask` / `v6_mask[4]`.
    pub mask: nf_inet_addr,
    /// Connection count limit.
    pub limit: u32,
    /// `XT_CONNLIMIT_*` bits (revision 1).
    pub flags: u32,
    /// Kernel-private `struct nf_conncount_data *data __attribute__((aligned(8)))`; send
    /// zero.
    pub data: AlignedKernelPtr,
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
        assert_layout!(xt_connlimit_info, 32, 8);
        assert_offset!(xt_connlimit_info, data, 24);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_connlimit_info, 32, 8, 32);
        assert_offset!(xt_connlimit_info, data, 24);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_connlimit_info, 32, 8, 32);
        assert_offset!(xt_connlimit_info, data, 24);
    }
}
