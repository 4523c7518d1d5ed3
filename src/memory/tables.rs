//! `NFT_MSG_NEWTABLE` and `NFT_MSG_DELTABLE` in a batch, as `nf_tables_newtable` and
//! `nf_tables_deltable` apply them.

use iptnl_sys::netfilter::{NFPROTO_IPV4, NFPROTO_IPV6};
use iptnl_sys::netlink::{NLM_F_EXCL, NLM_F_NONREC, NLM_F_REPLACE};
use iptnl_sys::nf_tables::*;

use super::msg::{text, Msg};
use super::state::{Life, Table};
use super::txn::{Fail, Step, Txn};

/// The families this model holds tables of.
pub(crate) fn family_supported(family: u8) -> Step {
    match family {
        NFPROTO_IPV4 | NFPROTO_IPV6 => Ok(()),
        f => Err(Fail::unsupported(format!(
            "tables of family {f} (only ip and ip6 are modelled)"
        ))),
    }
}

pub(crate) fn new_table(tx: &mut Txn<'_>, m: &Msg<'_>) -> Step {
    family_supported(m.family)?;
    let Some(name) = m.name(NFTA_TABLE_NAME) else {
        return Err(Fail::errno(libc::EINVAL));
    };
    let flags = m.be32(NFTA_TABLE_FLAGS);
    if let Some(t) = tx.nft.lookup(m.family, name) {
        if m.flags & NLM_F_EXCL != 0 {
            return Err(m.fail_at(libc::EEXIST, NFTA_TABLE_NAME));
        }
        if m.flags & NLM_F_REPLACE != 0 {
            return Err(Fail::errno(libc::EOPNOTSUPP));
        }
        // An update: nothing to do unless the flags change.
        let Some(flags) = flags else { return Ok(()) };
        if flags & !NFT_TABLE_F_MASK != 0 {
            return Err(Fail::errno(libc::EOPNOTSUPP));
        }
        if flags == tx.nft.table(t).flags {
            return Ok(());
        }
        return Err(Fail::unsupported(
            "changing a table's flags (dormant, owner)",
        ));
    }
    let flags = flags.unwrap_or(0);
    if flags & !NFT_TABLE_F_MASK != 0 {
        return Err(Fail::errno(libc::EOPNOTSUPP));
    }
    if flags != 0 {
        return Err(Fail::unsupported("tables with flags (dormant, owner)"));
    }
    tx.nft.table_handles += 1;
    let table = Table {
        family: m.family,
        name: text(name)?,
        flags,
        handle: tx.nft.table_handles,
        hgen: 0,
        use_count: 0,
        udata: m.get(NFTA_TABLE_USERDATA).map(|a| a.data().into()),
        chains: Vec::new(),
        order: Vec::new(),
        by_name: Default::default(),
        life: Life::New,
        validate_each: tx.nft.validate_each,
    };
    tx.nft.tables.push(Some(table));
    let id = tx.nft.tables.len() - 1;
    tx.nft.order.push(id);
    tx.table_added(id);
    Ok(())
}

pub(crate) fn del_table(tx: &mut Txn<'_>, m: &Msg<'_>) -> Step {
    if m.family == 0 || (m.get(NFTA_TABLE_NAME).is_none() && m.get(NFTA_TABLE_HANDLE).is_none()) {
        return Err(Fail::unsupported("flushing the whole ruleset"));
    }
    family_supported(m.family)?;
    let (t, attr) = match m.be64(NFTA_TABLE_HANDLE) {
        Some(h) => (
            tx.nft
                .tables_in_order()
                .find(|(_, t)| t.handle == h && t.life != Life::Gone)
                .map(|(id, _)| id),
            NFTA_TABLE_HANDLE,
        ),
        None => (
            m.name(NFTA_TABLE_NAME)
                .and_then(|n| tx.nft.lookup(m.family, n)),
            NFTA_TABLE_NAME,
        ),
    };
    let Some(t) = t else {
        return Err(m.fail_at(libc::ENOENT, attr));
    };
    if m.flags & NLM_F_NONREC != 0 && tx.nft.table(t).use_count > 0 {
        return Err(Fail::errno(libc::EBUSY));
    }
    // nft_flush_table: the rules of every chain, then the chains, then the table.
    let chains: Vec<usize> = tx
        .nft
        .table(t)
        .chains_in_order()
        .filter(|(_, c)| c.life != Life::Gone)
        .map(|(id, _)| id)
        .collect();
    for &c in &chains {
        tx.flush_chain(t, c)?;
    }
    for &c in &chains {
        tx.chain_deleted(t, c);
    }
    tx.table_deleted(t);
    Ok(())
}
