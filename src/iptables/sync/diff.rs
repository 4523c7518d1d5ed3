//! The smallest ordered change from what a chain holds to what it should hold: which rules
//! to keep (a longest common ordered subsequence, paired by equal keys), which to delete and
//! which to insert. Pure; `O(n log n)`.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// What to do to turn `current` into `desired`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Edit {
    /// Indexes into `current` of the items to delete, ascending.
    pub(crate) delete: Vec<usize>,
    /// Indexes into `desired` of the items to insert, ascending.
    pub(crate) insert: Vec<usize>,
}

impl Edit {
    /// Whether nothing changes.
    pub(crate) fn is_empty(&self) -> bool {
        self.delete.is_empty() && self.insert.is_empty()
    }
}

/// The edit that keeps as many items of `current` as can stay in `desired`'s order: each
/// current item is paired with the first unpaired desired item of the same key, and a
/// longest run of pairs in increasing desired order is kept.
pub(crate) fn ordered_edit<K: Eq + Hash>(current: &[K], desired: &[K]) -> Edit {
    if current == desired {
        return Edit::default();
    }
    let mut slots: HashMap<&K, VecDeque<usize>> = HashMap::with_capacity(desired.len());
    for (j, k) in desired.iter().enumerate() {
        slots.entry(k).or_default().push_back(j);
    }
    // (current index, desired index) pairs, in current order.
    let pairs: Vec<(usize, usize)> = current
        .iter()
        .enumerate()
        .filter_map(|(i, k)| slots.get_mut(k).and_then(|q| q.pop_front()).map(|j| (i, j)))
        .collect();
    let kept = longest_increasing(&pairs);
    let mut keep_cur = vec![false; current.len()];
    let mut keep_des = vec![false; desired.len()];
    for &(i, j) in &kept {
        keep_cur[i] = true;
        keep_des[j] = true;
    }
    Edit {
        delete: (0..current.len()).filter(|&i| !keep_cur[i]).collect(),
        insert: (0..desired.len()).filter(|&j| !keep_des[j]).collect(),
    }
}

/// A longest subsequence of `pairs` whose second members strictly increase (patience
/// sorting with back links).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[l]: index into pairs of the smallest tail of an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (n, &(_, j)) in pairs.iter().enumerate() {
        let l = tails.partition_point(|&t| pairs[t].1 < j);
        back[n] = l.checked_sub(1).map(|p| tails[p]);
        if l == tails.len() {
            tails.push(n);
        } else {
            tails[l] = n;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(n) = at {
        out.push(pairs[n]);
        at = back[n];
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies an edit as sync does: deletions from the last, then insertions in order.
    fn apply(current: &[u32], desired: &[u32], e: &Edit) -> Vec<u32> {
        let mut v = current.to_vec();
        for &i in e.delete.iter().rev() {
            v.remove(i);
        }
        for &j in &e.insert {
            v.insert(j, desired[j]);
        }
        v
    }

    #[test]
    fn equal_lists_need_nothing() {
        assert!(ordered_edit(&[1, 2, 3], &[1, 2, 3]).is_empty());
    }

    #[test]
    fn a_missing_rule_goes_back_in_its_place() {
        let e = ordered_edit(&[1, 3, 4], &[1, 2, 3, 4]);
        assert_eq!(
            e,
            Edit {
                delete: vec![],
                insert: vec![1]
            }
        );
    }

    #[test]
    fn a_foreign_rule_is_deleted_and_the_others_kept() {
        let e = ordered_edit(&[1, 9, 2, 3], &[1, 2, 3]);
        assert_eq!(
            e,
            Edit {
                delete: vec![1],
                insert: vec![]
            }
        );
    }

    #[test]
    fn a_swap_moves_one_rule() {
        let e = ordered_edit(&[2, 1, 3, 4], &[1, 2, 3, 4]);
        assert_eq!(e.delete.len(), 1);
        assert_eq!(e.insert.len(), 1);
        assert_eq!(apply(&[2, 1, 3, 4], &[1, 2, 3, 4], &e), [1, 2, 3, 4]);
    }

    #[test]
    fn any_lists_are_edited_into_the_desired_one() {
        // A small deterministic generator: every current/desired pair of short lists over a
        // small alphabet (duplicates included) is edited into the desired list.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..2000 {
            let cur: Vec<u32> = (0..next(9)).map(|_| next(5) as u32).collect();
            let des: Vec<u32> = (0..next(9)).map(|_| next(5) as u32).collect();
            let e = ordered_edit(&cur, &des);
            assert_eq!(apply(&cur, &des, &e), des, "{cur:?} -> {des:?}: {e:?}");
            // Never more than replacing everything.
            assert!(e.delete.len() <= cur.len() && e.insert.len() <= des.len());
        }
    }
}
