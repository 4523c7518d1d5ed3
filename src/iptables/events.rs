//! Keeping the cache current from the kernel's ruleset events (`NFNLGRP_NFTABLES`), so that a
//! generation moved by another writer costs no dump of the chains cached (opt-in, see
//! [`IpTables::set_follow_events`](super::IpTables::set_follow_events)).
//!
//! The kernel sends, for every commit, one event per object changed and then `NEWGEN` with
//! the new generation. The generation is bumped before the events are sent, so a subscription
//! made before the generation read that a cached chain belongs to receives every event of
//! every later commit. Commits are replayed in order onto the cached chains; anything that
//! cannot be replayed exactly (a position that is not cached, a lost event, a gap in the
//! generations) makes the chain, or the whole cache, be read again instead.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;

use iptnl_sys::netlink::NLM_F_APPEND;
use iptnl_sys::nf_tables::{
    NFTA_GEN_ID, NFT_MSG_DELCHAIN, NFT_MSG_DELRULE, NFT_MSG_DELTABLE, NFT_MSG_NEWCHAIN,
    NFT_MSG_NEWGEN, NFT_MSG_NEWRULE,
};
use iptnl_sys::nfnetlink::{nfnl_msg_id, nfnl_subsys_id, NFNLGRP_NFTABLES, NFNL_SUBSYS_NFTABLES};

use super::cache::{Cache, Key};
use crate::ipt::IpFamily;
use crate::netlink::{Conn, Messages, Socket};
use crate::nft::{Chain, Rule, Table};

/// One event, decoded.
#[derive(Debug)]
enum Ev {
    NewRule { rule: Rule, append: bool },
    DelRule(Rule),
    NewChain(Chain),
    DelChain(Chain),
    DelTable(Table),
    Gen(u32),
}

/// A subscription to the ruleset events of one namespace.
#[derive(Debug)]
pub(crate) struct Events {
    sock: Socket,
    rx: Vec<u8>,
    queue: VecDeque<Ev>,
}

impl Events {
    /// Subscribes in the namespace of `conn`.
    pub(crate) fn open(conn: &Conn) -> Option<Events> {
        let ns = conn.socket().netns().ok()?;
        let path = format!("/proc/self/fd/{}", ns.as_raw_fd());
        let mut sock = Socket::open_in_netns(Path::new(&path)).ok()?;
        sock.ensure_rcvbuf(8 << 20);
        sock.join_group(NFNLGRP_NFTABLES).ok()?;
        Some(Events {
            sock,
            rx: Vec::new(),
            queue: VecDeque::new(),
        })
    }

    /// Reads every queued event; `false` when some were lost (or could not be decoded).
    fn drain(&mut self) -> bool {
        let mut ok = true;
        loop {
            match self.sock.recv(&mut self.rx, false) {
                Ok(true) => {}
                Ok(false) => return ok,
                Err(_) => {
                    // ENOBUFS: events were dropped. Keep draining so the buffer is empty.
                    ok = false;
                    continue;
                }
            }
            for m in Messages::new(&self.rx) {
                let Ok(m) = m else {
                    ok = false;
                    break;
                };
                if nfnl_subsys_id(m.msg_type()) != NFNL_SUBSYS_NFTABLES {
                    continue;
                }
                let ev = match nfnl_msg_id(m.msg_type()) {
                    NFT_MSG_NEWRULE => Rule::decode(&m).map(|rule| Ev::NewRule {
                        rule,
                        append: m.flags() & NLM_F_APPEND != 0,
                    }),
                    NFT_MSG_DELRULE => Rule::decode(&m).map(Ev::DelRule),
                    NFT_MSG_NEWCHAIN => Chain::decode(&m).map(Ev::NewChain),
                    NFT_MSG_DELCHAIN => Chain::decode(&m).map(Ev::DelChain),
                    NFT_MSG_DELTABLE => Table::decode(&m).map(Ev::DelTable),
                    NFT_MSG_NEWGEN => {
                        let mut genid = None;
                        if let Ok(nf) = m.nfgen() {
                            for a in nf.attrs().flatten() {
                                if a.kind() == NFTA_GEN_ID {
                                    genid = a.be32().ok();
                                }
                            }
                        }
                        match genid {
                            Some(g) => Ok(Ev::Gen(g)),
                            None => {
                                ok = false;
                                continue;
                            }
                        }
                    }
                    _ => continue,
                };
                match ev {
                    Ok(ev) => self.queue.push_back(ev),
                    Err(_) => ok = false,
                }
            }
        }
    }

    /// Brings `cache` from its generation to `g` by replaying the queued commits. `false`
    /// when it cannot: events were lost, or a generation is missing; the queue is then
    /// emptied, and the caller must forget the cache and read the generation again.
    pub(crate) fn advance(&mut self, cache: &mut Cache, family: IpFamily, g: u32) -> bool {
        let ok = self.drain();
        let Some(mut cur) = cache.genid.filter(|_| ok) else {
            self.queue.clear();
            return false;
        };
        while cur != g {
            let Some(end) = self.queue.iter().position(|e| matches!(e, Ev::Gen(_))) else {
                break;
            };
            let batch: Vec<Ev> = self.queue.drain(..=end).collect();
            let Some(Ev::Gen(x)) = batch.last() else {
                break;
            };
            let x = *x;
            if (x.wrapping_sub(cur) as i32) <= 0 {
                continue; // already in the cache (read after it, or our own commit)
            }
            if x != cur.wrapping_add(1) {
                self.queue.clear();
                return false;
            }
            replay(cache, family, &batch);
            cur = x;
        }
        if cur != g {
            self.queue.clear();
            return false;
        }
        cache.genid = Some(g);
        true
    }
}

/// The changes one commit made to one cached chain.
#[derive(Default)]
struct Edit {
    events: Vec<usize>,
}

/// Applies one commit's events to the cached chains they concern.
fn replay(cache: &mut Cache, family: IpFamily, batch: &[Ev]) {
    let f = family.nft();
    let mut per_chain: HashMap<Key, Edit> = HashMap::new();
    let mut drop_keys: HashSet<Key> = HashSet::new();
    let mut drop_tables: HashSet<String> = HashSet::new();
    for (i, ev) in batch.iter().enumerate() {
        match ev {
            Ev::NewRule { rule: r, .. } | Ev::DelRule(r) if r.family == f => {
                let k = (r.table.clone(), r.chain.clone());
                if cache.chains.contains_key(&k) {
                    per_chain.entry(k).or_default().events.push(i);
                }
            }
            Ev::NewChain(c) if c.family == f => {
                cache.forget_table(&c.table);
                // A new chain, a renamed one, or a chain updated (policy): what was cached
                // under this name, or under the old name of a renamed chain, is read again.
                drop_keys.insert((c.table.clone(), c.name.clone()));
                // A chain of that table whose handle is not known could be the one renamed.
                for k in cache.chains.keys().filter(|k| k.0 == c.table) {
                    match cache.chain_handles.get(k) {
                        Some(h) if c.handle != Some(*h) => {}
                        _ => {
                            drop_keys.insert(k.clone());
                        }
                    }
                }
            }
            Ev::DelChain(c) if c.family == f => {
                cache.forget_table(&c.table);
                drop_keys.insert((c.table.clone(), c.name.clone()));
            }
            Ev::DelTable(t) if t.family == f => {
                cache.forget_table(&t.name);
                drop_tables.insert(t.name.clone());
            }
            _ => {}
        }
    }
    for (k, edit) in per_chain {
        if drop_keys.contains(&k) || drop_tables.contains(&k.0) {
            continue;
        }
        if !apply(cache, family, &k, batch, &edit.events) {
            drop_keys.insert(k);
        }
    }
    for k in &drop_keys {
        cache.forget(k);
    }
    if !drop_tables.is_empty() {
        let keys: Vec<Key> = cache
            .chains
            .keys()
            .filter(|k| drop_tables.contains(&k.0))
            .cloned()
            .collect();
        for k in &keys {
            cache.forget(k);
        }
    }
}

/// Replays the rule events `events` (indexes in `batch`) on the cached chain `k`; `false`
/// when one cannot be placed exactly.
fn apply(cache: &mut Cache, family: IpFamily, k: &Key, batch: &[Ev], events: &[usize]) -> bool {
    let Some((old, index)) = cache.take_chain(k) else {
        // Cached as missing: a rule appeared, so the chain exists now.
        return false;
    };
    let mut rules: Vec<Rule> = Arc::unwrap_or_clone(old);
    let mut removed: Vec<Rule> = Vec::new();
    let mut added: HashSet<u64> = HashSet::new();
    // Replacing a rule keeps its handle: the kernel notifies the new rule, then the deletion
    // of the old one under the same handle.
    let mut replaced: HashMap<u64, usize> = HashMap::new();
    for &i in events {
        match &batch[i] {
            Ev::NewRule { rule, append } => {
                let Some(h) = rule.handle else { return false };
                let mut r = rule.clone();
                r.position = None;
                if let Some(at) = rules.iter().position(|x| x.handle == Some(h)) {
                    let old_rule = std::mem::replace(&mut rules[at], r);
                    removed.push(old_rule);
                    *replaced.entry(h).or_default() += 1;
                } else if let Some(p) = rule.position {
                    let Some(at) = rules.iter().position(|x| x.handle == Some(p)) else {
                        return false;
                    };
                    rules.insert(at + 1, r);
                } else if *append || rules.is_empty() {
                    // First or last in the chain: an append is last (or first of an empty
                    // chain), a prepend first; a prepend into a non-empty chain could also
                    // have become last in odd batches, so it is not guessed.
                    rules.push(r);
                } else {
                    return false;
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
            }
            _ => {}
        }
    }
    cache.put_chain(k, family, rules, index, &removed, &added);
    true
}
