//! Requests outside batches: the generation (`NFT_MSG_GETGEN`), one table, chain or rule,
//! dumps of tables, chains and rules (built a datagram at a time as the reader reads, as
//! the kernel builds them, flagged `NLM_F_DUMP_INTR` when a commit came in between), the
//! empty dumps of object kinds the model never holds, and the x_tables revision probe.

use iptnl_sys::netlink::{NLM_F_ACK, NLM_F_APPEND, NLM_F_DUMP, NLM_F_DUMP_INTR, NLM_F_MULTI};
use iptnl_sys::nf_tables::*;
use iptnl_sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES, NFNL_SUBSYS_NFT_COMPAT};
use iptnl_sys::nft_compat::{
    NFNL_MSG_COMPAT_GET, NFTA_COMPAT_NAME, NFTA_COMPAT_REV, NFTA_COMPAT_TYPE,
};

use super::batch::Who;
use super::state::{Life, Nft};
use super::wire::{self, Head};
use super::xt;
use crate::netlink::{Message, MsgWriter};

/// The most a dump puts in one datagram.
const DUMP_DATAGRAM: usize = 32 * 1024;

/// What a request is answered with.
#[derive(Debug)]
pub(crate) enum Answer {
    /// One datagram, at once.
    Now(Vec<u8>),
    /// A dump, built as it is read.
    Dump(Dump),
}

/// What a dump lists.
#[derive(Debug, Clone)]
enum Kind {
    Tables,
    Chains,
    Rules {
        table: Option<Vec<u8>>,
        chain: Option<Vec<u8>>,
    },
    /// Sets, objects, flowtables: the model holds none.
    Nothing,
}

/// A dump in progress: where it stands in the lists, as the kernel's dump callbacks keep
/// their place by index.
#[derive(Debug, Clone)]
pub(crate) struct Dump {
    kind: Kind,
    family: u8,
    seq: u32,
    portid: u32,
    /// The generation when the dump started.
    genid: u32,
    table: usize,
    chain: usize,
    rule: usize,
    prev: Option<u64>,
    done: bool,
}

impl Dump {
    /// The next datagram of the dump, and whether it was the last.
    pub fn next(&mut self, nft: &Nft) -> (Vec<u8>, bool) {
        let mut w = MsgWriter::with_capacity(DUMP_DATAGRAM + 4096);
        let intr = if nft.genid != self.genid {
            NLM_F_DUMP_INTR
        } else {
            0
        };
        let head = |flags| Head {
            flags: flags | intr,
            seq: self.seq,
            portid: self.portid,
            genid: nft.genid,
        };
        let tables: Vec<usize> = nft
            .order
            .iter()
            .copied()
            .filter(|&id| {
                nft.tables[id].as_ref().is_some_and(|t| {
                    t.life == Life::Live && (self.family == 0 || t.family == self.family)
                })
            })
            .collect();
        'outer: while self.table < tables.len() {
            let table = nft.table(tables[self.table]);
            match &self.kind {
                Kind::Nothing => break,
                Kind::Tables => {
                    if w.len() >= DUMP_DATAGRAM {
                        return (w.into_bytes(), false);
                    }
                    wire::table(&mut w, NFT_MSG_NEWTABLE, head(NLM_F_MULTI), table);
                    self.table += 1;
                    continue;
                }
                Kind::Chains => {
                    let chains: Vec<usize> = table.order.clone();
                    while self.chain < chains.len() {
                        if w.len() >= DUMP_DATAGRAM {
                            return (w.into_bytes(), false);
                        }
                        if let Some(c) = table.chains[chains[self.chain]].as_ref() {
                            wire::chain(&mut w, NFT_MSG_NEWCHAIN, head(NLM_F_MULTI), table, c);
                        }
                        self.chain += 1;
                    }
                }
                Kind::Rules {
                    table: want_table,
                    chain: want_chain,
                } => {
                    if want_table
                        .as_deref()
                        .is_some_and(|n| n != table.name.as_bytes())
                    {
                        self.table += 1;
                        self.chain = 0;
                        continue;
                    }
                    let chains: Vec<usize> = match want_chain {
                        Some(n) => std::str::from_utf8(n)
                            .ok()
                            .and_then(|n| table.named(n))
                            .into_iter()
                            .collect(),
                        None => table.order.clone(),
                    };
                    while self.chain < chains.len() {
                        if let Some(c) = table.chains[chains[self.chain]].as_ref() {
                            while self.rule < c.rules.len() {
                                if w.len() >= DUMP_DATAGRAM {
                                    return (w.into_bytes(), false);
                                }
                                let r = &c.rules[self.rule];
                                wire::rule(
                                    &mut w,
                                    NFT_MSG_NEWRULE,
                                    head(NLM_F_MULTI | NLM_F_APPEND),
                                    table,
                                    c,
                                    r,
                                    self.prev,
                                    &nft.exprs,
                                );
                                self.prev = Some(r.handle);
                                self.rule += 1;
                            }
                        }
                        self.chain += 1;
                        self.rule = 0;
                        self.prev = None;
                    }
                    if want_table.is_some() {
                        break 'outer;
                    }
                }
            }
            self.table += 1;
            self.chain = 0;
        }
        self.done = true;
        wire::done(&mut w, self.seq, self.portid);
        (w.into_bytes(), true)
    }
}

fn ack(w: &mut MsgWriter, m: &Message<'_>, portid: u32) {
    if m.flags() & NLM_F_ACK != 0 {
        wire::error(w, m.bytes(), portid, 0, None, None);
    }
}

/// Answers one request message `m` from `portid`. `Err` names what the model does not
/// support.
pub(crate) fn answer(
    nft: &Nft,
    m: &Message<'_>,
    portid: u32,
    who: &Who<'_>,
) -> Result<Answer, String> {
    let subsys = m.msg_type() >> 8;
    let id = m.msg_type() & 0xff;
    let Ok(nf) = m.nfgen() else {
        return Err("a request that is not an nfnetlink message".into());
    };
    let family = nf.family;
    let attrs = nf.attrs().table::<24>().ok();
    let attr = |ty: u16| attrs.as_ref().and_then(|t| t.get(ty));
    let name = |ty: u16| {
        attr(ty).map(|a| {
            let d = a.data();
            d.iter()
                .position(|&b| b == 0)
                .map_or(d, |n| &d[..n])
                .to_vec()
        })
    };
    let offset_of = |ty: u16| {
        attr(ty).map(|a| {
            (a.data().as_ptr() as usize)
                .saturating_sub(m.bytes().as_ptr() as usize)
                .saturating_sub(4) as u32
        })
    };
    // Room for one object's message and an acknowledgement without growing.
    let mut w = MsgWriter::with_capacity(512);
    if subsys == NFNL_SUBSYS_NFT_COMPAT && id == NFNL_MSG_COMPAT_GET {
        return compat(
            m,
            family,
            portid,
            attr(NFTA_COMPAT_NAME),
            attr(NFTA_COMPAT_REV),
            attr(NFTA_COMPAT_TYPE),
        );
    }
    if subsys != NFNL_SUBSYS_NFTABLES {
        return Err(format!("netfilter subsystem {subsys} requests"));
    }
    let dump = m.flags() & NLM_F_DUMP == NLM_F_DUMP;
    let head = Head {
        flags: 0,
        seq: m.seq(),
        portid,
        genid: nft.genid,
    };
    if dump {
        let kind = match id {
            NFT_MSG_GETTABLE => Kind::Tables,
            NFT_MSG_GETCHAIN => Kind::Chains,
            NFT_MSG_GETRULE => Kind::Rules {
                table: name(NFTA_RULE_TABLE),
                chain: name(NFTA_RULE_CHAIN),
            },
            NFT_MSG_GETSET | NFT_MSG_GETOBJ | NFT_MSG_GETFLOWTABLE => Kind::Nothing,
            NFT_MSG_GETSETELEM => {
                // The set's table must exist, and the set never does.
                let table = name(NFTA_SET_ELEM_LIST_TABLE);
                let missing = match table {
                    Some(t) if nft.live_tables(family).any(|x| x.name.as_bytes() == t) => {
                        offset_of(NFTA_SET_ELEM_LIST_SET)
                    }
                    _ => offset_of(NFTA_SET_ELEM_LIST_TABLE),
                };
                wire::error(&mut w, m.bytes(), portid, libc::ENOENT, missing, None);
                return Ok(Answer::Now(w.into_bytes()));
            }
            other => return Err(format!("dumps of nf_tables message type {other}")),
        };
        return Ok(Answer::Dump(Dump {
            kind,
            family,
            seq: m.seq(),
            portid,
            genid: nft.genid,
            table: 0,
            chain: 0,
            rule: 0,
            prev: None,
            done: false,
        }));
    }
    match id {
        NFT_MSG_GETGEN => {
            wire::gen(&mut w, head, (who.pid, who.name));
            ack(&mut w, m, portid);
        }
        NFT_MSG_GETTABLE | NFT_MSG_GETCHAIN | NFT_MSG_GETRULE => {
            // An object not found: `EINVAL` when the attribute naming it is absent,
            // `ENOENT` (pointing at the attribute) when nothing has that name.
            let not_found = |ty: u16, absent: bool| {
                let errno = if absent { libc::EINVAL } else { libc::ENOENT };
                let mut w = MsgWriter::new();
                wire::error(&mut w, m.bytes(), portid, errno, offset_of(ty), None);
                Answer::Now(w.into_bytes())
            };
            let table_attr = match id {
                NFT_MSG_GETTABLE => NFTA_TABLE_NAME,
                NFT_MSG_GETCHAIN => NFTA_CHAIN_TABLE,
                _ => NFTA_RULE_TABLE,
            };
            let table = name(table_attr).and_then(|n| {
                nft.live_tables(family)
                    .find(|t| t.family == family && t.name.as_bytes() == n)
            });
            let Some(table) = table else {
                return Ok(not_found(table_attr, attr(table_attr).is_none()));
            };
            if id == NFT_MSG_GETTABLE {
                wire::table(&mut w, NFT_MSG_NEWTABLE, head, table);
                ack(&mut w, m, portid);
                return Ok(Answer::Now(w.into_bytes()));
            }
            let chain_attr = if id == NFT_MSG_GETCHAIN {
                NFTA_CHAIN_NAME
            } else {
                NFTA_RULE_CHAIN
            };
            let chain = name(chain_attr)
                .and_then(|n| String::from_utf8(n).ok())
                .and_then(|n| table.named(&n))
                .and_then(|c| table.chains[c].as_ref());
            let Some(chain) = chain else {
                return Ok(not_found(chain_attr, attr(chain_attr).is_none()));
            };
            if id == NFT_MSG_GETCHAIN {
                wire::chain(&mut w, NFT_MSG_NEWCHAIN, head, table, chain);
                ack(&mut w, m, portid);
                return Ok(Answer::Now(w.into_bytes()));
            }
            let handle = attr(NFTA_RULE_HANDLE).and_then(|a| a.be64().ok());
            let rule = handle.and_then(|h| chain.rules.iter().find(|r| r.handle == h));
            let Some(rule) = rule else {
                return Ok(not_found(NFTA_RULE_HANDLE, handle.is_none()));
            };
            wire::rule(
                &mut w,
                NFT_MSG_NEWRULE,
                head,
                table,
                chain,
                rule,
                None,
                &nft.exprs,
            );
            ack(&mut w, m, portid);
        }
        other => return Err(format!("nf_tables requests of message type {other}")),
    }
    Ok(Answer::Now(w.into_bytes()))
}

/// `NFNL_MSG_COMPAT_GET`: whether the kernel offers an x_tables extension revision, as
/// `xt_find_revision` answers it, for the extensions this model knows; any other is not
/// modelled (whether the kernel has it depends on its modules).
fn compat(
    m: &Message<'_>,
    family: u8,
    portid: u32,
    name: Option<crate::netlink::Attr<'_>>,
    rev: Option<crate::netlink::Attr<'_>>,
    ty: Option<crate::netlink::Attr<'_>>,
) -> Result<Answer, String> {
    let mut w = MsgWriter::new();
    let (Some(name), Some(rev), Some(ty)) = (
        name.and_then(|a| a.str().ok()),
        rev.and_then(|a| a.be32().ok()),
        ty.and_then(|a| a.be32().ok()),
    ) else {
        wire::error(&mut w, m.bytes(), portid, libc::EINVAL, None, None);
        return Ok(Answer::Now(w.into_bytes()));
    };
    let v6 = match family {
        iptnl_sys::netfilter::NFPROTO_IPV4 => false,
        iptnl_sys::netfilter::NFPROTO_IPV6 => true,
        _ => {
            wire::error(&mut w, m.bytes(), portid, libc::EINVAL, None, None);
            return Ok(Answer::Now(w.into_bytes()));
        }
    };
    let target = ty != 0;
    let revs: Vec<u32> = xt::CATALOG
        .iter()
        .filter(|e| e.name == name && e.target == target && e.v6.is_none_or(|f| f == v6))
        .map(|e| e.rev)
        .collect();
    if revs.is_empty() {
        return Err(format!(
            "whether the kernel offers the x_tables {} {name}",
            if target { "target" } else { "match" }
        ));
    }
    if !revs.contains(&rev) {
        let best = revs.iter().copied().max().unwrap_or(0);
        if rev > best {
            wire::error(&mut w, m.bytes(), portid, libc::EPROTONOSUPPORT, None, None);
            return Ok(Answer::Now(w.into_bytes()));
        }
        return Err(format!(
            "whether the kernel offers revision {rev} of the x_tables {name}"
        ));
    }
    let best = revs.iter().copied().max().unwrap_or(rev);
    let start = w.begin(
        nfnl_msg_type(NFNL_SUBSYS_NFT_COMPAT, NFNL_MSG_COMPAT_GET),
        0,
        m.seq(),
        family,
        0,
    );
    w.put_str(NFTA_COMPAT_NAME, name);
    w.put_be32(NFTA_COMPAT_REV, best);
    w.put_be32(NFTA_COMPAT_TYPE, ty);
    let at = start.offset();
    if w.finish(start).is_ok() {
        w.bytes_mut()[at + 12..at + 16].copy_from_slice(&portid.to_ne_bytes());
    }
    ack(&mut w, m, portid);
    Ok(Answer::Now(w.into_bytes()))
}
