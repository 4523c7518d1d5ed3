//! Address families of nf_tables tables.

use std::fmt;

use iptnl_sys::netfilter::*;

/// The family of a table: which packets its chains see.
///
/// ```
/// use iptnl::nft::Family;
/// assert_eq!(Family::Ipv4.to_string(), "ip");
/// assert_eq!(Family::from_raw(10), Some(Family::Ipv6));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// `ip`: IPv4 (iptables).
    Ipv4,
    /// `ip6`: IPv6 (ip6tables).
    Ipv6,
    /// `inet`: IPv4 and IPv6.
    Inet,
    /// `arp` (arptables).
    Arp,
    /// `bridge` (ebtables).
    Bridge,
    /// `netdev`: ingress/egress of devices.
    Netdev,
}

impl Family {
    /// Every family, in the order `nft list ruleset` prints them.
    pub const ALL: [Family; 6] = [
        Family::Ipv4,
        Family::Ipv6,
        Family::Inet,
        Family::Arp,
        Family::Bridge,
        Family::Netdev,
    ];

    /// The `NFPROTO_*` value.
    pub fn raw(self) -> u8 {
        match self {
            Family::Ipv4 => NFPROTO_IPV4,
            Family::Ipv6 => NFPROTO_IPV6,
            Family::Inet => NFPROTO_INET,
            Family::Arp => NFPROTO_ARP,
            Family::Bridge => NFPROTO_BRIDGE,
            Family::Netdev => NFPROTO_NETDEV,
        }
    }

    /// The family of an `NFPROTO_*` value.
    pub fn from_raw(v: u8) -> Option<Family> {
        Some(match v {
            NFPROTO_IPV4 => Family::Ipv4,
            NFPROTO_IPV6 => Family::Ipv6,
            NFPROTO_INET => Family::Inet,
            NFPROTO_ARP => Family::Arp,
            NFPROTO_BRIDGE => Family::Bridge,
            NFPROTO_NETDEV => Family::Netdev,
            _ => return None,
        })
    }

    /// The name `nft` uses.
    pub fn name(self) -> &'static str {
        match self {
            Family::Ipv4 => "ip",
            Family::Ipv6 => "ip6",
            Family::Inet => "inet",
            Family::Arp => "arp",
            Family::Bridge => "bridge",
            Family::Netdev => "netdev",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
