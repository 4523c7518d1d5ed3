//! The tier 2 matches: statistic, recent, owner, limit, icmp, icmp6, length, pkttype, physdev, iprange, mac, socket.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[];
