//! Built-in chains known to exist at one generation of the ruleset, so that a rule added to
//! one does not read the chain back first, where the connection can tell the generation
//! without a request (an in-memory ruleset): a generation that has not moved means nothing
//! changed.

/// Built-in chains (table, chain) seen to exist at generation `at`.
#[derive(Debug, Default)]
pub(crate) struct KnownChains {
    at: Option<u32>,
    chains: Vec<(String, String)>,
}

impl KnownChains {
    /// Whether `table`'s `chain` was seen at generation `genid`.
    pub(crate) fn holds(&self, genid: u32, table: &str, chain: &str) -> bool {
        self.at == Some(genid)
            && self
                .chains
                .iter()
                .any(|(t, c)| t.as_str() == table && c.as_str() == chain)
    }

    /// Records that `table`'s `chain` exists at generation `genid` (what was seen at another
    /// generation is forgotten).
    pub(crate) fn note(&mut self, genid: u32, table: &str, chain: &str) {
        if self.at != Some(genid) {
            self.chains.clear();
            self.at = Some(genid);
        }
        if !self.holds(genid, table, chain) {
            self.chains.push((table.to_owned(), chain.to_owned()));
        }
    }

    /// The ruleset went from generation `from` to `to` by a commit that created, deleted or
    /// renamed no chain and no table: what was seen at `from` still holds at `to`.
    pub(crate) fn carry(&mut self, from: u32, to: u32) {
        if self.at == Some(from) {
            self.at = Some(to);
        } else {
            self.clear();
        }
    }

    pub(crate) fn clear(&mut self) {
        self.at = None;
        self.chains.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_only_at_their_generation() {
        let mut k = KnownChains::default();
        assert!(!k.holds(1, "filter", "INPUT"));
        k.note(1, "filter", "INPUT");
        k.note(1, "nat", "OUTPUT");
        assert!(k.holds(1, "filter", "INPUT") && k.holds(1, "nat", "OUTPUT"));
        assert!(!k.holds(2, "filter", "INPUT"));
        k.carry(1, 2);
        assert!(k.holds(2, "nat", "OUTPUT") && !k.holds(1, "nat", "OUTPUT"));
        k.carry(1, 3);
        assert!(!k.holds(3, "nat", "OUTPUT") && !k.holds(2, "nat", "OUTPUT"));
        k.note(5, "filter", "INPUT");
        k.note(6, "filter", "FORWARD");
        assert!(!k.holds(6, "filter", "INPUT") && k.holds(6, "filter", "FORWARD"));
    }
}
