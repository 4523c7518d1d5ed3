//! `srh` match (`ip6t_srh.h`, IPv6 only): the fields of the IPv6 Segment Routing Header
//! (`--srh-next-hdr`, `--srh-hdr-len-eq|gt|lt`, `--srh-segs-left-eq|gt|lt`,
//! `--srh-last-entry-eq|gt|lt`, `--srh-tag`, and in revision 1 `--srh-psid`, `--srh-nsid`,
//! `--srh-lsid`).

use super::inet_addr::nf_inet_addr;

/// `mt_flags`: test the Next Header field.
pub const IP6T_SRH_NEXTHDR: u16 = 0x0001;
/// `mt_flags`: Hdr Ext Len equal to `hdr_len`.
pub const IP6T_SRH_LEN_EQ: u16 = 0x0002;
/// `mt_flags`: Hdr Ext Len greater than `hdr_len`.
pub const IP6T_SRH_LEN_GT: u16 = 0x0004;
/// `mt_flags`: Hdr Ext Len less than `hdr_len`.
pub const IP6T_SRH_LEN_LT: u16 = 0x0008;
/// `mt_flags`: Segments Left equal to `segs_left`.
pub const IP6T_SRH_SEGS_EQ: u16 = 0x0010;
/// `mt_flags`: Segments Left greater than `segs_left`.
pub const IP6T_SRH_SEGS_GT: u16 = 0x0020;
/// `mt_flags`: Segments Left less than `segs_left`.
pub const IP6T_SRH_SEGS_LT: u16 = 0x0040;
/// `mt_flags`: Last Entry equal to `last_entry`.
pub const IP6T_SRH_LAST_EQ: u16 = 0x0080;
/// `mt_flags`: Last Entry greater than `last_entry`.
pub const IP6T_SRH_LAST_GT: u16 = 0x0100;
/// `mt_flags`: Last Entry less than `last_entry`.
pub const IP6T_SRH_LAST_LT: u16 = 0x0200;
/// `mt_flags`: test the Tag field.
pub const IP6T_SRH_TAG: u16 = 0x0400;
/// `mt_flags`: test the previous SID (revision 1).
pub const IP6T_SRH_PSID: u16 = 0x0800;
/// `mt_flags`: test the next SID (revision 1).
pub const IP6T_SRH_NSID: u16 = 0x1000;
/// `mt_flags`: test the last SID (revision 1).
pub const IP6T_SRH_LSID: u16 = 0x2000;
/// Every `mt_flags` bit.
pub const IP6T_SRH_MASK: u16 = 0x3FFF;

/// `mt_invflags`: every bit negates the test of the same bit of `mt_flags`
/// (`IP6T_SRH_INV_NEXTHDR` … `IP6T_SRH_INV_LSID` have the values of `IP6T_SRH_*`).
pub const IP6T_SRH_INV_MASK: u16 = 0x3FFF;

/// Info of the `srh` match, revision 0 (`struct ip6t_srh`): 10 bytes, 2-aligned.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_srh {
    /// Next Header value.
    pub next_hdr: u8,
    /// Hdr Ext Len value.
    pub hdr_len: u8,
    /// Segments Left value.
    pub segs_left: u8,
    /// Last Entry value.
    pub last_entry: u8,
    /// Tag value.
    pub tag: u16,
    /// `IP6T_SRH_*` tests present.
    pub mt_flags: u16,
    /// `IP6T_SRH_INV_*` tests negated.
    pub mt_invflags: u16,
}

/// Info of the `srh` match, revision 1 (`struct ip6t_srh1`): revision 0's fields with the
/// previous, next and last SID of the segment list and their masks; 108 bytes, 4-aligned.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_srh1 {
    /// Next Header value.
    pub next_hdr: u8,
    /// Hdr Ext Len value.
    pub hdr_len: u8,
    /// Segments Left value.
    pub segs_left: u8,
    /// Last Entry value.
    pub last_entry: u8,
    /// Tag value.
    pub tag: u16,
    /// Previous SID (`struct in6_addr`).
    pub psid_addr: nf_inet_addr,
    /// Next SID.
    pub nsid_addr: nf_inet_addr,
    /// Last SID.
    pub lsid_addr: nf_inet_addr,
    /// Mask of `psid_addr`.
    pub psid_msk: nf_inet_addr,
    /// Mask of `nsid_addr`.
    pub nsid_msk: nf_inet_addr,
    /// Mask of `lsid_addr`.
    pub lsid_msk: nf_inet_addr,
    /// `IP6T_SRH_*` tests present.
    pub mt_flags: u16,
    /// `IP6T_SRH_INV_*` tests negated.
    pub mt_invflags: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and offsetof taken from the kernel UAPI headers with gcc 12.2 on
    // x86_64 (the same with `gcc -m32`).
    #[test]
    fn layout() {
        assert_layout!(ip6t_srh, 10, 2);
        assert_offset!(ip6t_srh, tag, 4);
        assert_offset!(ip6t_srh, mt_flags, 6);
        assert_offset!(ip6t_srh, mt_invflags, 8);
        assert_layout!(ip6t_srh1, 108, 4);
        assert_offset!(ip6t_srh1, psid_addr, 8);
        assert_offset!(ip6t_srh1, lsid_msk, 88);
        assert_offset!(ip6t_srh1, mt_flags, 104);
        assert_offset!(ip6t_srh1, mt_invflags, 106);
    }
}
