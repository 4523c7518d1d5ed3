//! The one place where iptables commands become batch operations.
//!
//! Every way in plans through [`Planner`]: the `IpTables` verbs and transactions (and so the
//! CLI and `iptnl serve`) hand it a list of [`Op`]s, and a restore hands it each chain line and
//! command of its input as it parses them. The planner reads only what an operation depends
//! on (a chain's rules for `-I n`, `-D`, `-R`, `-C`, `-Z`; whether a chain exists for chain
//! commands), through a [`RulesetView`] (the kernel behind the cache today), keeps what it
//! knows of each chain in [`state`], and records the generation id of its reads, which the
//! batch then carries: a concurrent change makes the kernel refuse the batch, and the caller
//! plans again.
//!
//! What the planner refuses is a [`Refusal`]; the API words it as an [`Error`], a restore in
//! iptables-restore's words for the line.

mod beside;
mod commit;
mod rewrite;
pub(crate) mod state;
mod verbs;
mod view;
mod words;
mod zero;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use super::error::Error;
use crate::ipt::tables::{find_table, BuiltinChain};
use crate::ipt::{IpFamily, ReaderFloor, RuleSpec};
use crate::nft::{Batch, Expr, Policy, Rule};
use state::{ChainSet, FastSet, TableMap};

pub(crate) use beside::Beside;
pub(crate) use commit::{jitter, map_refusal, refused_chain, resolve, run_once, Failed};
pub(crate) use rewrite::Rewrites;
pub(crate) use view::{KernelView, RulesetView, TableClear};

/// How long an operation is planned again after concurrent changes before it gives up with
/// [`Error::Conflict`], unless set with [`IpTables::set_conflict_timeout`](super::IpTables::set_conflict_timeout).
///
/// Each attempt waits in the kernel for the commit lock, behind other writers' commits; with
/// 200k rules one commit to the nat table costs the kernel about 0.25 s, and in the field
/// scenario of `tests/api_field.rs` (20 `iptables-nft` writers and 100 portmap sequences)
/// the slowest retried operations needed 31–34 s: 10 s was only four or five tries.
pub(crate) const CONFLICT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Where a new rule goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum At {
    Append,
    /// 1-based position: the rules go there in order.
    Insert(u32),
    /// Next to the first rule whose comment starts with `comment` (before it, or after it
    /// when `after`); at the end while there is none. The rules go there in order.
    Anchor {
        comment: Arc<str>,
        after: bool,
    },
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
    /// None: the rule must be there (`-C` in a restore).
    Check,
}

/// One iptables command.
#[derive(Debug, Clone)]
pub(crate) enum Op<'a> {
    /// `-A`, `-I` (each spec is one rule of an expanded `-s a,b`).
    Add {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        specs: Cow<'a, [RuleSpec]>,
        at: At,
        unique: bool,
    },
    /// `-R`.
    Replace {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        pos: u32,
        specs: Cow<'a, [RuleSpec]>,
    },
    /// `-D spec`, `-C`.
    Delete {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        specs: Cow<'a, [RuleSpec]>,
        mode: DelMode,
    },
    /// `-D n`.
    DeleteNumber {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        n: u32,
    },
    /// `-N`.
    NewChain {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
    },
    /// `-F chain`; with `create`, a missing user chain is created (go-iptables'
    /// `ClearChain`).
    ClearChain {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        create: bool,
    },
    /// `-F` of a whole table; a table that does not exist is fine.
    FlushTable { table: Cow<'a, str> },
    /// `-X chain`.
    DeleteChain {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        flush: bool,
        if_exists: bool,
        /// For a built-in chain that must stay (rules in it, a policy other than ACCEPT):
        /// leave it without an error.
        keep_quietly: bool,
    },
    /// `-X` of a whole table: every user chain, and the built-in chains that are empty with
    /// policy ACCEPT (as iptables-nft 1.8.11 does); the others stay.
    DeleteAllChains { table: Cow<'a, str> },
    /// `-E`.
    RenameChain {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        new: Cow<'a, str>,
    },
    /// `-P`.
    SetPolicy {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        policy: Policy,
    },
    /// `-Z chain [n]`.
    Zero {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        rule: Option<u32>,
    },
    /// `-Z` of a whole table.
    ZeroTable { table: Cow<'a, str> },
    /// A chain line of a restore (`:CHAIN POLICY [p:b]`).
    DeclareChain {
        table: Cow<'a, str>,
        chain: Cow<'a, str>,
        policy: Option<Policy>,
        counters: Option<(u64, u64)>,
    },
}

/// The chain verbs as the `IpTables` API and its transactions send them (owned names).
impl Op<'static> {
    /// `-N`.
    pub(crate) fn new_chain(table: &str, chain: &str) -> Op<'static> {
        Op::NewChain {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
        }
    }

    /// `-F chain`, creating a missing user chain (go-iptables' `ClearChain`).
    pub(crate) fn clear_chain(table: &str, chain: &str) -> Op<'static> {
        Op::ClearChain {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            create: true,
        }
    }

    /// `-X chain`; with `flush`, emptied first and a missing chain is fine (go-iptables'
    /// `ClearAndDeleteChain`).
    pub(crate) fn delete_chain(table: &str, chain: &str, flush: bool) -> Op<'static> {
        Op::DeleteChain {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            flush,
            if_exists: flush,
            keep_quietly: false,
        }
    }

    /// `-P`.
    pub(crate) fn set_policy(table: &str, chain: &str, policy: Policy) -> Op<'static> {
        Op::SetPolicy {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            policy,
        }
    }

    /// `-Z chain [rulenum]`.
    pub(crate) fn zero(table: &str, chain: &str, rule: Option<u32>) -> Op<'static> {
        Op::Zero {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            rule,
        }
    }
}

impl Op<'_> {
    /// The operation with everything it borrows copied, to be queued beside others.
    pub(crate) fn into_owned(self) -> Op<'static> {
        fn o(c: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(c.into_owned())
        }
        match self {
            Op::Add {
                table,
                chain,
                specs,
                at,
                unique,
            } => Op::Add {
                table: o(table),
                chain: o(chain),
                specs: Cow::Owned(specs.into_owned()),
                at,
                unique,
            },
            Op::Replace {
                table,
                chain,
                pos,
                specs,
            } => Op::Replace {
                table: o(table),
                chain: o(chain),
                pos,
                specs: Cow::Owned(specs.into_owned()),
            },
            Op::Delete {
                table,
                chain,
                specs,
                mode,
            } => Op::Delete {
                table: o(table),
                chain: o(chain),
                specs: Cow::Owned(specs.into_owned()),
                mode,
            },
            Op::DeleteNumber { table, chain, n } => Op::DeleteNumber {
                table: o(table),
                chain: o(chain),
                n,
            },
            Op::NewChain { table, chain } => Op::NewChain {
                table: o(table),
                chain: o(chain),
            },
            Op::ClearChain {
                table,
                chain,
                create,
            } => Op::ClearChain {
                table: o(table),
                chain: o(chain),
                create,
            },
            Op::FlushTable { table } => Op::FlushTable { table: o(table) },
            Op::DeleteChain {
                table,
                chain,
                flush,
                if_exists,
                keep_quietly,
            } => Op::DeleteChain {
                table: o(table),
                chain: o(chain),
                flush,
                if_exists,
                keep_quietly,
            },
            Op::DeleteAllChains { table } => Op::DeleteAllChains { table: o(table) },
            Op::RenameChain { table, chain, new } => Op::RenameChain {
                table: o(table),
                chain: o(chain),
                new: o(new),
            },
            Op::SetPolicy {
                table,
                chain,
                policy,
            } => Op::SetPolicy {
                table: o(table),
                chain: o(chain),
                policy,
            },
            Op::Zero { table, chain, rule } => Op::Zero {
                table: o(table),
                chain: o(chain),
                rule,
            },
            Op::ZeroTable { table } => Op::ZeroTable { table: o(table) },
            Op::DeclareChain {
                table,
                chain,
                policy,
                counters,
            } => Op::DeclareChain {
                table: o(table),
                chain: o(chain),
                policy,
                counters,
            },
        }
    }

    /// The table and chain (an empty chain for operations on a whole table).
    pub(crate) fn table_chain(&self) -> (&str, &str) {
        match self {
            Op::Add { table, chain, .. }
            | Op::Replace { table, chain, .. }
            | Op::Delete { table, chain, .. }
            | Op::DeleteNumber { table, chain, .. }
            | Op::NewChain { table, chain }
            | Op::ClearChain { table, chain, .. }
            | Op::DeleteChain { table, chain, .. }
            | Op::RenameChain { table, chain, .. }
            | Op::SetPolicy { table, chain, .. }
            | Op::Zero { table, chain, .. }
            | Op::DeclareChain { table, chain, .. } => (table, chain),
            Op::FlushTable { table } | Op::DeleteAllChains { table } | Op::ZeroTable { table } => {
                (table, "")
            }
        }
    }

    /// Whether the operation depends on what the chain holds.
    pub(crate) fn reads(&self) -> bool {
        match self {
            Op::Add { unique, at, .. } => {
                *unique || matches!(at, At::Insert(n) if *n > 1) || matches!(at, At::Anchor { .. })
            }
            Op::Replace { .. } | Op::Delete { .. } | Op::DeleteNumber { .. } | Op::Zero { .. } => {
                true
            }
            _ => false,
        }
    }

    /// Whether the operation only writes, reading neither rules nor positions (`-A -N -P
    /// -F -E`, `-X` of a user chain, chain lines): a restore of those alone need not record
    /// where its rules go.
    pub(crate) fn blind(&self) -> bool {
        match self {
            Op::Add { unique, at, .. } => !*unique && matches!(at, At::Append),
            Op::DeleteChain { table, chain, .. } => builtin(table, chain).is_none(),
            Op::NewChain { .. }
            | Op::SetPolicy { .. }
            | Op::ClearChain { .. }
            | Op::FlushTable { .. }
            | Op::RenameChain { .. }
            | Op::DeclareChain { .. } => true,
            _ => false,
        }
    }
}

/// A caller's result: the outcome of each of its operations, or why none took effect.
pub(crate) type Outcome = Result<Vec<OpResult>, Error>;

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
    /// Rules were added; their kernel handles, in order.
    Added {
        /// The handles.
        handles: Vec<u64>,
    },
    /// `append_unique`/`insert_unique` found the rule already there; nothing was added.
    AlreadyPresent,
    /// Rules were deleted.
    Deleted {
        /// How many.
        count: usize,
    },
    /// A chain or policy operation was applied.
    Done,
}

impl OpResult {
    /// The handle of the (first) rule added, if any.
    ///
    /// ```
    /// assert_eq!(iptnl::iptables::OpResult::Done.handle(), None);
    /// ```
    pub fn handle(&self) -> Option<u64> {
        match self {
            OpResult::Added { handles } => handles.first().copied(),
            _ => None,
        }
    }

    /// Whether the ruleset changed.
    ///
    /// ```
    /// assert!(!iptnl::iptables::OpResult::AlreadyPresent.changed());
    /// ```
    pub fn changed(&self) -> bool {
        !matches!(
            self,
            OpResult::AlreadyPresent | OpResult::Deleted { count: 0 }
        )
    }
}

/// What an operation will report once its batch is committed.
#[derive(Debug)]
pub(crate) enum Pending {
    Added(Vec<crate::netlink::OpIndex>),
    Present,
    Deleted(usize),
    Done,
}

/// Which rule number was too big.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numbered {
    Insert,
    Delete,
    Replace,
    Zero,
}

/// Why the planner refuses an operation, before anything reaches the kernel.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The chain does not exist.
    ChainMissing { table: String, chain: String },
    /// The chain exists already.
    ChainExists { table: String, chain: String },
    /// A rule jumps (or goes) to a chain that does not exist at that point of the plan.
    TargetMissing { table: String, chain: String },
    /// No rule of that number (`k` rules of the operation placed before).
    TooBig {
        what: Numbered,
        table: String,
        chain: String,
        n: u32,
    },
    /// No rule equal to the spec.
    NoSuchRule {
        table: String,
        chain: String,
        spec: String,
    },
    /// `-R` with other than one rule (the number of rules the spec expands to).
    ReplaceCount(usize),
    /// A built-in chain whose policy is not ACCEPT is not deleted.
    BuiltinPolicy { table: String, chain: String },
    /// A built-in chain with rules is not deleted.
    BuiltinRules { table: String, chain: String },
    /// `-P` of a chain that is not built in.
    NotBuiltin { table: String, chain: String },
    /// `-E` of a built-in chain.
    RenameBuiltin { chain: String },
    /// `-E` of a chain this restore made (only a chain in the kernel can be renamed).
    RenameNew { old: String, new: String },
    /// Anything else, in words (a bad chain name, a rule that cannot be encoded).
    Invalid(String),
}

/// Why planning stopped.
#[derive(Debug)]
pub(crate) enum PlanError {
    /// The operation is refused.
    Refused(Refusal),
    /// Reading the ruleset failed (a [`Error::Conflict`] means: plan again).
    Failed(Error),
}

impl PlanError {
    /// The failure as the API reports it.
    pub(crate) fn into_error(self) -> Error {
        match self {
            PlanError::Failed(e) => e,
            PlanError::Refused(r) => r.into_error(),
        }
    }
}

impl From<Refusal> for PlanError {
    fn from(r: Refusal) -> PlanError {
        PlanError::Refused(r)
    }
}

impl From<Error> for PlanError {
    fn from(e: Error) -> PlanError {
        PlanError::Failed(e)
    }
}

impl From<crate::nft::Error> for PlanError {
    fn from(e: crate::nft::Error) -> PlanError {
        PlanError::Failed(super::error::from_nft(e, "planning"))
    }
}

impl Refusal {
    /// The refusal as the API reports it.
    pub(crate) fn into_error(self) -> Error {
        match self {
            Refusal::ChainMissing { table, chain } => Error::chain_missing(&table, &chain),
            Refusal::ChainExists { table, chain } => Error::chain_exists(&table, &chain),
            Refusal::TargetMissing { table, chain } => Error::chain_missing(&table, &chain),
            Refusal::TooBig {
                what,
                table,
                chain,
                n,
            } => {
                let detail = match what {
                    Numbered::Insert => format!("index of insertion too big: no rule number {n}"),
                    Numbered::Delete => format!("index of deletion too big: no rule number {n}"),
                    Numbered::Replace => {
                        format!("index of replacement too big: no rule number {n}")
                    }
                    Numbered::Zero => format!("no rule number {n}"),
                };
                Error::rule_missing(&table, &chain, &detail)
            }
            Refusal::NoSuchRule { table, chain, spec } => {
                Error::rule_missing(&table, &chain, &format!("no rule `{spec}'"))
            }
            Refusal::ReplaceCount(_) => Error::Invalid(
                "a replacement must be exactly one rule (one source and one destination address)"
                    .into(),
            ),
            Refusal::BuiltinPolicy { table, chain } => Error::BuiltinKept { table, chain },
            Refusal::BuiltinRules { table, chain } => Error::NotEmpty { table, chain },
            Refusal::NotBuiltin { table, chain } => Error::Invalid(format!(
                "policy can only be set on a built-in chain, not {chain} of table {table}"
            )),
            Refusal::RenameBuiltin { chain } => {
                Error::Invalid(format!("cannot rename built-in chain {chain}"))
            }
            Refusal::RenameNew { old, new } => Error::Invalid(format!(
                "-E {old} {new}: only a chain that exists before the restore can be renamed (with --noflush)"
            )),
            Refusal::Invalid(s) => Error::Invalid(s),
        }
    }

    /// The refusal in iptables-restore's words for its line.
    pub(crate) fn restore_words(&self) -> String {
        match self {
            // nft_strerror's words, with the period iptables-restore adds.
            Refusal::ChainMissing { .. } => "No chain/target/match by that name.".into(),
            Refusal::ChainExists { .. } => "Chain already exists.".into(),
            // A parameter problem, at the table's COMMIT line (where iptables checks).
            Refusal::TargetMissing { chain, .. } => format!("Chain '{chain}' does not exist"),
            Refusal::TooBig { what, n, .. } => match what {
                Numbered::Insert => "Index of insertion too big.".into(),
                Numbered::Delete => "Index of deletion too big.".into(),
                Numbered::Replace => "Index of replacement too big.".into(),
                Numbered::Zero => format!("Index of zeroing too big: no rule number {n}"),
            },
            Refusal::NoSuchRule { .. } => {
                "Bad rule (does a matching rule exist in that chain?).".into()
            }
            Refusal::ReplaceCount(0) => "-R needs a rule".into(),
            Refusal::ReplaceCount(_) => {
                "Replacement rule does not specify a unique address".into()
            }
            Refusal::BuiltinPolicy { .. } => "Directory not empty.".into(),
            Refusal::BuiltinRules { chain, .. } => {
                format!("CHAIN_DEL failed (Device or resource busy): chain {chain}")
            }
            Refusal::NotBuiltin { chain, .. } => {
                format!("-P {chain}: policy can only be set on a built-in chain")
            }
            Refusal::RenameBuiltin { chain } => format!("cannot rename built-in chain {chain}"),
            Refusal::RenameNew { old, new } => format!(
                "-E {old} {new}: only a chain that exists before the restore can be renamed (with --noflush)"
            ),
            Refusal::Invalid(s) => s.clone(),
        }
    }
}

/// The built-in chain `chain` of `table`, if it is one.
pub(crate) fn builtin(table: &str, chain: &str) -> Option<&'static BuiltinChain> {
    find_table(table).and_then(|t| t.builtin(chain))
}

/// How the caller plans.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mode {
    /// Ask the kernel (one GETCHAIN, no dump) whether a chain exists before sending a chain
    /// operation that would fail or be a needless update; a restore sends them and lets the
    /// kernel refuse.
    pub(crate) ask_kernel: bool,
    /// Ask the kernel to echo new rules, for their handles.
    pub(crate) echo: bool,
    /// Take `[packets:bytes]` of chain lines (`--counters`).
    pub(crate) counters: bool,
    /// The forms rules are written in.
    pub(crate) floor: ReaderFloor,
}

/// A plan being built: the batch, what is known of each chain, the generation of the reads.
pub(crate) struct Planner<'v, V: RulesetView + ?Sized> {
    pub(crate) view: &'v mut V,
    pub(crate) family: IpFamily,
    pub(crate) mode: Mode,
    pub(crate) batch: Batch,
    /// Chain states by table, then chain.
    pub(crate) chains: TableMap,
    /// The generation every read so far belongs to (the first read's).
    pub(crate) genid: Option<u32>,
    /// The caller's item (operation index, input line) of each batch operation.
    pub(crate) owner: Vec<u32>,
    /// Tables this plan deletes and rebuilds (a restore without `--noflush`): a chain that
    /// it did not declare does not exist.
    pub(crate) rebuilt: FastSet<String>,
    /// Tables this plan added to the batch.
    tables_added: FastSet<String>,
    /// Tables that do not exist at this point of the plan (deleted, or rebuilt from nothing,
    /// and not added since).
    tables_absent: FastSet<String>,
    /// Tables whose chains this plan emptied all at once (`-F` without a chain): a chain
    /// read from the kernel afterwards is taken as empty.
    flushed: FastSet<String>,
    /// Built-in chains this plan made sure of.
    ensured: ChainSet,
    /// Chains operations named (the first one asks the kernel about the chain), recorded
    /// when the plan asks the kernel ([`Mode::ask_kernel`]): such plans update the cache.
    pub(crate) touched: ChainSet,
    /// Tables whose chains were changed as a whole (flushed, deleted, zeroed, renamed).
    pub(crate) touched_tables: FastSet<String>,
    /// Tables whose chain list or chains' policies this plan changes.
    pub(crate) chain_tables: FastSet<String>,
    /// How this plan changes the chain list of each table of `chain_tables`, in order, when
    /// it only adds and deletes user chains (`None`: other changes, the list is read again).
    pub(crate) chain_edits: HashMap<String, Option<Vec<ChainEdit>>>,
    /// Policies of built-in chains set by this plan.
    policies: HashMap<(String, String), Policy>,
    /// Canonical forms of the rules this plan added, by batch id (computed when searched).
    new_canon: HashMap<u32, Option<Vec<Expr>>>,
    /// Rules added.
    pub(crate) rules_added: usize,
    /// Rules of refilled chains that stay as they are (see [`rewrite`]).
    pub(crate) rules_kept: usize,
    /// Rules deleted by refilling chains.
    pub(crate) rules_deleted: usize,
    /// With `Some`, chains a restore refills are compared with the kernel's and only the
    /// difference is planned ([`rewrite`]).
    pub(crate) rewrites: Option<Box<Rewrites>>,
    /// The caller's item (input line) of the operation being planned.
    pub(crate) line: u32,
    /// The rule being encoded (its buffers are reused from rule to rule).
    scratch: Rule,
    /// Whether appended rules are recorded in their chain's entries: a restore records them
    /// only once its input has shown a command that is not blind; a plain ruleset of tens of
    /// thousands of chains saves a vector per chain.
    pub(crate) track_entries: bool,
    /// Rules were appended without being recorded.
    untracked: bool,
    /// A reading command came after unrecorded appends: plan again, recording from the
    /// start.
    pub(crate) restart: bool,
}

/// A change a plan makes to a table's chain list that the cached list can follow exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChainEdit {
    /// A user chain added.
    Add(String),
    /// A chain deleted.
    Del(String),
}

impl<'v, V: RulesetView + ?Sized> Planner<'v, V> {
    /// Records that this plan changes the chain list (or a chain's policy) of `table`:
    /// `edit` when the change is one the cached list can follow, `None` otherwise.
    pub(crate) fn chain_list_edit(&mut self, table: &str, edit: Option<ChainEdit>) {
        if !self.chain_tables.contains(table) {
            self.chain_tables.insert(table.to_owned());
        }
        let e = self
            .chain_edits
            .entry(table.to_owned())
            .or_insert_with(|| Some(Vec::new()));
        match (e.as_mut(), edit) {
            (Some(v), Some(x)) => v.push(x),
            _ => *e = None,
        }
    }

    /// A planner reading through `view`, into a batch of `capacity` bytes.
    pub(crate) fn new(view: &'v mut V, family: IpFamily, mode: Mode, capacity: usize) -> Self {
        Planner {
            view,
            family,
            mode,
            batch: Batch::with_capacity(capacity),
            chains: TableMap::default(),
            genid: None,
            owner: Vec::new(),
            rebuilt: FastSet::default(),
            tables_added: FastSet::default(),
            tables_absent: FastSet::default(),
            flushed: FastSet::default(),
            ensured: ChainSet::default(),
            touched: ChainSet::default(),
            touched_tables: FastSet::default(),
            chain_tables: FastSet::default(),
            chain_edits: HashMap::new(),
            policies: HashMap::new(),
            new_canon: HashMap::new(),
            rules_added: 0,
            rules_kept: 0,
            rules_deleted: 0,
            rewrites: None,
            line: 0,
            scratch: Rule::new(family.nft(), "", ""),
            track_entries: true,
            untracked: false,
            restart: false,
        }
    }

    /// Attributes the operations added since the last call to item `item`.
    pub(crate) fn mark(&mut self, item: u32) {
        self.owner
            .resize(self.batch.len().max(self.owner.len()), item);
    }
}

impl<V: RulesetView + ?Sized> Planner<'_, V> {
    /// The batch planned.
    pub(crate) fn into_batch(self) -> Batch {
        self.batch
    }
}
