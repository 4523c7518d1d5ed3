//! What the cache answers from alone (a chain's canonical index) is of the cache's
//! generation, whatever the rules its callers hand it were read at: a plan reads a chain,
//! another writer commits, the plan's next read finds the new generation (the cache drops
//! the old one), and the plan goes on looking rules up in what it read first.

use std::sync::Arc;

use proptest::prelude::*;

use super::{Cache, Key};
use crate::ipt::{canonical_exprs, encode_rule, parse_rule_str, IpFamily};
use crate::nft::{Expr, Rule};

const F: IpFamily = IpFamily::V4;

fn key() -> Key {
    ("filter".to_owned(), "S1".to_owned())
}

fn spec(n: u8) -> String {
    format!("-s 10.0.0.{n}/32 -j ACCEPT")
}

fn rule(handle: u64, n: u8) -> Rule {
    let s = &parse_rule_str(F, &spec(n)).unwrap()[0];
    let mut r = encode_rule(s, F, "filter", "S1").unwrap();
    r.handle = Some(handle);
    r
}

fn want(n: u8) -> Vec<Expr> {
    canonical_exprs(&parse_rule_str(F, &spec(n)).unwrap()[0], "filter", "S1").unwrap()
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// The interleaving a threaded test of a shared handle met: the plan's lookups in rules of
/// generation 1, made after the cache moved to generation 2, once left generation 1's index
/// behind as generation 2's, which then answered for a chain that had changed.
#[test]
fn lookups_in_rules_read_before_the_generation_moved_keep_nothing() {
    let k = key();
    let mut c = Cache {
        genid: Some(1),
        ..Cache::default()
    };
    let g1 = Arc::new(vec![rule(2, 1), rule(3, 2)]);
    c.chains.insert(k.clone(), Some(g1.clone()));
    // Another writer deletes rule 2 and adds rule 4 like rule 3; the plan's next read finds
    // generation 2.
    c.clear();
    c.genid = Some(2);
    for _ in 0..3 {
        assert_eq!(c.find_canonical(&k, F, &g1, &want(1)), [2]);
    }
    assert!(!c.has_index(&k));
    assert_eq!(c.indexed_holds_all(&k, &[want(1)]), None);
    let g2 = Arc::new(vec![rule(3, 2), rule(4, 2)]);
    c.chains.insert(k.clone(), Some(g2.clone()));
    for _ in 0..3 {
        assert_eq!(sorted(c.find_canonical(&k, F, &g2, &want(2))), [3, 4]);
        assert!(c.find_canonical(&k, F, &g2, &want(1)).is_empty());
    }
    assert_eq!(c.indexed_holds_all(&k, &[want(1)]), Some(false));
}

/// A step of the property below.
#[derive(Debug, Clone)]
enum Step {
    /// Another writer adds a rule of spec `n` at the end (or the front) of the chain.
    Add(u8, bool),
    /// Another writer deletes the `i`-th rule (modulo the chain's length).
    Del(usize),
    /// The cache's caller reads the chain (the cache syncs, then serves or keeps it).
    Read,
    /// The caller looks spec `n` up in the `i`-th version it read (modulo how many).
    Find(usize, u8),
    /// The cache drops the chain's decoded rules (the budget), keeping its index.
    Trim,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u8..4, any::<bool>()).prop_map(|(n, f)| Step::Add(n, f)),
        any::<usize>().prop_map(Step::Del),
        Just(Step::Read),
        Just(Step::Read),
        (any::<usize>(), 0u8..4).prop_map(|(i, n)| Step::Find(i, n)),
        (any::<usize>(), 0u8..4).prop_map(|(i, n)| Step::Find(i, n)),
        Just(Step::Trim),
    ]
}

proptest! {
    /// Whenever the cache is at the kernel's generation, its index of the chain (when it
    /// keeps one) finds exactly the kernel's rules of each spec and, when it serves for the
    /// chain alone, holds the kernel's handles in order, whatever versions of the chain its
    /// callers looked rules up in meanwhile.
    #[test]
    fn the_index_kept_is_of_the_cache_generation(steps in prop::collection::vec(step(), 1..40)) {
        let k = key();
        let mut kernel: Vec<(u64, u8)> = Vec::new();
        let (mut gen, mut next) = (1u32, 2u64);
        let mut c = Cache::default();
        let mut held: Vec<Arc<Vec<Rule>>> = Vec::new();
        for s in steps {
            match s {
                Step::Add(n, front) => {
                    let at = if front { 0 } else { kernel.len() };
                    kernel.insert(at, (next, n));
                    next += 1;
                    gen += 1;
                }
                Step::Del(i) if !kernel.is_empty() => {
                    kernel.remove(i % kernel.len());
                    gen += 1;
                }
                Step::Del(_) => {}
                Step::Read => {
                    if c.genid != Some(gen) {
                        c.clear();
                        c.genid = Some(gen);
                    }
                    let v = match c.chains.get(&k) {
                        Some(Some(v)) => v.clone(),
                        _ => {
                            let v: Arc<Vec<Rule>> =
                                Arc::new(kernel.iter().map(|&(h, n)| rule(h, n)).collect());
                            c.chains.insert(k.clone(), Some(v.clone()));
                            v
                        }
                    };
                    held.push(v);
                }
                Step::Find(i, n) if !held.is_empty() => {
                    let v = held[i % held.len()].clone();
                    let mut got = sorted(c.find_canonical(&k, F, &v, &want(n)));
                    got.dedup();
                    let mut read: Vec<u64> =
                        v.iter().zip(v.iter().map(|r| r.handle.unwrap_or(0))).filter(|(r, _)| {
                            crate::ipt::canonical_of_rule_with(r, F, &crate::ipt::NoSets).as_deref()
                                == Some(&want(n)[..])
                        }).map(|(_, h)| h).collect();
                    read.sort_unstable();
                    // A lookup in a version answers for that version.
                    prop_assert_eq!(got, read);
                }
                Step::Find(..) => {}
                Step::Trim => {
                    c.chains.remove(&k);
                }
            }
            if c.genid == Some(gen) {
                if let Some(idx) = c.compact(&k) {
                    let order: Vec<u64> = kernel.iter().map(|&(h, _)| h).collect();
                    prop_assert_eq!(idx.handles().collect::<Vec<_>>(), order);
                }
                for n in 0..4 {
                    let have: Vec<u64> =
                        kernel.iter().filter(|&&(_, m)| m == n).map(|&(h, _)| h).collect();
                    if let Some(holds) = c.indexed_holds_all(&k, &[want(n)]) {
                        prop_assert_eq!(holds, !have.is_empty(), "spec {} at {}", n, gen);
                    }
                }
            }
        }
    }
}
