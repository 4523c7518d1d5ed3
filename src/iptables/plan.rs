//! Planning write operations into one batch: chains are read only where an operation
//! depends on their contents, the batch then carries the generation id read, and a commit
//! refused because the ruleset moved is planned again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::cache::{read_chain, Cache, Key};
use super::error::{from_nft, Error, What};
use super::ipset::KernelSets;
use crate::ipt::command::check_chain_name;
use crate::ipt::tables::{find_table, BuiltinChain};
use crate::ipt::{
    canonical_exprs_with, canonical_of_rule_with, encode_rule_with, IpFamily, RuleSpec,
};
use crate::netlink::{Conn, Messages, OpIndex};
use crate::nft::{self, get_chain, Batch, Chain, Expr, Policy, Position, Rule, Table};

/// How long an operation is planned again after concurrent changes before it gives up with
/// [`Error::Conflict`], unless set with [`IpTables::set_conflict_timeout`](super::IpTables::set_conflict_timeout).
///
/// Each attempt waits in the kernel for the commit lock, behind other writers' commits; with
/// 200k rules one commit to the nat table costs the kernel about 0.25 s, and in the field
/// scenario of `tests/api_field.rs` (20 `iptables-nft` writers and 100 portmap sequences)
/// the slowest retried operations needed 31–34 s: 10 s was only four or five tries.
pub(crate) const CONFLICT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Where a new rule goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    Append,
    Insert(u32),
}

/// Which matching rules a delete removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DelMode {
    /// The first match; no match is an error.
    First,
    /// The first match; no match (or no chain) is fine.
    IfExists,
    /// Every match; none is fine.
    All,
}

/// One write operation.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Add {
        table: String,
        chain: String,
        specs: Vec<RuleSpec>,
        at: At,
        unique: bool,
    },
    Replace {
        table: String,
        chain: String,
        pos: u32,
        specs: Vec<RuleSpec>,
    },
    Delete {
        table: String,
        chain: String,
        specs: Vec<RuleSpec>,
        mode: DelMode,
    },
    DeleteNumber {
        table: String,
        chain: String,
        n: u32,
    },
    NewChain {
        table: String,
        chain: String,
    },
    ClearChain {
        table: String,
        chain: String,
    },
    DeleteChain {
        table: String,
        chain: String,
        flush: bool,
        if_exists: bool,
        /// For a built-in chain that must stay (rules in it, a policy other than ACCEPT):
        /// leave it without an error (`-X` of the whole table).
        keep_quietly: bool,
    },
    SetPolicy {
        table: String,
        chain: String,
        policy: Policy,
    },
    Zero {
        table: String,
        chain: String,
        rule: Option<u32>,
    },
}

impl Op {
    pub(crate) fn table_chain(&self) -> (&str, &str) {
        match self {
            Op::Add { table, chain, .. }
            | Op::Replace { table, chain, .. }
            | Op::Delete { table, chain, .. }
            | Op::DeleteNumber { table, chain, .. }
            | Op::NewChain { table, chain }
            | Op::ClearChain { table, chain }
            | Op::DeleteChain { table, chain, .. }
            | Op::SetPolicy { table, chain, .. }
            | Op::Zero { table, chain, .. } => (table, chain),
        }
    }

    /// Whether the operation depends on what the chain holds.
    fn reads(&self) -> bool {
        match self {
            Op::Add { unique, at, .. } => *unique || matches!(at, At::Insert(n) if *n > 1),
            Op::Replace { .. } | Op::Delete { .. } | Op::DeleteNumber { .. } | Op::Zero { .. } => {
                true
            }
            _ => false,
        }
    }
}

/// The outcome of one operation of a committed batch.
///
/// ```
/// use iptnl::iptables::OpResult;
/// let r = OpResult::Added { handles: vec![7] };
/// assert_eq!(r.handle(), Some(7));
/// assert!(r.changed());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpResult {
    /// Rules were added (one per expansion of the spec, e.g. `-s a,b` adds two), with the
    /// handles the kernel gave them.
    Added {
        /// The new rules' handles, in order.
        handles: Vec<u64>,
    },
    /// A unique add found the rule already there and did nothing.
    AlreadyPresent,
    /// Rules were deleted.
    Deleted {
        /// How many.
        count: usize,
    },
    /// A chain or policy operation (or a no-op such as flushing an absent built-in chain).
    Done,
}

impl OpResult {
    /// The handle of the first rule added, if any.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let h = ipt.append("filter", "INPUT", "-j ACCEPT")?.handle();
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn handle(&self) -> Option<u64> {
        match self {
            OpResult::Added { handles } => handles.first().copied(),
            _ => None,
        }
    }

    /// Whether the operation changed the ruleset.
    ///
    /// ```
    /// use iptnl::iptables::OpResult;
    /// assert!(!OpResult::AlreadyPresent.changed());
    /// assert!(!OpResult::Deleted { count: 0 }.changed());
    /// ```
    pub fn changed(&self) -> bool {
        match self {
            OpResult::Added { handles } => !handles.is_empty(),
            OpResult::AlreadyPresent => false,
            OpResult::Deleted { count } => *count > 0,
            OpResult::Done => true,
        }
    }
}

#[derive(Debug, Clone)]
enum Pending {
    Added(Vec<OpIndex>),
    Present,
    Deleted(usize),
    Done,
}

#[derive(Debug, Clone, Copy)]
enum Entry {
    Kernel(u64),
    New { id: u32, op: OpIndex },
}

/// A chain whose rules were read, with the changes planned so far.
#[derive(Debug)]
struct View {
    exists: bool,
    kernel: Option<Arc<Vec<Rule>>>,
    by_handle: HashMap<u64, usize>,
    entries: Vec<Entry>,
}

pub(crate) fn builtin(table: &str, chain: &str) -> Option<&'static BuiltinChain> {
    find_table(table).and_then(|t| t.builtin(chain))
}

/// The built-in chain as iptables-nft creates it, without a policy attribute, so that
/// sending it again leaves an existing chain's policy alone (a new one gets ACCEPT).
fn ensure_chain(bc: &BuiltinChain, family: IpFamily, table: &str) -> Chain {
    let mut c = bc.to_chain(family, table, Policy::Accept, None);
    if let Some(h) = c.hook.as_mut() {
        h.policy = None;
    }
    c
}

struct Planner<'a> {
    conn: &'a mut Conn,
    cache: &'a mut Cache,
    family: IpFamily,
    batch: Batch,
    views: HashMap<Key, View>,
    genid: Option<u32>,
    owner: Vec<usize>,
    ensured: HashSet<Key>,
    touched: HashSet<Key>,
    touched_tables: HashSet<String>,
    /// Tables whose chain list or chains' policies this plan changes.
    chain_tables: HashSet<String>,
    current: usize,
    /// Canonical forms of the rules this plan added, by batch id (computed when searched).
    new_canon: HashMap<u32, Option<Vec<Expr>>>,
}

fn key(table: &str, chain: &str) -> Key {
    (table.to_owned(), chain.to_owned())
}

fn nft_err(op: &'static str) -> impl Fn(nft::Error) -> Error {
    move |e| from_nft(e, op)
}

impl Planner<'_> {
    fn mark(&mut self) {
        while self.owner.len() < self.batch.len() {
            self.owner.push(self.current);
        }
    }

    fn load(&mut self, table: &str, chain: &str) -> Result<(), Error> {
        let k = key(table, chain);
        if self.views.contains_key(&k) {
            return Ok(());
        }
        let (rules, g) = read_chain(self.conn, self.cache, self.family, table, chain)?;
        self.genid.get_or_insert(g);
        let exists = rules.is_some() || builtin(table, chain).is_some();
        let mut by_handle = HashMap::new();
        let mut entries = Vec::new();
        for (i, r) in rules.iter().flat_map(|v| v.iter()).enumerate() {
            if let Some(h) = r.handle {
                by_handle.insert(h, i);
                entries.push(Entry::Kernel(h));
            }
        }
        self.views.insert(
            k,
            View {
                exists,
                kernel: rules,
                by_handle,
                entries,
            },
        );
        Ok(())
    }

    fn view(&mut self, table: &str, chain: &str) -> Option<&mut View> {
        self.views.get_mut(&(table.to_owned(), chain.to_owned()))
    }

    fn rule_of(&self, k: &Key, e: Entry) -> Option<Rule> {
        let v = self.views.get(k)?;
        match e {
            Entry::Kernel(h) => v.kernel.as_ref()?.get(*v.by_handle.get(&h)?).cloned(),
            Entry::New { op, .. } => {
                let bytes = self.batch.as_netlink().op_bytes(op)?;
                let m = Messages::new(bytes).next()?.ok()?;
                Rule::decode(&m).ok()
            }
        }
    }

    /// Indexes (in the view) of the rules equal to `spec`: the chain's rules as read are
    /// looked up in its canonical index (one hash lookup), the rules this plan added are
    /// compared by their canonical forms, computed once each.
    fn find(&mut self, table: &str, chain: &str, spec: &RuleSpec) -> Result<Vec<usize>, Error> {
        let want = canonical_exprs_with(spec, table, chain, &KernelSets)
            .map_err(|e| Error::Invalid(e.0))?;
        let k = key(table, chain);
        let Some(v) = self.views.get(&k) else {
            return Ok(Vec::new());
        };
        let kernel_hits: HashSet<u64> = match v.kernel.clone() {
            Some(rules) => self
                .cache
                .canonical_index(&k, self.family, &rules)
                .get(&want)
                .map(|hs| hs.iter().copied().collect())
                .unwrap_or_default(),
            None => HashSet::new(),
        };
        let entries = v.entries.clone();
        let mut out = Vec::new();
        for (i, e) in entries.into_iter().enumerate() {
            let hit = match e {
                Entry::Kernel(h) => kernel_hits.contains(&h),
                Entry::New { id, .. } => {
                    if !self.new_canon.contains_key(&id) {
                        let c = self
                            .rule_of(&k, e)
                            .and_then(|r| canonical_of_rule_with(&r, self.family, &KernelSets));
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

    /// Creates a built-in chain the first time a rule goes into it, as iptables-nft does. An
    /// existing chain is not sent again: the kernel would record a chain update, which it
    /// frees only after an RCU grace period that the process then waits for when its socket
    /// closes (a few milliseconds per `iptables -A`).
    fn ensure(&mut self, table: &str, chain: &str) -> Result<(), Error> {
        if let Some(bc) = builtin(table, chain) {
            if self.ensured.insert(key(table, chain)) {
                // Asked of the kernel: a view shows a built-in chain as present even before
                // it is created (as iptables lists it).
                if self.kernel_has_chain(table, chain)? {
                    return Ok(());
                }
                let f = self.family.nft();
                self.batch
                    .add_table(&Table::new(f, table))
                    .map_err(nft_err("planning"))?;
                self.batch
                    .add_chain(&ensure_chain(bc, self.family, table), false)
                    .map_err(nft_err("planning"))?;
                self.chain_tables.insert(table.to_owned());
            }
        }
        Ok(())
    }

    fn add(
        &mut self,
        table: &str,
        chain: &str,
        spec: &RuleSpec,
        pos: Position,
    ) -> Result<(u32, OpIndex), Error> {
        let r = encode_rule_with(spec, self.family, table, chain, &KernelSets)
            .map_err(|e| Error::Invalid(e.0))?;
        let id = self.batch.new_id();
        let op = self
            .batch
            .add_rule_with_id(&r, pos, true, Some(id))
            .map_err(nft_err("planning"))?;
        Ok((id, op))
    }

    fn del(&mut self, table: &str, chain: &str, e: Entry) -> Result<(), Error> {
        let f = self.family.nft();
        match e {
            Entry::Kernel(h) => self.batch.del_rule(f, table, chain, h),
            Entry::New { id, .. } => self.batch.del_rule_by_id(f, table, chain, id),
        }
        .map_err(nft_err("planning"))?;
        Ok(())
    }

    /// Whether the chain exists in the kernel (one GETCHAIN, no dump). Chain operations ask
    /// before committing so that a chain that exists already (or is missing) is refused here:
    /// a batch the kernel refuses costs it about 14 ms in its abort path here (a successful
    /// one microseconds), holding the commit lock that every writer of the namespace waits
    /// for — and "create unless it exists" is how CNI plugins call `new_chain` all the time.
    fn kernel_has_chain(&mut self, table: &str, chain: &str) -> Result<bool, Error> {
        Ok(get_chain(self.conn, self.family.nft(), table, chain)
            .map_err(nft_err("reading a chain"))?
            .is_some())
    }

    fn exists_or_err(&mut self, table: &str, chain: &str) -> Result<bool, Error> {
        Ok(self.view(table, chain).map(|v| v.exists).unwrap_or(true))
    }

    /// Deletes a built-in chain as iptables-nft does: only when it is in the kernel, empty
    /// and its policy is ACCEPT (it is created again on first use, with that policy), so
    /// that no DROP policy is ever lost. A chain with rules is [`Error::NotEmpty`], one with
    /// another policy [`Error::BuiltinKept`] (or left alone with `keep_quietly`); a flush
    /// never empties a built-in chain to delete it.
    fn delete_builtin(
        &mut self,
        t: &str,
        c: &str,
        if_exists: bool,
        keep_quietly: bool,
    ) -> Result<Pending, Error> {
        let f = self.family.nft();
        // The rules first: the read gives the generation the batch is committed against, so
        // that a policy or rule changed after these reads makes the plan start again.
        self.load(t, c)?;
        let Some(kc) = get_chain(self.conn, f, t, c).map_err(nft_err("reading a chain"))? else {
            return if if_exists || keep_quietly {
                Ok(Pending::Done)
            } else {
                Err(Error::chain_missing(t, c))
            };
        };
        let policy = kc.hook.as_ref().and_then(|h| h.policy);
        let kept = if policy.is_some_and(|p| p != Policy::Accept) {
            Some(Error::BuiltinKept {
                table: t.to_owned(),
                chain: c.to_owned(),
            })
        } else if self.view(t, c).is_some_and(|v| !v.entries.is_empty()) {
            Some(Error::NotEmpty {
                table: t.to_owned(),
                chain: c.to_owned(),
            })
        } else {
            None
        };
        if let Some(e) = kept {
            return if keep_quietly {
                Ok(Pending::Done)
            } else {
                Err(e)
            };
        }
        self.batch.del_chain(f, t, c).map_err(nft_err("planning"))?;
        self.chain_tables.insert(t.to_owned());
        self.ensured.remove(&key(t, c));
        if let Some(v) = self.view(t, c) {
            v.entries.clear();
        }
        Ok(Pending::Done)
    }

    fn op(&mut self, op: &Op) -> Result<Pending, Error> {
        let (table, chain) = op.table_chain();
        let (table, chain) = (table.to_owned(), chain.to_owned());
        let (t, c) = (table.as_str(), chain.as_str());
        let f = self.family.nft();
        if op.reads() {
            self.load(t, c)?;
        }
        let first_touch = self.touched.insert(key(t, c));
        match op {
            Op::Add {
                specs, at, unique, ..
            } => {
                if !self.exists_or_err(t, c)? {
                    return Err(Error::chain_missing(t, c));
                }
                if *unique {
                    let mut all = true;
                    for s in specs {
                        if self.find(t, c, s)?.is_empty() {
                            all = false;
                            break;
                        }
                    }
                    if all {
                        return Ok(Pending::Present);
                    }
                }
                self.ensure(t, c)?;
                let mut ops = Vec::new();
                let mut prev: Option<u32> = None;
                for (k, s) in specs.iter().enumerate() {
                    let idx = match at {
                        At::Append => None,
                        At::Insert(n) => Some(*n as usize - 1 + k),
                    };
                    let pos = match (self.view(t, c), idx) {
                        (_, None) => Position::Append,
                        (Some(v), Some(i)) => {
                            if i > v.entries.len() {
                                return Err(Error::rule_missing(
                                    t,
                                    c,
                                    &format!(
                                        "index of insertion too big: no rule number {}",
                                        i + 1 - k
                                    ),
                                ));
                            }
                            match v.entries.get(i) {
                                None => Position::Append,
                                Some(Entry::Kernel(h)) => Position::Before(*h),
                                Some(Entry::New { id, .. }) => Position::BeforeId(*id),
                            }
                        }
                        (None, Some(_)) => match prev {
                            None => Position::Prepend,
                            Some(id) => Position::AfterId(id),
                        },
                    };
                    let (id, opi) = self.add(t, c, s, pos)?;
                    prev = Some(id);
                    let e = Entry::New { id, op: opi };
                    if let Some(v) = self.view(t, c) {
                        match idx {
                            None => v.entries.push(e),
                            Some(i) => v.entries.insert(i, e),
                        }
                    }
                    ops.push(opi);
                }
                Ok(Pending::Added(ops))
            }
            Op::Replace { pos, specs, .. } => {
                if !self.exists_or_err(t, c)? {
                    return Err(Error::chain_missing(t, c));
                }
                let [spec] = specs.as_slice() else {
                    return Err(Error::Invalid(
                        "a replacement must be exactly one rule (one source and one destination address)".into(),
                    ));
                };
                let idx = *pos as usize - 1;
                let old = self.view(t, c).and_then(|v| v.entries.get(idx).copied());
                let Some(old) = old else {
                    return Err(Error::rule_missing(
                        t,
                        c,
                        &format!("index of replacement too big: no rule number {pos}"),
                    ));
                };
                self.ensure(t, c)?;
                let (id, opi) = match old {
                    Entry::Kernel(h) => self.add(t, c, spec, Position::Replace(h))?,
                    Entry::New { id, .. } => {
                        let r = self.add(t, c, spec, Position::BeforeId(id))?;
                        self.del(t, c, old)?;
                        r
                    }
                };
                if let Some(v) = self.view(t, c) {
                    v.entries[idx] = Entry::New { id, op: opi };
                }
                Ok(Pending::Added(vec![opi]))
            }
            Op::Delete { specs, mode, .. } => {
                if !self.exists_or_err(t, c)? {
                    return match mode {
                        DelMode::First => Err(Error::chain_missing(t, c)),
                        _ => Ok(Pending::Deleted(0)),
                    };
                }
                let mut count = 0;
                for s in specs {
                    let mut found = self.find(t, c, s)?;
                    if found.is_empty() {
                        if *mode == DelMode::First {
                            return Err(Error::rule_missing(
                                t,
                                c,
                                &format!("no rule `{}'", s.to_save_args()),
                            ));
                        }
                        continue;
                    }
                    if *mode != DelMode::All {
                        found.truncate(1);
                    }
                    for i in found.into_iter().rev() {
                        let e = self.view(t, c).map(|v| v.entries.remove(i));
                        if let Some(e) = e {
                            self.del(t, c, e)?;
                            count += 1;
                        }
                    }
                }
                Ok(Pending::Deleted(count))
            }
            Op::DeleteNumber { n, .. } => {
                if !self.exists_or_err(t, c)? {
                    return Err(Error::chain_missing(t, c));
                }
                let idx = *n as usize - 1;
                let e = self
                    .view(t, c)
                    .filter(|v| idx < v.entries.len())
                    .map(|v| v.entries.remove(idx));
                let Some(e) = e else {
                    return Err(Error::rule_missing(
                        t,
                        c,
                        &format!("index of deletion too big: no rule number {n}"),
                    ));
                };
                self.del(t, c, e)?;
                Ok(Pending::Deleted(1))
            }
            Op::NewChain { .. } => {
                if builtin(t, c).is_some() {
                    return Err(Error::chain_exists(t, c));
                }
                check_chain_name(c, self.family).map_err(|e| Error::Invalid(e.to_string()))?;
                if self.view(t, c).is_some_and(|v| v.exists)
                    || (first_touch && self.kernel_has_chain(t, c)?)
                {
                    return Err(Error::chain_exists(t, c));
                }
                self.batch
                    .add_table(&Table::new(f, t))
                    .map_err(nft_err("planning"))?;
                self.batch
                    .add_chain(&Chain::user(f, t, c), true)
                    .map_err(nft_err("planning"))?;
                self.chain_tables.insert(table.clone());
                if let Some(v) = self.view(t, c) {
                    v.exists = true;
                    v.entries.clear();
                }
                Ok(Pending::Done)
            }
            Op::ClearChain { .. } => {
                if builtin(t, c).is_some() {
                    let known = self.view(t, c).map(|v| !v.entries.is_empty());
                    let present = match known {
                        Some(true) => true,
                        _ => get_chain(self.conn, f, t, c)
                            .map_err(nft_err("reading a chain"))?
                            .is_some(),
                    };
                    if !present && !self.ensured.contains(&key(t, c)) {
                        return Ok(Pending::Done);
                    }
                } else {
                    check_chain_name(c, self.family).map_err(|e| Error::Invalid(e.to_string()))?;
                    // Only a missing chain is sent (an existing one would be a chain update
                    // the kernel frees after an RCU grace period).
                    let exists = match self.view(t, c) {
                        Some(v) => v.exists,
                        None => self.kernel_has_chain(t, c)?,
                    };
                    if !exists {
                        self.batch
                            .add_table(&Table::new(f, t))
                            .map_err(nft_err("planning"))?;
                        self.batch
                            .add_chain(&Chain::user(f, t, c), false)
                            .map_err(nft_err("planning"))?;
                        self.chain_tables.insert(table.clone());
                    }
                }
                self.batch
                    .flush_chain(f, t, c)
                    .map_err(nft_err("planning"))?;
                if let Some(v) = self.view(t, c) {
                    v.exists = true;
                    v.entries.clear();
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
                    return self.delete_builtin(t, c, *if_exists, *keep_quietly);
                }
                let present = match self.view(t, c) {
                    Some(v) => v.exists,
                    None if *if_exists || first_touch => self.kernel_has_chain(t, c)?,
                    None => true,
                };
                if !present {
                    return if *if_exists {
                        Ok(Pending::Done)
                    } else {
                        Err(Error::chain_missing(t, c))
                    };
                }
                if *flush {
                    self.batch
                        .flush_chain(f, t, c)
                        .map_err(nft_err("planning"))?;
                }
                self.batch.del_chain(f, t, c).map_err(nft_err("planning"))?;
                self.chain_tables.insert(table.clone());
                if let Some(v) = self.view(t, c) {
                    v.exists = false;
                    v.entries.clear();
                }
                Ok(Pending::Done)
            }
            Op::SetPolicy { policy, .. } => {
                let Some(bc) = builtin(t, c) else {
                    return Err(Error::Invalid(format!(
                        "policy can only be set on a built-in chain, not {c} of table {t}"
                    )));
                };
                self.batch
                    .add_table(&Table::new(f, t))
                    .map_err(nft_err("planning"))?;
                self.batch
                    .add_chain(&bc.to_chain(self.family, t, *policy, None), false)
                    .map_err(nft_err("planning"))?;
                self.chain_tables.insert(table.clone());
                self.ensured.insert(key(t, c));
                Ok(Pending::Done)
            }
            Op::Zero { rule, .. } => {
                if !self.exists_or_err(t, c)? {
                    return Err(Error::chain_missing(t, c));
                }
                let k = key(t, c);
                let entries = self
                    .view(t, c)
                    .map(|v| v.entries.clone())
                    .unwrap_or_default();
                if let Some(n) = rule {
                    if *n as usize > entries.len() {
                        return Err(Error::rule_missing(t, c, &format!("no rule number {n}")));
                    }
                }
                let mut anon = None;
                for (i, e) in entries.iter().enumerate() {
                    if rule.is_some_and(|n| n as usize != i + 1) {
                        continue;
                    }
                    let Entry::Kernel(h) = *e else { continue };
                    let Some(mut r) = self.rule_of(&k, *e) else {
                        continue;
                    };
                    let mut had = false;
                    for x in &mut r.exprs {
                        if let Expr::Counter(cnt) = x {
                            *cnt = Default::default();
                            had = true;
                        }
                    }
                    if !had {
                        continue;
                    }
                    r.handle = None;
                    r.position = None;
                    // The kernel does not dump the protocol x_tables extensions are
                    // checked against: without it, a TPROXY or `--to-ports` rule is refused.
                    r.compat = crate::ipt::compat::compat_of(&r.exprs, self.family);
                    // An anonymous set belongs to the rule that uses it: the new rule gets
                    // sets of its own with the same elements.
                    if r.uses_anonymous_sets() {
                        if anon.is_none() {
                            anon = Some(
                                crate::nft::anonymous_sets(self.conn, f, t)
                                    .map_err(nft_err("reading anonymous sets"))?,
                            );
                        }
                        r.bind_sets(anon.as_ref().expect("read above"));
                    }
                    let id = self.batch.new_id();
                    let opi = self
                        .batch
                        .add_rule_with_id(&r, Position::Replace(h), true, Some(id))
                        .map_err(nft_err("planning"))?;
                    if let Some(v) = self.view(t, c) {
                        v.entries[i] = Entry::New { id, op: opi };
                    }
                }
                if rule.is_none() {
                    if let Some(bc) = builtin(t, c) {
                        if let Some(ch) =
                            get_chain(self.conn, f, t, c).map_err(nft_err("reading a chain"))?
                        {
                            let p = ch
                                .hook
                                .as_ref()
                                .and_then(|h| h.policy)
                                .unwrap_or(Policy::Accept);
                            self.batch
                                .add_chain(&bc.to_chain(self.family, t, p, Some((0, 0))), false)
                                .map_err(nft_err("planning"))?;
                            self.chain_tables.insert(table.clone());
                        }
                    }
                }
                Ok(Pending::Done)
            }
        }
    }
}

/// The pause before planning again after a conflict: 50 µs plus a pseudo-random part (no
/// dependency) that grows to at most 1 ms by the third conflict.
///
/// A conflict means another writer committed, so retrying at once cannot livelock; what
/// decides who commits next is who is planned first once the kernel's commit lock is free.
/// Longer pauses only put the operations that already lost several times further back: at
/// 200k rules under 20 `iptables-nft` writers (`tests/api_field.rs`), a cap of 64 ms left the
/// unluckiest transactions 29–35 tries and 40–45 s behind, a 1 ms cap 15–16 tries and 28–31 s.
pub(crate) fn jitter(attempt: u32) -> std::time::Duration {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(attempt);
    let r = h.finish();
    let cap_us = 250u64 << attempt.min(2);
    std::time::Duration::from_micros(50 + r % cap_us)
}

/// Plans and commits `ops` as one batch; `Ok(None)` when the ruleset changed under a read
/// (the caller waits [`jitter`] without holding the connection, then calls again).
pub(crate) fn run_once(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
    ops: &[Op],
) -> Result<Option<Vec<OpResult>>, Error> {
    {
        let mut p = Planner {
            conn: &mut *conn,
            cache: &mut *cache,
            family,
            batch: Batch::new(),
            views: HashMap::new(),
            genid: None,
            owner: Vec::new(),
            ensured: HashSet::new(),
            touched: HashSet::new(),
            touched_tables: HashSet::new(),
            chain_tables: HashSet::new(),
            current: 0,
            new_canon: HashMap::new(),
        };
        // Read every chain a read-dependent operation needs first, so that all reads belong
        // to one generation as far as possible and blind operations see them.
        let planned = (|| {
            for op in ops.iter().filter(|o| o.reads()) {
                let (t, c) = op.table_chain();
                p.load(t, c)?;
            }
            let mut pending = Vec::with_capacity(ops.len());
            for (i, op) in ops.iter().enumerate() {
                p.current = i;
                pending.push(p.op(op)?);
                p.mark();
            }
            Ok(pending)
        })();
        let pending = match planned {
            Ok(x) => x,
            Err(Error::Conflict { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if p.batch.is_empty() {
            return Ok(Some(
                pending.into_iter().map(|x| resolve(x, None)).collect(),
            ));
        }
        let genid = p.genid;
        p.batch.set_genid(genid);
        match p.batch.commit(p.conn) {
            Ok(done) => {
                let results = pending
                    .into_iter()
                    .map(|x| resolve(x, Some(&done)))
                    .collect();
                update_cache(&mut p, genid, &done);
                Ok(Some(results))
            }
            Err(nft::Error::Conflict { .. }) => Ok(None),
            Err(nft::Error::Rejected { failures }) => {
                let f = &failures[0];
                let op = p.owner.get(f.index).and_then(|&i| ops.get(i));
                Err(map_refusal(p.conn, family, op, f))
            }
            Err(e) => Err(from_nft(e, "committing")),
        }
    }
}

fn resolve(p: Pending, done: Option<&nft::Committed>) -> OpResult {
    match p {
        Pending::Added(ops) => OpResult::Added {
            handles: ops
                .iter()
                .filter_map(|&o| done.and_then(|d| d.handle(o)))
                .collect(),
        },
        Pending::Present => OpResult::AlreadyPresent,
        Pending::Deleted(count) => OpResult::Deleted { count },
        Pending::Done => OpResult::Done,
    }
}

/// After a commit that carried generation `g`, the ruleset is at generation `g + 1` and
/// differs from what was cached only in the chains this batch touched: those are updated from
/// the plan (rules added are taken from the batch, with the handles the kernel echoed) or
/// dropped.
///
/// A blind batch (one that read nothing, so carried no generation) is treated the same when
/// the generation is now exactly one past the cache's: that one commit was this batch, and it
/// applied to what the cache holds. Otherwise (another writer came between) all is forgotten.
fn update_cache(p: &mut Planner<'_>, genid: Option<u32>, done: &nft::Committed) {
    let g = match (genid, p.cache.genid) {
        (Some(g), _) => g,
        (None, Some(cached)) => match p.conn.genid() {
            Ok(now) if now == cached.wrapping_add(1) => cached,
            _ => {
                p.cache.clear();
                return;
            }
        },
        (None, None) => return,
    };
    if p.cache.genid != Some(g) {
        p.cache.clear();
        return;
    }
    for t in p.chain_tables.iter().chain(&p.touched_tables) {
        p.cache.forget_table(t);
    }
    for k in std::mem::take(&mut p.touched) {
        if p.touched_tables.contains(&k.0) {
            continue;
        }
        let Some(v) = p.views.get_mut(&k) else {
            p.cache.forget(&k);
            continue;
        };
        if !v.exists {
            p.cache.forget(&k);
            p.cache.chains.insert(k, None);
            continue;
        }
        // The rules as read are moved, not cloned, into the chain's new version: the view's
        // and the cache's references are dropped first so that the vector is unshared.
        let entries = v.entries.clone();
        let by_handle = std::mem::take(&mut v.by_handle);
        let old = v.kernel.take();
        let index = match (p.cache.take_chain(&k), &old) {
            (Some((cached, index)), Some(o)) if Arc::ptr_eq(&cached, o) => index,
            _ => None,
        };
        let mut old_rules: Vec<Option<Rule>> = old
            .map(|a| Arc::unwrap_or_clone(a).into_iter().map(Some).collect())
            .unwrap_or_default();
        let mut rules = Vec::with_capacity(entries.len());
        let mut added = HashSet::new();
        let mut ok = true;
        for e in entries {
            match e {
                Entry::Kernel(h) => {
                    match by_handle
                        .get(&h)
                        .and_then(|&i| old_rules.get_mut(i)?.take())
                    {
                        Some(r) => rules.push(r),
                        None => ok = false,
                    }
                }
                Entry::New { op, .. } => match (p.rule_of(&k, e), done.handle(op)) {
                    (Some(mut r), Some(h)) => {
                        r.handle = Some(h);
                        r.position = None;
                        added.insert(h);
                        rules.push(r);
                    }
                    _ => ok = false,
                },
            }
        }
        if !ok {
            p.cache.forget(&k);
            continue;
        }
        let removed: Vec<Rule> = old_rules.into_iter().flatten().collect();
        p.cache
            .put_chain(&k, p.family, rules, index, &removed, &added);
    }
    let gone: Vec<Key> = p
        .cache
        .chains
        .keys()
        .filter(|k| p.touched_tables.contains(&k.0))
        .cloned()
        .collect();
    for k in &gone {
        p.cache.forget(k);
    }
    p.cache.genid = Some(g.wrapping_add(1));
}

/// Turns the kernel's refusal of one operation into a typed error.
fn map_refusal(conn: &mut Conn, family: IpFamily, op: Option<&Op>, f: &nft::OpError) -> Error {
    let (t, c) = op.map(|o| o.table_chain()).unwrap_or(("", ""));
    let message = f.to_string();
    match f.errno {
        libc::ENOENT if f.reason.contains("x_tables") => {
            Error::ExtensionUnavailable(f.reason.clone())
        }
        libc::ENOENT => {
            let what = if f.reason.contains("chain") {
                What::Chain
            } else if f.reason.contains("table") {
                What::Table
            } else {
                What::Chain
            };
            Error::NotFound {
                what,
                table: t.to_owned(),
                chain: c.to_owned(),
                message,
            }
        }
        libc::EEXIST => Error::AlreadyExists {
            what: What::Chain,
            table: t.to_owned(),
            chain: c.to_owned(),
            message,
        },
        libc::EBUSY if matches!(op, Some(Op::DeleteChain { flush: true, .. })) => {
            Error::ChainInUse {
                table: t.to_owned(),
                chain: c.to_owned(),
            }
        }
        libc::EBUSY if matches!(op, Some(Op::DeleteChain { .. })) => {
            let non_empty = crate::nft::list_rules(conn, Some(family.nft()), Some(t), Some(c))
                .map(|(r, _)| !r.is_empty())
                .unwrap_or(false);
            if non_empty {
                Error::NotEmpty {
                    table: t.to_owned(),
                    chain: c.to_owned(),
                }
            } else {
                Error::ChainInUse {
                    table: t.to_owned(),
                    chain: c.to_owned(),
                }
            }
        }
        libc::EPERM => Error::Permission { op: f.op.clone() },
        errno => Error::Kernel {
            errno,
            op: f.op.clone(),
            message: f.reason.clone(),
        },
    }
}
