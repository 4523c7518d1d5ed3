//! `ULOG` target (`linux/netfilter_ipv4/ipt_ULOG.h`, which iptables still ships though
//! kernels since 3.17 lack the target): send the packet to a netlink group
//! (`--ulog-nlgroup`, `--ulog-prefix`, `--ulog-cprange`, `--ulog-qthreshold`).

/// Default `nl_group` (group 1).
pub const ULOG_DEFAULT_NLGROUP: u32 = 1;
/// Default `qthreshold`.
pub const ULOG_DEFAULT_QTHRESHOLD: u64 = 1;
/// The largest `qthreshold`.
pub const ULOG_MAX_QLEN: u64 = 50;
/// Size of [`ipt_ulog_info::prefix`], NUL included.
pub const ULOG_PREFIX_LEN: usize = 32;

/// Info of the `ULOG` target, revision 0 (`struct ipt_ulog_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_ulog_info {
    /// The netlink group as a bit mask (`1 << (group - 1)`).
    pub nl_group: u32,
    /// Bytes of the packet to copy (`--ulog-cprange`, 0 for all); a `size_t`.
    pub copy_range: usize,
    /// Packets to queue in the kernel before sending (`--ulog-qthreshold`); a `size_t`.
    pub qthreshold: usize,
    /// Log prefix (`--ulog-prefix`), NUL-terminated.
    pub prefix: [u8; ULOG_PREFIX_LEN],
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from iptables' copy of the
    // header with gcc 12.2 on x86_64.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout() {
        assert_layout!(ipt_ulog_info, 56, 8, 56);
        assert_offset!(ipt_ulog_info, copy_range, 8);
        assert_offset!(ipt_ulog_info, qthreshold, 16);
        assert_offset!(ipt_ulog_info, prefix, 24);
    }
}
