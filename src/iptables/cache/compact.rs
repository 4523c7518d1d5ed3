//! Other writers' rule events replayed onto a chain the cache keeps in its compact form:
//! its canonical index (each rule's handle and canonical form, in order) and its listing
//! lines, without its decoded rules (a chain longer than the decoded budget, such as
//! kube-proxy's `KUBE-SERVICES`). The events carry whole rules, so the index and the lines
//! are edited in place, as a decoded chain's rules are: a handle that follows events keeps
//! answering a check or a delete by spec from the index after another writer changed the
//! chain, instead of reading thousands of rules again. What cannot be placed exactly is
//! forgotten and read again when needed, never guessed.

use super::replay::place_events;
use super::{reads_interfaces, Cache, Key};
use crate::ipt::IpFamily;
use crate::iptables::events::Ev;
use crate::iptables::format::rule_line;
use crate::iptables::ipset::KernelSets;
use crate::nft::Rule;

/// A rule of a chain's canonical index: its handle and its canonical form's hash.
type IndexEntry = (u64, Option<u128>);

/// A rule's listing line in a chain's edited lines: the kept line of the rule with that
/// handle (`Ok`), or a new rule's line (`Err`).
type Line = Result<u64, String>;

/// The `iptables -S` line of rule `r` of `chain`, as a listing renders it.
fn line_of(family: IpFamily, chain: &str, r: &Rule) -> String {
    let spec = crate::ipt::decode_rule_or_raw_with(r, family, &KernelSets);
    rule_line(&spec, chain, false)
}

/// A rule's place in a chain's edited lines: the kept line of the rule with that handle,
/// or a new rule's line.
pub(crate) fn line_ref(l: &Line) -> Result<u64, &str> {
    match l {
        Ok(h) => Ok(*h),
        Err(s) => Err(s.as_str()),
    }
}

impl Cache {
    /// The index entry of rule `r`, new in chain `k` with handle `h`, and its listing line
    /// when `lines` (the chain's lines are kept and edited); `None` for a rule whose form
    /// depends on interface names, which is compared afresh each time: the index alone
    /// would no longer serve for the chain.
    pub(crate) fn compact_entry(
        &mut self,
        k: &Key,
        family: IpFamily,
        r: &Rule,
        h: u64,
        lines: bool,
    ) -> Option<(IndexEntry, Option<Line>)> {
        if reads_interfaces(r) {
            return None;
        }
        let form = self.memo.canonical(k, family, r);
        Some(((h, form), lines.then(|| Err(line_of(family, &k.1, r)))))
    }

    /// Replays the rule events `events` (indexes in `batch`) on chain `k`, kept as its
    /// canonical index alone (see [`Cache::compact`]), with its listing lines when kept;
    /// `false` when one cannot be placed exactly (the caller forgets the chain). Rules are
    /// placed as in a decoded chain ([`place_events`]).
    pub(super) fn apply_compact(
        &mut self,
        family: IpFamily,
        k: &Key,
        batch: &[Ev],
        events: &[usize],
    ) -> bool {
        let Some(index) = self.compact(k) else {
            return false;
        };
        let kept = self.lines_of_index(k, &index);
        // Each rule's handle and form, with its line while lines are kept: the kept line
        // by handle, a new rule's line rendered.
        let mut items: Vec<(IndexEntry, Option<Line>)> = index
            .order()
            .iter()
            .map(|&(h, form)| ((h, form), kept.as_ref().map(|_| Ok(h))))
            .collect();
        drop(index);
        let placed = place_events(
            &mut items,
            batch,
            events,
            |x| Some(x.0 .0),
            |rule| self.compact_entry(k, family, rule, rule.handle?, kept.is_some()),
        );
        if placed.is_none() {
            return false;
        }
        let (order, lines): (Vec<_>, Vec<_>) = items.into_iter().unzip();
        let lines: Vec<Line> = lines.into_iter().flatten().collect();
        let lines = kept.and_then(|kb| kb.edit(lines.iter().map(line_ref)));
        self.put_compact(k, order, lines);
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::ipt::{encode_rule, parse_rule_str};
    use crate::iptables::listing::Block;

    const F: IpFamily = IpFamily::V4;

    fn key() -> Key {
        ("filter".to_owned(), "S1".to_owned())
    }

    /// Rule `n` of a small pool (odd ones carry a comment), with handle `h`.
    fn rule(h: u64, n: u8) -> Rule {
        let text = if n % 2 == 0 {
            format!("-s 10.0.0.{n}/32 -j ACCEPT")
        } else {
            format!("-s 10.0.0.{n}/32 -m comment --comment \"c{n}\" -j DROP")
        };
        let s = &parse_rule_str(F, &text).unwrap()[0];
        let mut r = encode_rule(s, F, "filter", "S1").unwrap();
        r.handle = Some(h);
        r
    }

    /// What a fresh read of the chain `kernel` gives: its index's order and its lines.
    fn fresh(kernel: &[(u64, u8)]) -> (Vec<(u64, Option<u128>)>, Vec<String>) {
        let rules: Vec<Rule> = kernel.iter().map(|&(h, n)| rule(h, n)).collect();
        let lines = rules.iter().map(|r| line_of(F, "S1", r)).collect();
        let idx = Cache::default().index_of(&key(), F, &Arc::new(rules), |_| None);
        (idx.order().to_vec(), lines)
    }

    /// A change another writer commits.
    #[derive(Debug, Clone)]
    enum Step {
        /// Rule `n` added at place `at` (modulo the chain's length + 1); `pos` says whether
        /// its event names the rule before it when it is last.
        Add { n: u8, at: usize, pos: bool },
        /// The `i`-th rule deleted.
        Del(usize),
        /// The `i`-th rule replaced by rule `n` (same handle); `del_first` says in which
        /// order the kernel notifies the two halves.
        Replace { i: usize, n: u8, del_first: bool },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..6, any::<usize>(), any::<bool>()).prop_map(|(n, at, pos)| Step::Add {
                n,
                at,
                pos
            }),
            any::<usize>().prop_map(Step::Del),
            (any::<usize>(), 0u8..6, any::<bool>())
                .prop_map(|(i, n, del_first)| { Step::Replace { i, n, del_first } }),
        ]
    }

    proptest! {
        /// A chain kept as its canonical index (with or without its listing lines), after
        /// other writers' commits replayed from their events, is what a fresh read of the
        /// kernel's chain makes of it: the same handles in order with the same forms, the
        /// same lines; and it is kept, not forgotten.
        #[test]
        fn a_compact_chain_follows_other_writers_events(
            start in prop::collection::vec(0u8..6, 0..10),
            commits in prop::collection::vec(prop::collection::vec(step(), 1..4), 1..12),
            with_lines in any::<bool>(),
        ) {
            let k = key();
            let mut kernel: Vec<(u64, u8)> =
                start.iter().enumerate().map(|(i, &n)| (i as u64 + 2, n)).collect();
            let mut next = kernel.len() as u64 + 2;
            let mut c = Cache::default();
            let (order, lines) = fresh(&kernel);
            c.put_compact(&k, order, with_lines.then(|| Block::new(lines)));
            for commit in commits {
                let mut batch = Vec::new();
                for s in commit {
                    match s {
                        Step::Add { n, at, pos } => {
                            let at = at % (kernel.len() + 1);
                            let mut r = rule(next, n);
                            let last = at == kernel.len();
                            if at > 0 && (!last || pos) {
                                r.position = Some(kernel[at - 1].0);
                            }
                            kernel.insert(at, (next, n));
                            next += 1;
                            batch.push(Ev::NewRule { rule: r, append: last });
                        }
                        Step::Del(i) if !kernel.is_empty() => {
                            let (h, n) = kernel.remove(i % kernel.len());
                            batch.push(Ev::DelRule(rule(h, n)));
                        }
                        Step::Replace { i, n, del_first } if !kernel.is_empty() => {
                            let i = i % kernel.len();
                            let (h, old) = kernel[i];
                            kernel[i] = (h, n);
                            let mut new = rule(h, n);
                            if i > 0 {
                                new.position = Some(kernel[i - 1].0);
                            }
                            let ev = [
                                Ev::DelRule(rule(h, old)),
                                Ev::NewRule { rule: new, append: true },
                            ];
                            if del_first {
                                batch.extend(ev);
                            } else {
                                batch.extend(ev.into_iter().rev());
                            }
                        }
                        _ => {}
                    }
                }
                c.replay(F, &batch);
                let (order, lines) = fresh(&kernel);
                let Some(idx) = c.compact(&k) else {
                    return Err(TestCaseError::fail(format!("forgotten after {batch:?}")));
                };
                prop_assert_eq!(idx.order(), &order[..]);
                let kept: Option<Vec<String>> = c
                    .lines
                    .get(&k.0, &k.1)
                    .map(|b| b.text_lines().map(str::to_owned).collect());
                if with_lines {
                    prop_assert_eq!(kept, Some(lines));
                } else {
                    prop_assert_eq!(kept, None);
                }
            }
        }
    }
}
