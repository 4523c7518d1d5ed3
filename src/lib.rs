//! # iptnl
//!
//! Program Linux netfilter by speaking nf_tables netlink to the kernel directly: no iptables
//! binary, no fork per rule, no xtables lock. Every change is one atomic nftables batch.
//!
//! Layers, lowest first (each calls only the one below):
//! - [`iptnl_sys`]: the kernel ABI (constants and `#[repr(C)]` structs);
//! - [`netlink`]: socket, messages, attributes, batches, dumps, generation ids;
//! - [`nft`]: the nftables object model (tables, chains, rules, expressions, sets);
//! - [`ipt`]: the iptables rule model (parse, encode, decode, print, save), pure: no I/O;
//! - [`memory`]: an in-memory nf_tables with the kernel's semantics, reached through the
//!   same netlink bytes, for tests without root;
//! - [`iptables`]: the agent layer: the [`IpTables`] handle, the one planner every command
//!   goes through, restore, transactions, the cache.
//!
//! `ARCHITECTURE.md` at the root of the repository says which way data flows and where a new
//! extension, command or backend goes.
#![deny(missing_docs)]

pub use ipt::IpFamily;
pub use iptables::sync;
pub use iptables::{Error, IpTables, Position, Transaction};
pub use iptnl_sys as sys;

#[doc(hidden)]
pub mod fuzzing;
pub mod ipt;
pub mod iptables;
pub mod memory;
pub mod netlink;
pub mod netns;
pub mod nft;
pub mod workload;
