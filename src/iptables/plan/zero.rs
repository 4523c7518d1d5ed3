//! `-Z`: a chain's counters (or one rule's) set to zero, as iptables-nft does it.

use super::state::Entry;
use super::verbs::{key, missing, too_big};
use super::{builtin, Numbered, PlanError, Planner, RulesetView};

type Plan<T> = Result<T, PlanError>;
use crate::nft::{Expr, Placement, Policy};

impl<V: RulesetView + ?Sized> Planner<'_, V> {
    /// Zeroes the counters of a chain's rules (or of rule `rule`), and of a built-in
    /// chain's own, keeping its policy.
    pub(super) fn zero(&mut self, t: &str, c: &str, rule: Option<u32>) -> Plan<()> {
        if self.known_missing(t, c) {
            return Err(missing(t, c));
        }
        self.decode_loaded(t, c)?;
        let entries = self.entries(t, c).clone();
        if let Some(n) = rule {
            if n as usize > entries.len() {
                return Err(too_big(Numbered::Zero, t, c, n));
            }
        }
        let mut anon = None;
        for (i, e) in entries.iter().enumerate() {
            if rule.is_some_and(|n| n as usize != i + 1) {
                continue;
            }
            let Entry::Kernel(h) = *e else { continue };
            let Some(mut r) = self.rule_of(t, c, *e) else {
                continue;
            };
            // Only a rule with a counter that is not zero is written again, as iptables-nft
            // does (writing a rule again also starts its other state, a quota or a limit,
            // afresh).
            let mut had = false;
            for x in &mut r.exprs {
                if let Expr::Counter(cnt) = x {
                    had |= cnt.packets != 0 || cnt.bytes != 0;
                    *cnt = Default::default();
                }
            }
            if !had {
                continue;
            }
            r.handle = None;
            r.position = None;
            // The kernel does not dump the protocol x_tables extensions are checked against:
            // without it, a TPROXY or `--to-ports` rule is refused.
            r.compat = crate::ipt::compat::compat_of(&r.exprs, self.family);
            // An anonymous set belongs to the rule that uses it: the new rule gets sets of
            // its own with the same elements.
            if r.uses_anonymous_sets() {
                if anon.is_none() {
                    anon = Some(self.view.anonymous_sets(self.family, t)?);
                }
                if let Some(sets) = anon.as_ref() {
                    r.bind_sets(sets);
                }
            }
            let id = self.batch.new_id();
            let op =
                self.batch
                    .add_rule_with_id(&r, Placement::Replace(h), self.mode.echo, Some(id))?;
            self.entries(t, c)[i] = Entry::New { id, op };
        }
        if rule.is_none() && !self.rebuilt.contains(t) {
            if let Some(bc) = builtin(t, c) {
                if let Some(ch) = self.view.chain(self.family, t, c)? {
                    let p = match self.policies.get(&key(t, c)) {
                        Some(p) => *p,
                        None => ch
                            .hook
                            .as_ref()
                            .and_then(|h| h.policy)
                            .unwrap_or(Policy::Accept),
                    };
                    self.batch
                        .add_chain(&bc.to_chain(self.family, t, p, Some((0, 0))), false)?;
                    self.chain_list_edit(t, None);
                }
            }
        }
        Ok(())
    }
}
