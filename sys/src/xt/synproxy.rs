//! `SYNPROXY` target (`xt_SYNPROXY.h`, `nf_synproxy.h`): answer TCP SYNs with SYN cookies and
//! open the connection to the server only once the client completed the handshake
//! (`--mss`, `--wscale`, `--sack-perm`, `--timestamp`, `--ecn`).

/// [`xt_synproxy_info::options`]: `mss` is set (`XT_SYNPROXY_OPT_MSS`).
pub const XT_SYNPROXY_OPT_MSS: u8 = 0x01;
/// [`xt_synproxy_info::options`]: `wscale` is set (`XT_SYNPROXY_OPT_WSCALE`).
pub const XT_SYNPROXY_OPT_WSCALE: u8 = 0x02;
/// [`xt_synproxy_info::options`]: selective ACKs are permitted (`XT_SYNPROXY_OPT_SACK_PERM`).
pub const XT_SYNPROXY_OPT_SACK_PERM: u8 = 0x04;
/// [`xt_synproxy_info::options`]: timestamps (`XT_SYNPROXY_OPT_TIMESTAMP`).
pub const XT_SYNPROXY_OPT_TIMESTAMP: u8 = 0x08;
/// [`xt_synproxy_info::options`]: ECN (`XT_SYNPROXY_OPT_ECN`).
pub const XT_SYNPROXY_OPT_ECN: u8 = 0x10;

/// Info of the `SYNPROXY` target, revision 0 (`struct xt_synproxy_info`, that is
/// `struct nf_synproxy_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_synproxy_info {
    /// `XT_SYNPROXY_OPT_*` bits.
    pub options: u8,
    /// Window scale factor announced (`--wscale`).
    pub wscale: u8,
    /// MSS announced (`--mss`), host byte order.
    pub mss: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_synproxy_info, 4, 2);
        assert_offset!(xt_synproxy_info, wscale, 1);
        assert_offset!(xt_synproxy_info, mss, 2);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_synproxy_info, 4, 2, 8);
    }
}
