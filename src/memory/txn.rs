//! One batch being applied: the kernel's transaction list (what each message did, in order,
//! to be committed or undone), the rules it touched, and the commit and abort that end it.
//!
//! As in the kernel, every operation takes effect at once for the later operations of the
//! batch (the next generation), use counts move as rules and jumps come and go, handles
//! are given and never given back (an aborted batch still used them), and the commit
//! applies the deferred changes (renames, policies, counters) and reports each change as an
//! event, in the order of the transaction list.

use iptnl_sys::nf_tables::*;

use super::exprs::ExprId;
use super::graph::IdMap;
use super::state::{ChainId, Life, Nft, Rule, TableId};

/// Why an operation of the batch was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fail {
    /// As the kernel refuses it: errno and the offset of the offending attribute in the
    /// message.
    Errno { errno: i32, offset: Option<u32> },
    /// Something this model does not know the kernel's behaviour for.
    Unsupported(String),
}

impl Fail {
    pub fn errno(errno: i32) -> Fail {
        Fail::Errno {
            errno,
            offset: None,
        }
    }

    pub fn at(errno: i32, offset: u32) -> Fail {
        Fail::Errno {
            errno,
            offset: Some(offset),
        }
    }

    pub fn unsupported(what: impl Into<String>) -> Fail {
        Fail::Unsupported(what.into())
    }
}

pub(crate) type Step = Result<(), Fail>;

/// The message an operation came from, as the kernel's `nft_ctx` keeps it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    pub flags: u16,
    pub seq: u32,
    pub portid: u32,
    /// `NLM_F_ECHO`: the sender gets the event too.
    pub report: bool,
}

/// One entry of the transaction list.
#[derive(Debug, Clone)]
pub(crate) enum Trans {
    NewTable {
        t: TableId,
    },
    DelTable {
        t: TableId,
    },
    NewChain {
        t: TableId,
        c: ChainId,
        policy: Option<u32>,
    },
    UpdChain {
        t: TableId,
        c: ChainId,
        rename: Option<String>,
        policy: Option<u32>,
        stats: Option<(u64, u64)>,
    },
    DelChain {
        t: TableId,
        c: ChainId,
    },
    NewRule {
        t: TableId,
        c: ChainId,
        uid: u32,
    },
    DelRule {
        t: TableId,
        c: ChainId,
        uid: u32,
    },
}

#[derive(Debug)]
enum Undo {
    TableNew(TableId),
    TableGone(TableId),
    ChainNew {
        t: TableId,
        c: ChainId,
        /// The chain of that name this one hid (deleted earlier in the batch).
        shadowed: Option<ChainId>,
    },
    ChainGone {
        t: TableId,
        c: ChainId,
    },
}

/// A rule the batch added, noted for the validation at commit (see
/// [`Txn::note_for_validation`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Added {
    pub t: TableId,
    pub c: ChainId,
    pub uid: u32,
    start: usize,
    exprs: usize,
    jumps: usize,
}

/// Whether the ruleset must be validated (jumps depth, hooks of x_tables extensions), as
/// the kernel's `validate_state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Validate {
    Skip,
    /// A rule with something to validate was added: validate at commit.
    Need,
    /// Validating again after each rule (the replay after a failed validation).
    Do,
}

/// What [`Txn::commit`] tells of each change: the state, the change, its context and its
/// position among the chain's rules.
pub(crate) type Report<'r> = &'r mut dyn FnMut(&Nft, &Trans, &Ctx, Pos);

/// A batch being applied to `nft`.
#[derive(Debug)]
pub(crate) struct Txn<'n> {
    pub nft: &'n mut Nft,
    pub log: Vec<(Trans, Ctx)>,
    undo: Vec<Undo>,
    pub touched: Vec<(TableId, ChainId)>,
    /// The rules added by the batch that the validation at commit looks at (those with
    /// jumps or x_tables extensions), so that it walks them and not their chains.
    pub to_validate: Vec<Added>,
    /// The expression and jump ids of [`to_validate`](Self::to_validate)'s rules.
    to_validate_ids: Vec<u32>,
    pub validate: Validate,
    /// While validating after each rule: the tables found invalid, with the errno (every
    /// later rule of the table is refused with it too, as the kernel validates the whole
    /// table again after each rule).
    pub invalid: Vec<(TableId, i32)>,
    /// Rules added with an `NFTA_RULE_ID`, by it (ids the sender picks for its own batch:
    /// the cheap hasher of chain ids serves).
    ids: IdMap<u32, (TableId, ChainId, u32)>,
    /// A buffer for expressions' bytes.
    pub scratch: Vec<u8>,
    pub ctx: Ctx,
}

impl<'n> Txn<'n> {
    pub fn new(nft: &'n mut Nft, validate: Validate) -> Txn<'n> {
        Txn {
            nft,
            log: Vec::new(),
            undo: Vec::new(),
            touched: Vec::new(),
            to_validate: Vec::new(),
            to_validate_ids: Vec::new(),
            validate,
            invalid: Vec::new(),
            ids: IdMap::default(),
            scratch: Vec::new(),
            ctx: Ctx {
                flags: 0,
                seq: 0,
                portid: 0,
                report: false,
            },
        }
    }

    pub fn push(&mut self, t: Trans) {
        self.log.push((t, self.ctx));
    }

    /// Records a table added by the batch.
    pub fn table_added(&mut self, t: TableId) {
        self.undo.push(Undo::TableNew(t));
        self.push(Trans::NewTable { t });
    }

    /// Marks table `t` deleted.
    pub fn table_deleted(&mut self, t: TableId) {
        self.nft.table_mut(t).life = Life::Gone;
        self.undo.push(Undo::TableGone(t));
        self.push(Trans::DelTable { t });
    }

    /// Records chain `c` added by the batch (it is in the table already), hiding
    /// `shadowed`.
    pub fn chain_added(
        &mut self,
        t: TableId,
        c: ChainId,
        shadowed: Option<ChainId>,
        policy: Option<u32>,
    ) {
        self.nft.table_mut(t).use_count += 1;
        self.undo.push(Undo::ChainNew { t, c, shadowed });
        self.push(Trans::NewChain { t, c, policy });
    }

    /// Marks chain `c` deleted (its rules must be deleted already).
    pub fn chain_deleted(&mut self, t: TableId, c: ChainId) {
        let table = self.nft.table_mut(t);
        table.use_count = table.use_count.saturating_sub(1);
        table.chain_mut(c).life = Life::Gone;
        self.undo.push(Undo::ChainGone { t, c });
        self.push(Trans::DelChain { t, c });
    }

    fn touch(&mut self, t: TableId, c: ChainId) {
        let ch = self.nft.table_mut(t).chain_mut(c);
        if !ch.touched {
            ch.touched = true;
            self.touched.push((t, c));
        }
    }

    /// Adds the use counts and caller edges of a rule of chain `c` jumping to `jumps`.
    fn hold(&mut self, t: TableId, c: ChainId, jumps: &[ChainId]) {
        let table = self.nft.table_mut(t);
        table.chain_mut(c).use_count += 1;
        for &j in jumps {
            let target = table.chain_mut(j);
            target.use_count += 1;
            target.callers.add(c);
        }
    }

    /// Takes back what [`hold`](Self::hold) added.
    fn unhold(&mut self, t: TableId, c: ChainId, jumps: &[ChainId]) {
        let table = self.nft.table_mut(t);
        let ch = table.chain_mut(c);
        ch.use_count = ch.use_count.saturating_sub(1);
        for &j in jumps {
            let target = table.chain_mut(j);
            target.use_count = target.use_count.saturating_sub(1);
            target.callers.remove(c);
        }
    }

    /// Puts `rule` (added by this batch) at index `at` of chain `c`, and records it.
    pub fn insert_rule(&mut self, t: TableId, c: ChainId, at: usize, rule: Rule, id: Option<u32>) {
        let uid = rule.uid;
        self.touch(t, c);
        let table = self.nft.table_mut(t);
        table.chain_mut(c).use_count += 1;
        for j in rule.jumps() {
            let target = table.chain_mut(j);
            target.use_count += 1;
            target.callers.add(c);
        }
        let ch = self.nft.table_mut(t).chain_mut(c);
        let at = at.min(ch.rules.len());
        ch.rules.insert(at, rule);
        if let Some(id) = id {
            self.ids.entry(id).or_insert((t, c, uid));
        }
        self.push(Trans::NewRule { t, c, uid });
    }

    /// Deletes the rule at index `at` of chain `c`: `ENOENT` when it is deleted already
    /// (the kernel's "you cannot delete the same rule twice").
    pub fn delete_rule(&mut self, t: TableId, c: ChainId, at: usize) -> Step {
        let ch = self.nft.table_mut(t).chain_mut(c);
        let r = &mut ch.rules[at];
        if r.gone {
            return Err(Fail::errno(libc::ENOENT));
        }
        r.gone = true;
        let (uid, jumps): (u32, Vec<ChainId>) = (r.uid, r.jumps().collect());
        ch.pending_gone += 1;
        self.touch(t, c);
        self.unhold(t, c, &jumps);
        self.push(Trans::DelRule { t, c, uid });
        Ok(())
    }

    /// Deletes every rule of chain `c` still there.
    pub fn flush_chain(&mut self, t: TableId, c: ChainId) -> Step {
        let n = self.nft.table(t).chain(c).rules.len();
        for i in 0..n {
            if !self.nft.table(t).chain(c).rules[i].gone {
                self.delete_rule(t, c, i)?;
            }
        }
        Ok(())
    }

    /// Notes rule `uid`, just added to chain `c` with `exprs` jumping to `jumps`, for the
    /// validation at commit.
    pub fn note_for_validation(
        &mut self,
        t: TableId,
        c: ChainId,
        uid: u32,
        exprs: &[ExprId],
        jumps: &[ChainId],
    ) {
        let start = self.to_validate_ids.len();
        self.to_validate_ids.extend_from_slice(exprs);
        self.to_validate_ids.extend(jumps.iter().map(|&j| j as u32));
        self.to_validate.push(Added {
            t,
            c,
            uid,
            start,
            exprs: exprs.len(),
            jumps: jumps.len(),
        });
    }

    /// The expressions and the jump targets of a rule noted for validation.
    pub fn added_ids(&self, a: &Added) -> (&[ExprId], impl Iterator<Item = ChainId> + '_) {
        let ids = &self.to_validate_ids[a.start..a.start + a.exprs + a.jumps];
        let (exprs, jumps) = ids.split_at(a.exprs);
        (exprs, jumps.iter().map(|&j| j as ChainId))
    }

    /// The identities of the rules the batch deleted.
    pub fn deleted_uids(&self) -> std::collections::HashSet<u32> {
        self.log
            .iter()
            .filter_map(|(tr, _)| match tr {
                Trans::DelRule { uid, .. } => Some(*uid),
                _ => None,
            })
            .collect()
    }

    /// The rule added earlier in this batch with `NFTA_RULE_ID` `id`.
    pub fn rule_by_id(&self, id: u32) -> Option<(TableId, ChainId, u32)> {
        self.ids.get(&id).copied()
    }

    /// Undoes everything the batch did but use handles.
    pub fn abort(mut self) {
        let serial = self.nft.serial;
        let touched = std::mem::take(&mut self.touched);
        for &(t, c) in &touched {
            let Some(ch) = self.nft.tables[t]
                .as_mut()
                .and_then(|tb| tb.chains[c].as_mut())
            else {
                continue;
            };
            ch.touched = false;
            let rules = std::mem::take(&mut ch.rules);
            ch.pending_gone = 0;
            let mut keep = Vec::with_capacity(rules.len());
            let mut released = Vec::new();
            let mut restored = Vec::new();
            for mut r in rules {
                if r.batch == serial {
                    if !r.gone {
                        released.push(r.jumps().collect::<Vec<_>>());
                    }
                    self.release_exprs(&r);
                } else {
                    if r.gone {
                        r.gone = false;
                        restored.push(r.jumps().collect::<Vec<_>>());
                    }
                    keep.push(r);
                }
            }
            self.nft.table_mut(t).chain_mut(c).rules = keep;
            for j in released {
                self.unhold(t, c, &j);
            }
            for j in restored {
                self.hold(t, c, &j);
            }
        }
        while let Some(u) = self.undo.pop() {
            match u {
                Undo::TableNew(t) => {
                    self.nft.order.retain(|&x| x != t);
                    self.nft.tables[t] = None;
                }
                Undo::TableGone(t) => self.nft.table_mut(t).life = Life::Live,
                Undo::ChainNew { t, c, shadowed } => {
                    let table = self.nft.table_mut(t);
                    table.use_count = table.use_count.saturating_sub(1);
                    table.order.retain(|&x| x != c);
                    let name = table.chain(c).name.clone();
                    match shadowed {
                        Some(s) => table.reindex_name(&name, s),
                        None => table.unindex_name(&name, c),
                    }
                    table.chains[c] = None;
                }
                Undo::ChainGone { t, c } => {
                    let table = self.nft.table_mut(t);
                    table.use_count += 1;
                    table.chain_mut(c).life = Life::Live;
                }
            }
        }
        self.nft.serial = self.nft.serial.wrapping_add(1);
    }

    fn release_exprs(&mut self, r: &Rule) {
        for &e in r.exprs() {
            self.nft.exprs.release(e);
        }
        if let Some(u) = r.udata() {
            self.nft.exprs.release(u);
        }
    }

    /// Whether the batch changed anything (an empty transaction list leaves the generation
    /// as it is).
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    /// Makes the batch the committed state; `report` is called with each change, in the
    /// order of the transaction list, while the objects are as the kernel shows them at
    /// that point. The generation moves when anything changed.
    pub fn commit(mut self, mut report: Option<Report<'_>>) {
        let log = std::mem::take(&mut self.log);
        let mut positions = report.as_ref().map(|_| Positions::default());
        for (tr, ctx) in &log {
            let mut pos = Pos::default();
            match tr {
                Trans::NewTable { t } => self.nft.table_mut(*t).life = Life::Live,
                Trans::DelTable { .. } => {}
                Trans::NewChain { t, c, policy } => {
                    let ch = self.nft.table_mut(*t).chain_mut(*c);
                    ch.life = Life::Live;
                    if let (Some(p), Some(b)) = (policy, ch.base.as_mut()) {
                        b.policy = *p;
                    }
                }
                Trans::UpdChain {
                    t,
                    c,
                    rename,
                    policy,
                    stats,
                } => {
                    if let Some(new) = rename {
                        super::graph::rename_chain(self.nft, *t, *c, new, &self.touched);
                    }
                    let ch = self.nft.table_mut(*t).chain_mut(*c);
                    if let Some(b) = ch.base.as_mut() {
                        if let Some(p) = policy {
                            b.policy = *p;
                        }
                        if let Some(s) = stats {
                            b.stats = Some(*s);
                        }
                    }
                }
                Trans::DelChain { .. } => {}
                Trans::NewRule { t, c, uid } => {
                    if let Some(p) = positions.as_mut() {
                        pos = p.new_rule(self.nft, *t, *c, *uid);
                    }
                }
                Trans::DelRule { t, c, uid } => {
                    if let Some(p) = positions.as_mut() {
                        pos = p.del_rule(self.nft, *t, *c, *uid);
                    }
                }
            }
            if let Some(r) = report.as_mut() {
                r(self.nft, tr, ctx, pos);
            }
            // Objects deleted leave only after their event, which shows them.
            match tr {
                Trans::DelTable { t } => {
                    self.nft.order.retain(|x| x != t);
                    self.nft.tables[*t] = None;
                }
                Trans::DelChain { t, c } => {
                    let table = self.nft.table_mut(*t);
                    let name = table.chain(*c).name.clone();
                    table.unindex_name(&name, *c);
                    table.chains[*c] = None;
                    table.order.retain(|x| x != c);
                }
                _ => {}
            }
        }
        // Rules deleted by the batch leave their chains.
        let touched = std::mem::take(&mut self.touched);
        for (t, c) in touched {
            let Some(ch) = self.nft.tables[t]
                .as_mut()
                .and_then(|tb| tb.chains[c].as_mut())
            else {
                continue;
            };
            ch.touched = false;
            if ch.pending_gone == 0 {
                // Room left by growth beyond an eighth is given back (a ruleset loaded
                // once would keep up to half its rule lists empty).
                let len = ch.rules.len();
                if ch.rules.capacity() > len + len / 8 {
                    ch.rules.shrink_to(len + len / 8);
                }
                continue;
            }
            ch.pending_gone = 0;
            let rules = std::mem::take(&mut ch.rules);
            let (keep, gone): (Vec<Rule>, Vec<Rule>) = rules.into_iter().partition(|r| !r.gone);
            self.nft.table_mut(t).chain_mut(c).rules = keep;
            for r in &gone {
                self.release_exprs(r);
            }
        }
        self.nft.exprs.trim();
        for t in self.nft.tables.iter_mut().flatten() {
            let n = t.chains.len();
            if t.chains.capacity() > n + n / 8 + 16 {
                t.chains.shrink_to(n + n / 8);
            }
        }
        if !log.is_empty() {
            self.nft.genid = self.nft.genid.wrapping_add(1);
            if self.nft.genid == 0 {
                self.nft.genid = 1;
            }
        }
        self.nft.serial = self.nft.serial.wrapping_add(1);
    }
}

/// Where a rule stands when its event is built: the kernel reports the handle of the rule
/// before a new one when it is neither first nor last of its chain at that point (deleted
/// rules still in the list count until their own deletion is committed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    /// Index of the rule in its chain's list (during the commit).
    pub idx: Option<usize>,
    /// Handle of the rule before it, when the event carries it.
    pub after: Option<u64>,
}

/// The rule lists of the chains a commit reports on, as they stand at each step of it.
#[derive(Debug, Default)]
struct Positions {
    chains: std::collections::HashMap<(TableId, ChainId), Linked>,
}

#[derive(Debug)]
struct Linked {
    prev: Vec<usize>,
    next: Vec<usize>,
    by_uid: std::collections::HashMap<u32, usize>,
}

const NIL: usize = usize::MAX;

impl Positions {
    fn linked(&mut self, nft: &Nft, t: TableId, c: ChainId) -> &mut Linked {
        self.chains.entry((t, c)).or_insert_with(|| {
            let rules = &nft.table(t).chain(c).rules;
            let n = rules.len();
            Linked {
                prev: (0..n).map(|i| if i == 0 { NIL } else { i - 1 }).collect(),
                next: (0..n)
                    .map(|i| if i + 1 == n { NIL } else { i + 1 })
                    .collect(),
                by_uid: rules.iter().enumerate().map(|(i, r)| (r.uid, i)).collect(),
            }
        })
    }

    fn new_rule(&mut self, nft: &Nft, t: TableId, c: ChainId, uid: u32) -> Pos {
        let ch = nft.table(t).chain(c);
        if ch.pending_gone == 0 {
            // No rule leaves the chain in this commit: the list is the chain's, and a new
            // rule is found from the end (appends) without an index of the whole chain.
            let Some(i) = ch.rules.iter().rposition(|r| r.uid == uid) else {
                return Pos::default();
            };
            let after = (i > 0 && i + 1 < ch.rules.len()).then(|| ch.rules[i - 1].handle);
            return Pos {
                idx: Some(i),
                after,
            };
        }
        let l = self.linked(nft, t, c);
        let Some(&i) = l.by_uid.get(&uid) else {
            return Pos::default();
        };
        let after = (l.prev[i] != NIL && l.next[i] != NIL)
            .then(|| nft.table(t).chain(c).rules[l.prev[i]].handle);
        Pos {
            idx: Some(i),
            after,
        }
    }

    fn del_rule(&mut self, nft: &Nft, t: TableId, c: ChainId, uid: u32) -> Pos {
        let l = self.linked(nft, t, c);
        let Some(&i) = l.by_uid.get(&uid) else {
            return Pos::default();
        };
        let (p, n) = (l.prev[i], l.next[i]);
        if p != NIL {
            l.next[p] = n;
        }
        if n != NIL {
            l.prev[n] = p;
        }
        l.prev[i] = NIL;
        l.next[i] = NIL;
        Pos {
            idx: Some(i),
            after: None,
        }
    }
}

/// `NFT_CHAIN_*` flags this model accepts on chains (others are `EOPNOTSUPP`).
pub(crate) const CHAIN_FLAGS: u32 = NFT_CHAIN_BASE | NFT_CHAIN_HW_OFFLOAD | NFT_CHAIN_BINDING;
