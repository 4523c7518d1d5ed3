//! The rules of chains this handle has read, valid for one ruleset generation.
//!
//! Reading the generation id is one round trip whatever the size of the ruleset; as long as
//! it has not moved, a chain read before is served from here without a dump. A commit that
//! carried the cached generation moves it by exactly one, and the chains it touched are
//! updated from the plan, so a sequence of read-dependent operations by one handle on one
//! chain dumps that chain once.

use std::collections::HashMap;
use std::sync::Arc;

use iptnl_sys::nf_tables::{NFTA_RULE_CHAIN, NFTA_RULE_TABLE, NFT_MSG_GETRULE, NFT_MSG_NEWRULE};
use iptnl_sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

use super::error::{from_nft, Error};
use crate::ipt::{canonical_of_rule, IpFamily};
use crate::netlink::{Conn, DUMP_RETRIES};
use crate::nft::{Expr, Rule};

/// A (table, chain) pair.
pub(crate) type Key = (String, String);

/// Above this many cached rules, the cache starts over.
const MAX_RULES: usize = 1 << 20;

/// The rules of one chain as read (`None`: the chain does not exist).
pub(crate) type ChainRules = Option<Arc<Vec<Rule>>>;

/// Chains' rules at generation `genid`.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    pub(crate) genid: Option<u32>,
    pub(crate) memo: Memo,
    pub(crate) chains: HashMap<Key, ChainRules>,
}

impl Cache {
    pub(crate) fn clear(&mut self) {
        self.genid = None;
        self.chains.clear();
    }

    fn rules(&self) -> usize {
        self.chains
            .values()
            .map(|v| v.as_ref().map_or(0, |r| r.len()))
            .sum()
    }
}

/// Canonical forms of rules by their expressions (see [`crate::ipt::compare`]), per chain:
/// they depend only on what a rule is, so they outlive generations.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    map: HashMap<Key, HashMap<Vec<Expr>, Option<Vec<Expr>>>>,
    len: usize,
}

/// Above this many memoized rules, the memo starts over.
const MAX_MEMO: usize = 1 << 18;

impl Memo {
    /// Whether `rule` (of chain `k`) is, canonically, `want`.
    pub(crate) fn rule_is(
        &mut self,
        k: &Key,
        family: IpFamily,
        rule: &Rule,
        want: &[Expr],
    ) -> bool {
        if let Some(c) = self.map.get(k).and_then(|m| m.get(rule.exprs.as_slice())) {
            return c.as_deref() == Some(want);
        }
        let c = canonical_of_rule(rule, family);
        let eq = c.as_deref() == Some(want);
        if self.len >= MAX_MEMO {
            self.map.clear();
            self.len = 0;
        }
        self.len += 1;
        self.map
            .entry(k.clone())
            .or_default()
            .insert(rule.exprs.clone(), c);
        eq
    }
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
    for _ in 0..DUMP_RETRIES {
        let g = genid(conn)?;
        if cache.genid == Some(g) {
            if let Some(v) = cache.chains.get(&k) {
                return Ok((v.clone(), g));
            }
        } else {
            cache.chains.clear();
            cache.genid = Some(g);
        }
        let mut rules = Vec::new();
        let st = conn.dump(
            "listing the rules of a chain",
            nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
            family.nft().raw(),
            |w| {
                w.put_str(NFTA_RULE_TABLE, table);
                w.put_str(NFTA_RULE_CHAIN, chain);
            },
            |m| {
                if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                    rules.push(Rule::decode(m)?);
                }
                Ok(())
            },
        );
        let st = match st {
            Ok(st) => st,
            Err(e) if e.errno() == Some(libc::ENOENT) => {
                // The table (or chain) does not exist.
                if genid(conn)? == g {
                    cache.chains.insert(k, None);
                    return Ok((None, g));
                }
                continue;
            }
            Err(e) => return Err(from_nft(e.into(), "reading a chain")),
        };
        if st.interrupted || st.genid_low.is_some_and(|l| l != g as u16) {
            continue;
        }
        if rules.is_empty() {
            // A dump filtered on a chain that does not exist is empty, not an error.
            let present = crate::nft::get_chain(conn, family.nft(), table, chain)
                .map_err(|e| from_nft(e, "reading a chain"))?
                .is_some();
            if genid(conn)? != g {
                continue;
            }
            if !present {
                cache.chains.insert(k, None);
                return Ok((None, g));
            }
        }
        if cache.rules() + rules.len() > MAX_RULES {
            cache.chains.clear();
        }
        let v = Some(Arc::new(rules));
        cache.chains.insert(k, v.clone());
        return Ok((v, g));
    }
    Err(Error::Conflict {
        tries: DUMP_RETRIES,
    })
}
