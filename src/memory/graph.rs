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
use std::hash::{BuildHasherDefault, Hasher};

use super::exprs::{jump_bytes, jump_target, ExprId, Facts};
use super::state::{Chain, ChainId, ChainType, Nft, Table, TableId};

/// A hasher for chain ids (small integers the model gives out itself: no hash flooding to
/// fear), far cheaper than the default one for the validation's many lookups.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
}

pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// The kernel's `NFT_JUMP_STACK_SIZE`: chains nested deeper are refused.
const JUMP_STACK: u32 = 16;

/// What the restricted x_tables extensions of a rule ask of a base chain: the hooks they
/// allow, and whether one of them is for the nat table (the base chain must then be of
/// type nat).
fn expr_check(nft: &Nft, e: ExprId, v6: bool, hook: u32, ty: ChainType) -> Result<(), i32> {
    if let Some(x) = nft.exprs.facts(e).xt(v6) {
        if x.hooks != 0 && x.hooks & (1 << hook) == 0 {
            return Err(libc::EINVAL);
        }
        if x.table == Some("nat") && ty != ChainType::Nat {
            return Err(libc::EINVAL);
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
    walked: IdMap<(ChainId, ChainId), u32>,
    /// What [`reached_from`](Self::reached_from) found for each chain (the graph does not
    /// change while it is validated: the rules of one chain share one search).
    reached: IdMap<ChainId, (std::rc::Rc<[ChainId]>, u32)>,
}

impl<'a> Validator<'a> {
    pub fn new(nft: &'a Nft, t: TableId) -> Validator<'a> {
        let table = nft.table(t);
        Validator {
            table,
            nft,
            v6: table.family == iptnl_sys::netfilter::NFPROTO_IPV6,
            walked: IdMap::default(),
            reached: IdMap::default(),
        }
    }

    fn chain(&self, c: ChainId) -> Option<&'a Chain> {
        self.table.chains.get(c).and_then(Option::as_ref)
    }

    /// The base chains from which chain `c` is reached through rules the batch keeps, and
    /// the longest run of jumps from one of them to `c`, counted up to past the kernel's
    /// limit (a loop on the way counts as past it).
    fn reached_from(&self, c: ChainId) -> (Vec<ChainId>, u32) {
        // The ancestors of `c`, through the callers of each chain (no rule is walked).
        let mut anc = vec![c];
        let mut seen: std::collections::HashSet<ChainId, BuildHasherDefault<IdHasher>> =
            Default::default();
        seen.insert(c);
        let mut i = 0;
        while i < anc.len() {
            if let Some(ch) = self.chain(anc[i]) {
                for y in ch.callers.keys() {
                    if seen.insert(y) {
                        anc.push(y);
                    }
                }
            }
            i += 1;
        }
        let mut bases: Vec<ChainId> = anc
            .iter()
            .copied()
            .filter(|&x| self.chain(x).is_some_and(Chain::is_base))
            .collect();
        if bases.is_empty() {
            return (bases, 0);
        }
        bases.sort_unstable();
        // Longest paths from the base chains, relaxed over the ancestors' caller edges until
        // they settle or pass the limit (a loop never settles).
        const PAST: u32 = JUMP_STACK + 1;
        let index: IdMap<ChainId, usize> = anc.iter().enumerate().map(|(i, &x)| (x, i)).collect();
        let mut depth: Vec<Option<u32>> = anc
            .iter()
            .map(|&x| self.chain(x).is_some_and(Chain::is_base).then_some(0))
            .collect();
        for _ in 0..=PAST {
            let mut changed = false;
            for (xi, &x) in anc.iter().enumerate() {
                let Some(ch) = self.chain(x) else { continue };
                for y in ch.callers.keys() {
                    let Some(&yi) = index.get(&y) else { continue };
                    if let Some(d) = depth[yi] {
                        let nd = (d + 1).min(PAST);
                        if depth[xi].is_none_or(|cur| nd > cur) {
                            depth[xi] = Some(nd);
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        (bases, depth[0].unwrap_or(0))
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
            for &e in r.exprs() {
                expr_check(self.nft, e, self.v6, hook, ty)?;
            }
            for j in r.jumps() {
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
        let (bases, depth) = match self.reached.get(&c) {
            Some((b, d)) => (b.clone(), *d),
            None => {
                let (b, d) = self.reached_from(c);
                let b: std::rc::Rc<[ChainId]> = b.into();
                self.reached.insert(c, (b.clone(), d));
                (b, d)
            }
        };
        if bases.is_empty() {
            return Ok(());
        }
        if depth >= JUMP_STACK {
            return Err(libc::EMLINK);
        }
        for &b in bases.iter() {
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
pub(crate) fn restricted(nft: &Nft, e: ExprId, v6: bool) -> bool {
    nft.exprs
        .facts(e)
        .xt(v6)
        .is_some_and(|x| x.hooks != 0 || x.table == Some("nat"))
}

/// Renames chain `c` of table `t` at commit: its name, the name index, and the jumps of
/// the rules that go to it (the kernel dumps a jump with the current name of its chain).
///
/// `touched` are the chains the batch changed: a rule the batch deletes has given back its
/// caller edge but stays in its chain until after its deletion event, which shows the jump
/// by the name the chain has then, so those chains are walked too.
pub(crate) fn rename_chain(
    nft: &mut Nft,
    t: TableId,
    c: ChainId,
    new: &str,
    touched: &[(TableId, ChainId)],
) {
    let table = nft.table_mut(t);
    let old = table.chain(c).name.clone();
    table.unindex_name(&old, c);
    table.chain_mut(c).name = new.to_owned();
    table.index_name(c);
    let mut chains: Vec<ChainId> = table.chain(c).callers.keys().collect();
    chains.extend(touched.iter().filter(|&&(x, _)| x == t).map(|&(_, y)| y));
    chains.sort_unstable();
    chains.dedup();
    for y in chains {
        let Some(chain) = nft.table(t).chains.get(y).and_then(Option::as_ref) else {
            continue;
        };
        let n = chain.rules.len();
        for i in 0..n {
            if !nft.table(t).chain(y).rules[i].jumps_to(c) {
                continue;
            }
            let m = nft.table(t).chain(y).rules[i].exprs().len();
            for k in 0..m {
                let id = nft.table(t).chain(y).rules[i].exprs()[k];
                if nft.exprs.facts(id) != Facts::Jump {
                    continue;
                }
                let bytes = nft.exprs.bytes(id);
                let goto = match jump_target(&bytes) {
                    Some((chain, goto)) if chain == old => goto,
                    _ => continue,
                };
                let fresh = nft.exprs.intern(&jump_bytes(new, goto), false);
                nft.exprs.release(id);
                nft.table_mut(t).chain_mut(y).rules[i].exprs_mut()[k] = fresh;
            }
        }
    }
}
