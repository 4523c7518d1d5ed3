//! The targets: NAT (MASQUERADE, SNAT, DNAT, REDIRECT), REJECT, LOG, NFLOG, CT/NOTRACK, TPROXY, TCPMSS, NFQUEUE, CHECKSUM, CLASSIFY, TRACE, AUDIT, DSCP, TOS.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[];
