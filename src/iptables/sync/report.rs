//! What a sync changed.

use std::fmt;

/// What a sync or a removal changed.
///
/// ```
/// let r = iptnl::sync::SyncReport::default();
/// assert!(!r.changed());
/// assert_eq!(r.to_string(), "in sync");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Owned chains created (`table/chain`).
    pub chains_created: Vec<String>,
    /// Owned chains deleted (`table/chain`).
    pub chains_deleted: Vec<String>,
    /// Rules added to owned chains.
    pub rules_added: usize,
    /// Rules deleted from owned chains (others' rules found there included).
    pub rules_deleted: usize,
    /// Rules of owned chains left as they were (their counters kept).
    pub rules_kept: usize,
    /// Hook rules added.
    pub hooks_added: usize,
    /// Hook rules deleted (stale, modified, misplaced or duplicated).
    pub hooks_deleted: usize,
    /// Anchors of `Before`/`After` hooks that were not found (`table/chain: text`): those
    /// hooks went last.
    pub anchors_missing: Vec<String>,
    /// The generation the batch created, when one was sent.
    pub committed: Option<u32>,
    /// The generation at which the ruleset is as declared: the one the batch created, or,
    /// when nothing needed changing, the one the owned chains were read at.
    pub generation: Option<u32>,
    /// How many times the change was computed (more than one when the ruleset changed
    /// under it).
    pub tries: u32,
}

impl SyncReport {
    /// Whether anything was changed.
    ///
    /// ```
    /// let mut r = iptnl::sync::SyncReport::default();
    /// r.hooks_added = 1;
    /// r.committed = Some(7);
    /// assert!(r.changed());
    /// ```
    pub fn changed(&self) -> bool {
        self.committed.is_some()
    }

    pub(super) fn counts_clear(&mut self) {
        let tries = self.tries;
        *self = SyncReport {
            tries,
            ..SyncReport::default()
        };
    }
}

impl fmt::Display for SyncReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.changed() {
            return f.write_str("in sync");
        }
        write!(
            f,
            "rules +{} -{} (kept {}), hooks +{} -{}",
            self.rules_added,
            self.rules_deleted,
            self.rules_kept,
            self.hooks_added,
            self.hooks_deleted
        )?;
        if !self.chains_created.is_empty() {
            write!(f, ", chains created {}", self.chains_created.join(" "))?;
        }
        if !self.chains_deleted.is_empty() {
            write!(f, ", chains deleted {}", self.chains_deleted.join(" "))?;
        }
        if !self.anchors_missing.is_empty() {
            write!(f, ", anchors missing {}", self.anchors_missing.join("; "))?;
        }
        if let Some(g) = self.committed {
            write!(f, ", generation {g}")?;
        }
        if self.tries > 1 {
            write!(f, ", {} tries", self.tries)?;
        }
        Ok(())
    }
}
