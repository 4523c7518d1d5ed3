//! Group commit: operations submitted to one handle at the same time share kernel commits.
//!
//! The kernel's cost of a commit hardly depends on how many operations it carries (it
//! re-validates the whole table once per commit), so callers that arrive while a commit is in
//! flight queue, and the next commit carries all of them. The first caller of an idle handle
//! commits at once (no added latency); when its commit is done it hands the queue to the
//! oldest waiter, which plans everything queued into one batch, commits, hands every caller
//! its own result and passes the queue on. Nobody waits for more than the commit in flight
//! and its own.
//!
//! Each caller gets exactly its own result: a refusal (by the planner, or by the kernel,
//! mapped back through the batch's operation owners) goes to the caller whose operation
//! caused it, and the others are planned and committed again without it. Callers are planned
//! in arrival order and each caller's operations in its order, so a caller sees its
//! neighbours' changes as if they had run just before it, and reads made for the group
//! belong to one generation: a neighbour's change is no conflict.
//!
//! A restore ([`IpTables::try_restore`](super::IpTables::try_restore)) queues the same way.
//! In a group it comes first, and carries in its own batch the operations that do not depend
//! on what it changes (`plan::Beside`): one commit for the restore and those; the other
//! operations are committed after it, and a second restore in the same group by itself.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::error::Error;
use super::plan::Op;
pub(crate) use super::plan::Outcome;
use super::restore::{RestoreError, RestoreOptions, RestoreReport};

/// What a caller brings: operations, or a restore's input.
#[derive(Clone, Copy)]
pub(crate) enum Work<'a> {
    Ops(&'a [Op<'a>]),
    Restore(&'a str, &'a RestoreOptions),
}

/// [`Work`] copied, for a caller that queues (it is blocked, but the leader runs on another
/// thread).
enum Owned {
    Ops(Vec<Op<'static>>),
    Restore(String, RestoreOptions),
}

impl Owned {
    fn of(w: Work<'_>) -> Owned {
        match w {
            Work::Ops(ops) => Owned::Ops(ops.iter().cloned().map(Op::into_owned).collect()),
            Work::Restore(input, opts) => Owned::Restore(input.to_owned(), opts.clone()),
        }
    }
}

/// A caller's answer, for what it brought.
pub(crate) enum Answer {
    Ops(Outcome),
    Restore(Result<RestoreReport, RestoreError>),
}

impl Answer {
    /// The answer to operations.
    pub(crate) fn into_ops(self) -> Outcome {
        match self {
            Answer::Ops(r) => r,
            Answer::Restore(_) => Err(Error::Invalid(
                "internal error: a restore's answer for operations".into(),
            )),
        }
    }

    /// The answer to a restore.
    pub(crate) fn into_restore(self) -> Result<RestoreReport, RestoreError> {
        match self {
            Answer::Restore(r) => r,
            Answer::Ops(_) => Err(RestoreError::Internal(
                "internal error: operations' answer for a restore".into(),
            )),
        }
    }

    fn failed(msg: &str, restore: bool) -> Answer {
        if restore {
            Answer::Restore(Err(RestoreError::Internal(msg.into())))
        } else {
            Answer::Ops(Err(Error::Invalid(msg.into())))
        }
    }
}

/// What a queued caller is woken for.
enum State {
    Queued,
    /// Lead the next commit.
    Lead,
    Done(Answer),
}

/// A caller waiting in the queue, with what it brought (copied).
pub(crate) struct Ticket {
    work: Owned,
    state: Mutex<State>,
    woken: Condvar,
}

impl Ticket {
    /// What the caller brought.
    pub(crate) fn work(&self) -> Work<'_> {
        match &self.work {
            Owned::Ops(ops) => Work::Ops(ops),
            Owned::Restore(input, opts) => Work::Restore(input, opts),
        }
    }

    fn set(&self, s: State) {
        *lock(&self.state) = s;
        self.woken.notify_one();
    }

    fn wait(&self) -> Option<Answer> {
        let mut g = lock(&self.state);
        loop {
            match std::mem::replace(&mut *g, State::Queued) {
                State::Queued => g = self.woken.wait(g).unwrap_or_else(|p| p.into_inner()),
                State::Lead => return None,
                State::Done(r) => return Some(r),
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[derive(Default)]
struct Queue {
    /// A caller is leading a commit.
    busy: bool,
    waiting: VecDeque<Arc<Ticket>>,
}

/// The queue of one handle and its figures.
#[derive(Default)]
pub(crate) struct Committer {
    queue: Mutex<Queue>,
    window_us: AtomicU64,
    stats: Mutex<CommitStats>,
}

impl std::fmt::Debug for Committer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Committer").finish_non_exhaustive()
    }
}

/// The role a caller got.
pub(crate) enum Role<'a> {
    /// Lead now with these queued callers beside its own operations.
    Lead(Leader<'a>),
    /// Another caller committed this caller's work.
    Done(Answer),
}

/// A leading caller: the callers it commits for. Dropping it answers whoever it did not
/// answer (only after a panic) and hands the queue on.
pub(crate) struct Leader<'a> {
    committer: &'a Committer,
    pub(crate) others: Vec<Arc<Ticket>>,
    /// The leader's own copied operations, when it was queued first.
    pub(crate) own: Option<Arc<Ticket>>,
}

impl Committer {
    /// Enters the queue with `work`: either the caller leads (at once when idle), or another
    /// caller committed its work and this is its answer.
    pub(crate) fn enter(&self, work: Work<'_>) -> Role<'_> {
        let mut q = lock(&self.queue);
        if !q.busy {
            q.busy = true;
            drop(q);
            let window = Duration::from_micros(self.window_us.load(Ordering::Relaxed));
            let mut leader = Leader {
                committer: self,
                others: Vec::new(),
                own: None,
            };
            if !window.is_zero() {
                std::thread::sleep(window);
                leader.others = self.drain();
            }
            return Role::Lead(leader);
        }
        let t = Arc::new(Ticket {
            work: Owned::of(work),
            state: Mutex::new(State::Queued),
            woken: Condvar::new(),
        });
        q.waiting.push_back(t.clone());
        drop(q);
        match t.wait() {
            Some(r) => Role::Done(r),
            None => Role::Lead(Leader {
                committer: self,
                others: self.drain(),
                own: Some(t),
            }),
        }
    }

    fn drain(&self) -> Vec<Arc<Ticket>> {
        lock(&self.queue).waiting.drain(..).collect()
    }

    /// Passes the queue to its oldest waiter, or marks the handle idle.
    fn hand_on(&self) {
        let mut q = lock(&self.queue);
        match q.waiting.pop_front() {
            Some(t) => {
                drop(q);
                t.set(State::Lead);
            }
            None => q.busy = false,
        }
    }

    pub(crate) fn set_window(&self, d: Duration) {
        self.window_us.store(
            d.as_micros().min(u128::from(u64::MAX)) as u64,
            Ordering::Relaxed,
        );
    }

    pub(crate) fn stats(&self) -> CommitStats {
        lock(&self.stats).clone()
    }

    /// Records one attempt's outcome.
    pub(crate) fn record(&self, f: impl FnOnce(&mut CommitStats)) {
        f(&mut lock(&self.stats));
    }
}

impl Leader<'_> {
    /// Hands `r` to queued caller `i` (of [`Leader::others`]).
    pub(crate) fn answer(&self, i: usize, r: Answer) {
        if let Some(t) = self.others.get(i) {
            t.set(State::Done(r));
        }
    }
}

impl Drop for Leader<'_> {
    fn drop(&mut self) {
        for t in &self.others {
            let mut g = lock(&t.state);
            if matches!(*g, State::Queued) {
                *g = State::Done(Answer::failed(
                    "internal error while committing for a group of callers",
                    matches!(t.work, Owned::Restore(..)),
                ));
                t.woken.notify_one();
            }
        }
        self.committer.hand_on();
    }
}

/// How a handle's commits went, since it was opened (see
/// [`IpTables::commit_stats`](super::IpTables::commit_stats)).
///
/// ```
/// let s = iptnl::iptables::CommitStats::default();
/// assert_eq!(s.commits, 0);
/// assert_eq!(s.latency_percentile(50.0), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Calls (API calls, transactions, commands) that were committed or refused.
    pub requests: u64,
    /// Batches the kernel committed.
    pub commits: u64,
    /// Operations those batches carried.
    pub operations: u64,
    /// Callers whose operations shared a batch with another caller's.
    pub grouped: u64,
    /// Attempts planned again because another writer changed the ruleset under a read.
    pub conflicts: u64,
    /// Callers refused and taken out of a group, the others committed without them.
    pub split_off: u64,
    /// The latest commits' latencies (from planning to the kernel's answer), at most the
    /// last [`CommitStats::KEPT`].
    pub latencies: VecDeque<Duration>,
}

impl CommitStats {
    /// How many latencies are kept.
    pub const KEPT: usize = 4096;

    pub(crate) fn commit(&mut self, ops: usize, callers: usize, t: Instant) {
        self.commits += 1;
        self.operations += ops as u64;
        if callers > 1 {
            self.grouped += callers as u64;
        }
        if self.latencies.len() == Self::KEPT {
            self.latencies.pop_front();
        }
        self.latencies.push_back(t.elapsed());
    }

    /// The `p`th percentile (0–100) of the kept latencies.
    ///
    /// ```
    /// let mut s = iptnl::iptables::CommitStats::default();
    /// s.latencies.extend([1, 2, 3, 4].map(std::time::Duration::from_millis));
    /// assert_eq!(s.latency_percentile(50.0), Some(std::time::Duration::from_millis(2)));
    /// assert_eq!(s.latency_percentile(100.0), Some(std::time::Duration::from_millis(4)));
    /// ```
    pub fn latency_percentile(&self, p: f64) -> Option<Duration> {
        if self.latencies.is_empty() {
            return None;
        }
        let mut v: Vec<Duration> = self.latencies.iter().copied().collect();
        v.sort_unstable();
        let rank = (p.clamp(0.0, 100.0) / 100.0 * v.len() as f64).ceil() as usize;
        v.get(rank.saturating_sub(1).min(v.len() - 1)).copied()
    }
}
