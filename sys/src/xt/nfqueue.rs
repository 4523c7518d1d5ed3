//! `NFQUEUE` target (`xt_NFQUEUE.h`): hand the packet to a userspace queue
//! (`--queue-num`, `--queue-balance`, `--queue-bypass`, `--queue-cpu-fanout`).

/// `flags` (revision 3; `bypass` of revision 2): accept the packet when no program
/// listens on the queue (`--queue-bypass`).
pub const NFQ_FLAG_BYPASS: u16 = 0x01;
/// `flags`: choose the queue by current CPU, not by hash (`--queue-cpu-fanout`).
pub const NFQ_FLAG_CPU_FANOUT: u16 = 0x02;
/// All valid `flags` bits.
pub const NFQ_FLAG_MASK: u16 = 0x03;

bitflags::bitflags! {
    /// `flags` of [`xt_NFQ_info_v3`] (`NFQ_FLAG_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct NfqueueFlags: u16 {
        /// `--queue-bypass`.
        const BYPASS = NFQ_FLAG_BYPASS;
        /// `--queue-cpu-fanout`.
        const CPU_FANOUT = NFQ_FLAG_CPU_FANOUT;
    }
}

/// Info of the `NFQUEUE` target, revision 0 (`struct xt_NFQ_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_NFQ_info {
    /// Queue number (`--queue-num`).
    pub queuenum: u16,
}

/// Info of the `NFQUEUE` target, revision 1 (`struct xt_NFQ_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_NFQ_info_v1 {
    /// First queue number.
    pub queuenum: u16,
    /// Number of queues to balance over (`--queue-balance first:last` is
    /// `last - first + 1`), 1 for a single queue.
    pub queues_total: u16,
}

/// Info of the `NFQUEUE` target, revision 2 (`struct xt_NFQ_info_v2`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_NFQ_info_v2 {
    /// First queue number.
    pub queuenum: u16,
    /// Number of queues to balance over, 1 for a single queue.
    pub queues_total: u16,
    /// `NFQ_FLAG_BYPASS` or 0 (`--queue-bypass`).
    pub bypass: u16,
}

/// Info of the `NFQUEUE` target, revision 3 (`struct xt_NFQ_info_v3`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_NFQ_info_v3 {
    /// First queue number.
    pub queuenum: u16,
    /// Number of queues to balance over, 1 for a single queue.
    pub queues_total: u16,
    /// `NFQ_FLAG_*` bits.
    pub flags: u16,
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
        assert_layout!(xt_NFQ_info, 2, 2);
        assert_layout!(xt_NFQ_info_v1, 4, 2);
        assert_layout!(xt_NFQ_info_v2, 6, 2);
        assert_layout!(xt_NFQ_info_v3, 6, 2);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_NFQ_info, 2, 2, 8);
        assert_layout!(xt_NFQ_info_v1, 4, 2, 8);
        assert_layout!(xt_NFQ_info_v2, 6, 2, 8);
        assert_layout!(xt_NFQ_info_v3, 6, 2, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_NFQ_info, 2, 2, 4);
        assert_layout!(xt_NFQ_info_v1, 4, 2, 4);
        assert_layout!(xt_NFQ_info_v2, 6, 2, 8);
        assert_layout!(xt_NFQ_info_v3, 6, 2, 8);
    }
}
