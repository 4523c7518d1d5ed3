//! The x_tables extension infos that iptables-nft sends inside nf_tables compat `match` and
//! `target` expressions (`NFTA_MATCH_INFO` / `NFTA_TARGET_INFO`), with the constants and
//! flag values of each extension, written by hand from the kernel UAPI headers
//! (`linux/netfilter/xt_*.h`, `linux/netfilter_ipv4/ipt_*.h`,
//! `linux/netfilter_ipv6/ip6t_*.h`, `x_tables.h`, `nf_nat.h`, `nf_conntrack_*.h`,
//! `ipset/ip_set.h`).
//!
//! Structs keep their kernel names and field names (a field named with a Rust keyword is a
//! raw identifier, such as `r#match`). They are `#[repr(C)]` with the kernel's size and
//! alignment, checked by tests against numbers taken from the headers with gcc. `Default`
//! is all zero. Before sending an info, pad it with zeros to [`xt_align`] of its size, as
//! iptables does.
//!
//! Kernel-private pointers that end some infos are part of the size the kernel expects:
//! they are `usize` where the C field is a plain pointer or `unsigned long`, and
//! [`AlignedKernelPtr`] where it is declared `__attribute__((aligned(8)))`. Send them as
//! zero.
//!
//! Each extension family has its own module; everything is re-exported here, so
//! `iptnl_sys::xt::xt_comment_info` works.
//!
//! ```
//! use iptnl_sys::xt::*;
//! let info = xt_mark_mtinfo1 { mark: 0x1, mask: 0xffff_ffff, invert: 0 };
//! assert_eq!(core::mem::size_of_val(&info), 12);
//! # #[cfg(target_pointer_width = "64")]
//! assert_eq!(xt_align(core::mem::size_of::<xt_mark_mtinfo1>()), 16);
//! ```

/// Asserts `size_of`, `align_of` and, with a fourth number, `xt_align(size_of)` of a type.
#[cfg(test)]
macro_rules! assert_layout {
    ($t:ty, $size:expr, $align:expr) => {
        assert_eq!(
            core::mem::size_of::<$t>(),
            $size,
            concat!("size_of::<", stringify!($t), ">()")
        );
        assert_eq!(
            core::mem::align_of::<$t>(),
            $align,
            concat!("align_of::<", stringify!($t), ">()")
        );
    };
    ($t:ty, $size:expr, $align:expr, $xt:expr) => {
        assert_layout!($t, $size, $align);
        assert_eq!(
            $crate::xt::xt_align(core::mem::size_of::<$t>()),
            $xt,
            concat!("xt_align(size_of::<", stringify!($t), ">())")
        );
    };
}

/// Asserts `offset_of!(type, field)`.
#[cfg(test)]
macro_rules! assert_offset {
    ($t:ty, $f:tt, $off:expr) => {
        assert_eq!(
            core::mem::offset_of!($t, $f),
            $off,
            concat!("offset_of!(", stringify!($t), ", ", stringify!($f), ")")
        );
    };
}

pub mod addrtype;
pub mod audit;
pub mod bpf;
pub mod cgroup;
pub mod checksum;
pub mod classify;
pub mod cluster;
pub mod clusterip;
pub mod comment;
pub mod connbytes;
pub mod connlabel;
pub mod connlimit;
pub mod connmark;
pub mod connsecmark;
pub mod conntrack;
pub mod cpu;
pub mod ct;
pub mod dccp;
pub mod devgroup;
pub mod dscp;
pub mod ecn;
pub mod hashlimit;
pub mod helper;
pub mod hmark;
pub mod icmp;
pub mod idletimer;
pub mod inet_addr;
pub mod ipcomp;
pub mod iprange;
pub mod ipsec;
pub mod ipv6_ext;
pub mod ipvs;
pub mod led;
pub mod length;
pub mod limit;
pub mod log;
pub mod mac;
pub mod mark;
pub mod multiport;
pub mod nat;
pub mod nfacct;
pub mod nflog;
pub mod nfqueue;
pub mod npt;
pub mod osf;
pub mod owner;
pub mod physdev;
pub mod pkttype;
pub mod policy;
pub mod quota;
pub mod quota2;
pub mod rateest;
pub mod realm;
pub mod recent;
pub mod reject;
pub mod rpfilter;
pub mod sctp;
pub mod secmark;
pub mod set;
pub mod socket;
pub mod srh;
pub mod state;
pub mod statistic;
pub mod string;
pub mod synproxy;
pub mod tcpmss;
pub mod tcpoptstrip;
pub mod tcpudp;
pub mod tee;
pub mod time;
pub mod tproxy;
pub mod ttl_hl;
pub mod u32;
pub mod ulog;
pub mod x_tables;

pub use addrtype::*;
pub use audit::*;
pub use bpf::*;
pub use cgroup::*;
pub use checksum::*;
pub use classify::*;
pub use cluster::*;
pub use clusterip::*;
pub use comment::*;
pub use connbytes::*;
pub use connlabel::*;
pub use connlimit::*;
pub use connmark::*;
pub use connsecmark::*;
pub use conntrack::*;
pub use cpu::*;
pub use ct::*;
pub use dccp::*;
pub use devgroup::*;
pub use dscp::*;
pub use ecn::*;
pub use hashlimit::*;
pub use helper::*;
pub use hmark::*;
pub use icmp::*;
pub use idletimer::*;
pub use inet_addr::*;
pub use ipcomp::*;
pub use iprange::*;
pub use ipsec::*;
pub use ipv6_ext::*;
pub use ipvs::*;
pub use led::*;
pub use length::*;
pub use limit::*;
pub use log::*;
pub use mac::*;
pub use mark::*;
pub use multiport::*;
pub use nat::*;
pub use nfacct::*;
pub use nflog::*;
pub use nfqueue::*;
pub use npt::*;
pub use osf::*;
pub use owner::*;
pub use physdev::*;
pub use pkttype::*;
pub use policy::*;
pub use quota::*;
pub use quota2::*;
pub use rateest::*;
pub use realm::*;
pub use recent::*;
pub use reject::*;
pub use rpfilter::*;
pub use sctp::*;
pub use secmark::*;
pub use set::*;
pub use socket::*;
pub use srh::*;
pub use state::*;
pub use statistic::*;
pub use string::*;
pub use synproxy::*;
pub use tcpmss::*;
pub use tcpoptstrip::*;
pub use tcpudp::*;
pub use tee::*;
pub use time::*;
pub use tproxy::*;
pub use ttl_hl::*;
pub use u32::*;
pub use ulog::*;
pub use x_tables::*;
