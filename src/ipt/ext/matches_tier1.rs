//! The tier 1 matches and their targets: mark/MARK, conntrack/state, addrtype, multiport, set/SET, connmark/CONNMARK.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

#[path = "addrtype.rs"]
pub mod addrtype;
#[path = "connmark.rs"]
pub mod connmark;
#[path = "conntrack.rs"]
pub mod conntrack;
#[path = "mark.rs"]
pub mod mark;
#[path = "multiport.rs"]
pub mod multiport;
#[path = "set.rs"]
pub mod set;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[
    &mark::MATCH,
    &mark::TARGET,
    &conntrack::CONNTRACK,
    &conntrack::STATE,
    &addrtype::DESC,
    &multiport::DESC,
    &set::MATCH,
    &set::TARGET,
    &connmark::MATCH,
    &connmark::TARGET,
];
