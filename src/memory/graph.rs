//! The jump graph of a table: the kernel's validation of what base chains reach (`EMLINK`
//! past 16 nested chains, which is also how a loop that a base chain reaches is refused;
//! x_tables extensions reached from a hook or chain type they are not allowed in,
//! `EINVAL`). Loops no base chain reaches are allowed, as in the kernel (since 6.x it
//! checks no loop when a jump is added).
//!
//! The kernel validates the whole table at each commit; this model checks only what the
//! batch's new rules change (the paths through them), which gives the same answer when the
//! ruleset was valid before the batch, as every committed ruleset is.

use std::collections::HashMap;

use super::exprs::{ExprId, Facts};
use super::state::{Chain, ChainId, ChainType, Nft, Table, TableId};
use super::xt;
use crate::netlink::MsgWriter;
use crate::nft::expr::Immediate;
use crate::nft::{Expr, Verdict};

/// The kernel's `NFT_JUMP_STACK_SIZE`: chains nested deeper are refused.
const JUMP_STACK: u32 = 16;

/// What the restricted x_tables extensions of a rule ask of a base chain: the hooks they
/// allow, and whether one of them is for the nat table (the base chain must then be of
/// type nat).
fn expr_check(nft: &Nft, e: ExprId, v6: bool, hook: u32, ty: ChainType) -> Result<(), i32> {
    if let Facts::Xt {
        target, name, rev, ..
    } = nft.exprs.facts(e)
    {
        if let Some(x) = xt::find(name, *target, *rev, v6) {
            if x.hooks != 0 && x.hooks & (1 << hook) == 0 {
                return Err(libc::EINVAL);
            }
            if x.table == Some("nat") && ty != ChainType::Nat {
                return Err(libc::EINVAL);
            }
        }
    }
    Ok(())
}

/// The kernel's validation of what one rule adds, in the state the table is in: for every
/// base chain that reaches the rule's chain, the rule's restricted extensions must accept
/// the base chain's hook and type, and the chains it jumps to are walked as the kernel
/// walks them from that base chain (16 nested chains at most, so a loop that a base chain
/// reaches ends in `EMLINK`; every extension met checked against the hook).
pub(crate) struct Validator<'a> {
    table: &'a Table,
    nft: &'a Nft,
    v6: bool,
    /// Per base chain: the deepest level each chain was walked at.
    walked: HashMap<(ChainId, ChainId), u32>,
}

impl<'a> Validator<'a> {
    pub fn new(nft: &'a Nft, t: TableId) -> Validator<'a> {
        let table = nft.table(t);
        Validator {
            table,
            nft,
            v6: table.family == iptnl_sys::netfilter::NFPROTO_IPV6,
            walked: HashMap::new(),
        }
    }

    fn chain(&self, c: ChainId) -> Option<&'a Chain> {
        self.table.chains.get(c).and_then(Option::as_ref)
    }

    /// The base chains from which chain `c` is reached through rules the batch keeps, each
    /// with the longest run of jumps from it to `c` (`None`: a loop on the way, as deep as
    /// the kernel's walk goes).
    fn reached_from(&self, c: ChainId) -> Vec<(ChainId, Option<u32>)> {
        // The ancestors of `c`.
        let mut anc = std::collections::HashSet::new();
        let mut stack = vec![c];
        anc.insert(c);
        while let Some(x) = stack.pop() {
            let Some(ch) = self.chain(x) else { continue };
            for &y in ch.callers.keys() {
                if anc.insert(y) {
                    stack.push(y);
                }
            }
        }
        let mut bases: Vec<ChainId> = anc
            .iter()
            .copied()
            .filter(|&x| self.chain(x).is_some_and(Chain::is_base))
            .collect();
        bases.sort_unstable();
        // The longest path to `c` from each ancestor, over the ancestors only; a loop among
        // them makes it unbounded.
        let mut done: HashMap<ChainId, Option<u32>> = HashMap::new();
        let mut out = Vec::new();
        for b in bases {
            out.push((b, self.longest(b, c, &anc, &mut done)));
        }
        out
    }

    /// The longest run of jumps from `from` to `to` over the chains in `anc` (the ancestors
    /// of `to`); `None` when a loop among them is on the way (unbounded).
    fn longest(
        &self,
        from: ChainId,
        to: ChainId,
        anc: &std::collections::HashSet<ChainId>,
        done: &mut HashMap<ChainId, Option<u32>>,
    ) -> Option<u32> {
        const CAP: u32 = 4 * JUMP_STACK;
        fn combine(best: Option<u32>, d: Option<u32>) -> Option<u32> {
            match (best, d) {
                (Some(b), Some(d)) => Some(b.max((d + 1).min(CAP))),
                _ => None,
            }
        }
        if from == to {
            return Some(0);
        }
        if let Some(d) = done.get(&from) {
            return *d;
        }
        let kids_of = |x: ChainId| -> Vec<ChainId> {
            self.chain(x)
                .map(|ch| {
                    ch.rules
                        .iter()
                        .filter(|r| !r.gone)
                        .flat_map(|r| r.jumps.iter().copied())
                        .filter(|j| anc.contains(j))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut gray = std::collections::HashSet::new();
        gray.insert(from);
        // (chain, its children, next child, best so far)
        let mut stack: Vec<(ChainId, Vec<ChainId>, usize, Option<u32>)> =
            vec![(from, kids_of(from), 0, Some(0))];
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let k = top.1[top.2];
                top.2 += 1;
                if k == to {
                    top.3 = combine(top.3, Some(0));
                } else if gray.contains(&k) {
                    top.3 = None;
                } else if let Some(d) = done.get(&k) {
                    top.3 = combine(top.3, *d);
                } else {
                    gray.insert(k);
                    let kids = kids_of(k);
                    stack.push((k, kids, 0, Some(0)));
                }
                continue;
            }
            let (x, _, _, best) = stack.pop().expect("non-empty");
            gray.remove(&x);
            done.insert(x, best);
            if let Some(parent) = stack.last_mut() {
                parent.3 = combine(parent.3, best);
            }
        }
        done.get(&from).copied().flatten()
    }

    /// Walks chain `c` entered at `level` from base chain `b` (hooked at `hook`, of type
    /// `ty`), as the kernel's `nft_chain_validate` does.
    fn walk(
        &mut self,
        b: ChainId,
        hook: u32,
        ty: ChainType,
        c: ChainId,
        level: u32,
    ) -> Result<(), i32> {
        if level >= JUMP_STACK {
            return Err(libc::EMLINK);
        }
        if self.walked.get(&(b, c)).is_some_and(|&l| l >= level) {
            return Ok(());
        }
        let Some(ch) = self.chain(c) else {
            return Ok(());
        };
        for r in ch.rules.iter().filter(|r| !r.gone) {
            for &e in r.exprs.iter() {
                expr_check(self.nft, e, self.v6, hook, ty)?;
            }
            for &j in r.jumps.iter() {
                self.walk(b, hook, ty, j, level + 1)?;
            }
        }
        self.walked.insert((b, c), level);
        Ok(())
    }

    /// The kernel's validation of what rule `exprs`/`jumps` of chain `c` adds.
    pub fn check_rule(
        &mut self,
        c: ChainId,
        exprs: &[ExprId],
        jumps: &[ChainId],
    ) -> Result<(), i32> {
        for (b, depth) in self.reached_from(c) {
            let Some(depth) = depth else {
                return Err(libc::EMLINK);
            };
            if depth >= JUMP_STACK {
                return Err(libc::EMLINK);
            }
            let Some(base) = self.chain(b).and_then(|x| x.base.as_ref()) else {
                continue;
            };
            let (hook, ty) = (base.hooknum, base.chain_type);
            for &e in exprs {
                expr_check(self.nft, e, self.v6, hook, ty)?;
            }
            for &j in jumps {
                self.walk(b, hook, ty, j, depth + 1)?;
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
            .is_some_and(|x| x.hooks != 0 || x.table == Some("nat")),
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
