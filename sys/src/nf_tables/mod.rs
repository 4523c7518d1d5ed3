//! nf_tables netlink ABI: message types, attribute types and the values carried inside
//! attributes, as in the kernel's `include/uapi/linux/netfilter/nf_tables.h`.
//!
//! Conventions: message types (`NFT_MSG_*`) and attribute types (`NFTA_*`) are `u16`, as they
//! travel in `nlmsghdr.nlmsg_type` (low byte) and `nlattr.nla_type`. Values carried inside
//! attributes (registers, operators, keys, flags) are `u32`, sent big-endian. Verdict codes are
//! `i32` because the nf_tables verdicts are negative.
//!
//! ```
//! use iptnl_sys::nf_tables::*;
//! assert_eq!(NFT_MSG_NEWRULE, 6);
//! assert_eq!(NFTA_RULE_EXPRESSIONS, 4);
//! assert_eq!(NFT_JUMP, -3);
//! ```
//!
//! One file per part of the header: [`ruleset`] (registers, verdicts, message types, tables,
//! chains, rules, sets, data), [`expr`] (the expressions' attributes and values) and
//! [`objects`] (stateful objects, flowtables, tracing, tunnels); everything is re-exported
//! here.

pub mod expr;
pub mod objects;
pub mod ruleset;
#[cfg(test)]
mod tests;

pub use expr::*;
pub use objects::*;
pub use ruleset::*;

/// Longest name of a table, chain, set or object, including the NUL.
pub const NFT_NAME_MAXLEN: usize = 256;
/// Longest table name, including the NUL.
pub const NFT_TABLE_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Longest chain name, including the NUL.
pub const NFT_CHAIN_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Longest set name, including the NUL.
pub const NFT_SET_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Longest object name, including the NUL.
pub const NFT_OBJ_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Largest `NFTA_*_USERDATA` payload the kernel accepts.
pub const NFT_USERDATA_MAXLEN: usize = 256;
/// Longest OS genre name for the `osf` expression.
pub const NFT_OSF_MAXGENRELEN: usize = 16;
/// Size of one of the four legacy 16-byte data registers.
pub const NFT_REG_SIZE: usize = 16;
/// Size of one of the sixteen 4-byte data registers.
pub const NFT_REG32_SIZE: usize = 4;
/// Number of 4-byte data registers.
pub const NFT_REG32_COUNT: usize = 16;
/// Longest value an `NFTA_DATA_VALUE` may carry.
pub const NFT_DATA_VALUE_MAXLEN: usize = 64;
/// Mask of `nft_data_types` values reserved for internal types (verdicts).
pub const NFT_DATA_RESERVED_MASK: u32 = 0xffff_ff00;
/// Alias of `NFT_BITWISE_MASK_XOR`.
pub const NFT_BITWISE_BOOL: u32 = NFT_BITWISE_MASK_XOR;
/// Alias of `NFT_META_IFTYPE`.
pub const NFT_META_IIFTYPE: u32 = NFT_META_IFTYPE;
/// Queue flag: bypass when no userspace listener (compatibility with NFQUEUE v2).
pub const NFT_QUEUE_FLAG_BYPASS: u32 = 0x01;
/// Queue flag: use the current CPU instead of hashing.
pub const NFT_QUEUE_FLAG_CPU_FANOUT: u32 = 0x02;
/// All valid queue flags.
pub const NFT_QUEUE_FLAG_MASK: u32 = 0x03;
/// Largest security context for the `secmark` object.
pub const NFT_SECMARK_CTX_MAXLEN: usize = 4096;
/// Stateful object type: none.
pub const NFT_OBJECT_UNSPEC: u32 = 0;
/// Stateful object type: counter.
pub const NFT_OBJECT_COUNTER: u32 = 1;
/// Stateful object type: quota.
pub const NFT_OBJECT_QUOTA: u32 = 2;
/// Stateful object type: conntrack helper.
pub const NFT_OBJECT_CT_HELPER: u32 = 3;
/// Stateful object type: limit.
pub const NFT_OBJECT_LIMIT: u32 = 4;
/// Stateful object type: connlimit.
pub const NFT_OBJECT_CONNLIMIT: u32 = 5;
/// Stateful object type: tunnel.
pub const NFT_OBJECT_TUNNEL: u32 = 6;
/// Stateful object type: conntrack timeout policy.
pub const NFT_OBJECT_CT_TIMEOUT: u32 = 7;
/// Stateful object type: secmark.
pub const NFT_OBJECT_SECMARK: u32 = 8;
/// Stateful object type: conntrack expectation.
pub const NFT_OBJECT_CT_EXPECT: u32 = 9;
/// Stateful object type: synproxy.
pub const NFT_OBJECT_SYNPROXY: u32 = 10;
