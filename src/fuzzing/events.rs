//! The cache of chains as the kernel's ruleset events keep it: seeded with chains, then
//! advanced by the bytes of event messages, as a handle that follows events advances it.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use crate::ipt::IpFamily;
use crate::iptables::cache::Cache;
use crate::iptables::events::{decode_into, take_commits, Commits};
use crate::nft::{Chain, Expr, Rule};

/// A cache of chains at one generation, advanced by ruleset events.
///
/// ```
/// use iptnl::fuzzing::FollowedCache;
/// use iptnl::ipt::IpFamily;
/// let mut c = FollowedCache::new(IpFamily::V4, 5);
/// c.put_chain("filter", "INPUT", Vec::new());
/// // No event at all cannot bring generation 5 to 6: everything is forgotten.
/// assert!(!c.follow(&[], 6));
/// assert_eq!(c.chain("filter", "INPUT"), None);
/// ```
#[derive(Debug)]
pub struct FollowedCache {
    family: IpFamily,
    cache: Cache,
    queue: VecDeque<crate::iptables::events::Ev>,
}

impl FollowedCache {
    /// An empty cache at generation `genid`.
    pub fn new(family: IpFamily, genid: u32) -> FollowedCache {
        let mut cache = Cache::default();
        cache.genid = Some(genid);
        cache.follow = true;
        FollowedCache {
            family,
            cache,
            queue: VecDeque::new(),
        }
    }

    /// The generation the cache is valid at (`None`: it was forgotten).
    pub fn genid(&self) -> Option<u32> {
        self.cache.genid
    }

    /// Caches the rules of a chain.
    pub fn put_chain(&mut self, table: &str, chain: &str, rules: Vec<Rule>) {
        let k = (table.to_owned(), chain.to_owned());
        self.cache
            .put_chain(&k, self.family, rules, None, &HashSet::new());
    }

    /// Caches a chain as missing.
    pub fn put_missing(&mut self, table: &str, chain: &str) {
        self.cache
            .chains
            .insert((table.to_owned(), chain.to_owned()), None);
    }

    /// Caches the chain list of a table.
    pub fn put_table(&mut self, table: &str, chains: Vec<Chain>) {
        let list = crate::iptables::cache::ChainList::new(self.family.nft(), table, chains);
        self.cache.tables.insert(table.to_owned(), Arc::new(list));
    }

    /// Reads the messages of `events` (as one receive of the event socket brings them) and
    /// replays the commits they hold up to generation `to`, as a handle that follows events
    /// does when it finds the kernel at `to`: `false` when they cannot all be replayed, and
    /// the cache then holds nothing.
    pub fn follow(&mut self, events: &[u8], to: u32) -> bool {
        let ok = decode_into(events, &mut self.queue);
        let mut out = Commits::default();
        let advanced = match self.cache.genid {
            // (A reader of the kernel waits for a commit still being applied; here every
            // event there will be is in `events`.)
            Some(mut cur) if ok && (to.wrapping_sub(cur) as i32) >= 0 => {
                take_commits(&mut self.queue, &mut cur, to, &mut out) && cur == to
            }
            _ => false,
        };
        if advanced {
            self.cache.advance(self.family, &out, to);
        } else {
            self.queue.clear();
            self.cache.clear();
        }
        advanced
    }

    /// The rules cached for a chain: `None` when nothing is cached for it, `Some(None)` when it
    /// is cached as missing.
    pub fn chain(&self, table: &str, chain: &str) -> Option<Option<Vec<Rule>>> {
        let k = (table.to_owned(), chain.to_owned());
        self.cache
            .chains
            .get(&k)
            .map(|r| r.as_ref().map(|r| r.as_ref().clone()))
    }

    /// The chains cached, as (table, chain).
    pub fn cached_chains(&self) -> Vec<(String, String)> {
        let mut v: Vec<_> = self.cache.chains.keys().cloned().collect();
        v.sort();
        v
    }

    /// The chain list cached for a table.
    pub fn table(&self, table: &str) -> Option<Vec<Chain>> {
        self.cache.tables.get(table).map(|c| c.to_chains())
    }

    /// The handles of the cached rules of a chain whose canonical form is `want`, as a lookup
    /// by spec finds them (the chain's canonical index, built on the second lookup).
    pub fn find(&mut self, table: &str, chain: &str, want: &[Expr]) -> Option<Vec<u64>> {
        let k = (table.to_owned(), chain.to_owned());
        let rules = self.cache.chains.get(&k)?.clone()?;
        let mut found = self.cache.find_canonical(&k, self.family, &rules, want);
        found.sort_unstable();
        Some(found)
    }
}
