//! The tier 2 matches: statistic, recent, owner, limit, icmp, icmp6, length, pkttype, physdev, iprange, mac, socket.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

#[path = "icmp.rs"]
pub mod icmp;
#[path = "iprange.rs"]
pub mod iprange;
#[path = "length.rs"]
pub mod length;
#[path = "limit.rs"]
pub mod limit;
#[path = "mac.rs"]
pub mod mac;
#[path = "owner.rs"]
pub mod owner;
#[path = "physdev.rs"]
pub mod physdev;
#[path = "pkttype.rs"]
pub mod pkttype;
#[path = "recent.rs"]
pub mod recent;
#[path = "socket.rs"]
pub mod socket;
#[path = "statistic.rs"]
pub mod statistic;
#[path = "xtnum.rs"]
pub mod xtnum;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[
    &statistic::DESC,
    &recent::DESC,
    &owner::DESC,
    &limit::DESC,
    &icmp::ICMP,
    &icmp::ICMP6,
    &length::DESC,
    &pkttype::DESC,
    &physdev::DESC,
    &iprange::DESC,
    &mac::DESC,
    &socket::DESC,
];
