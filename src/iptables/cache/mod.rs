//! The rules of chains this handle has read, valid for one ruleset generation.
//!
//! Reading the generation id is one round trip whatever the size of the ruleset; as long as
//! it has not moved, a chain read before is served from here without a dump. A commit that
//! carried the cached generation moves it by exactly one, and the chains it touched are
//! updated from the plan, so a sequence of read-dependent operations by one handle on one
//! chain dumps that chain once.
//!
//! What is kept is sized to what is served: a table listed whole is kept as each chain's
//! listing lines ([`Lines`]) and a compact chain list ([`ChainList`]), not as decoded rules;
//! decoded rules are kept for the chains commands read last, about [`DECODED_RULES`] rules
//! at most beside the chain read last; lookups by spec go through indexes keyed by 128-bit
//! hashes of canonical forms ([`CanonIndex`]). A chain longer than that budget is kept as
//! its index alone once it has one: the index holds the chain's handles in order, which is
//! all the planner needs for a check, a delete by spec or a positional write (see
//! [`Cache::compact`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

mod chains;
mod compact;
mod known;
mod lines;
mod replay;
mod seen;
#[cfg(test)]
mod tests;

pub(crate) use chains::{ChainList, ChainsOf};
pub(crate) use compact::line_ref;
pub(crate) use seen::SeenOnce;

use lines::hash128;
pub(crate) use lines::{read_lines, Lines};

use super::error::{from_nft, Error};
use super::events::{Commits, Events};
use super::ipset::KernelSets;
use super::listing::{Block, TableText};
use super::plan::ChainEdit;
use crate::ipt::{canonical_of_rule_with, IpFamily};
use crate::netlink::Conn;
use crate::nft::{Chain, Expr, Rule};

/// A (table, chain) pair.
pub(crate) type Key = (String, String);

/// At most about this many decoded rules are kept (the chains read last; what a listing
/// reads is kept as lines, see [`Lines`]). A decoded rule takes about 1.5 KB, a listing
/// line a tenth of that: a server holding a 200k-rule table keeps its lines and the rules
/// of the few chains its commands read.
const DECODED_RULES: usize = 1 << 12;

/// The canonical forms of a chain's rules (by their [`hash128`]) and the handles of the
/// rules that have each, with the chain's handles in order: what a check or a delete by
/// spec needs of a chain, without its decoded rules (a compact form of the chain, a few
/// dozen bytes a rule where a decoded rule takes about 1.5 KB).
#[derive(Debug, Clone, Default)]
pub(crate) struct CanonIndex {
    map: HashMap<u128, Vec<u64>>,
    /// Every rule of the chain in order: its handle and the [`hash128`] of its canonical
    /// form (`None`: a foreign rule, or one whose form depends on interface names).
    order: Vec<(u64, Option<u128>)>,
    /// Whether the chain holds rules whose form depends on the names of interfaces (see
    /// [`reads_interfaces`]): those are left out of `map` and compared afresh each time.
    volatile: bool,
}

impl CanonIndex {
    /// The index of a chain whose rules are `order` (handle and canonical form's hash, in
    /// chain order), none of them volatile.
    fn of_order(order: Vec<(u64, Option<u128>)>) -> CanonIndex {
        let mut map: HashMap<u128, Vec<u64>> = HashMap::with_capacity(order.len());
        for &(h, c) in &order {
            if let Some(c) = c {
                map.entry(c).or_default().push(h);
            }
        }
        CanonIndex {
            map,
            order,
            volatile: false,
        }
    }

    /// Whether the index alone answers for the chain: none of its rules must be compared
    /// afresh (see [`reads_interfaces`]).
    pub(crate) fn complete(&self) -> bool {
        !self.volatile
    }

    /// The handles of the chain's rules, in order.
    pub(crate) fn handles(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.order.iter().map(|&(h, _)| h)
    }

    /// The chain's rules in order: each one's handle and its canonical form's hash (`None`:
    /// a foreign rule).
    pub(crate) fn order(&self) -> &[(u64, Option<u128>)] {
        &self.order
    }

    /// The canonical form's hash of each rule, by handle.
    pub(crate) fn forms(&self) -> HashMap<u64, Option<u128>> {
        self.order.iter().copied().collect()
    }

    /// The handles of the rules whose canonical form is `want`, in no particular order
    /// (rules compared afresh, see [`CanonIndex::complete`], are not among them).
    pub(crate) fn find(&self, want: &[Expr]) -> Vec<u64> {
        self.map.get(&hash128(want)).cloned().unwrap_or_default()
    }
}

/// Whether what a rule shows depends on more than its bytes: `nft`'s `meta iif`/`oif`
/// compare an interface's index, which iptables shows by the interface's name, and an
/// interface renamed or gone changes that with no ruleset event. Such a rule is decoded
/// afresh for every answer, never remembered as text or canonical form.
pub(crate) fn reads_interfaces(rule: &Rule) -> bool {
    use crate::nft::expr::meta::{MetaKey, MetaOp};
    rule.exprs.iter().any(|e| {
        matches!(e, Expr::Meta(m) if matches!(m.key, MetaKey::Iif | MetaKey::Oif)
            && matches!(m.op, MetaOp::Load { .. }))
    })
}

/// The rules of one chain as read (`None`: the chain does not exist).
pub(crate) type ChainRules = Option<Arc<Vec<Rule>>>;

/// Chains' rules at generation `genid`.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    pub(crate) genid: Option<u32>,
    pub(crate) memo: Memo,
    /// Rules read chain by chain since the cached rules were last counted.
    pub(crate) read_since_count: usize,
    /// A chain too big to keep decoded was read: what it took is given back to the system
    /// at the next read (see [`sync`]), once the operation that read it has dropped it.
    release: bool,
    pub(crate) chains: HashMap<Key, ChainRules>,
    /// The canonical forms of the rules of chains, built by the second lookup of a chain by
    /// spec (see [`Cache::canonical_index`]): kept when the chain's decoded rules are not,
    /// valid (as [`Cache::lines`] are) until the chain changes.
    canon: HashMap<Key, Arc<CanonIndex>>,
    /// Chains looked up by spec once already (see [`Cache::find_canonical`]).
    scanned: SeenOnce<Key, { 1 << 16 }>,
    /// Tables listed whole once already: their first listing is read chain by chain and
    /// kept nowhere (a one-shot `iptables -S` holds only its text); a second one reads the
    /// table into the cache. A handle that follows events reads it into the cache at once.
    pub(crate) listed: SeenOnce<String, 1024>,
    /// The chains of tables read whole (see [`read_table`]); with the rules of each in
    /// `chains`, a listing of the table needs no dump.
    pub(crate) tables: HashMap<String, Arc<ChainList>>,
    /// Cached chains' rules as `iptables -S` lines (see [`Cache::rendered`]), kept when
    /// their rules are not: valid until the chain changes.
    pub(crate) lines: Lines,
    /// Chains rendered and not kept because their lines depend on interface names (see
    /// [`reads_interfaces`]), counted so that a listing that holds one is not kept either.
    pub(crate) volatile_rendered: u64,
    /// The last `iptables -S` listing of each table, with the generation it shows: a
    /// listing is a function of the ruleset, so it serves every later listing of the table
    /// at that generation (the commands of `iptnl serve` that arrive between two commits).
    listings: HashMap<String, (u32, TableText)>,
    /// The chain lines and the chain order of the last listing of each table, with the chain
    /// list they come from (see [`Cache::listing_head`]).
    heads: HashMap<String, ListingHead>,
    /// Follow the ruleset events instead of forgetting everything when the generation moved.
    pub(crate) follow: bool,
    /// The event subscription, opened by the first read while `follow` is set.
    pub(crate) events: Option<Events>,
    /// The last restore applied through the handle (valid while the generation has not
    /// moved, whatever else the cache forgets).
    pub(crate) restore_memo: Option<Box<super::restore::memo::RestoreMemo>>,
    /// What following the events did so far.
    pub(crate) stats: FollowStats,
    /// Built-in chains seen to exist, at the generation they were seen at (used only where
    /// the connection tells the generation without a request).
    pub(crate) builtins: known::KnownChains,
}

/// What a handle that follows the kernel's ruleset events did to keep its cache equal to
/// the kernel (see [`IpTables::follow_stats`](super::IpTables::follow_stats)).
///
/// ```
/// let s = iptnl::iptables::FollowStats::default();
/// assert_eq!(s.lost, 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FollowStats {
    /// Commits of other writers replayed onto the cache.
    pub commits: u64,
    /// Cached chains edited in place from their events.
    pub chains_edited: u64,
    /// Cached chains forgotten instead (a change the cache could not place exactly, or too
    /// big to edit): read again when next needed.
    pub chains_forgotten: u64,
    /// Chains renamed by other writers, with the cached rules that jump to them rewritten.
    pub renames: u64,
    /// Commits whose generation was read before their events arrived, and waited for.
    pub waited: u64,
    /// Times the events could not all be known (the socket's buffer overflowed, a
    /// generation was missing, an event could not be read, a commit did not end in time):
    /// everything cached was forgotten and read again.
    pub lost: u64,
}

impl Cache {
    pub(crate) fn clear(&mut self) {
        self.genid = None;
        self.heads.clear();
        self.chains.clear();
        self.canon.clear();
        self.scanned.clear();
        self.tables.clear();
        self.lines.clear();
        self.listings.clear();
    }

    /// Forgets which chains a table has (after a commit or an event that added, deleted,
    /// renamed or changed one of them).
    pub(crate) fn forget_table(&mut self, table: &str) {
        self.tables.remove(table);
    }

    /// The listing of `table` made at generation `genid`, if it is the last one made.
    pub(crate) fn listing(&self, table: &str, genid: u32) -> Option<TableText> {
        match self.listings.get(table) {
            Some((g, l)) if *g == genid => Some(l.clone()),
            _ => None,
        }
    }

    /// Keeps `listing`, made at generation `genid`, for the next listing of `table`.
    pub(crate) fn keep_listing(&mut self, table: &str, genid: u32, listing: TableText) {
        self.listings.insert(table.to_owned(), (genid, listing));
    }

    /// Follows a commit of this handle that added and deleted user chains of `table`, in
    /// order, on the cached chain list (the added chains' handles are not known yet).
    pub(crate) fn edit_table(&mut self, table: &str, family: IpFamily, edits: &[ChainEdit]) {
        let Some(list) = self.tables.get_mut(table) else {
            return;
        };
        let list = Arc::make_mut(list);
        for e in edits {
            match e {
                ChainEdit::Add(name) => {
                    if !list.contains(name) {
                        list.push(Chain::user(family.nft(), table, name));
                    }
                }
                ChainEdit::Del(name) => list.remove(name),
            }
        }
    }

    /// Forgets one chain (it is read again when needed).
    pub(crate) fn forget(&mut self, k: &Key) {
        self.chains.remove(k);
        self.canon.remove(k);
        self.forget_rendered(k);
    }

    fn forget_rendered(&mut self, k: &Key) {
        self.lines.remove(&k.0, &k.1);
    }

    /// Forgets every chain of the tables `tables` (changed as a whole).
    pub(crate) fn forget_tables<'a>(&mut self, tables: impl IntoIterator<Item = &'a String>) {
        for t in tables {
            let gone: Vec<Key> = self.chains.keys().filter(|k| &k.0 == t).cloned().collect();
            for k in &gone {
                self.forget(k);
            }
            self.lines.remove_table(t);
            self.forget_indexes_of(t);
        }
    }

    /// Whether anything of a chain of `table` is cached (its rules or its lines).
    pub(crate) fn holds_table(&self, table: &str) -> bool {
        self.lines.holds_table(table) || self.chains.keys().any(|k| k.0 == table)
    }

    /// Keeps the decoded rules of at most about [`DECODED_RULES`] rules: past that, those
    /// of every chain but `k` (just read, `read` rules) are dropped (their lines and indexes
    /// stay). The chain just read stays decoded whatever its size, so that the next
    /// single-rule operation on it (a check, a delete by spec) reads nothing, however long
    /// the chain, unless its canonical index serves those alone (see [`Cache::compact`]): a
    /// chain of more than [`DECODED_RULES`] rules is then kept as its index only. Counting
    /// is a pass over the cached chains, done once per a quarter of the budget of rules read
    /// (a table of 68k chains read one by one).
    fn trim_decoded(&mut self, k: &Key, read: usize) {
        if read > DECODED_RULES {
            let keep_k = self.compact(k).is_none();
            let before = self.chains.len();
            self.chains.retain(|x, v| v.is_none() || (keep_k && x == k));
            self.release |= self.chains.len() < before;
            return;
        }
        self.read_since_count += read;
        if self.read_since_count <= DECODED_RULES / 4 {
            return;
        }
        self.read_since_count = 0;
        if self.rules() <= DECODED_RULES {
            return;
        }
        self.chains.retain(|x, v| v.is_none() || x == k);
    }

    /// Gives free memory back to the system if a chain too big to keep decoded was read (and
    /// is dropped by now).
    pub(crate) fn release_if_asked(&mut self) {
        if std::mem::take(&mut self.release) {
            crate::netlink::release_free_memory();
        }
    }

    /// Forgets the canonical index of chain `k` (changed).
    pub(crate) fn forget_index(&mut self, k: &Key) {
        self.canon.remove(k);
    }

    /// Forgets the canonical indexes of the chains of `table` (a chain renamed: a jump's
    /// canonical form names its target).
    pub(crate) fn forget_indexes_of(&mut self, table: &str) {
        self.canon.retain(|k, _| k.0 != table);
    }

    /// Whether chain `k` holds a rule of each canonical form of `wants`, from its canonical
    /// index alone (`None`: no index, or the chain's rules must be compared afresh).
    pub(crate) fn indexed_holds_all(&self, k: &Key, wants: &[Vec<Expr>]) -> Option<bool> {
        let idx = self.canon.get(k).filter(|i| !i.volatile)?;
        Some(
            wants
                .iter()
                .all(|w| idx.map.contains_key(&hash128(w.as_slice()))),
        )
    }

    /// The canonical index of chain `k` when it serves alone for the chain's rules, in order,
    /// as the cache's generation has them (see [`CanonIndex::complete`]): a delete or a
    /// check by spec, an insert or a delete by number need nothing more of the chain.
    pub(crate) fn compact(&self, k: &Key) -> Option<Arc<CanonIndex>> {
        self.canon.get(k).filter(|i| i.complete()).cloned()
    }

    /// Puts back a chain the planner changed from its canonical index alone (see
    /// [`Cache::compact`]): `order` is its rules' handles and canonical forms' hashes, in
    /// order, after the commit, `lines` its listing lines when they were edited too. What
    /// was cached of its old version goes.
    pub(crate) fn put_compact(
        &mut self,
        k: &Key,
        order: Vec<(u64, Option<u128>)>,
        lines: Option<Block>,
    ) {
        self.forget_rendered(k);
        self.chains.remove(k);
        self.canon
            .insert(k.clone(), Arc::new(CanonIndex::of_order(order)));
        if let Some(lines) = lines {
            self.lines.insert(&k.0, &k.1, Arc::new(lines));
        }
    }

    /// The kept listing lines of chain `k` by handle, when there is one line for each rule
    /// of its index (`index`, the chain as cached): what a commit that changed the chain
    /// from its index edits, instead of reading the chain again to render it.
    pub(crate) fn lines_of_index(&self, k: &Key, index: &CanonIndex) -> Option<LinesByHandle> {
        let block = self.lines.get(&k.0, &k.1)?.clone();
        let at: HashMap<u64, usize> = index
            .order
            .iter()
            .enumerate()
            .map(|(i, &(h, _))| (h, i))
            .collect();
        (block.lines() == index.order.len() && at.len() == block.lines())
            .then_some(LinesByHandle { block, at })
    }

    /// Whether a canonical index of chain `k` is kept.
    pub(crate) fn has_index(&self, k: &Key) -> bool {
        self.canon.contains_key(k)
    }

    /// The chain lines of a listing of `table` and, for each chain in the listing's order,
    /// its index in `chains` (`None`: a built-in chain not there yet), made by `make` once
    /// per version of the table's chain list: a listing after a commit that changed only
    /// rules neither sorts the chains again nor renders their lines.
    pub(crate) fn listing_head<E>(
        &mut self,
        table: &str,
        chains: &Arc<ChainList>,
        make: impl FnOnce() -> Result<(Arc<Block>, Vec<Option<usize>>), E>,
    ) -> Result<(Arc<Block>, ChainOrder), E> {
        if let Some(h) = self.heads.get(table) {
            if Arc::ptr_eq(&h.chains, chains) {
                return Ok((h.lines.clone(), h.order.clone()));
            }
        }
        let (lines, order) = make()?;
        let order = Arc::new(order);
        self.heads.insert(
            table.to_owned(),
            ListingHead {
                chains: chains.clone(),
                lines: lines.clone(),
                order: order.clone(),
            },
        );
        Ok((lines, order))
    }

    /// The `iptables -S` lines of `rules`, the rules of chain `k` read at generation `at`,
    /// rendered with `render` once per version of the chain (every change to the chain
    /// forgets them): a table listed again after a change renders only the chains that
    /// changed. Lines beyond a budget are not kept, nor lines of rules read at another
    /// generation than the cache's (they are of another version of the chain).
    pub(crate) fn rendered(
        &mut self,
        k: &Key,
        rules: &Arc<Vec<Rule>>,
        at: u32,
        render: impl FnOnce(&[Rule]) -> Vec<String>,
    ) -> Arc<Block> {
        if self.genid != Some(at) {
            return Arc::new(Block::new(render(rules)));
        }
        if let Some(lines) = self.lines.get(&k.0, &k.1) {
            return lines.clone();
        }
        let lines = Arc::new(Block::new(render(rules)));
        if rules.iter().any(reads_interfaces) {
            // Rendered afresh each time, and so is a listing that holds it.
            self.volatile_rendered += 1;
            return lines;
        }
        self.lines.insert(&k.0, &k.1, lines.clone());
        lines
    }

    /// Takes the rules of an existing cached chain out of the cache, with its canonical index
    /// when it has one (see [`Cache::put_chain`]).
    pub(crate) fn take_chain(&mut self, k: &Key) -> Option<(Arc<Vec<Rule>>, Option<CanonIndex>)> {
        let (rules, index) = self.take_chain_parts(k);
        Some((rules?, index))
    }

    /// Takes what the cache holds of chain `k` out of it, before the chain changes: its
    /// decoded rules and its canonical index, each when kept (both as of the cache's
    /// generation); its lines are forgotten.
    pub(crate) fn take_chain_parts(
        &mut self,
        k: &Key,
    ) -> (Option<Arc<Vec<Rule>>>, Option<CanonIndex>) {
        self.forget_rendered(k);
        let index = self.canon.remove(k).map(Arc::unwrap_or_clone);
        (self.chains.remove(k).flatten(), index)
    }

    /// Puts back a chain taken with [`Cache::take_chain`] after rules were removed and the
    /// rules with handles `added` were added, carrying its canonical index over.
    pub(crate) fn put_chain(
        &mut self,
        k: &Key,
        family: IpFamily,
        rules: Vec<Rule>,
        index: Option<CanonIndex>,
        added: &HashSet<u64>,
    ) {
        // What was kept of the chain's old version goes.
        self.forget_rendered(k);
        self.canon.remove(k);
        let rules = Arc::new(rules);
        if let Some(idx) = index {
            // The rules kept keep their forms, those added (or replaced) get theirs.
            let mut forms = idx.forms();
            let idx = self.index_of(k, family, &rules, |h| {
                forms.remove(&h).filter(|_| !added.contains(&h))
            });
            self.canon.insert(k.clone(), Arc::new(idx));
        }
        let n = rules.len();
        self.chains.insert(k.clone(), Some(rules));
        self.trim_decoded(k, n);
    }

    /// The handles of the rules of `rules` (the rules of chain `k` as the caller read them)
    /// whose canonical form is `want`, in no particular order.
    ///
    /// The first lookup in a chain compares every rule's canonical form with `want` and keeps
    /// nothing: a one-shot `iptables -C` or `-D` pays neither the memo nor the index. A chain
    /// looked up again gets its canonical index (see [`Cache::canonical_index`]), so a
    /// long-lived handle finds a rule in an unchanged chain with one hash lookup.
    ///
    /// The index is of the chain at the cache's generation, so only the rules the cache holds
    /// (see [`Cache::holds`]) are looked up in it or give it. Rules read before the
    /// generation moved (a plan whose later read found another writer's commit, and that the
    /// kernel will refuse) are compared one by one and leave nothing behind: an index of
    /// them, kept as the new generation's, would answer checks and place rules by a chain
    /// that is no longer there.
    pub(crate) fn find_canonical(
        &mut self,
        k: &Key,
        family: IpFamily,
        rules: &Arc<Vec<Rule>>,
        want: &[Expr],
    ) -> Vec<u64> {
        if self.holds(k, rules) && (self.canon.contains_key(k) || !self.scanned.first(k.clone())) {
            let idx = self.canonical_index(k, family, rules);
            let mut found = idx.map.get(&hash128(want)).cloned().unwrap_or_default();
            if idx.volatile {
                found.extend(
                    rules
                        .iter()
                        .filter(|r| reads_interfaces(r))
                        .filter(|r| {
                            canonical_of_rule_with(r, family, &KernelSets).as_deref() == Some(want)
                        })
                        .map(|r| r.handle.unwrap_or(0)),
                );
            }
            return found;
        }
        rules
            .iter()
            .filter(|r| canonical_of_rule_with(r, family, &KernelSets).as_deref() == Some(want))
            .map(|r| r.handle.unwrap_or(0))
            .collect()
    }

    /// Whether `rules` are chain `k`'s rules as the cache holds them, at its generation.
    fn holds(&self, k: &Key, rules: &Arc<Vec<Rule>>) -> bool {
        matches!(self.chains.get(k), Some(Some(c)) if Arc::ptr_eq(c, rules))
    }

    /// The canonical forms of `rules`, the cached rules of chain `k` (see [`Cache::holds`]),
    /// each with the handles of the rules that have it: built once per cached version of the
    /// chain, so that finding a rule in an unchanged chain is one hash lookup instead of a
    /// comparison with every rule. Foreign rules (no canonical form) are left out: no spec
    /// equals them.
    fn canonical_index(
        &mut self,
        k: &Key,
        family: IpFamily,
        rules: &Arc<Vec<Rule>>,
    ) -> Arc<CanonIndex> {
        if let Some(idx) = self.canon.get(k) {
            return idx.clone();
        }
        if self.canon.len() >= 1024 {
            self.canon.clear();
        }
        let idx = Arc::new(self.index_of(k, family, rules, |_| None));
        self.canon.insert(k.clone(), idx.clone());
        idx
    }

    /// The canonical index of `rules`, chain `k`'s rules in order: each rule's form as
    /// `known` gives it by handle (`None`: worked out here); a rule whose form depends on
    /// interface names (see [`reads_interfaces`]) has none, and makes the index volatile.
    fn index_of(
        &mut self,
        k: &Key,
        family: IpFamily,
        rules: &[Rule],
        mut known: impl FnMut(u64) -> Option<Option<u128>>,
    ) -> CanonIndex {
        let mut order = Vec::with_capacity(rules.len());
        let mut volatile = false;
        for r in rules {
            let h = r.handle.unwrap_or(0);
            if reads_interfaces(r) {
                volatile = true;
                order.push((h, None));
                continue;
            }
            let c = match known(h) {
                Some(c) => c,
                None => self.memo.canonical(k, family, r),
            };
            order.push((h, c));
        }
        let mut idx = CanonIndex::of_order(order);
        idx.volatile = volatile;
        idx
    }

    fn rules(&self) -> usize {
        self.chains
            .values()
            .map(|v| v.as_ref().map_or(0, |r| r.len()))
            .sum()
    }
}

/// A chain's kept listing lines and the line of each rule, by handle (see
/// [`Cache::lines_of_index`]).
#[derive(Debug)]
pub(crate) struct LinesByHandle {
    block: Arc<Block>,
    at: HashMap<u64, usize>,
}

impl LinesByHandle {
    /// The chain's lines after a change: for each rule in its new order, the kept line of a
    /// rule it held (by handle) or a new rule's line, as given; `None` when a handle is not
    /// one of the chain's.
    pub(crate) fn edit<'a>(
        &self,
        rules: impl IntoIterator<Item = Result<u64, &'a str>>,
    ) -> Option<Block> {
        let old: Vec<&str> = self.block.text_lines().collect();
        let mut text = String::with_capacity(self.block.text_len() + 256);
        for r in rules {
            let line = match r {
                Ok(h) => old.get(*self.at.get(&h)?)?,
                Err(line) => line,
            };
            text.push_str(line);
            text.push('\n');
        }
        text.shrink_to_fit();
        Some(Block::from_text(text))
    }
}

/// Canonical forms of rules by their expressions (see [`crate::ipt::compare`]), per chain,
/// both by their [`hash128`]: they depend only on what a rule is, so they outlive
/// generations.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    map: HashMap<Key, HashMap<u128, Option<u128>>>,
    len: usize,
}

/// Above this many memoized rules, the memo starts over.
const MAX_MEMO: usize = 1 << 16;

impl Memo {
    /// The [`hash128`] of the canonical form of `rule` (of chain `k`), `None` for a foreign
    /// rule.
    pub(crate) fn canonical(&mut self, k: &Key, family: IpFamily, rule: &Rule) -> Option<u128> {
        let of = |rule: &Rule| {
            canonical_of_rule_with(rule, family, &KernelSets).map(|c| hash128(c.as_slice()))
        };
        if rule.userdata.is_some() || reads_interfaces(rule) {
            // The memo is keyed by expressions; user data can make two such rules differ, and
            // interface names change under the same expressions.
            return of(rule);
        }
        let key = hash128(rule.exprs.as_slice());
        if let Some(c) = self.map.get(k).and_then(|m| m.get(&key)) {
            return *c;
        }
        let c = of(rule);
        if self.len >= MAX_MEMO {
            self.map.clear();
            self.len = 0;
        }
        self.len += 1;
        self.map.entry(k.clone()).or_default().insert(key, c);
        c
    }
}

/// Brings the cache to the kernel's current generation `g` (one round trip): what it holds
/// afterwards is valid at `g` (advanced by the queued events when following them, else
/// forgotten when the generation moved). `None` when it must be asked again: the queued
/// events were dropped.
impl Cache {
    /// Applies the commits [`Events::commits`] found, which bring the cache to generation `g`.
    pub(crate) fn advance(&mut self, family: IpFamily, c: &Commits, g: u32) {
        for batch in &c.known {
            self.own_commit(family, batch);
        }
        for batch in &c.new {
            let r = self.replay(family, batch);
            let s = &mut self.stats;
            s.commits += 1;
            s.chains_edited += r.edited as u64;
            s.chains_forgotten += r.forgotten as u64;
            s.renames += r.renames as u64;
        }
        self.stats.waited += u64::from(c.waited);
        self.genid = Some(g);
    }
}

pub(crate) fn sync(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
) -> Result<Option<u32>, Error> {
    if cache.follow && cache.events.is_none() {
        // Subscribed before the generation is read, and what was cached before is
        // forgotten: no event of a commit after the generation read is missed.
        cache.events = Events::open(conn);
        cache.follow = cache.events.is_some();
        cache.clear();
    }
    cache.release_if_asked();
    let g = conn
        .genid()
        .map_err(|e| from_nft(e.into(), "reading the ruleset generation"))?;
    if cache.genid != Some(g) {
        let had = cache.genid.is_some();
        let commits = match (cache.genid, cache.events.as_mut()) {
            (Some(from), Some(ev)) => Some(ev.commits(from, g)),
            _ => None,
        };
        let advanced = match commits {
            Some(Some(c)) => {
                cache.advance(family, &c, g);
                true
            }
            Some(None) => {
                cache.stats.lost += 1;
                false
            }
            None => false,
        };
        if !advanced {
            cache.clear();
            if had && cache.events.is_some() {
                // The queued events were dropped: a commit may still be under way. An empty
                // batch waits for the kernel's commit lock (and changes nothing), so that the
                // ruleset is read whole; then the generation is read again.
                let _ = crate::nft::Batch::new().commit(conn);
                return Ok(None);
            }
            cache.genid = Some(g);
        }
    }
    Ok(Some(g))
}

/// The chains of `table` at the current generation: the cached list (kept current by the
/// handle's own commits and, when it follows them, other writers' events), or one dump of
/// the chains, which is then cached. `None` when the table does not exist.
pub(crate) fn table_chains(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
    table: &str,
) -> Result<Arc<ChainList>, Error> {
    let mut retry = conn.dump_retry();
    while retry.again() {
        let Some(g) = sync(conn, cache, family)? else {
            continue;
        };
        if let Some(c) = cache.tables.get(table) {
            return Ok(c.clone());
        }
        let (c, at) = match crate::nft::list_chains(conn, Some(family.nft()), Some(table)) {
            Ok(x) => x,
            Err(e) if e.errno() == Some(libc::ENOENT) => {
                return Ok(Arc::new(ChainList::new(family.nft(), table, Vec::new())))
            }
            Err(e) => return Err(from_nft(e, "listing chains")),
        };
        if at != g {
            continue;
        }
        let list = Arc::new(ChainList::new(family.nft(), table, c));
        if !list.is_empty() {
            cache.tables.insert(table.to_owned(), list.clone());
        }
        return Ok(list);
    }
    Err(Error::Conflict {
        tries: retry.tries(),
    })
}

/// For each chain of a listing, in order, its index in the table's chain list (`None`: a
/// built-in chain not there yet).
pub(crate) type ChainOrder = Arc<Vec<Option<usize>>>;

/// What a listing's chain lines and chain order were made from (see
/// [`Cache::listing_head`]); holding the chain list keeps its address from being reused.
#[derive(Debug)]
struct ListingHead {
    chains: Arc<ChainList>,
    lines: Arc<Block>,
    order: ChainOrder,
}

/// A whole table as of one generation: its chains and the rules of each.
#[derive(Debug)]
pub(crate) struct TableRead {
    /// The chains in the kernel, as dumped.
    pub(crate) chains: Arc<Vec<Chain>>,
    /// The rules of each chain of `chains`, in the same order.
    pub(crate) rules: Vec<Arc<Vec<Rule>>>,
}

/// The chains of `table` and the rules of each, at the current generation: from the cache
/// when it holds them all (a handle that keeps listing a table it changes itself, such as
/// `iptnl serve` answering `iptables -S`, reads the generation only), else from one
/// consistent read of the table, which is then cached.
pub(crate) fn read_table(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
    table: &str,
) -> Result<TableRead, Error> {
    /// Up to this many chains missing from the cache (or a 64th of the table's chains, if
    /// more) are read one by one; more, and the whole table is read in one go.
    const FEW: usize = 16;
    let mut retry = conn.dump_retry();
    while retry.again() {
        let Some(g) = sync(conn, cache, family)? else {
            continue;
        };
        let known = match cache.tables.get(table) {
            Some(c) => Some(c.clone()),
            None if cache.holds_table(table) => {
                // Rules are cached but the chain list changed (a chain added, deleted or
                // renamed): the chain list alone is read again.
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
            let chains = Arc::new(chains.to_chains());
            // One lookup per chain, with one key reused (a kube-proxy nat table has tens of
            // thousands of chains, and the server lists it after every commit).
            let mut rules: Vec<Option<Arc<Vec<Rule>>>> = Vec::with_capacity(chains.len());
            let mut missing = Vec::new();
            let mut k: Key = (table.to_owned(), String::new());
            for (i, c) in chains.iter().enumerate() {
                k.1.clear();
                k.1.push_str(&c.name);
                match cache.chains.get(&k) {
                    Some(Some(r)) => rules.push(Some(r.clone())),
                    _ => {
                        rules.push(None);
                        missing.push(i);
                    }
                }
            }
            if missing.len() <= FEW.max(chains.len() / 64) {
                let mut moved = false;
                for i in missing {
                    let name = chains[i].name.as_str();
                    match read_chain(conn, cache, family, table, name)? {
                        (Some(r), at) if at == g => rules[i] = Some(r),
                        // Changed meanwhile: the next round starts over.
                        _ => {
                            moved = true;
                            break;
                        }
                    }
                }
                let all: Option<Vec<_>> = rules.into_iter().collect();
                if let (false, Some(rules)) = (moved, all) {
                    return Ok(TableRead { chains, rules });
                }
                continue;
            }
        }
        let (chains, all, read_at) =
            crate::nft::list_chains_and_rules(conn, Some(family.nft()), Some(table))
                .map_err(|e| from_nft(e, "listing a table"))?;
        if read_at != g {
            // Changed meanwhile: the next round forgets what the cache holds.
            continue;
        }
        let mut rules: HashMap<String, Vec<Rule>> = chains
            .iter()
            .map(|c| (c.name.clone(), Vec::new()))
            .collect();
        for r in all {
            if let Some(v) = rules.get_mut(&r.chain) {
                v.push(r);
            }
        }
        let n: usize = rules.values().map(Vec::len).sum();
        let keep = cache.rules() + n <= DECODED_RULES;
        let mut out = Vec::with_capacity(chains.len());
        for c in chains.iter() {
            let v = rules.remove(&c.name).unwrap_or_default();
            let k = (table.to_owned(), c.name.clone());
            let v = match cache.chains.get(&k) {
                // Cached at this generation already: the same rules, kept with their index.
                Some(Some(have)) => have.clone(),
                _ => Arc::new(v),
            };
            if keep {
                cache.chains.insert(k, Some(v.clone()));
            }
            out.push(v);
        }
        if keep {
            let list = ChainList::new(family.nft(), table, chains.clone());
            cache.tables.insert(table.to_owned(), Arc::new(list));
        }
        return Ok(TableRead {
            chains: Arc::new(chains),
            rules: out,
        });
    }
    Err(Error::Conflict {
        tries: retry.tries(),
    })
}

/// The rules of one chain (`None` when it or its table does not exist) and the generation
/// they belong to, from the cache when the generation has not moved.
///
/// A miss is one filtered dump whose every message carries the generation read just before
/// (and no `NLM_F_DUMP_INTR`): that is a consistent picture of generation `g`, and a batch
/// planned from it carries `g`, so no second generation read is needed.
pub(crate) fn read_chain(
    conn: &mut Conn,
    cache: &mut Cache,
    family: IpFamily,
    table: &str,
    chain: &str,
) -> Result<(ChainRules, u32), Error> {
    let k = (table.to_owned(), chain.to_owned());
    let genid = |conn: &mut Conn| {
        conn.genid()
            .map_err(|e| from_nft(e.into(), "reading the ruleset generation"))
    };
    let mut retry = conn.dump_retry();
    while retry.again() {
        let Some(g) = sync(conn, cache, family)? else {
            continue;
        };
        if let Some(v) = cache.chains.get(&k) {
            return Ok((v.clone(), g));
        }
        let mut rules = Vec::new();
        // A chain (or table) that does not exist is `None`, an empty one asked for by name.
        let st = crate::nft::dump::each_rule_of_chain(conn, family.nft(), table, chain, |m| {
            rules.push(Rule::decode(m)?);
            Ok(())
        })
        .map_err(|e| from_nft(e, "reading a chain"))?;
        let Some(st) = st else {
            if genid(conn)? == g {
                cache.chains.insert(k, None);
                return Ok((None, g));
            }
            continue;
        };
        if st.interrupted || st.genid_low.is_some_and(|l| l != g as u16) {
            continue;
        }
        // An empty chain was asked for by name after the dump: still generation `g`?
        if rules.is_empty() && genid(conn)? != g {
            continue;
        }
        if cache.events.is_some() && !cache.tables.contains_key(table) {
            // The chains of the table with their handles, to tell in the events a chain
            // renamed (which renames every jump to it) from one created.
            let (c, at) = crate::nft::list_chains(conn, Some(family.nft()), Some(table))
                .map_err(|e| from_nft(e, "listing chains"))?;
            if at != g {
                continue;
            }
            let list = ChainList::new(family.nft(), table, c);
            cache.tables.insert(table.to_owned(), Arc::new(list));
        }
        let n = rules.len();
        let v = Some(Arc::new(rules));
        cache.chains.insert(k.clone(), v.clone());
        cache.trim_decoded(&k, n);
        return Ok((v, g));
    }
    Err(Error::Conflict {
        tries: retry.tries(),
    })
}
