//! Entry points for the fuzz targets (`fuzz/` at the root of the repository), and for the
//! regression tests of what they found: the few internal steps that read input others wrote
//! and that the public API reaches only through a kernel. Not part of the API: nothing here
//! is stable, and nothing here should be used by anything but tests.
//!
//! ```
//! use iptnl::fuzzing::{MemRuleset, plan_restore};
//! use iptnl::ipt::{IpFamily, NoSets};
//! use iptnl::iptables::restore::RestoreOptions;
//! let ruleset = MemRuleset::new(IpFamily::V4, 7);
//! let input = "*filter\n:INPUT DROP [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n";
//! let (batch, report) = plan_restore(&ruleset, input, &RestoreOptions::default(), &NoSets).unwrap();
//! assert_eq!(report.rules_added, 1);
//! assert!(!batch.is_empty());
//! ```

mod events;
mod memview;

pub use events::FollowedCache;
pub use memview::{plan_restore, MemRuleset};

/// Makes every host name of a rule unknown, as if the resolver found none, instead of
/// asking the system's resolver (which may wait on the network: a fuzz input must take
/// milliseconds). Numeric addresses are read as before.
///
/// ```
/// use iptnl::ipt::{parse_rule, IpFamily};
/// iptnl::fuzzing::no_host_lookups();
/// assert!(parse_rule(IpFamily::V4, &["-s", "example.invalid"]).is_err());
/// assert!(parse_rule(IpFamily::V4, &["-s", "10.0.0.1"]).is_ok());
/// ```
pub fn no_host_lookups() {
    crate::ipt::addr::HOST_LOOKUPS.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// Expressions as the round-trip checks compare them: each in the form the kernel takes on
/// input, counters' values aside (a rule read back is the same rule whatever it counted).
///
/// ```
/// use iptnl::fuzzing::comparable;
/// use iptnl::nft::expr::Counter;
/// use iptnl::nft::Expr;
/// let a: Vec<Expr> = vec![Counter { packets: 3, bytes: 9 }.into()];
/// let b: Vec<Expr> = vec![Counter::default().into()];
/// assert_eq!(comparable(&a), comparable(&b));
/// ```
pub fn comparable(exprs: &[crate::nft::Expr]) -> Vec<crate::nft::Expr> {
    use crate::nft::expr::Counter;
    use crate::nft::Expr;
    exprs
        .iter()
        .map(|e| match e {
            Expr::Counter(_) => Expr::Counter(Counter::default()),
            e => e.input_form().unwrap_or_else(|| e.clone()),
        })
        .collect()
}
