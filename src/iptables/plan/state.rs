//! What the planner knows of each chain while it plans: whether it exists, its rules
//! (those read from the kernel and those the batch adds), in the order they will be.
//!
//! Chain states are kept by table, then by name, in a map built for rulesets of tens of
//! thousands of chains (a kube-proxy restore names every one of them).

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault};
use std::sync::Arc;

use crate::iptables::cache::CanonIndex;
pub(crate) use crate::iptables::fnv::{FastSet, Fnv};
use crate::netlink::OpIndex;
use crate::nft::Rule;

/// A rule of a chain as the planner knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// In the kernel, with its handle.
    Kernel(u64),
    /// Added by this batch: its batch-local id and operation index.
    New { id: u32, op: OpIndex },
}

/// One chain as planned so far.
#[derive(Debug, Default)]
pub(crate) struct ChainState {
    /// Whether the chain exists (None: unknown, not read).
    pub(crate) exists: Option<bool>,
    /// Its rules, when known.
    pub(crate) entries: Option<Vec<Entry>>,
    /// What only chains that a command reads need (boxed: a kube-proxy ruleset has tens of
    /// thousands of chains that never need it).
    pub(crate) more: Option<Box<ChainMore>>,
}

/// The kernel's rules of a chain that was read, and what was added before the read.
#[derive(Debug, Default)]
pub(crate) struct ChainMore {
    /// The rules as read (`None` until the chain is read, or when it was read as its
    /// canonical index alone).
    pub(crate) kernel: Option<Arc<Vec<Rule>>>,
    /// The chain as read, when read as its canonical index alone (its rules' handles in
    /// order, found by canonical form; see [`ChainState::load_compact`]).
    pub(crate) index: Option<Arc<CanonIndex>>,
    /// Index in `kernel` of each rule by handle.
    pub(crate) by_handle: HashMap<u64, usize>,
    /// Rules this batch put at the front / the back of the chain before its rules were read
    /// (newest front rule first), merged with what is read.
    pub(crate) pending_front: Vec<Entry>,
    pub(crate) pending_back: Vec<Entry>,
}

impl ChainMore {
    /// Takes `rules` as the chain's kernel rules, each found by its handle, in place of its
    /// canonical index.
    fn set_kernel(&mut self, rules: Arc<Vec<Rule>>) {
        self.by_handle.clear();
        for (i, r) in rules.iter().enumerate() {
            if let Some(h) = r.handle {
                self.by_handle.insert(h, i);
            }
        }
        self.kernel = Some(rules);
        self.index = None;
    }
}

impl ChainState {
    pub(crate) fn more(&mut self) -> &mut ChainMore {
        self.more.get_or_insert_with(Box::default)
    }

    /// Takes the rules read from the kernel: `rules` in kernel order (`None`: the chain does
    /// not exist), merged with the rules added before.
    pub(crate) fn load(&mut self, rules: Option<Arc<Vec<Rule>>>, builtin: bool) {
        let exists = rules.is_some() || builtin;
        let more = self.more();
        let mut v = std::mem::take(&mut more.pending_front);
        let rules = rules.unwrap_or_default();
        v.extend(rules.iter().filter_map(|r| r.handle).map(Entry::Kernel));
        v.append(&mut more.pending_back);
        more.set_kernel(rules);
        if self.exists.is_none() || exists {
            self.exists = Some(exists);
        }
        self.entries = Some(v);
    }

    /// Takes an existing chain as read from its canonical index alone: its rules' handles in
    /// order, merged with the rules added before. Its decoded rules are not known (see
    /// [`ChainState::decoded`]).
    pub(crate) fn load_compact(&mut self, index: Arc<CanonIndex>) {
        let more = self.more();
        let mut v = std::mem::take(&mut more.pending_front);
        v.reserve(index.handles().len() + more.pending_back.len());
        v.extend(index.handles().map(Entry::Kernel));
        v.append(&mut more.pending_back);
        more.by_handle.clear();
        more.kernel = None;
        more.index = Some(index);
        self.exists = Some(true);
        self.entries = Some(v);
    }

    /// Whether the chain was read as its canonical index alone: its kernel rules are known
    /// by handle, not decoded.
    pub(crate) fn compact(&self) -> bool {
        self.more
            .as_ref()
            .is_some_and(|m| m.kernel.is_none() && m.index.is_some())
    }

    /// Takes the decoded rules of a chain read as its canonical index (`rules`, read at the
    /// plan's generation: the same handles), for operations that need more than positions
    /// and canonical forms (zeroing counters, finding a comment).
    pub(crate) fn decoded(&mut self, rules: Arc<Vec<Rule>>) {
        self.more().set_kernel(rules);
    }

    /// The kernel's rule of handle `h`, when the chain was read.
    pub(crate) fn kernel_rule(&self, h: u64) -> Option<&Rule> {
        let m = self.more.as_ref()?;
        m.kernel.as_ref()?.get(*m.by_handle.get(&h)?)
    }

    /// Forgets the rules added before the chain's rules were known.
    pub(crate) fn clear_pending(&mut self) {
        if let Some(m) = self.more.as_mut() {
            m.pending_front.clear();
            m.pending_back.clear();
        }
    }

    /// The chain is emptied (flushed, created or deleted).
    pub(crate) fn emptied(&mut self, exists: bool) {
        self.exists = Some(exists);
        self.entries = Some(Vec::new());
        self.clear_pending();
    }
}

/// The planner's chain states of one table, in the order they were first named.
///
/// The names sit in one string rather than one allocation each: a kube-proxy ruleset has
/// tens of thousands of chains, and freeing that many small blocks at the end of a restore
/// leaves the allocator a backlog (glibc consolidates them on a later allocation) that cost
/// the next restore on the same thread several milliseconds. A name is found by its hash:
/// one hash per lookup, no allocation for a known chain.
#[derive(Debug, Default)]
pub(crate) struct ChainMap {
    hasher: std::hash::RandomState,
    /// The first slot of each name hash (the hash is the key: not hashed again).
    heads: HashMap<u64, usize, std::hash::BuildHasherDefault<HashKey>>,
    slots: Vec<Slot>,
    /// The names of all slots, one after another.
    names: String,
    /// The two slots found last, the latest first (slots are never removed, only their
    /// state).
    last: std::cell::Cell<[usize; 2]>,
}

/// One chain of a [`ChainMap`].
#[derive(Debug)]
struct Slot {
    /// The next slot whose name has the same hash.
    next: Option<usize>,
    /// The name, in `ChainMap::names`.
    name: std::ops::Range<usize>,
    /// `None` once removed.
    state: Option<ChainState>,
}

/// A set of chains by table and name, looked up without allocating: a name is copied only
/// when it is added.
#[derive(Debug, Default)]
pub(crate) struct ChainSet(HashMap<String, FastSet<String>, BuildHasherDefault<Fnv>>);

impl ChainSet {
    /// Adds a chain; whether it was new.
    pub(crate) fn insert(&mut self, table: &str, chain: &str) -> bool {
        if let Some(set) = self.0.get_mut(table) {
            return !set.contains(chain) && set.insert(chain.to_owned());
        }
        self.0
            .entry(table.to_owned())
            .or_default()
            .insert(chain.to_owned())
    }

    pub(crate) fn contains(&self, table: &str, chain: &str) -> bool {
        self.0.get(table).is_some_and(|s| s.contains(chain))
    }

    pub(crate) fn remove(&mut self, table: &str, chain: &str) -> bool {
        self.0.get_mut(table).is_some_and(|s| s.remove(chain))
    }

    /// Whether any chain of `table` is in the set.
    /// Forgets every chain of `table`.
    pub(crate) fn remove_table(&mut self, table: &str) {
        self.0.remove(table);
    }

    pub(crate) fn has_table(&self, table: &str) -> bool {
        self.0.get(table).is_some_and(|s| !s.is_empty())
    }

    /// Calls `f` with each chain's table and name.
    pub(crate) fn each(&self, f: &mut dyn FnMut(&str, &str)) {
        for (t, chains) in &self.0 {
            for c in chains {
                f(t, c);
            }
        }
    }

    /// Empties the set, returning its chains as (table, chain) keys.
    pub(crate) fn take(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.0)
            .into_iter()
            .flat_map(|(t, chains)| chains.into_iter().map(move |c| (t.clone(), c)))
            .collect()
    }
}

/// A hasher for keys that are already hashes.
#[derive(Debug, Default)]
struct HashKey(u64);

impl std::hash::Hasher for HashKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl ChainMap {
    fn name(&self, slot: &Slot) -> &str {
        self.names.get(slot.name.clone()).unwrap_or("")
    }

    /// The slot named `chain`, or the hash of the name when there is none.
    fn find(&self, chain: &str) -> Result<usize, u64> {
        // Lines about one chain come together (its rules, or a rule right after its chain
        // line), and a rule's target is looked up between two of them: the two slots found
        // last are tried first, without hashing.
        let [a, b] = self.last.get();
        if self.slots.get(a).is_some_and(|s| self.name(s) == chain) {
            return Ok(a);
        }
        if self.slots.get(b).is_some_and(|s| self.name(s) == chain) {
            self.last.set([b, a]);
            return Ok(b);
        }
        let h = self.hasher.hash_one(chain);
        let mut at = self.heads.get(&h).copied();
        while let Some(i) = at {
            if self.name(&self.slots[i]) == chain {
                self.found(i);
                return Ok(i);
            }
            at = self.slots[i].next;
        }
        Err(h)
    }

    /// Makes slot `i` the latest found.
    fn found(&self, i: usize) {
        let [a, _] = self.last.get();
        self.last.set([i, a]);
    }

    pub(crate) fn get(&self, chain: &str) -> Option<&ChainState> {
        self.find(chain)
            .ok()
            .and_then(|i| self.slots[i].state.as_ref())
    }

    /// The state of `chain`, a default one added if it has none.
    pub(crate) fn state(&mut self, chain: &str) -> &mut ChainState {
        let i = match self.find(chain) {
            Ok(i) => i,
            Err(h) => {
                let start = self.names.len();
                self.names.push_str(chain);
                let i = self.slots.len();
                let next = self.heads.insert(h, i);
                self.slots.push(Slot {
                    next,
                    name: start..self.names.len(),
                    state: None,
                });
                self.found(i);
                i
            }
        };
        self.slots[i].state.get_or_insert_with(ChainState::default)
    }

    pub(crate) fn remove(&mut self, chain: &str) -> Option<ChainState> {
        let i = self.find(chain).ok()?;
        self.slots[i].state.take()
    }

    pub(crate) fn insert(&mut self, chain: &str, st: ChainState) {
        *self.state(chain) = st;
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &ChainState)> {
        self.slots
            .iter()
            .filter_map(|s| Some((self.name(s), s.state.as_ref()?)))
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut ChainState> {
        self.slots.iter_mut().filter_map(|s| s.state.as_mut())
    }
}

/// The planner's chain states by table (a handful of tables: a vector).
#[derive(Debug, Default)]
pub(crate) struct TableMap(Vec<(String, ChainMap)>);

impl TableMap {
    pub(crate) fn get(&self, table: &str) -> Option<&ChainMap> {
        self.0.iter().find(|(t, _)| t == table).map(|(_, m)| m)
    }

    pub(crate) fn get_mut(&mut self, table: &str) -> Option<&mut ChainMap> {
        self.0.iter_mut().find(|(t, _)| t == table).map(|(_, m)| m)
    }

    pub(crate) fn table(&mut self, table: &str) -> &mut ChainMap {
        let i = match self.0.iter().position(|(t, _)| t == table) {
            Some(i) => i,
            None => {
                self.0.push((table.to_owned(), ChainMap::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    pub(crate) fn remove(&mut self, table: &str) {
        self.0.retain(|(t, _)| t != table);
    }

    /// Calls `f` with the table and name of each chain a state is kept for.
    pub(crate) fn each_chain(&self, f: &mut dyn FnMut(&str, &str)) {
        for (t, m) in &self.0 {
            for (c, _) in m.iter() {
                f(t, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chain states are found by name, in the order first named, through removal and re-adding.
    #[test]
    fn chain_map_finds_states_by_name() {
        let mut m = ChainMap::default();
        for i in 0..1000 {
            m.state(&format!("KUBE-SEP-{i}")).exists = Some(i % 2 == 0);
        }
        assert_eq!(m.get("KUBE-SEP-10").and_then(|s| s.exists), Some(true));
        assert_eq!(m.get("KUBE-SEP-11").and_then(|s| s.exists), Some(false));
        assert!(m.get("KUBE-SEP-1000").is_none());
        assert!(m.get("").is_none());
        let removed = m.remove("KUBE-SEP-10").unwrap();
        assert_eq!(removed.exists, Some(true));
        assert!(m.get("KUBE-SEP-10").is_none() && m.remove("KUBE-SEP-10").is_none());
        m.insert("NEW", removed);
        assert_eq!(m.state("KUBE-SEP-10").exists, None);
        let names: Vec<&str> = m.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 1001);
        assert_eq!(names[..3], ["KUBE-SEP-0", "KUBE-SEP-1", "KUBE-SEP-2"]);
        assert_eq!(names[10], "KUBE-SEP-10");
        assert_eq!(names[1000], "NEW");
        assert_eq!(m.values_mut().count(), 1001);
    }
}
