//! `NFT_MSG_NEWRULE` (append, insert, at a position, replace) and `NFT_MSG_DELRULE` (one
//! rule, a chain, a table) in a batch, as `nf_tables_newrule` and `nf_tables_delrule` apply
//! them: the kernel's lookups, its handle allocation (a handle is used as soon as a rule
//! gets past its chain's lookup, even when the rule is then refused), each expression's
//! checks (jumps: `ENOENT`, `EOPNOTSUPP` for a base chain, `ELOOP`; x_tables extensions:
//! the checks of [`xt`](super::xt)), and where the rule goes.

use iptnl_sys::netfilter::NFPROTO_IPV6;
use iptnl_sys::netlink::{NLM_F_APPEND, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE};
use iptnl_sys::nf_tables::*;

use super::exprs::{jump_target, xt_parts, ExprId, Facts};
use super::graph;
use super::msg::Msg;
use super::state::{ChainId, Rule, TableId};
use super::tables::family_supported;
use super::txn::{Fail, Step, Txn, Validate};
use super::xt::{self, CheckCtx};

/// The kernel's `NFT_RULE_MAXEXPRS`.
const MAX_EXPRS: usize = 128;

fn table_and_chain(tx: &Txn<'_>, m: &Msg<'_>) -> Result<(TableId, Option<ChainId>), Fail> {
    family_supported(m.family)?;
    let Some(name) = m.name(NFTA_RULE_TABLE) else {
        return Err(Fail::errno(libc::EINVAL));
    };
    let t = tx
        .nft
        .lookup(m.family, name)
        .ok_or_else(|| m.fail_at(libc::ENOENT, NFTA_RULE_TABLE))?;
    let c = match m.name(NFTA_RULE_CHAIN) {
        Some(n) => Some(
            std::str::from_utf8(n)
                .ok()
                .and_then(|n| tx.nft.table(t).lookup(n))
                .ok_or_else(|| m.fail_at(libc::ENOENT, NFTA_RULE_CHAIN))?,
        ),
        None => None,
    };
    Ok((t, c))
}

/// `match` or `target`: the name of the expression in `bytes` (an `NFTA_LIST_ELEM`).
fn bytes_name(bytes: &[u8]) -> String {
    crate::netlink::Attrs::new(bytes)
        .next()
        .and_then(Result::ok)
        .and_then(|e| {
            e.nested()
                .flatten()
                .find(|a| a.kind() == NFTA_EXPR_NAME)
                .and_then(|a| a.str().ok().map(str::to_owned))
        })
        .unwrap_or_default()
}

/// `NFTA_RULE_COMPAT`: the layer-4 protocol and its inversion, as x_tables checks see them.
fn compat(m: &Msg<'_>) -> Result<(u16, bool), i32> {
    let Some(a) = m.get(NFTA_RULE_COMPAT) else {
        return Ok((0, false));
    };
    let t = a.nested().table::<4>().map_err(|_| libc::EINVAL)?;
    let (Some(proto), Some(flags)) = (
        t.get(NFTA_RULE_COMPAT_PROTO).and_then(|a| a.be32().ok()),
        t.get(NFTA_RULE_COMPAT_FLAGS).and_then(|a| a.be32().ok()),
    ) else {
        return Err(libc::EINVAL);
    };
    if flags & !NFT_RULE_COMPAT_F_MASK != 0 || proto > u32::from(u16::MAX) {
        return Err(libc::EINVAL);
    }
    Ok((proto as u16, flags & NFT_RULE_COMPAT_F_INV != 0))
}

pub(crate) fn new_rule(tx: &mut Txn<'_>, m: &Msg<'_>) -> Step {
    let (t, c) = table_and_chain(tx, m)?;
    let Some(c) = c else {
        if m.get(NFTA_RULE_CHAIN_ID).is_some() {
            return Err(Fail::unsupported("rules added by chain id"));
        }
        return Err(Fail::errno(libc::EINVAL));
    };
    // Where the rule goes, and its handle.
    let mut old: Option<usize> = None;
    let handle;
    if let Some(h) = m.be64(NFTA_RULE_HANDLE) {
        let Some(i) = tx.nft.table(t).chain(c).find(h) else {
            return Err(m.fail_at(libc::ENOENT, NFTA_RULE_HANDLE));
        };
        if m.flags & NLM_F_EXCL != 0 {
            return Err(m.fail_at(libc::EEXIST, NFTA_RULE_HANDLE));
        }
        if m.flags & NLM_F_REPLACE == 0 {
            return Err(Fail::errno(libc::EOPNOTSUPP));
        }
        old = Some(i);
        handle = h;
    } else {
        if m.flags & NLM_F_CREATE == 0 || m.flags & NLM_F_REPLACE != 0 {
            return Err(Fail::errno(libc::EINVAL));
        }
        handle = tx.nft.table_mut(t).alloc_handle();
        if let Some(p) = m.be64(NFTA_RULE_POSITION) {
            let Some(i) = tx.nft.table(t).chain(c).find(p) else {
                return Err(m.fail_at(libc::ENOENT, NFTA_RULE_POSITION));
            };
            old = Some(i);
        } else if let Some(id) = m.be32(NFTA_RULE_POSITION_ID) {
            let found = tx.rule_by_id(id).and_then(|(tt, cc, uid)| {
                (tt == t && cc == c)
                    .then(|| {
                        tx.nft
                            .table(t)
                            .chain(c)
                            .rules
                            .iter()
                            .rposition(|r| r.uid == uid)
                    })
                    .flatten()
            });
            match found {
                Some(i) => old = Some(i),
                None => return Err(m.fail_at(libc::ENOENT, NFTA_RULE_POSITION_ID)),
            }
        }
    }
    // The expressions: every one read first, then each checked in order.
    let list = m.get(NFTA_RULE_EXPRESSIONS);
    let n = list.map_or(0, |l| l.nested().count().min(MAX_EXPRS + 1));
    let mut exprs: Vec<ExprId> = Vec::with_capacity(n);
    let mut elems: Vec<u32> = Vec::with_capacity(n);
    let release = |tx: &mut Txn<'_>, exprs: &[ExprId]| {
        for &e in exprs {
            tx.nft.exprs.release(e);
        }
    };
    if let Some(list) = list {
        for a in list.nested() {
            let Ok(a) = a else {
                release(tx, &exprs);
                return Err(Fail::errno(libc::EINVAL));
            };
            if a.kind() != NFTA_LIST_ELEM || exprs.len() == MAX_EXPRS {
                release(tx, &exprs);
                return Err(Fail::errno(libc::EINVAL));
            }
            let off = m.offset(&a);
            let bytes = &m.bytes[off as usize..off as usize + 4 + a.data().len()];
            let id = tx.nft.exprs.intern(bytes, false);
            exprs.push(id);
            elems.push(off);
            if let Facts::Unsupported(_) = tx.nft.exprs.facts(id) {
                let why = tx.nft.exprs.reason(id);
                release(tx, &exprs);
                return Err(Fail::Unsupported(why));
            }
        }
    }
    let mut scratch = std::mem::take(&mut tx.scratch);
    let checked = check_exprs(tx, m, t, c, &exprs, &elems, &mut scratch);
    tx.scratch = scratch;
    let (jumps, needs_validation) = match checked {
        Ok(x) => x,
        Err(f) => {
            release(tx, &exprs);
            return Err(f);
        }
    };
    let udata = m
        .get(NFTA_RULE_USERDATA)
        .filter(|a| !a.data().is_empty())
        .map(|a| tx.nft.exprs.intern(a.data(), true));
    tx.nft.uids = tx.nft.uids.wrapping_add(1);
    let rule = Rule::new(handle, &exprs, &jumps, udata, tx.nft.uids, tx.nft.serial);
    let at = if m.flags & NLM_F_REPLACE != 0 {
        let replaced = match old {
            Some(i) => tx.delete_rule(t, c, i).map(|()| i),
            None => Err(Fail::errno(libc::EINVAL)),
        };
        match replaced {
            Ok(i) => i,
            Err(f) => {
                release(tx, &exprs);
                if let Some(u) = udata {
                    tx.nft.exprs.release(u);
                }
                return Err(f);
            }
        }
    } else if m.flags & NLM_F_APPEND != 0 {
        match old {
            Some(i) => i + 1,
            None => tx.nft.table(t).chain(c).rules.len(),
        }
    } else {
        old.unwrap_or(0)
    };
    let jumps_v = jumps;
    let uid = rule.uid;
    tx.insert_rule(t, c, at, rule, m.be32(NFTA_RULE_ID));
    if needs_validation {
        tx.note_for_validation(t, c, uid, &exprs, &jumps_v);
    }
    let mode = if tx.nft.table(t).validate_each {
        Validate::Do
    } else {
        tx.validate
    };
    match mode {
        Validate::Skip if needs_validation => tx.validate = Validate::Need,
        Validate::Skip | Validate::Need => {}
        Validate::Do => {
            // The kernel validates the whole table after each rule: once it is invalid,
            // every later rule of the table is refused too.
            if let Some(&(_, errno)) = tx.invalid.iter().find(|(tt, _)| *tt == t) {
                return Err(Fail::errno(errno));
            }
            if needs_validation {
                let r = graph::Validator::new(tx.nft, t).check_rule(c, &exprs, &jumps_v);
                if let Err(errno) = r {
                    tx.invalid.push((t, errno));
                    return Err(Fail::errno(errno));
                }
            }
        }
    }
    Ok(())
}

/// Each expression's checks, in order; returns the chains the rule jumps to and whether it
/// has anything the ruleset validation looks at.
fn check_exprs(
    tx: &Txn<'_>,
    m: &Msg<'_>,
    t: TableId,
    c: ChainId,
    exprs: &[ExprId],
    elems: &[u32],
    scratch: &mut Vec<u8>,
) -> Result<(Vec<ChainId>, bool), Fail> {
    let table = tx.nft.table(t);
    let v6 = table.family == NFPROTO_IPV6;
    let mut jumps = Vec::new();
    let mut validate = false;
    for (i, &e) in exprs.iter().enumerate() {
        let at = elems[i];
        match tx.nft.exprs.facts(e) {
            Facts::Plain => {}
            Facts::Unsupported(_) => return Err(Fail::Unsupported(tx.nft.exprs.reason(e))),
            Facts::BadVerdict => return Err(Fail::at(libc::EINVAL, at)),
            Facts::Jump => {
                // A base chain is not a jump target: the kernel does not find it.
                let target = jump_target(tx.nft.exprs.bytes_into(e, scratch))
                    .and_then(|(chain, _)| table.lookup(chain))
                    .filter(|&x| !table.chain(x).is_base());
                let Some(target) = target else {
                    return Err(Fail::at(libc::ENOENT, at));
                };
                jumps.push(target);
                validate = true;
            }
            facts @ Facts::Xt { .. } => {
                let bytes = tx.nft.exprs.bytes_into(e, scratch);
                let Some((name, rev, info)) = xt_parts(bytes) else {
                    return Err(Fail::at(libc::EINVAL, at));
                };
                let Some(ext) = facts.xt(v6) else {
                    let target = bytes_name(bytes) == "target";
                    return Err(Fail::unsupported(format!(
                        "the x_tables {} {name} revision {rev} for {}",
                        if target { "target" } else { "match" },
                        if v6 { "ip6" } else { "ip" }
                    )));
                };
                if let Some(why) = xt::unmodelled(ext, info) {
                    return Err(Fail::unsupported(why));
                }
                if !xt::private_zero(ext, info) {
                    return Err(Fail::unsupported(format!(
                        "the {name} extension with kernel-private bytes set"
                    )));
                }
                let (proto, inv_proto) = compat(m).map_err(|errno| Fail::at(errno, at))?;
                let ch = table.chain(c);
                let ctx = CheckCtx {
                    v6,
                    table: &table.name,
                    hook_mask: ch.base.as_ref().map_or(0, |b| 1 << b.hooknum),
                    proto,
                    inv_proto,
                };
                xt::check(ext, &ctx, info).map_err(|errno| Fail::at(errno, at))?;
                validate = true;
            }
        }
    }
    Ok((jumps, validate))
}

pub(crate) fn del_rule(tx: &mut Txn<'_>, m: &Msg<'_>) -> Step {
    let (t, c) = table_and_chain(tx, m)?;
    let Some(c) = c else {
        // Every rule of every chain of the table.
        let chains: Vec<ChainId> = tx
            .nft
            .table(t)
            .chains_in_order()
            .filter(|(_, ch)| ch.life != super::state::Life::Gone)
            .map(|(id, _)| id)
            .collect();
        for c in chains {
            tx.flush_chain(t, c)?;
        }
        return Ok(());
    };
    if let Some(h) = m.be64(NFTA_RULE_HANDLE) {
        let Some(i) = tx.nft.table(t).chain(c).find(h) else {
            return Err(m.fail_at(libc::ENOENT, NFTA_RULE_HANDLE));
        };
        return tx.delete_rule(t, c, i);
    }
    if let Some(id) = m.be32(NFTA_RULE_ID) {
        let found = tx.rule_by_id(id).and_then(|(tt, cc, uid)| {
            tx.nft
                .table(tt)
                .chain(cc)
                .rules
                .iter()
                .rposition(|r| r.uid == uid)
                .map(|i| (tt, cc, i))
        });
        let Some((tt, cc, i)) = found else {
            return Err(m.fail_at(libc::ENOENT, NFTA_RULE_ID));
        };
        let _ = (t, c);
        return tx.delete_rule(tt, cc, i);
    }
    tx.flush_chain(t, c)
}
