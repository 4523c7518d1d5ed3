//! The tier 1 matches and their targets: mark/MARK, conntrack/state, addrtype, multiport, set/SET, connmark/CONNMARK.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[];
