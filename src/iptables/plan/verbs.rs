//! What each iptables command does to the plan.

use std::collections::HashSet;
use std::sync::Arc;

use super::state::FastSet;

use super::state::{ChainMap, ChainState, Entry};
use super::{
    builtin, At, ChainEdit, DelMode, Numbered, Op, Pending, PlanError, Planner, Refusal,
    RulesetView,
};
use crate::ipt::command::check_chain_name;
use crate::ipt::decode::rule_comment;
use crate::ipt::{
    canonical_exprs_with, canonical_of_rule_with, encode_rule_into_for, RuleSpec, RuleTarget,
};
use crate::netlink::Messages;
use crate::nft::{Chain, Placement, Policy, Rule, Table};

type Plan<T> = Result<T, PlanError>;

/// Adds a table name to a set, allocating only when it is new (every rule of a restore names
/// its table).
fn note(set: &mut FastSet<String>, table: &str) {
    if !set.contains(table) {
        set.insert(table.to_owned());
    }
}

pub(super) fn key(table: &str, chain: &str) -> (String, String) {
    (table.to_owned(), chain.to_owned())
}

fn chain_missing(t: &str, c: &str) -> Refusal {
    Refusal::ChainMissing {
        table: t.to_owned(),
        chain: c.to_owned(),
    }
}

pub(super) fn missing(t: &str, c: &str) -> PlanError {
    chain_missing(t, c).into()
}

pub(super) fn too_big(what: Numbered, t: &str, c: &str, n: u32) -> PlanError {
    Refusal::TooBig {
        what,
        table: t.to_owned(),
        chain: c.to_owned(),
        n,
    }
    .into()
}

impl<V: RulesetView + ?Sized> Planner<'_, V> {
    pub(crate) fn state(&mut self, table: &str, chain: &str) -> &mut ChainState {
        self.chains.table(table).state(chain)
    }

    fn known(&self, table: &str, chain: &str) -> Option<&ChainState> {
        self.chains.get(table)?.get(chain)
    }

    /// Whether the plan knows the chain does not exist: deleted by it, read as missing, or
    /// not declared in a table it rebuilds.
    pub(super) fn known_missing(&self, table: &str, chain: &str) -> bool {
        match self.known(table, chain).and_then(|s| s.exists) {
            Some(e) => !e,
            None => self.rebuilt.contains(table),
        }
    }

    /// Reads a chain's rules (once), remembering the generation.
    pub(crate) fn load(&mut self, table: &str, chain: &str) -> Plan<()> {
        if self
            .known(table, chain)
            .is_some_and(|s| s.entries.is_some())
        {
            return Ok(());
        }
        if self.rebuilt.contains(table) {
            // Not declared in a table this plan rebuilds: it does not exist (a built-in
            // chain is there, empty, as iptables lists it).
            let is_builtin = builtin(table, chain).is_some();
            let st = self.state(table, chain);
            st.exists = Some(is_builtin);
            st.entries = Some(Vec::new());
            return Ok(());
        }
        if !self.flushed.contains(table) {
            // A long chain the cache keeps as its canonical index only: its handles in order
            // are all a delete or check by spec, or a positional command, needs.
            if let Some((index, g)) = self.view.chain_index(self.family, table, chain)? {
                self.genid.get_or_insert(g);
                self.state(table, chain).load_compact(index);
                return Ok(());
            }
        }
        let (mut rules, g) = self.view.chain_rules(self.family, table, chain)?;
        self.genid.get_or_insert(g);
        if self.flushed.contains(table) {
            // This plan emptied every chain of the table: only whether it exists counts.
            rules = rules.map(|_| Arc::new(Vec::new()));
        }
        let is_builtin = builtin(table, chain).is_some();
        self.state(table, chain).load(rules, is_builtin);
        Ok(())
    }

    /// Reads the decoded rules of a chain loaded as its canonical index alone (see
    /// [`ChainState::load_compact`]), for what needs more of its rules than their handles
    /// and canonical forms. The rules are read at the plan's generation or later: a batch
    /// planned from a later one carries the plan's and is refused, then planned again.
    pub(super) fn decode_loaded(&mut self, table: &str, chain: &str) -> Plan<()> {
        if !self.known(table, chain).is_some_and(ChainState::compact) {
            return Ok(());
        }
        let (rules, _) = self.view.chain_rules(self.family, table, chain)?;
        self.state(table, chain).decoded(rules.unwrap_or_default());
        Ok(())
    }

    /// Refuses rules that jump or go to a user chain this plan knows is missing at this
    /// point (one it deleted, or one a table it rebuilds has not declared yet), as iptables
    /// checks each rule's target before it sends anything. A chain the plan knows nothing
    /// of is left to the kernel: no read is made for it.
    pub(crate) fn check_targets(&self, table: &str, specs: &[RuleSpec]) -> Plan<()> {
        for s in specs {
            if let Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) = &s.target {
                if builtin(table, c).is_none() && self.known_missing(table, c) {
                    return Err(Refusal::TargetMissing {
                        table: table.to_owned(),
                        chain: c.clone(),
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// Whether `table` exists at this point of the plan.
    fn table_present(&mut self, table: &str) -> Plan<bool> {
        if self.tables_added.contains(table) {
            return Ok(true);
        }
        if self.tables_absent.contains(table) {
            return Ok(false);
        }
        let (tables, _) = self.view.tables(self.family)?;
        Ok(tables.iter().any(|t| t == table))
    }

    pub(super) fn entries(&mut self, table: &str, chain: &str) -> &mut Vec<Entry> {
        self.state(table, chain)
            .entries
            .get_or_insert_with(Vec::new)
    }

    pub(crate) fn rule_of(&self, table: &str, chain: &str, e: Entry) -> Option<Rule> {
        match e {
            Entry::Kernel(h) => self.known(table, chain)?.kernel_rule(h).cloned(),
            Entry::New { op, .. } => {
                let bytes = self.batch.as_netlink().op_bytes(op)?;
                let m = Messages::new(bytes).next()?.ok()?;
                Rule::decode(&m).ok()
            }
        }
    }

    /// The index in the chain's entries of the first rule whose comment starts with `text`.
    fn anchor(&self, table: &str, chain: &str, text: &str) -> Option<usize> {
        let st = self.known(table, chain)?;
        st.entries.as_deref()?.iter().position(|&e| {
            match e {
                Entry::Kernel(h) => st.kernel_rule(h).and_then(rule_comment),
                Entry::New { .. } => self.rule_of(table, chain, e).and_then(|r| rule_comment(&r)),
            }
            .is_some_and(|c| c.starts_with(text))
        })
    }

    /// Indexes (in the chain's entries) of the rules equal to `spec`: the chain's rules as
    /// read are looked up in their canonical index (one hash lookup), the rules this plan
    /// added are compared by their canonical forms, computed once each.
    fn find(&mut self, table: &str, chain: &str, spec: &RuleSpec) -> Plan<Vec<usize>> {
        let want = canonical_exprs_with(spec, table, chain, self.view.sets())
            .map_err(|e| Refusal::Invalid(e.0.clone()))?;
        let k = key(table, chain);
        let (kernel, index, entries) = match self.known(table, chain) {
            Some(st) => (
                st.more.as_ref().and_then(|m| m.kernel.clone()),
                st.more.as_ref().and_then(|m| m.index.clone()),
                st.entries.clone().unwrap_or_default(),
            ),
            None => return Ok(Vec::new()),
        };
        let kernel_hits: HashSet<u64> = match (kernel, index) {
            (Some(rules), _) if !rules.is_empty() => self
                .view
                .find_canonical(&k, self.family, &rules, &want)
                .into_iter()
                .collect(),
            (None, Some(index)) => index.find(&want).into_iter().collect(),
            _ => HashSet::new(),
        };
        let mut out = Vec::new();
        for (i, e) in entries.into_iter().enumerate() {
            let hit = match e {
                Entry::Kernel(h) => kernel_hits.contains(&h),
                Entry::New { id, .. } => {
                    if !self.new_canon.contains_key(&id) {
                        let c = self.rule_of(table, chain, e).and_then(|r| {
                            canonical_of_rule_with(&r, self.family, self.view.sets())
                        });
                        self.new_canon.insert(id, c);
                    }
                    self.new_canon.get(&id).and_then(|c| c.as_ref()) == Some(&want)
                }
            };
            if hit {
                out.push(i);
            }
        }
        Ok(out)
    }

    pub(crate) fn add_table(&mut self, table: &str) -> Plan<()> {
        self.tables_absent.remove(table);
        if self.tables_added.insert(table.to_owned()) {
            self.batch
                .add_table(&Table::new(self.family.nft(), table))?;
        }
        Ok(())
    }

    /// Creates a built-in chain the first time a rule goes into it, as iptables-nft does,
    /// with counters (as iptables 1.8.11 creates every built-in chain, so that its policy's
    /// packets are counted) and without a policy attribute. An existing chain is not sent
    /// again: its counters would start from zero (and the kernel would record a chain update,
    /// which it frees only after an RCU grace period that the process then waits for when its
    /// socket closes, a few milliseconds per `iptables -A`). Whether it exists is asked of
    /// the kernel (one GETCHAIN) unless the plan knows (a table it rebuilds has only the
    /// chains it declared) or the view does (see [`RulesetView::builtin_exists`]).
    fn ensure_builtin(&mut self, table: &str, chain: &str) -> Plan<()> {
        let Some(bc) = builtin(table, chain) else {
            return Ok(());
        };
        // Declared, created, or found by this plan already. (A chain's state says a
        // built-in chain exists whenever it was read, as iptables lists one the kernel
        // lacks: it is not asked.)
        if !self.ensured.insert(table, chain) {
            return Ok(());
        }
        let rebuilt = self.rebuilt.contains(table);
        if !rebuilt
            && self.known(table, chain).and_then(|s| s.exists) != Some(false)
            && self.view.builtin_exists(self.family, table, chain)?
        {
            return Ok(());
        }
        let mut c = bc.to_chain(self.family, table, Policy::Accept, Some((0, 0)));
        if !self.rebuilt.contains(table) {
            if let Some(h) = c.hook.as_mut() {
                h.policy = None;
            }
        }
        self.add_table(table)?;
        self.batch.add_chain(&c, false)?;
        self.chain_list_edit(table, None);
        let rebuilt = self.rebuilt.contains(table);
        let st = self.state(table, chain);
        st.exists = Some(true);
        if rebuilt {
            st.entries.get_or_insert_with(Vec::new);
        }
        Ok(())
    }

    fn add_rule(
        &mut self,
        table: &str,
        chain: &str,
        spec: &RuleSpec,
        pos: Placement,
    ) -> Plan<(u32, crate::netlink::OpIndex)> {
        // One rule reused for every rule: no per-rule allocation of its expression vector.
        let sets = self.view.sets();
        encode_rule_into_for(
            spec,
            self.family,
            table,
            chain,
            &mut self.scratch,
            sets,
            self.mode.floor,
        )
        .map_err(|e| Refusal::Invalid(e.0))?;
        let id = self.batch.new_id();
        let op = self
            .batch
            .add_rule_with_id(&self.scratch, pos, self.mode.echo, Some(id))?;
        self.rules_added += 1;
        Ok((id, op))
    }

    fn del_entry(&mut self, table: &str, chain: &str, e: Entry) -> Plan<()> {
        let f = self.family.nft();
        match e {
            Entry::Kernel(h) => self.batch.del_rule(f, table, chain, h)?,
            Entry::New { id, .. } => self.batch.del_rule_by_id(f, table, chain, id)?,
        };
        Ok(())
    }

    /// Why a built-in chain cannot be deleted (iptables-nft deletes one only when it is
    /// empty and its policy is ACCEPT, so that no DROP policy is lost): `None` when it can;
    /// a chain that does not exist is [`Refusal::ChainMissing`].
    fn builtin_kept(&mut self, table: &str, chain: &str) -> Plan<Option<Refusal>> {
        // The rules first: the read gives the generation the batch is committed against, so
        // that a policy or rule changed after these reads makes the plan start again.
        let declared = self.known(table, chain).and_then(|s| s.exists);
        if declared == Some(false) {
            return Ok(Some(chain_missing(table, chain)));
        }
        let rebuilt = self.rebuilt.contains(table);
        if rebuilt && declared != Some(true) {
            return Ok(Some(chain_missing(table, chain)));
        }
        self.load(table, chain)?;
        let kernel = if rebuilt {
            None
        } else {
            match self.view.chain(self.family, table, chain)? {
                Some(c) => Some(c),
                None if declared == Some(true) || self.ensured.contains(table, chain) => None,
                None => return Ok(Some(chain_missing(table, chain))),
            }
        };
        let policy = match self.policies.get(&key(table, chain)) {
            Some(p) => *p,
            None => kernel
                .and_then(|c| c.hook.and_then(|h| h.policy))
                .unwrap_or(Policy::Accept),
        };
        if policy != Policy::Accept {
            return Ok(Some(Refusal::BuiltinPolicy {
                table: table.to_owned(),
                chain: chain.to_owned(),
            }));
        }
        if !self.entries(table, chain).is_empty() {
            return Ok(Some(Refusal::BuiltinRules {
                table: table.to_owned(),
                chain: chain.to_owned(),
            }));
        }
        Ok(None)
    }

    fn delete_chain_now(&mut self, table: &str, chain: &str) -> Plan<()> {
        self.batch.del_chain(self.family.nft(), table, chain)?;
        self.chain_list_edit(table, Some(ChainEdit::Del(chain.to_owned())));
        self.policies.remove(&key(table, chain));
        self.ensured.remove(table, chain);
        self.state(table, chain).emptied(false);
        Ok(())
    }

    /// Starts a table that a restore rebuilds from its input: what is in the kernel is
    /// emptied (see [`RulesetView::table_clear`]) and every chain is known, empty or absent.
    pub(crate) fn rebuild_table(&mut self, table: &str, exists: bool) -> Plan<()> {
        let f = self.family.nft();
        let mut gone = !exists;
        if exists {
            match self.view.table_clear(self.family, table)? {
                None => {
                    self.batch.del_table(f, table)?;
                    gone = true;
                }
                Some(clear) => {
                    for c in clear.delete.iter().chain(&clear.keep) {
                        self.batch.flush_chain(f, table, c)?;
                    }
                    for c in &clear.delete {
                        self.batch.del_chain(f, table, c)?;
                    }
                }
            }
        }
        self.rebuilt_from_here(table, gone);
        Ok(())
    }

    /// What the plan knows of `table` once it is emptied to be rebuilt: only what comes
    /// next exists (and, when `gone`, not even the table).
    fn rebuilt_from_here(&mut self, table: &str, gone: bool) {
        self.chains.remove(table);
        self.ensured.remove_table(table);
        self.tables_added.remove(table);
        self.flushed.remove(table);
        if gone {
            self.tables_absent.insert(table.to_owned());
        }
        self.rebuilt.insert(table.to_owned());
    }

    /// Starts a table that a restore without `--noflush` names again: iptables deletes it
    /// again there (the input's earlier block of it goes too), so it is emptied as it is at
    /// this point of the plan, what iptables cannot see aside, and rebuilt from nothing.
    pub(crate) fn rebuild_again(&mut self, table: &str) -> Plan<()> {
        let f = self.family.nft();
        let mut gone = true;
        if self.table_present(table)? {
            match self.view.table_clear(self.family, table)? {
                None => {
                    self.batch.del_table(f, table)?;
                }
                Some(clear) => {
                    // Every chain of a table the plan rebuilt is one it knows of, but those
                    // the first rebuild only emptied.
                    let mut now: Vec<String> = self
                        .chains
                        .get(table)
                        .into_iter()
                        .flat_map(ChainMap::iter)
                        .filter(|(_, st)| st.exists == Some(true))
                        .map(|(c, _)| c.to_owned())
                        .collect();
                    for c in &clear.keep {
                        if !now.contains(c)
                            && self.known(table, c).and_then(|s| s.exists) != Some(false)
                        {
                            now.push(c.clone());
                        }
                    }
                    for c in &now {
                        self.batch.flush_chain(f, table, c)?;
                    }
                    for c in now.iter().filter(|c| !clear.keep.contains(c)) {
                        self.batch.del_chain(f, table, c)?;
                    }
                    gone = false;
                }
            }
        }
        self.chain_list_edit(table, None);
        self.policies.retain(|(t, _), _| t != table);
        self.rebuilt_from_here(table, gone);
        Ok(())
    }

    /// Plans one operation.
    pub(crate) fn op(&mut self, op: &Op<'_>) -> Plan<Pending> {
        if self.rewrites.is_some() {
            if let Some(done) = self.rewrite_op(op) {
                return done;
            }
        }
        let (t, c) = op.table_chain();
        if !self.track_entries && !op.blind() {
            if self.untracked {
                self.restart = true;
                return Err(
                    Refusal::Invalid("planned again, recording rule positions".into()).into(),
                );
            }
            self.track_entries = true;
        }
        if op.reads() && !self.known_missing(t, c) {
            self.load(t, c)?;
        }
        // Only plans that ask the kernel bring a cache up to date afterwards (a restore does
        // not), so only they record the chains they touch.
        let first_touch = self.mode.ask_kernel && !c.is_empty() && self.touched.insert(t, c);
        let f = self.family.nft();
        match op {
            Op::Add {
                specs, at, unique, ..
            } => {
                self.ensure_builtin(t, c)?;
                if self.known_missing(t, c) {
                    return Err(missing(t, c));
                }
                self.check_targets(t, specs)?;
                if *unique {
                    let mut all = true;
                    for s in specs.iter() {
                        if self.find(t, c, s)?.is_empty() {
                            all = false;
                            break;
                        }
                    }
                    if all {
                        return Ok(Pending::Present);
                    }
                }
                let first = match at {
                    At::Append => None,
                    At::Insert(n) => Some(*n as usize - 1),
                    At::Anchor { comment, after } => {
                        self.decode_loaded(t, c)?;
                        self.anchor(t, c, comment).map(|j| j + usize::from(*after))
                    }
                };
                let mut ops = Vec::with_capacity(specs.len());
                let mut prev: Option<u32> = None;
                for (k, s) in specs.iter().enumerate() {
                    let idx = first.map(|i| i + k);
                    let known = self.known(t, c).and_then(|s| s.entries.as_deref());
                    let pos = match (known, idx) {
                        (_, None) => Placement::Append,
                        (Some(v), Some(i)) => {
                            if i > v.len() {
                                return Err(too_big(Numbered::Insert, t, c, (i + 1 - k) as u32));
                            }
                            match v.get(i) {
                                None => Placement::Append,
                                Some(Entry::Kernel(h)) => Placement::Before(*h),
                                Some(Entry::New { id, .. }) => Placement::BeforeId(*id),
                            }
                        }
                        (None, Some(_)) => match prev {
                            None => Placement::Prepend,
                            Some(id) => Placement::AfterId(id),
                        },
                    };
                    let (id, opi) = self.add_rule(t, c, s, pos)?;
                    let e = Entry::New { id, op: opi };
                    prev = Some(id);
                    ops.push(opi);
                    if idx.is_none() && !self.track_entries {
                        self.untracked = true;
                        continue;
                    }
                    let st = self.state(t, c);
                    match (&mut st.entries, idx) {
                        (Some(v), Some(i)) => v.insert(i, e),
                        (Some(v), None) => v.push(e),
                        (None, Some(_)) => st.more().pending_front.insert(k, e),
                        (None, None) => st.more().pending_back.push(e),
                    }
                }
                Ok(Pending::Added(ops))
            }
            Op::Replace { pos, specs, .. } => {
                if self.known_missing(t, c) {
                    return Err(missing(t, c));
                }
                let [spec] = &specs[..] else {
                    return Err(Refusal::ReplaceCount(specs.len()).into());
                };
                self.check_targets(t, specs)?;
                let idx = *pos as usize - 1;
                let Some(old) = self.entries(t, c).get(idx).copied() else {
                    return Err(too_big(Numbered::Replace, t, c, *pos));
                };
                self.ensure_builtin(t, c)?;
                let (id, opi) = match old {
                    Entry::Kernel(h) => self.add_rule(t, c, spec, Placement::Replace(h))?,
                    Entry::New { id, .. } => {
                        let e = self.add_rule(t, c, spec, Placement::BeforeId(id))?;
                        self.del_entry(t, c, old)?;
                        e
                    }
                };
                self.entries(t, c)[idx] = Entry::New { id, op: opi };
                Ok(Pending::Added(vec![opi]))
            }
            Op::Delete { specs, mode, .. } => {
                if self.known_missing(t, c) {
                    return match mode {
                        DelMode::First | DelMode::Check => Err(missing(t, c)),
                        _ => Ok(Pending::Deleted(0)),
                    };
                }
                if matches!(mode, DelMode::First | DelMode::Check) {
                    self.check_targets(t, specs)?;
                }
                let mut count = 0;
                for s in specs.iter() {
                    let mut found = self.find(t, c, s)?;
                    if found.is_empty() {
                        if matches!(mode, DelMode::First | DelMode::Check) {
                            return Err(Refusal::NoSuchRule {
                                table: t.to_owned(),
                                chain: c.to_owned(),
                                spec: s.to_save_args(),
                            }
                            .into());
                        }
                        continue;
                    }
                    if *mode == DelMode::Check {
                        continue;
                    }
                    if *mode != DelMode::All {
                        found.truncate(1);
                    }
                    for i in found.into_iter().rev() {
                        let e = self.entries(t, c).remove(i);
                        self.del_entry(t, c, e)?;
                        count += 1;
                    }
                }
                Ok(Pending::Deleted(count))
            }
            Op::DeleteNumber { n, .. } => {
                if self.known_missing(t, c) {
                    return Err(missing(t, c));
                }
                let idx = *n as usize - 1;
                let v = self.entries(t, c);
                if idx >= v.len() {
                    return Err(too_big(Numbered::Delete, t, c, *n));
                }
                let e = v.remove(idx);
                self.del_entry(t, c, e)?;
                Ok(Pending::Deleted(1))
            }
            Op::NewChain { .. } => {
                if builtin(t, c).is_some() {
                    return Err(Refusal::ChainExists {
                        table: t.to_owned(),
                        chain: c.to_owned(),
                    }
                    .into());
                }
                check_chain_name(c, self.family).map_err(|e| Refusal::Invalid(e.to_string()))?;
                let exists = match self.known(t, c).and_then(|s| s.exists) {
                    Some(e) => e,
                    None => {
                        !self.rebuilt.contains(t)
                            && self.mode.ask_kernel
                            && first_touch
                            && self.view.chain(self.family, t, c)?.is_some()
                    }
                };
                if exists {
                    return Err(Refusal::ChainExists {
                        table: t.to_owned(),
                        chain: c.to_owned(),
                    }
                    .into());
                }
                self.add_table(t)?;
                self.batch.add_chain(&Chain::user(f, t, c), true)?;
                self.chain_list_edit(t, Some(ChainEdit::Add(c.to_owned())));
                self.state(t, c).emptied(true);
                Ok(Pending::Done)
            }
            Op::ClearChain { create, .. } => {
                if !*create {
                    if builtin(t, c).is_some() {
                        // As iptables' `-F CHAIN`: a missing built-in chain is added first.
                        self.ensure_builtin(t, c)?;
                    } else if self.known_missing(t, c) {
                        return Err(missing(t, c));
                    }
                } else if builtin(t, c).is_some() {
                    // A built-in chain that is not there yet: nothing to empty.
                    let has_rules = self
                        .known(t, c)
                        .is_some_and(|s| s.entries.as_ref().is_some_and(|v| !v.is_empty()));
                    let present = has_rules || self.view.chain(self.family, t, c)?.is_some();
                    if !present && !self.ensured.contains(t, c) {
                        return Ok(Pending::Done);
                    }
                } else {
                    check_chain_name(c, self.family)
                        .map_err(|e| Refusal::Invalid(e.to_string()))?;
                    // Only a missing chain is sent (an existing one would be a chain update
                    // the kernel frees after an RCU grace period).
                    let exists = match self.known(t, c).and_then(|s| s.exists) {
                        Some(e) => e,
                        None if self.rebuilt.contains(t) => false,
                        None => self.view.chain(self.family, t, c)?.is_some(),
                    };
                    if !exists {
                        self.add_table(t)?;
                        self.batch.add_chain(&Chain::user(f, t, c), false)?;
                        self.chain_list_edit(t, Some(ChainEdit::Add(c.to_owned())));
                    }
                }
                self.batch.flush_chain(f, t, c)?;
                self.state(t, c).emptied(true);
                Ok(Pending::Done)
            }
            Op::FlushTable { .. } => {
                // As iptables: a table that is not there is not made for this.
                if !self.table_present(t)? {
                    return Ok(Pending::Done);
                }
                self.batch.flush_table(f, t)?;
                note(&mut self.touched_tables, t);
                if !self.rebuilt.contains(t) {
                    self.flushed.insert(t.to_owned());
                }
                for st in self
                    .chains
                    .get_mut(t)
                    .into_iter()
                    .flat_map(ChainMap::values_mut)
                {
                    st.entries = Some(Vec::new());
                    st.clear_pending();
                }
                Ok(Pending::Done)
            }
            Op::DeleteChain {
                flush,
                if_exists,
                keep_quietly,
                ..
            } => {
                if builtin(t, c).is_some() {
                    return match self.builtin_kept(t, c)? {
                        None => {
                            self.delete_chain_now(t, c)?;
                            Ok(Pending::Done)
                        }
                        Some(Refusal::ChainMissing { .. }) if *if_exists || *keep_quietly => {
                            Ok(Pending::Done)
                        }
                        Some(_) if *keep_quietly => Ok(Pending::Done),
                        Some(r) => Err(r.into()),
                    };
                }
                let present = match self.known(t, c).and_then(|s| s.exists) {
                    Some(e) => e,
                    None if self.rebuilt.contains(t) => false,
                    None if self.mode.ask_kernel && (*if_exists || first_touch) => {
                        self.view.chain(self.family, t, c)?.is_some()
                    }
                    None => true,
                };
                if !present {
                    return if *if_exists {
                        Ok(Pending::Done)
                    } else {
                        Err(missing(t, c))
                    };
                }
                if *flush {
                    self.batch.flush_chain(f, t, c)?;
                }
                self.delete_chain_now(t, c)?;
                Ok(Pending::Done)
            }
            Op::DeleteAllChains { .. } => {
                if !self.table_present(t)? {
                    return Ok(Pending::Done);
                }
                let mut names: Vec<String> = if self.rebuilt.contains(t) {
                    Vec::new()
                } else {
                    let (chains, g) = self.view.chains(self.family, t)?;
                    self.genid.get_or_insert(g);
                    chains
                        .into_iter()
                        .filter(|c| c.hook.is_none())
                        .map(|c| c.name)
                        .collect()
                };
                let mut seen: HashSet<String> = names.iter().cloned().collect();
                for (c, st) in self.chains.get(t).into_iter().flat_map(ChainMap::iter) {
                    if st.exists == Some(true)
                        && builtin(t, c).is_none()
                        && seen.insert(c.to_owned())
                    {
                        names.push(c.to_owned());
                    }
                }
                for c in names {
                    if self.known(t, &c).and_then(|s| s.exists) != Some(false) {
                        self.delete_chain_now(t, &c)?;
                    }
                }
                let builtins = crate::ipt::tables::find_table(t)
                    .map(|x| x.chains)
                    .unwrap_or_default();
                for bc in builtins {
                    if self.builtin_kept(t, bc.name)?.is_none() {
                        self.delete_chain_now(t, bc.name)?;
                    }
                }
                note(&mut self.touched_tables, t);
                Ok(Pending::Done)
            }
            Op::RenameChain { new, .. } => {
                if builtin(t, c).is_some() {
                    return Err(Refusal::RenameBuiltin {
                        chain: c.to_owned(),
                    }
                    .into());
                }
                if builtin(t, new).is_some() {
                    return Err(Refusal::ChainExists {
                        table: t.to_owned(),
                        chain: new.to_string(),
                    }
                    .into());
                }
                check_chain_name(new, self.family).map_err(|e| Refusal::Invalid(e.to_string()))?;
                if self.rebuilt.contains(t) {
                    return Err(Refusal::RenameNew {
                        old: c.to_owned(),
                        new: new.to_string(),
                    }
                    .into());
                }
                // The new name is checked first, as iptables' nft_chain_user_rename does.
                let new_exists = match self.known(t, new).and_then(|s| s.exists) {
                    Some(e) => e,
                    None => self.view.chain(self.family, t, new)?.is_some(),
                };
                if new_exists {
                    return Err(Refusal::ChainExists {
                        table: t.to_owned(),
                        chain: new.to_string(),
                    }
                    .into());
                }
                let Some(handle) = self.view.chain(self.family, t, c)?.and_then(|x| x.handle)
                else {
                    return Err(missing(t, c));
                };
                self.batch.rename_chain(f, t, handle, new)?;
                self.chain_list_edit(t, None);
                note(&mut self.touched_tables, t);
                let st = self
                    .chains
                    .get_mut(t)
                    .and_then(|m| m.remove(c))
                    .unwrap_or_default();
                self.chains.table(t).insert(new, st);
                Ok(Pending::Done)
            }
            Op::SetPolicy { policy, .. } => {
                let Some(bc) = builtin(t, c) else {
                    return Err(Refusal::NotBuiltin {
                        table: t.to_owned(),
                        chain: c.to_owned(),
                    }
                    .into());
                };
                // With zeroed counters, as iptables-nft sends every policy it sets.
                self.add_table(t)?;
                self.batch
                    .add_chain(&bc.to_chain(self.family, t, *policy, Some((0, 0))), false)?;
                self.chain_list_edit(t, None);
                self.ensured.insert(t, c);
                self.state(t, c).exists = Some(true);
                self.policies.insert(key(t, c), *policy);
                Ok(Pending::Done)
            }
            Op::Zero { rule, .. } => {
                self.zero(t, c, *rule)?;
                Ok(Pending::Done)
            }
            Op::ZeroTable { .. } => {
                if !self.table_present(t)? {
                    return Ok(Pending::Done);
                }
                // Every chain of the table: those in the kernel and those this plan made,
                // not those it deleted.
                let mut targets: Vec<String> = if self.rebuilt.contains(t) {
                    Vec::new()
                } else {
                    let (chains, g) = self.view.chains(self.family, t)?;
                    self.genid.get_or_insert(g);
                    chains.into_iter().map(|c| c.name).collect()
                };
                if let Some(m) = self.chains.get(t) {
                    let mut seen: HashSet<String> = targets.iter().cloned().collect();
                    for (c, st) in m.iter() {
                        if st.exists == Some(true) && seen.insert(c.to_owned()) {
                            targets.push(c.to_owned());
                        }
                    }
                    targets.retain(|c| m.get(c).is_none_or(|st| st.exists != Some(false)));
                }
                for name in targets {
                    if !self.known_missing(t, &name) {
                        self.load(t, &name)?;
                    }
                    self.zero(t, &name, None)?;
                }
                note(&mut self.touched_tables, t);
                Ok(Pending::Done)
            }
            Op::DeclareChain {
                policy, counters, ..
            } => {
                // A built-in chain line sets the chain's counters too: to the ones it gives
                // with --counters, otherwise to zero (as iptables-nft-restore does).
                let counters = match counters {
                    Some(c) if self.mode.counters => Some(*c),
                    _ => Some((0, 0)),
                };
                let mut declared = match builtin(t, c) {
                    Some(bc) => {
                        bc.to_chain(self.family, t, policy.unwrap_or(Policy::Accept), counters)
                    }
                    None => Chain::user(f, t, c),
                };
                // A built-in chain declared with `-` is sent without a policy: the kernel
                // keeps the one it has (ACCEPT for a new chain), as iptables-nft does.
                if policy.is_none() {
                    if let Some(h) = declared.hook.as_mut() {
                        h.policy = None;
                    }
                }
                // A chain declared again in a rebuilt table is taken as with --noflush
                // (iptables-nft-restore does).
                let merge = !self.rebuilt.contains(t)
                    || self.known(t, c).and_then(|s| s.exists) == Some(true);
                let is_builtin = declared.hook.is_some();
                if is_builtin {
                    self.ensured.insert(t, c);
                    match policy {
                        Some(p) => {
                            self.policies.insert(key(t, c), *p);
                        }
                        // Kept: what the kernel has stands, unless the table is rebuilt.
                        None if merge => {}
                        None => {
                            self.policies.insert(key(t, c), Policy::Accept);
                        }
                    }
                }
                self.batch.add_chain(&declared, false)?;
                // With --noflush a user chain line empties the chain (iptables-nft-restore
                // does); a built-in chain line only sets the policy.
                if merge && !is_builtin {
                    self.batch.flush_chain(f, t, c)?;
                }
                if !(merge && is_builtin) {
                    let st = self.state(t, c);
                    *st = ChainState::default();
                    st.emptied(true);
                } else {
                    self.state(t, c).exists = Some(true);
                }
                Ok(Pending::Done)
            }
        }
    }
}
