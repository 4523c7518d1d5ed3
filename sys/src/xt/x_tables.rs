//! x_tables basics (`include/uapi/linux/netfilter/x_tables.h`): name lengths, the `XT_ALIGN`
//! padding rule for match and target infos, counters, and the slot type for the
//! kernel-private pointers that close several info structs.

/// Longest x_tables function (error target) name, including the NUL.
pub const XT_FUNCTION_MAXNAMELEN: usize = 30;
/// Longest match or target extension name, including the NUL.
pub const XT_EXTENSION_MAXNAMELEN: usize = 29;
/// Longest x_tables table name, including the NUL.
pub const XT_TABLE_MAXNAMELEN: usize = 32;

/// Size of an interface name buffer, including the NUL (`IFNAMSIZ`, `linux/if.h`).
pub const IFNAMSIZ: usize = 16;
/// Longest file name, in bytes (`NAME_MAX`, `linux/limits.h`).
pub const NAME_MAX: usize = 255;
/// Longest path, including the NUL (`PATH_MAX`, `linux/limits.h`).
pub const PATH_MAX: usize = 4096;
/// Length of an Ethernet address (`ETH_ALEN`, `linux/if_ether.h`).
pub const ETH_ALEN: usize = 6;

/// `ipt_ip.invflags` / `ip6t_ip6.invflags` bit: invert the sense of the protocol test
/// (`! -p`).
pub const XT_INV_PROTO: u8 = 0x40;

/// The kernel's dummy `struct _xt_align`: a struct holding every fundamental type used in
/// rule entries, whose alignment is the unit `XT_ALIGN` rounds up to (8 on x86_64 and other
/// 64-bit targets, 4 on i386 where a `u64` member is 4-aligned).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct _xt_align {
    /// A `__u8` member.
    pub u8: u8,
    /// A `__u16` member.
    pub u16: u16,
    /// A `__u32` member.
    pub u32: u32,
    /// A `__u64` member.
    pub u64: u64,
}

/// `__alignof__(struct _xt_align)`: the unit every match and target info is padded to.
pub const XT_ALIGNMENT: usize = core::mem::align_of::<_xt_align>();

/// `XT_ALIGN(size)`: rounds `size` up to a multiple of [`XT_ALIGNMENT`]. iptables pads every
/// match and target info to this length before it sends it as `NFTA_MATCH_INFO` or
/// `NFTA_TARGET_INFO`, and the kernel checks the attribute length against it.
///
/// ```
/// use iptnl_sys::xt::xt_align;
/// # #[cfg(target_pointer_width = "64")]
/// assert_eq!(xt_align(10), 16);
/// assert_eq!(xt_align(0), 0);
/// ```
pub const fn xt_align(size: usize) -> usize {
    (size + XT_ALIGNMENT - 1) & !(XT_ALIGNMENT - 1)
}

/// Packet and byte counters of a rule (`struct xt_counters`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_counters {
    /// Packets matched.
    pub pcnt: u64,
    /// Bytes matched.
    pub bcnt: u64,
}

/// A kernel-private pointer declared `__attribute__((aligned(8)))` at the end of an info
/// struct (for example `struct nf_conn *ct` in `xt_ct_target_info`). Userspace sends zero and
/// the kernel fills it in when it checks the rule. The slot is 8-aligned and 8 bytes long on
/// every target: on 32-bit targets the pointer takes the first four bytes and four bytes of
/// padding follow, exactly as in C.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AlignedKernelPtr(pub usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xt_align_rounds_up() {
        assert_eq!(xt_align(0), 0);
        assert_eq!(xt_align(1), XT_ALIGNMENT);
        assert_eq!(xt_align(XT_ALIGNMENT), XT_ALIGNMENT);
        assert_eq!(xt_align(XT_ALIGNMENT + 1), 2 * XT_ALIGNMENT);
    }

    #[test]
    fn aligned_kernel_ptr() {
        // 8 bytes, 8-aligned on every target, like `void *p __attribute__((aligned(8)))`.
        assert_layout!(AlignedKernelPtr, 8, 8);
    }

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(_xt_align, 16, 8, 16);
        assert_layout!(xt_counters, 16, 8, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(_xt_align, 16, 4, 16);
        assert_layout!(xt_counters, 16, 4, 16);
    }
}
