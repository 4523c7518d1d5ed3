//! `LOG` target (`xt_LOG.h`, `ipt_LOG.h`, `ip6t_LOG.h`): log the packet to the kernel log
//! (`--log-level`, `--log-prefix`, `--log-tcp-sequence`, `--log-tcp-options`,
//! `--log-ip-options`, `--log-uid`, `--log-macdecode`).

/// `logflags`: log TCP sequence numbers (`--log-tcp-sequence`).
pub const XT_LOG_TCPSEQ: u8 = 0x01;
/// `logflags`: log TCP options (`--log-tcp-options`).
pub const XT_LOG_TCPOPT: u8 = 0x02;
/// `logflags`: log IP / IPv6 extension header options (`--log-ip-options`).
pub const XT_LOG_IPOPT: u8 = 0x04;
/// `logflags`: log the UID owning the local socket (`--log-uid`).
pub const XT_LOG_UID: u8 = 0x08;
/// `logflags`: unsupported, do not reuse.
pub const XT_LOG_NFLOG: u8 = 0x10;
/// `logflags`: decode the MAC header (`--log-macdecode`).
pub const XT_LOG_MACDECODE: u8 = 0x20;
/// All valid `logflags` bits.
pub const XT_LOG_MASK: u8 = 0x2f;

/// `ipt_LOG.h` name of `XT_LOG_TCPSEQ`.
pub const IPT_LOG_TCPSEQ: u8 = XT_LOG_TCPSEQ;
/// `ipt_LOG.h` name of `XT_LOG_TCPOPT`.
pub const IPT_LOG_TCPOPT: u8 = XT_LOG_TCPOPT;
/// `ipt_LOG.h` name of `XT_LOG_IPOPT`.
pub const IPT_LOG_IPOPT: u8 = XT_LOG_IPOPT;
/// `ipt_LOG.h` name of `XT_LOG_UID`.
pub const IPT_LOG_UID: u8 = XT_LOG_UID;
/// `ipt_LOG.h` name of `XT_LOG_NFLOG`.
pub const IPT_LOG_NFLOG: u8 = XT_LOG_NFLOG;
/// `ipt_LOG.h` name of `XT_LOG_MACDECODE`.
pub const IPT_LOG_MACDECODE: u8 = XT_LOG_MACDECODE;
/// `ipt_LOG.h` name of `XT_LOG_MASK`.
pub const IPT_LOG_MASK: u8 = XT_LOG_MASK;
/// `ip6t_LOG.h` name of `XT_LOG_TCPSEQ`.
pub const IP6T_LOG_TCPSEQ: u8 = XT_LOG_TCPSEQ;
/// `ip6t_LOG.h` name of `XT_LOG_TCPOPT`.
pub const IP6T_LOG_TCPOPT: u8 = XT_LOG_TCPOPT;
/// `ip6t_LOG.h` name of `XT_LOG_IPOPT`.
pub const IP6T_LOG_IPOPT: u8 = XT_LOG_IPOPT;
/// `ip6t_LOG.h` name of `XT_LOG_UID`.
pub const IP6T_LOG_UID: u8 = XT_LOG_UID;
/// `ip6t_LOG.h` name of `XT_LOG_NFLOG`.
pub const IP6T_LOG_NFLOG: u8 = XT_LOG_NFLOG;
/// `ip6t_LOG.h` name of `XT_LOG_MACDECODE`.
pub const IP6T_LOG_MACDECODE: u8 = XT_LOG_MACDECODE;
/// `ip6t_LOG.h` name of `XT_LOG_MASK`.
pub const IP6T_LOG_MASK: u8 = XT_LOG_MASK;

bitflags::bitflags! {
    /// `logflags` of [`xt_log_info`] (`XT_LOG_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LogFlags: u8 {
        /// `--log-tcp-sequence`.
        const TCPSEQ = XT_LOG_TCPSEQ;
        /// `--log-tcp-options`.
        const TCPOPT = XT_LOG_TCPOPT;
        /// `--log-ip-options`.
        const IPOPT = XT_LOG_IPOPT;
        /// `--log-uid`.
        const UID = XT_LOG_UID;
        /// `--log-macdecode`.
        const MACDECODE = XT_LOG_MACDECODE;
    }
}

/// Info of the `LOG` target, revision 0 (`struct xt_log_info`; `ipt_log_info` and
/// `ip6t_log_info` have the same layout).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_log_info {
    /// syslog level, 0 (emerg) to 7 (debug); iptables' default is 4 (warning).
    pub level: u8,
    /// `XT_LOG_*` bits.
    pub logflags: u8,
    /// Log prefix (`--log-prefix`, up to 29 characters), NUL-terminated.
    pub prefix: [u8; 30],
}

/// `struct ipt_log_info` (`ipt_LOG.h`): the same layout as [`xt_log_info`].
#[allow(non_camel_case_types)]
pub type ipt_log_info = xt_log_info;

/// `struct ip6t_log_info` (`ip6t_LOG.h`): the same layout as [`xt_log_info`].
#[allow(non_camel_case_types)]
pub type ip6t_log_info = xt_log_info;

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(xt_log_info, 32, 1);
        assert_layout!(ipt_log_info, 32, 1);
        assert_layout!(ip6t_log_info, 32, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_log_info, 32, 1, 32);
        assert_layout!(ipt_log_info, 32, 1, 32);
        assert_layout!(ip6t_log_info, 32, 1, 32);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_log_info, 32, 1, 32);
        assert_layout!(ipt_log_info, 32, 1, 32);
        assert_layout!(ip6t_log_info, 32, 1, 32);
    }
}
