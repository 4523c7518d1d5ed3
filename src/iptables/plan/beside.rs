//! Commands planned beside a restore, into the restore's batch: one kernel commit (one
//! re-validation of each table) for a restore and the commands queued with it.
//!
//! A command goes into the restore's batch only when nothing it depends on is something the
//! restore changes: its chain (and the chain it renames to, and every chain its rules jump
//! to) is not one the restore names, its table is neither rebuilt (restored without
//! `--noflush`) nor created by the restore, and it is not an operation on a whole table the
//! restore names anything in. Such a command plans the same against the kernel's ruleset as
//! against the ruleset after the restore, so planning it right after the restore, in the
//! same planner, is exact: the batch applies the restore and then the commands, as if they
//! had run one after the other. The other commands are committed after the restore, planned
//! again then.

use super::state::{ChainSet, FastSet};
use super::Outcome;
use super::{resolve, Mode, Op, Pending, PlanError, Planner, RulesetView};
use crate::iptables::error::Error;
use crate::nft::Committed;

/// What a restore names: the tables it rebuilds, creates or changes as a whole, and the
/// chains it declares, fills, reads, creates, deletes or sets the policy of (from its plan),
/// and every table and chain its batch changes.
#[derive(Debug, Default)]
pub(crate) struct Named {
    /// Tables nothing may be planned beside the restore in.
    tables: FastSet<String>,
    chains: ChainSet,
}

impl Named {
    /// Adds a table nothing may be planned in beside the restore.
    pub(crate) fn table(&mut self, t: &str) {
        self.tables.insert(t.to_owned());
    }

    /// Adds a chain the restore names.
    pub(crate) fn chain(&mut self, t: &str, c: &str) {
        self.chains.insert(t, c);
    }

    /// Whether `ops` plan the same before and after the restore (see the module comment).
    pub(crate) fn independent(&self, ops: &[Op<'_>]) -> bool {
        ops.iter().all(|op| {
            let (t, c) = op.table_chain();
            if self.tables.contains(t) || self.chains.contains(t, c) {
                return false;
            }
            if c.is_empty() && self.chains.has_table(t) {
                return false;
            }
            match op {
                Op::RenameChain { new, .. } => !self.chains.contains(t, new),
                Op::Add { specs, .. } | Op::Replace { specs, .. } | Op::Delete { specs, .. } => {
                    specs
                        .iter()
                        .filter_map(|s| s.jump_target())
                        .all(|j| !self.chains.contains(t, j))
                }
                _ => true,
            }
        })
    }
}

/// The commands of other callers planned into a restore's batch, and how that went.
#[derive(Debug)]
pub(crate) struct Beside<'c, 'o> {
    /// Each caller's operations.
    callers: &'c [&'c [Op<'o>]],
    /// The callers still to be planned beside the restore (the others were answered, or
    /// depend on what the restore changes).
    pub(crate) alive: Vec<usize>,
    /// The callers planned into the last batch, in order, with what each operation will
    /// report.
    pub(crate) merged: Vec<(usize, Vec<Pending>)>,
    /// The first batch operation of the commands (those before are the restore's).
    pub(crate) boundary: usize,
    /// The (caller, operation) of each item the commands' batch operations are owned by.
    pub(crate) items: Vec<(usize, usize)>,
    /// A caller whose command the planner refused (it is answered and taken out, and the
    /// restore planned again without it).
    pub(crate) refused: Option<(usize, Error)>,
    /// Another writer changed the ruleset under a command's read: plan again.
    pub(crate) conflict: bool,
    /// Each caller's answer, once it has one.
    answers: Vec<Option<Outcome>>,
    /// Callers refused and taken out (the rest planned again without them).
    pub(crate) split_off: u64,
    /// Attempts planned again because the ruleset changed under a read.
    pub(crate) conflicts: u64,
}

impl<'c, 'o> Beside<'c, 'o> {
    /// Every caller may be planned beside the restore.
    pub(crate) fn new(callers: &'c [&'c [Op<'o>]]) -> Self {
        Beside {
            callers,
            alive: (0..callers.len()).collect(),
            merged: Vec::new(),
            boundary: 0,
            items: Vec::new(),
            refused: None,
            conflict: false,
            answers: (0..callers.len()).map(|_| None).collect(),
            split_off: 0,
            conflicts: 0,
        }
    }

    /// Answers caller `c` and takes it out.
    fn answer(&mut self, c: usize, r: Outcome) {
        if let Some(a) = self.answers.get_mut(c) {
            *a = Some(r);
        }
        self.alive.retain(|&x| x != c);
    }

    /// Answers the callers planned into the batch, now committed (`None`: the batch was
    /// empty and not sent).
    pub(crate) fn answer_merged(&mut self, done: Option<&Committed>) {
        for (c, pending) in std::mem::take(&mut self.merged) {
            let results = pending.into_iter().map(|x| resolve(x, done)).collect();
            self.answer(c, Ok(results));
        }
    }

    /// Each caller's answer (`None`: not planned beside the restore, or not committed).
    pub(crate) fn into_answers(self) -> Vec<Option<Outcome>> {
        self.answers
    }

    /// The operation owning batch operation `index`, with its caller (`None`: the
    /// restore's).
    pub(crate) fn owner_of(&self, owner: &[u32], index: usize) -> Option<(usize, &Op<'o>)> {
        if index < self.boundary {
            return None;
        }
        let item = *owner.get(index)? as usize;
        let &(c, j) = self.items.get(item)?;
        Some((c, self.callers.get(c)?.get(j)?))
    }

    /// Plans the independent callers' operations after the restore planned in `p` (settled:
    /// nothing of it is kept aside). A refusal or a conflict is recorded, and the batch is
    /// then not to be committed.
    pub(crate) fn plan<V: RulesetView + ?Sized>(
        &mut self,
        p: &mut Planner<'_, V>,
        mut named: Named,
    ) {
        self.merged.clear();
        self.items.clear();
        self.refused = None;
        self.conflict = false;
        self.boundary = p.batch.len();
        if self.alive.is_empty() {
            return;
        }
        let last = p.owner.last().copied().unwrap_or(0);
        p.owner.resize(self.boundary, last);
        // Every table and chain the restore's batch changes, whatever planned it.
        p.batch.each_target(0, &mut |t, c| match c {
            Some(c) => named.chain(t, c),
            None => named.table(t),
        });
        p.switch_to_commands();
        let callers = self.callers;
        let mut flat: Vec<&Op<'o>> = Vec::new();
        let mut planned = Vec::new();
        for &c in &self.alive {
            let ops = callers[c];
            if !named.independent(ops) {
                continue;
            }
            for (j, op) in ops.iter().enumerate() {
                flat.push(op);
                self.items.push((c, j));
            }
            planned.push(c);
        }
        match p.plan_group(&flat) {
            Ok(pending) => {
                let mut it = pending.into_iter();
                for c in planned {
                    let mine = it.by_ref().take(callers[c].len()).collect();
                    self.merged.push((c, mine));
                }
            }
            Err((_, PlanError::Failed(Error::Conflict { .. }))) => self.conflict = true,
            Err((i, e)) => match self.items.get(i) {
                Some(&(c, _)) => self.refused = Some((c, e.into_error())),
                None => self.conflict = true,
            },
        }
    }

    /// Answers caller `c` with the refusal of its operation and takes it out.
    pub(crate) fn split(&mut self, c: usize, e: Error) {
        self.answer(c, Err(e));
        self.split_off += 1;
    }
}

impl<V: RulesetView + ?Sized> Planner<'_, V> {
    /// What this restore's plan names so far (before it is settled); `created` are the
    /// tables of its input the kernel did not have.
    pub(crate) fn named(&self, created: &[&str]) -> Named {
        let mut n = Named::default();
        for t in self
            .rebuilt
            .iter()
            .chain(&self.touched_tables)
            .map(String::as_str)
        {
            n.table(t);
        }
        for t in created {
            n.table(t);
        }
        self.chains.each_chain(&mut |t, c| n.chain(t, c));
        self.ensured.each(&mut |t, c| n.chain(t, c));
        for (t, c) in self.policies.keys() {
            n.chain(t, c);
        }
        if let Some(rw) = self.rewrites.as_deref() {
            rw.name_into(&mut n);
        }
        n
    }

    /// Plans what follows as a command of the `IpTables` API does: asking the kernel about
    /// chains, echoing new rules, every rule recorded in its chain.
    fn switch_to_commands(&mut self) {
        self.mode = Mode {
            ask_kernel: true,
            echo: true,
            counters: true,
            floor: self.mode.floor,
        };
        self.rewrites = None;
        self.track_entries = true;
        self.untracked = false;
        self.restart = false;
    }
}
