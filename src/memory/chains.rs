//! `NFT_MSG_NEWCHAIN` (add, update, rename) and `NFT_MSG_DELCHAIN` in a batch, as
//! `nf_tables_newchain`, `nf_tables_addchain`, `nf_tables_updchain` and
//! `nf_tables_delchain` apply them.

use iptnl_sys::netfilter::{NF_ACCEPT, NF_DROP, NF_IP_PRI_CONNTRACK};
use iptnl_sys::netlink::{NLM_F_EXCL, NLM_F_NONREC, NLM_F_REPLACE};
use iptnl_sys::nf_tables::*;

use super::msg::{text, Msg};
use super::state::{Base, Callers, Chain, ChainType, Life, TableId};
use super::tables::family_supported;
use super::txn::{Fail, Step, Trans, Txn, CHAIN_FLAGS};

/// A parsed `NFTA_CHAIN_HOOK` (with `NFTA_CHAIN_TYPE`).
struct Hook {
    num: u32,
    priority: i32,
    ty: ChainType,
}

fn parse_hook(m: &Msg<'_>) -> Result<Hook, Fail> {
    let Some(h) = m.get(NFTA_CHAIN_HOOK) else {
        return Err(Fail::errno(libc::EINVAL));
    };
    let ha = h
        .nested()
        .table::<8>()
        .map_err(|_| Fail::errno(libc::EINVAL))?;
    let (Some(num), Some(prio)) = (
        ha.get(NFTA_HOOK_HOOKNUM).and_then(|a| a.be32().ok()),
        ha.get(NFTA_HOOK_PRIORITY).and_then(|a| a.be32().ok()),
    ) else {
        return Err(Fail::errno(libc::EINVAL));
    };
    let ty = match m.name(NFTA_CHAIN_TYPE) {
        None => ChainType::Filter,
        Some(n) => {
            ChainType::from_name(n).ok_or_else(|| m.fail_at(libc::ENOENT, NFTA_CHAIN_TYPE))?
        }
    };
    if num >= 5 || ty.hook_mask() & (1 << num) == 0 {
        return Err(Fail::errno(libc::EOPNOTSUPP));
    }
    let priority = prio as i32;
    if ty == ChainType::Nat && priority <= NF_IP_PRI_CONNTRACK {
        return Err(Fail::errno(libc::EOPNOTSUPP));
    }
    if ha.get(NFTA_HOOK_DEV).is_some() || ha.get(NFTA_HOOK_DEVS).is_some() {
        return Err(Fail::errno(libc::EOPNOTSUPP));
    }
    Ok(Hook { num, priority, ty })
}

fn parse_stats(m: &Msg<'_>) -> Result<Option<(u64, u64)>, Fail> {
    let Some(c) = m.get(NFTA_CHAIN_COUNTERS) else {
        return Ok(None);
    };
    let t = c
        .nested()
        .table::<4>()
        .map_err(|_| Fail::errno(libc::EINVAL))?;
    match (
        t.get(NFTA_COUNTER_PACKETS).and_then(|a| a.be64().ok()),
        t.get(NFTA_COUNTER_BYTES).and_then(|a| a.be64().ok()),
    ) {
        (Some(p), Some(b)) => Ok(Some((p, b))),
        _ => Err(Fail::errno(libc::EINVAL)),
    }
}

fn table_of(tx: &Txn<'_>, m: &Msg<'_>) -> Result<TableId, Fail> {
    family_supported(m.family)?;
    let Some(name) = m.name(NFTA_CHAIN_TABLE) else {
        return Err(Fail::errno(libc::EINVAL));
    };
    tx.nft
        .lookup(m.family, name)
        .ok_or_else(|| m.fail_at(libc::ENOENT, NFTA_CHAIN_TABLE))
}

pub(crate) fn new_chain(tx: &mut Txn<'_>, m: &Msg<'_>) -> Step {
    let t = table_of(tx, m)?;
    let mut attr = NFTA_CHAIN_NAME;
    let chain = if let Some(h) = m.be64(NFTA_CHAIN_HANDLE) {
        attr = NFTA_CHAIN_HANDLE;
        Some(
            tx.nft
                .table(t)
                .lookup_handle(h)
                .ok_or_else(|| m.fail_at(libc::ENOENT, NFTA_CHAIN_HANDLE))?,
        )
    } else if let Some(n) = m.name(NFTA_CHAIN_NAME) {
        std::str::from_utf8(n)
            .ok()
            .and_then(|n| tx.nft.table(t).lookup(n))
    } else if m.get(NFTA_CHAIN_ID).is_none() {
        return Err(Fail::errno(libc::EINVAL));
    } else {
        return Err(Fail::unsupported("chains without a name (bound chains)"));
    };
    let mut policy = None;
    if let Some(p) = m.be32(NFTA_CHAIN_POLICY) {
        if let Some(c) = chain {
            if !tx.nft.table(t).chain(c).is_base() {
                return Err(m.fail_at(libc::EOPNOTSUPP, NFTA_CHAIN_POLICY));
            }
        } else if m.get(NFTA_CHAIN_HOOK).is_none() {
            return Err(m.fail_at(libc::EOPNOTSUPP, NFTA_CHAIN_POLICY));
        }
        if p != NF_ACCEPT as u32 && p != NF_DROP as u32 {
            return Err(Fail::errno(libc::EINVAL));
        }
        policy = Some(p);
    }
    let mut flags = match (m.be32(NFTA_CHAIN_FLAGS), chain) {
        (Some(f), _) => f,
        (None, Some(c)) => tx.nft.table(t).chain(c).flags,
        (None, None) => 0,
    };
    if flags & !CHAIN_FLAGS != 0 {
        return Err(Fail::errno(libc::EOPNOTSUPP));
    }
    if flags & (NFT_CHAIN_HW_OFFLOAD | NFT_CHAIN_BINDING) != 0 {
        return Err(Fail::unsupported(
            "chains with hardware offload or bound chains",
        ));
    }
    match chain {
        Some(c) => {
            if m.flags & NLM_F_EXCL != 0 {
                return Err(m.fail_at(libc::EEXIST, attr));
            }
            if m.flags & NLM_F_REPLACE != 0 {
                return Err(Fail::errno(libc::EOPNOTSUPP));
            }
            flags |= tx.nft.table(t).chain(c).flags & NFT_CHAIN_BASE;
            update_chain(tx, m, t, c, flags, policy, attr)
        }
        None => add_chain(tx, m, t, flags, policy),
    }
}

fn add_chain(tx: &mut Txn<'_>, m: &Msg<'_>, t: TableId, flags: u32, policy: Option<u32>) -> Step {
    let base = if m.get(NFTA_CHAIN_HOOK).is_some() {
        let hook = parse_hook(m)?;
        let stats = parse_stats(m)?;
        Some(Box::new(Base {
            hooknum: hook.num,
            priority: hook.priority,
            chain_type: hook.ty,
            policy: NF_ACCEPT as u32,
            stats,
        }))
    } else {
        if flags & NFT_CHAIN_BASE != 0 {
            return Err(Fail::errno(libc::EINVAL));
        }
        None
    };
    let flags = if base.is_some() {
        flags | NFT_CHAIN_BASE
    } else {
        flags
    };
    let Some(name) = m.name(NFTA_CHAIN_NAME) else {
        return Err(Fail::errno(libc::EINVAL));
    };
    let name = text(name)?;
    let table = tx.nft.table_mut(t);
    let handle = table.alloc_handle();
    let is_base = base.is_some();
    let chain = Chain {
        name,
        handle,
        flags,
        use_count: 0,
        base,
        udata: m.get(NFTA_CHAIN_USERDATA).map(|a| a.data().into()),
        rules: Vec::new(),
        life: Life::New,
        pending_gone: 0,
        callers: Callers::None,
        touched: false,
        named: 0,
    };
    table.chains.push(Some(chain));
    let c = table.chains.len() - 1;
    table.order.push(c);
    let shadowed = table.index_name(c);
    // The policy of a new base chain is applied at commit (a drop policy is deferred until
    // every rule of the batch is in place).
    let policy = if is_base { policy } else { None };
    tx.chain_added(t, c, shadowed, policy);
    Ok(())
}

fn update_chain(
    tx: &mut Txn<'_>,
    m: &Msg<'_>,
    t: TableId,
    c: usize,
    flags: u32,
    policy: Option<u32>,
    attr: u16,
) -> Step {
    let ch = tx.nft.table(t).chain(c);
    if ch.flags ^ flags != 0 {
        return Err(Fail::errno(libc::EOPNOTSUPP));
    }
    if let Some(h) = m.get(NFTA_CHAIN_HOOK) {
        let Some(base) = ch.base.as_ref() else {
            return Err(m.fail_at(libc::EEXIST, attr));
        };
        // An update may restate the hook, never change it.
        let ha = h
            .nested()
            .table::<8>()
            .map_err(|_| Fail::errno(libc::EINVAL))?;
        if let Some(num) = ha.get(NFTA_HOOK_HOOKNUM).and_then(|a| a.be32().ok()) {
            if num != base.hooknum {
                return Err(Fail::errno(libc::EOPNOTSUPP));
            }
        }
        if let Some(p) = ha.get(NFTA_HOOK_PRIORITY).and_then(|a| a.be32().ok()) {
            if p as i32 != base.priority {
                return Err(Fail::errno(libc::EOPNOTSUPP));
            }
        }
        if let Some(ty) = m.name(NFTA_CHAIN_TYPE) {
            match ChainType::from_name(ty) {
                None => return Err(m.fail_at(libc::ENOENT, NFTA_CHAIN_TYPE)),
                Some(ty) if ty != base.chain_type => return Err(m.fail_at(libc::EEXIST, attr)),
                Some(_) => {}
            }
        }
    }
    let mut rename = None;
    if m.get(NFTA_CHAIN_HANDLE).is_some() {
        if let Some(n) = m.name(NFTA_CHAIN_NAME) {
            let new = text(n)?;
            if tx.nft.table(t).lookup(&new).is_some() {
                return Err(m.fail_at(libc::EEXIST, NFTA_CHAIN_NAME));
            }
            rename = Some(new);
        }
    }
    let stats = if m.get(NFTA_CHAIN_COUNTERS).is_some() {
        if !tx.nft.table(t).chain(c).is_base() {
            return Err(Fail::errno(libc::EOPNOTSUPP));
        }
        parse_stats(m)?
    } else {
        None
    };
    if let Some(new) = &rename {
        let taken = tx.log.iter().any(|(tr, _)| {
            matches!(tr, Trans::UpdChain { t: tt, rename: Some(r), .. } if *tt == t && r == new)
        });
        if taken {
            return Err(m.fail_at(libc::EEXIST, NFTA_CHAIN_NAME));
        }
    }
    tx.push(Trans::UpdChain {
        t,
        c,
        rename,
        policy,
        stats,
    });
    Ok(())
}

pub(crate) fn del_chain(tx: &mut Txn<'_>, m: &Msg<'_>) -> Step {
    let t = table_of(tx, m)?;
    let (c, attr) = match m.be64(NFTA_CHAIN_HANDLE) {
        Some(h) => (tx.nft.table(t).lookup_handle(h), NFTA_CHAIN_HANDLE),
        None => (
            m.name(NFTA_CHAIN_NAME)
                .and_then(|n| std::str::from_utf8(n).ok())
                .and_then(|n| tx.nft.table(t).lookup(n)),
            NFTA_CHAIN_NAME,
        ),
    };
    let Some(c) = c else {
        return Err(m.fail_at(libc::ENOENT, attr));
    };
    let used = tx.nft.table(t).chain(c).use_count;
    if m.flags & NLM_F_NONREC != 0 && used > 0 {
        return Err(Fail::errno(libc::EBUSY));
    }
    tx.flush_chain(t, c)?;
    if tx.nft.table(t).chain(c).use_count > 0 {
        return Err(m.fail_at(libc::EBUSY, attr));
    }
    tx.chain_deleted(t, c);
    Ok(())
}
