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
                    if self.chains.contains_key(&k) || self.compact(&k).is_some() {
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
                    // Its chain list is forgotten, whether or not a chain event of this
                    // commit took it out already (a table without chains has none).
                    self.tables.remove(&t.name);
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
            let edit = self.tables.remove(&c.table).map(ListEdit::new);
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
                    self.tables.remove(&t.name);
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
        if !self.chains.contains_key(k) {
            // Kept as its canonical index alone.
            return self.apply_compact(family, k, batch, events);
        }
        let Some((old, index)) = self.take_chain(k) else {
            // Cached as missing: a rule appeared, so the chain exists now.
            return false;
        };
        let mut rules: Vec<Rule> = Arc::unwrap_or_clone(old);
        let placed = place_events(
            &mut rules,
            batch,
            events,
            |r| r.handle,
            |rule| {
                let mut r = rule.clone();
                r.position = None;
                Some(r)
            },
        );
        let Some(added) = placed else {
            return false;
        };
        self.put_chain(k, family, rules, index, &added);
        true
    }
}

/// Replays the rule events `events` (indexes in `batch`) onto `items`, a chain's rules in
/// order as the cache keeps them (decoded rules, or canonical forms with lines), each found
/// by its handle (`handle`); `make` makes the item of a new rule (`None`: it cannot be kept).
/// The handles of the rules added or replaced, or `None` when an event cannot be placed
/// exactly.
pub(super) fn place_events<T>(
    items: &mut Vec<T>,
    batch: &[Ev],
    events: &[usize],
    handle: impl Fn(&T) -> Option<u64>,
    mut make: impl FnMut(&Rule) -> Option<T>,
) -> Option<HashSet<u64>> {
    let mut added: HashSet<u64> = HashSet::new();
    // A rule replaced keeps its handle and its place. Older kernels notify the new rule, then
    // the deletion of the old one under the same handle (counted here, to skip that
    // deletion); newer ones notify the deletion first (where each handle deleted so far was,
    // for the new rule that takes its place).
    let mut replaced: HashMap<u64, usize> = HashMap::new();
    let mut deleted: HashMap<u64, usize> = HashMap::new();
    let find = |items: &[T], h: u64| items.iter().position(|x| handle(x) == Some(h));
    for &i in events {
        match &batch[i] {
            Ev::NewRule { rule, append } => {
                let h = rule.handle?;
                let item = make(rule)?;
                // The kernel gives the handle of the rule before it, unless the new rule is
                // first or last in the chain's list (which holds, while the commit is
                // applied, the rules it deletes and those it adds further on). Without one:
                // into an empty chain; last when it was appended (`NLM_F_APPEND`, which a
                // replacement carries too); first when it was inserted.
                if let Some(at) = find(items, h) {
                    items[at] = item;
                    *replaced.entry(h).or_default() += 1;
                } else if let Some(at) = deleted.remove(&h) {
                    items.insert(at.min(items.len()), item);
                } else if let Some(p) = rule.position {
                    items.insert(find(items, p)? + 1, item);
                } else if items.is_empty() || *append {
                    items.push(item);
                } else {
                    items.insert(0, item);
                }
                added.insert(h);
            }
            Ev::DelRule(rule) => {
                let h = rule.handle?;
                if let Some(n) = replaced.get_mut(&h).filter(|n| **n > 0) {
                    *n -= 1;
                    continue;
                }
                let at = find(items, h)?;
                items.remove(at);
                deleted.insert(h, at);
            }
            _ => {}
        }
    }
    Some(added)
}

/// One table's cached chain list while a commit's chain events are applied to it, in place:
/// a kube-proxy nat table holds tens of thousands of chains, and one `-N` or `-X` must not
/// cost a copy of them all. The first few events find their chain by a pass over the list;
/// a commit with more (a restore changes many chains) builds a map by handle once.
/// Deletions are marked and applied in one pass at the end, so indexes stay valid.
#[derive(Debug)]
pub(super) struct ListEdit {
    list: ChainList,
    /// Chains by handle, once [`SCANS`] lookups went by a pass over the list.
    by_handle: Option<HashMap<u64, usize>>,
    scans: usize,
    /// Chains this handle created whose handles are not known yet, by name.
    unhandled: HashMap<String, usize>,
    /// Chains deleted by the commit (empty until the first deletion).
    deleted: Vec<bool>,
}

/// Lookups by handle made by a pass over the list before a map is built.
const SCANS: usize = 8;

impl ListEdit {
    fn new(list: Arc<ChainList>) -> ListEdit {
        let list = Arc::unwrap_or_clone(list);
        let unhandled = (0..list.len())
            .filter(|&i| list.handle(i).is_none())
            .map(|i| (list.name(i).to_owned(), i))
            .collect();
        ListEdit {
            list,
            by_handle: None,
            scans: 0,
            unhandled,
            deleted: Vec::new(),
        }
    }

    fn is_deleted(&self, i: usize) -> bool {
        self.deleted.get(i).copied().unwrap_or(false)
    }

    fn mark_deleted(&mut self, i: usize) {
        if self.deleted.is_empty() {
            self.deleted = vec![false; self.list.len()];
        }
        self.deleted[i] = true;
        if let (Some(map), Some(h)) = (&mut self.by_handle, self.list.handle(i)) {
            map.remove(&h);
        }
    }

    /// The chain with handle `h` that the commit has not deleted.
    fn find(&mut self, h: u64) -> Option<usize> {
        if self.by_handle.is_none() {
            if self.scans < SCANS {
                self.scans += 1;
                return (0..self.list.len())
                    .find(|&i| self.list.handle(i) == Some(h) && !self.is_deleted(i));
            }
            let map = (0..self.list.len())
                .filter(|&i| !self.is_deleted(i))
                .filter_map(|i| self.list.handle(i).map(|h| (h, i)))
                .collect();
            self.by_handle = Some(map);
        }
        self.by_handle.as_ref().and_then(|m| m.get(&h).copied())
    }

    fn push(&mut self, c: &Chain, h: u64) {
        if let Some(map) = &mut self.by_handle {
            map.insert(h, self.list.len());
        }
        self.list.push(c.clone());
        if !self.deleted.is_empty() {
            self.deleted.push(false);
        }
    }

    /// Applies one chain event; `None` when the list cannot follow it exactly.
    fn event(&mut self, c: &Chain, deleted: bool) -> Option<ChainChange> {
        let h = c.handle?;
        if let Some(i) = self.find(h) {
            if deleted {
                self.mark_deleted(i);
                return Some(ChainChange::Other);
            }
            let old = self.list.name(i).to_owned();
            self.list.set(i, c.clone());
            return Some(if old != c.name {
                ChainChange::Renamed(old)
            } else {
                ChainChange::Other
            });
        }
        // Not known by handle: a chain of that name without a handle is one this handle
        // created (its own commit), which the event names.
        if let Some(i) = self.unhandled.remove(&c.name) {
            self.list.set_handle(i, h);
            if deleted {
                self.mark_deleted(i);
            } else if let Some(map) = &mut self.by_handle {
                map.insert(h, i);
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
        self.push(c, h);
        Some(ChainChange::Other)
    }

    /// The list as edited.
    fn finish(self) -> ChainList {
        let mut list = self.list;
        if !self.deleted.is_empty() {
            let deleted = self.deleted;
            list.retain_index(|i| !deleted[i]);
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nft::chain::{ChainType, Hook};
    use crate::nft::Family;
    use proptest::prelude::*;

    /// The list edit as a plain vector of chains, deletions applied at once.
    struct Reference {
        chains: Vec<Chain>,
    }

    impl Reference {
        fn event(&mut self, c: &Chain, deleted: bool) -> Option<ChainChange> {
            let h = c.handle?;
            if let Some(i) = self.chains.iter().position(|x| x.handle == Some(h)) {
                if deleted {
                    self.chains.remove(i);
                    return Some(ChainChange::Other);
                }
                let old = std::mem::replace(&mut self.chains[i], c.clone()).name;
                return Some(if old != c.name {
                    ChainChange::Renamed(old)
                } else {
                    ChainChange::Other
                });
            }
            if let Some(i) = self
                .chains
                .iter()
                .position(|x| x.handle.is_none() && x.name == c.name)
            {
                if deleted {
                    self.chains.remove(i);
                } else {
                    self.chains[i].handle = Some(h);
                }
                return Some(ChainChange::Other);
            }
            if deleted {
                return Some(ChainChange::Other);
            }
            if self.chains.iter().any(|x| x.handle.is_none()) {
                return None;
            }
            self.chains.push(c.clone());
            Some(ChainChange::Other)
        }
    }

    fn chain(name: &str, handle: Option<u64>, base: bool, uses: u32) -> Chain {
        let mut c = Chain::user(Family::Ipv4, "nat", name);
        c.handle = handle;
        c.use_count = Some(uses);
        if base {
            c.hook = Some(Hook {
                num: 0,
                priority: -100,
                chain_type: ChainType::Nat,
                policy: None,
                devices: Vec::new(),
            });
        }
        c
    }

    proptest! {
        /// Chain events applied in place give what a plain list gives, event by event and
        /// at the end, whether lookups go by a pass or by the map, with deletions, renames
        /// and this handle's own chains (no handle yet) among them.
        #[test]
        fn list_edit_is_a_plain_list(
            start in proptest::collection::vec((any::<bool>(), 0u8..8), 0..24),
            events in proptest::collection::vec((0u8..6, any::<u16>(), 0u8..4), 0..40),
        ) {
            let mut chains = Vec::new();
            for (i, (unhandled, kind)) in start.iter().enumerate() {
                let h = (!unhandled).then_some(10 + i as u64);
                chains.push(chain(&format!("C{i}"), h, *kind == 0, u32::from(*kind)));
            }
            let mut edit = ListEdit::new(Arc::new(ChainList::new(Family::Ipv4, "nat", chains.clone())));
            let mut reference = Reference { chains };
            let mut next = 1000u64;
            for (n, (kind, pick, uses)) in events.into_iter().enumerate() {
                let cur = &reference.chains;
                let pick = usize::from(pick);
                let some = |f: &dyn Fn(&Chain) -> bool| -> Option<Chain> {
                    let v: Vec<&Chain> = cur.iter().filter(|c| f(c)).collect();
                    (!v.is_empty()).then(|| v[pick % v.len()].clone())
                };
                let (c, deleted) = match kind {
                    // Delete a chain by handle (or one no list holds).
                    0 => match some(&|c| c.handle.is_some()) {
                        Some(c) => (c, true),
                        None => (chain("GONE", Some(5), false, 0), true),
                    },
                    // Rename one.
                    1 => match some(&|c| c.handle.is_some()) {
                        Some(mut c) => {
                            c.name = format!("R{n}");
                            (c, false)
                        }
                        None => continue,
                    },
                    // Update one under its name.
                    2 => match some(&|c| c.handle.is_some()) {
                        Some(mut c) => {
                            c.use_count = Some(u32::from(uses) + 100);
                            (c, false)
                        }
                        None => continue,
                    },
                    // This handle's own chain, created or deleted, named by the event.
                    3 | 4 => match some(&|c| c.handle.is_none()) {
                        Some(c) => {
                            next += 1;
                            (chain(&c.name, Some(next), false, u32::from(uses)), kind == 4)
                        }
                        None => continue,
                    },
                    // Another writer's new chain.
                    _ => {
                        next += 1;
                        (chain(&format!("N{n}"), Some(next), uses == 0, 0), false)
                    }
                };
                let want = reference.event(&c, deleted);
                let got = edit.event(&c, deleted);
                prop_assert_eq!(&got, &want);
                if want.is_none() {
                    return Ok(());
                }
            }
            prop_assert_eq!(edit.finish().to_chains(), reference.chains);
        }
    }
}
