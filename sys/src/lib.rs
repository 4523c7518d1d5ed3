//! # iptnl-sys
//!
//! The Linux kernel ABI that iptnl speaks, written by hand from the kernel's UAPI headers:
//! netlink framing ([`netlink`]), nfnetlink ([`nfnetlink`]), nf_tables ([`nf_tables`]), the
//! nf_tables compat bridge to x_tables ([`nft_compat`]), netfilter core values ([`netfilter`]),
//! and the `#[repr(C)]` x_tables structs that iptables-nft sends inside compat `match` and
//! `target` expressions ([`xt`]).
//!
//! This crate holds no logic: constants, plain structs and flag sets only. Every struct has a
//! size and alignment test against the value the kernel's own headers give.
//!
//! ```
//! use iptnl_sys::{nfnetlink, nf_tables};
//! // The type of an nf_tables message in nlmsghdr is (subsystem << 8) | message.
//! let ty = (nfnetlink::NFNL_SUBSYS_NFTABLES << 8) | nf_tables::NFT_MSG_NEWRULE;
//! assert_eq!(ty, 0x0a06);
//! ```
#![no_std]
#![deny(missing_docs)]

pub mod netfilter;
pub mod netlink;
pub mod nf_tables;
pub mod nfnetlink;
pub mod nft_compat;
pub mod xt;
