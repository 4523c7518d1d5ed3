//! Which rules of the ruleset an iptables-nft release would read otherwise than the kernel
//! holds them (see [`crate::ipt::readers`]): for operators of nodes where several iptables
//! releases share one ruleset, before they upgrade or downgrade anything.

use std::collections::HashMap;

use super::ipset::KernelSets;
use super::{from_nft, Error, IpTables};
use crate::ipt::readers::{misreads, Misread};
use crate::ipt::tables::TABLES;
use crate::ipt::{decode_rule_or_raw_with, ReaderFloor};
use crate::nft::{list_chains_and_rules, Rule};

/// A rule some release reads otherwise, and where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct MisreadRule {
    /// Its table.
    pub table: String,
    /// Its chain.
    pub chain: String,
    /// Its number in the chain, from 1 (as `--line-numbers` counts).
    pub number: usize,
    /// Who reads it how (one entry per distinct reading).
    pub misreads: Vec<Misread>,
}

/// What [`IpTables::check_readers`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReadersReport {
    /// The rules read otherwise by some release, in table and chain order.
    pub rules: Vec<MisreadRule>,
    /// The rules looked at.
    pub checked: usize,
}

impl IpTables {
    /// The rules of the iptables tables (all of them, or `table`) that an iptables-nft
    /// release from `floor` on would read otherwise than the kernel holds them: what it
    /// shows in `-S` and a save, or compares in `-C` and `-D` (and would write back in a
    /// save and restore), with what the kernel holds, as iptnl shows it.
    ///
    /// ```no_run
    /// use iptnl::ipt::ReaderFloor;
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// for r in ipt.check_readers(ReaderFloor::V1_8_7, None)?.rules {
    ///     for m in &r.misreads {
    ///         println!("{} {} rule {}: {m}", r.table, r.chain, r.number);
    ///     }
    /// }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn check_readers(
        &self,
        floor: ReaderFloor,
        table: Option<&str>,
    ) -> Result<ReadersReport, Error> {
        let family = self.family;
        let mut report = ReadersReport::default();
        let mut g = self.lock();
        for t in TABLES.iter().filter(|t| table.is_none_or(|n| n == t.name)) {
            let (chains, rules, _) =
                list_chains_and_rules(&mut g.conn, Some(family.nft()), Some(t.name))
                    .map_err(|e| from_nft(e, "reading the ruleset"))?;
            let mut by_chain: HashMap<&str, Vec<&Rule>> = HashMap::new();
            for r in &rules {
                by_chain.entry(r.chain.as_str()).or_default().push(r);
            }
            for c in &chains {
                for (i, r) in by_chain
                    .remove(c.name.as_str())
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    report.checked += 1;
                    let spec = decode_rule_or_raw_with(r, family, &KernelSets);
                    let shown = spec.view.as_deref().unwrap_or(&spec);
                    let held = shown.to_save_line(&c.name, false);
                    let m = misreads(r, family, &c.name, &held, floor, &KernelSets);
                    if !m.is_empty() {
                        report.rules.push(MisreadRule {
                            table: t.name.to_owned(),
                            chain: c.name.clone(),
                            number: i + 1,
                            misreads: m,
                        });
                    }
                }
            }
        }
        Ok(report)
    }
}
