//! The read-only calls of [`IpTables`]: check, rules and listings (`-S`, `-L` stats),
//! chains, policies and save. Each reads what it needs at one generation, through the cache.

use std::sync::Arc;

use super::cache::{self, read_chain, ChainsOf, FollowStats};
use super::error::from_nft;
use super::ipset::KernelSets;
use super::listing::{Block, TableText};
use super::plan::builtin;
use super::{check_rulenum, format, save, spec_err, Error, Inner, IpTables, RuleArgs, What};
use crate::ipt::savefile::SaveOptions;
use crate::ipt::tables::find_table;
use crate::ipt::{decode_rule_or_raw_with, decode_rule_with, AddrMask, IpFamily, RuleSpec};
use crate::nft::{self, get_chain, Policy};

/// One rule of `iptables -L -n -v -x`, typed (go-iptables' `Stat`).
///
/// ```no_run
/// use iptnl::iptables::IpTables;
/// let ipt = IpTables::new(iptnl::ipt::IpFamily::V4)?;
/// for s in ipt.structured_stats("filter", "INPUT")? {
///     println!("{} packets, {} bytes -> {}", s.packets, s.bytes, s.target);
/// }
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// Packets counted.
    pub packets: u64,
    /// Bytes counted.
    pub bytes: u64,
    /// The target (`ACCEPT`, a chain, an extension), empty without one.
    pub target: String,
    /// The protocol number (`0` for all; `!6` when inverted).
    pub protocol: String,
    /// The fragment column: `--`, `-f` (`-f`) or `!f` (`! -f`); always `--` for IPv6, as
    /// ip6tables prints it.
    pub opt: String,
    /// The input interface, `*` for any (`!eth0` when inverted, `eth+` a prefix).
    pub input: String,
    /// The output interface, `*` for any (as `input`).
    pub output: String,
    /// The source network (`0.0.0.0/0` or `::/0` for any).
    pub source: AddrMask,
    /// `! -s`.
    pub source_inverted: bool,
    /// The destination network.
    pub destination: AddrMask,
    /// `! -d`.
    pub destination_inverted: bool,
    /// Matches and target options in iptables' `-L` words (`tcp dpt:80 /* web */`), blanks
    /// collapsed as go-iptables reads them.
    pub options: String,
}

/// The chains of `table` in the order iptables lists them: every built-in chain of an
/// iptables table (created yet or not), then the user chains sorted by name. A table that is
/// not an iptables table and does not exist is [`Error::NotFound`].
fn chain_names<'a, C: ChainsOf + ?Sized>(
    table: &str,
    chains: &'a C,
) -> Result<Vec<&'a str>, Error> {
    Ok(chain_order(table, chains)?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// The chains of a listing in iptables' order (see [`chain_names`]), each with its index in
/// `chains` (`None`: a built-in chain the table does not have yet).
fn chain_order<'a, C: ChainsOf + ?Sized>(
    table: &str,
    chains: &'a C,
) -> Result<Vec<(&'a str, Option<usize>)>, Error> {
    let spec = find_table(table);
    if spec.is_none() && chains.count() == 0 {
        return Err(Error::NotFound {
            what: What::Table,
            table: table.into(),
            chain: String::new(),
            message: format!("table {table} does not exist"),
        });
    }
    let mut order: Vec<(&str, Option<usize>)> = spec
        .map(|t| {
            t.chains
                .iter()
                .map(|b| {
                    let at = (0..chains.count()).find(|&i| chains.name_of(i) == b.name);
                    (b.name, at)
                })
                .collect()
        })
        .unwrap_or_default();
    let mut user: Vec<usize> = (0..chains.count())
        .filter(|&i| !chains.is_base(i))
        .collect();
    user.sort_unstable_by(|&a, &b| chains.name_of(a).cmp(chains.name_of(b)));
    order.extend(user.into_iter().map(|i| (chains.name_of(i), Some(i))));
    Ok(order)
}

/// A table as `iptables -S` prints it, in blocks: the chain lines (with policies, and
/// counters when asked), then each chain's rule lines from `body` (given the chain's index in
/// `chains`), chains in iptables' order.
/// Blocks, so that a cached chain's lines are shared, not copied, while the handle is locked.
fn table_listing(
    table: &str,
    chains: &[nft::Chain],
    counters: bool,
    body: impl FnMut(usize) -> Option<Arc<Block>>,
) -> Result<TableText, Error> {
    let (head, order) = listing_head(table, chains, counters)?;
    Ok(listing_of(Arc::new(head), &order, body))
}

/// The chain lines of a listing of `table` and its chain order (see [`chain_order`]).
fn listing_head<C: ChainsOf + ?Sized>(
    table: &str,
    chains: &C,
    counters: bool,
) -> Result<(Block, Vec<Option<usize>>), Error> {
    let order = chain_order(table, chains)?;
    let head = chain_lines(table, &order, chains, counters);
    Ok((head, order.into_iter().map(|(_, i)| i).collect()))
}

/// A listing: `head`, then the rule lines of each chain of `order` from `body`.
fn listing_of(
    head: Arc<Block>,
    order: &[Option<usize>],
    body: impl FnMut(usize) -> Option<Arc<Block>>,
) -> TableText {
    let mut blocks = Vec::with_capacity(order.len() + 1);
    blocks.push(head);
    blocks.extend(order.iter().filter_map(|&i| i).filter_map(body));
    TableText::new(blocks)
}

/// A table's first listing in a handle (see [`Cache::listed`](cache::Cache)): its chains,
/// then their rules chain by chain, each chain's lines rendered as it is read (half of the
/// chains on a second connection, as a save reads them), consistent with one generation.
/// Only the text is kept: a one-shot `iptables -S` of a 200k-rule table holds its 31 MB of
/// text and one chain's rules at a time, not every rule decoded.
fn list_table_streamed(
    conn: &mut crate::netlink::Conn,
    family: IpFamily,
    table: &str,
) -> Result<TableText, Error> {
    let mut heads = None;
    let mut missing = None;
    let (text, _) = nft::dump_rules_by_chain(
        conn,
        family.nft(),
        table,
        |chains| {
            let order = match chain_order(table, chains) {
                Ok(o) => o,
                Err(e) => {
                    missing = Some(e);
                    heads = None;
                    return Vec::new();
                }
            };
            missing = None;
            heads = Some(chain_lines(table, &order, chains, false));
            nft::chain_positions(chains, order.iter().map(|&(name, _)| name))
        },
        |chain, rules, out| {
            for r in rules {
                let spec = decode_rule_or_raw_with(r, family, &KernelSets);
                out.push_str(&format::rule_line(&spec, &chain.name, false));
                out.push('\n');
            }
        },
    )
    .map_err(|e| from_nft(e, "listing a table"))?;
    if let Some(e) = missing {
        return Err(e);
    }
    Ok(TableText::new(vec![
        Arc::new(heads.unwrap_or_default()),
        Arc::new(Block::from_text(text)),
    ]))
}

/// The chain lines of a listing (`-P` with the policy of each built-in chain, `-N` of each
/// user chain) of the chains of `order` (see [`chain_order`]), in that order.
fn chain_lines<C: ChainsOf + ?Sized>(
    table: &str,
    order: &[(&str, Option<usize>)],
    chains: &C,
    counters: bool,
) -> Block {
    Block::new(order.iter().map(|&(name, i)| {
        let ch = builtin(table, name).map(|_| i.and_then(|i| chains.whole(i)));
        format::chain_line(name, ch.is_some(), ch.flatten().as_deref(), counters)
    }))
}

/// How a listing turns kernel rules into specs; a rule iptables cannot express is carried
/// whole either way, so that every rule keeps its kernel position.
#[derive(Debug, Clone, Copy)]
enum Decode {
    /// For text that is read back (`-S`, save): the iptables form only where writing it
    /// again gives the same rule ([`decode_rule_exact`](crate::ipt::decode_rule_exact)).
    Exact,
    /// For people (`-L`, stats): the iptables form wherever one exists.
    Shown,
}

impl Decode {
    fn spec(self, r: &nft::Rule, family: IpFamily) -> RuleSpec {
        match self {
            Decode::Exact => decode_rule_or_raw_with(r, family, &KernelSets),
            Decode::Shown => decode_rule_with(r, family, &KernelSets)
                .unwrap_or_else(|_| crate::ipt::decode::raw_spec(r, family)),
        }
    }
}

impl IpTables {
    /// Whether the rule is in the chain (`iptables -C`). A missing rule, and a missing chain,
    /// give `Ok(false)`, as go-iptables' `Exists` does with iptables-nft.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// if !ipt.exists("filter", "INPUT", &["-j", "ACCEPT"])? { println!("not there"); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn exists(&self, table: &str, chain: &str, spec: impl RuleArgs) -> Result<bool, Error> {
        let specs = self.specs(&spec)?;
        let canonical = |s| {
            crate::ipt::canonical_exprs_with(s, table, chain, &KernelSets)
                .map_err(|e| Error::Invalid(e.0))
        };
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        let k = (table.to_owned(), chain.to_owned());
        // A chain whose canonical index is kept is answered from it (its rules may not be
        // kept decoded); a handle that keeps none reads nothing more than before.
        if cache.has_index(&k) && cache::sync(conn, cache, self.family)?.is_some() {
            let wants: Result<Vec<_>, _> = specs.iter().map(canonical).collect();
            if let Some(found) = wants.ok().and_then(|w| cache.indexed_holds_all(&k, &w)) {
                return Ok(found);
            }
        }
        let (rules, _) = read_chain(conn, cache, self.family, table, chain)?;
        let Some(rules) = rules else { return Ok(false) };
        for s in &specs {
            let want = canonical(s)?;
            if cache
                .find_canonical(&k, self.family, &rules, &want)
                .is_empty()
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Same as [`exists`](Self::exists) (the name of `iptables -C`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let _ = ipt.check("filter", "INPUT", "-j ACCEPT")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn check(&self, table: &str, chain: &str, spec: impl RuleArgs) -> Result<bool, Error> {
        self.exists(table, chain, spec)
    }

    /// The rules of a chain as specs, every rule in its kernel position: a rule iptables cannot
    /// express is a spec carrying it whole (see [`crate::ipt::raw`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// for r in ipt.rules("filter", "INPUT")? { println!("{}", r.to_save_args()); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn rules(&self, table: &str, chain: &str) -> Result<Vec<RuleSpec>, Error> {
        let (_, rules) = self.read_listing(table, chain, false, Decode::Shown)?;
        Ok(rules)
    }

    /// The chain's rules as specs (and the chain itself when it is built-in), every rule
    /// in its kernel position (see [`Decode`]). With `counters` the rules are read again even
    /// when the generation has not moved: packet and byte counters change without a new
    /// generation.
    fn read_listing(
        &self,
        table: &str,
        chain: &str,
        counters: bool,
        how: Decode,
    ) -> Result<(Option<nft::Chain>, Vec<RuleSpec>), Error> {
        let (ch, rules) = self.read_chain_rules(table, chain, counters)?;
        let specs = rules
            .iter()
            .flat_map(|v| v.iter())
            .map(|r| how.spec(r, self.family))
            .collect();
        Ok((ch, specs))
    }

    /// The chain's rules as read (with counters: read again, not from the cache), and the
    /// chain itself when it is built in.
    fn read_chain_rules(
        &self,
        table: &str,
        chain: &str,
        counters: bool,
    ) -> Result<(Option<nft::Chain>, cache::ChainRules), Error> {
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        if counters {
            cache.forget(&(table.to_owned(), chain.to_owned()));
        }
        let (rules, _) = read_chain(conn, cache, self.family, table, chain)?;
        let is_builtin = builtin(table, chain).is_some();
        if rules.is_none() && !is_builtin {
            return Err(Error::chain_missing(table, chain));
        }
        let ch = if is_builtin {
            get_chain(conn, self.family.nft(), table, chain)
                .map_err(|e| from_nft(e, "reading a chain"))?
        } else {
            None
        };
        Ok((ch, rules))
    }

    fn list_impl(&self, table: &str, chain: &str, counters: bool) -> Result<Vec<String>, Error> {
        if !counters {
            if let Some(lines) = self.kept_lines(table, chain)? {
                return Ok(lines);
            }
        }
        let (ch, rules) = self.read_chain_rules(table, chain, counters)?;
        let is_builtin = builtin(table, chain).is_some();
        let rules = rules.as_deref().map_or(&[][..], Vec::as_slice);
        let mut out = Vec::with_capacity(rules.len() + 1);
        out.push(format::chain_line(chain, is_builtin, ch.as_ref(), counters));
        // Each rule decoded and printed in turn: a long chain's decoded rules are never all
        // held at once.
        out.extend(
            rules
                .iter()
                .map(|r| format::rule_line(&Decode::Exact.spec(r, self.family), chain, counters)),
        );
        Ok(out)
    }

    /// The chain as `iptables -S CHAIN` prints it from the lines the cache keeps of it (a
    /// listing of its table made them), when it keeps them at the current generation: no
    /// rule is read or decoded.
    fn kept_lines(&self, table: &str, chain: &str) -> Result<Option<Vec<String>>, Error> {
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        // (A handle that keeps no lines of the table reads nothing more than before.)
        if !cache.lines.holds_table(table) || cache::sync(conn, cache, self.family)?.is_none() {
            return Ok(None);
        }
        let Some(block) = cache.lines.get(table, chain).cloned() else {
            return Ok(None);
        };
        let is_builtin = builtin(table, chain).is_some();
        let ch = if is_builtin {
            get_chain(conn, self.family.nft(), table, chain)
                .map_err(|e| from_nft(e, "reading a chain"))?
        } else {
            None
        };
        drop(g);
        let mut out = Vec::with_capacity(block.lines() + 1);
        out.push(format::chain_line(chain, is_builtin, ch.as_ref(), false));
        out.extend(block.text_lines().map(str::to_owned));
        Ok(Some(out))
    }

    /// The chain as `iptables -S CHAIN` prints it: `-P CHAIN POLICY` (built-in) or
    /// `-N CHAIN` (user), then one `-A` line per rule. A missing user chain is
    /// [`Error::NotFound`]; a built-in chain not created yet lists as `-P CHAIN ACCEPT`.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// for line in ipt.list("filter", "INPUT")? { println!("{line}"); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list(&self, table: &str, chain: &str) -> Result<Vec<String>, Error> {
        self.list_impl(table, chain, false)
    }

    /// As [`list`](Self::list) with counters, as `iptables -v -S CHAIN` prints them:
    /// `-P INPUT ACCEPT -c 0 0`, `-A INPUT -s 1.2.3.4/32 -c 5 300 -j ACCEPT`.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let lines = ipt.list_with_counters("filter", "INPUT")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list_with_counters(&self, table: &str, chain: &str) -> Result<Vec<String>, Error> {
        self.list_impl(table, chain, true)
    }

    /// Rule number `n` as `iptables -S CHAIN n` prints it (go-iptables' `ListById`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// println!("{}", ipt.list_by_number("filter", "INPUT", 1)?);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list_by_number(&self, table: &str, chain: &str, n: u32) -> Result<String, Error> {
        check_rulenum(n)?;
        let (_, rules) = self.read_listing(table, chain, false, Decode::Exact)?;
        match rules.get(n as usize - 1) {
            Some(r) => Ok(format::rule_line(r, chain, false)),
            None => Err(Error::rule_missing(
                table,
                chain,
                &format!("no rule number {n}"),
            )),
        }
    }

    /// The whole table as `iptables -S` (`-t table`) prints it: `-P` for every built-in
    /// chain, `-N` for user chains (sorted), then the rules chain by chain.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// print!("{}", ipt.list_table("nat")?.join("\n"));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list_table(&self, table: &str) -> Result<Vec<String>, Error> {
        let text = self.list_table_impl(table, false)?;
        Ok(text.lines().map(str::to_owned).collect())
    }

    /// [`list_table`](Self::list_table) as one text, each line ended by a newline, as
    /// `iptables -S` prints it. Cheaper than joining `list_table`'s lines: a table that
    /// the handle holds at the current generation costs one copy of its text, made without
    /// holding the handle (other threads' calls go on meanwhile).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// print!("{}", ipt.list_table_text("nat")?);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list_table_text(&self, table: &str) -> Result<String, Error> {
        Ok(self.list_table_impl(table, false)?.to_string())
    }

    /// [`list_table_text`](Self::list_table_text) without the copy: the text shares the
    /// handle's cached lines, to be written out as it is (see [`TableText::write_to`]). A
    /// server answering many listings of a big table at once writes each from the same
    /// blocks.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.list_table_shared("nat")?.write_to(&mut std::io::stdout().lock())?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_table_shared(&self, table: &str) -> Result<TableText, Error> {
        self.list_table_impl(table, false)
    }

    /// [`list_table`](Self::list_table) with packet and byte counters, as `iptables -S -v`
    /// prints them (`-c PACKETS BYTES`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// print!("{}", ipt.list_table_with_counters("filter")?.join("\n"));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list_table_with_counters(&self, table: &str) -> Result<Vec<String>, Error> {
        let text = self.list_table_impl(table, true)?;
        Ok(text.lines().map(str::to_owned).collect())
    }

    /// One consistent read of the whole table (its chains, then its rules: in one dump when
    /// the table is small, chain by chain otherwise), printed as `iptables -S` does, in
    /// blocks (see [`table_listing`]).
    fn list_table_impl(&self, table: &str, counters: bool) -> Result<TableText, Error> {
        let family = self.family;
        let render = |name: &str, rules: &[nft::Rule]| -> Vec<String> {
            rules
                .iter()
                .map(|r| {
                    let spec = decode_rule_or_raw_with(r, family, &KernelSets);
                    format::rule_line(&spec, name, counters)
                })
                .collect()
        };
        let mut g = self.lock();
        if counters {
            // Counters move with traffic, not with the generation: always read.
            let (chains, all, _) = crate::nft::list_chains_and_rules(
                &mut g.conn,
                Some(self.family.nft()),
                Some(table),
            )
            .map_err(|e| from_nft(e, "listing a table"))?;
            drop(g);
            let mut by_chain: std::collections::HashMap<String, Vec<nft::Rule>> =
                std::collections::HashMap::new();
            for r in all {
                by_chain.entry(r.chain.clone()).or_default().push(r);
            }
            return table_listing(table, &chains, counters, |i| {
                let name = chains[i].name.as_str();
                by_chain
                    .get(name)
                    .map(|v| Arc::new(Block::new(render(name, v))))
            });
        }
        // The last listing while the generation has not moved; else from the cache when the
        // handle holds the table at the current generation (it updates what it changes
        // itself), each chain rendered once per version.
        let Inner { conn, cache } = &mut *g;
        let at = cache::sync(conn, cache, family)?;
        if let Some(l) = at.and_then(|at| cache.listing(table, at)) {
            return Ok(l);
        }
        // A handle that follows the kernel's events (a server's) lists again for sure: its
        // first listing goes to the cache at once.
        if !cache.follow && cache.listed.first(table.to_owned()) {
            return list_table_streamed(conn, family, table);
        }
        let volatile = cache.volatile_rendered;
        let t = cache::read_lines(conn, cache, family, table, &render)?;
        // Only listings without counters come here: their chain lines depend on the chain
        // list alone.
        let (head, order) = cache.listing_head(table, &t.chains, || {
            listing_head(table, &*t.chains, counters).map(|(h, o)| (Arc::new(h), o))
        })?;
        let text = listing_of(head, &order, |i| t.blocks.get(i).cloned());
        if cache.volatile_rendered == volatile {
            cache.keep_listing(table, t.genid, text.clone());
        }
        Ok(text)
    }

    /// What following the kernel's events (see
    /// [`set_follow_events`](Self::set_follow_events)) did so far: commits replayed, chains
    /// edited or forgotten, renames followed, commits waited for, and the times events
    /// were lost and everything was read again.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_follow_events(true);
    /// ipt.list_table("filter")?;
    /// assert_eq!(ipt.follow_stats().lost, 0);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn follow_stats(&self) -> FollowStats {
        self.lock().cache.stats
    }

    /// The chains of a table, as go-iptables' `ListChains` reads them from `iptables -S`:
    /// every built-in chain of an iptables table (whether created yet or not), then user
    /// chains sorted by name. A table that is not an iptables table and does not exist is
    /// [`Error::NotFound`].
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.list_chains("filter")?.contains(&"INPUT".to_string()));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn list_chains(&self, table: &str) -> Result<Vec<String>, Error> {
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        let chains = cache::table_chains(conn, cache, self.family, table)?;
        Ok(chain_names(table, &*chains)?
            .into_iter()
            .map(str::to_owned)
            .collect())
    }

    /// The base chains of `table` that iptables cannot express (another hook, priority or
    /// type than its built-in chains, e.g. made by `nft`), sorted by name. iptables' own
    /// listings leave them out; `iptables -L` shows them after the others, and a restore
    /// keeps them as they are.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// for c in ipt.foreign_base_chains("filter")? { println!("{}", c.name); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn foreign_base_chains(&self, table: &str) -> Result<Vec<nft::Chain>, Error> {
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        let chains = cache::table_chains(conn, cache, self.family, table)?;
        let mut out: Vec<nft::Chain> = (0..chains.len())
            .filter(|&i| chains.is_base(i))
            .map(|i| chains.chain(i))
            .filter(|c| crate::ipt::tables::is_foreign_base_chain(table, c))
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The kernel's `use` count of each chain of `table` (only of `chain` when given): the
    /// rules that jump or go to it plus, on current kernels, its own rules; `iptables -L`
    /// prints the first part as `(N references)`, the count less the chain's rules. Read from
    /// the kernel each time (a rule added changes the count, and no chain event says so).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let refs = ipt.chain_references("nat", Some("KUBE-SERVICES"))?;
    /// println!("{:?}", refs.get("KUBE-SERVICES"));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn chain_references(
        &self,
        table: &str,
        chain: Option<&str>,
    ) -> Result<std::collections::HashMap<String, u32>, Error> {
        let mut g = self.lock();
        let chains = match chain {
            Some(c) => get_chain(&mut g.conn, self.family.nft(), table, c)
                .map_err(|e| from_nft(e, "reading a chain"))?
                .into_iter()
                .collect(),
            None => match nft::list_chains(&mut g.conn, Some(self.family.nft()), Some(table)) {
                Ok((c, _)) => c,
                Err(e) if e.errno() == Some(libc::ENOENT) => Vec::new(),
                Err(e) => return Err(from_nft(e, "listing chains")),
            },
        };
        Ok(chains
            .into_iter()
            .map(|c| (c.name, c.use_count.unwrap_or(0)))
            .collect())
    }

    /// The rules of every chain of `table`, decoded as [`rules`](Self::rules) decodes them,
    /// from one consistent read of the table (chain by chain from the cache where it holds
    /// them): what `iptables -L` lists.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// for (chain, rules) in ipt.table_rules("filter")? { println!("{chain}: {}", rules.len()); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn table_rules(
        &self,
        table: &str,
    ) -> Result<std::collections::HashMap<String, Vec<RuleSpec>>, Error> {
        let mut g = self.lock();
        let Inner { conn, cache } = &mut *g;
        let t = cache::read_table(conn, cache, self.family, table)?;
        drop(g);
        Ok(t.chains
            .iter()
            .zip(&t.rules)
            .map(|(c, rules)| {
                let specs = rules
                    .iter()
                    .map(|r| Decode::Shown.spec(r, self.family))
                    .collect();
                (c.name.clone(), specs)
            })
            .collect())
    }

    /// Whether the chain exists. Built-in chains of iptables tables always exist, as
    /// `iptables -L CHAIN` (go-iptables' `ChainExists`) says; this reads one chain, no dump.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// if !ipt.chain_exists("filter", "MYCHAIN")? { ipt.new_chain("filter", "MYCHAIN")?; }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn chain_exists(&self, table: &str, chain: &str) -> Result<bool, Error> {
        if builtin(table, chain).is_some() {
            return Ok(true);
        }
        let mut g = self.lock();
        Ok(get_chain(&mut g.conn, self.family.nft(), table, chain)
            .map_err(|e| from_nft(e, "reading a chain"))?
            .is_some())
    }

    /// The rules of a chain as the fields of `iptables -L CHAIN -n -v -x` (go-iptables'
    /// `Stats`): pkts, bytes, target, prot, opt, in, out, source, destination, options. The
    /// options column is in iptables' `-L` words (`tcp dpt:80`), as `iptables -L -n -v -x`
    /// prints it. Every field is iptables' own text: a host address is `10.0.0.1`, not
    /// `10.0.0.1/32` (some wrappers of `iptables -L` add the prefix length);
    /// [`structured_stats`](Self::structured_stats) gives the addresses as networks.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// for row in ipt.stats("filter", "INPUT")? { println!("{}", row.join(" ")); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn stats(&self, table: &str, chain: &str) -> Result<Vec<Vec<String>>, Error> {
        let (_, rules) = self.read_listing(table, chain, true, Decode::Shown)?;
        Ok(rules.iter().map(format::stats_row).collect())
    }

    /// [`stats`](Self::stats), typed.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let total: u64 = ipt.structured_stats("filter", "INPUT")?.iter().map(|s| s.bytes).sum();
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn structured_stats(&self, table: &str, chain: &str) -> Result<Vec<Stat>, Error> {
        let (_, rules) = self.read_listing(table, chain, true, Decode::Shown)?;
        let any = match self.family {
            IpFamily::V4 => AddrMask::parse(IpFamily::V4, "0.0.0.0/0", "-s"),
            IpFamily::V6 => AddrMask::parse(IpFamily::V6, "::/0", "-s"),
        }
        .map_err(spec_err)?[0];
        Ok(rules
            .iter()
            .map(|r| {
                let [_, _, target, protocol, opt, input, output, _, _, options] =
                    <[String; 10]>::try_from(format::stats_row(r)).unwrap_or_default();
                let (packets, bytes) = r.counters.unwrap_or((0, 0));
                Stat {
                    packets,
                    bytes,
                    target,
                    protocol,
                    opt,
                    input,
                    output,
                    source: r.src.as_ref().map_or(any, |a| a.addr),
                    source_inverted: r.src.as_ref().is_some_and(|a| a.inv),
                    destination: r.dst.as_ref().map_or(any, |a| a.addr),
                    destination_inverted: r.dst.as_ref().is_some_and(|a| a.inv),
                    options,
                }
            })
            .collect())
    }

    /// The policy of a built-in chain (ACCEPT when it is not created yet).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// println!("{}", ipt.get_policy("filter", "INPUT")?);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn get_policy(&self, table: &str, chain: &str) -> Result<Policy, Error> {
        if builtin(table, chain).is_none() {
            return Err(Error::Invalid(format!(
                "{chain} is not a built-in chain of table {table}"
            )));
        }
        let mut g = self.lock();
        Ok(get_chain(&mut g.conn, self.family.nft(), table, chain)
            .map_err(|e| from_nft(e, "reading a chain"))?
            .and_then(|c| c.hook.and_then(|h| h.policy))
            .unwrap_or(Policy::Accept))
    }

    /// The ruleset in `iptables-save` format, as `iptables-nft-save` prints it (one table or
    /// all, with or without counters).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// print!("{}", ipt.save(Some("nat"), false)?);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn save(&self, table: Option<&str>, counters: bool) -> Result<String, Error> {
        let floor = self.reader_floor();
        let mut g = self.lock();
        let opts = SaveOptions {
            counters,
            table: table.map(str::to_owned),
            floor: Some(floor),
        };
        Ok(save::save(&mut g.conn, self.family, &opts)?)
    }
}
