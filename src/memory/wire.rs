//! The messages the kernel sends, built from the model's objects: tables, chains and rules
//! as `NFT_MSG_NEW*` messages with the kernel's attribute order (dumps, events, echoes), the
//! generation, `NLMSG_ERROR` acknowledgements and refusals, `NLMSG_DONE`.

use iptnl_sys::netlink::{
    NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS, NLMSG_DONE, NLMSG_ERROR, NLMSG_HDRLEN, NLM_F_ACK_TLVS,
    NLM_F_CAPPED, NLM_F_MULTI,
};
use iptnl_sys::nf_tables::*;
use iptnl_sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

use super::exprs::Interner;
use super::state::{Chain, Rule, Table};
use crate::netlink::MsgWriter;

/// Where a message goes and what it answers: the header fields the kernel fills in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head {
    pub flags: u16,
    pub seq: u32,
    pub portid: u32,
    pub genid: u32,
}

fn begin(w: &mut MsgWriter, msg: u16, head: Head, family: u8) -> crate::netlink::MsgStart {
    w.begin(
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
        head.flags,
        head.seq,
        family,
        (head.genid & 0xffff) as u16,
    )
}

/// Closes a message and writes its port id (the writer leaves it zero).
fn finish(w: &mut MsgWriter, m: crate::netlink::MsgStart, portid: u32) {
    let at = m.offset();
    if w.finish(m).is_err() {
        // Every message here is far below the limits; keep the buffer consistent anyway.
        w.truncate(at);
        return;
    }
    w.bytes_mut()[at + 12..at + 16].copy_from_slice(&portid.to_ne_bytes());
}

/// `NFT_MSG_NEWTABLE`/`DELTABLE` for `t`.
pub(crate) fn table(w: &mut MsgWriter, msg: u16, head: Head, t: &Table) {
    let m = begin(w, msg, head, t.family);
    w.put_str(NFTA_TABLE_NAME, &t.name);
    w.put_be32(NFTA_TABLE_USE, t.use_count);
    w.put_be64(NFTA_TABLE_HANDLE, t.handle);
    if msg == NFT_MSG_DELTABLE {
        // A deleted table is reported without its flags and user data.
        finish(w, m, head.portid);
        return;
    }
    w.put_be32(NFTA_TABLE_FLAGS, t.flags);
    if let Some(u) = &t.udata {
        w.put(NFTA_TABLE_USERDATA, u);
    }
    finish(w, m, head.portid);
}

/// `NFT_MSG_NEWCHAIN`/`DELCHAIN` for chain `c` of table `t`.
pub(crate) fn chain(w: &mut MsgWriter, msg: u16, head: Head, t: &Table, c: &Chain) {
    let m = begin(w, msg, head, t.family);
    w.put_str(NFTA_CHAIN_TABLE, &t.name);
    w.put_str(NFTA_CHAIN_NAME, &c.name);
    w.put_be64(NFTA_CHAIN_HANDLE, c.handle);
    if msg == NFT_MSG_DELCHAIN {
        // A deleted chain is reported by table, name and handle only.
        finish(w, m, head.portid);
        return;
    }
    if let Some(b) = &c.base {
        let n = w.nest(NFTA_CHAIN_HOOK);
        w.put_be32(NFTA_HOOK_HOOKNUM, b.hooknum);
        w.put_be32(NFTA_HOOK_PRIORITY, b.priority as u32);
        w.end_nest(n);
        w.put_be32(NFTA_CHAIN_POLICY, b.policy);
        w.put_str(NFTA_CHAIN_TYPE, b.chain_type.name());
        if let Some((packets, bytes)) = b.stats {
            let n = w.nest(NFTA_CHAIN_COUNTERS);
            w.put_be64(NFTA_COUNTER_PACKETS, packets);
            w.put_be64(NFTA_COUNTER_BYTES, bytes);
            w.end_nest(n);
        }
    }
    if c.flags != 0 {
        w.put_be32(NFTA_CHAIN_FLAGS, c.flags);
    }
    w.put_be32(NFTA_CHAIN_USE, c.use_count);
    if let Some(u) = &c.udata {
        w.put(NFTA_CHAIN_USERDATA, u);
    }
    finish(w, m, head.portid);
}

/// `NFT_MSG_NEWRULE`/`DELRULE` for rule `r` of chain `c`, with `position` (the handle of the
/// rule before it) when given.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rule(
    w: &mut MsgWriter,
    msg: u16,
    head: Head,
    t: &Table,
    c: &Chain,
    r: &Rule,
    position: Option<u64>,
    exprs: &Interner,
) {
    let m = begin(w, msg, head, t.family);
    w.put_str(NFTA_RULE_TABLE, &t.name);
    w.put_str(NFTA_RULE_CHAIN, &c.name);
    w.put_be64(NFTA_RULE_HANDLE, r.handle);
    if let Some(p) = position {
        w.put_be64(NFTA_RULE_POSITION, p);
    }
    let n = w.nest(NFTA_RULE_EXPRESSIONS);
    for &e in r.exprs() {
        w.put_interned(|buf| exprs.write(e, buf));
    }
    w.end_nest(n);
    if let Some(u) = r.udata() {
        w.put(NFTA_RULE_USERDATA, &exprs.bytes(u));
    }
    finish(w, m, head.portid);
}

/// `NFT_MSG_NEWGEN`: the generation and who committed it.
pub(crate) fn gen(w: &mut MsgWriter, head: Head, who: (u32, &str)) {
    let m = begin(w, NFT_MSG_NEWGEN, head, 0);
    w.put_be32(NFTA_GEN_ID, head.genid);
    w.put_be32(NFTA_GEN_PROC_PID, who.0);
    w.put_str(NFTA_GEN_PROC_NAME, who.1);
    finish(w, m, head.portid);
}

/// `NLMSG_DONE` ending a dump.
pub(crate) fn done(w: &mut MsgWriter, seq: u32, portid: u32) {
    let at = w.len();
    let len = (NLMSG_HDRLEN + 4) as u32;
    let mut b = Vec::with_capacity(len as usize);
    b.extend_from_slice(&len.to_ne_bytes());
    b.extend_from_slice(&NLMSG_DONE.to_ne_bytes());
    b.extend_from_slice(&NLM_F_MULTI.to_ne_bytes());
    b.extend_from_slice(&seq.to_ne_bytes());
    b.extend_from_slice(&portid.to_ne_bytes());
    b.extend_from_slice(&0i32.to_ne_bytes());
    w.put_raw(&b);
    debug_assert_eq!(w.len(), at + len as usize);
}

/// An `NLMSG_ERROR` answering the message whose header is `orig` (its first 16 bytes):
/// an acknowledgement for `errno` 0, a refusal otherwise, with the extended-ACK message and
/// the offset of the offending attribute when given. Capped, as on a socket with
/// `NETLINK_CAP_ACK`.
pub(crate) fn error(
    w: &mut MsgWriter,
    orig: &[u8],
    portid: u32,
    errno: i32,
    offset: Option<u32>,
    msg: Option<&str>,
) {
    let mut tlv = MsgWriter::new();
    if let Some(m) = msg {
        tlv.put_str(NLMSGERR_ATTR_MSG, m);
    }
    if let Some(o) = offset {
        tlv.put(NLMSGERR_ATTR_OFFS, &o.to_ne_bytes());
    }
    let mut flags = NLM_F_CAPPED;
    if !tlv.is_empty() {
        flags |= NLM_F_ACK_TLVS;
    }
    let len = (NLMSG_HDRLEN + 4 + NLMSG_HDRLEN + tlv.len()) as u32;
    let seq = orig
        .get(8..12)
        .map(|s| u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
        .unwrap_or(0);
    let mut b = Vec::with_capacity(len as usize);
    b.extend_from_slice(&len.to_ne_bytes());
    b.extend_from_slice(&NLMSG_ERROR.to_ne_bytes());
    b.extend_from_slice(&flags.to_ne_bytes());
    b.extend_from_slice(&seq.to_ne_bytes());
    b.extend_from_slice(&portid.to_ne_bytes());
    b.extend_from_slice(&(-errno).to_ne_bytes());
    let mut hdr = [0u8; NLMSG_HDRLEN];
    let n = orig.len().min(NLMSG_HDRLEN);
    hdr[..n].copy_from_slice(&orig[..n]);
    b.extend_from_slice(&hdr);
    b.extend_from_slice(tlv.as_bytes());
    w.put_raw(&b);
}
