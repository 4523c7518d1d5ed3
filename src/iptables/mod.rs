//! The `IpTables` handle: the familiar go-iptables API (append, insert, delete, check, list,
//! chains, policies …) on iptnl's kernel layer, with no `iptables` binary, no fork and no
//! lock file.
//!
//! Every call is one atomic nf_tables batch. Calls that depend on what a chain holds (check,
//! the unique variants, delete by spec or number, insert at a position after the first,
//! replace, zero) read that one chain only, send the generation id they read with the batch,
//! and plan again when the kernel says the ruleset moved meanwhile (after a jittered pause of
//! at most about a millisecond, for up to [`IpTables::set_conflict_timeout`], 60 s by default,
//! then [`Error::Conflict`]). Blind writes (append, insert at 1, new chain, flush, policy) read
//! nothing. Chains read are cached per generation: while
//! the generation id (one round trip) has not moved, nothing is dumped again.
//!
//! Built-in chains are created on first use as iptables-nft creates them: the table and that
//! one base chain, policy ACCEPT.
//!
//! ```no_run
//! use iptnl::iptables::IpTables;
//! use iptnl::ipt::IpFamily;
//! let ipt = IpTables::new(IpFamily::V4)?;
//! ipt.new_chain("nat", "MY-DNAT")?;
//! ipt.append_unique("nat", "PREROUTING", &["-p", "tcp", "--dport", "8080", "-j", "MY-DNAT"])?;
//! ipt.append("nat", "MY-DNAT", "-p tcp -j DNAT --to-destination 10.0.0.2:80")?;
//! assert!(ipt.exists("nat", "PREROUTING", &["-p", "tcp", "--dport", "8080", "-j", "MY-DNAT"])?);
//! for line in ipt.list("nat", "MY-DNAT")? { println!("{line}"); }
//! # Ok::<(), iptnl::iptables::Error>(())
//! ```

pub(crate) mod cache;
mod error;
pub(crate) mod events;
mod floor;
pub(crate) mod fnv;
mod format;
mod group;
pub mod ipset;
mod listing;
pub mod monitor;
pub(crate) mod plan;
mod position;
mod read;
mod readers;
pub mod restore;
pub mod save;
pub mod sync;
pub mod sysdb;
mod transaction;
mod write;

use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard};

pub use cache::FollowStats;
pub use error::{Error, What};
pub use floor::kernel_reader_floor;
pub use group::CommitStats;
pub use listing::TableText;
pub use plan::OpResult;
pub use position::Position;
pub use read::Stat;
pub use readers::{MisreadRule, ReadersReport};
pub use transaction::Transaction;

use cache::Cache;
use error::from_nft;
use plan::{At, DelMode, Op};

use crate::ipt::savefile::SAVE_VERSION;
use crate::ipt::{parse_rule_str_with, parse_rule_with, IpFamily, ParseError, RuleSpec};
use crate::iptables::restore::memo::RestoreMemo;
use crate::iptables::restore::{RestoreError, RestoreOptions, RestoreReport};
use crate::netlink::Conn;
use crate::nft::Policy;
use ipset::KernelSets;

/// A rule spec as the API takes it: a list of arguments (`&["-p", "tcp", "-j", "ACCEPT"]`,
/// a `Vec<String>`), one string split as a shell would (`"-p tcp -j ACCEPT"`), or rules
/// parsed already.
///
/// ```
/// use iptnl::iptables::RuleArgs;
/// use iptnl::ipt::IpFamily;
/// let a = ["-s", "10.0.0.1,10.0.0.2", "-j", "DROP"].parse_rules(IpFamily::V4).unwrap();
/// assert_eq!(a.len(), 2);
/// let b = "-s 10.0.0.1 -j DROP".parse_rules(IpFamily::V4).unwrap();
/// assert_eq!(b[0], a[0]);
/// ```
pub trait RuleArgs {
    /// The rules this spec stands for (several when `-s`/`-d` list several addresses).
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError>;
}

impl<S: AsRef<str>> RuleArgs for [S] {
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        parse_rule_with(family, self, &KernelSets)
    }
}

impl<S: AsRef<str>, const N: usize> RuleArgs for [S; N] {
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        parse_rule_with(family, self, &KernelSets)
    }
}

impl<S: AsRef<str>> RuleArgs for Vec<S> {
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        parse_rule_with(family, self, &KernelSets)
    }
}

impl RuleArgs for str {
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        parse_rule_str_with(family, self, &KernelSets)
    }
}

impl RuleArgs for String {
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        parse_rule_str_with(family, self, &KernelSets)
    }
}

impl RuleArgs for RuleSpec {
    fn parse_rules(&self, _family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        Ok(vec![self.clone()])
    }
}

impl<T: RuleArgs + ?Sized> RuleArgs for &T {
    fn parse_rules(&self, family: IpFamily) -> Result<Vec<RuleSpec>, ParseError> {
        (**self).parse_rules(family)
    }
}

#[derive(Debug)]
struct Inner {
    conn: Conn,
    cache: Cache,
}

/// A handle on the iptables tables of one family in one network namespace.
///
/// It is `Send + Sync`: share it between threads (e.g. in an `Arc`); calls are serialized on
/// its one netlink socket by an internal mutex, and calls of other handles or processes
/// (iptables-nft included) are kept apart by the kernel's generation check, not by a lock.
/// No global state, no lock file.
///
/// ```no_run
/// use std::sync::Arc;
/// use iptnl::iptables::IpTables;
/// let ipt = Arc::new(IpTables::new(iptnl::ipt::IpFamily::V4)?);
/// let t = { let ipt = ipt.clone(); std::thread::spawn(move || ipt.append_unique("filter", "INPUT", &["-j", "ACCEPT"])) };
/// t.join().unwrap()?;
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug)]
pub struct IpTables {
    family: IpFamily,
    inner: Mutex<Inner>,
    conflict_timeout_ms: AtomicU64,
    group: group::Committer,
    /// The reader floor set, as its place in [`crate::ipt::ReaderFloor::ALL`] plus one; 0 until set or
    /// asked (see `floor.rs`).
    floor: AtomicU8,
}

fn spec_err(e: ParseError) -> Error {
    Error::InvalidSpec(e)
}

fn check_rulenum(n: u32) -> Result<(), Error> {
    if n == 0 {
        return Err(Error::Invalid("rule numbers start at 1".into()));
    }
    Ok(())
}

impl IpTables {
    /// A handle in the calling thread's network namespace.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V6)?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn new(family: IpFamily) -> Result<IpTables, Error> {
        let conn = Conn::open().map_err(|e| from_nft(e.into(), "opening a netlink socket"))?;
        Ok(IpTables::from_conn(family, conn))
    }

    /// A handle in the network namespace at `path` (`/var/run/netns/NAME`,
    /// `/proc/PID/ns/net`), without moving any thread.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::in_netns(iptnl::ipt::IpFamily::V4, "/var/run/netns/blue")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn in_netns(family: IpFamily, path: impl AsRef<Path>) -> Result<IpTables, Error> {
        let conn = Conn::open_in_netns(path)
            .map_err(|e| from_nft(e.into(), "opening a netlink socket in the namespace"))?;
        Ok(IpTables::from_conn(family, conn))
    }

    /// A handle on an in-memory ruleset of its own ([`crate::memory`]): the kernel's
    /// semantics without root, a network namespace or a kernel. Every call works as on the
    /// kernel, with the same results and errors; what the in-memory ruleset does not model
    /// is refused with [`Error::Unsupported`]. To share one ruleset between handles (both
    /// families, or two writers racing), build them with
    /// [`from_conn`](Self::from_conn)`(family, ruleset.conn())`.
    ///
    /// ```
    /// use iptnl::iptables::IpTables;
    /// let ipt = IpTables::in_memory(iptnl::ipt::IpFamily::V4);
    /// ipt.append("nat", "POSTROUTING", "-s 10.244.0.0/16 ! -d 10.244.0.0/16 -j MASQUERADE")?;
    /// let err = ipt.append("filter", "INPUT", "-j MASQUERADE").unwrap_err();
    /// assert_eq!(err.errno(), Some(libc::EINVAL)); // only valid in the nat table
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn in_memory(family: IpFamily) -> IpTables {
        IpTables::from_conn(family, crate::memory::Ruleset::new().conn())
    }

    /// A handle on an open connection.
    ///
    /// ```no_run
    /// let conn = iptnl::netlink::Conn::open()?;
    /// let ipt = iptnl::iptables::IpTables::from_conn(iptnl::ipt::IpFamily::V4, conn);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_conn(family: IpFamily, conn: Conn) -> IpTables {
        sysdb::use_system_databases();
        IpTables {
            family,
            inner: Mutex::new(Inner {
                conn,
                cache: Cache::default(),
            }),
            conflict_timeout_ms: AtomicU64::new(plan::CONFLICT_TIMEOUT.as_millis() as u64),
            group: group::Committer::default(),
            floor: AtomicU8::new(0),
        }
    }

    /// The family (`iptables` or `ip6tables`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert_eq!(ipt.family(), iptnl::ipt::IpFamily::V4);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn family(&self) -> IpFamily {
        self.family
    }

    /// Wall time this handle's connection has spent inside `sendmsg` and `recv` so far (see
    /// [`KernelTime`](crate::netlink::KernelTime)): the kernel's share of the calls made.
    /// A call's own time is its wall time minus the `sendmsg` time it added.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let (t, k) = (std::time::Instant::now(), ipt.kernel_time());
    /// ipt.append("filter", "INPUT", "-j ACCEPT")?;
    /// let kernel = ipt.kernel_time().since(&k).sendmsg;
    /// println!("own {:?}, kernel {:?}", t.elapsed() - kernel, kernel);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn kernel_time(&self) -> crate::netlink::KernelTime {
        self.lock().conn.kernel_time()
    }

    /// Runs `f` on this handle's netlink connection, under the handle's lock: for nf_tables
    /// reads and writes the handle has no method for (`iptnl::nft` calls), without opening
    /// a second socket. The handle's cache notices any change made there by the generation,
    /// as it notices other writers'.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let fam = ipt.family().nft();
    /// let input = ipt.with_conn(|c| iptnl::nft::get_chain(c, fam, "filter", "INPUT"))?;
    /// println!("INPUT is {}in the kernel", if input.is_some() { "" } else { "not " });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_conn<R>(&self, f: impl FnOnce(&mut Conn) -> R) -> R {
        f(&mut self.lock().conn)
    }
    /// Keeps the chains this handle has read current from the kernel's ruleset events
    /// (`NFNLGRP_NFTABLES`, on a second socket) instead of reading a chain again whenever
    /// another writer moved the generation: a check or delete on a big chain after someone
    /// changed something else costs no dump. Off by default, because while a handle listens
    /// the kernel builds an event for every change in the namespace, which makes every
    /// writer's commits there a little slower; when events are lost (a huge restore
    /// overflowing the buffer), the cache is simply read again.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_follow_events(true);
    /// assert!(!ipt.exists("nat", "KUBE-SERVICES", "-j KUBE-NODEPORTS")? || true);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_follow_events(&self, on: bool) {
        let mut g = self.lock();
        g.cache.follow = on;
        if !on {
            g.cache.events = None;
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Plans and commits `ops` as one batch, planning again (after a short jittered pause,
    /// the connection released while waiting) when the ruleset changed under a read, until
    /// the conflict timeout. The timeout counts the attempts and the pauses, not the time
    /// spent waiting for this handle while other threads use it.
    ///
    /// Calls made while another call's commit is in flight are committed together, in the
    /// next batch (see [`group`]); each still gets exactly its own result.
    pub(crate) fn run(&self, ops: &[Op<'_>]) -> Result<Vec<OpResult>, Error> {
        self.in_group(group::Work::Ops(ops)).into_ops()
    }

    /// Commits `work` with whatever other callers bring meanwhile (see [`group`]): leads the
    /// commit when the handle is idle or when its turn comes, or gets its answer from the
    /// caller that committed for it.
    fn in_group(&self, work: group::Work<'_>) -> group::Answer {
        let leader = match self.group.enter(work) {
            group::Role::Done(a) => return a,
            group::Role::Lead(l) => l,
        };
        let mut answers = {
            let own = match &leader.own {
                Some(t) => t.work(),
                None => work,
            };
            let mut callers = Vec::with_capacity(1 + leader.others.len());
            callers.push(own);
            callers.extend(leader.others.iter().map(|t| t.work()));
            self.commit_all(&callers)
        };
        let mine = answers.remove(0);
        for (i, a) in answers.into_iter().enumerate() {
            leader.answer(i, a);
        }
        drop(leader);
        mine
    }

    /// Commits what a group of callers brought. Without a restore among them, their
    /// operations go through [`commit_group`](Self::commit_group). A restore carries the
    /// operations that do not depend on what it changes in its own batch (one commit for
    /// all; see [`restore`](crate::iptables::restore)); the other operations are committed
    /// after it, and any further restore by itself.
    fn commit_all(&self, callers: &[group::Work<'_>]) -> Vec<group::Answer> {
        use group::{Answer, Work};
        let mut out: Vec<Option<Answer>> = callers.iter().map(|_| None).collect();
        let mut ops: Vec<usize> = callers
            .iter()
            .enumerate()
            .filter(|(_, w)| matches!(w, Work::Ops(_)))
            .map(|(i, _)| i)
            .collect();
        let ops_of = |i: usize| match callers[i] {
            Work::Ops(o) => o,
            Work::Restore(..) => &[],
        };
        for (i, w) in callers.iter().enumerate() {
            let Work::Restore(input, opts) = *w else {
                continue;
            };
            let carry: Vec<&[Op<'_>]> = if opts.test || opts.verbose {
                Vec::new()
            } else {
                ops.iter().map(|&c| ops_of(c)).collect()
            };
            let (r, answers) = self.restore_with(input, opts, &carry);
            out[i] = Some(Answer::Restore(r));
            for (k, a) in answers.into_iter().enumerate() {
                if let (Some(a), Some(&c)) = (a, ops.get(k)) {
                    out[c] = Some(Answer::Ops(a));
                }
            }
            ops.retain(|&c| out[c].is_none());
        }
        if !ops.is_empty() {
            let rest: Vec<&[Op<'_>]> = ops.iter().map(|&c| ops_of(c)).collect();
            for (c, r) in ops.iter().zip(self.commit_group(&rest)) {
                out[*c] = Some(Answer::Ops(r));
            }
        }
        out.into_iter()
            .map(|a| a.unwrap_or_else(|| Answer::Ops(Err(Error::Invalid("not committed".into())))))
            .collect()
    }

    /// Applies a restore, with `carry`'s operations in its batch where they do not depend on
    /// it: the restore's result and each operation list's answer (`None`: not committed).
    /// The handle remembers the restore (see [`try_restore`](Self::try_restore)).
    fn restore_with(
        &self,
        input: &str,
        opts: &RestoreOptions,
        carry: &[&[Op<'_>]],
    ) -> (
        Result<RestoreReport, RestoreError>,
        Vec<Option<group::Outcome>>,
    ) {
        let t = std::time::Instant::now();
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        cache.restore_memo = None;
        let (r, answers, (split_off, conflicts)) = if carry.is_empty() {
            (
                crate::iptables::restore::restore(conn, self.family, input, opts),
                Vec::new(),
                (0, 0),
            )
        } else {
            let o = crate::iptables::restore::restore_beside(conn, self.family, input, opts, carry);
            (o.restore, o.answers, (o.split_off, o.conflicts))
        };
        if let Ok(report) = &r {
            cache.restore_memo = RestoreMemo::new(input, opts, report).map(Box::new);
        }
        drop(g);
        // The callers answered beside the restore, and the operations committed with it.
        let (mut callers, mut ops) = (0, 0);
        for (a, c) in answers.iter().zip(carry) {
            if let Some(a) = a {
                callers += 1;
                if a.is_ok() {
                    ops += c.len();
                }
            }
        }
        self.group.record(|s| {
            s.requests += 1 + callers as u64;
            s.split_off += split_off;
            s.conflicts += conflicts;
            if let Ok(rep) = &r {
                if rep.commit_time > std::time::Duration::ZERO {
                    s.commit(rep.ops + ops, 1 + callers, t);
                }
            }
        });
        (r, answers)
    }

    /// Forgets everything cached: the next read asks the kernel.
    pub(crate) fn forget_cache(&self) {
        self.lock().cache.clear();
    }

    /// Plans and commits `ops` as one batch at generation `genid` only (see
    /// [`plan::run_once`]): `Ok(None)` when the ruleset is no longer at that generation.
    pub(crate) fn run_pinned(
        &self,
        ops: &[Op<'_>],
        genid: u32,
    ) -> Result<Option<Vec<OpResult>>, plan::Failed> {
        let flat: Vec<&Op<'_>> = ops.iter().collect();
        let t = std::time::Instant::now();
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        let floor = self.floor_with(conn);
        let r = plan::run_once(conn, cache, self.family, floor, &flat, Some(genid))?;
        if r.as_ref().is_some_and(|(_, committed)| *committed) {
            self.group.record(|s| s.commit(flat.len(), 1, t));
        }
        Ok(r.map(|(results, _)| results))
    }

    /// Commits the operations of several callers, in order, as few batches as their results
    /// allow: a caller whose operation is refused gets the refusal and the others are
    /// planned again without it.
    fn commit_group(&self, callers: &[&[Op<'_>]]) -> Vec<group::Outcome> {
        let n = callers.len();
        let mut out: Vec<Option<group::Outcome>> = (0..n).map(|_| None).collect();
        let mut alive: Vec<usize> = (0..n).collect();
        let timeout = self.conflict_timeout();
        let mut spent = std::time::Duration::ZERO;
        let mut attempt = 0u32;
        while !alive.is_empty() {
            let mut flat: Vec<&Op<'_>> = Vec::new();
            let mut owner: Vec<usize> = Vec::new();
            for &c in &alive {
                flat.extend(callers[c].iter());
                owner.extend(std::iter::repeat_n(c, callers[c].len()));
            }
            let t = std::time::Instant::now();
            let r = {
                let mut g = self.lock();
                let Inner { conn, cache } = &mut *g;
                let floor = self.floor_with(conn);
                plan::run_once(conn, cache, self.family, floor, &flat, None)
            };
            spent += t.elapsed();
            match r {
                Ok(Some((results, committed))) => {
                    if committed {
                        self.group.record(|s| s.commit(flat.len(), alive.len(), t));
                    }
                    let mut it = results.into_iter();
                    for &c in &alive {
                        out[c] = Some(Ok(it.by_ref().take(callers[c].len()).collect()));
                    }
                    break;
                }
                Ok(None) => {
                    self.group.record(|s| s.conflicts += 1);
                    attempt += 1;
                    if spent >= timeout {
                        for &c in &alive {
                            out[c] = Some(Err(Error::Conflict { tries: attempt }));
                        }
                        break;
                    }
                    let pause = plan::jitter(attempt - 1);
                    std::thread::sleep(pause);
                    spent += pause;
                }
                Err(plan::Failed { op: Some(i), error }) if i < owner.len() => {
                    let c = owner[i];
                    // A caller of several operations (a transaction) learns which one.
                    let first = owner.iter().position(|&x| x == c).unwrap_or(i);
                    let error = match callers[c].len() {
                        1 => error,
                        _ => Error::InTransaction {
                            index: i - first + 1,
                            operation: flat[i].words(),
                            source: Box::new(error),
                        },
                    };
                    out[c] = Some(Err(error));
                    alive.retain(|&x| x != c);
                    if !alive.is_empty() {
                        self.group.record(|s| s.split_off += 1);
                    }
                }
                Err(plan::Failed { error, .. }) => {
                    if let [c] = alive[..] {
                        out[c] = Some(Err(error));
                        break;
                    }
                    // Nobody's operation in particular: each caller alone gets its own.
                    for &c in &alive {
                        out[c] = self.commit_group(&[callers[c]]).pop();
                    }
                    break;
                }
            }
        }
        self.group.record(|s| s.requests += n as u64);
        out.into_iter()
            .map(|o| {
                o.unwrap_or_else(|| Err(Error::Invalid("the operations were not committed".into())))
            })
            .collect()
    }

    /// How this handle's commits went: requests, kernel commits, operations per commit,
    /// callers that shared a commit, conflicts planned again, and recent commit latencies.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.append("filter", "INPUT", "-j ACCEPT")?;
    /// let s = ipt.commit_stats();
    /// assert_eq!(s.commits, 1);
    /// println!("p99 {:?}", s.latency_percentile(99.0));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn commit_stats(&self) -> CommitStats {
        self.group.stats()
    }

    /// Makes a caller that finds the handle idle wait `window` before planning, so that
    /// callers arriving within it share its commit (default zero: an idle handle commits at
    /// once; callers arriving while a commit is in flight share the next one either way).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_group_window(std::time::Duration::from_micros(500));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_group_window(&self, window: std::time::Duration) {
        self.group.set_window(window);
    }

    fn conflict_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.conflict_timeout_ms.load(Ordering::Relaxed))
    }

    /// How long a read-dependent operation keeps planning again while other writers change
    /// the ruleset under it before it fails with [`Error::Conflict`] (default 60 s; zero
    /// tries once). The time counts the attempts (each waits in the kernel behind other
    /// writers' commits) and the pauses between them, not the time a call waits for this
    /// handle while other threads use it. Nothing is applied by an attempt that conflicted.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_conflict_timeout(std::time::Duration::from_secs(30));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_conflict_timeout(&self, timeout: std::time::Duration) {
        self.conflict_timeout_ms
            .store(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    /// How long a read (a listing, a check, the read an operation plans from) keeps trying
    /// while other writers change the ruleset under it before it fails with
    /// [`Error::Conflict`]. The default, `None`, has no limit: a read never fails because
    /// someone else writes (each try after a failed one waits a moment). `iptables -w N`
    /// sets N seconds.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_read_budget(Some(std::time::Duration::from_secs(5)));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_read_budget(&self, budget: Option<std::time::Duration>) {
        self.lock().conn.set_dump_budget(budget);
    }

    fn run1(&self, op: Op<'_>) -> Result<OpResult, Error> {
        Ok(self
            .run(std::slice::from_ref(&op))?
            .pop()
            .unwrap_or(OpResult::Done))
    }

    fn specs(&self, spec: &(impl RuleArgs + ?Sized)) -> Result<Vec<RuleSpec>, Error> {
        spec.parse_rules(self.family).map_err(spec_err)
    }

    /// Applies `iptables-restore` input in one batch (see
    /// [`ipt::restore`](crate::iptables::restore::restore)). The same input again, with
    /// nothing changed since, is answered from the handle's memory of its last restore (see
    /// [`try_restore`](Self::try_restore)).
    ///
    /// ```no_run
    /// use iptnl::iptables::restore::RestoreOptions;
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.restore("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n", &RestoreOptions { noflush: true, ..Default::default() })?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn restore(&self, input: &str, opts: &RestoreOptions) -> Result<RestoreReport, Error> {
        Ok(self.try_restore(input, opts)?)
    }

    /// [`restore`](Self::restore) with the restore's own error (the input line that failed
    /// and why, in iptables' words).
    ///
    /// The handle remembers the last restore it applied (it keeps a copy of the input until
    /// the next restore): the same input with the same options again, while the ruleset's
    /// generation has not moved since (nobody changed anything), is answered after one
    /// generation read, without parsing the input or reading the ruleset, and commits
    /// nothing, as the restore would find nothing to change. Only inputs that change nothing
    /// when applied twice are remembered (chain lines and appends, with `--noflush` only to
    /// user chains the input empties first; no ipset references, no rule counters, with
    /// `--counters` no built-in chain lines, no `--test` or `--verbose`); see
    /// [`RestoreReport::generation`](crate::iptables::restore::RestoreReport::generation).
    ///
    /// A restore made while another call of this handle is committing queues with the calls
    /// made meanwhile, and shares their commit: the operations that do not touch what the
    /// restore changes are planned after it into its batch, the others are committed right
    /// after it (see [`set_group_window`](Self::set_group_window)).
    ///
    /// ```no_run
    /// use iptnl::iptables::restore::RestoreOptions;
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let input = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n";
    /// let first = ipt.try_restore(input, &RestoreOptions::default())?;
    /// // Nothing changed since: nothing read, nothing committed.
    /// let again = ipt.try_restore(input, &RestoreOptions::default())?;
    /// assert_eq!((again.ops, again.generation), (0, first.generation));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_restore(
        &self,
        input: &str,
        opts: &RestoreOptions,
    ) -> Result<RestoreReport, RestoreError> {
        // The restore writes at the handle's floor unless its options name one.
        let at_floor;
        let opts = if opts.floor.is_none() {
            at_floor = RestoreOptions {
                floor: Some(self.reader_floor()),
                ..opts.clone()
            };
            &at_floor
        } else {
            opts
        };
        {
            let mut g = self.lock();
            let Inner { conn, cache } = &mut *g;
            if let Some(m) = cache.restore_memo.as_deref() {
                if m.same(input, opts) {
                    if let Some(r) = conn.genid().ok().and_then(|now| m.answer(now)) {
                        return Ok(r);
                    }
                }
            }
        }
        self.in_group(group::Work::Restore(input, opts))
            .into_restore()
    }

    /// The iptables version whose behaviour iptnl follows, as (major, minor, patch).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.version() >= (1, 8, 9));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn version(&self) -> (u32, u32, u32) {
        let mut it = SAVE_VERSION
            .trim_start_matches('v')
            .split('.')
            .map(|p| p.parse().unwrap_or(0));
        (
            it.next().unwrap_or(0),
            it.next().unwrap_or(0),
            it.next().unwrap_or(0),
        )
    }

    /// Whether `--random-fully` is supported (always: nf_tables has it).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.has_random_fully());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn has_random_fully(&self) -> bool {
        true
    }

    /// Whether `-w` is supported (always: there is no lock to wait for).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.has_wait());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn has_wait(&self) -> bool {
        true
    }

    /// Whether `-C` is supported (always).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.has_check());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn has_check(&self) -> bool {
        true
    }
}
