//! IPv6 extension header matches: `frag` (`ip6t_frag.h`), `hbh`/`dst` (`ip6t_opts.h`),
//! `rt` (`ip6t_rt.h`), `ipv6header` (`ip6t_ipv6header.h`) and `mh` (`ip6t_mh.h`).

use super::inet_addr::nf_inet_addr;

/// `ip6t_frag.flags`: test the identification range (`--fragid`).
pub const IP6T_FRAG_IDS: u8 = 0x01;
/// `ip6t_frag.flags`: test the header length (`--fraglen`).
pub const IP6T_FRAG_LEN: u8 = 0x02;
/// `ip6t_frag.flags`: the reserved fields must be zero (`--fragres`).
pub const IP6T_FRAG_RES: u8 = 0x04;
/// `ip6t_frag.flags`: first fragment (`--fragfirst`).
pub const IP6T_FRAG_FST: u8 = 0x08;
/// `ip6t_frag.flags`: more fragments follow (`--fragmore`).
pub const IP6T_FRAG_MF: u8 = 0x10;
/// `ip6t_frag.flags`: last fragment (`--fraglast`).
pub const IP6T_FRAG_NMF: u8 = 0x20;
/// `ip6t_frag.invflags`: negate the identification test.
pub const IP6T_FRAG_INV_IDS: u8 = 0x01;
/// `ip6t_frag.invflags`: negate the length test.
pub const IP6T_FRAG_INV_LEN: u8 = 0x02;
/// `ip6t_frag.invflags`: all valid bits.
pub const IP6T_FRAG_INV_MASK: u8 = 0x03;

/// Most options an `ip6t_opts` can list.
pub const IP6T_OPTS_OPTSNR: usize = 16;
/// `ip6t_opts.flags`: test the header length (`--hbh-len`, `--dst-len`).
pub const IP6T_OPTS_LEN: u8 = 0x01;
/// `ip6t_opts.flags`: test the options (`--hbh-opts`, `--dst-opts`).
pub const IP6T_OPTS_OPTS: u8 = 0x02;
/// `ip6t_opts.flags`: the listed options need not be the only ones, nor in order.
pub const IP6T_OPTS_NSTRICT: u8 = 0x04;
/// `ip6t_opts.invflags`: negate the length test.
pub const IP6T_OPTS_INV_LEN: u8 = 0x01;
/// `ip6t_opts.invflags`: all valid bits.
pub const IP6T_OPTS_INV_MASK: u8 = 0x01;

/// Most addresses an `ip6t_rt` can list.
pub const IP6T_RT_HOPS: usize = 16;
/// `ip6t_rt.flags`: test the routing type (`--rt-type`).
pub const IP6T_RT_TYP: u8 = 0x01;
/// `ip6t_rt.flags`: test segments left (`--rt-segsleft`).
pub const IP6T_RT_SGS: u8 = 0x02;
/// `ip6t_rt.flags`: test the header length (`--rt-len`).
pub const IP6T_RT_LEN: u8 = 0x04;
/// `ip6t_rt.flags`: the reserved field must be zero (`--rt-0-res`).
pub const IP6T_RT_RES: u8 = 0x08;
/// `ip6t_rt.flags`: mask of the address-list mode bits.
pub const IP6T_RT_FST_MASK: u8 = 0x30;
/// `ip6t_rt.flags`: test the type-0 address list strictly (`--rt-0-addrs`).
pub const IP6T_RT_FST: u8 = 0x10;
/// `ip6t_rt.flags`: test the address list non-strictly (`--rt-0-not-strict`).
pub const IP6T_RT_FST_NSTRICT: u8 = 0x20;
/// `ip6t_rt.invflags`: negate the type test.
pub const IP6T_RT_INV_TYP: u8 = 0x01;
/// `ip6t_rt.invflags`: negate the segments-left test.
pub const IP6T_RT_INV_SGS: u8 = 0x02;
/// `ip6t_rt.invflags`: negate the length test.
pub const IP6T_RT_INV_LEN: u8 = 0x04;
/// `ip6t_rt.invflags`: all valid bits.
pub const IP6T_RT_INV_MASK: u8 = 0x07;

/// `ip6t_ipv6header_info` header bit: hop-by-hop options (`hop`).
pub const MASK_HOPOPTS: u8 = 128;
/// `ip6t_ipv6header_info` header bit: destination options (`dst`).
pub const MASK_DSTOPTS: u8 = 64;
/// `ip6t_ipv6header_info` header bit: routing header (`route`).
pub const MASK_ROUTING: u8 = 32;
/// `ip6t_ipv6header_info` header bit: fragment header (`frag`).
pub const MASK_FRAGMENT: u8 = 16;
/// `ip6t_ipv6header_info` header bit: authentication header (`auth`).
pub const MASK_AH: u8 = 8;
/// `ip6t_ipv6header_info` header bit: ESP header (`esp`).
pub const MASK_ESP: u8 = 4;
/// `ip6t_ipv6header_info` header bit: no next header (`none`).
pub const MASK_NONE: u8 = 2;
/// `ip6t_ipv6header_info` header bit: a layer-4 protocol header (`prot`).
pub const MASK_PROTO: u8 = 1;

/// `ip6t_mh.invflags`: negate the type test.
pub const IP6T_MH_INV_TYPE: u8 = 0x01;
/// `ip6t_mh.invflags`: all valid bits.
pub const IP6T_MH_INV_MASK: u8 = 0x01;

/// Info of the `frag` match, revision 0 (`struct ip6t_frag`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_frag {
    /// Identification range `[min, max]` (`--fragid`), host byte order.
    pub ids: [u32; 2],
    /// Header length (`--fraglen`).
    pub hdrlen: u32,
    /// `IP6T_FRAG_*` test bits.
    pub flags: u8,
    /// `IP6T_FRAG_INV_*` bits.
    pub invflags: u8,
}

/// Info of the `hbh` and `dst` matches, revision 0 (`struct ip6t_opts`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_opts {
    /// Header length (`--hbh-len`, `--dst-len`).
    pub hdrlen: u32,
    /// `IP6T_OPTS_*` test bits.
    pub flags: u8,
    /// `IP6T_OPTS_INV_*` bits.
    pub invflags: u8,
    /// Options, each `type << 8 | length` (length 0xff when not given).
    pub opts: [u16; IP6T_OPTS_OPTSNR],
    /// Number of entries used in `opts`.
    pub optsnr: u8,
}

/// Info of the `rt` match, revision 0 (`struct ip6t_rt`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_rt {
    /// Routing header type (`--rt-type`).
    pub rt_type: u32,
    /// Segments-left range `[min, max]` (`--rt-segsleft`).
    pub segsleft: [u32; 2],
    /// Header length (`--rt-len`).
    pub hdrlen: u32,
    /// `IP6T_RT_*` test bits.
    pub flags: u8,
    /// `IP6T_RT_INV_*` bits.
    pub invflags: u8,
    /// Type-0 addresses (`--rt-0-addrs`): C `struct in6_addr`s, which have the layout of
    /// [`nf_inet_addr`] (16 bytes, 4-aligned, network byte order).
    pub addrs: [nf_inet_addr; IP6T_RT_HOPS],
    /// Number of entries used in `addrs`.
    pub addrnr: u8,
}

/// Info of the `ipv6header` match, revision 0 (`struct ip6t_ipv6header_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_ipv6header_info {
    /// Headers that must be present: `MASK_*` bits (`--header`).
    pub matchflags: u8,
    /// Headers whose test is negated: `MASK_*` bits (`! --header` negates all).
    pub invflags: u8,
    /// Nonzero: the listed headers must be present and others may be too (`--soft`); zero:
    /// exactly the listed headers.
    pub modeflag: u8,
}

/// Info of the `mh` match, revision 0 (`struct ip6t_mh`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_mh {
    /// Mobility header type range `[min, max]` (`--mh-type`).
    pub types: [u8; 2],
    /// `IP6T_MH_INV_*` bits.
    pub invflags: u8,
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
        assert_layout!(ip6t_frag, 16, 4);
        assert_layout!(ip6t_opts, 40, 4);
        assert_layout!(ip6t_rt, 280, 4);
        assert_layout!(ip6t_ipv6header_info, 3, 1);
        assert_layout!(ip6t_mh, 3, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ip6t_frag, 16, 4, 16);
        assert_layout!(ip6t_opts, 40, 4, 40);
        assert_layout!(ip6t_rt, 280, 4, 280);
        assert_layout!(ip6t_ipv6header_info, 3, 1, 8);
        assert_layout!(ip6t_mh, 3, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(ip6t_frag, 16, 4, 16);
        assert_layout!(ip6t_opts, 40, 4, 40);
        assert_layout!(ip6t_rt, 280, 4, 280);
        assert_layout!(ip6t_ipv6header_info, 3, 1, 4);
        assert_layout!(ip6t_mh, 3, 1, 4);
    }
}
