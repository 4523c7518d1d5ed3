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
    let (_, rules, genid) = rules_chain_by_chain(conn, family, table, chain)?;
    Ok((rules, genid))
}

/// Dumps the rules of one chain, handing each rule message to `each` as it comes, neither
/// collected nor decoded (a restore reads tens of thousands of chains this way, one request
/// each, no generation request around each one). `Ok(None)` when the chain or its table
/// does not exist (a chain without rules is asked for by name to tell); otherwise the dump's status, whose `genid_low` the caller checks against
/// the generation it expects.
///
/// ```no_run
/// use iptnl::nft::{dump::each_rule_of_chain, Family};
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let mut n = 0;
/// each_rule_of_chain(&mut conn, Family::Ipv4, "filter", "INPUT", |_| {
///     n += 1;
///     Ok(())
/// })?;
/// println!("{n} rules");
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn each_rule_of_chain(
    conn: &mut Conn,
    family: Family,
    table: &str,
    chain: &str,
    mut each: impl FnMut(&Message<'_>) -> Result<(), DecodeError>,
) -> Result<Option<crate::netlink::DumpStatus>, Error> {
    let mut any = false;
    let r = conn.dump(
        "listing rules",
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
        family.raw(),
        |w| {
            w.put_str(NFTA_RULE_TABLE, table);
            w.put_str(NFTA_RULE_CHAIN, chain);
        },
        |m| {
            if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                any = true;
                each(m)?;
            }
            Ok(())
        },
    );
    match r {
        // The kernel dumps nothing, without an error, for a chain that does not exist.
        Ok(st) if !any => Ok(get_chain(conn, family, table, chain)?.map(|_| st)),
        Ok(st) => Ok(Some(st)),
        Err(e) if e.errno() == Some(libc::ENOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Lists the chains of a family (or all), optionally of one table, and all their rules (in
/// chain order), consistent with one generation: one chain dump, then the rules chain by
/// chain as [`list_rules`] does. A save needs both, and the chain dump is not cheap with
/// tens of thousands of chains.
pub fn list_chains_and_rules(
    conn: &mut Conn,
    family: Option<Family>,
    table: Option<&str>,
) -> Result<(Vec<Chain>, Vec<Rule>, u32), Error> {
    rules_chain_by_chain(conn, family, table, None)
}

/// The positions in `chains` of the chains named `names`, in the order of `names` (names
/// not in `chains` are left out): what a [`dump_rules_by_chain`] `start` returns for an
/// order of its own.
///
/// ```
/// use iptnl::nft::{chain_positions, Chain, Family};
/// let chains = ["a", "b", "c"].map(|n| Chain::user(Family::Ipv4, "filter", n));
/// assert_eq!(chain_positions(&chains, ["c", "x", "a"]), [2, 0]);
/// ```
pub fn chain_positions<'a>(
    chains: &[Chain],
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<usize> {
    let index: std::collections::HashMap<&str, usize> = chains
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    names
        .into_iter()
        .filter_map(|n| index.get(n).copied())
        .collect()
}

/// Dumps the rules of one table chain by chain, in the order `start` picks (indices into the
/// chain list it is given), and renders each chain's rules with `render` as soon as they are
/// read instead of collecting them all: a save of hundreds of thousands of rules stays small.
/// Returns the rendered text of all chains, in order, and the generation it belongs to.
///
/// With many chains the dumps are split between this connection and a second one on a
/// helper thread (in the same network namespace), which renders its half meanwhile. The
/// result is consistent with one generation: when the ruleset changes meanwhile, `start` is
/// called again with the new chain list and everything is dumped again.
pub fn dump_rules_by_chain(
    conn: &mut Conn,
    family: Family,
    table: &str,
    mut start: impl FnMut(&[Chain]) -> Vec<usize>,
    render: impl Fn(&Chain, &[Rule], &mut String) + Sync,
) -> Result<(String, u32), Error> {
    let mut retry = conn.dump_retry();
    while retry.again() {
        let before = conn.genid()?;
        let (chains, chains_gen) = list_chains(conn, Some(family), Some(table))?;
        if chains_gen != before {
            continue;
        }
        let picked: Vec<&Chain> = start(&chains)
            .iter()
            .filter_map(|&i| chains.get(i))
            .collect();
        // The second connection must be in the namespace of `conn` (not of the calling
        // thread): it is opened in the namespace the kernel reports for conn's socket.
        let second = if picked.len() >= 256 {
            conn_in_same_netns(conn)
        } else {
            None
        };
        let (mine, theirs) = if second.is_some() {
            picked.split_at(picked.len() / 2)
        } else {
            (&picked[..], &[][..])
        };
        let mut out = String::new();
        let (mine_ok, theirs_res) = std::thread::scope(|s| {
            let render = &render;
            let helper = second.map(|mut c2| {
                s.spawn(move || -> Result<Option<String>, Error> {
                    let mut out = String::new();
                    let ok = render_chains(&mut c2, theirs, before, render, &mut out)?;
                    Ok(ok.then_some(out))
                })
            });
            let mine_ok = render_chains(conn, mine, before, &render, &mut out);
            let theirs_res = helper.map(|h| match h.join() {
                Ok(r) => r,
                Err(p) => std::panic::resume_unwind(p),
            });
            (mine_ok, theirs_res)
        });
        let mut consistent = mine_ok?;
        match theirs_res {
            None => {}
            Some(Ok(Some(text))) => out.push_str(&text),
            Some(Ok(None)) => consistent = false,
            // No second connection (or it failed): this one does the rest.
            Some(Err(_)) => {
                consistent = consistent && render_chains(conn, theirs, before, &render, &mut out)?
            }
        }
        if consistent && conn.genid()? == before {
            return Ok((out, before));
        }
    }
    Err(Error::Netlink(crate::netlink::Error::DumpInterrupted {
        op: "listing rules",
        tries: retry.tries(),
    }))
}

/// A second connection in the network namespace of `conn`'s socket (`SIOCGSKNS`), if the
/// kernel tells it.
pub(crate) fn conn_in_same_netns(conn: &Conn) -> Option<Conn> {
    conn.open_another().ok()
}

/// Dumps and renders `chains` one by one; `false` when a dump saw another generation than
/// `before` (the caller starts over).
fn render_chains(
    conn: &mut Conn,
    chains: &[&Chain],
    before: u32,
    render: &(impl Fn(&Chain, &[Rule], &mut String) + Sync),
    out: &mut String,
) -> Result<bool, Error> {
    let mut rules = Vec::new();
    for ch in chains {
        rules.clear();
        if !dump_rules_into(
            conn,
            ch.family,
            &ch.table,
            Some(&ch.name),
            before,
            &mut rules,
        )? {
            return Ok(false);
        }
        render(ch, &rules, out);
    }
    Ok(true)
}

/// Dumps the rules of `table` (of one chain, when given) and appends them to `out`; `false`
/// when the dump was interrupted or saw another generation than `before`.
fn dump_rules_into(
    conn: &mut Conn,
    family: Family,
    table: &str,
    chain: Option<&str>,
    before: u32,
    out: &mut Vec<Rule>,
) -> Result<bool, Error> {
    let st = conn.dump(
        "listing rules",
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
        family.raw(),
        |w| {
            w.put_str(NFTA_RULE_TABLE, table);
            if let Some(c) = chain {
                w.put_str(NFTA_RULE_CHAIN, c);
            }
        },
        |m| {
            if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                out.push(Rule::decode(m)?);
            }
            Ok(())
        },
    )?;
    Ok(!st.interrupted && st.genid_low.is_none_or(|g| g == before as u16))
}

/// Up to this many chains, the rules of a table are read in one dump rather than chain by
/// chain.
const ONE_DUMP_CHAINS: usize = 512;

fn rules_chain_by_chain(
    conn: &mut Conn,
    family: Option<Family>,
    table: Option<&str>,
    chain: Option<&str>,
) -> Result<(Vec<Chain>, Vec<Rule>, u32), Error> {
    let mut retry = conn.dump_retry();
    while retry.again() {
        let before = conn.genid()?;
        let (chains, chains_gen) = list_chains(conn, family, table)?;
        let mut out = Vec::new();
        let mut consistent = chains_gen == before;
        // A table of few chains is read in one dump (its quadratic resume cost is small
        // there, and one round trip per chain is not): a node's portmap or Docker rules, or
        // `iptables -S` of a small table, in one request instead of hundreds.
        match (family, table, chain) {
            (Some(f), Some(t), None) if consistent && chains.len() <= ONE_DUMP_CHAINS => {
                consistent = dump_rules_into(conn, f, t, None, before, &mut out)?;
            }
            _ => {
                for ch in chains.iter().filter(|c| chain.is_none_or(|n| n == c.name)) {
                    if !consistent {
                        break;
                    }
                    consistent = dump_rules_into(
                        conn,
                        ch.family,
                        &ch.table,
                        Some(&ch.name),
                        before,
                        &mut out,
                    )?;
                }
            }
        }
        if consistent && conn.genid()? == before {
            return Ok((chains, out, before));
        }
    }
    Err(Error::Netlink(crate::netlink::Error::DumpInterrupted {
        op: "listing rules",
        tries: retry.tries(),
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

/// The anonymous sets of a table with their elements, by the name the kernel gave them
/// (`__set0`): what [`Rule::bind_sets`](super::Rule::bind_sets) needs to write a rule read
/// from the kernel back, in a new place or in place of itself. One set dump, and one
/// element dump per anonymous set.
///
/// ```no_run
/// use iptnl::nft::{anonymous_sets, Family};
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let sets = anonymous_sets(&mut conn, Family::Ipv4, "filter")?;
/// for (name, b) in &sets { println!("{name}: {} elements", b.elems.len()); }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn anonymous_sets(
    conn: &mut Conn,
    family: Family,
    table: &str,
) -> Result<std::collections::HashMap<String, super::rule::BoundSet>, Error> {
    let (sets, _) = list_sets(conn, Some(family), Some(table))?;
    let mut out = std::collections::HashMap::new();
    for set in sets.into_iter().filter(|s| s.is_anonymous()) {
        let (elems, _) = list_set_elems(conn, family, table, &set.name)?;
        out.insert(set.name.clone(), super::rule::BoundSet { set, elems });
    }
    Ok(out)
}

/// How many stateful objects (named counters, quotas, limits, ct helpers…) and flowtables a
/// table holds: things no rule text carries, which a restore that rebuilds the table would
/// lose. Two small dumps.
///
/// ```no_run
/// use iptnl::nft::{table_objects, Family};
/// let mut conn = iptnl::netlink::Conn::open()?;
/// let n = table_objects(&mut conn, Family::Ipv4, "filter")?;
/// println!("{n} objects and flowtables");
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn table_objects(conn: &mut Conn, family: Family, table: &str) -> Result<usize, Error> {
    let mut n = 0;
    for (msg, reply, what) in [
        (NFT_MSG_GETOBJ, NFT_MSG_NEWOBJ, "listing objects"),
        (
            NFT_MSG_GETFLOWTABLE,
            NFT_MSG_NEWFLOWTABLE,
            "listing flowtables",
        ),
    ] {
        // NFTA_OBJ_TABLE and NFTA_FLOWTABLE_TABLE are both attribute 1.
        let r = collect(
            conn,
            what,
            msg,
            reply,
            Some(family),
            |w| w.put_str(NFTA_OBJ_TABLE, table),
            |m| {
                let t = m
                    .nfgen()?
                    .attrs()
                    .table::<{ NFTA_OBJ_TABLE as usize + 1 }>()?;
                Ok(t.get(NFTA_OBJ_TABLE).and_then(|a| a.str().ok()) == Some(table))
            },
        );
        match r {
            Ok((v, _)) => n += v.into_iter().filter(|&same| same).count(),
            Err(e) if e.errno() == Some(libc::ENOENT) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
