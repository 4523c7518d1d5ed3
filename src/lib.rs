//! # iptnl
//!
//! Program Linux netfilter by speaking nf_tables netlink to the kernel directly: no iptables
//! binary, no fork per rule, no xtables lock. Every change is one atomic nftables batch.
//!
//! Layers, lowest first (each calls only the one below):
//! - [`iptnl_sys`]: the kernel ABI (constants and `#[repr(C)]` structs);
//! - [`netlink`]: socket, messages, attributes, batches, dumps, generation ids;
//! - [`nft`]: the nftables object model (tables, chains, rules, expressions, sets).
#![deny(missing_docs)]

pub use iptables::IpTables;
pub use iptnl_sys as sys;

pub mod ipt;
pub mod iptables;
pub mod netlink;
pub mod netns;
pub mod nft;
pub mod workload;
