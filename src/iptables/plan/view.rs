//! What the planner reads of the ruleset: the kernel (through the handle's cache) today; an
//! in-memory ruleset or a group commit's shared view implement the same trait.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use iptnl_sys::nf_tables::NFT_DATA_VERDICT;

use super::super::cache::{read_chain, sync, Cache, CanonIndex, ChainRules, Key};
use super::super::error::{from_nft, Error};
use super::super::ipset::KernelSets;
use crate::ipt::{IpFamily, SetIndex};
use crate::netlink::{Conn, DecodeError, DumpStatus, Message};
use crate::nft::{self, BoundSet, Chain, Expr, Rule};

/// How a table that a restore rebuilds is emptied first.
#[derive(Debug, Default)]
pub(crate) struct TableClear {
    /// Chains to flush, then delete.
    pub(crate) delete: Vec<String>,
    /// Chains to flush and keep (what stays jumps to them).
    pub(crate) keep: Vec<String>,
}

/// The ruleset as the planner reads it. Each read returns the generation it belongs to
/// where the plan depends on it.
pub(crate) trait RulesetView {
    /// The rules of a chain (`None`: the chain or its table does not exist).
    fn chain_rules(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<(ChainRules, u32), Error>;

    /// A chain as its canonical index alone (see [`CanonIndex`]), when that is what is kept
    /// of it and it serves alone; `None`: read its rules with
    /// [`chain_rules`](Self::chain_rules).
    fn chain_index(
        &mut self,
        _family: IpFamily,
        _table: &str,
        _chain: &str,
    ) -> Result<Option<(Arc<CanonIndex>, u32)>, Error> {
        Ok(None)
    }

    /// One chain, without its rules.
    fn chain(&mut self, family: IpFamily, table: &str, chain: &str)
        -> Result<Option<Chain>, Error>;

    /// Whether a built-in chain exists (read as [`chain`](Self::chain) reads it, unless the
    /// view knows).
    fn builtin_exists(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<bool, Error> {
        Ok(self.chain(family, table, chain)?.is_some())
    }

    /// The chains of a table (none when it does not exist).
    fn chains(&mut self, family: IpFamily, table: &str) -> Result<(Vec<Chain>, u32), Error>;

    /// The rules of one chain as the kernel sends them, each handed to `each` undecoded
    /// (`None`: the chain or its table does not exist).
    fn each_rule(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
        each: &mut dyn FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<Option<DumpStatus>, Error>;

    /// The generation of the ruleset now.
    fn genid(&mut self) -> Result<u32, Error>;

    /// The names of the family's tables.
    fn tables(&mut self, family: IpFamily) -> Result<(Vec<String>, u32), Error>;

    /// The anonymous sets of a table with their elements, by name.
    fn anonymous_sets(
        &mut self,
        family: IpFamily,
        table: &str,
    ) -> Result<HashMap<String, BoundSet>, Error>;

    /// How to empty `table` for a restore that rebuilds it: `None` when the table can be
    /// deleted whole; otherwise (it holds named sets, stateful objects, flowtables or base
    /// chains iptables-nft calls incompatible, which iptables cannot see and a restore must
    /// not lose) the chains iptables manages, to flush and delete, or to flush and keep when
    /// what stays jumps to them.
    fn table_clear(&mut self, family: IpFamily, table: &str) -> Result<Option<TableClear>, Error>;

    /// A reader of chains' rules on a connection of its own, for a helper thread that reads
    /// half of many chains while this view reads the other half (`None`: everything is read
    /// here). It reads the same ruleset: what it reads is checked by the same generation.
    fn second_reader(&self) -> Option<Box<dyn ChainReader>> {
        None
    }

    /// The ipsets rules may name (their indexes are resolved when a rule is encoded).
    fn sets(&self) -> &dyn SetIndex;

    /// The handles of the rules of `rules` (the rules of `k` as read) whose canonical form
    /// is `want`, in no particular order.
    fn find_canonical(
        &mut self,
        k: &Key,
        family: IpFamily,
        rules: &Arc<Vec<Rule>>,
        want: &[Expr],
    ) -> Vec<u64>;
}

/// Reads the rules of chains, undecoded, on a thread of its own (see
/// [`RulesetView::second_reader`]).
pub(crate) trait ChainReader: Send {
    /// The rules of one chain as the kernel sends them, each handed to `each` (`None`: the
    /// chain or its table does not exist).
    fn each_rule(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
        each: &mut dyn FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<Option<DumpStatus>, Error>;
}

impl ChainReader for Conn {
    fn each_rule(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
        each: &mut dyn FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<Option<DumpStatus>, Error> {
        nft::dump::each_rule_of_chain(self, family.nft(), table, chain, each)
            .map_err(|e| from_nft(e, "reading a chain's rules"))
    }
}

/// The kernel, read through a connection and the chains cached for it.
pub(crate) struct KernelView<'a> {
    pub(crate) conn: &'a mut Conn,
    pub(crate) cache: &'a mut Cache,
}

impl RulesetView for KernelView<'_> {
    fn chain_rules(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<(ChainRules, u32), Error> {
        read_chain(self.conn, self.cache, family, table, chain)
    }

    fn chain_index(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<Option<(Arc<CanonIndex>, u32)>, Error> {
        let k = (table.to_owned(), chain.to_owned());
        if !self.cache.has_index(&k) {
            return Ok(None);
        }
        let Some(g) = sync(self.conn, self.cache, family)? else {
            return Ok(None);
        };
        if self.cache.chains.contains_key(&k) {
            // Decoded (or known missing) at this generation: read as such.
            return Ok(None);
        }
        Ok(self.cache.compact(&k).map(|i| (i, g)))
    }

    fn chain(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<Option<Chain>, Error> {
        nft::get_chain(self.conn, family.nft(), table, chain)
            .map_err(|e| from_nft(e, "reading a chain"))
    }

    /// Not read again while the generation has not moved since the chain was seen, where
    /// the connection tells the generation without a request (an in-memory ruleset: the
    /// generation moves with every commit that changes anything, whoever makes it).
    fn builtin_exists(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<bool, Error> {
        let before = self.conn.peek_genid();
        if let Some(g) = before {
            if self.cache.builtins.holds(g, table, chain) {
                return Ok(true);
            }
        }
        let exists = self.chain(family, table, chain)?.is_some();
        if let Some(g) = before {
            if exists && self.conn.peek_genid() == Some(g) {
                self.cache.builtins.note(g, table, chain);
            }
        }
        Ok(exists)
    }

    fn chains(&mut self, family: IpFamily, table: &str) -> Result<(Vec<Chain>, u32), Error> {
        match nft::list_chains(self.conn, Some(family.nft()), Some(table)) {
            Ok(x) => Ok(x),
            Err(e) if e.errno() == Some(libc::ENOENT) => {
                let g = self
                    .conn
                    .genid()
                    .map_err(|e| from_nft(e.into(), "reading the ruleset generation"))?;
                Ok((Vec::new(), g))
            }
            Err(e) => Err(from_nft(e, "listing chains")),
        }
    }

    fn each_rule(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
        each: &mut dyn FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<Option<DumpStatus>, Error> {
        ChainReader::each_rule(&mut *self.conn, family, table, chain, each)
    }

    fn genid(&mut self) -> Result<u32, Error> {
        self.conn
            .genid()
            .map_err(|e| from_nft(e.into(), "reading the ruleset generation"))
    }

    fn tables(&mut self, family: IpFamily) -> Result<(Vec<String>, u32), Error> {
        let (t, g) = nft::list_tables(self.conn, Some(family.nft()))
            .map_err(|e| from_nft(e, "listing tables"))?;
        Ok((t.into_iter().map(|t| t.name).collect(), g))
    }

    fn anonymous_sets(
        &mut self,
        family: IpFamily,
        table: &str,
    ) -> Result<HashMap<String, BoundSet>, Error> {
        nft::anonymous_sets(self.conn, family.nft(), table)
            .map_err(|e| from_nft(e, "reading anonymous sets"))
    }

    fn table_clear(&mut self, family: IpFamily, table: &str) -> Result<Option<TableClear>, Error> {
        let f = family.nft();
        let err = |e| from_nft(e, "reading a table");
        let conn = &mut *self.conn;
        let (sets, _) = nft::list_sets(conn, Some(f), Some(table)).map_err(err)?;
        let mut keep = sets.iter().any(|s| !s.is_anonymous())
            || nft::table_objects(conn, f, table).map_err(err)? > 0;
        let (chains, _) = nft::list_chains(conn, Some(f), Some(table)).map_err(err)?;
        let foreign = |c: &Chain| crate::ipt::tables::is_foreign_base_chain(table, c);
        keep |= chains.iter().any(foreign);
        if !keep {
            return Ok(None);
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
            let (rules, _) =
                nft::list_rules(conn, Some(f), Some(table), Some(&c.name)).map_err(err)?;
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
            let (elems, _) = nft::list_set_elems(conn, f, table, &s.name).map_err(err)?;
            for e in &elems {
                if let Some(nft::Data::Verdict(v)) = &e.data {
                    note(v);
                }
            }
        }
        let mut out = TableClear::default();
        for c in chains.into_iter().filter(|c| !foreign(c)) {
            if used.contains(&c.name) {
                out.keep.push(c.name);
            } else {
                out.delete.push(c.name);
            }
        }
        Ok(Some(out))
    }

    fn second_reader(&self) -> Option<Box<dyn ChainReader>> {
        nft::dump::conn_in_same_netns(self.conn).map(|c| Box::new(c) as Box<dyn ChainReader>)
    }

    fn sets(&self) -> &dyn SetIndex {
        &KernelSets
    }

    fn find_canonical(
        &mut self,
        k: &Key,
        family: IpFamily,
        rules: &Arc<Vec<Rule>>,
        want: &[Expr],
    ) -> Vec<u64> {
        self.cache.find_canonical(k, family, rules, want)
    }
}
