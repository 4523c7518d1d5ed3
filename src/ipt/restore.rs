//! iptables-restore: a whole ruleset (or a delta, with `--noflush`) applied in ONE atomic
//! batch across all tables. iptables-nft-restore commits each table separately; iptnl commits
//! everything or nothing.
//!
//! Without `--noflush`, each table named in the input is deleted and rebuilt from the input.
//! With it, only what the input says changes: a user chain line creates the chain or, when
//! it exists, flushes it, and a built-in chain line sets the policy (as iptables-nft-restore
//! does); `-A`, `-N`, `-X`, `-F`, `-P` are blind
//! writes; commands that depend on what is in a chain (`-I n`, `-D`, `-R`, `-C`, `-Z`, `-E`)
//! read that chain only, and the batch then carries the generation id it read, so that a
//! concurrent change makes the kernel refuse it and the restore is planned again.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use iptnl_sys::nf_tables::NFT_DATA_VERDICT;

use super::command::{parse_command_with, Command};
use super::compare::{canonical_exprs_with, canonical_of_rule_with};
use super::encode::encode_rule_into_with;
use super::error::ParseError;
use super::spec::RuleSpec;
use super::tables::{find_table, BuiltinChain};
use super::IpFamily;
use crate::netlink::{Conn, Messages, Prefault, PrefaultCursor};
use crate::nft::{
    self, get_chain, list_rules, list_tables, Batch, Chain, Policy, Position, Rule, Table,
};

/// Options of a restore (the iptables-restore flags).
#[derive(Debug, Clone, Default)]
pub struct RestoreOptions {
    /// `--noflush`: change only what the input says.
    pub noflush: bool,
    /// `--counters`: apply `[packets:bytes]` of chains and rules.
    pub counters: bool,
    /// `--test`: parse and plan, but do not commit.
    pub test: bool,
    /// `--table`: only restore this table.
    pub table: Option<String>,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Tables restored, in input order.
    pub tables: Vec<String>,
    /// Operations in the batch.
    pub ops: usize,
    /// Rules added.
    pub rules_added: usize,
    /// Size of the batch on the wire.
    pub batch_bytes: usize,
    /// How many times the batch was planned again after a concurrent change.
    pub retries: u32,
    /// Time spent in the kernel commit (sending the batch and reading the replies) of the
    /// last attempt; zero with `--test`.
    pub commit_time: std::time::Duration,
}

/// Why a restore failed. After any error the ruleset is as it was.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The input is wrong at a line.
    #[error("line {}: {msg}", nft::error::group_thousands(*line as u64))]
    Input {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// The kernel refused the batch; each refused operation is named by its input line.
    #[error("{}", lines.join("\n"))]
    Kernel {
        /// One sentence per refused operation, starting with `line N:`.
        lines: Vec<String>,
        /// The first refused line.
        first_line: usize,
    },
    /// The ruleset kept changing under a read-dependent restore.
    #[error("the ruleset kept changing while the restore was planned ({tries} tries); nothing was applied")]
    Conflict {
        /// Attempts made.
        tries: u32,
    },
    /// Reading the ruleset failed.
    #[error(transparent)]
    Nft(#[from] nft::Error),
    /// Reading the input file failed, or the file changed while it was restored (its text is
    /// read again for each attempt; see [`restore_file`]). Nothing was applied.
    #[error("reading the input: {0}")]
    Read(std::io::Error),
}

fn input_err(line: usize, msg: impl Into<String>) -> RestoreError {
    RestoreError::Input {
        line,
        msg: msg.into(),
    }
}

/// One item of a table block.
#[derive(Debug)]
enum Item {
    Chain {
        line: usize,
        name: String,
        policy: Option<Policy>,
        counters: Option<(u64, u64)>,
    },
    Cmd {
        line: usize,
        cmd: Command,
        rules: Vec<RuleSpec>,
    },
}

/// A `*table … COMMIT` block (its items are streamed, never collected, outside tests).
#[derive(Debug)]
#[cfg_attr(not(test), allow(dead_code))]
struct Block {
    table: String,
    line: usize,
    items: Vec<Item>,
}

fn parse_counters(s: &str) -> Option<(u64, u64)> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let (p, b) = inner.split_once(':')?;
    Some((p.parse().ok()?, b.parse().ok()?))
}

/// Bytes of a regular file read at a time (a piece grows only for a longer line).
const PIECE: usize = 1 << 20;

/// A regular file being restored: read in pieces for each pass over the input, never held
/// whole, and checked for changes between passes.
#[derive(Debug)]
struct InputFile<'a> {
    file: &'a std::fs::File,
    /// Where the input starts and ends in the file.
    start: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl<'a> InputFile<'a> {
    fn new(file: &'a std::fs::File, start: u64, meta: &std::fs::Metadata) -> InputFile<'a> {
        InputFile {
            file,
            start: start.min(meta.len()),
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// An error unless the file still has the size and modification time it had at first.
    fn unchanged(&self) -> Result<(), RestoreError> {
        let meta = self.file.metadata().map_err(RestoreError::Read)?;
        if meta.len() != self.len || meta.modified().ok() != self.modified {
            return Err(changed());
        }
        Ok(())
    }

    /// Calls `f` with consecutive pieces of the file's text, each ending with a newline (but
    /// the last), invalid UTF-8 replaced as `String::from_utf8_lossy` does.
    fn for_each_piece(
        &self,
        mut f: impl FnMut(&str) -> Result<(), RestoreError>,
    ) -> Result<(), RestoreError> {
        use std::os::unix::fs::FileExt;
        self.unchanged()?;
        let size = usize::try_from(self.len - self.start).unwrap_or(PIECE);
        let mut buf = vec![0u8; PIECE.min(size).max(1)];
        // File offset of buf[0], and how much of buf holds file bytes.
        let mut off = self.start;
        let mut filled = 0usize;
        loop {
            let left = self.len - off - filled as u64;
            if filled == buf.len() && left > 0 {
                // A line longer than the buffer.
                buf.resize(buf.len() * 2, 0);
            }
            let want = (buf.len() - filled).min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = if want == 0 {
                0
            } else {
                match self
                    .file
                    .read_at(&mut buf[filled..filled + want], off + filled as u64)
                {
                    Ok(0) => return Err(changed()),
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(RestoreError::Read(e)),
                }
            };
            filled += n;
            let end = off + filled as u64 == self.len;
            let cut = if end {
                filled
            } else {
                match buf[..filled].iter().rposition(|&b| b == b'\n') {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            f(&String::from_utf8_lossy(&buf[..cut]))?;
            if end {
                break;
            }
            buf.copy_within(cut..filled, 0);
            off += cut as u64;
            filled -= cut;
        }
        self.unchanged()
    }
}

fn changed() -> RestoreError {
    RestoreError::Read(std::io::Error::other(
        "the file changed while it was being restored",
    ))
}

/// The input of a restore: text in memory, or a regular file read again for each pass.
#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    Text(&'a str),
    File(&'a InputFile<'a>),
}

impl Source<'_> {
    /// Size of the input in bytes.
    fn len(&self) -> usize {
        match self {
            Source::Text(t) => t.len(),
            Source::File(f) => usize::try_from(f.len - f.start).unwrap_or(usize::MAX),
        }
    }

    /// Calls `f` with each line (numbered from 1) as `str::lines` splits it.
    fn for_each_line(
        &self,
        mut f: impl FnMut(usize, &str) -> Result<(), RestoreError>,
    ) -> Result<(), RestoreError> {
        let mut n = 0;
        let mut piece = |text: &str| {
            for l in lines(text) {
                n += 1;
                f(n, l)?;
            }
            Ok(())
        };
        match self {
            Source::Text(t) => piece(t),
            Source::File(file) => file.for_each_piece(piece),
        }
    }

    /// The text of lines `wanted` (numbered from 1; a missing line is absent from the map).
    fn lines_text(&self, wanted: &[usize]) -> Result<HashMap<usize, String>, RestoreError> {
        let mut sorted = wanted.to_vec();
        sorted.sort_unstable();
        let mut out = HashMap::new();
        if sorted.is_empty() {
            return Ok(out);
        }
        self.for_each_line(|n, l| {
            if sorted.binary_search(&n).is_ok() {
                out.insert(n, l.to_owned());
            }
            Ok(())
        })?;
        Ok(out)
    }
}

/// The lines of `text`, as [`str::lines`] splits them (at `\n`, without a `\r` before it),
/// with the line ends found by `memchr`: `str::lines` took an eighth of the parsing
/// thread's time on a 200k-rule input.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // `\n` is ASCII, so the positions around it are char boundaries.
        Some(match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                let line = &rest[..i];
                rest = &rest[i + 1..];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => std::mem::take(&mut rest),
        })
    })
}

/// What the parser reports, line by line, for the tables being restored.
#[derive(Debug)]
enum Event {
    /// A `*table` line.
    Table { name: String, line: usize },
    /// A chain or command line of the open table.
    Item(Item),
}

/// The whole input as blocks (the planner streams instead: see [`parse_stream`]).
#[cfg(test)]
fn parse_input(
    family: IpFamily,
    input: &str,
    opts: &RestoreOptions,
) -> Result<Vec<Block>, RestoreError> {
    let mut blocks: Vec<Block> = Vec::new();
    parse_stream(family, Source::Text(input), opts, |ev| {
        match ev {
            Event::Table { name, line } => blocks.push(Block {
                table: name,
                line,
                items: Vec::new(),
            }),
            Event::Item(it) => blocks
                .last_mut()
                .expect("an item follows its table")
                .items
                .push(it),
        }
        Ok(())
    })?;
    Ok(blocks)
}

/// Parses the input line by line and hands each line of a restored table to `sink` as soon
/// as it is parsed, so that no more than one line's rules are alive at a time (memory stays
/// proportional to the batch, not to the parsed input).
fn parse_stream(
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
    mut sink: impl FnMut(Event) -> Result<(), RestoreError>,
) -> Result<(), RestoreError> {
    let selected = |table: &str| opts.table.as_deref().is_none_or(|only| only == table);
    let mut open: Option<Block> = None;
    let mut last = 0;
    input.for_each_line(|line, raw| {
        last = line;
        let l = raw.trim_end_matches('\r');
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            return Ok(());
        }
        if let Some(name) = t.strip_prefix('*') {
            if let Some(b) = &open {
                return Err(input_err(
                    line,
                    format!(
                        "table `{}' (line {}) has no COMMIT before the next table",
                        b.table, b.line
                    ),
                ));
            }
            let name = name.trim();
            if find_table(name).is_none() {
                return Err(input_err(line, format!("table `{name}' does not exist (iptables tables are filter, nat, mangle, raw and security)")));
            }
            if selected(name) {
                sink(Event::Table {
                    name: name.to_owned(),
                    line,
                })?;
            }
            open = Some(Block {
                table: name.to_owned(),
                line,
                items: Vec::new(),
            });
            return Ok(());
        }
        if t == "COMMIT" {
            match open.take() {
                Some(_) => {}
                None => return Err(input_err(line, "COMMIT without a table")),
            }
            return Ok(());
        }
        let Some(block) = open.as_mut() else {
            return Err(input_err(
                line,
                "a line outside of a table: the input must start with `*TABLE'",
            ));
        };
        if let Some(decl) = t.strip_prefix(':') {
            let mut f = decl.split_whitespace();
            let name = f
                .next()
                .ok_or_else(|| input_err(line, "a chain line needs a chain name"))?;
            let policy = f.next().ok_or_else(|| {
                input_err(line, format!("chain {name}: no policy (ACCEPT, DROP or -)"))
            })?;
            let counters =
                match f.next() {
                    Some(c) => Some(parse_counters(c).ok_or_else(|| {
                        input_err(line, format!("chain {name}: bad counters `{c}'"))
                    })?),
                    None => None,
                };
            let builtin = find_table(&block.table).and_then(|tb| tb.builtin(name));
            let policy = match (policy, builtin) {
                ("-", None) => None,
                ("ACCEPT", Some(_)) => Some(Policy::Accept),
                ("DROP", Some(_)) => Some(Policy::Drop),
                ("-", Some(_)) => {
                    return Err(input_err(
                        line,
                        format!("built-in chain {name} needs a policy (ACCEPT or DROP)"),
                    ))
                }
                (p, None) if p == "ACCEPT" || p == "DROP" => {
                    return Err(input_err(
                        line,
                        format!(
                        "chain {name} is not a built-in chain of table {}: it cannot have a policy",
                        block.table
                    ),
                    ))
                }
                (p, _) => {
                    return Err(input_err(
                        line,
                        format!("chain {name}: invalid policy `{p}'"),
                    ))
                }
            };
            if builtin.is_none() {
                super::command::check_chain_name(name, family)
                    .map_err(|e| input_err(line, e.to_string()))?;
            }
            if selected(&block.table) {
                sink(Event::Item(Item::Chain {
                    line,
                    name: name.to_owned(),
                    policy,
                    counters,
                }))?;
            }
            return Ok(());
        }
        let (counters, rest) = if t.starts_with('[') {
            let (c, rest) = t.split_once(' ').unwrap_or((t, ""));
            (
                Some(
                    parse_counters(c)
                        .ok_or_else(|| input_err(line, format!("bad counters `{c}'")))?,
                ),
                rest,
            )
        } else {
            (None, t)
        };
        let args = super::args::split_args_cow(rest).map_err(|e| input_err(line, e.to_string()))?;
        let mut cl =
            parse_command_with(family, &args, &crate::iptables::ipset::KernelSets)
                .map_err(|e| input_err(line, describe_parse(&e)))?;
        if cl.table_given {
            return Err(input_err(
                line,
                "the -t option cannot be used in restore input (the table is given by `*TABLE')",
            ));
        }
        let cmd = match cl.commands.len() {
            1 => cl.commands.swap_remove(0),
            _ => return Err(input_err(line, "one command per line")),
        };
        if matches!(
            cmd,
            Command::List { .. } | Command::ListRules { .. } | Command::Version | Command::Help
        ) {
            return Err(input_err(
                line,
                format!("-{} cannot be used in restore input", cmd.letter()),
            ));
        }
        let mut rules = cl.rules;
        if let (true, Some(c)) = (
            opts.counters,
            counters.or_else(|| rules.first().and_then(|r| r.counters)),
        ) {
            for r in &mut rules {
                r.counters = Some(c);
            }
        } else if !opts.counters {
            for r in &mut rules {
                r.counters = None;
            }
        }
        if selected(&block.table) {
            sink(Event::Item(Item::Cmd { line, cmd, rules }))?;
        }
        Ok(())
    })?;
    if let Some(b) = open {
        return Err(input_err(
            last.max(b.line),
            format!("table `{}' (line {}) has no COMMIT line", b.table, b.line),
        ));
    }
    Ok(())
}

fn describe_parse(e: &ParseError) -> String {
    e.to_string()
}

/// A rule of a chain as the planner knows it.
#[derive(Debug, Clone, Copy)]
enum Entry {
    /// In the kernel, with its handle.
    Kernel(u64),
    /// Added by this batch: its batch-local id and operation index.
    New(u32, usize),
}

#[derive(Debug, Default)]
struct ChainState {
    /// Whether the chain exists (None: unknown, not read).
    exists: Option<bool>,
    /// Its rules, when known.
    entries: Option<Vec<Entry>>,
    /// What only chains that a command reads need (boxed: a kube-proxy ruleset has tens of
    /// thousands of chains that never need it).
    more: Option<Box<ChainMore>>,
}

#[derive(Debug, Default)]
struct ChainMore {
    /// Kernel rules read for it, by handle (for comparisons).
    kernel_rules: std::collections::BTreeMap<u64, Rule>,
    /// Rules this batch put at the front / the back of the chain before its rules were read
    /// (newest front rule first), merged with what is read.
    pending_front: Vec<Entry>,
    pending_back: Vec<Entry>,
}

impl ChainState {
    fn more(&mut self) -> &mut ChainMore {
        self.more.get_or_insert_with(Box::default)
    }

    /// Forgets the rules added before the chain's rules were known.
    fn clear_pending(&mut self) {
        if let Some(m) = self.more.as_mut() {
            m.pending_front.clear();
            m.pending_back.clear();
        }
    }

    /// Records a rule added at the front (`first`) or the back of the chain.
    fn added(&mut self, e: Entry, first: bool) {
        match (&mut self.entries, first) {
            (Some(v), true) => v.insert(0, e),
            (Some(v), false) => v.push(e),
            (None, true) => self.more().pending_front.insert(0, e),
            (None, false) => self.more().pending_back.push(e),
        }
    }
}

/// The planner's chain states of one table, in the order they were first named.
///
/// The names sit in one string rather than one allocation each: a kube-proxy ruleset has
/// tens of thousands of chains, and freeing that many small blocks at the end of a restore
/// leaves the allocator a backlog (glibc consolidates them on a later allocation) that cost
/// the next restore on the same thread several milliseconds. A name is found by its hash:
/// one hash per lookup, no allocation for a known chain.
#[derive(Debug, Default)]
struct ChainMap {
    hasher: std::hash::RandomState,
    /// The first slot of each name hash (the hash is the key: not hashed again).
    heads: HashMap<u64, usize, std::hash::BuildHasherDefault<HashKey>>,
    slots: Vec<Slot>,
    /// The names of all slots, one after another.
    names: String,
    /// The slot found last (slots are never removed, only their state).
    last: std::cell::Cell<usize>,
}

/// One chain of a [`ChainMap`].
#[derive(Debug)]
struct Slot {
    /// The next slot whose name has the same hash.
    next: Option<usize>,
    /// The name, in `ChainMap::names`.
    name: std::ops::Range<usize>,
    /// `None` once removed.
    state: Option<ChainState>,
}

/// A hasher for keys that are already hashes.
#[derive(Debug, Default)]
struct HashKey(u64);

impl std::hash::Hasher for HashKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl ChainMap {
    fn name(&self, slot: &Slot) -> &str {
        self.names.get(slot.name.clone()).unwrap_or("")
    }

    /// The slot named `chain`, or the hash of the name when there is none.
    fn find(&self, chain: &str) -> Result<usize, u64> {
        // Lines about one chain come together (its rules, or a rule right after its chain
        // line): the last slot found is tried first, without hashing.
        let last = self.last.get();
        if self.slots.get(last).is_some_and(|s| self.name(s) == chain) {
            return Ok(last);
        }
        let h = self.hasher.hash_one(chain);
        let mut at = self.heads.get(&h).copied();
        while let Some(i) = at {
            if self.name(&self.slots[i]) == chain {
                self.last.set(i);
                return Ok(i);
            }
            at = self.slots[i].next;
        }
        Err(h)
    }

    fn get(&self, chain: &str) -> Option<&ChainState> {
        self.find(chain)
            .ok()
            .and_then(|i| self.slots[i].state.as_ref())
    }

    /// The state of `chain`, a default one added if it has none.
    fn state(&mut self, chain: &str) -> &mut ChainState {
        let i = match self.find(chain) {
            Ok(i) => i,
            Err(h) => {
                let start = self.names.len();
                self.names.push_str(chain);
                let i = self.slots.len();
                let next = self.heads.insert(h, i);
                self.slots.push(Slot {
                    next,
                    name: start..self.names.len(),
                    state: None,
                });
                self.last.set(i);
                i
            }
        };
        self.slots[i].state.get_or_insert_with(ChainState::default)
    }

    fn remove(&mut self, chain: &str) -> Option<ChainState> {
        let i = self.find(chain).ok()?;
        self.slots[i].state.take()
    }

    fn insert(&mut self, chain: &str, st: ChainState) {
        *self.state(chain) = st;
    }

    fn iter(&self) -> impl Iterator<Item = (&str, &ChainState)> {
        self.slots
            .iter()
            .filter_map(|s| Some((self.name(s), s.state.as_ref()?)))
    }

    fn values_mut(&mut self) -> impl Iterator<Item = &mut ChainState> {
        self.slots.iter_mut().filter_map(|s| s.state.as_mut())
    }
}

/// The planner's chain states by table (a handful of tables: a vector).
#[derive(Debug, Default)]
struct TableMap(Vec<(String, ChainMap)>);

impl TableMap {
    fn get(&self, table: &str) -> Option<&ChainMap> {
        self.0.iter().find(|(t, _)| t == table).map(|(_, m)| m)
    }

    fn get_mut(&mut self, table: &str) -> Option<&mut ChainMap> {
        self.0.iter_mut().find(|(t, _)| t == table).map(|(_, m)| m)
    }

    fn table(&mut self, table: &str) -> &mut ChainMap {
        let i = match self.0.iter().position(|(t, _)| t == table) {
            Some(i) => i,
            None => {
                self.0.push((table.to_owned(), ChainMap::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    fn remove(&mut self, table: &str) {
        self.0.retain(|(t, _)| t != table);
    }
}

/// Why a built-in chain is not deleted.
enum Kept {
    /// It does not exist.
    Missing,
    /// Its policy is not ACCEPT.
    Policy,
    /// It has rules.
    Rules,
}

struct Planner<'a> {
    conn: &'a mut Conn,
    family: IpFamily,
    opts: &'a RestoreOptions,
    batch: Batch,
    /// The input line of each operation (u32: a 4 GiB input has fewer lines).
    lines: Vec<u32>,
    /// Chain states by table, then chain (looked up without allocating a key).
    chains: TableMap,
    genid: Option<u32>,
    rules_added: usize,
    /// The rule being encoded (its buffers are reused from line to line).
    scratch: Rule,
    /// Whether appended rules are recorded in their chain's entries: only once the input has
    /// shown a command that reads positions or rules (anything but `-A -N -P -X -F -E`); a
    /// plain ruleset of tens of thousands of chains saves a vector per chain.
    track_entries: bool,
    /// Rules were appended without being recorded.
    untracked: bool,
    /// A reading command came after unrecorded appends: the input is planned again, recording
    /// from the start (see [`plan_once`]).
    restart: bool,
    /// The `*table` line whose table is added with the block's first line (an empty block
    /// adds nothing, as with iptables-nft-restore).
    table_pending: Option<usize>,
    /// Policies of built-in chains set by this input (chain lines, `-P`), by table and chain.
    policies: HashMap<(String, String), Policy>,
}

impl Planner<'_> {
    /// Attributes the operations added since the last call to input line `line`.
    fn push_line(&mut self, line: usize) {
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        self.lines
            .resize(self.batch.len().max(self.lines.len()), line);
    }

    fn state(&mut self, table: &str, chain: &str) -> &mut ChainState {
        self.chains.table(table).state(chain)
    }

    /// Reads a chain's rules from the kernel (once), remembering the generation.
    fn load(&mut self, line: usize, table: &str, chain: &str) -> Result<(), RestoreError> {
        if self.state(table, chain).entries.is_some() {
            return Ok(());
        }
        match list_rules(self.conn, Some(self.family.nft()), Some(table), Some(chain)) {
            Ok((rules, genid)) => {
                self.genid.get_or_insert(genid);
                // A dump of a missing chain is empty, not an error: an empty chain this
                // input did not make is looked up.
                if rules.is_empty()
                    && self.state(table, chain).exists != Some(true)
                    && get_chain(self.conn, self.family.nft(), table, chain)?.is_none()
                {
                    return Err(input_err(
                        line,
                        format!("chain {chain} does not exist in table {table}"),
                    ));
                }
                let st = self.state(table, chain);
                st.exists = Some(true);
                let more = st.more();
                let mut v = std::mem::take(&mut more.pending_front);
                v.extend(rules.iter().filter_map(|r| r.handle.map(Entry::Kernel)));
                v.append(&mut more.pending_back);
                more.kernel_rules = rules
                    .into_iter()
                    .filter_map(|r| r.handle.map(|h| (h, r)))
                    .collect();
                st.entries = Some(v);
                Ok(())
            }
            Err(e) if e.errno() == Some(libc::ENOENT) => Err(input_err(
                line,
                format!("chain {chain} does not exist in table {table}"),
            )),
            Err(e) => Err(e.into()),
        }
    }

    fn entries(&mut self, table: &str, chain: &str) -> &mut Vec<Entry> {
        self.state(table, chain)
            .entries
            .get_or_insert_with(Vec::new)
    }

    fn rule_of(&self, table: &str, chain: &str, e: Entry) -> Option<Rule> {
        match e {
            Entry::Kernel(h) => self
                .chains
                .get(table)?
                .get(chain)?
                .more
                .as_ref()?
                .kernel_rules
                .get(&h)
                .cloned(),
            Entry::New(_, op) => {
                let bytes = self.batch.as_netlink().op_bytes(op)?;
                let m = Messages::new(bytes).next()?.ok()?;
                Rule::decode(&m).ok()
            }
        }
    }

    fn find_spec(&self, table: &str, chain: &str, spec: &RuleSpec) -> Option<usize> {
        let want =
            canonical_exprs_with(spec, table, chain, &crate::iptables::ipset::KernelSets).ok()?;
        let entries = self.chains.get(table)?.get(chain)?.entries.as_ref()?;
        entries.iter().position(|&e| {
            self.rule_of(table, chain, e)
                .and_then(|r| {
                    canonical_of_rule_with(&r, self.family, &crate::iptables::ipset::KernelSets)
                })
                .is_some_and(|c| c == want)
        })
    }

    fn add_rule(
        &mut self,
        line: usize,
        table: &str,
        chain: &str,
        spec: &RuleSpec,
        pos: Position,
    ) -> Result<Entry, RestoreError> {
        // One rule reused for every line: no per-rule allocation of its expression vector.
        encode_rule_into_with(
            spec,
            self.family,
            table,
            chain,
            &mut self.scratch,
            &crate::iptables::ipset::KernelSets,
        )
        .map_err(|e| input_err(line, e.to_string()))?;
        let id = self.batch.new_id();
        let op = self
            .batch
            .add_rule_with_id(&self.scratch, pos, false, Some(id))
            .map_err(|e| input_err(line, e.to_string()))?;
        self.rules_added += 1;
        Ok(Entry::New(id, op))
    }

    fn del_entry(&mut self, table: &str, chain: &str, e: Entry) -> Result<(), nft::Error> {
        let f = self.family.nft();
        match e {
            Entry::Kernel(h) => self.batch.del_rule(f, table, chain, h)?,
            Entry::New(id, _) => self.batch.del_rule_by_id(f, table, chain, id)?,
        };
        Ok(())
    }

    fn builtin(table: &str, chain: &str) -> Option<&'static BuiltinChain> {
        find_table(table).and_then(|t| t.builtin(chain))
    }

    /// Starts a `*table` block (line `line`).
    fn begin_block(
        &mut self,
        table: &str,
        line: usize,
        existing_tables: &[String],
    ) -> Result<(), RestoreError> {
        if !self.opts.noflush {
            if existing_tables.iter().any(|t| t == table) {
                self.clear_table(table)?;
            }
            // The table is rebuilt from the input: every chain is known, empty, or absent.
            self.chains.remove(table);
        }
        self.push_line(line);
        self.table_pending = Some(line);
        Ok(())
    }

    /// Empties an existing table for a restore that rebuilds it. What iptables cannot see
    /// stays as it is: when the table holds named sets, stateful objects, flowtables or base
    /// chains iptables-nft would call incompatible (other hook, priority or type), only the
    /// chains iptables manages are flushed and deleted, so that `iptables-save > f;
    /// iptables-restore < f` loses none of those (iptables-nft-restore deletes the whole
    /// table); otherwise the table is deleted in one message.
    fn clear_table(&mut self, table: &str) -> Result<(), RestoreError> {
        let f = self.family.nft();
        let (sets, _) = nft::list_sets(self.conn, Some(f), Some(table))?;
        let mut keep =
            sets.iter().any(|s| !s.is_anonymous()) || nft::table_objects(self.conn, f, table)? > 0;
        let (chains, _) = nft::list_chains(self.conn, Some(f), Some(table))?;
        let foreign = |c: &nft::Chain| super::tables::is_foreign_base_chain(table, c);
        keep |= chains.iter().any(foreign);
        if !keep {
            self.batch.del_table(f, table)?;
            return Ok(());
        }
        // User chains that what stays jumps to (rules of the kept base chains, verdict maps)
        // cannot be deleted: they are emptied and stay.
        let mut used: HashSet<String> = HashSet::new();
        let mut note = |v: &nft::Verdict| {
            if let nft::Verdict::Jump(c) | nft::Verdict::Goto(c) = v {
                used.insert(c.clone());
            }
        };
        for c in chains.iter().filter(|c| foreign(c)) {
            let (rules, _) = nft::list_rules(self.conn, Some(f), Some(table), Some(&c.name))?;
            for e in rules.iter().flat_map(|r| &r.exprs) {
                if let nft::Expr::Immediate(i) = e {
                    if let nft::Data::Verdict(v) = &i.data {
                        note(v);
                    }
                }
            }
        }
        for s in sets
            .iter()
            .filter(|s| s.data_type == Some(NFT_DATA_VERDICT))
        {
            let (elems, _) = nft::list_set_elems(self.conn, f, table, &s.name)?;
            for e in &elems {
                if let Some(nft::Data::Verdict(v)) = &e.data {
                    note(v);
                }
            }
        }
        let ours: Vec<&nft::Chain> = chains.iter().filter(|c| !foreign(c)).collect();
        for c in &ours {
            self.batch.flush_chain(f, table, &c.name)?;
        }
        for c in ours.iter().filter(|c| !used.contains(&c.name)) {
            self.batch.del_chain(f, table, &c.name)?;
        }
        Ok(())
    }

    /// Plans one chain or command line of the block of `table`.
    fn item(&mut self, table: &str, item: &Item) -> Result<(), RestoreError> {
        let f = self.family.nft();
        if let Some(l) = self.table_pending.take() {
            self.batch.add_table(&Table::new(f, table))?;
            self.push_line(l);
        }
        {
            match item {
                Item::Chain {
                    line,
                    name,
                    policy,
                    counters,
                } => {
                    let counters = if self.opts.counters { *counters } else { None };
                    let chain = match Self::builtin(table, name) {
                        Some(bc) => bc.to_chain(
                            self.family,
                            table,
                            policy.unwrap_or(Policy::Accept),
                            counters,
                        ),
                        None => Chain::user(f, table, name.as_str()),
                    };
                    // A chain declared again in a flushed table is taken as with --noflush
                    // (iptables-nft-restore does).
                    let merge = self.opts.noflush || self.state(table, name).exists == Some(true);
                    let is_builtin = chain.hook.is_some();
                    if is_builtin {
                        self.policies.insert(
                            (table.to_owned(), name.clone()),
                            policy.unwrap_or(Policy::Accept),
                        );
                    }
                    self.batch.add_chain(&chain, false)?;
                    // With --noflush a user chain line empties the chain (iptables-nft-restore
                    // does); a built-in chain line only sets the policy.
                    if merge && !is_builtin {
                        self.batch.flush_chain(f, table, name)?;
                    }
                    if !(merge && is_builtin) {
                        let st = self.state(table, name);
                        *st = ChainState {
                            exists: Some(true),
                            entries: Some(Vec::new()),
                            ..ChainState::default()
                        };
                    } else {
                        self.state(table, name).exists = Some(true);
                    }
                    self.push_line(*line);
                }
                Item::Cmd {
                    line, cmd, rules, ..
                } => {
                    self.command(*line, table, cmd, rules)?;
                    self.push_line(*line);
                }
            }
        }
        Ok(())
    }

    /// A rule for a built-in chain the input did not declare: iptables-nft creates the chain
    /// (policy ACCEPT) on demand, and so does iptnl. With --noflush, where it may exist, it is
    /// written without a policy, so that an existing chain keeps its own.
    fn ensure_builtin(&mut self, table: &str, chain: &str) -> Result<(), RestoreError> {
        let Some(bc) = Self::builtin(table, chain) else {
            return Ok(());
        };
        if self.state(table, chain).exists == Some(true) {
            return Ok(());
        }
        let mut c = bc.to_chain(self.family, table, Policy::Accept, None);
        if self.opts.noflush {
            if let Some(h) = c.hook.as_mut() {
                h.policy = None;
            }
        }
        self.batch.add_chain(&c, false)?;
        let flushed = !self.opts.noflush;
        let st = self.state(table, chain);
        st.exists = Some(true);
        if flushed {
            st.entries.get_or_insert_with(Vec::new);
        }
        Ok(())
    }

    /// Whether a command only writes, without reading rules or positions: `-A -N -P -X -F
    /// -E`.
    /// `-X` of a built-in chain, or of every chain, reads whether built-in chains are empty.
    fn blind(table: &str, cmd: &Command) -> bool {
        match cmd {
            Command::DeleteChain { chain: Some(c) } => Self::builtin(table, c).is_none(),
            Command::DeleteChain { chain: None } => false,
            _ => matches!(
                cmd,
                Command::Append { .. }
                    | Command::NewChain { .. }
                    | Command::Policy { .. }
                    | Command::Flush { .. }
                    | Command::RenameChain { .. }
            ),
        }
    }

    /// Why a built-in chain cannot be deleted (iptables-nft deletes one only when it is
    /// empty and its policy is ACCEPT, so that no DROP policy is lost): `Ok(None)` when it
    /// can, `Some` with iptables' words when it cannot; a chain that does not exist is
    /// [`Kept::Missing`].
    fn builtin_kept(
        &mut self,
        line: usize,
        table: &str,
        chain: &str,
    ) -> Result<Option<Kept>, RestoreError> {
        let f = self.family.nft();
        let declared = self.state(table, chain).exists;
        let kernel = match declared {
            Some(false) => return Ok(Some(Kept::Missing)),
            Some(true) if !self.opts.noflush => None,
            _ => match get_chain(self.conn, f, table, chain)? {
                Some(c) => Some(c),
                None if declared == Some(true) => None,
                None => return Ok(Some(Kept::Missing)),
            },
        };
        let policy = match self.policies.get(&(table.to_owned(), chain.to_owned())) {
            Some(p) => *p,
            None => kernel
                .and_then(|c| c.hook.and_then(|h| h.policy))
                .unwrap_or(Policy::Accept),
        };
        if policy != Policy::Accept {
            return Ok(Some(Kept::Policy));
        }
        self.load(line, table, chain)?;
        if !self.entries(table, chain).is_empty() {
            return Ok(Some(Kept::Rules));
        }
        Ok(None)
    }

    fn known_missing(&mut self, table: &str, chain: &str) -> bool {
        !self.opts.noflush && self.state(table, chain).exists != Some(true)
    }

    fn command(
        &mut self,
        line: usize,
        table: &str,
        cmd: &Command,
        rules: &[RuleSpec],
    ) -> Result<(), RestoreError> {
        let f = self.family.nft();
        let missing =
            |c: &str| input_err(line, format!("chain {c} does not exist in table {table}"));
        if !self.track_entries && !Self::blind(table, cmd) {
            if self.untracked {
                self.restart = true;
                return Err(input_err(line, "planned again, recording rule positions"));
            }
            self.track_entries = true;
        }
        match cmd {
            Command::Append { chain } => {
                self.ensure_builtin(table, chain)?;
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                for s in rules {
                    let e = self.add_rule(line, table, chain, s, Position::Append)?;
                    if self.track_entries {
                        self.state(table, chain).added(e, false);
                    } else {
                        self.untracked = true;
                    }
                }
            }
            Command::Insert { chain, rulenum } => {
                self.ensure_builtin(table, chain)?;
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                let n = *rulenum as usize;
                if n > 1 {
                    self.load(line, table, chain)?;
                }
                // Each rule of an expanded `-s a,b` goes to position n, so they end up in
                // reverse order, as with iptables.
                let idx = n - 1;
                for s in rules {
                    let pos = match self.state(table, chain).entries.as_deref() {
                        None => Position::Prepend,
                        Some(v) if idx > v.len() => {
                            return Err(input_err(line, "Index of insertion too big"))
                        }
                        Some(v) if idx == v.len() => Position::Append,
                        Some(v) => match v[idx] {
                            Entry::Kernel(h) => Position::Before(h),
                            Entry::New(id, _) => Position::BeforeId(id),
                        },
                    };
                    let e = self.add_rule(line, table, chain, s, pos)?;
                    match self.state(table, chain).entries.as_mut() {
                        Some(v) => v.insert(idx, e),
                        None => self.state(table, chain).added(e, true),
                    }
                }
            }
            Command::Delete {
                chain,
                rulenum: None,
            }
            | Command::Check { chain } => {
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                self.load(line, table, chain)?;
                for s in rules {
                    let Some(i) = self.find_spec(table, chain, s) else {
                        return Err(input_err(
                            line,
                            "Bad rule (does a matching rule exist in that chain?)",
                        ));
                    };
                    if matches!(cmd, Command::Delete { .. }) {
                        let e = self.entries(table, chain).remove(i);
                        self.del_entry(table, chain, e)?;
                    }
                }
            }
            Command::Delete {
                chain,
                rulenum: Some(n),
            } => {
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                self.load(line, table, chain)?;
                let v = self.entries(table, chain);
                if *n as usize > v.len() {
                    return Err(input_err(line, "Index of deletion too big"));
                }
                let e = v.remove(*n as usize - 1);
                self.del_entry(table, chain, e)?;
            }
            Command::Replace { chain, rulenum } => {
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                self.load(line, table, chain)?;
                let idx = *rulenum as usize - 1;
                let old = match self.entries(table, chain).get(idx) {
                    Some(e) => *e,
                    None => return Err(input_err(line, "Index of replacement too big")),
                };
                let spec = match rules {
                    [one] => one,
                    [] => return Err(input_err(line, "-R needs a rule")),
                    _ => {
                        return Err(input_err(
                            line,
                            "Replacement rule does not specify a unique address",
                        ))
                    }
                };
                let e = match old {
                    Entry::Kernel(h) => {
                        self.add_rule(line, table, chain, spec, Position::Replace(h))?
                    }
                    Entry::New(id, _) => {
                        let e = self.add_rule(line, table, chain, spec, Position::BeforeId(id))?;
                        self.del_entry(table, chain, old)?;
                        e
                    }
                };
                self.entries(table, chain)[idx] = e;
            }
            Command::Flush { chain: Some(chain) } => {
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                self.batch.flush_chain(f, table, chain)?;
                let st = self.state(table, chain);
                st.entries = Some(Vec::new());
                st.clear_pending();
            }
            Command::Flush { chain: None } => {
                self.batch.flush_table(f, table)?;
                for st in self
                    .chains
                    .get_mut(table)
                    .into_iter()
                    .flat_map(ChainMap::values_mut)
                {
                    st.entries = Some(Vec::new());
                    st.clear_pending();
                }
            }
            Command::NewChain { chain } => {
                if !self.opts.noflush && self.state(table, chain).exists == Some(true)
                    || Self::builtin(table, chain).is_some()
                {
                    return Err(input_err(line, format!("chain {chain} already exists")));
                }
                self.batch
                    .add_chain(&Chain::user(f, table, chain.as_str()), true)?;
                let st = self.state(table, chain);
                st.exists = Some(true);
                st.entries = Some(Vec::new());
            }
            Command::DeleteChain { chain: Some(chain) } => {
                if Self::builtin(table, chain).is_some() {
                    match self.builtin_kept(line, table, chain)? {
                        None => {}
                        Some(Kept::Missing) => return Err(missing(chain)),
                        Some(Kept::Policy) => {
                            return Err(input_err(line, "Directory not empty.".to_owned()))
                        }
                        Some(Kept::Rules) => {
                            return Err(input_err(
                                line,
                                format!(
                                    "CHAIN_DEL failed (Device or resource busy): chain {chain}"
                                ),
                            ))
                        }
                    }
                    self.batch.del_chain(f, table, chain)?;
                    self.policies.remove(&(table.to_owned(), chain.clone()));
                    let st = self.state(table, chain);
                    st.exists = Some(false);
                    st.entries = None;
                    return Ok(());
                }
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                self.batch.del_chain(f, table, chain)?;
                let st = self.state(table, chain);
                st.exists = Some(false);
                st.entries = None;
            }
            Command::DeleteChain { chain: None } => {
                let (chains, genid) = nft::list_chains(self.conn, Some(f), Some(table))?;
                self.genid.get_or_insert(genid);
                let mut names: Vec<String> = chains
                    .into_iter()
                    .filter(|c| c.hook.is_none())
                    .map(|c| c.name)
                    .collect();
                let mut seen: std::collections::HashSet<String> = names.iter().cloned().collect();
                for (c, st) in self.chains.get(table).into_iter().flat_map(ChainMap::iter) {
                    if st.exists == Some(true)
                        && Self::builtin(table, c).is_none()
                        && seen.insert(c.to_owned())
                    {
                        names.push(c.to_owned());
                    }
                }
                for c in names {
                    if self.opts.noflush || self.state(table, &c).exists == Some(true) {
                        self.batch.del_chain(f, table, &c)?;
                        self.state(table, &c).exists = Some(false);
                    }
                }
                // And the built-in chains that are empty with policy ACCEPT, as iptables-nft
                // 1.8.11 does; the others stay, without an error.
                let builtins = crate::ipt::tables::find_table(table)
                    .map(|t| t.chains)
                    .unwrap_or_default();
                for bc in builtins {
                    if self.builtin_kept(line, table, bc.name)?.is_none() {
                        self.batch.del_chain(f, table, bc.name)?;
                        self.policies
                            .remove(&(table.to_owned(), bc.name.to_owned()));
                        let st = self.state(table, bc.name);
                        st.exists = Some(false);
                        st.entries = None;
                    }
                }
            }
            Command::RenameChain { old, new } => {
                let handle = match get_chain(self.conn, f, table, old)? {
                    Some(c) => c.handle,
                    None => None,
                };
                match handle {
                    Some(h) if self.opts.noflush => {
                        self.batch.rename_chain(f, table, h, new)?;
                        let st = self.chains.get_mut(table).and_then(|m| m.remove(old)).unwrap_or_default();
                        self.chains.table(table).insert(new, st);
                    }
                    _ => return Err(input_err(line, format!("-E {old} {new}: only a chain that exists before the restore can be renamed (with --noflush)"))),
                }
            }
            Command::Policy { chain, policy } => {
                let Some(bc) = Self::builtin(table, chain) else {
                    return Err(input_err(
                        line,
                        format!("-P {chain}: policy can only be set on a built-in chain"),
                    ));
                };
                let p = match policy.as_str() {
                    "ACCEPT" => Policy::Accept,
                    "DROP" => Policy::Drop,
                    other => {
                        return Err(input_err(
                            line,
                            format!("-P {chain}: invalid policy `{other}'"),
                        ))
                    }
                };
                self.batch
                    .add_chain(&bc.to_chain(self.family, table, p, None), false)?;
                self.state(table, chain).exists = Some(true);
                self.policies.insert((table.to_owned(), chain.clone()), p);
            }
            Command::Zero { chain, rulenum } => {
                let mut targets: Vec<String> = match chain {
                    Some(c) => vec![c.clone()],
                    // Every chain of the table: those in the kernel (with --noflush) and
                    // those this input made, not those it deleted.
                    None if self.opts.noflush => {
                        match nft::list_chains(self.conn, Some(f), Some(table)) {
                            Ok((chains, genid)) => {
                                self.genid.get_or_insert(genid);
                                chains.into_iter().map(|c| c.name).collect()
                            }
                            Err(e) if e.errno() == Some(libc::ENOENT) => Vec::new(),
                            Err(e) => return Err(e.into()),
                        }
                    }
                    None => Vec::new(),
                };
                if chain.is_none() {
                    if let Some(m) = self.chains.get(table) {
                        let mut seen: std::collections::HashSet<String> =
                            targets.iter().cloned().collect();
                        for (c, st) in m.iter() {
                            if st.exists == Some(true) && seen.insert(c.to_owned()) {
                                targets.push(c.to_owned());
                            }
                        }
                        targets.retain(|c| m.get(c).is_none_or(|st| st.exists != Some(false)));
                    }
                }
                for c in targets {
                    // A built-in chain's own counters are zeroed too (as iptables-nft does),
                    // keeping its policy.
                    if let (true, None, Some(bc)) =
                        (self.opts.noflush, rulenum, Self::builtin(table, &c))
                    {
                        if let Some(p) = get_chain(self.conn, f, table, &c)?
                            .and_then(|k| k.hook.and_then(|h| h.policy))
                        {
                            self.batch.add_chain(
                                &bc.to_chain(self.family, table, p, Some((0, 0))),
                                false,
                            )?;
                        }
                    }
                    self.load(line, table, &c)?;
                    let entries = self.entries(table, &c).clone();
                    let mut anon = None;
                    for (i, e) in entries.iter().enumerate() {
                        if rulenum.is_some_and(|n| n as usize != i + 1) {
                            continue;
                        }
                        if let (Entry::Kernel(h), Some(mut r)) = (*e, self.rule_of(table, &c, *e)) {
                            for x in &mut r.exprs {
                                if let nft::Expr::Counter(cnt) = x {
                                    *cnt = Default::default();
                                }
                            }
                            r.handle = None;
                            // Not dumped by the kernel, and needed by x_tables extensions
                            // that check the protocol (TPROXY, `--to-ports`, …).
                            r.compat = crate::ipt::compat::compat_of(&r.exprs, self.family);
                            // An anonymous set belongs to the rule that uses it: the new
                            // rule gets sets of its own with the same elements.
                            if r.uses_anonymous_sets() {
                                if anon.is_none() {
                                    anon = Some(nft::anonymous_sets(self.conn, f, table)?);
                                }
                                r.bind_sets(anon.as_ref().expect("read above"));
                            }
                            self.batch.add_rule(&r, Position::Replace(h), false)?;
                        }
                    }
                }
            }
            Command::List { .. } | Command::ListRules { .. } | Command::Version | Command::Help => {
                return Err(input_err(
                    line,
                    format!("-{} cannot be used in restore input", cmd.letter()),
                ))
            }
        }
        Ok(())
    }
}

/// Inputs from this size on are parsed on a second thread while the planner encodes (below
/// it, a thread costs more than it saves).
const PIPELINE_MIN_BYTES: usize = 256 * 1024;

/// Parsed lines handed from the parsing thread to the planner at a time (at most two chunks
/// wait between the threads; 1,024 lines planned 20% faster than 256, for about 1 MB more).
const PIPELINE_CHUNK: usize = 1024;

/// Whether a second thread can run beside this one.
fn parallel() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// [`parse_stream`] on a second thread, its events handed in order to `sink` on this one:
/// parsing the text and planning/encoding the batch (about half of a restore's own time each)
/// overlap. Errors come out exactly as in one thread: the events before a parse error are all
/// planned first, and a planning error stops the parser.
///
/// The planner only borrows the events, and hands each chunk back: the parsing thread frees
/// what it allocated and reuses the chunk. (Freed on the planning thread, every parsed rule
/// went back to the other thread's malloc arena under its lock, and the two threads spent
/// a fifth of their time waking each other on that lock.)
///
/// Whenever the planner is behind (the channel is full) or the input is all parsed, the
/// parsing thread faults in the next pages of the batch through `ahead` instead of waiting,
/// which the planner publishes after each chunk: on a 200k-rule input the planner spent
/// more than a third of its time in page faults of the fresh 130 MB batch, and this made
/// the restore's own part 225–240 ms instead of 270–320 ms.
fn parse_beside(
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
    ahead: &Prefault,
    mut sink: impl FnMut(&[Event]) -> Result<(), RestoreError>,
) -> Result<(), RestoreError> {
    use std::collections::VecDeque;
    use std::sync::mpsc::{Receiver, TryRecvError, TrySendError};
    type Chunk = Result<Vec<Event>, RestoreError>;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(2);
        let (back_tx, back_rx) = std::sync::mpsc::channel::<Vec<Event>>();
        scope.spawn(move || {
            let mut cursor = PrefaultCursor::default();
            // Hands a chunk to the planner; while the planner is busy, faults in the pages
            // it is about to write instead of waiting (false: the planner stopped).
            let mut hand = |mut chunk: Chunk| loop {
                match tx.try_send(chunk) {
                    Ok(()) => return true,
                    Err(TrySendError::Full(c)) => {
                        chunk = c;
                        if !ahead.step(&mut cursor) {
                            return tx.send(chunk).is_ok();
                        }
                    }
                    Err(TrySendError::Disconnected(_)) => return false,
                }
            };
            // The events handed back, freed one for each event parsed: each line's
            // allocations then reuse the blocks an old line has just freed, from glibc's
            // per-thread cache (7 blocks per size). Freeing a whole chunk at once overflowed
            // that cache into the slower bins: parsing took 20 ms longer.
            let mut to_free: VecDeque<Event> = VecDeque::new();
            let fresh = |back: &Receiver<Vec<Event>>, to_free: &mut VecDeque<Event>| match back
                .try_recv()
            {
                Ok(mut used) => {
                    to_free.extend(used.drain(..));
                    used
                }
                Err(_) => Vec::with_capacity(PIPELINE_CHUNK),
            };
            let mut chunk = fresh(&back_rx, &mut to_free);
            let parsed = parse_stream(family, input, opts, |ev| {
                to_free.pop_front();
                chunk.push(ev);
                if chunk.len() == PIPELINE_CHUNK {
                    let full = std::mem::replace(&mut chunk, fresh(&back_rx, &mut to_free));
                    // The planner stopped (it failed): stop parsing too; this error is never seen.
                    if !hand(Ok(full)) {
                        return Err(input_err(0, "planner stopped"));
                    }
                }
                Ok(())
            });
            if chunk.is_empty() || hand(Ok(chunk)) {
                if let Err(e) = parsed {
                    hand(Err(e));
                }
            }
            // Closes the channel: the planner's loop ends.
            drop(tx);
            // The chunks still being planned come back here to be freed; meanwhile the pages
            // of the batch's end are faulted in.
            drop(to_free);
            loop {
                match back_rx.try_recv() {
                    Ok(used) => drop(used),
                    Err(TryRecvError::Empty) => {
                        if !ahead.step(&mut cursor) {
                            match back_rx.recv() {
                                Ok(used) => drop(used),
                                Err(_) => break,
                            }
                        }
                    }
                    Err(TryRecvError::Disconnected) => break,
                }
            }
        });
        let planned = (|| {
            for msg in rx.iter() {
                let events = msg?;
                sink(&events)?;
                let _ = back_tx.send(events);
            }
            Ok(())
        })();
        drop(back_tx);
        // Unblocks a parser waiting to send (after a planning error).
        drop(rx);
        planned
    })
}

/// Plans one attempt of a restore: the batch (with the generation id it depends on), the
/// input line of each operation, and the report (without commit time).
fn plan_once(
    conn: &mut Conn,
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
) -> Result<(Batch, Vec<u32>, RestoreReport), RestoreError> {
    let (existing, tables_gen) = if opts.noflush {
        (Vec::new(), None)
    } else {
        let (t, g) = list_tables(conn, Some(family.nft()))?;
        (t.into_iter().map(|t| t.name).collect::<Vec<_>>(), Some(g))
    };
    let capacity = input.len() * 3 + 4096;
    // Appends are not recorded until a command that reads positions shows up; if one comes
    // after appends, the input is planned a second time, recording from the start (a cheap
    // textual scan for such commands used to come first, and cost more than this on big
    // inputs, which rarely have them).
    let mut track = false;
    let (p, tables) = loop {
        let mut p = Planner {
            conn: &mut *conn,
            family,
            opts,
            batch: Batch::with_capacity(capacity),
            lines: Vec::new(),
            chains: TableMap::default(),
            genid: tables_gen,
            rules_added: 0,
            scratch: Rule::new(family.nft(), "", ""),
            track_entries: track,
            untracked: false,
            restart: false,
            table_pending: None,
            policies: HashMap::new(),
        };
        let mut tables: Vec<String> = Vec::new();
        let apply = |p: &mut Planner, tables: &mut Vec<String>, ev: &Event| match ev {
            Event::Table { name, line } => {
                p.begin_block(name, *line, &existing)?;
                tables.push(name.clone());
                Ok(())
            }
            Event::Item(item) => p.item(tables.last().map_or("", String::as_str), item),
        };
        let planned = if input.len() >= PIPELINE_MIN_BYTES && parallel() {
            let ahead = Prefault::default();
            p.batch.publish_to(&ahead);
            parse_beside(family, input, opts, &ahead, |events| {
                for ev in events {
                    apply(&mut p, &mut tables, ev)?;
                }
                p.batch.publish_to(&ahead);
                Ok(())
            })
        } else {
            parse_stream(family, input, opts, |ev| apply(&mut p, &mut tables, &ev))
        };
        if p.restart && !track {
            track = true;
            continue;
        }
        planned?;
        break (p, tables);
    };
    let Planner {
        mut batch,
        lines,
        genid,
        rules_added,
        ..
    } = p;
    let report = RestoreReport {
        tables,
        ops: batch.len(),
        rules_added,
        batch_bytes: batch.wire_len(),
        ..RestoreReport::default()
    };
    batch.set_genid(genid);
    Ok((batch, lines, report))
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
    let (batch, _, report) = plan_once(conn, family, Source::Text(input), opts)?;
    Ok((batch, report))
}

/// Restores `input` (iptables-restore format) in one batch.
///
/// ```no_run
/// use iptnl::ipt::restore::{restore, RestoreOptions};
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
    restore_source(conn, family, Source::Text(input), opts)
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
/// use iptnl::ipt::restore::{restore_file, RestoreOptions};
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
        return restore_source(conn, family, Source::File(&input), opts);
    }
    let mut buf = Vec::new();
    std::io::Read::read_to_end(&mut &*file, &mut buf).map_err(RestoreError::Read)?;
    restore(conn, family, &String::from_utf8_lossy(&buf), opts)
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

fn restore_source(
    conn: &mut Conn,
    family: IpFamily,
    input: Source<'_>,
    opts: &RestoreOptions,
) -> Result<RestoreReport, RestoreError> {
    // Under a stream of concurrent commits (20 `iptables-nft -A` processes) 8 tries were not
    // always enough; a retry right after a conflict has the best chance.
    const TRIES: u32 = 64;
    for attempt in 0..TRIES {
        let (mut batch, lines, mut report) = plan_once(conn, family, input, opts)?;
        report.retries = attempt;
        if opts.test {
            return Ok(report);
        }
        let t = std::time::Instant::now();
        let res = batch.commit(conn);
        report.commit_time = t.elapsed();
        match res {
            Ok(_) => {
                free_beside(batch);
                return Ok(report);
            }
            Err(nft::Error::Conflict { .. }) => {
                if attempt >= 8 {
                    std::thread::sleep(std::time::Duration::from_millis(
                        1 + (attempt as u64 * 7) % 13,
                    ));
                }
                continue;
            }
            Err(nft::Error::Rejected { failures }) => {
                drop(batch);
                let line_of = |i: usize| lines.get(i).map_or(0, |&l| l as usize);
                let wanted: Vec<usize> = failures.iter().map(|f| line_of(f.index)).collect();
                // Without the text (the file changed since), the lines are still named.
                let src = input.lines_text(&wanted).unwrap_or_default();
                let out: Vec<String> = failures
                    .iter()
                    .map(|f| {
                        let line = line_of(f.index);
                        let text = src.get(&line).map(|s| s.trim()).unwrap_or("");
                        let shown: String = if text.chars().count() > 80 {
                            text.chars().take(77).chain("...".chars()).collect()
                        } else {
                            text.to_owned()
                        };
                        format!(
                            "line {}: {shown}: {}",
                            nft::error::group_thousands(line as u64),
                            f.reason
                        )
                    })
                    .collect();
                let first_line = failures.first().map_or(0, |f| line_of(f.index));
                return Err(RestoreError::Kernel {
                    lines: out,
                    first_line,
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(RestoreError::Conflict { tries: TRIES })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_str_lines_does() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\r",
            "a\rb\n\r\n\n",
            "\n\nx\n",
            "é\nü\r\n",
        ] {
            let want: Vec<&str> = text.lines().collect();
            assert_eq!(lines(text).collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    fn parse(s: &str) -> Result<Vec<Block>, RestoreError> {
        parse_input(IpFamily::V4, s, &RestoreOptions::default())
    }

    /// A file read in pieces gives the lines `str::lines` gives for its whole text: across
    /// piece boundaries, with a line longer than a piece, CRLF, invalid UTF-8, no final
    /// newline, and from a start offset; a change of the file is an error.
    #[test]
    fn file_pieces_give_the_lines_of_the_whole_text() {
        use std::io::Write;
        let mut bytes = Vec::new();
        for i in 0..40_000 {
            bytes
                .extend_from_slice(format!("-A C{i} -j ACCEPT{}\n", "x".repeat(i % 97)).as_bytes());
            if i == 20_000 {
                bytes.extend(std::iter::repeat_n(b'y', PIECE + PIECE / 2));
                bytes.extend_from_slice(b"\r\n\xff\xfe bad\n\n");
            }
        }
        bytes.extend_from_slice(b"last line without newline");
        let path = std::env::temp_dir().join(format!("iptnl-pieces-{}", std::process::id()));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let meta = file.metadata().unwrap();
        for start in [0usize, 7] {
            let text = String::from_utf8_lossy(&bytes[start..]);
            let want: Vec<&str> = text.lines().collect();
            let input = InputFile::new(&file, start as u64, &meta);
            let mut got: Vec<String> = Vec::new();
            Source::File(&input)
                .for_each_line(|n, l| {
                    assert_eq!(n, got.len() + 1);
                    got.push(l.to_owned());
                    Ok(())
                })
                .unwrap();
            assert_eq!(got.len(), want.len());
            assert!(got.iter().zip(&want).all(|(a, b)| a == b));
            let quoted = Source::File(&input).lines_text(&[3, 20_002]).unwrap();
            assert_eq!(quoted[&3], want[2]);
            assert_eq!(quoted[&20_002], want[20_001]);
        }
        let input = InputFile::new(&file, 0, &meta);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"\n-A X\n")
            .unwrap();
        let e = Source::File(&input)
            .for_each_line(|_, _| Ok(()))
            .unwrap_err();
        assert!(e.to_string().contains("the file changed"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    /// Chain states are found by name, in the order first named, through removal and re-adding.
    #[test]
    fn chain_map_finds_states_by_name() {
        let mut m = ChainMap::default();
        for i in 0..1000 {
            m.state(&format!("KUBE-SEP-{i}")).exists = Some(i % 2 == 0);
        }
        assert_eq!(m.get("KUBE-SEP-10").and_then(|s| s.exists), Some(true));
        assert_eq!(m.get("KUBE-SEP-11").and_then(|s| s.exists), Some(false));
        assert!(m.get("KUBE-SEP-1000").is_none());
        assert!(m.get("").is_none());
        let removed = m.remove("KUBE-SEP-10").unwrap();
        assert_eq!(removed.exists, Some(true));
        assert!(m.get("KUBE-SEP-10").is_none() && m.remove("KUBE-SEP-10").is_none());
        m.insert("NEW", removed);
        assert_eq!(m.state("KUBE-SEP-10").exists, None);
        let names: Vec<&str> = m.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 1001);
        assert_eq!(names[..3], ["KUBE-SEP-0", "KUBE-SEP-1", "KUBE-SEP-2"]);
        assert_eq!(names[10], "KUBE-SEP-10");
        assert_eq!(names[1000], "NEW");
        assert_eq!(m.values_mut().count(), 1001);
    }

    #[test]
    fn format_errors_name_the_line() {
        let e = parse("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT --bogus\nCOMMIT\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3: unknown option \"--bogus\"");
        assert!(parse("*filter\n-A INPUT -j ACCEPT\n")
            .unwrap_err()
            .to_string()
            .starts_with("line 2: table `filter' (line 1) has no COMMIT"));
        assert!(parse("-A INPUT -j ACCEPT\n")
            .unwrap_err()
            .to_string()
            .starts_with("line 1: a line outside of a table"));
        assert!(parse("*bogus\nCOMMIT\n").is_err());
        assert!(parse("*filter\n:FOO ACCEPT [0:0]\nCOMMIT\n").is_err());
        assert!(parse("*filter\n:INPUT - [0:0]\nCOMMIT\n").is_err());
        assert!(parse("*filter\n-t nat -A INPUT -j ACCEPT\nCOMMIT\n").is_err());
        assert!(parse("*filter\n-L\nCOMMIT\n").is_err());
        let ok = parse("# c\n*filter\n:INPUT DROP [1:2]\n:FOO - [0:0]\n[3:4] -A FOO -s 1.1.1.1,2.2.2.2 -j ACCEPT\n\nCOMMIT\n").unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].items.len(), 3);
    }
}
