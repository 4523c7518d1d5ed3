//! Owned chains that heal themselves: an agent declares the chains it owns and the hook
//! rules that jump into them, and [`sync`] makes the kernel say exactly that, in one atomic
//! batch, touching nothing else.
//!
//! - **Ownership.** Chains whose name starts with the [`Owner`]'s prefix are the agent's,
//!   rules and all. Hook rules (in built-in or other chains) are the agent's when their
//!   comment starts with the owner's marker: each is written with
//!   `-m comment --comment "MARKER:HASH"`, `HASH` being a short hash of the rule, so that a
//!   rule someone modified is seen as not the declared one.
//! - **Smallest change.** [`sync`] reads the owned chains and the chains that hold hooks
//!   through the handle's cache, keeps every rule that can stay (in order, with its
//!   counters), deletes the others, inserts what is missing at its place, creates and
//!   deletes owned chains, and commits all of it as one batch carrying the generation it
//!   was computed from: if anyone changed the ruleset meanwhile, nothing is applied and the
//!   change is computed again. With nothing to change, no batch is sent.
//! - **Removal.** [`remove`] deletes every owned chain and hook rule of the given tables in
//!   one batch.
//! - **Guard.** [`Guard`] re-syncs when a kernel event touches what is owned (see
//!   [`guard`]).
//!
//! ```no_run
//! use iptnl::iptables::IpTables;
//! use iptnl::ipt::IpFamily;
//! use iptnl::sync::{sync, Desired, Owner};
//! use iptnl::Position;
//! let ipt = IpTables::new(IpFamily::V4)?;
//! let mut d = Desired::new(IpFamily::V4, Owner::new("FLANNEL-", "flannel")?);
//! d.chain("nat", "FLANNEL-POSTRTG", &[
//!     "-s 10.244.0.0/16 -d 10.244.0.0/16 -j RETURN",
//!     "-s 10.244.0.0/16 ! -d 224.0.0.0/4 -j MASQUERADE --random-fully",
//! ])?;
//! d.hook("nat", "POSTROUTING", Position::First, "-j FLANNEL-POSTRTG")?;
//! let report = sync(&ipt, &d)?;
//! println!("{report}");
//! # Ok::<(), iptnl::iptables::Error>(())
//! ```

mod desired;
pub(crate) mod diff;
pub mod guard;
mod owner;
mod plan;
mod report;

pub use desired::Desired;
pub use guard::{Guard, GuardOptions, GuardStats};
pub use owner::Owner;
pub use report::SyncReport;

use super::plan::Op;
use super::{Error, IpTables};
use desired::table_checked;
use plan::{plan_table, read_state, Phases};

/// Makes the kernel hold exactly what `desired` declares for its owner in the tables it
/// names (see the [module](self) documentation), in one batch; returns what changed.
/// Nothing else is touched. A refusal (an owned chain that others' rules still jump to, a
/// missing extension…) applies nothing and says which change failed.
///
/// ```no_run
/// # use iptnl::sync::{Desired, Owner};
/// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
/// let d = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("X-", "x")?);
/// assert!(!iptnl::sync::sync(&ipt, &d)?.changed());
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
pub fn sync(ipt: &IpTables, desired: &Desired) -> Result<SyncReport, Error> {
    if desired.family != ipt.family {
        return Err(Error::Invalid(format!(
            "the declaration is for {:?} and the handle for {:?}",
            desired.family, ipt.family
        )));
    }
    let tables: Vec<&str> = desired.tables().collect();
    // The rules are compared and written in the forms of the handle's reader floor.
    let floor = ipt.reader_floor();
    if desired.floor != floor {
        let d = desired.at_floor(floor)?;
        return apply(ipt, Some(&d), &desired.owner, &tables);
    }
    apply(ipt, Some(desired), &desired.owner, &tables)
}

/// Deletes every chain and hook rule `owner` has in `tables`, in one batch, leaving every
/// other rule as it is. Hook rules are looked for in every chain of those tables.
///
/// ```no_run
/// # use iptnl::sync::Owner;
/// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
/// let r = iptnl::sync::remove(&ipt, &Owner::new("FLANNEL-", "flannel")?, &["nat", "filter"])?;
/// println!("{r}");
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
pub fn remove(ipt: &IpTables, owner: &Owner, tables: &[&str]) -> Result<SyncReport, Error> {
    for t in tables {
        table_checked(t)?;
    }
    apply(ipt, None, owner, tables)
}

fn apply(
    ipt: &IpTables,
    desired: Option<&Desired>,
    owner: &Owner,
    tables: &[&str],
) -> Result<SyncReport, Error> {
    let mut rep = SyncReport::default();
    let timeout = ipt.conflict_timeout();
    let start = std::time::Instant::now();
    loop {
        rep.counts_clear();
        rep.tries += 1;
        let (state, at) = read_state(ipt, desired, owner, tables)?;
        let mut ph = Phases {
            create: Vec::new(),
            fill: Vec::new(),
            hooks: Vec::new(),
            drop: Vec::new(),
        };
        for &t in tables {
            if let Some(now) = state.get(t) {
                let decl = desired.and_then(|d| d.tables.get(t));
                plan_table(owner, t, decl, now, &mut ph, &mut rep);
            }
        }
        let ops: Vec<Op<'static>> = ph
            .create
            .into_iter()
            .chain(ph.fill)
            .chain(ph.hooks)
            .chain(ph.drop)
            .collect();
        if ops.is_empty() {
            rep.generation = Some(at);
            return Ok(rep);
        }
        match ipt.run_pinned(&ops, at) {
            Ok(Some(_)) => {
                rep.committed = Some(at.wrapping_add(1));
                rep.generation = rep.committed;
                return Ok(rep);
            }
            Ok(None) => {
                if start.elapsed() >= timeout {
                    return Err(Error::Conflict { tries: rep.tries });
                }
                std::thread::sleep(super::plan::jitter(rep.tries - 1));
            }
            Err(f) => {
                let what =
                    f.op.and_then(|i| ops.get(i))
                        .map(Op::words)
                        .unwrap_or_else(|| "the batch".into());
                return Err(Error::Invalid(format!(
                    "sync of `{}' failed at `{what}': {}; nothing was applied",
                    owner.marker(),
                    f.error
                )));
            }
        }
    }
}
