//! `SNPT` and `DNPT` targets (`ip6t_NPT.h`): IPv6-to-IPv6 network prefix translation
//! (RFC 6296; `--src-pfx`, `--dst-pfx`).

use super::inet_addr::nf_inet_addr;

/// Info of the `SNPT` and `DNPT` targets, revision 0 (`struct ip6t_npt_tginfo`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_npt_tginfo {
    /// The prefix translated from (`--src-pfx`).
    pub src_pfx: nf_inet_addr,
    /// The prefix translated to (`--dst-pfx`).
    pub dst_pfx: nf_inet_addr,
    /// Length of `src_pfx`.
    pub src_pfx_len: u8,
    /// Length of `dst_pfx`.
    pub dst_pfx_len: u8,
    /// The checksum adjustment; the kernel computes it, send zero.
    pub adjustment: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(ip6t_npt_tginfo, 36, 4);
        assert_offset!(ip6t_npt_tginfo, src_pfx_len, 32);
        assert_offset!(ip6t_npt_tginfo, dst_pfx_len, 33);
        assert_offset!(ip6t_npt_tginfo, adjustment, 34);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ip6t_npt_tginfo, 36, 4, 40);
    }
}
