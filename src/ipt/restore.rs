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

use std::collections::HashMap;

use super::command::{parse_command, Command};
use super::compare::{canonical_exprs, canonical_of_rule};
use super::encode::encode_rule;
use super::error::ParseError;
use super::spec::RuleSpec;
use super::tables::{find_table, BuiltinChain};
use super::IpFamily;
use crate::netlink::{Conn, Messages};
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

/// A `*table … COMMIT` block.
#[derive(Debug)]
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

fn parse_input(
    family: IpFamily,
    input: &str,
    opts: &RestoreOptions,
) -> Result<Vec<Block>, RestoreError> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<Block> = None;
    let mut last = 0;
    for (idx, raw) in input.lines().enumerate() {
        let line = idx + 1;
        last = line;
        let l = raw.trim_end_matches('\r');
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
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
            open = Some(Block {
                table: name.to_owned(),
                line,
                items: Vec::new(),
            });
            continue;
        }
        if t == "COMMIT" {
            match open.take() {
                Some(b) => {
                    if opts.table.as_deref().is_none_or(|only| only == b.table) {
                        blocks.push(b);
                    }
                }
                None => return Err(input_err(line, "COMMIT without a table")),
            }
            continue;
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
                (p, None) if p == "ACCEPT" || p == "DROP" => return Err(input_err(
                    line,
                    format!(
                        "chain {name} is not a built-in chain of table {}: it cannot have a policy",
                        block.table
                    ),
                )),
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
            block.items.push(Item::Chain {
                line,
                name: name.to_owned(),
                policy,
                counters,
            });
            continue;
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
        let args = super::split_args(rest).map_err(|e| input_err(line, e.to_string()))?;
        let cl = parse_command(family, &args).map_err(|e| input_err(line, describe_parse(&e)))?;
        if cl.table_given {
            return Err(input_err(
                line,
                "the -t option cannot be used in restore input (the table is given by `*TABLE')",
            ));
        }
        let cmd = match cl.commands.as_slice() {
            [c] => c.clone(),
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
        block.items.push(Item::Cmd { line, cmd, rules });
    }
    if let Some(b) = open {
        return Err(input_err(
            last.max(b.line),
            format!("table `{}' (line {}) has no COMMIT line", b.table, b.line),
        ));
    }
    Ok(blocks)
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
    /// Kernel rules read for it, by handle (for comparisons).
    kernel_rules: HashMap<u64, Rule>,
    /// Rules this batch put at the front / the back of the chain before its rules were read
    /// (newest front rule first), merged with what is read.
    pending_front: Vec<Entry>,
    pending_back: Vec<Entry>,
}

impl ChainState {
    /// Records a rule added at the front (`first`) or the back of the chain.
    fn added(&mut self, e: Entry, first: bool) {
        match (&mut self.entries, first) {
            (Some(v), true) => v.insert(0, e),
            (Some(v), false) => v.push(e),
            (None, true) => self.pending_front.insert(0, e),
            (None, false) => self.pending_back.push(e),
        }
    }
}

struct Planner<'a> {
    conn: &'a mut Conn,
    family: IpFamily,
    opts: &'a RestoreOptions,
    batch: Batch,
    lines: Vec<usize>,
    chains: HashMap<(String, String), ChainState>,
    genid: Option<u32>,
    rules_added: usize,
}

impl Planner<'_> {
    /// Attributes the operations added since the last call to input line `line`.
    fn push_line(&mut self, line: usize) {
        while self.lines.len() < self.batch.len() {
            self.lines.push(line);
        }
    }

    fn state(&mut self, table: &str, chain: &str) -> &mut ChainState {
        self.chains
            .entry((table.to_owned(), chain.to_owned()))
            .or_default()
    }

    /// Reads a chain's rules from the kernel (once), remembering the generation.
    fn load(&mut self, line: usize, table: &str, chain: &str) -> Result<(), RestoreError> {
        if self.state(table, chain).entries.is_some() {
            return Ok(());
        }
        match list_rules(self.conn, Some(self.family.nft()), Some(table), Some(chain)) {
            Ok((rules, genid)) => {
                self.genid.get_or_insert(genid);
                let st = self.state(table, chain);
                st.exists = Some(true);
                let mut v = std::mem::take(&mut st.pending_front);
                v.extend(rules.iter().filter_map(|r| r.handle.map(Entry::Kernel)));
                v.append(&mut st.pending_back);
                st.entries = Some(v);
                st.kernel_rules = rules
                    .into_iter()
                    .filter_map(|r| r.handle.map(|h| (h, r)))
                    .collect();
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
                .get(&(table.to_owned(), chain.to_owned()))?
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
        let want = canonical_exprs(spec, table, chain).ok()?;
        let entries = self
            .chains
            .get(&(table.to_owned(), chain.to_owned()))?
            .entries
            .as_ref()?;
        entries.iter().position(|&e| {
            self.rule_of(table, chain, e)
                .and_then(|r| canonical_of_rule(&r, self.family))
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
        let r = encode_rule(spec, self.family, table, chain)
            .map_err(|e| input_err(line, e.to_string()))?;
        let id = self.batch.new_id();
        let op = self
            .batch
            .add_rule_with_id(&r, pos, false, Some(id))
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

    fn block(&mut self, b: &Block, existing_tables: &[String]) -> Result<(), RestoreError> {
        let f = self.family.nft();
        let table = b.table.as_str();
        if !self.opts.noflush {
            if existing_tables.iter().any(|t| t == table) {
                self.batch.del_table(f, table)?;
            }
            // The table is rebuilt from the input: every chain is known, empty, or absent.
            self.chains.retain(|(t, _), _| t != table);
        }
        self.batch.add_table(&Table::new(f, table))?;
        self.push_line(b.line);
        for item in &b.items {
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
                    if !self.opts.noflush && self.state(table, name).exists == Some(true) {
                        return Err(input_err(*line, format!("chain {name} is declared twice")));
                    }
                    let is_builtin = chain.hook.is_some();
                    self.batch.add_chain(&chain, false)?;
                    // With --noflush a user chain line empties the chain (iptables-nft-restore
                    // does); a built-in chain line only sets the policy.
                    if self.opts.noflush && !is_builtin {
                        self.batch.flush_chain(f, table, name)?;
                    }
                    if !(self.opts.noflush && is_builtin) {
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
        match cmd {
            Command::Append { chain } => {
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                for s in rules {
                    let e = self.add_rule(line, table, chain, s, Position::Append)?;
                    self.state(table, chain).added(e, false);
                }
            }
            Command::Insert { chain, rulenum } => {
                if self.known_missing(table, chain) {
                    return Err(missing(chain));
                }
                let n = *rulenum as usize;
                if n > 1 {
                    self.load(line, table, chain)?;
                }
                for (k, s) in rules.iter().enumerate() {
                    let idx = n - 1 + k;
                    let known = self.state(table, chain).entries.clone();
                    let pos = match known.as_deref() {
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
                let spec = rules
                    .first()
                    .ok_or_else(|| input_err(line, "-R needs a rule"))?;
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
                st.pending_front.clear();
                st.pending_back.clear();
            }
            Command::Flush { chain: None } => {
                self.batch.flush_table(f, table)?;
                for ((t, _), st) in self.chains.iter_mut() {
                    if t == table {
                        st.entries = Some(Vec::new());
                        st.pending_front.clear();
                        st.pending_back.clear();
                    }
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
                    return Err(input_err(
                        line,
                        format!("cannot delete built-in chain {chain}"),
                    ));
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
                for ((t, c), st) in &self.chains {
                    if t == table
                        && st.exists == Some(true)
                        && Self::builtin(table, c).is_none()
                        && !names.contains(c)
                    {
                        names.push(c.clone());
                    }
                }
                for c in names {
                    if self.opts.noflush || self.state(table, &c).exists == Some(true) {
                        self.batch.del_chain(f, table, &c)?;
                        self.state(table, &c).exists = Some(false);
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
                        let st = self.chains.remove(&(table.to_owned(), old.clone())).unwrap_or_default();
                        self.chains.insert((table.to_owned(), new.clone()), st);
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
            }
            Command::Zero { chain, rulenum } => {
                let targets: Vec<String> = match chain {
                    Some(c) => vec![c.clone()],
                    None => self
                        .chains
                        .keys()
                        .filter(|(t, _)| t == table)
                        .map(|(_, c)| c.clone())
                        .collect(),
                };
                for c in targets {
                    self.load(line, table, &c)?;
                    let entries = self.entries(table, &c).clone();
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
    let blocks = parse_input(family, input, opts)?;
    const TRIES: u32 = 8;
    for attempt in 0..TRIES {
        let (existing, tables_gen) = if opts.noflush {
            (Vec::new(), None)
        } else {
            let (t, g) = list_tables(conn, Some(family.nft()))?;
            (t.into_iter().map(|t| t.name).collect::<Vec<_>>(), Some(g))
        };
        let capacity = input.len() * 3 + 4096;
        let mut p = Planner {
            conn: &mut *conn,
            family,
            opts,
            batch: Batch::with_capacity(capacity),
            lines: Vec::new(),
            chains: HashMap::new(),
            genid: tables_gen,
            rules_added: 0,
        };
        for b in &blocks {
            p.block(b, &existing)?;
        }
        let Planner {
            mut batch,
            lines,
            genid,
            rules_added,
            ..
        } = p;
        let report = RestoreReport {
            tables: blocks.iter().map(|b| b.table.clone()).collect(),
            ops: batch.len(),
            rules_added,
            batch_bytes: batch.wire_len(),
            retries: attempt,
        };
        if opts.test {
            return Ok(report);
        }
        batch.set_genid(genid);
        match batch.commit(conn) {
            Ok(_) => return Ok(report),
            Err(nft::Error::Conflict { .. }) => {
                std::thread::sleep(std::time::Duration::from_millis(
                    1 + (attempt as u64 * 7) % 13,
                ));
                continue;
            }
            Err(nft::Error::Rejected { failures }) => {
                let src: Vec<&str> = input.lines().collect();
                let out: Vec<String> = failures
                    .iter()
                    .map(|f| {
                        let line = lines.get(f.index).copied().unwrap_or(0);
                        let text = src
                            .get(line.wrapping_sub(1))
                            .map(|s| s.trim())
                            .unwrap_or("");
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
                let first_line = failures
                    .first()
                    .and_then(|f| lines.get(f.index).copied())
                    .unwrap_or(0);
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

    fn parse(s: &str) -> Result<Vec<Block>, RestoreError> {
        parse_input(IpFamily::V4, s, &RestoreOptions::default())
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
