//! From what the kernel holds to the operations that make it hold the declaration: reads at
//! one generation, then plans owned chains, hooks and stale chains.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::desired::{chain_watched, key_of, Desired, Hook, Key, TableDecl};
use super::diff::ordered_edit;
use super::owner::Owner;
use super::report::SyncReport;
use crate::ipt::decode::rule_comment;
use crate::ipt::RuleSpec;
use crate::iptables::cache;
use crate::iptables::cache::ChainList;
use crate::iptables::plan::{At, Op};
use crate::iptables::Position;
use crate::iptables::{Error, Inner, IpTables};
use crate::nft::Rule;

/// One table as read at one generation: its chains, and the rules of the chains a sync
/// looks at.
pub(super) struct TableNow {
    chains: Arc<ChainList>,
    rules: HashMap<String, Arc<Vec<Rule>>>,
}

/// Which chains of a table a sync reads: the owned ones, the built-in ones and those named
/// by hooks; a removal reads every chain (hooks may be anywhere).
fn chains_to_read(
    owner: &Owner,
    table: &str,
    chains: &ChainList,
    decl: Option<&TableDecl>,
    all: bool,
) -> Vec<String> {
    let mut out: Vec<String> = chains
        .names()
        .filter(|c| all || chain_watched(owner, table, decl, c))
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Reads the tables at one generation.
pub(super) fn read_state(
    ipt: &IpTables,
    desired: Option<&Desired>,
    owner: &Owner,
    tables: &[&str],
) -> Result<(HashMap<String, TableNow>, u32), Error> {
    let family = ipt.family;
    let mut g = ipt.lock();
    let Inner { conn, cache } = &mut *g;
    let mut retry = conn.dump_retry();
    'again: while retry.again() {
        let Some(at) = cache::sync(conn, cache, family)? else {
            continue;
        };
        let mut out = HashMap::new();
        for &table in tables {
            let decl = desired.and_then(|d| d.tables.get(table));
            let chains = cache::table_chains(conn, cache, family, table)?;
            let mut rules = HashMap::new();
            for name in chains_to_read(owner, table, &chains, decl, desired.is_none()) {
                let (r, gx) = cache::read_chain(conn, cache, family, table, &name)?;
                if gx != at {
                    continue 'again;
                }
                if let Some(r) = r {
                    rules.insert(name, r);
                }
            }
            out.insert(table.to_owned(), TableNow { chains, rules });
        }
        return Ok((out, at));
    }
    Err(Error::Conflict {
        tries: retry.tries(),
    })
}

/// Plans the operations that make `table` as declared (`decl`; `None`: nothing owned
/// there), appending to the four phases of the batch.
pub(super) struct Phases {
    pub(super) create: Vec<Op<'static>>,
    pub(super) fill: Vec<Op<'static>>,
    pub(super) hooks: Vec<Op<'static>>,
    pub(super) drop: Vec<Op<'static>>,
}

pub(super) fn plan_table(
    owner: &Owner,
    table: &str,
    decl: Option<&TableDecl>,
    now: &TableNow,
    ph: &mut Phases,
    rep: &mut SyncReport,
) {
    let empty = TableDecl::default();
    let decl = decl.unwrap_or(&empty);
    let present: HashSet<&str> = now.chains.names().filter(|c| owner.owns_chain(c)).collect();
    // Owned chains: created, or edited in place.
    for c in &decl.chains {
        if !present.contains(c.name.as_str()) {
            ph.create.push(Op::new_chain(table, &c.name));
            rep.chains_created.push(format!("{table}/{}", c.name));
            if !c.rules.is_empty() {
                ph.fill.push(Op::Add {
                    table: table.to_owned().into(),
                    chain: c.name.clone().into(),
                    specs: c
                        .rules
                        .iter()
                        .map(|d| d.spec.clone())
                        .collect::<Vec<_>>()
                        .into(),
                    at: At::Append,
                    unique: false,
                });
                rep.rules_added += c.rules.len();
            }
            continue;
        }
        let cur: Vec<Key> = now
            .rules
            .get(&c.name)
            .map(|v| v.iter().map(key_of).collect())
            .unwrap_or_default();
        let des: Vec<&Key> = c.rules.iter().map(|d| &d.key).collect();
        let cur_refs: Vec<&Key> = cur.iter().collect();
        let edit = ordered_edit(&cur_refs, &des);
        rep.rules_kept += cur.len() - edit.delete.len();
        edit_ops(
            table,
            &c.name,
            &edit.delete.iter().map(|&i| i + 1).collect::<Vec<_>>(),
            cur.len(),
            &edit
                .insert
                .iter()
                .map(|&j| (j, &c.rules[j].spec))
                .collect::<Vec<_>>(),
            &mut ph.fill,
        );
        rep.rules_deleted += edit.delete.len();
        rep.rules_added += edit.insert.len();
    }
    // Hooks, chain by chain: every chain read that is not owned.
    let mut hook_chains: Vec<&str> = now
        .rules
        .keys()
        .map(String::as_str)
        .filter(|c| !owner.owns_chain(c))
        .collect();
    for h in &decl.hooks {
        if !hook_chains.contains(&h.chain.as_str()) {
            hook_chains.push(&h.chain);
        }
    }
    hook_chains.sort_unstable();
    for chain in hook_chains {
        plan_hooks(owner, table, chain, decl, now, &mut ph.hooks, rep);
    }
    // Owned chains no longer declared.
    let mut stale: Vec<&str> = present
        .iter()
        .copied()
        .filter(|n| !decl.chains.iter().any(|c| c.name == *n))
        .collect();
    stale.sort_unstable();
    for n in stale {
        ph.drop.push(Op::delete_chain(table, n, true));
        rep.chains_deleted.push(format!("{table}/{n}"));
    }
}

/// Deletes the rules at 1-based positions `delete` (ascending) of a chain of `len` rules,
/// then inserts each `(final index, spec)` of `insert` (ascending) at its place.
fn edit_ops(
    table: &str,
    chain: &str,
    delete: &[usize],
    len: usize,
    insert: &[(usize, &RuleSpec)],
    out: &mut Vec<Op<'static>>,
) {
    for &n in delete.iter().rev() {
        out.push(Op::DeleteNumber {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            n: n as u32,
        });
    }
    // Each insertion lengthens the chain by one.
    for (len, &(j, spec)) in (len - delete.len()..).zip(insert) {
        let at = if j >= len {
            At::Append
        } else {
            At::Insert(j as u32 + 1)
        };
        out.push(Op::Add {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: vec![spec.clone()].into(),
            at,
            unique: false,
        });
    }
}

fn plan_hooks(
    owner: &Owner,
    table: &str,
    chain: &str,
    decl: &TableDecl,
    now: &TableNow,
    out: &mut Vec<Op<'static>>,
    rep: &mut SyncReport,
) {
    let rules: &[Rule] = now.rules.get(chain).map(|v| v.as_slice()).unwrap_or(&[]);
    // Others' rules, in order, with their comments; owned hooks with their gap (how many
    // rules of others stand before them) and 1-based position.
    let mut foreign: Vec<Option<String>> = Vec::new();
    let mut cur: Vec<(usize, Key)> = Vec::new();
    let mut cur_pos: Vec<usize> = Vec::new();
    for (i, r) in rules.iter().enumerate() {
        let c = rule_comment(r);
        if c.as_deref().is_some_and(|c| owner.owns_comment(c)) {
            cur.push((foreign.len(), key_of(r)));
            cur_pos.push(i + 1);
        } else {
            foreign.push(c);
        }
    }
    // The declared hooks of this chain with their gaps, in final order.
    let anchor = |text: &str| {
        foreign
            .iter()
            .position(|c| c.as_deref().is_some_and(|c| c.starts_with(text)))
    };
    let mut want: Vec<(usize, usize, &Hook)> = Vec::new(); // (gap, declaration order, hook)
    for (n, h) in decl
        .hooks
        .iter()
        .enumerate()
        .filter(|(_, h)| h.chain == chain)
    {
        let gap = match &h.at {
            Position::First => 0,
            Position::Last => foreign.len(),
            // Checked to be at least 1 when declared.
            Position::Number(n) => (*n as usize).saturating_sub(1).min(foreign.len()),
            Position::Before(t) | Position::After(t) => match anchor(t) {
                Some(j) => j + usize::from(matches!(h.at, Position::After(_))),
                None => {
                    rep.anchors_missing.push(format!("{table}/{chain}: {t}"));
                    foreign.len()
                }
            },
        };
        want.push((gap, n, h));
    }
    want.sort_by_key(|&(gap, n, _)| (gap, n));
    let des: Vec<(usize, &Key)> = want.iter().map(|(g, _, h)| (*g, &h.rule.key)).collect();
    let cur_refs: Vec<(usize, &Key)> = cur.iter().map(|(g, k)| (*g, k)).collect();
    let edit = ordered_edit(&cur_refs, &des);
    if edit.is_empty() {
        return;
    }
    // Final positions: others' rules with the declared hooks in their gaps.
    let mut final_index = Vec::with_capacity(want.len());
    let mut w = 0;
    let mut idx = 0;
    for gap in 0..=foreign.len() {
        while w < want.len() && want[w].0 == gap {
            final_index.push(idx);
            idx += 1;
            w += 1;
        }
        idx += 1; // others' rule number `gap`
    }
    let delete: Vec<usize> = edit.delete.iter().map(|&i| cur_pos[i]).collect();
    let insert: Vec<(usize, &RuleSpec)> = edit
        .insert
        .iter()
        .map(|&j| (final_index[j], &want[j].2.rule.spec))
        .collect();
    edit_ops(table, chain, &delete, rules.len(), &insert, out);
    rep.hooks_deleted += delete.len();
    rep.hooks_added += insert.len();
}
