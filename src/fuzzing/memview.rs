//! A ruleset held in memory that the planner reads as it reads the kernel, so that a restore
//! can be parsed and planned without one.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use iptnl_sys::nf_tables::NFT_MSG_NEWRULE;
use iptnl_sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

use crate::ipt::{canonical_of_rule_with, IpFamily, ReaderFloor, SetIndex};
use crate::iptables::cache::{ChainRules, Key};
use crate::iptables::plan::{RulesetView, TableClear};
use crate::iptables::restore::{
    plan_view, Head, RestoreError, RestoreOptions, RestoreReport, Source,
};
use crate::iptables::Error;
use crate::netlink::{DecodeError, DumpStatus, Message, Messages, MsgWriter};
use crate::nft::{BoundSet, Chain, Expr, Rule};

/// One table: its chains in the kernel's order, and the rules of each.
#[derive(Debug, Clone, Default)]
struct MemTable {
    chains: Vec<Chain>,
    rules: HashMap<String, Vec<Rule>>,
}

/// The tables of one family, at one generation, as a kernel would dump them.
///
/// ```
/// use iptnl::fuzzing::MemRuleset;
/// use iptnl::ipt::IpFamily;
/// use iptnl::nft::{Chain, Family, Rule};
/// let mut m = MemRuleset::new(IpFamily::V4, 1);
/// m.add_chain(Chain::user(Family::Ipv4, "filter", "X"));
/// // Handles are the kernel's: one counter for the table's chains and rules.
/// assert_eq!(m.add_rule(Rule::new(Family::Ipv4, "filter", "X")), Some(2));
/// assert_eq!(m.add_rule(Rule::new(Family::Ipv4, "filter", "Y")), None);
/// ```
#[derive(Debug, Clone)]
pub struct MemRuleset {
    family: IpFamily,
    genid: u32,
    tables: BTreeMap<String, MemTable>,
    next_handle: u64,
}

impl MemRuleset {
    /// No table, at generation `genid`.
    pub fn new(family: IpFamily, genid: u32) -> MemRuleset {
        MemRuleset {
            family,
            genid,
            tables: BTreeMap::new(),
            next_handle: 1,
        }
    }

    /// Adds `chain` (and its table) with a handle of its own; a chain of that name is
    /// replaced.
    pub fn add_chain(&mut self, mut chain: Chain) {
        chain.handle = Some(self.next_handle);
        self.next_handle += 1;
        let t = self.tables.entry(chain.table.clone()).or_default();
        t.chains.retain(|c| c.name != chain.name);
        t.rules.insert(chain.name.clone(), Vec::new());
        t.chains.push(chain);
    }

    /// Appends `rule` to its chain, as the kernel dumps it (a handle of its own, no
    /// placement or compat attributes); its handle, or `None` when the chain does not exist.
    pub fn add_rule(&mut self, mut rule: Rule) -> Option<u64> {
        let rules = self
            .tables
            .get_mut(&rule.table)?
            .rules
            .get_mut(&rule.chain)?;
        let h = self.next_handle;
        self.next_handle += 1;
        rule.handle = Some(h);
        rule.position = None;
        rule.compat = None;
        rule.bound_sets.clear();
        rules.push(rule);
        Some(h)
    }

    fn chain_of(&self, table: &str, chain: &str) -> Option<(&Chain, &Vec<Rule>)> {
        let t = self.tables.get(table)?;
        let c = t.chains.iter().find(|c| c.name == chain)?;
        Some((c, t.rules.get(chain)?))
    }
}

/// Parses and plans `input` as a restore would against `ruleset`, with the ipsets of `sets`
/// (without `--verbose`, whose output reads the kernel), and returns the batch it would commit, as netlink bytes,
/// with its report: each operation of the batch as its netlink message, in order.
pub fn plan_restore(
    ruleset: &MemRuleset,
    input: &str,
    opts: &RestoreOptions,
    sets: &dyn SetIndex,
) -> Result<(Vec<Vec<u8>>, RestoreReport), RestoreError> {
    let family = ruleset.family;
    let existing: Vec<(String, Option<u32>)> = ruleset
        .tables
        .iter()
        .map(|(name, t)| {
            let rules: usize = t.rules.values().map(Vec::len).sum();
            (name.clone(), u32::try_from(t.chains.len() + rules).ok())
        })
        .collect();
    let opts = RestoreOptions {
        verbose: false,
        ..opts.clone()
    };
    let mut view = MemView { ruleset, sets };
    let head = Head::quiet(
        &existing,
        (!opts.noflush).then_some(ruleset.genid),
        sets,
        opts.floor.unwrap_or(ReaderFloor::UNPINNED),
    );
    let (batch, _, report) = plan_view(&mut view, family, Source::Text(input), &opts, head, None)?;
    let ops = (0..batch.len())
        .filter_map(|i| batch.as_netlink().op_bytes(i).map(<[u8]>::to_vec))
        .collect();
    Ok((ops, report))
}

/// The planner's view of a [`MemRuleset`].
struct MemView<'a> {
    ruleset: &'a MemRuleset,
    sets: &'a dyn SetIndex,
}

impl RulesetView for MemView<'_> {
    fn chain_rules(
        &mut self,
        _family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<(ChainRules, u32), Error> {
        let rules = self
            .ruleset
            .chain_of(table, chain)
            .map(|(_, r)| Arc::new(r.clone()));
        Ok((rules, self.ruleset.genid))
    }

    fn chain(
        &mut self,
        _family: IpFamily,
        table: &str,
        chain: &str,
    ) -> Result<Option<Chain>, Error> {
        Ok(self.ruleset.chain_of(table, chain).map(|(c, _)| c.clone()))
    }

    fn chains(&mut self, _family: IpFamily, table: &str) -> Result<(Vec<Chain>, u32), Error> {
        let chains = self
            .ruleset
            .tables
            .get(table)
            .map(|t| t.chains.clone())
            .unwrap_or_default();
        Ok((chains, self.ruleset.genid))
    }

    fn each_rule(
        &mut self,
        family: IpFamily,
        table: &str,
        chain: &str,
        each: &mut dyn FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<Option<DumpStatus>, Error> {
        let Some((_, rules)) = self.ruleset.chain_of(table, chain) else {
            return Ok(None);
        };
        let mut w = MsgWriter::new();
        let ty = nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE);
        for r in rules {
            let m = w.begin(ty, 0, 0, family.nft().raw(), self.ruleset.genid as u16);
            r.encode(&mut w, r.handle, r.position, None, None);
            w.finish(m)
                .map_err(|e| Error::Invalid(format!("a rule too big to dump: {e}")))?;
        }
        for m in Messages::new(w.as_bytes()) {
            let m = m.map_err(|e| Error::Invalid(e.to_string()))?;
            each(&m).map_err(|e| Error::Invalid(e.to_string()))?;
        }
        Ok(Some(DumpStatus {
            interrupted: false,
            genid_low: Some(self.ruleset.genid as u16),
        }))
    }

    fn genid(&mut self) -> Result<u32, Error> {
        Ok(self.ruleset.genid)
    }

    fn tables(&mut self, _family: IpFamily) -> Result<(Vec<String>, u32), Error> {
        Ok((
            self.ruleset.tables.keys().cloned().collect(),
            self.ruleset.genid,
        ))
    }

    fn anonymous_sets(
        &mut self,
        _family: IpFamily,
        _table: &str,
    ) -> Result<HashMap<String, BoundSet>, Error> {
        Ok(HashMap::new())
    }

    fn table_clear(
        &mut self,
        _family: IpFamily,
        _table: &str,
    ) -> Result<Option<TableClear>, Error> {
        Ok(None)
    }

    fn sets(&self) -> &dyn SetIndex {
        self.sets
    }

    fn find_canonical(
        &mut self,
        _k: &Key,
        family: IpFamily,
        rules: &Arc<Vec<Rule>>,
        want: &[Expr],
    ) -> Vec<u64> {
        rules
            .iter()
            .filter(|r| {
                canonical_of_rule_with(r, family, self.sets).is_some_and(|c| c.as_slice() == want)
            })
            .filter_map(|r| r.handle)
            .collect()
    }
}
