//! The jump graph of a table: the kernel's loop check when a jump is added (`ELOOP`), and
//! its validation of what base chains reach (`EMLINK` past 16 nested jumps; x_tables
//! extensions reached from a hook or chain type they are not allowed in, `EINVAL`).
//!
//! The kernel validates the whole table at each commit; this model checks only what the
//! batch's new rules change (the paths through them), which gives the same answer when the
//! ruleset was valid before the batch, as every committed ruleset is.

use std::collections::HashMap;

use super::exprs::Facts;
use super::state::{ChainId, ChainType, Nft, Table, TableId};
use super::xt::{self, XtExt};
use crate::netlink::MsgWriter;
use crate::nft::expr::Immediate;
use crate::nft::{Expr, Verdict};

/// The kernel's `NFT_JUMP_STACK_SIZE`: chains nested deeper are refused.
const JUMP_STACK: u32 = 16;

/// Whether `from` can be reached from `target` through the jumps and gotos of any rule of
/// the table, deleted by the batch or not (the kernel's `nf_tables_check_loops` walks every
/// rule in the lists): adding a jump from `from` to `target` would make a loop.
pub(crate) fn loops(table: &Table, target: ChainId, from: ChainId) -> bool {
    if target == from {
        return true;
    }
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![target];
    seen.insert(target);
    while let Some(x) = stack.pop() {
        let Some(ch) = table.chains.get(x).and_then(Option::as_ref) else {
            continue;
        };
        for r in &ch.rules {
            for &j in r.jumps.iter() {
                if j == from {
                    return true;
                }
                if seen.insert(j) {
                    stack.push(j);
                }
            }
        }
    }
    false
}

/// What a chain's subtree (the chain and every chain it reaches) asks of the base chains
/// that reach it.
#[derive(Debug, Clone)]
struct Needs {
    /// The longest run of jumps below the chain.
    height: u32,
    /// Hooks every restricted x_tables extension of the subtree allows.
    hooks: u32,
    /// An extension of the subtree is for the nat table: base chains must be of type nat.
    nat: bool,
    /// Extensions whose check reads the hook, with their infos.
    special: Vec<(&'static XtExt, Box<[u8]>)>,
}

impl Needs {
    fn none() -> Needs {
        Needs {
            height: 0,
            hooks: u32::MAX,
            nat: false,
            special: Vec::new(),
        }
    }

    fn add_expr(&mut self, facts: &Facts, v6: bool) {
        if let Facts::Xt {
            target,
            name,
            rev,
            info,
        } = facts
        {
            if let Some(e) = xt::find(name, *target, *rev, v6) {
                if e.hooks != 0 {
                    self.hooks &= e.hooks;
                }
                if e.table == Some("nat") {
                    self.nat = true;
                }
                if e.hook_check.is_some() && self.special.len() < 64 {
                    self.special.push((e, info.clone()));
                }
            }
        }
    }

    fn merge(&mut self, other: &Needs) {
        self.height = self.height.max(other.height.saturating_add(1));
        self.hooks &= other.hooks;
        self.nat |= other.nat;
        for s in &other.special {
            if self.special.len() < 64 {
                self.special.push(s.clone());
            }
        }
    }

    /// The kernel's answer for a base chain hooked at `hook` of type `ty`, `depth` jumps
    /// above the chain these needs are of.
    fn check(&self, hook: u32, ty: ChainType, depth: u32) -> Result<(), i32> {
        if depth.saturating_add(self.height) >= JUMP_STACK {
            return Err(libc::EMLINK);
        }
        if self.hooks & (1 << hook) == 0 || (self.nat && ty != ChainType::Nat) {
            return Err(libc::EINVAL);
        }
        for (e, info) in &self.special {
            if let Some(f) = e.hook_check {
                if !f(info, 1 << hook) {
                    return Err(libc::EINVAL);
                }
            }
        }
        Ok(())
    }
}

/// One validation pass over a table: what subtrees need and which base chains reach which
/// chains, worked out once per chain.
pub(crate) struct Validator<'a> {
    table: &'a Table,
    nft: &'a Nft,
    v6: bool,
    needs: HashMap<ChainId, Needs>,
    /// For each chain, the base chains reaching it with the longest path from each.
    reach: HashMap<ChainId, Vec<(ChainId, u32)>>,
}

impl<'a> Validator<'a> {
    pub fn new(nft: &'a Nft, t: TableId) -> Validator<'a> {
        let table = nft.table(t);
        Validator {
            table,
            nft,
            v6: table.family == iptnl_sys::netfilter::NFPROTO_IPV6,
            needs: HashMap::new(),
            reach: HashMap::new(),
        }
    }

    /// The needs of chain `c`'s subtree, over rules the batch keeps.
    fn needs_of(&mut self, c: ChainId) -> Needs {
        if let Some(n) = self.needs.get(&c) {
            return n.clone();
        }
        // Post-order walk with an explicit stack (no recursion on deep graphs).
        let mut stack: Vec<(ChainId, bool)> = vec![(c, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.needs.contains_key(&x) {
                continue;
            }
            let Some(ch) = self.table.chains.get(x).and_then(Option::as_ref) else {
                self.needs.insert(x, Needs::none());
                continue;
            };
            if !expanded {
                stack.push((x, true));
                for r in ch.rules.iter().filter(|r| !r.gone) {
                    for &j in r.jumps.iter() {
                        if !self.needs.contains_key(&j) {
                            stack.push((j, false));
                        }
                    }
                }
                continue;
            }
            let mut n = Needs::none();
            for r in ch.rules.iter().filter(|r| !r.gone) {
                for &e in r.exprs.iter() {
                    n.add_expr(self.nft.exprs.facts(e), self.v6);
                }
                for &j in r.jumps.iter() {
                    let child = self.needs.get(&j).cloned().unwrap_or_else(Needs::none);
                    n.merge(&child);
                }
            }
            n.height = n.height.min(4 * JUMP_STACK);
            self.needs.insert(x, n);
        }
        self.needs.get(&c).cloned().unwrap_or_else(Needs::none)
    }

    /// The base chains that reach chain `c` through rules the batch keeps, each with the
    /// longest path from it.
    fn reach_of(&mut self, c: ChainId) -> Vec<(ChainId, u32)> {
        if let Some(r) = self.reach.get(&c) {
            return r.clone();
        }
        let mut stack: Vec<(ChainId, bool)> = vec![(c, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.reach.contains_key(&x) {
                continue;
            }
            let Some(ch) = self.table.chains.get(x).and_then(Option::as_ref) else {
                self.reach.insert(x, Vec::new());
                continue;
            };
            if !expanded {
                stack.push((x, true));
                for &y in ch.callers.keys() {
                    if !self.reach.contains_key(&y) {
                        stack.push((y, false));
                    }
                }
                continue;
            }
            let mut out: Vec<(ChainId, u32)> = Vec::new();
            if ch.is_base() {
                out.push((x, 0));
            }
            for &y in ch.callers.keys() {
                for &(b, d) in self.reach.get(&y).map(Vec::as_slice).unwrap_or(&[]) {
                    let d = (d + 1).min(4 * JUMP_STACK);
                    match out.iter_mut().find(|(bb, _)| *bb == b) {
                        Some(e) => e.1 = e.1.max(d),
                        None => out.push((b, d)),
                    }
                }
            }
            self.reach.insert(x, out);
        }
        self.reach.get(&c).cloned().unwrap_or_default()
    }

    /// The kernel's validation of what rule `exprs`/`jumps` of chain `c` adds: every base
    /// chain reaching `c` must accept its x_tables extensions and the subtrees it jumps to.
    pub fn check_rule(
        &mut self,
        c: ChainId,
        exprs: &[super::exprs::ExprId],
        jumps: &[ChainId],
    ) -> Result<(), i32> {
        let reach = self.reach_of(c);
        if reach.is_empty() {
            return Ok(());
        }
        let mut own = Needs::none();
        for &e in exprs {
            own.add_expr(self.nft.exprs.facts(e), self.v6);
        }
        let mut below = Vec::with_capacity(jumps.len());
        for &j in jumps {
            below.push(self.needs_of(j));
        }
        for &(b, depth) in &reach {
            let Some(base) = self.table.chain(b).base.as_ref() else {
                continue;
            };
            own.check(base.hooknum, base.chain_type, depth)?;
            for n in &below {
                n.check(base.hooknum, base.chain_type, depth + 1)?;
            }
        }
        Ok(())
    }
}

/// Whether an expression asks anything of the base chains that reach its rule.
pub(crate) fn restricted(nft: &Nft, e: super::exprs::ExprId, v6: bool) -> bool {
    match nft.exprs.facts(e) {
        Facts::Xt {
            target, name, rev, ..
        } => xt::find(name, *target, *rev, v6)
            .is_some_and(|x| x.hooks != 0 || x.table == Some("nat") || x.hook_check.is_some()),
        _ => false,
    }
}

/// Renames chain `c` of table `t` at commit: its name, the name index, and the jumps of
/// the rules that go to it (the kernel dumps a jump with the current name of its chain).
pub(crate) fn rename_chain(nft: &mut Nft, t: TableId, c: ChainId, new: &str) {
    let table = nft.table_mut(t);
    let old = std::mem::replace(&mut table.chain_mut(c).name, new.to_owned());
    if table.by_name.get(&old) == Some(&c) {
        table.by_name.remove(&old);
    }
    table.by_name.insert(new.to_owned(), c);
    let callers: Vec<ChainId> = table.chain(c).callers.keys().copied().collect();
    for y in callers {
        let n = nft.table(t).chain(y).rules.len();
        for i in 0..n {
            if !nft.table(t).chain(y).rules[i].jumps.contains(&c) {
                continue;
            }
            let m = nft.table(t).chain(y).rules[i].exprs.len();
            for k in 0..m {
                let id = nft.table(t).chain(y).rules[i].exprs[k];
                let goto = match nft.exprs.facts(id) {
                    Facts::Jump { chain, goto } if **chain == *old => *goto,
                    _ => continue,
                };
                let v = if goto {
                    Verdict::Goto(new.to_owned())
                } else {
                    Verdict::Jump(new.to_owned())
                };
                let mut w = MsgWriter::new();
                Expr::Immediate(Immediate::verdict(v)).encode(&mut w);
                let fresh = nft.exprs.intern(w.as_bytes(), false);
                nft.exprs.release(id);
                nft.table_mut(t).chain_mut(y).rules[i].exprs[k] = fresh;
            }
        }
    }
}
