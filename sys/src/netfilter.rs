//! Netfilter core values (`include/uapi/linux/netfilter.h`): verdicts, protocol families,
//! hooks and standard hook priorities.
//!
//! ```
//! use iptnl_sys::netfilter::*;
//! assert_eq!(NFPROTO_IPV6, 10);
//! assert_eq!(NF_ACCEPT, 1);
//! ```

/// Verdict: drop the packet.
pub const NF_DROP: i32 = 0;
/// Verdict: accept the packet.
pub const NF_ACCEPT: i32 = 1;
/// Verdict: the packet was taken over.
pub const NF_STOLEN: i32 = 2;
/// Verdict: queue the packet to userspace.
pub const NF_QUEUE: i32 = 3;
/// Verdict: call the hook again.
pub const NF_REPEAT: i32 = 4;
/// Verdict: deprecated stop.
pub const NF_STOP: i32 = 5;
/// The bits of a verdict code that hold the verdict (the rest carry a queue number or an
/// errno).
pub const NF_VERDICT_MASK: i32 = 0x0000_00ff;

/// Family: unspecified.
pub const NFPROTO_UNSPEC: u8 = 0;
/// Family: inet (IPv4 and IPv6).
pub const NFPROTO_INET: u8 = 1;
/// Family: IPv4.
pub const NFPROTO_IPV4: u8 = 2;
/// Family: ARP.
pub const NFPROTO_ARP: u8 = 3;
/// Family: netdev.
pub const NFPROTO_NETDEV: u8 = 5;
/// Family: bridge.
pub const NFPROTO_BRIDGE: u8 = 7;
/// Family: IPv6.
pub const NFPROTO_IPV6: u8 = 10;

/// Hook: prerouting.
pub const NF_INET_PRE_ROUTING: u32 = 0;
/// Hook: input (local in).
pub const NF_INET_LOCAL_IN: u32 = 1;
/// Hook: forward.
pub const NF_INET_FORWARD: u32 = 2;
/// Hook: output (local out).
pub const NF_INET_LOCAL_OUT: u32 = 3;
/// Hook: postrouting.
pub const NF_INET_POST_ROUTING: u32 = 4;
/// Number of inet hooks.
pub const NF_INET_NUMHOOKS: u32 = 5;
/// Hook: ingress (inet family).
pub const NF_INET_INGRESS: u32 = 5;
/// netdev hook: ingress.
pub const NF_NETDEV_INGRESS: u32 = 0;
/// netdev hook: egress.
pub const NF_NETDEV_EGRESS: u32 = 1;

/// Priority of the raw table.
pub const NF_IP_PRI_RAW: i32 = -300;
/// Priority of connection tracking (a nat chain must hook after it).
pub const NF_IP_PRI_CONNTRACK: i32 = -200;
/// Priority of the mangle table.
pub const NF_IP_PRI_MANGLE: i32 = -150;
/// Priority of destination NAT.
pub const NF_IP_PRI_NAT_DST: i32 = -100;
/// Priority of the filter table.
pub const NF_IP_PRI_FILTER: i32 = 0;
/// Priority of the security table.
pub const NF_IP_PRI_SECURITY: i32 = 50;
/// Priority of source NAT.
pub const NF_IP_PRI_NAT_SRC: i32 = 100;
