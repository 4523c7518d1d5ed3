//! nfnetlink: the netfilter netlink multiplexer (`include/uapi/linux/netfilter/nfnetlink.h`).
//!
//! Every nfnetlink message starts with [`nfgenmsg`] after the `nlmsghdr`; its type is
//! `(subsystem << 8) | message`. Batches are framed by [`NFNL_MSG_BATCH_BEGIN`] and
//! [`NFNL_MSG_BATCH_END`].
//!
//! ```
//! use iptnl_sys::nfnetlink::*;
//! assert_eq!(nfnl_msg_type(NFNL_SUBSYS_NFTABLES, 6), 0x0a06);
//! assert_eq!(nfnl_subsys_id(0x0a06), NFNL_SUBSYS_NFTABLES);
//! ```

/// nfnetlink version carried in [`nfgenmsg::version`].
pub const NFNETLINK_V0: u8 = 0;

/// Subsystem: none.
pub const NFNL_SUBSYS_NONE: u16 = 0;
/// Subsystem: conntrack.
pub const NFNL_SUBSYS_CTNETLINK: u16 = 1;
/// Subsystem: conntrack expectations.
pub const NFNL_SUBSYS_CTNETLINK_EXP: u16 = 2;
/// Subsystem: nfqueue.
pub const NFNL_SUBSYS_QUEUE: u16 = 3;
/// Subsystem: nflog (ulog).
pub const NFNL_SUBSYS_ULOG: u16 = 4;
/// Subsystem: osf.
pub const NFNL_SUBSYS_OSF: u16 = 5;
/// Subsystem: ipset.
pub const NFNL_SUBSYS_IPSET: u16 = 6;
/// Subsystem: nfacct.
pub const NFNL_SUBSYS_ACCT: u16 = 7;
/// Subsystem: conntrack timeouts.
pub const NFNL_SUBSYS_CTNETLINK_TIMEOUT: u16 = 8;
/// Subsystem: conntrack helpers.
pub const NFNL_SUBSYS_CTHELPER: u16 = 9;
/// Subsystem: nf_tables.
pub const NFNL_SUBSYS_NFTABLES: u16 = 10;
/// Subsystem: nf_tables compat (x_tables revision queries).
pub const NFNL_SUBSYS_NFT_COMPAT: u16 = 11;
/// Subsystem: netfilter hooks listing.
pub const NFNL_SUBSYS_HOOK: u16 = 12;
/// Number of subsystems.
pub const NFNL_SUBSYS_COUNT: u16 = 13;

/// Message type that opens a batch (`NLMSG_MIN_TYPE`).
pub const NFNL_MSG_BATCH_BEGIN: u16 = 0x10;
/// Message type that closes a batch (`NLMSG_MIN_TYPE + 1`).
pub const NFNL_MSG_BATCH_END: u16 = 0x11;

/// Batch attribute: unspecified.
pub const NFNL_BATCH_UNSPEC: u16 = 0;
/// Batch attribute: generation ID for this changeset (NLA_U32, big endian); the batch is
/// refused with `ERESTART` if the ruleset generation differs.
pub const NFNL_BATCH_GENID: u16 = 1;

/// Multicast group: none.
pub const NFNLGRP_NONE: u32 = 0;
/// Multicast group: new conntrack entries.
pub const NFNLGRP_CONNTRACK_NEW: u32 = 1;
/// Multicast group: updated conntrack entries.
pub const NFNLGRP_CONNTRACK_UPDATE: u32 = 2;
/// Multicast group: destroyed conntrack entries.
pub const NFNLGRP_CONNTRACK_DESTROY: u32 = 3;
/// Multicast group: new expectations.
pub const NFNLGRP_CONNTRACK_EXP_NEW: u32 = 4;
/// Multicast group: updated expectations.
pub const NFNLGRP_CONNTRACK_EXP_UPDATE: u32 = 5;
/// Multicast group: destroyed expectations.
pub const NFNLGRP_CONNTRACK_EXP_DESTROY: u32 = 6;
/// Multicast group: nf_tables ruleset changes.
pub const NFNLGRP_NFTABLES: u32 = 7;
/// Multicast group: nfacct quota.
pub const NFNLGRP_ACCT_QUOTA: u32 = 8;
/// Multicast group: nf_tables trace events.
pub const NFNLGRP_NFTRACE: u32 = 9;

/// The nfnetlink header that follows `nlmsghdr` (`struct nfgenmsg`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct nfgenmsg {
    /// Address family (`NFPROTO_*`).
    pub nfgen_family: u8,
    /// [`NFNETLINK_V0`].
    pub version: u8,
    /// Resource id, big endian: the subsystem in batch messages, the low 16 bits of the
    /// ruleset generation in nf_tables replies.
    pub res_id: u16,
}

/// Builds an nfnetlink message type from a subsystem and a message.
pub const fn nfnl_msg_type(subsys: u16, msg: u16) -> u16 {
    (subsys << 8) | msg
}

/// The subsystem of an nfnetlink message type.
pub const fn nfnl_subsys_id(ty: u16) -> u16 {
    (ty & 0xff00) >> 8
}

/// The message part of an nfnetlink message type.
pub const fn nfnl_msg_id(ty: u16) -> u16 {
    ty & 0x00ff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfgenmsg_matches_the_kernel() {
        assert_eq!(core::mem::size_of::<nfgenmsg>(), 4);
        assert_eq!(core::mem::align_of::<nfgenmsg>(), 2);
    }
}
