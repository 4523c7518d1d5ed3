//! Keys seen once already: what is done one way the first time and another way after.

use std::collections::HashSet;

/// Keys seen once already, for work done one way the first time (a one-shot command keeps
/// nothing) and another way after (a long-lived handle builds what serves the next time). At
/// most `CAP` keys are kept; past that all are forgotten, and each is new again.
#[derive(Debug)]
pub(crate) struct SeenOnce<K, const CAP: usize>(HashSet<K>);

impl<K, const CAP: usize> Default for SeenOnce<K, CAP> {
    fn default() -> Self {
        SeenOnce(HashSet::new())
    }
}

impl<K: std::hash::Hash + Eq, const CAP: usize> SeenOnce<K, CAP> {
    /// Whether `k` is seen for the first time (it is remembered from now on).
    pub(crate) fn first(&mut self, k: K) -> bool {
        if self.0.contains(&k) {
            return false;
        }
        if self.0.len() >= CAP {
            self.0.clear();
        }
        self.0.insert(k)
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_first_once_until_the_cap_forgets_all() {
        let mut s: SeenOnce<u32, 3> = SeenOnce::default();
        assert!(s.first(1));
        assert!(!s.first(1));
        assert!(s.first(2) && s.first(3));
        assert!(!s.first(2));
        // A fourth key: all forgotten first.
        assert!(s.first(4));
        assert!(s.first(1));
        s.clear();
        assert!(s.first(4));
    }
}
