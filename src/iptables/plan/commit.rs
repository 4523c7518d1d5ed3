//! Committing a plan for the `IpTables` handle: the batch carries the generation the plan
//! read, a refusal names the operation that caused it, and the handle's cache is brought to
//! the new generation from the plan.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::super::cache::{line_ref, Cache, CanonIndex, Key};
use super::super::error::{from_nft, Error, What};
use super::state::Entry;
use super::{KernelView, Mode, Op, OpResult, Pending, PlanError, Planner, RulesetView};
use crate::ipt::{IpFamily, ReaderFloor};
use crate::netlink::{Conn, Messages};
use crate::nft::{self, Rule};

/// The pause before planning again after a conflict: 50 µs plus a pseudo-random part (no
/// dependency) that grows to at most 1 ms by the third conflict.
///
/// A conflict means another writer committed, so retrying at once cannot livelock; what
/// decides who commits next is who is planned first once the kernel's commit lock is free.
/// Longer pauses only put the operations that already lost several times further back: at
/// 200k rules under 20 `iptables-nft` writers (`tests/api_field.rs`), a cap of 64 ms left the
/// unluckiest transactions 29–35 tries and 40–45 s behind, a 1 ms cap 15–16 tries and 28–31 s.
pub(crate) fn jitter(attempt: u32) -> std::time::Duration {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(attempt);
    let r = h.finish();
    let cap_us = 250u64 << attempt.min(2);
    std::time::Duration::from_micros(50 + r % cap_us)
}

/// Why an attempt failed: the error, and the index (in the attempt's `ops`) of the
/// operation that caused it, where one did.
#[derive(Debug)]
pub(crate) struct Failed {
    pub(crate) op: Option<usize>,
    pub(crate) error: Error,
}

impl Failed {
    fn of(op: usize, error: Error) -> Failed {
        Failed {
            op: Some(op),
            error,
        }
    }
}

/// Plans and commits `ops` as one batch, with the results and whether a batch was sent;
/// `Ok(None)` when the ruleset changed under a read (the caller waits [`jitter`] without holding the connection, then calls again).
/// With `pin`, the operations were computed from generation `pin`: they are planned only at
/// that generation and the batch carries it, so that it applies to exactly that ruleset
/// (`Ok(None)` otherwise).
pub(crate) fn run_once(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
    floor: ReaderFloor,
    ops: &[&Op<'_>],
    pin: Option<u32>,
) -> Result<Option<(Vec<OpResult>, bool)>, Failed> {
    let mut view = KernelView { conn, cache };
    let mode = Mode {
        ask_kernel: true,
        echo: true,
        counters: true,
        floor,
    };
    // Room for a few rules per operation before the batch grows.
    let capacity = ops.len().saturating_mul(512).clamp(1024, 1 << 16);
    let mut p = Planner::new(&mut view, family, mode, capacity);
    let pending = match p.plan_group(ops) {
        Ok(x) => x,
        Err((_, PlanError::Failed(Error::Conflict { .. }))) => return Ok(None),
        Err((i, e)) => return Err(Failed::of(i, e.into_error())),
    };
    if let Some(g) = pin {
        if p.genid.is_some_and(|x| x != g) {
            return Ok(None);
        }
        p.genid = Some(g);
    }
    if p.batch.is_empty() {
        return Ok(Some((
            pending.into_iter().map(|x| resolve(x, None)).collect(),
            false,
        )));
    }
    let genid = p.genid;
    p.batch.set_genid(genid);
    match p.batch.commit(p.view.conn) {
        Ok(done) => {
            let results = pending
                .into_iter()
                .map(|x| resolve(x, Some(&done)))
                .collect();
            carry_builtins(&mut p, ops);
            update_cache(&mut p, genid, &done);
            Ok(Some((results, true)))
        }
        Err(nft::Error::Conflict { .. }) => Ok(None),
        Err(nft::Error::Rejected { failures }) if !failures.is_empty() => {
            let f = &failures[0];
            let index = p.owner.get(f.index).map(|&i| i as usize);
            let op = index.and_then(|i| ops.get(i)).copied();
            // An operation on a whole table names the chain the kernel refused.
            let chain = refused_chain(&p.batch, f.index);
            Err(Failed {
                op: index,
                error: map_refusal(p.view.conn, family, op, chain.as_deref(), f),
            })
        }
        Err(e) => Err(Failed {
            op: None,
            error: from_nft(e, "committing"),
        }),
    }
}

impl<V: RulesetView + ?Sized> Planner<'_, V> {
    /// Plans the operations of a group of callers, in order: first every chain a
    /// read-dependent operation needs, so that all reads belong to one generation as far as
    /// possible and blind operations see them, then each operation, its batch operations
    /// owned by its index in `ops`. A failure comes with the index of the operation.
    pub(crate) fn plan_group(
        &mut self,
        ops: &[&Op<'_>],
    ) -> Result<Vec<Pending>, (usize, PlanError)> {
        for (i, op) in ops.iter().enumerate().filter(|(_, o)| o.reads()) {
            let (t, c) = op.table_chain();
            self.load(t, c).map_err(|e| (i, e))?;
        }
        let mut pending = Vec::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            pending.push(self.op(op).map_err(|e| (i, e))?);
            self.mark(i as u32);
        }
        Ok(pending)
    }
}

/// The chain batch operation `index` names, when it is a chain operation.
pub(crate) fn refused_chain(batch: &nft::Batch, index: usize) -> Option<String> {
    batch
        .as_netlink()
        .op_bytes(index)
        .and_then(|b| Messages::new(b).next()?.ok())
        .and_then(|m| crate::nft::Chain::decode(&m).ok())
        .map(|c| c.name)
}

pub(crate) fn resolve(p: Pending, done: Option<&nft::Committed>) -> OpResult {
    match p {
        Pending::Added(ops) => OpResult::Added {
            handles: ops
                .iter()
                .filter_map(|&o| done.and_then(|d| d.handle(o)))
                .collect(),
        },
        Pending::Present => OpResult::AlreadyPresent,
        Pending::Deleted(count) => OpResult::Deleted { count },
        Pending::Done => OpResult::Done,
    }
}

/// After a commit of rules only (no chain or table created, deleted or renamed), the
/// built-in chains seen to exist before it still exist: when the generation tells that this
/// commit was the only one since they were seen, they are known at the new one too.
fn carry_builtins(p: &mut Planner<'_, KernelView<'_>>, ops: &[&Op<'_>]) {
    let rules_only = p.rules_added > 0
        && p.chain_tables.is_empty()
        && p.touched_tables.is_empty()
        && ops.iter().all(|o| matches!(o, Op::Add { .. }));
    if !rules_only {
        return;
    }
    if let Some(now) = p.view.conn.peek_genid() {
        p.view.cache.builtins.carry(now.wrapping_sub(1), now);
    }
}

/// After a commit that carried generation `g`, the ruleset is at generation `g + 1` and
/// differs from what was cached only in the chains this batch touched: those are updated from
/// the plan (rules added are taken from the batch, with the handles the kernel echoed) or
/// dropped.
///
/// A blind batch (one that read nothing, so carried no generation) is treated the same when
/// the generation is now exactly one past the cache's: that one commit was this batch, and it
/// applied to what the cache holds. Otherwise (another writer came between) all is forgotten.
fn update_cache(p: &mut Planner<'_, KernelView<'_>>, genid: Option<u32>, done: &nft::Committed) {
    let g = match (genid, p.view.cache.genid) {
        (Some(g), _) => g,
        (None, Some(cached)) => match p.view.conn.genid() {
            Ok(now) if now == cached.wrapping_add(1) => cached,
            _ => {
                p.view.cache.clear();
                return;
            }
        },
        (None, None) => return,
    };
    if p.view.cache.genid != Some(g) {
        p.view.cache.clear();
        return;
    }
    // A handle that follows events takes the chain lists' changes from this commit's own
    // events, which name every chain created, renamed or deleted with its handle (and are
    // queued by the time the commit is acknowledged). Otherwise a chain list that only
    // gained and lost user chains is edited in place (a kube-proxy nat table has tens of
    // thousands of chains, and the kernel's chain dump costs more the more it holds); any
    // other change to it, and a table changed as a whole, is read again.
    let own = match p.view.cache.events.as_mut() {
        Some(ev) if !p.chain_tables.is_empty() || !p.touched_tables.is_empty() => {
            match ev.commits(g, g.wrapping_add(1)) {
                Some(c) => Some(c),
                None => {
                    p.view.cache.clear();
                    return;
                }
            }
        }
        _ => None,
    };
    if let Some(c) = &own {
        for batch in c.known.iter().chain(&c.new) {
            p.view.cache.own_commit(p.family, batch);
        }
    }
    for t in p.chain_tables.iter().chain(&p.touched_tables) {
        if own.is_some() {
            break;
        }
        let edits = p.chain_edits.get(t).and_then(Option::as_ref);
        match edits {
            Some(edits) if !p.touched_tables.contains(t) => {
                p.view.cache.edit_table(t, p.family, edits)
            }
            _ => p.view.cache.forget_table(t),
        }
    }
    for k in p.touched.take() {
        if p.touched_tables.contains(&k.0) {
            continue;
        }
        let appended = {
            let st = p.chains.table(&k.0).state(&k.1);
            match (&st.entries, st.exists, st.more.as_mut()) {
                (None, None | Some(true), Some(m)) if m.pending_front.is_empty() => {
                    Some(std::mem::take(&mut m.pending_back))
                }
                _ => None,
            }
        };
        if let Some(appended) = appended {
            follow_appends(p, &k, appended, done);
            continue;
        }
        let (entries, by_handle, old, exists) = {
            let st = p.chains.table(&k.0).state(&k.1);
            let exists = st.exists;
            let entries = st.entries.clone();
            match st.more.as_mut() {
                Some(m) if m.kernel.is_some() => (
                    entries,
                    std::mem::take(&mut m.by_handle),
                    m.kernel.take(),
                    exists,
                ),
                _ => (None, HashMap::new(), None, exists),
            }
        };
        if exists == Some(false) {
            p.view.cache.forget(&k);
            p.view.cache.chains.insert(k, None);
            continue;
        }
        let compact = {
            let st = p.chains.table(&k.0).state(&k.1);
            let entries = st.entries.clone();
            match st.more.as_mut() {
                Some(m) if m.kernel.is_none() => m.index.take().zip(entries),
                _ => None,
            }
        };
        if let Some((index, entries)) = compact {
            follow_compact(p, &k, index, entries, done);
            continue;
        }
        // A chain this plan created or emptied without reading it holds only what the plan
        // put in it (kept, not read again: a listing after a storm of `-N` would otherwise
        // find every new chain missing from the cache).
        let old = match (&entries, old) {
            (Some(_), None) if exists == Some(true) => Some(Arc::default()),
            (_, old) => old,
        };
        let (Some(entries), Some(old)) = (entries, old) else {
            p.view.cache.forget(&k);
            continue;
        };
        // The rules as read are moved, not cloned, into the chain's new version: the plan's
        // and the cache's references are dropped first so that the vector is unshared.
        // The index (kept also when the decoded rules were not) is of the chain as read.
        let index = match p.view.cache.take_chain_parts(&k) {
            (Some(cached), index) if Arc::ptr_eq(&cached, &old) => index,
            (None, index) => index,
            _ => None,
        };
        let mut old_rules: Vec<Option<Rule>> =
            Arc::unwrap_or_clone(old).into_iter().map(Some).collect();
        let mut rules = Vec::with_capacity(entries.len());
        let mut added = HashSet::new();
        let mut ok = true;
        for e in entries {
            match e {
                Entry::Kernel(h) => {
                    match by_handle
                        .get(&h)
                        .and_then(|&i| old_rules.get_mut(i)?.take())
                    {
                        Some(r) => rules.push(r),
                        None => ok = false,
                    }
                }
                Entry::New { op, .. } => match (p.rule_of(&k.0, &k.1, e), done.handle(op)) {
                    (Some(mut r), Some(h)) => {
                        r.handle = Some(h);
                        r.position = None;
                        added.insert(h);
                        rules.push(r);
                    }
                    _ => ok = false,
                },
            }
        }
        if !ok {
            p.view.cache.forget(&k);
            continue;
        }
        p.view.cache.put_chain(&k, p.family, rules, index, &added);
    }
    p.view.cache.forget_tables(&p.touched_tables);
    p.view.cache.genid = Some(g.wrapping_add(1));
}

/// Follows a commit on a chain the plan read as its canonical index alone (see
/// [`Cache::compact`]): its new order is the plan's entries, the kernel's rules with the
/// forms the index knows, the added ones with the handles the kernel echoed and their forms
/// computed once. What cannot be followed exactly is forgotten, read again when needed.
fn follow_compact(
    p: &mut Planner<'_, KernelView<'_>>,
    k: &Key,
    index: Arc<CanonIndex>,
    entries: Vec<Entry>,
    done: &nft::Committed,
) {
    // The index the plan read must still be the cache's.
    if !p
        .view
        .cache
        .compact(k)
        .is_some_and(|i| Arc::ptr_eq(&i, &index))
    {
        return p.view.cache.forget(k);
    }
    let mut forms = index.forms();
    let kept = p.view.cache.lines_of_index(k, &index);
    drop(index);
    let mut order = Vec::with_capacity(entries.len());
    let mut lines: Vec<Result<u64, String>> = Vec::new();
    for e in entries {
        let form = match e {
            Entry::Kernel(h) => {
                lines.push(Ok(h));
                forms.remove(&h).map(|c| (h, c))
            }
            Entry::New { op, .. } => match (p.rule_of(&k.0, &k.1, e), done.handle(op)) {
                (Some(r), Some(h)) => {
                    let entry = p
                        .view
                        .cache
                        .compact_entry(k, p.family, &r, h, kept.is_some());
                    entry.map(|(form, line)| {
                        lines.extend(line);
                        form
                    })
                }
                _ => None,
            },
        };
        match form {
            Some(f) => order.push(f),
            None => {
                p.view.cache.forget(k);
                return;
            }
        }
    }
    let lines = kept.and_then(|kb| kb.edit(lines.iter().map(line_ref)));
    p.view.cache.put_compact(k, order, lines);
}

/// Follows a commit that only appended rules to a chain it did not read (`iptables -A`):
/// what the cache holds of the chain as of the commit's generation, its decoded rules or
/// its canonical index, gains the rules at its end, with the handles the kernel echoed.
/// Otherwise the chain is forgotten, read again when needed.
fn follow_appends(
    p: &mut Planner<'_, KernelView<'_>>,
    k: &Key,
    appended: Vec<Entry>,
    done: &nft::Committed,
) {
    let mut rules = Vec::with_capacity(appended.len());
    for e in appended {
        match (e, p.rule_of(&k.0, &k.1, e)) {
            (Entry::New { op, .. }, Some(mut r)) => match done.handle(op) {
                Some(h) => {
                    r.handle = Some(h);
                    r.position = None;
                    rules.push(r);
                }
                None => return p.view.cache.forget(k),
            },
            _ => return p.view.cache.forget(k),
        }
    }
    let cache = &mut *p.view.cache;
    if let Some(Some(_)) = cache.chains.get(k) {
        let (Some(old), index) = cache.take_chain_parts(k) else {
            return cache.forget(k);
        };
        let added: HashSet<u64> = rules.iter().filter_map(|r| r.handle).collect();
        let mut all = Arc::unwrap_or_clone(old);
        all.append(&mut rules);
        cache.put_chain(k, p.family, all, index, &added);
        return;
    }
    let Some(index) = cache.compact(k).filter(|_| !cache.chains.contains_key(k)) else {
        return cache.forget(k);
    };
    let mut order = Vec::with_capacity(index.order().len() + rules.len());
    order.extend_from_slice(index.order());
    let kept = cache.lines_of_index(k, &index);
    let mut lines: Vec<Result<u64, String>> = Vec::new();
    if kept.is_some() {
        lines.extend(index.handles().map(Ok));
    }
    drop(index);
    for r in &rules {
        let h = r.handle.unwrap_or(0);
        let Some((form, line)) = cache.compact_entry(k, p.family, r, h, kept.is_some()) else {
            return cache.forget(k);
        };
        order.push(form);
        lines.extend(line);
    }
    let lines = kept.and_then(|kb| kb.edit(lines.iter().map(line_ref)));
    cache.put_compact(k, order, lines);
}

/// Turns the kernel's refusal of one operation into a typed error.
pub(crate) fn map_refusal(
    conn: &mut Conn,
    family: IpFamily,
    op: Option<&Op<'_>>,
    refused_chain: Option<&str>,
    f: &nft::OpError,
) -> Error {
    let (t, c) = op.map(|o| o.table_chain()).unwrap_or(("", ""));
    let c = match (c, refused_chain) {
        ("", Some(rc)) => rc,
        _ => c,
    };
    // The kernel's reason, without the batch's own numbering (the caller's operation is
    // what the error is about).
    let message = f.reason.clone();
    match f.errno {
        libc::ENOENT if f.reason.contains("x_tables") => {
            Error::ExtensionUnavailable(f.reason.clone())
        }
        libc::ENOENT if f.jump_target.is_some() => {
            let target = f.jump_target.clone().unwrap_or_default();
            Error::NotFound {
                what: What::Chain,
                table: t.to_owned(),
                message: format!(
                    "chain {target} does not exist in table {t} (the rule jumps to it)"
                ),
                chain: target,
            }
        }
        // A rule named by its handle (a delete, a replace, an insert before it) that is gone:
        // the chain is there.
        libc::ENOENT if f.reason.starts_with(nft::error::NO_RULE_WITH_HANDLE) => {
            Error::rule_missing(t, c, nft::error::NO_RULE_WITH_HANDLE)
        }
        libc::ENOENT => {
            let what = if f.reason.contains("chain") {
                What::Chain
            } else if f.reason.contains("table") {
                What::Table
            } else {
                What::Chain
            };
            let message = match what {
                What::Chain if !c.is_empty() => format!("chain {c} does not exist in table {t}"),
                What::Table if !t.is_empty() => format!("table {t} does not exist"),
                _ => message,
            };
            Error::NotFound {
                what,
                table: t.to_owned(),
                chain: c.to_owned(),
                message,
            }
        }
        libc::EEXIST if matches!(op, Some(Op::RenameChain { .. })) => match op {
            Some(Op::RenameChain { table, new, .. }) => Error::chain_exists(table, new),
            _ => Error::chain_exists(t, c),
        },
        libc::EEXIST => Error::chain_exists(t, c),
        libc::EBUSY if matches!(op, Some(Op::DeleteChain { flush: true, .. })) => {
            Error::ChainInUse {
                table: t.to_owned(),
                chain: c.to_owned(),
            }
        }
        libc::EBUSY
            if matches!(
                op,
                Some(Op::DeleteChain { .. } | Op::DeleteAllChains { .. })
            ) =>
        {
            let non_empty = crate::nft::list_rules(conn, Some(family.nft()), Some(t), Some(c))
                .map(|(r, _)| !r.is_empty())
                .unwrap_or(false);
            if non_empty {
                Error::NotEmpty {
                    table: t.to_owned(),
                    chain: c.to_owned(),
                }
            } else {
                Error::ChainInUse {
                    table: t.to_owned(),
                    chain: c.to_owned(),
                }
            }
        }
        libc::EPERM => Error::Permission { op: f.op.clone() },
        errno => Error::Kernel {
            errno,
            op: f.op.clone(),
            message: f.reason.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iptables::What;

    fn refusal(errno: i32, reason: &str) -> nft::OpError {
        nft::OpError {
            index: 0,
            op: "an operation".into(),
            reason: reason.into(),
            errno,
            jump_target: None,
        }
    }

    /// Each ENOENT the kernel gives for a batch says which object is missing, and the error
    /// names that object: a rule handle that is gone is a missing rule, not a missing chain.
    #[test]
    fn a_missing_object_is_named_as_what_it_is() {
        let mut conn = Conn::from_transport(crate::memory::Ruleset::new().transport());
        let cases = [
            (
                "no rule with that handle in chain FOO of table ip filter",
                What::Rule,
                "no rule with that handle in chain FOO of table filter",
            ),
            (
                "chain FOO does not exist in table ip filter",
                What::Chain,
                "chain FOO does not exist in table filter",
            ),
            (
                "table ip filter does not exist",
                What::Table,
                "table filter does not exist",
            ),
        ];
        for (reason, want, message) in cases {
            let op = Op::delete_chain("filter", "FOO", false);
            let e = map_refusal(
                &mut conn,
                IpFamily::V4,
                Some(&op),
                None,
                &refusal(libc::ENOENT, reason),
            );
            match e {
                Error::NotFound {
                    what, message: m, ..
                } => {
                    assert_eq!(what, want, "{reason}");
                    assert_eq!(m, message, "{reason}");
                }
                other => panic!("{reason}: {other:?}"),
            }
        }
    }
}
