//! iptables-restore: a whole ruleset (or a delta, with `--noflush`) applied in ONE atomic
//! batch across all tables. iptables-nft-restore commits each table separately; iptnl commits
//! everything or nothing.
//!
//! Without `--noflush`, each table named in the input ends up exactly as the input says.
//! With it, only what the input says changes: a user chain line creates the chain or, when
//! it exists, flushes it, and a built-in chain line sets the policy (as iptables-nft-restore
//! does); `-A`, `-N`, `-X`, `-F`, `-P` are blind
//! writes; commands that depend on what is in a chain (`-I n`, `-D`, `-R`, `-C`, `-Z`, `-E`)
//! read that chain only, and the batch then carries the generation id it read, so that a
//! concurrent change makes the kernel refuse it and the restore is planned again.
//!
//! A chain the restore empties and refills (a user chain line with `--noflush`, any chain of
//! an existing table restored without it) is not emptied: its rules are compared with the
//! kernel's and only the difference is sent (rules that stay keep their handles and
//! counters); a restore that changes nothing commits nothing. With `--counters`, a rule or a
//! built-in chain the input gives counters is written with them. See `plan::rewrite`.
//!
//! The lines are parsed by the rule model and planned, one by one as they are parsed, by the
//! one planner every command goes through: a restore is a thin layer that turns its chain
//! lines and commands into the planner's operations, attributes each batch operation to its
//! input line, and commits.

pub(crate) mod error;
mod input;
pub(crate) mod memo;
mod pipeline;

use error::kernel_refusal;
pub use error::{RefusedOp, RestoreError};

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use super::cache::Cache;
use super::error::Error;
use super::ipset::KernelSets;
use super::plan::Outcome;
use super::plan::{
    jitter, map_refusal, refused_chain, At, Beside, DelMode, KernelView, Mode, Op, PlanError,
    Planner, RulesetView,
};
use crate::ipt::command::Command;
use crate::ipt::restore_input::{parse_stream, Event, Item, Lines, Selection};
use crate::ipt::tables::find_table;
use crate::ipt::{IpFamily, ReaderFloor, RuleSpec};
use crate::netlink::{Conn, Prefault};
use crate::nft::{self, list_tables, Batch, Policy};
pub use input::input_text;
use input::InputFile;
pub(crate) use input::Source;
use pipeline::{parallel, parse_beside, PIPELINE_MIN_BYTES};

/// Options of a restore (the iptables-restore flags).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreOptions {
    /// `--noflush`: change only what the input says.
    pub noflush: bool,
    /// `--counters`: apply `[packets:bytes]` of chains and rules.
    pub counters: bool,
    /// `--test`: parse and plan, but do not commit.
    pub test: bool,
    /// `--table`: only restore this table.
    pub table: Option<String>,
    /// `--verbose`: record what iptables-restore -v prints ([`RestoreReport::verbose`]).
    pub verbose: bool,
    /// The reader floor to write the rules at ([`ReaderFloor`]); `None`: the handle's
    /// ([`IpTables::reader_floor`](crate::iptables::IpTables::reader_floor)), or for the
    /// functions of this module the default of the running kernel
    /// ([`kernel_reader_floor`](crate::iptables::kernel_reader_floor)).
    pub floor: Option<ReaderFloor>,
}

/// One line of what `iptables-restore -v` prints, in the words of iptables-nft 1.8.11:
/// each comment line of the input as it is read, and, for each table restored without
/// `--noflush` and committed, the chains it flushes and deletes and the rules of its rule
/// commands (with `--noflush`, iptables passes no `-v` to the commands: only comments).
#[derive(Debug, Clone, PartialEq)]
pub enum VerboseLine {
    /// A comment line of the input (`#…`), echoed as read.
    Comment(String),
    /// "Flushing chain `NAME'".
    Flushing(String),
    /// "Deleting chain `NAME'".
    Deleting(String),
    /// "Zeroing chain `NAME'".
    Zeroing(String),
    /// A rule appended, inserted, replaced, deleted or checked, printed in iptables' one-line
    /// form (`ACCEPT  all opt -- in * out *  0.0.0.0/0  -> 0.0.0.0/0`).
    Rule(Box<RuleSpec>),
}

impl std::fmt::Display for VerboseLine {
    /// The chain lines in iptables' words; a comment as read; a rule as its save arguments
    /// (the tools print it in iptables' one-line listing form instead).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerboseLine::Comment(c) => write!(f, "{c}"),
            VerboseLine::Flushing(c) => write!(f, "Flushing chain `{c}'"),
            VerboseLine::Deleting(c) => write!(f, "Deleting chain `{c}'"),
            VerboseLine::Zeroing(c) => write!(f, "Zeroing chain `{c}'"),
            VerboseLine::Rule(r) => write!(f, "{}", r.to_save_args()),
        }
    }
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RestoreReport {
    /// Tables restored, in input order.
    pub tables: Vec<String>,
    /// Operations in the batch.
    pub ops: usize,
    /// Rules added.
    pub rules_added: usize,
    /// Rules of refilled chains left in place, because the input has them at the same place
    /// (they keep their counters).
    pub rules_kept: usize,
    /// Rules deleted from refilled chains (or with the chains a full restore removes).
    pub rules_deleted: usize,
    /// Size of the batch on the wire.
    pub batch_bytes: usize,
    /// How many times the batch was planned again after a concurrent change.
    pub retries: u32,
    /// Time spent in the kernel commit (sending the batch and reading the replies) of the
    /// last attempt; zero with `--test`.
    pub commit_time: std::time::Duration,
    /// With [`RestoreOptions::verbose`]: what `iptables-restore -v` prints, in order (the
    /// lines of a table come when its `COMMIT` is read; with `--test` nothing is committed,
    /// so only comments).
    pub verbose: Vec<VerboseLine>,
    /// The ruleset generation at which the kernel holds what the input says: the one after
    /// the commit, or the one read when nothing needed changing; `None` when not known (a
    /// batch planned without reading anything, or `--test`).
    pub generation: Option<u32>,
    /// Answered by the handle from the last restore it applied (the same input and options,
    /// the ruleset unchanged since): nothing was parsed, read or committed (see
    /// [`IpTables::try_restore`](crate::iptables::IpTables::try_restore)).
    pub remembered: bool,
}

/// Plans one attempt of a restore: the batch (with the generation id it depends on), the
/// input line of each operation, and the report (without commit time).
fn plan_once(
    conn: &mut Conn,
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
    beside: Option<&mut Beside<'_, '_>>,
) -> Result<(Batch, Vec<u32>, RestoreReport), RestoreError> {
    super::sysdb::use_system_databases();
    // Refilled chains are compared with the kernel's (`plan::rewrite`); with `--counters`,
    // a rule or built-in chain the input gives counters is written with them.
    let (existing, tables_gen) = {
        let (t, g) = list_tables(conn, Some(family.nft()))?;
        let names = t
            .into_iter()
            .map(|t| (t.name, t.use_count))
            .collect::<Vec<_>>();
        // With --noflush, the tables present only say which ones are compared; the plan
        // depends on what it reads of them, not on the list.
        (names, (!opts.noflush).then_some(g))
    };
    let floor = match opts.floor {
        Some(f) => f,
        None => crate::iptables::kernel_reader_floor(conn, family),
    };
    let said = if opts.verbose {
        Some(Said::read(&mut *conn, family, input, opts)?)
    } else {
        None
    };
    // The chains a command reads are read once per attempt.
    let mut cache = Cache::default();
    let mut view = KernelView {
        conn: &mut *conn,
        cache: &mut cache,
    };
    let head = Head {
        existing: &existing,
        tables_gen,
        said,
        sets: &KernelSets,
        floor,
    };
    plan_view(&mut view, family, input, opts, head, beside)
}

/// What a plan of a restore knows before its first line: the family's tables (name and use
/// count), the generation they were listed at (without `--noflush`), what `--verbose` says
/// of the ruleset, the ipsets rules may name, and the reader floor rules are written at.
pub(crate) struct Head<'a> {
    pub(crate) existing: &'a [(String, Option<u32>)],
    pub(crate) tables_gen: Option<u32>,
    said: Option<Said>,
    pub(crate) sets: &'a dyn crate::ipt::SetIndex,
    pub(crate) floor: ReaderFloor,
}

impl<'a> Head<'a> {
    /// A head without `--verbose` output.
    pub(crate) fn quiet(
        existing: &'a [(String, Option<u32>)],
        tables_gen: Option<u32>,
        sets: &'a dyn crate::ipt::SetIndex,
        floor: ReaderFloor,
    ) -> Head<'a> {
        Head {
            existing,
            tables_gen,
            said: None,
            sets,
            floor,
        }
    }
}

/// Plans one attempt of a restore against the ruleset `view` shows (see [`plan_once`]).
pub(crate) fn plan_view<V: RulesetView + ?Sized>(
    view: &mut V,
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
    head: Head<'_>,
    mut beside: Option<&mut Beside<'_, '_>>,
) -> Result<(Batch, Vec<u32>, RestoreReport), RestoreError> {
    let Head {
        existing,
        tables_gen,
        said,
        sets,
        floor,
    } = head;
    let capacity = input.len() * 3 + 4096;
    let sel = Selection {
        table: opts.table.as_deref(),
        counters: opts.counters,
        sets,
    };
    let mode = Mode {
        ask_kernel: false,
        echo: false,
        counters: opts.counters,
        floor,
    };
    // Appends are not recorded until a command that reads positions shows up; if one comes
    // after appends, the input is planned a second time, recording from the start (a cheap
    // textual scan for such commands used to come first, and cost more than this on big
    // inputs, which rarely have them).
    let mut track = false;
    loop {
        let mut p = Planner::new(&mut *view, family, mode, capacity);
        p.genid = tables_gen;
        p.track_entries = track;
        p.rewrites = Some(Box::default());
        let mut block = Block {
            said: said.clone().map(Box::new),
            ..Block::default()
        };
        let planned = if input.len() >= PIPELINE_MIN_BYTES && parallel() {
            let ahead = Prefault::default();
            p.batch.publish_to(&ahead);
            parse_beside(family, input, sel, &ahead, |events| {
                for ev in events {
                    block.event(&mut p, ev, existing, opts)?;
                }
                p.batch.publish_to(&ahead);
                Ok(())
            })
        } else {
            parse_stream(family, &input, sel, |ev| {
                block.event(&mut p, &ev, existing, opts)
            })
        };
        if p.restart && !track {
            track = true;
            continue;
        }
        planned?;
        // What the restore names, for the commands planned beside it (before it is
        // settled: nothing is kept aside after).
        let named = beside.as_ref().filter(|b| !b.alive.is_empty()).map(|_| {
            let created: Vec<&str> = block
                .tables
                .iter()
                .map(String::as_str)
                .filter(|t| !existing.iter().any(|e| e.0 == *t))
                .collect();
            p.named(&created)
        });
        p.settle_all().map_err(|e| plan_err(block.last_line, e))?;
        let report = RestoreReport {
            verbose: block.said.map(|s| s.lines(opts.test)).unwrap_or_default(),
            tables: block.tables,
            ops: p.batch.len(),
            rules_added: p.rules_added,
            rules_kept: p.rules_kept,
            rules_deleted: p.rules_deleted,
            batch_bytes: p.batch.wire_len(),
            ..RestoreReport::default()
        };
        if let (Some(b), Some(named)) = (beside.as_deref_mut(), named) {
            b.plan(&mut p, named);
        }
        let genid = p.genid;
        let lines = std::mem::take(&mut p.owner);
        let mut batch = p.into_batch();
        batch.set_genid(genid);
        return Ok((batch, lines, report));
    }
}

/// The tables of the input so far, and the one whose block is open.
#[derive(Debug, Default)]
struct Block {
    tables: Vec<String>,
    /// The `*table` line whose table is added with the block's first line (an empty block
    /// adds nothing, as with iptables-nft-restore).
    pending: Option<usize>,
    /// With `--verbose`: what iptables-restore -v prints.
    said: Option<Box<Said>>,
    /// The last line planned.
    last_line: usize,
}

/// What `iptables-restore -v` prints, gathered while the input is planned: each entry is
/// tagged with the input line at which iptables prints it (a comment when it is read, a
/// table's lines when its `COMMIT` is read and the table's commands run).
#[derive(Debug, Clone, Default)]
struct Said {
    /// The user chains of each table of the family in the kernel, sorted by name.
    kernel: HashMap<String, Vec<String>>,
    /// The comment lines of the input (`#` first), with their numbers.
    comments: Vec<(usize, String)>,
    /// The numbers of the `COMMIT` lines.
    commits: Vec<usize>,
    /// Whether commands run verbose (not with `--noflush`: iptables passes no `-v` then).
    chatty: bool,
    /// The lines of the tables, each at the `COMMIT` line of its block.
    table_lines: Vec<(usize, VerboseLine)>,
    /// The `COMMIT` line of the open block.
    at: usize,
    /// The table of the open block.
    table: String,
    /// The user chains of the open block, as its lines declare, create and delete them.
    chains: BTreeSet<String>,
}

impl Said {
    /// Reads the kernel's chains (for the flush of each table) and the input's comment and
    /// `COMMIT` lines.
    fn read(
        conn: &mut Conn,
        family: IpFamily,
        input: Source<'_>,
        opts: &RestoreOptions,
    ) -> Result<Said, RestoreError> {
        let mut said = Said {
            chatty: !opts.noflush,
            ..Said::default()
        };
        if said.chatty {
            let (chains, _) = nft::list_chains(conn, Some(family.nft()), None)?;
            for c in chains.into_iter().filter(|c| c.hook.is_none()) {
                said.kernel.entry(c.table).or_default().push(c.name);
            }
            for v in said.kernel.values_mut() {
                v.sort_unstable();
            }
        }
        input.for_each_line(&mut |n, l| {
            let l = l.trim_end_matches('\r');
            if l.starts_with('#') {
                said.comments.push((n, l.to_owned()));
            } else if l
                .strip_prefix("COMMIT")
                .is_some_and(|r| r.trim().is_empty())
            {
                said.commits.push(n);
            }
            Ok(())
        })?;
        Ok(said)
    }

    fn say(&mut self, l: VerboseLine) {
        if self.chatty {
            self.table_lines.push((self.at, l));
        }
    }

    fn builtin(&self) -> impl Iterator<Item = &'static str> {
        find_table(&self.table)
            .map(|t| t.chains)
            .unwrap_or_default()
            .iter()
            .map(|c| c.name)
    }

    fn is_builtin(&self, chain: &str) -> bool {
        find_table(&self.table).is_some_and(|t| t.builtin(chain).is_some())
    }

    /// "Flushing chain" for the built-in chains, then the user chains by name.
    fn flush_all(&mut self, user: Vec<String>) {
        let builtin: Vec<_> = self.builtin().collect();
        for c in builtin {
            self.say(VerboseLine::Flushing(c.to_owned()));
        }
        for c in user {
            self.say(VerboseLine::Flushing(c));
        }
    }

    /// A `*table` line: without `--noflush`, iptables flushes every chain of the table and
    /// deletes its user chains.
    fn table(&mut self, name: &str, line: usize) {
        self.table = name.to_owned();
        self.chains.clear();
        self.at = self
            .commits
            .iter()
            .find(|&&c| c > line)
            .copied()
            .unwrap_or(usize::MAX);
        let user = self.kernel.get(name).cloned().unwrap_or_default();
        self.flush_all(user.clone());
        for c in user {
            self.say(VerboseLine::Deleting(c));
        }
    }

    /// A chain line.
    fn chain(&mut self, name: &str) {
        if !self.is_builtin(name) {
            self.chains.insert(name.to_owned());
        }
    }

    /// A command line (planned without error).
    fn command(&mut self, cmd: &Command, rules: &[RuleSpec]) {
        let rule_lines = |s: &mut Said| {
            for r in rules {
                s.say(VerboseLine::Rule(Box::new(r.clone())));
            }
        };
        match cmd {
            Command::Append { .. }
            | Command::Insert { .. }
            | Command::Replace { .. }
            | Command::Check { .. }
            | Command::Delete { rulenum: None, .. } => rule_lines(self),
            Command::Flush { chain: Some(c) } => self.say(VerboseLine::Flushing(c.clone())),
            Command::Flush { chain: None } => {
                let user = self.chains.iter().cloned().collect();
                self.flush_all(user);
            }
            Command::NewChain { chain } => {
                self.chains.insert(chain.clone());
            }
            Command::DeleteChain { chain: Some(c) } => {
                if !self.is_builtin(c) {
                    self.say(VerboseLine::Deleting(c.clone()));
                }
                self.chains.remove(c);
            }
            Command::DeleteChain { chain: None } => {
                for c in std::mem::take(&mut self.chains) {
                    self.say(VerboseLine::Deleting(c));
                }
            }
            Command::RenameChain { old, new } if self.chains.remove(old) => {
                self.chains.insert(new.clone());
            }
            Command::Zero {
                chain: Some(c),
                rulenum: None,
            } => self.say(VerboseLine::Zeroing(c.clone())),
            Command::Zero { chain: None, .. } => {
                let all: Vec<String> = self
                    .builtin()
                    .map(str::to_owned)
                    .chain(self.chains.iter().cloned())
                    .collect();
                for c in all {
                    self.say(VerboseLine::Zeroing(c));
                }
            }
            _ => {}
        }
    }

    /// Everything in the order iptables prints it; a table's lines only when it is
    /// committed (never with `--test`).
    fn lines(self, test: bool) -> Vec<VerboseLine> {
        let mut all: Vec<(usize, VerboseLine)> = self
            .comments
            .into_iter()
            .map(|(n, c)| (n, VerboseLine::Comment(c)))
            .collect();
        if !test {
            all.extend(
                self.table_lines
                    .into_iter()
                    .filter(|(at, _)| *at != usize::MAX),
            );
        }
        // Stable: a comment line comes before the COMMIT that prints its table's lines.
        all.sort_by_key(|(n, _)| *n);
        all.into_iter().map(|(_, l)| l).collect()
    }
}

impl Block {
    /// Plans one line of the input.
    fn event<V: RulesetView + ?Sized>(
        &mut self,
        p: &mut Planner<'_, V>,
        ev: &Event,
        existing: &[(String, Option<u32>)],
        opts: &RestoreOptions,
    ) -> Result<(), RestoreError> {
        let (line, op) = match ev {
            Event::Table { name, line } => {
                if let Some(s) = &mut self.said {
                    s.table(name, *line);
                }
                self.last_line = *line;
                p.line = u32::try_from(*line).unwrap_or(u32::MAX);
                let listed = existing.iter().find(|t| t.0 == *name);
                let exists = listed.is_some();
                let again = self.tables.iter().any(|t| t == name);
                let compared = match listed {
                    // A table named again in a full restore is deleted again and planned
                    // as before (what was kept aside of it is settled first).
                    Some(_) if again && !opts.noflush => {
                        p.settle_pending(name).map_err(|e| plan_err(*line, e))?;
                        false
                    }
                    Some((_, uses)) => p
                        .rewrite_table(name, !opts.noflush, p.line, *uses)
                        .map_err(|e| plan_err(*line, e))?,
                    None => false,
                };
                if !opts.noflush && again {
                    // Named again: iptables deletes the table again.
                    p.rebuild_again(name).map_err(|e| plan_err(*line, e))?;
                } else if !opts.noflush && !compared {
                    p.rebuild_table(name, exists)
                        .map_err(|e| plan_err(*line, e))?;
                }
                mark(p, *line);
                self.tables.push(name.clone());
                self.pending = Some(*line);
                return Ok(());
            }
            Event::Item(item) => {
                let table = self.tables.last().map_or("", String::as_str);
                // `-F`, `-X` and `-Z` of the whole table never make it (as with iptables):
                // the table is added with the block's first other line.
                let table_wide = matches!(
                    item,
                    Item::Cmd {
                        cmd: Command::Flush { chain: None }
                            | Command::DeleteChain { chain: None }
                            | Command::Zero { chain: None, .. },
                        ..
                    }
                );
                if let (Some(l), false) = (self.pending, table_wide) {
                    self.pending = None;
                    p.add_table(table).map_err(|e| plan_err(l, e))?;
                    mark(p, l);
                }
                match item {
                    Item::Chain {
                        line,
                        name,
                        policy,
                        counters,
                    } => (
                        *line,
                        Op::DeclareChain {
                            table: table.into(),
                            chain: name.as_str().into(),
                            policy: *policy,
                            counters: *counters,
                        },
                    ),
                    Item::Cmd { line, cmd, rules } => {
                        (*line, command_op(*line, table, cmd, rules)?)
                    }
                }
            }
        };
        self.last_line = line;
        p.line = u32::try_from(line).unwrap_or(u32::MAX);
        p.op(&op).map_err(|e| plan_err(line, e))?;
        mark(p, line);
        if let (Some(s), Event::Item(item)) = (&mut self.said, ev) {
            match item {
                Item::Chain { name, .. } => s.chain(name),
                Item::Cmd { cmd, rules, .. } => s.command(cmd, rules),
            }
        }
        Ok(())
    }
}

fn mark<V: RulesetView + ?Sized>(p: &mut Planner<'_, V>, line: usize) {
    p.mark(u32::try_from(line).unwrap_or(u32::MAX));
}

fn input_err(line: usize, msg: impl Into<String>) -> RestoreError {
    RestoreError::Input {
        line,
        msg: msg.into(),
    }
}

/// A planning failure at input line `line`.
fn plan_err(line: usize, e: PlanError) -> RestoreError {
    match e {
        PlanError::Refused(r) => input_err(line, r.restore_words()),
        PlanError::Failed(Error::Conflict { tries }) => RestoreError::Conflict { tries },
        PlanError::Failed(e) => input_err(line, e.to_string()),
    }
}

/// The planner's operation for a command line of the block of `table`.
fn command_op<'a>(
    line: usize,
    table: &'a str,
    cmd: &'a Command,
    rules: &'a [RuleSpec],
) -> Result<Op<'a>, RestoreError> {
    let t: Cow<'a, str> = table.into();
    let specs: Cow<'a, [RuleSpec]> = rules.into();
    Ok(match cmd {
        Command::Append { chain } => Op::Add {
            table: t,
            chain: chain.as_str().into(),
            specs,
            at: At::Append,
            unique: false,
        },
        // Each rule of an expanded `-s a,b` goes to position n, so they end up in reverse
        // order, as with iptables.
        Command::Insert { chain, rulenum } => Op::Add {
            table: t,
            chain: chain.as_str().into(),
            specs: if rules.len() > 1 {
                rules.iter().rev().cloned().collect::<Vec<_>>().into()
            } else {
                specs
            },
            at: At::Insert(*rulenum),
            unique: false,
        },
        Command::Delete {
            chain,
            rulenum: None,
        } => Op::Delete {
            table: t,
            chain: chain.as_str().into(),
            specs,
            mode: DelMode::First,
        },
        Command::Check { chain } => Op::Delete {
            table: t,
            chain: chain.as_str().into(),
            specs,
            mode: DelMode::Check,
        },
        Command::Delete {
            chain,
            rulenum: Some(n),
        } => Op::DeleteNumber {
            table: t,
            chain: chain.as_str().into(),
            n: *n,
        },
        // Of an expanded `-s a,b`, the first source and the first destination (iptables
        // 1.8.10 on; 1.8.9 refused such a line).
        Command::Replace { chain, rulenum } => Op::Replace {
            table: t,
            chain: chain.as_str().into(),
            pos: *rulenum,
            specs: rules.get(..1).unwrap_or(rules).into(),
        },
        Command::Flush { chain: Some(chain) } => Op::ClearChain {
            table: t,
            chain: chain.as_str().into(),
            create: false,
        },
        Command::Flush { chain: None } => Op::FlushTable { table: t },
        Command::NewChain { chain } => Op::NewChain {
            table: t,
            chain: chain.as_str().into(),
        },
        Command::DeleteChain { chain: Some(chain) } => Op::DeleteChain {
            table: t,
            chain: chain.as_str().into(),
            flush: false,
            if_exists: false,
            keep_quietly: false,
        },
        Command::DeleteChain { chain: None } => Op::DeleteAllChains { table: t },
        Command::RenameChain { old, new } => Op::RenameChain {
            table: t,
            chain: old.as_str().into(),
            new: new.as_str().into(),
        },
        Command::Policy { chain, policy } => {
            let policy = match policy.as_str() {
                "ACCEPT" => Policy::Accept,
                "DROP" => Policy::Drop,
                other => {
                    return Err(input_err(
                        line,
                        format!("-P {chain}: invalid policy `{other}'"),
                    ))
                }
            };
            Op::SetPolicy {
                table: t,
                chain: chain.as_str().into(),
                policy,
            }
        }
        Command::Zero {
            chain: Some(chain),
            rulenum,
        } => Op::Zero {
            table: t,
            chain: chain.as_str().into(),
            rule: *rulenum,
        },
        Command::Zero { chain: None, .. } => Op::ZeroTable { table: t },
        Command::List { .. } | Command::ListRules { .. } | Command::Version | Command::Help => {
            return Err(input_err(
                line,
                format!("-{} cannot be used in restore input", cmd.letter()),
            ))
        }
    })
}

/// Parses and plans a restore without committing it: the batch [`restore`] would commit
/// (once; a restore re-plans on a concurrent change) and its report. For benchmarks and
/// dry runs: `batch.commit(conn)` applies it.
pub fn plan_restore(
    conn: &mut Conn,
    family: IpFamily,
    input: &str,
    opts: &RestoreOptions,
) -> Result<(Batch, RestoreReport), RestoreError> {
    let (batch, _, report) = plan_once(conn, family, Source::Text(input), opts, None)?;
    Ok((batch, report))
}

/// Restores `input` (iptables-restore format) in one batch.
///
/// ```no_run
/// use iptnl::iptables::restore::{restore, RestoreOptions};
/// use iptnl::ipt::IpFamily;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let input = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n";
/// let report = restore(&mut conn, IpFamily::V4, input, &RestoreOptions::default())?;
/// assert_eq!(report.rules_added, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn restore(
    conn: &mut Conn,
    family: IpFamily,
    input: &str,
    opts: &RestoreOptions,
) -> Result<RestoreReport, RestoreError> {
    restore_source(conn, family, Source::Text(input), opts, None)
}

/// Restores `input`, the part of a longer input that follows its line `lines_before` (as
/// iptables-restore commits what a pipe has brought so far when its writer pauses after a
/// `COMMIT`): errors name lines as they are numbered in the whole input.
///
/// ```no_run
/// use iptnl::iptables::restore::{restore_part, RestoreOptions};
/// use iptnl::ipt::IpFamily;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let opts = RestoreOptions { noflush: true, ..Default::default() };
/// // Lines 4 to 6 of the input: an error in the rule is reported at line 5.
/// restore_part(&mut conn, IpFamily::V4, "*filter\n-A INPUT -j ACCEPT\nCOMMIT\n", 3, &opts)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn restore_part(
    conn: &mut Conn,
    family: IpFamily,
    input: &str,
    lines_before: usize,
    opts: &RestoreOptions,
) -> Result<RestoreReport, RestoreError> {
    restore_source(conn, family, Source::Part(input, lines_before), opts, None)
}

/// Restores the iptables-restore text in `file` (from its current position to its end), as
/// [`restore`] does, without holding the whole text in memory when `file` is a regular file:
/// it is read in pieces while the batch is planned, and read again when a concurrent change
/// makes the restore plan again (or to quote the lines the kernel refused); the file position
/// is left as it was. If the file changes during the restore (size or modification time),
/// nothing is applied and [`RestoreError::Read`] says so. Anything else (a pipe, a terminal,
/// a file that reports a size of 0) is read whole first.
///
/// ```no_run
/// use iptnl::iptables::restore::{restore_file, RestoreOptions};
/// use iptnl::ipt::IpFamily;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let file = std::fs::File::open("rules.v4")?;
/// let report = restore_file(&mut conn, IpFamily::V4, &file, &RestoreOptions::default())?;
/// println!("{} rules", report.rules_added);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn restore_file(
    conn: &mut Conn,
    family: IpFamily,
    file: &std::fs::File,
    opts: &RestoreOptions,
) -> Result<RestoreReport, RestoreError> {
    let meta = file.metadata().map_err(RestoreError::Read)?;
    // A regular file of size 0 may still have content (procfs, some FUSE file systems): it
    // is read whole like a pipe.
    if meta.is_file() && meta.len() > 0 {
        let start = std::io::Seek::stream_position(&mut &*file).map_err(RestoreError::Read)?;
        let input = InputFile::new(file, start, &meta);
        return restore_source(conn, family, Source::File(&input), opts, None);
    }
    let mut buf = Vec::new();
    std::io::Read::read_to_end(&mut &*file, &mut buf).map_err(RestoreError::Read)?;
    restore(conn, family, &input_text(&buf), opts)
}

/// Frees a big committed batch on a thread of its own, so that the restore returns as soon
/// as the kernel has answered: unmapping the 130 MB batch of a 200k-rule restore takes
/// 6–12 ms. Smaller batches are freed here, and so is a big one when no thread can be
/// started (the failed spawn drops the closure, and the batch with it).
fn free_beside(batch: Batch) {
    const BIG: usize = 16 << 20;
    if batch.wire_len() < BIG {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("iptnl-free".into())
        .spawn(move || drop(batch));
}

/// Restores `input` (see [`restore`]). With `beside`, the commands of other callers that do
/// not depend on what the restore changes are planned after it into its batch (see
/// `plan::Beside`): a command refused (by the planner or the kernel) is answered and the
/// rest planned again without it; when the batch is committed each command planned into it
/// is answered; the others stay unanswered, for the caller to commit after the restore.
fn restore_source(
    conn: &mut Conn,
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
    mut beside: Option<&mut Beside<'_, '_>>,
) -> Result<RestoreReport, RestoreError> {
    // Under a stream of concurrent commits (20 `iptables-nft -A` processes) 8 tries were not
    // always enough; a retry right after a conflict has the best chance.
    const TRIES: u32 = 64;
    let mut attempt = 0;
    while attempt < TRIES {
        let (mut batch, lines, mut report) =
            plan_once(conn, family, input, opts, beside.as_deref_mut())?;
        report.retries = attempt;
        if let Some(b) = beside.as_deref_mut() {
            if let Some((c, e)) = b.refused.take() {
                b.split(c, e);
                continue;
            }
            if b.conflict {
                b.conflicts += 1;
                attempt += 1;
                std::thread::sleep(jitter(attempt - 1));
                continue;
            }
        }
        if opts.test {
            return Ok(report);
        }
        // Nothing changes (a resync of what the kernel holds): no commit at all, as long as
        // what was read is still what the kernel holds.
        if batch.is_empty() {
            match (batch.genid(), conn.genid()) {
                (Some(read), Ok(now)) if read != now => {
                    attempt += 1;
                    continue;
                }
                (Some(read), Ok(_)) => report.generation = Some(read),
                _ => {}
            }
            if let Some(b) = beside.as_deref_mut() {
                b.answer_merged(None);
            }
            return Ok(report);
        }
        let t = std::time::Instant::now();
        let res = batch.commit(conn);
        report.commit_time = t.elapsed();
        match res {
            Ok(done) => {
                // The batch was checked against the generation it was planned at; its commit
                // moved it by one.
                report.generation = batch.genid().map(|g| g.wrapping_add(1));
                if let Some(b) = beside.as_deref_mut() {
                    b.answer_merged(Some(&done));
                }
                free_beside(batch);
                return Ok(report);
            }
            Err(nft::Error::Conflict { .. }) => {
                if let Some(b) = beside.as_deref_mut() {
                    b.conflicts += 1;
                }
                attempt += 1;
                if attempt > 8 {
                    std::thread::sleep(std::time::Duration::from_millis(
                        1 + (attempt as u64 * 7) % 13,
                    ));
                }
                continue;
            }
            Err(nft::Error::Rejected { failures }) => {
                // The restore's operations come first: a refusal of one of them is the
                // restore's; otherwise a command beside it was refused, and is taken out.
                if let Some(b) = beside.as_deref_mut() {
                    let theirs = failures.iter().all(|f| f.index >= b.boundary);
                    let first = failures
                        .iter()
                        .find_map(|f| Some((b.owner_of(&lines, f.index)?, f)));
                    if let (true, Some(((c, op), f))) = (theirs, first) {
                        let chain = refused_chain(&batch, f.index);
                        let e = map_refusal(conn, family, Some(op), chain.as_deref(), f);
                        b.split(c, e);
                        continue;
                    }
                }
                let e = kernel_refusal(input, &batch, &lines, &failures);
                drop(batch);
                return Err(e);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(RestoreError::Conflict { tries: TRIES })
}

/// What [`restore_beside`] did.
pub(crate) struct BesideOutcome {
    /// The restore's result.
    pub(crate) restore: Result<RestoreReport, RestoreError>,
    /// Each caller's answer (`None`: not committed here, for the caller to commit after).
    pub(crate) answers: Vec<Option<Outcome>>,
    /// Callers refused and taken out (the rest planned again without them).
    pub(crate) split_off: u64,
    /// Attempts planned again because the ruleset changed under a read.
    pub(crate) conflicts: u64,
}

/// Restores `input` with the commands of `callers` planned into its batch where they do not
/// depend on what it changes (see [`restore_source`]).
pub(crate) fn restore_beside(
    conn: &mut Conn,
    family: IpFamily,
    input: &str,
    opts: &RestoreOptions,
    callers: &[&[Op<'_>]],
) -> BesideOutcome {
    let mut b = Beside::new(callers);
    let restore = restore_source(conn, family, Source::Text(input), opts, Some(&mut b));
    let (split_off, conflicts) = (b.split_off, b.conflicts);
    BesideOutcome {
        restore,
        answers: b.into_answers(),
        split_off,
        conflicts,
    }
}
