//! The targets: NAT (MASQUERADE, SNAT, DNAT, REDIRECT), REJECT, LOG, NFLOG, CT/NOTRACK, TPROXY, TCPMSS, NFQUEUE, CHECKSUM, CLASSIFY, TRACE, AUDIT, DSCP, TOS.
//!
//! Each extension lives in its own file next to this one, declared here with `#[path]`, and
//! is listed in [`LIST`].

use super::ExtDesc;

#[path = "audit.rs"]
pub mod audit;
#[path = "checksum.rs"]
pub mod checksum;
#[path = "classify.rs"]
pub mod classify;
#[path = "ct.rs"]
pub mod ct;
#[path = "dscp_target.rs"]
pub mod dscp_target;
#[path = "log.rs"]
pub mod log;
#[path = "nat.rs"]
pub mod nat;
#[path = "nflog.rs"]
pub mod nflog;
#[path = "nfqueue.rs"]
pub mod nfqueue;
#[path = "reject.rs"]
pub mod reject;
#[path = "tcpmss_target.rs"]
pub mod tcpmss_target;
#[path = "tgutil.rs"]
pub mod tgutil;
#[path = "tos_target.rs"]
pub mod tos_target;
#[path = "tproxy.rs"]
pub mod tproxy;
#[path = "trace.rs"]
pub mod trace;

/// The extensions of this group.
pub static LIST: &[&ExtDesc] = &[
    &nat::MASQUERADE,
    &nat::SNAT,
    &nat::DNAT,
    &nat::REDIRECT,
    &reject::DESC,
    &log::DESC,
    &nflog::DESC,
    &ct::CT,
    &ct::NOTRACK,
    &tproxy::DESC,
    &tcpmss_target::DESC,
    &nfqueue::DESC,
    &checksum::DESC,
    &classify::DESC,
    &trace::DESC,
    &audit::DESC,
    &dscp_target::DESC,
    &tos_target::DESC,
];
