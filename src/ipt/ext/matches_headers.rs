//! The header and rate matches: hashlimit, connlimit, rpfilter, ttl, hl, dscp, tos, helper, and the IPv6 header matches frag, hbh, dst, rt, ah, esp, ipv6header, mh.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[];
