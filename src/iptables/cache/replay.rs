//! Other writers' commits replayed onto the cache, event by event, in the kernel's order.
//!
//! The kernel sends one event per object a commit changed, built as the commit applies each
//! change, then `NEWGEN`. What a dump shows can also change with no event for the object
//! shown: a rule's jump or goto names its chain by the chain's current name, so a chain
//! renamed (a `NEWCHAIN` event that carries an existing handle under a new name) changes
//! every rule that jumps to it. The replay follows that too: the cached rules that name the
//! old chain are rewritten at the rename's place in the commit (rule events before it carry
//! the old name, those after it the new one). Whatever cannot be placed exactly is forgotten
//! and read again, never guessed: a rule event whose position is not cached, a chain event
//! whose chain the cache cannot tell apart from a renamed one, a burst too big to edit.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Cache, ChainList, Key};
use crate::ipt::IpFamily;
use crate::iptables::events::Ev;
use crate::nft::{Chain, Data, Expr, Rule, Verdict};

/// Above this many rule events of one chain in one commit, the chain is read again instead
/// of edited.
const BULK_RULE_EVENTS: usize = 256;

/// What a `NEWCHAIN` event did to a chain the cache may hold, as far as it can tell.
#[derive(Debug, PartialEq, Eq)]
enum ChainChange {
    /// A chain created, or one updated under its name (a policy).
    Other,
    /// A chain renamed from this name.
    Renamed(String),
    /// The chain's handle is not known: it may have been renamed from any cached chain.
    Unknown,
}

/// What one commit's replay did, for the cache's figures.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Replayed {
    /// Cached chains edited in place.
    pub(crate) edited: usize,
    /// Cached chains forgotten (read again when needed).
    pub(crate) forgotten: usize,
    /// Chains renamed, with the rules that jump to them rewritten.
    pub(crate) renames: usize,
}

/// The chain names a rule refers to (jumps and gotos, in its expressions and in the
/// elements of its anonymous sets), for rewriting.
fn chain_refs(rule: &mut Rule) -> impl Iterator<Item = &mut String> {
    let exprs = rule.exprs.iter_mut().filter_map(|e| match e {
        Expr::Immediate(i) => Some(&mut i.data),
        _ => None,
    });
    let elems = rule
        .bound_sets
        .iter_mut()
        .flat_map(|s| s.elems.iter_mut())
        .filter_map(|e| e.data.as_mut());
    exprs.chain(elems).filter_map(|d| match d {
        Data::Verdict(Verdict::Jump(n) | Verdict::Goto(n)) => Some(n),
        _ => None,
    })
}

/// Whether a rule jumps or goes to chain `name` (see [`chain_refs`]).
fn refers_to(rule: &Rule, name: &str) -> bool {
    let exprs = rule.exprs.iter().filter_map(|e| match e {
        Expr::Immediate(i) => Some(&i.data),
        _ => None,
    });
    let elems = rule
        .bound_sets
        .iter()
        .flat_map(|s| s.elems.iter())
        .filter_map(|e| e.data.as_ref());
    exprs
        .chain(elems)
        .any(|d| matches!(d, Data::Verdict(Verdict::Jump(n) | Verdict::Goto(n)) if n == name))
}

/// Whether a rule may refer to a chain in a way that cannot be rewritten (a verdict
/// expression kept as bytes).
fn opaque_verdict(rule: &Rule) -> bool {
    rule.exprs
        .iter()
        .any(|e| matches!(e, Expr::Raw(r) if r.name == "immediate"))
}

impl Cache {
    /// Applies one commit's events (see [`Events::commits`](super::Events::commits)) to the
    /// cached chains they concern, in order.
    pub(crate) fn replay(&mut self, family: IpFamily, batch: &[Ev]) -> Replayed {
        let f = family.nft();
        let mut done = Replayed::default();
        // Rule events not applied yet, per cached chain, in order.
        let mut pending: HashMap<Key, Vec<usize>> = HashMap::new();
        let mut drop_keys: HashSet<Key> = HashSet::new();
        let mut drop_tables: HashSet<String> = HashSet::new();
        // The chain lists of the tables this commit changes chains of, edited by handle.
        let mut lists: HashMap<String, Option<ListEdit>> = HashMap::new();
        for (i, ev) in batch.iter().enumerate() {
            match ev {
                Ev::NewChain(c) | Ev::DelChain(c) if drop_tables.contains(&c.table) => {}
                Ev::NewRule { rule: r, .. } | Ev::DelRule(r) if r.family == f => {
                    let k = (r.table.clone(), r.chain.clone());
                    if self.chains.contains_key(&k) {
                        pending.entry(k).or_default().push(i);
                    } else {
                        // Only its lines and index are kept: read again when needed.
                        self.lines.remove(&k.0, &k.1);
                        self.forget_index(&k);
                    }
                }
                Ev::NewChain(c) if c.family == f => {
                    let change = self.list_event(&mut lists, c, false);
                    // A new chain, a renamed one, or a chain updated (policy): what was cached
                    // under this name is read again.
                    drop_keys.insert((c.table.clone(), c.name.clone()));
                    match change {
                        ChainChange::Other => {}
                        ChainChange::Renamed(old) => {
                            // Rule events so far name the old chain; those after, the new.
                            self.apply_pending(family, batch, &mut pending, &drop_keys, &mut done);
                            drop_keys.insert((c.table.clone(), old.clone()));
                            self.rename_refs(&c.table, &old, &c.name, &mut drop_keys);
                            done.renames += 1;
                        }
                        ChainChange::Unknown => {
                            self.apply_pending(family, batch, &mut pending, &drop_keys, &mut done);
                            lists.insert(c.table.clone(), None);
                            drop_tables.insert(c.table.clone());
                        }
                    }
                }
                Ev::DelChain(c) if c.family == f => {
                    self.list_event(&mut lists, c, true);
                    drop_keys.insert((c.table.clone(), c.name.clone()));
                }
                Ev::DelTable(t) if t.family == f => {
                    lists.insert(t.name.clone(), None);
                    drop_tables.insert(t.name.clone());
                }
                _ => {}
            }
        }
        self.apply_pending(family, batch, &mut pending, &drop_keys, &mut done);
        self.put_lists(lists);
        let gone: Vec<Key> = self
            .chains
            .keys()
            .filter(|k| drop_keys.contains(*k) || drop_tables.contains(&k.0))
            .cloned()
            .collect();
        done.forgotten += gone.len();
        for k in &gone {
            self.forget(k);
        }
        for k in &drop_keys {
            self.lines.remove(&k.0, &k.1);
            self.forget_index(k);
        }
        for t in &drop_tables {
            self.lines.remove_table(t);
            self.forget_indexes_of(t);
        }
        done
    }

    /// Applies the rule events gathered so far to their chains; a chain where one cannot be
    /// placed exactly is forgotten.
    fn apply_pending(
        &mut self,
        family: IpFamily,
        batch: &[Ev],
        pending: &mut HashMap<Key, Vec<usize>>,
        drop_keys: &HashSet<Key>,
        done: &mut Replayed,
    ) {
        for (k, events) in pending.drain() {
            if drop_keys.contains(&k) {
                continue;
            }
            // Each event finds its rule by a pass over the chain: a chain that changed a lot
            // is read again instead.
            if events.len() > BULK_RULE_EVENTS || !self.apply(family, &k, batch, &events) {
                self.forget(&k);
                done.forgotten += 1;
            } else {
                done.edited += 1;
            }
        }
    }

    /// Applies chain event `c` to the cached chain list of its table (taken out of the cache
    /// into `lists` at its first event of the commit) and says what it did to a chain the
    /// cache may hold.
    fn list_event(
        &mut self,
        lists: &mut HashMap<String, Option<ListEdit>>,
        c: &Chain,
        deleted: bool,
    ) -> ChainChange {
        if !lists.contains_key(&c.table) {
            let edit = self
                .tables
                .remove(&c.table)
                .map(|l| ListEdit::new(&c.table, l));
            lists.insert(c.table.clone(), edit);
        }
        let holds_rules = self.lines.holds_table(&c.table)
            || self
                .chains
                .iter()
                .any(|(k, v)| k.0 == c.table && v.is_some());
        let slot = lists.get_mut(&c.table).expect("inserted above");
        let change = match slot.as_mut().map(|l| l.event(c, deleted)) {
            Some(Some(change)) => change,
            // A list that cannot follow the event is read again when needed.
            Some(None) => {
                *slot = None;
                ChainChange::Unknown
            }
            // No list, and no rule of the table cached: nothing can name the chain.
            None => ChainChange::Unknown,
        };
        match change {
            ChainChange::Unknown if !holds_rules => ChainChange::Other,
            change => change,
        }
    }

    /// Puts the chain lists edited by a commit back into the cache.
    fn put_lists(&mut self, lists: HashMap<String, Option<ListEdit>>) {
        for (t, edit) in lists {
            if let Some(edit) = edit {
                self.tables.insert(t, Arc::new(edit.finish()));
            }
        }
    }

    /// Follows on the cached chain lists a commit whose rules the cache holds already: this
    /// handle's own (the rules it changed are in the cache from the plan, but the chains it
    /// created, renamed or deleted come with the handles the kernel gave them only in its
    /// events), or one made before the cache read what it holds.
    pub(crate) fn own_commit(&mut self, family: IpFamily, batch: &[Ev]) {
        let f = family.nft();
        let mut lists: HashMap<String, Option<ListEdit>> = HashMap::new();
        for ev in batch {
            match ev {
                Ev::NewChain(c) if c.family == f => {
                    self.list_event(&mut lists, c, false);
                }
                Ev::DelChain(c) if c.family == f => {
                    self.list_event(&mut lists, c, true);
                }
                Ev::DelTable(t) if t.family == f => {
                    lists.insert(t.name.clone(), None);
                }
                _ => {}
            }
        }
        self.put_lists(lists);
    }

    /// Chain `old` of `table` is now `new`: the cached rules of that table that jump or go to
    /// it now name `new` (the kernel prints a jump by the chain's current name). A rule
    /// whose verdict is kept as bytes makes its chain be read again.
    fn rename_refs(&mut self, table: &str, old: &str, new: &str, drop_keys: &mut HashSet<Key>) {
        // Chains kept as lines only are read again when next listed; indexes (a jump's
        // canonical form names its target) are built again.
        self.lines.remove_mentions(table, old);
        self.forget_indexes_of(table);
        let keys: Vec<Key> = self
            .chains
            .iter()
            .filter(|(k, v)| {
                k.0 == table
                    && v.as_ref().is_some_and(|rules| {
                        rules.iter().any(|r| opaque_verdict(r) || refers_to(r, old))
                    })
            })
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            if drop_keys.contains(&k) {
                continue;
            }
            let Some((rules, _)) = self.take_chain(&k) else {
                continue;
            };
            if rules.iter().any(opaque_verdict) {
                drop_keys.insert(k);
                continue;
            }
            let mut rules = Arc::unwrap_or_clone(rules);
            for r in &mut rules {
                for n in chain_refs(r) {
                    if n == old {
                        new.clone_into(n);
                    }
                }
            }
            // The canonical index is keyed by the rules' forms, which changed: built again.
            self.chains.insert(k, Some(Arc::new(rules)));
        }
    }

    /// Replays the rule events `events` (indexes in `batch`) on the cached chain `k`; `false`
    /// when one cannot be placed exactly.
    fn apply(&mut self, family: IpFamily, k: &Key, batch: &[Ev], events: &[usize]) -> bool {
        let Some((old, index)) = self.take_chain(k) else {
            // Cached as missing: a rule appeared, so the chain exists now.
            return false;
        };
        let mut rules: Vec<Rule> = Arc::unwrap_or_clone(old);
        let mut removed: Vec<Rule> = Vec::new();
        let mut added: HashSet<u64> = HashSet::new();
        // A rule replaced keeps its handle and its place. Older kernels notify the new rule,
        // then the deletion of the old one under the same handle (counted here, to skip that
        // deletion); newer ones notify the deletion first (where each handle deleted so far
        // was, for the new rule that takes its place).
        let mut replaced: HashMap<u64, usize> = HashMap::new();
        let mut deleted: HashMap<u64, usize> = HashMap::new();
        for &i in events {
            match &batch[i] {
                Ev::NewRule { rule, append } => {
                    let Some(h) = rule.handle else { return false };
                    let mut r = rule.clone();
                    r.position = None;
                    // The kernel gives the handle of the rule before it, unless the new rule
                    // is first or last in the chain's list (which holds, while the commit is
                    // applied, the rules it deletes and those it adds further on). Without
                    // one: into an empty chain; last when it was appended (`NLM_F_APPEND`,
                    // which a replacement carries too); first when it was inserted.
                    if let Some(at) = rules.iter().position(|x| x.handle == Some(h)) {
                        let old_rule = std::mem::replace(&mut rules[at], r);
                        removed.push(old_rule);
                        *replaced.entry(h).or_default() += 1;
                    } else if let Some(at) = deleted.remove(&h) {
                        rules.insert(at.min(rules.len()), r);
                    } else if let Some(p) = rule.position {
                        let Some(at) = rules.iter().position(|x| x.handle == Some(p)) else {
                            return false;
                        };
                        rules.insert(at + 1, r);
                    } else if rules.is_empty() || *append {
                        rules.push(r);
                    } else {
                        rules.insert(0, r);
                    }
                    added.insert(h);
                }
                Ev::DelRule(rule) => {
                    let Some(h) = rule.handle else { return false };
                    if let Some(n) = replaced.get_mut(&h).filter(|n| **n > 0) {
                        *n -= 1;
                        continue;
                    }
                    let Some(at) = rules.iter().position(|x| x.handle == Some(h)) else {
                        return false;
                    };
                    removed.push(rules.remove(at));
                    deleted.insert(h, at);
                }
                _ => {}
            }
        }
        self.put_chain(k, family, rules, index, &removed, &added);
        true
    }
}

/// One table's cached chain list while a commit's chain events are applied to it: chains
/// found by handle through a map built once, deletions applied in one pass at the end (a
/// kube-proxy nat table holds tens of thousands of chains, and a restore changes many).
#[derive(Debug)]
pub(super) struct ListEdit {
    family: crate::nft::Family,
    table: String,
    chains: Vec<Chain>,
    by_handle: HashMap<u64, usize>,
    /// Chains this handle created whose handles are not known yet, by name.
    unhandled: HashMap<String, usize>,
    deleted: Vec<bool>,
}

impl ListEdit {
    fn new(table: &str, list: Arc<ChainList>) -> ListEdit {
        let family = list.family();
        let chains = list.to_chains();
        let mut by_handle = HashMap::with_capacity(chains.len());
        let mut unhandled = HashMap::new();
        for (i, c) in chains.iter().enumerate() {
            match c.handle {
                Some(h) => by_handle.insert(h, i),
                None => unhandled.insert(c.name.clone(), i),
            };
        }
        let deleted = vec![false; chains.len()];
        ListEdit {
            family,
            table: table.to_owned(),
            chains,
            by_handle,
            unhandled,
            deleted,
        }
    }

    /// Applies one chain event; `None` when the list cannot follow it exactly.
    fn event(&mut self, c: &Chain, deleted: bool) -> Option<ChainChange> {
        let h = c.handle?;
        if let Some(&i) = self.by_handle.get(&h) {
            if deleted {
                self.deleted[i] = true;
                self.by_handle.remove(&h);
                return Some(ChainChange::Other);
            }
            let old = std::mem::replace(&mut self.chains[i], c.clone()).name;
            return Some(if old != c.name {
                ChainChange::Renamed(old)
            } else {
                ChainChange::Other
            });
        }
        // Not known by handle: a chain of that name without a handle is one this handle
        // created (its own commit), which the event names.
        if let Some(i) = self.unhandled.remove(&c.name) {
            self.chains[i].handle = Some(h);
            if deleted {
                self.deleted[i] = true;
            } else {
                self.by_handle.insert(h, i);
            }
            return Some(ChainChange::Other);
        }
        if deleted {
            return Some(ChainChange::Other);
        }
        // A chain without a handle could be the one renamed: the list cannot tell.
        if !self.unhandled.is_empty() {
            return None;
        }
        self.by_handle.insert(h, self.chains.len());
        self.chains.push(c.clone());
        self.deleted.push(false);
        Some(ChainChange::Other)
    }

    /// The list as edited.
    fn finish(self) -> ChainList {
        let deleted = self.deleted;
        let mut i = 0;
        let mut chains = self.chains;
        chains.retain(|_| {
            let keep = !deleted[i];
            i += 1;
            keep
        });
        ChainList::new(self.family, &self.table, chains)
    }
}
