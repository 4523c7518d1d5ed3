//! Reading the ruleset back: tables, chains and rules, consistent with one generation.

use iptnl_sys::nf_tables::*;
use iptnl_sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

use super::error::Error;
use super::{Chain, Family, Rule, Table};
use crate::netlink::{Conn, DecodeError, Message};

fn fam(f: Option<Family>) -> u8 {
    f.map(Family::raw).unwrap_or(0)
}

fn collect<T>(
    conn: &mut Conn,
    op: &'static str,
    msg: u16,
    reply: u16,
    family: Option<Family>,
    filter: impl Fn(&mut crate::netlink::MsgWriter),
    decode: impl Fn(&Message<'_>) -> Result<T, DecodeError>,
) -> Result<(Vec<T>, u32), Error> {
    let out = std::cell::RefCell::new(Vec::new());
    let genid = conn.dump_consistent(
        op,
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
        fam(family),
        filter,
        || out.borrow_mut().clear(),
        |m| {
            if nfnl_msg_id(m.msg_type()) == reply {
                out.borrow_mut().push(decode(m)?);
            }
            Ok(())
        },
    )?;
    Ok((out.into_inner(), genid))
}

/// Lists tables (of one family, or all), with the generation they belong to.
///
/// ```no_run
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let (tables, _genid) = iptnl::nft::list_tables(&mut conn, None)?;
/// for t in tables { println!("{} {}", t.family, t.name); }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn list_tables(conn: &mut Conn, family: Option<Family>) -> Result<(Vec<Table>, u32), Error> {
    collect(
        conn,
        "listing tables",
        NFT_MSG_GETTABLE,
        NFT_MSG_NEWTABLE,
        family,
        |_| {},
        Table::decode,
    )
}

/// Lists chains, optionally of one table (the filter is applied here; the kernel dumps the
/// chains of the family).
pub fn list_chains(
    conn: &mut Conn,
    family: Option<Family>,
    table: Option<&str>,
) -> Result<(Vec<Chain>, u32), Error> {
    let (mut v, g) = collect(
        conn,
        "listing chains",
        NFT_MSG_GETCHAIN,
        NFT_MSG_NEWCHAIN,
        family,
        |_| {},
        Chain::decode,
    )?;
    if let Some(t) = table {
        v.retain(|c| c.table == t);
    }
    Ok((v, g))
}

/// Reads one chain without a dump; `Ok(None)` when it (or its table) does not exist.
pub fn get_chain(
    conn: &mut Conn,
    family: Family,
    table: &str,
    name: &str,
) -> Result<Option<Chain>, Error> {
    let mut out = None;
    let r = conn.request(
        "reading a chain",
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETCHAIN),
        family.raw(),
        |w| {
            w.put_str(NFTA_CHAIN_TABLE, table);
            w.put_str(NFTA_CHAIN_NAME, name);
        },
        |m| {
            if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWCHAIN {
                out = Some(Chain::decode(m)?);
            }
            Ok(())
        },
    );
    match r {
        Ok(()) => Ok(out),
        Err(e) if e.errno() == Some(libc::ENOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Lists rules of a family (or all), optionally of one table and one chain, with the
/// generation they belong to.
///
/// The kernel resumes a rule dump by walking the chain from its first rule again, so one dump
/// over a table with long chains is quadratic (a million rules took minutes). Unless a single
/// chain is asked for, this lists the chains first and dumps them one by one (each request
/// filtered by table and chain), all within one generation: when the ruleset changes
/// meanwhile, it starts over.
pub fn list_rules(
    conn: &mut Conn,
    family: Option<Family>,
    table: Option<&str>,
    chain: Option<&str>,
) -> Result<(Vec<Rule>, u32), Error> {
    if let (Some(t), Some(c)) = (table, chain) {
        return collect(
            conn,
            "listing rules",
            NFT_MSG_GETRULE,
            NFT_MSG_NEWRULE,
            family,
            |w| {
                w.put_str(NFTA_RULE_TABLE, t);
                w.put_str(NFTA_RULE_CHAIN, c);
            },
            Rule::decode,
        );
    }
    for _ in 0..crate::netlink::DUMP_RETRIES {
        let before = conn.genid()?;
        let (chains, chains_gen) = list_chains(conn, family, table)?;
        let mut out = Vec::new();
        let mut consistent = chains_gen == before;
        for ch in chains.iter().filter(|c| chain.is_none_or(|n| n == c.name)) {
            if !consistent {
                break;
            }
            let st = conn.dump(
                "listing rules",
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
                ch.family.raw(),
                |w| {
                    w.put_str(NFTA_RULE_TABLE, &ch.table);
                    w.put_str(NFTA_RULE_CHAIN, &ch.name);
                },
                |m| {
                    if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                        out.push(Rule::decode(m)?);
                    }
                    Ok(())
                },
            )?;
            consistent = !st.interrupted && st.genid_low.is_none_or(|g| g == before as u16);
        }
        if consistent && conn.genid()? == before {
            return Ok((out, before));
        }
    }
    Err(Error::Netlink(crate::netlink::Error::DumpInterrupted {
        op: "listing rules",
        tries: crate::netlink::DUMP_RETRIES,
    }))
}

/// Lists sets and maps (named and anonymous) of a family, optionally of one table, with the
/// generation they belong to. With both a family and a table the kernel dumps only that
/// table; a table that does not exist gives an empty list.
///
/// ```no_run
/// use iptnl::nft::{list_sets, Family};
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let (sets, _genid) = list_sets(&mut conn, Some(Family::Inet), Some("filter"))?;
/// for s in sets { println!("{} key type {} ({} bytes)", s.name, s.key_type, s.key_len); }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn list_sets(
    conn: &mut Conn,
    family: Option<Family>,
    table: Option<&str>,
) -> Result<(Vec<super::Set>, u32), Error> {
    let in_request = family.is_some();
    let r = collect(
        conn,
        "listing sets",
        NFT_MSG_GETSET,
        NFT_MSG_NEWSET,
        family,
        |w| {
            if let (true, Some(t)) = (in_request, table) {
                w.put_str(NFTA_SET_TABLE, t);
            }
        },
        super::Set::decode,
    );
    let (mut v, g) = match r {
        Err(e) if in_request && table.is_some() && e.errno() == Some(libc::ENOENT) => {
            (Vec::new(), conn.genid()?)
        }
        r => r?,
    };
    if let Some(t) = table {
        v.retain(|s| s.table == t);
    }
    Ok((v, g))
}

/// Lists the elements of one set or map (interval sets include their interval-end
/// elements, as the kernel stores them), with the generation they belong to.
///
/// ```no_run
/// use iptnl::nft::{list_set_elems, Family};
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let (elems, _genid) = list_set_elems(&mut conn, Family::Inet, "filter", "allowed")?;
/// for e in elems { println!("{:?} -> {:?}", e.key, e.data); }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn list_set_elems(
    conn: &mut Conn,
    family: Family,
    table: &str,
    set: &str,
) -> Result<(Vec<super::SetElem>, u32), Error> {
    let (msgs, g) = collect(
        conn,
        "listing set elements",
        NFT_MSG_GETSETELEM,
        NFT_MSG_NEWSETELEM,
        Some(family),
        |w| {
            w.put_str(NFTA_SET_ELEM_LIST_TABLE, table);
            w.put_str(NFTA_SET_ELEM_LIST_SET, set);
        },
        super::SetElems::decode,
    )?;
    Ok((msgs.into_iter().flat_map(|m| m.elems).collect(), g))
}
