//! What a handle keeps of a big table between listings: each chain's `iptables -S` lines,
//! not its decoded rules.
//!
//! A decoded rule (its expressions, its table and chain names) takes ten times the bytes of
//! its listing line; a server that lists a 200k-rule table keeps the lines (which is what it
//! serves) and decodes a chain again only when a command needs its rules. The lines of a
//! chain are valid as long as the chain has not changed since they were rendered: every
//! change the cache follows (this handle's commits, other writers' events) forgets them, as
//! it forgets the chain's rules.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::{Arc, Mutex, OnceLock};

use super::{reads_interfaces, sync, Cache, ChainList, Key};
use crate::ipt::IpFamily;
use crate::iptables::error::{from_nft, Error};
use crate::iptables::listing::Block;
use crate::netlink::Conn;
use crate::nft::{Chain, Rule};

/// At most this many lines are kept (a table of a million rules is listed afresh).
const MAX_LINES: usize = 1 << 20;

/// A 128-bit hash of `v`, keyed once per process: what the cache's indexes of canonical
/// forms are keyed by instead of the forms themselves (a form is a vector of expressions,
/// hundreds of bytes). Two different forms share a hash with a probability of 2^-128, and
/// the keys are random, so no input can be made to collide.
pub(crate) fn hash128<T: Hash + ?Sized>(v: &T) -> u128 {
    static KEYS: OnceLock<(RandomState, RandomState)> = OnceLock::new();
    let (a, b) = KEYS.get_or_init(|| (RandomState::new(), RandomState::new()));
    (u128::from(a.hash_one(v)) << 64) | u128::from(b.hash_one(v))
}

/// The listing lines of cached chains, by table, then by the [`hash128`] of the chain's name
/// (a kube-proxy table has tens of thousands of chains: no name is stored twice).
#[derive(Debug, Default)]
pub(crate) struct Lines {
    by_table: HashMap<String, HashMap<u128, Arc<Block>>>,
    /// How many lines it holds.
    lines: usize,
}

impl Lines {
    /// The lines of chain `chain` of `table`, when kept.
    pub(crate) fn get(&self, table: &str, chain: &str) -> Option<&Arc<Block>> {
        self.by_table.get(table)?.get(&hash128(chain))
    }

    /// Keeps the lines of a chain (unless that goes beyond the budget).
    pub(crate) fn insert(&mut self, table: &str, chain: &str, block: Arc<Block>) {
        self.remove(table, chain);
        if self.lines + block.lines() > MAX_LINES {
            return;
        }
        self.lines += block.lines();
        let t = match self.by_table.get_mut(table) {
            Some(t) => t,
            None => self.by_table.entry(table.to_owned()).or_default(),
        };
        t.insert(hash128(chain), block);
    }

    /// Forgets the lines of a chain.
    pub(crate) fn remove(&mut self, table: &str, chain: &str) {
        if let Some(b) = self
            .by_table
            .get_mut(table)
            .and_then(|t| t.remove(&hash128(chain)))
        {
            self.lines -= b.lines();
        }
    }

    /// Forgets the lines of every chain of `table`.
    pub(crate) fn remove_table(&mut self, table: &str) {
        if let Some(t) = self.by_table.remove(table) {
            self.lines -= t.values().map(|b| b.lines()).sum::<usize>();
        }
    }

    /// Forgets the lines of the chains of `table` that `name` may be named in: a jump to a
    /// chain renamed shows its new name. A chain whose lines mention `name` anywhere, or that
    /// holds a rule carried as bytes, is forgotten.
    pub(crate) fn remove_mentions(&mut self, table: &str, name: &str) {
        let Some(t) = self.by_table.get_mut(table) else {
            return;
        };
        let mut gone = 0;
        t.retain(|_, b| {
            let keep = !b.mentions(name);
            if !keep {
                gone += b.lines();
            }
            keep
        });
        self.lines -= gone;
    }

    /// Whether lines of any chain of `table` are kept.
    pub(crate) fn holds_table(&self, table: &str) -> bool {
        self.by_table.get(table).is_some_and(|t| !t.is_empty())
    }

    pub(crate) fn clear(&mut self) {
        self.by_table.clear();
        self.lines = 0;
    }
}

/// A whole table's listing lines as of one generation: its chains, and the rule lines of
/// each.
#[derive(Debug)]
pub(crate) struct TableLines {
    /// The chains in the kernel, as dumped.
    pub(crate) chains: Arc<ChainList>,
    /// The rule lines of each chain of `chains`, in the same order.
    pub(crate) blocks: Vec<Arc<Block>>,
    /// The generation they belong to.
    pub(crate) genid: u32,
}

/// The chains of `table` and the rule lines of each (as `render` makes them of a chain's
/// rules), at the current generation: from the cache where it holds them, a few missing
/// chains read one by one, or else the whole table read chain by chain, each chain's lines
/// rendered as it is read and its decoded rules dropped at once (a 200k-rule table is never
/// decoded whole at one time). The lines are kept for the next listing.
pub(crate) fn read_lines(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
    table: &str,
    render: &(dyn Fn(&str, &[Rule]) -> Vec<String> + Sync),
) -> Result<TableLines, Error> {
    /// Up to this many chains missing from the cache (or a 64th of the table's chains, if
    /// more) are read one by one; more, and the whole table is read.
    const FEW: usize = 16;
    let mut retry = conn.dump_retry();
    while retry.again() {
        let Some(g) = sync(conn, cache, family)? else {
            continue;
        };
        let known = match cache.tables.get(table) {
            Some(c) => Some(c.clone()),
            None if cache.holds_table(table) => {
                // Chains are cached but the chain list changed: it alone is read again.
                let (c, at) = crate::nft::list_chains(conn, Some(family.nft()), Some(table))
                    .map_err(|e| from_nft(e, "listing chains"))?;
                if at != g {
                    continue;
                }
                let c = Arc::new(ChainList::new(family.nft(), table, c));
                cache.tables.insert(table.to_owned(), c.clone());
                Some(c)
            }
            None => None,
        };
        if let Some(chains) = known {
            let mut blocks: Vec<Option<Arc<Block>>> = Vec::with_capacity(chains.len());
            let mut missing = Vec::new();
            let mut k: Key = (table.to_owned(), String::new());
            for (i, name) in chains.names().enumerate() {
                if let Some(b) = cache.lines.get(table, name) {
                    blocks.push(Some(b.clone()));
                    continue;
                }
                k.1.clear();
                k.1.push_str(name);
                match cache.chains.get(&k) {
                    Some(Some(r)) => {
                        let r = r.clone();
                        blocks.push(Some(cache.rendered(&k, &r, g, |r| render(name, r))));
                    }
                    _ => {
                        blocks.push(None);
                        missing.push(i);
                    }
                }
            }
            if missing.len() <= FEW.max(chains.len() / 64) {
                let mut moved = false;
                for i in missing {
                    let name = chains.name(i);
                    match super::read_chain(conn, cache, family, table, name)? {
                        (Some(r), at) if at == g => {
                            k.1.clear();
                            k.1.push_str(name);
                            blocks[i] = Some(cache.rendered(&k, &r, at, |r| render(name, r)));
                        }
                        // Changed meanwhile: the next round starts over.
                        _ => {
                            moved = true;
                            break;
                        }
                    }
                }
                let all: Option<Vec<_>> = blocks.into_iter().collect();
                // A chain too big to keep decoded was read and dropped: given back now.
                cache.release_if_asked();
                if let (false, Some(blocks)) = (moved, all) {
                    return Ok(TableLines {
                        chains,
                        blocks,
                        genid: g,
                    });
                }
                continue;
            }
        }
        // The whole table, each chain rendered as it is read (half of them on a second
        // connection), nothing decoded kept.
        // Each chain's lines, by the chain's handle (a dump names every chain with one).
        let got: Mutex<HashMap<u64, (Arc<Block>, bool)>> = Mutex::default();
        let mut list: Vec<Chain> = Vec::new();
        let read = crate::nft::dump_rules_by_chain(
            conn,
            family.nft(),
            table,
            |chains| {
                got.lock().unwrap_or_else(|p| p.into_inner()).clear();
                list = chains.to_vec();
                (0..chains.len()).collect()
            },
            |ch, rules, _| {
                let b = Arc::new(Block::new(render(&ch.name, rules)));
                let keep = !rules.iter().any(reads_interfaces);
                got.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(ch.handle.unwrap_or(u64::MAX), (b, keep));
            },
        );
        let at = match read {
            Ok((_, at)) => at,
            Err(e) if e.errno() == Some(libc::ENOENT) => {
                return Ok(TableLines {
                    chains: Arc::new(ChainList::new(family.nft(), table, Vec::new())),
                    blocks: Vec::new(),
                    genid: g,
                })
            }
            Err(e) => return Err(from_nft(e, "listing a table")),
        };
        if at != g {
            // Changed meanwhile: the next round follows the change.
            continue;
        }
        let mut got = got.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut blocks = Vec::with_capacity(list.len());
        for c in &list {
            let Some((b, keep)) = c.handle.and_then(|h| got.remove(&h)) else {
                // Every chain listed is rendered; a missing one is read again next round.
                break;
            };
            if keep {
                cache.lines.insert(table, &c.name, b.clone());
            } else {
                cache.volatile_rendered += 1;
            }
            blocks.push(b);
        }
        if blocks.len() != list.len() {
            continue;
        }
        let chains = Arc::new(ChainList::new(family.nft(), table, list));
        if !chains.is_empty() {
            cache.tables.insert(table.to_owned(), chains.clone());
        }
        // The chains' rules, decoded one chain at a time, and the dump's chain list are free
        // now: given back rather than kept resident beside the lines.
        crate::netlink::release_free_memory();
        return Ok(TableLines {
            chains,
            blocks,
            genid: g,
        });
    }
    Err(Error::Conflict {
        tries: retry.tries(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(lines: &[&str]) -> Arc<Block> {
        Arc::new(Block::new(lines.iter().map(|l| l.to_string())))
    }

    #[test]
    fn lines_are_counted_and_forgotten_by_chain_table_and_mention() {
        let mut l = Lines::default();
        l.insert("nat", "A", block(&["-A A -j B", "-A A -j RETURN"]));
        l.insert("nat", "B", block(&["-A B -j ACCEPT"]));
        l.insert("filter", "A", block(&["-A A -j DROP"]));
        assert_eq!(l.lines, 4);
        assert!(l.get("nat", "A").is_some() && l.holds_table("filter"));
        // Lines that name B go, with B's own.
        l.remove_mentions("nat", "B");
        assert!(l.get("nat", "A").is_none() && l.get("nat", "B").is_none());
        assert_eq!(l.lines, 1);
        l.insert("nat", "C", block(&["-A C -j ACCEPT"]));
        l.remove("nat", "C");
        assert_eq!(l.lines, 1);
        l.remove_table("filter");
        assert_eq!(l.lines, 0);
        assert!(!l.holds_table("filter") && !l.holds_table("nat"));
    }

    #[test]
    fn hashes_tell_values_apart_and_agree_on_equal_ones() {
        assert_eq!(hash128(&[1u8, 2][..]), hash128(&vec![1u8, 2]));
        assert_ne!(hash128(&[1u8, 2][..]), hash128(&[2u8, 1][..]));
    }
}
