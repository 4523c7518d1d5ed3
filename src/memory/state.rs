//! The objects an nf_tables namespace holds, as the kernel keeps them: tables in creation
//! order, each with its chains in creation order and each chain's rules in list order, the
//! per-table handle counter shared by chains and rules, the use counts, and the generation.
//!
//! Objects added or deleted by the batch being applied are marked ([`Life`]) until it is
//! committed or aborted, as the kernel's generation masks do: later operations of the batch
//! see the next generation, dumps only ever see committed state (they run between batches).

use std::collections::HashMap;

use super::exprs::{ExprId, Interner};

/// Where an object stands in the batch being applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Life {
    /// Committed (or not touched by the batch).
    Live,
    /// Added by the batch: visible to its later operations, not yet to dumps.
    New,
    /// Deleted by the batch: invisible to its later operations, still there until commit.
    Gone,
}

/// Index of a table in [`Nft::tables`] (stable while the table exists).
pub(crate) type TableId = usize;
/// Index of a chain in its table's [`Table::chains`] (stable while the chain exists).
pub(crate) type ChainId = usize;

/// One rule: its handle, its expressions (interned, in order), the chains it jumps to and
/// its user data. Kept small: a ruleset holds hundreds of thousands.
#[derive(Debug)]
pub(crate) struct Rule {
    pub handle: u64,
    /// The expressions, then the chains its jumps and gotos go to (fixed when it was added,
    /// as the kernel keeps a pointer to the chain).
    ids: Box<[u32]>,
    /// Interned user data, or [`NO_UDATA`].
    udata: u32,
    /// Identity within the namespace (a replaced rule and its replacement share a handle).
    pub uid: u32,
    /// The batch that added it ([`Nft::serial`] at the time).
    pub batch: u32,
    exprs: u16,
    /// Deleted by the batch being applied.
    pub gone: bool,
}

const NO_UDATA: u32 = u32::MAX;

impl Rule {
    pub fn new(
        handle: u64,
        exprs: &[ExprId],
        jumps: &[ChainId],
        udata: Option<ExprId>,
        uid: u32,
        batch: u32,
    ) -> Rule {
        let mut ids = Vec::with_capacity(exprs.len() + jumps.len());
        ids.extend_from_slice(exprs);
        ids.extend(jumps.iter().map(|&j| j as u32));
        Rule {
            handle,
            ids: ids.into_boxed_slice(),
            udata: udata.unwrap_or(NO_UDATA),
            uid,
            batch,
            exprs: exprs.len() as u16,
            gone: false,
        }
    }

    pub fn exprs(&self) -> &[ExprId] {
        &self.ids[..usize::from(self.exprs)]
    }

    pub fn exprs_mut(&mut self) -> &mut [ExprId] {
        &mut self.ids[..usize::from(self.exprs)]
    }

    /// The chains it jumps to.
    pub fn jumps(&self) -> impl Iterator<Item = ChainId> + '_ {
        self.ids[usize::from(self.exprs)..]
            .iter()
            .map(|&j| j as ChainId)
    }

    pub fn jumps_to(&self, c: ChainId) -> bool {
        self.jumps().any(|j| j == c)
    }

    pub fn udata(&self) -> Option<ExprId> {
        (self.udata != NO_UDATA).then_some(self.udata)
    }
}

/// What a base chain adds to a chain.
#[derive(Debug, Clone)]
pub(crate) struct Base {
    pub hooknum: u32,
    pub priority: i32,
    /// `filter`, `nat` or `route`.
    pub chain_type: ChainType,
    /// `NF_ACCEPT` or `NF_DROP`.
    pub policy: u32,
    /// Packets and bytes, when the chain has counters (set at creation or by an update).
    pub stats: Option<(u64, u64)>,
}

/// The chain types the kernel registers for the ip and ip6 families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChainType {
    Filter,
    Nat,
    Route,
}

impl ChainType {
    pub fn name(self) -> &'static str {
        match self {
            ChainType::Filter => "filter",
            ChainType::Nat => "nat",
            ChainType::Route => "route",
        }
    }

    pub fn from_name(s: &[u8]) -> Option<ChainType> {
        match s {
            b"filter" => Some(ChainType::Filter),
            b"nat" => Some(ChainType::Nat),
            b"route" => Some(ChainType::Route),
            _ => None,
        }
    }

    /// The hooks a chain of this type may hang on (`hook_mask` of the kernel's chain types
    /// for ip and ip6).
    pub fn hook_mask(self) -> u32 {
        use iptnl_sys::netfilter::*;
        match self {
            ChainType::Filter => {
                (1 << NF_INET_PRE_ROUTING)
                    | (1 << NF_INET_LOCAL_IN)
                    | (1 << NF_INET_FORWARD)
                    | (1 << NF_INET_LOCAL_OUT)
                    | (1 << NF_INET_POST_ROUTING)
            }
            ChainType::Nat => {
                (1 << NF_INET_PRE_ROUTING)
                    | (1 << NF_INET_LOCAL_IN)
                    | (1 << NF_INET_LOCAL_OUT)
                    | (1 << NF_INET_POST_ROUTING)
            }
            ChainType::Route => 1 << NF_INET_LOCAL_OUT,
        }
    }
}

/// One chain.
#[derive(Debug)]
pub(crate) struct Chain {
    pub name: String,
    pub handle: u64,
    /// `NFT_CHAIN_*` flags (`NFT_CHAIN_BASE` for base chains).
    pub flags: u32,
    /// Rules in the chain plus jumps and gotos to it (the kernel's `chain->use`).
    pub use_count: u32,
    pub base: Option<Box<Base>>,
    pub udata: Option<Box<[u8]>>,
    pub rules: Vec<Rule>,
    pub life: Life,
    /// Rules marked [`Rule::gone`] by the batch.
    pub pending_gone: u32,
    /// Chains holding jumps or gotos to this one, with how many (for walking the jump graph
    /// upwards).
    pub callers: Callers,
    /// Changed by the batch being applied (listed in its touched chains).
    pub touched: bool,
    /// When the chain was last indexed under its name (created or renamed): of chains that
    /// share a name, the kernel's name table finds the one indexed last.
    pub named: u64,
}

/// The order in which chains are indexed under their names (see [`Chain::named`]).
static NAMED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The callers of a chain: none, one (the usual case) or many, with a count of jumps each.
#[derive(Debug, Default)]
pub(crate) enum Callers {
    #[default]
    None,
    One(u32, u32),
    // Boxed so that a chain with one caller or none (nearly all) pays one word for it.
    #[allow(clippy::box_collection)]
    Many(Box<HashMap<u32, u32>>),
}

impl Callers {
    pub fn add(&mut self, c: ChainId) {
        let c = c as u32;
        match self {
            Callers::None => *self = Callers::One(c, 1),
            Callers::One(x, n) if *x == c => *n += 1,
            Callers::One(x, n) => {
                let mut m = HashMap::new();
                m.insert(*x, *n);
                m.insert(c, 1);
                *self = Callers::Many(Box::new(m));
            }
            Callers::Many(m) => *m.entry(c).or_insert(0) += 1,
        }
    }

    pub fn remove(&mut self, c: ChainId) {
        let c = c as u32;
        match self {
            Callers::One(x, n) if *x == c => {
                *n -= 1;
                if *n == 0 {
                    *self = Callers::None;
                }
            }
            Callers::Many(m) => {
                if let Some(n) = m.get_mut(&c) {
                    *n -= 1;
                    if *n == 0 {
                        m.remove(&c);
                    }
                }
            }
            _ => {}
        }
    }

    /// The calling chains.
    pub fn keys(&self) -> Box<dyn Iterator<Item = ChainId> + '_> {
        match self {
            Callers::None => Box::new(std::iter::empty()),
            Callers::One(x, _) => Box::new(std::iter::once(*x as ChainId)),
            Callers::Many(m) => Box::new(m.keys().map(|&k| k as ChainId)),
        }
    }

    /// Heap bytes held.
    pub fn heap(&self) -> usize {
        match self {
            Callers::Many(m) => m.capacity() * 9 + 48,
            _ => 0,
        }
    }
}

/// Chains by name: ids in open addressing by the hash of the chain's name (the names are
/// the chains' own, not copied).
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    slots: Vec<u32>,
    live: usize,
    tombs: usize,
    /// Two chains have shared a name (the kernel allows it through a rename): the index
    /// then stands for one of them only, and the others are looked for in the table.
    shared: bool,
}

const SLOT_EMPTY: u32 = u32::MAX;
const SLOT_TOMB: u32 = u32::MAX - 1;

fn name_hash(name: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 29)) as usize
}

impl NameIndex {
    fn name(chains: &[Option<Chain>], id: u32) -> Option<&str> {
        chains
            .get(id as usize)
            .and_then(Option::as_ref)
            .map(|c| c.name.as_str())
    }

    /// The slot holding `name`, if any.
    fn find(&self, chains: &[Option<Chain>], name: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = name_hash(name) & mask;
        loop {
            match self.slots[i] {
                SLOT_EMPTY => return None,
                SLOT_TOMB => {}
                id if Self::name(chains, id) == Some(name) => return Some(i),
                _ => {}
            }
            i = (i + 1) & mask;
        }
    }

    pub fn get(&self, chains: &[Option<Chain>], name: &str) -> Option<ChainId> {
        self.find(chains, name).map(|i| self.slots[i] as ChainId)
    }

    fn grow(&mut self, chains: &[Option<Chain>]) {
        let cap = ((self.live + 1) * 2).next_power_of_two().max(16);
        let old = std::mem::replace(&mut self.slots, vec![SLOT_EMPTY; cap]);
        self.tombs = 0;
        for id in old.into_iter().filter(|&s| s < SLOT_TOMB) {
            if let Some(n) = Self::name(chains, id) {
                let mut i = name_hash(n) & (cap - 1);
                while self.slots[i] != SLOT_EMPTY {
                    i = (i + 1) & (cap - 1);
                }
                self.slots[i] = id;
            }
        }
    }

    /// Indexes chain `c` under its name; returns the chain that name stood for.
    pub fn insert(&mut self, chains: &[Option<Chain>], c: ChainId) -> Option<ChainId> {
        let name = Self::name(chains, c as u32)?;
        if let Some(i) = self.find(chains, name) {
            let old = self.slots[i];
            self.slots[i] = c as u32;
            self.shared |= old != c as u32;
            return Some(old as ChainId);
        }
        if (self.live + self.tombs + 1) * 4 > self.slots.len() * 3 {
            self.grow(chains);
        }
        let mask = self.slots.len() - 1;
        let mut i = name_hash(name) & mask;
        while self.slots[i] < SLOT_TOMB {
            i = (i + 1) & mask;
        }
        if self.slots[i] == SLOT_TOMB {
            self.tombs -= 1;
        }
        self.slots[i] = c as u32;
        self.live += 1;
        None
    }

    /// Forgets `name` if it stands for chain `c`.
    pub fn remove(&mut self, chains: &[Option<Chain>], name: &str, c: ChainId) {
        if let Some(i) = self.find(chains, name) {
            if self.slots[i] == c as u32 {
                self.slots[i] = SLOT_TOMB;
                self.live -= 1;
                self.tombs += 1;
            }
        }
    }

    /// Makes `name` stand for chain `c` (whose name it is).
    pub fn replace(&mut self, chains: &[Option<Chain>], name: &str, c: ChainId) {
        match self.find(chains, name) {
            Some(i) => self.slots[i] = c as u32,
            None => {
                self.insert(chains, c);
            }
        }
    }

    /// Heap bytes held.
    pub fn heap(&self) -> usize {
        self.slots.capacity() * 4
    }
}

impl Chain {
    pub fn is_base(&self) -> bool {
        self.base.is_some()
    }

    /// Position of the rule with `handle` in [`rules`](Self::rules), gone or not (the
    /// kernel's handle lookups walk the whole list too).
    pub fn find(&self, handle: u64) -> Option<usize> {
        self.rules.iter().position(|r| r.handle == handle)
    }
}

/// One table.
#[derive(Debug)]
pub(crate) struct Table {
    pub family: u8,
    pub name: String,
    pub flags: u32,
    pub handle: u64,
    /// The last handle given to a chain or rule of this table (never given back, not even
    /// by an aborted batch).
    pub hgen: u64,
    /// Chains and other objects in the table (the kernel's `table->use`).
    pub use_count: u32,
    pub udata: Option<Box<[u8]>>,
    /// Chain slots; a deleted chain leaves `None`.
    pub chains: Vec<Option<Chain>>,
    /// Chains in list order (ids of removed chains are dropped at commit).
    pub order: Vec<ChainId>,
    /// Chains by name (a chain renamed by the batch is still found by its old name until
    /// commit, as in the kernel).
    pub by_name: NameIndex,
    pub life: Life,
    /// Validated after each rule: a table created while [`Nft::validate_each`] holds
    /// (cleared by the next commit).
    pub validate_each: bool,
}

impl Table {
    pub fn chain(&self, id: ChainId) -> &Chain {
        self.chains[id].as_ref().expect("live chain id")
    }

    pub fn chain_mut(&mut self, id: ChainId) -> &mut Chain {
        self.chains[id].as_mut().expect("live chain id")
    }

    /// The chain named `name` that the batch can see.
    pub fn lookup(&self, name: &str) -> Option<ChainId> {
        match self.by_name.get(&self.chains, name) {
            Some(id) if self.chain(id).life != Life::Gone => Some(id),
            _ if self.by_name.shared => self.newest_named(name, None, true),
            _ => None,
        }
    }

    /// Of the chains named `name` (but `except`; only those not deleted by the batch when
    /// `live`), the one indexed last, as the kernel's name table finds it.
    fn newest_named(&self, name: &str, except: Option<ChainId>, live: bool) -> Option<ChainId> {
        self.order
            .iter()
            .copied()
            .filter(|&id| Some(id) != except)
            .filter_map(|id| self.chains[id].as_ref().map(|ch| (id, ch)))
            .filter(|(_, ch)| ch.name == name && (!live || ch.life != Life::Gone))
            .max_by_key(|(_, ch)| ch.named)
            .map(|(id, _)| id)
    }

    /// The chain the name index gives for `name` (committed or not).
    pub fn named(&self, name: &str) -> Option<ChainId> {
        self.by_name.get(&self.chains, name)
    }

    /// Indexes chain `c` by its name; returns the chain of that name it hides.
    pub fn index_name(&mut self, c: ChainId) -> Option<ChainId> {
        self.chain_mut(c).named = NAMED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.by_name.insert(&self.chains, c)
    }

    /// Forgets `name` in the index if it stands for chain `c`; another chain of that name,
    /// if any, then stands for it (the one indexed last).
    pub fn unindex_name(&mut self, name: &str, c: ChainId) {
        self.by_name.remove(&self.chains, name, c);
        if self.by_name.shared && self.by_name.get(&self.chains, name).is_none() {
            if let Some(other) = self.newest_named(name, Some(c), false) {
                self.by_name.insert(&self.chains, other);
            }
        }
    }

    /// Makes `name` stand for chain `c` again (an aborted batch undoing a chain that hid it).
    pub fn reindex_name(&mut self, name: &str, c: ChainId) {
        self.by_name.replace(&self.chains, name, c)
    }

    /// The chain with `handle` that the batch can see.
    pub fn lookup_handle(&self, handle: u64) -> Option<ChainId> {
        self.order.iter().copied().find(|&id| {
            self.chains[id]
                .as_ref()
                .is_some_and(|c| c.handle == handle && c.life != Life::Gone)
        })
    }

    /// Chains in list order, committed or not.
    pub fn chains_in_order(&self) -> impl Iterator<Item = (ChainId, &Chain)> {
        self.order
            .iter()
            .filter_map(|&id| self.chains[id].as_ref().map(|c| (id, c)))
    }

    pub fn alloc_handle(&mut self) -> u64 {
        self.hgen += 1;
        self.hgen
    }
}

/// A whole nf_tables namespace.
#[derive(Debug)]
pub(crate) struct Nft {
    /// Table slots; a deleted table leaves `None`.
    pub tables: Vec<Option<Table>>,
    /// Tables in list order.
    pub order: Vec<TableId>,
    /// The generation (`base_seq`): 1 in a fresh namespace, moved by every commit that
    /// changed something.
    pub genid: u32,
    /// The last table handle given (per namespace, never given back).
    pub table_handles: u64,
    pub exprs: Interner,
    /// The batch being applied (rules it adds carry this number).
    pub serial: u32,
    /// The last rule identity given.
    pub uids: u32,
    /// Tables created from now on are validated after each rule (the kernel's
    /// `NFT_VALIDATE_DO`, which new tables start in): set when a commit's validation
    /// failed, cleared by the next commit.
    pub validate_each: bool,
}

impl Default for Nft {
    fn default() -> Self {
        Nft {
            tables: Vec::new(),
            order: Vec::new(),
            genid: 1,
            table_handles: 0,
            exprs: Interner::default(),
            serial: 1,
            uids: 0,
            validate_each: false,
        }
    }
}

impl Nft {
    pub fn table(&self, id: TableId) -> &Table {
        self.tables[id].as_ref().expect("live table id")
    }

    pub fn table_mut(&mut self, id: TableId) -> &mut Table {
        self.tables[id].as_mut().expect("live table id")
    }

    /// The table `name` of `family` that the batch can see.
    pub fn lookup(&self, family: u8, name: &[u8]) -> Option<TableId> {
        self.order.iter().copied().find(|&id| {
            self.tables[id].as_ref().is_some_and(|t| {
                t.family == family && t.name.as_bytes() == name && t.life != Life::Gone
            })
        })
    }

    /// Tables in list order, committed or not.
    pub fn tables_in_order(&self) -> impl Iterator<Item = (TableId, &Table)> {
        self.order
            .iter()
            .filter_map(|&id| self.tables[id].as_ref().map(|t| (id, t)))
    }

    /// Committed tables of `family` (all families for 0), in list order.
    pub fn live_tables(&self, family: u8) -> impl Iterator<Item = &Table> {
        self.tables_in_order()
            .map(|(_, t)| t)
            .filter(move |t| t.life == Life::Live && (family == 0 || t.family == family))
    }
}
