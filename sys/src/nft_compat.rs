//! nf_tables compat bridge to x_tables (`include/uapi/linux/netfilter/nf_tables_compat.h`):
//! attributes of the `match` and `target` expressions and of revision queries.
//!
//! ```
//! use iptnl_sys::nft_compat::*;
//! assert_eq!(NFTA_MATCH_INFO, 3);
//! ```

/// `match` expression attribute: unspecified.
pub const NFTA_MATCH_UNSPEC: u16 = 0;
/// `match` expression attribute: x_tables match name (NLA_NUL_STRING).
pub const NFTA_MATCH_NAME: u16 = 1;
/// `match` expression attribute: revision (NLA_U32, big endian).
pub const NFTA_MATCH_REV: u16 = 2;
/// `match` expression attribute: the match's info struct, `XT_ALIGN`ed (NLA_BINARY).
pub const NFTA_MATCH_INFO: u16 = 3;

/// `target` expression attribute: unspecified.
pub const NFTA_TARGET_UNSPEC: u16 = 0;
/// `target` expression attribute: x_tables target name (NLA_NUL_STRING).
pub const NFTA_TARGET_NAME: u16 = 1;
/// `target` expression attribute: revision (NLA_U32, big endian).
pub const NFTA_TARGET_REV: u16 = 2;
/// `target` expression attribute: the target's info struct, `XT_ALIGN`ed (NLA_BINARY).
pub const NFTA_TARGET_INFO: u16 = 3;

/// Longest x_tables extension name, including the NUL.
pub const NFT_COMPAT_NAME_MAX: usize = 32;

/// Compat message: query whether an extension revision exists.
pub const NFNL_MSG_COMPAT_GET: u16 = 0;

/// Compat query attribute: unspecified.
pub const NFTA_COMPAT_UNSPEC: u16 = 0;
/// Compat query attribute: extension name (NLA_NUL_STRING).
pub const NFTA_COMPAT_NAME: u16 = 1;
/// Compat query attribute: revision (NLA_U32, big endian).
pub const NFTA_COMPAT_REV: u16 = 2;
/// Compat query attribute: 1 for a target, 0 for a match (NLA_U32, big endian).
pub const NFTA_COMPAT_TYPE: u16 = 3;
