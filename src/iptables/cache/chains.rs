//! A table's chain list as the cache keeps it: user chains as their names (in one string),
//! handles, flags and reference counts, instead of a [`Chain`] each.
//!
//! A kube-proxy nat table has tens of thousands of user chains; a [`Chain`] takes about 260
//! bytes with its two strings, an entry here about 70. Base chains (and any chain with more
//! than a user chain has) are kept whole.

use std::borrow::Cow;

use crate::nft::{Chain, Family};

/// A table's chains as a listing reads them: a dump's list or the cache's.
pub(crate) trait ChainsOf {
    /// How many chains.
    fn count(&self) -> usize;
    /// The name of chain `i`.
    fn name_of(&self, i: usize) -> &str;
    /// Whether chain `i` is a base chain (it has a hook).
    fn is_base(&self, i: usize) -> bool;
    /// Chain `i` whole (`None`: no such chain).
    fn whole(&self, i: usize) -> Option<Cow<'_, Chain>>;
}

impl ChainsOf for [Chain] {
    fn count(&self) -> usize {
        self.len()
    }
    fn name_of(&self, i: usize) -> &str {
        &self[i].name
    }
    fn is_base(&self, i: usize) -> bool {
        self[i].hook.is_some()
    }
    fn whole(&self, i: usize) -> Option<Cow<'_, Chain>> {
        self.get(i).map(Cow::Borrowed)
    }
}

impl ChainsOf for ChainList {
    fn count(&self) -> usize {
        self.len()
    }
    fn name_of(&self, i: usize) -> &str {
        self.name(i)
    }
    fn is_base(&self, i: usize) -> bool {
        self.items[i]
            .full
            .as_ref()
            .is_some_and(|c| c.hook.is_some())
    }
    fn whole(&self, i: usize) -> Option<Cow<'_, Chain>> {
        (i < self.len()).then(|| match &self.items[i].full {
            Some(c) => Cow::Borrowed(&**c),
            None => Cow::Owned(self.chain(i)),
        })
    }
}

/// One chain of a [`ChainList`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    /// Its name, in [`ChainList::names`].
    name: (u32, u32),
    handle: Option<u64>,
    flags: Option<u32>,
    use_count: Option<u32>,
    /// The chain whole, when it is more than a user chain of the list's table.
    full: Option<Box<Chain>>,
}

/// The length of an entry's name.
fn name_len(it: &Item) -> usize {
    (it.name.1 - it.name.0) as usize
}

/// The chains of one table, in the order the kernel lists them.
///
/// ```ignore
/// let l = ChainList::new(Family::Ipv4, "nat", vec![Chain::user(Family::Ipv4, "nat", "A")]);
/// assert_eq!(l.name(0), "A");
/// assert_eq!(l.to_chains()[0], Chain::user(Family::Ipv4, "nat", "A"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChainList {
    family: Family,
    table: String,
    names: String,
    items: Vec<Item>,
    /// Bytes of `names` that name a chain of `items` (the rest are the names of chains
    /// removed or renamed since the string was last compacted): kept as the list changes, so
    /// that an edit costs the same whatever the list's length.
    live: usize,
}

impl ChainList {
    /// The list of `chains`, chains of `table` in `family`.
    pub(crate) fn new(family: Family, table: &str, chains: Vec<Chain>) -> ChainList {
        let mut l = ChainList {
            family,
            table: table.to_owned(),
            names: String::with_capacity(chains.iter().map(|c| c.name.len()).sum()),
            items: Vec::with_capacity(chains.len()),
            live: 0,
        };
        for c in chains {
            l.push(c);
        }
        l
    }

    /// Adds a chain at the end.
    pub(crate) fn push(&mut self, c: Chain) {
        let it = self.item_of(c);
        self.items.push(it);
    }

    /// The entry of chain `c`: its name added to the list's string.
    fn item_of(&mut self, c: Chain) -> Item {
        let start = self.names.len() as u32;
        self.names.push_str(&c.name);
        self.live += c.name.len();
        let name = (start, self.names.len() as u32);
        let plain = c.family == self.family
            && c.table == self.table
            && c.hook.is_none()
            && c.counters.is_none()
            && c.id.is_none()
            && c.userdata.is_none();
        Item {
            name,
            handle: c.handle,
            flags: c.flags,
            use_count: c.use_count,
            full: (!plain).then(|| Box::new(c)),
        }
    }

    /// Puts `c` in the place of chain `i` (a chain renamed or updated keeps its place).
    pub(crate) fn set(&mut self, i: usize, c: Chain) {
        // The same name is not written twice.
        let keep = (self.name(i) == c.name).then_some(self.items[i].name);
        self.live -= name_len(&self.items[i]);
        let len = self.names.len();
        let mut it = self.item_of(c);
        if let Some(name) = keep {
            self.names.truncate(len);
            it.name = name;
        }
        self.items[i] = it;
        self.compact_names();
    }

    /// The handle of chain `i`, if known.
    pub(crate) fn handle(&self, i: usize) -> Option<u64> {
        self.items[i].handle
    }

    /// Gives chain `i` the handle `h` (the kernel's, for a chain this handle created).
    pub(crate) fn set_handle(&mut self, i: usize, h: u64) {
        let it = &mut self.items[i];
        it.handle = Some(h);
        if let Some(c) = &mut it.full {
            c.handle = Some(h);
        }
    }

    /// Keeps only the chains `i` for which `keep(i)` holds, in order.
    pub(crate) fn retain_index(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let mut i = 0;
        let mut gone = 0;
        self.items.retain(|it| {
            let k = keep(i);
            i += 1;
            if !k {
                gone += name_len(it);
            }
            k
        });
        self.live -= gone;
        self.compact_names();
    }

    /// Writes the names string afresh once it is mostly names no chain holds any more.
    fn compact_names(&mut self) {
        let used = self.live;
        if used >= self.names.len() / 2 {
            return;
        }
        let mut names = String::with_capacity(used);
        for it in &mut self.items {
            let (a, b) = it.name;
            let start = names.len() as u32;
            names.push_str(&self.names[a as usize..b as usize]);
            it.name = (start, names.len() as u32);
        }
        self.names = names;
    }

    /// Removes the chains named `name`.
    pub(crate) fn remove(&mut self, name: &str) {
        let names = &self.names;
        let mut gone = 0;
        self.items.retain(|i| {
            let k = &names[i.name.0 as usize..i.name.1 as usize] != name;
            if !k {
                gone += name_len(i);
            }
            k
        });
        self.live -= gone;
        // The names of removed chains stay in the string until it is mostly theirs.
        self.compact_names();
    }

    /// How many chains it holds.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The name of chain `i`.
    pub(crate) fn name(&self, i: usize) -> &str {
        let (a, b) = self.items[i].name;
        &self.names[a as usize..b as usize]
    }

    /// The names of its chains, in order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.name(i))
    }

    /// Whether it holds a chain named `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.names().any(|n| n == name)
    }

    /// Chain `i`.
    pub(crate) fn chain(&self, i: usize) -> Chain {
        let it = &self.items[i];
        if let Some(c) = &it.full {
            return (**c).clone();
        }
        let mut c = Chain::user(self.family, self.table.as_str(), self.name(i));
        c.handle = it.handle;
        c.flags = it.flags;
        c.use_count = it.use_count;
        c
    }

    /// Its chains, in order.
    pub(crate) fn to_chains(&self) -> Vec<Chain> {
        (0..self.len()).map(|i| self.chain(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nft::chain::{ChainType, Hook};
    use proptest::prelude::*;

    #[test]
    fn chains_come_back_as_they_went_in() {
        let mut base = Chain::user(Family::Ipv4, "nat", "PREROUTING");
        base.hook = Some(Hook {
            num: 0,
            priority: -100,
            chain_type: ChainType::Nat,
            policy: None,
            devices: Vec::new(),
        });
        base.handle = Some(1);
        let mut user = Chain::user(Family::Ipv4, "nat", "KUBE-SERVICES");
        user.handle = Some(7);
        user.use_count = Some(3);
        user.flags = Some(0);
        let odd = Chain::user(Family::Ipv6, "other", "X");
        let chains = vec![base, user, odd];
        let mut l = ChainList::new(Family::Ipv4, "nat", chains.clone());
        assert_eq!(l.to_chains(), chains);
        assert_eq!(
            l.names().collect::<Vec<_>>(),
            ["PREROUTING", "KUBE-SERVICES", "X"]
        );
        assert!(l.contains("X") && !l.contains("Y"));
        l.push(Chain::user(Family::Ipv4, "nat", "Y"));
        l.remove("KUBE-SERVICES");
        l.remove("PREROUTING");
        assert_eq!(l.names().collect::<Vec<_>>(), ["X", "Y"]);
        assert_eq!(l.chain(1), Chain::user(Family::Ipv4, "nat", "Y"));
        assert_eq!(l.len(), 2);
    }

    /// One change to a list, as the cache makes them.
    #[derive(Debug, Clone)]
    enum Change {
        Push(String),
        Set(usize, String),
        Remove(usize),
        Retain(Vec<bool>),
    }

    fn change() -> impl Strategy<Value = Change> {
        let name = "[A-Z]{1,12}";
        prop_oneof![
            name.prop_map(Change::Push),
            (any::<usize>(), name).prop_map(|(i, n)| Change::Set(i, n)),
            any::<usize>().prop_map(Change::Remove),
            proptest::collection::vec(any::<bool>(), 0..40).prop_map(Change::Retain),
        ]
    }

    proptest! {
        /// Whatever the changes, the list names the chains a plain list of names would, the
        /// count of live name bytes it keeps is the true one, and the names string is never
        /// more than about twice what the chains' names take.
        #[test]
        fn edits_keep_the_names_and_their_count(
            start in proptest::collection::vec("[A-Z]{1,12}", 0..30),
            changes in proptest::collection::vec(change(), 0..80),
        ) {
            let user = |n: &str| Chain::user(Family::Ipv4, "nat", n);
            let mut l = ChainList::new(Family::Ipv4, "nat", start.iter().map(|n| user(n)).collect());
            let mut model = start.clone();
            for ch in changes {
                match ch {
                    Change::Push(n) => {
                        l.push(user(&n));
                        model.push(n);
                    }
                    Change::Set(i, n) if !model.is_empty() => {
                        let i = i % model.len();
                        l.set(i, user(&n));
                        model[i] = n;
                    }
                    Change::Remove(i) if !model.is_empty() => {
                        let n = model[i % model.len()].clone();
                        l.remove(&n);
                        model.retain(|m| *m != n);
                    }
                    Change::Retain(keep) => {
                        let k = |i: usize| keep.get(i).copied().unwrap_or(true);
                        l.retain_index(k);
                        let mut i = 0;
                        model.retain(|_| {
                            i += 1;
                            k(i - 1)
                        });
                    }
                    _ => {}
                }
                prop_assert_eq!(l.names().collect::<Vec<_>>(), model.clone());
                let live: usize = model.iter().map(String::len).sum();
                prop_assert_eq!(l.live, live);
                prop_assert!(l.names.len() <= 2 * live + 1, "{} bytes for {live}", l.names.len());
            }
        }
    }
}
