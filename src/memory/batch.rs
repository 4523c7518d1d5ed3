//! A batch datagram (BATCH_BEGIN, nf_tables messages, BATCH_END) applied as nfnetlink and
//! nf_tables apply it: the generation check, every message processed even after one is
//! refused (each refusal answered in order), all or nothing, the validation at commit and
//! its replay (after a failed validation the batch is applied again, validating after each
//! rule, so that the refusal names the rule that made the ruleset invalid), the events of
//! the commit, and the acknowledgement of BATCH_END.

use iptnl_sys::netlink::{
    NLM_F_ACK, NLM_F_APPEND, NLM_F_CREATE, NLM_F_ECHO, NLM_F_EXCL, NLM_F_REPLACE,
};
use iptnl_sys::nf_tables::*;
use iptnl_sys::nfnetlink::{
    NFNL_BATCH_GENID, NFNL_MSG_BATCH_BEGIN, NFNL_MSG_BATCH_END, NFNL_SUBSYS_NFTABLES,
};

use super::graph::{self, Validator};
use super::msg::Msg;
use super::state::Nft;
use super::txn::{Ctx, Fail, Pos, Trans, Txn, Validate};
use super::wire::{self, Head};
use super::{chains, rules, tables};
use crate::netlink::{Message, Messages, MsgWriter};

/// The largest datagram of events the model sends (the kernel batches its notifications
/// into socket buffers of about this size).
const EVENT_DATAGRAM: usize = 8192;

/// The room a datagram of events starts with (one rule's event fits; bigger commits grow it).
const EVENT_START: usize = 1024;

/// What a batch sends back.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Datagrams for the sender: echoes, refusals, acknowledgements.
    pub replies: Vec<Vec<u8>>,
    /// Datagrams for the members of `NFNLGRP_NFTABLES`.
    pub events: Vec<Vec<u8>>,
}

/// The task that commits, as the kernel reports it in `NFT_MSG_NEWGEN`.
pub(crate) struct Who<'a> {
    pub pid: u32,
    pub name: &'a str,
}

/// Applies the batch in `msgs` (the whole datagram) sent by `portid`. `events`: whether
/// anyone listens. `Err` carries what the model does not support (nothing was applied).
pub(crate) fn apply(
    nft: &mut Nft,
    msgs: &[Message<'_>],
    portid: u32,
    events: bool,
    who: &Who<'_>,
) -> Result<Outcome, String> {
    let mut out = Outcome::default();
    let begin = &msgs[0];
    // The generation the batch was computed from.
    let genid = begin.nfgen().ok().and_then(|nf| {
        nf.attrs()
            .flatten()
            .find(|a| a.kind() == NFNL_BATCH_GENID)
            .and_then(|a| a.be32().ok())
    });
    if begin.nfgen().map(|nf| nf.res_id).ok() != Some(NFNL_SUBSYS_NFTABLES) {
        return Err("a batch for another netfilter subsystem".into());
    }
    if genid.is_some_and(|g| g != 0 && g != nft.genid) {
        let mut w = MsgWriter::new();
        wire::error(&mut w, begin.bytes(), portid, libc::ERESTART, None, None);
        out.replies.push(w.into_bytes());
        return Ok(out);
    }
    let Some(end) = msgs.iter().position(|m| m.msg_type() == NFNL_MSG_BATCH_END) else {
        return Err("a batch without BATCH_END".into());
    };
    let ops = &msgs[1..end];
    let end_msg = &msgs[end];
    for m in ops {
        if m.msg_type() >> 8 != NFNL_SUBSYS_NFTABLES {
            return Err(format!("message type {:#x} in a batch", m.msg_type()));
        }
    }

    // What the model does not support leaves no trace, not even a used handle.
    let counters = Counters::of(nft);
    let (tx, failures) = match run(nft, ops, portid, Validate::Skip) {
        Ok(x) => x,
        Err(why) => {
            counters.restore(nft);
            return Err(why);
        }
    };
    // Room for the acknowledgement and a refusal without growing.
    let mut w = MsgWriter::with_capacity(256);
    if failures.is_empty() {
        if tx.validate == Validate::Need && !valid(&tx) {
            // The kernel aborts, then applies the batch again validating after each rule.
            tx.abort();
            nft.validate_each = true;
            let (tx2, failures2) = match run(nft, ops, portid, Validate::Do) {
                Ok(x) => x,
                Err(why) => {
                    counters.restore(nft);
                    return Err(why);
                }
            };
            if failures2.is_empty() {
                let changed = !tx2.is_empty();
                commit(tx2, ops, portid, events, who, &mut out);
                if changed {
                    committed(nft);
                }
            } else {
                tx2.abort();
                refuse(&mut w, ops, &failures2, portid);
            }
        } else {
            let changed = !tx.is_empty();
            commit(tx, ops, portid, events, who, &mut out);
            if changed {
                committed(nft);
            }
        }
    } else {
        tx.abort();
        refuse(&mut w, ops, &failures, portid);
    }
    if end_msg.flags() & NLM_F_ACK != 0 {
        wire::error(&mut w, end_msg.bytes(), portid, 0, None, None);
    }
    if !w.is_empty() {
        out.replies.push(w.into_bytes());
    }
    Ok(out)
}

type Failures = Vec<(usize, i32, Option<u32>)>;

/// The handle counters and validation state, as a batch found them.
struct Counters {
    table_handles: u64,
    hgen: Vec<(usize, u64)>,
    validate_each: bool,
}

impl Counters {
    fn of(nft: &Nft) -> Counters {
        Counters {
            table_handles: nft.table_handles,
            hgen: nft.tables_in_order().map(|(id, t)| (id, t.hgen)).collect(),
            validate_each: nft.validate_each,
        }
    }

    fn restore(self, nft: &mut Nft) {
        nft.table_handles = self.table_handles;
        nft.validate_each = self.validate_each;
        for (id, h) in self.hgen {
            if let Some(t) = nft.tables.get_mut(id).and_then(Option::as_mut) {
                t.hgen = h;
            }
        }
    }
}

/// After a commit, nothing is validated after each rule any more. (A batch that changed
/// nothing is no commit: the kernel returns before it validates, and the state stays.)
fn committed(nft: &mut Nft) {
    nft.validate_each = false;
    for t in nft.tables.iter_mut().flatten() {
        t.validate_each = false;
    }
}

/// One pass over the batch's messages.
fn run<'n>(
    nft: &'n mut Nft,
    ops: &[Message<'_>],
    portid: u32,
    validate: Validate,
) -> Result<(Txn<'n>, Failures), String> {
    let mut tx = Txn::new(nft, validate);
    tx.log.reserve(ops.len());
    let mut failures = Vec::new();
    for (i, m) in ops.iter().enumerate() {
        let r = Msg::parse(m).and_then(|msg| {
            tx.ctx = Ctx {
                flags: msg.flags,
                seq: msg.seq,
                portid,
                report: msg.flags & NLM_F_ECHO != 0,
            };
            match msg.id {
                NFT_MSG_NEWTABLE => tables::new_table(&mut tx, &msg),
                NFT_MSG_DELTABLE => tables::del_table(&mut tx, &msg),
                NFT_MSG_NEWCHAIN => chains::new_chain(&mut tx, &msg),
                NFT_MSG_DELCHAIN => chains::del_chain(&mut tx, &msg),
                NFT_MSG_NEWRULE => rules::new_rule(&mut tx, &msg),
                NFT_MSG_DELRULE => rules::del_rule(&mut tx, &msg),
                other => Err(Fail::unsupported(format!(
                    "nf_tables message {} (sets, objects, flowtables are not modelled)",
                    msg_name(other)
                ))),
            }
        });
        match r {
            Ok(()) => {}
            Err(Fail::Errno { errno, offset }) => failures.push((i, errno, offset)),
            Err(Fail::Unsupported(why)) => {
                tx.abort();
                return Err(why);
            }
        }
    }
    Ok((tx, failures))
}

/// The kernel's validation at commit, over what the batch added: the rules it added and
/// kept that have jumps or restricted extensions (their chains' other rules are not
/// walked, so the cost is the batch's, not the chains').
fn valid(tx: &Txn<'_>) -> bool {
    if tx.to_validate.is_empty() {
        return true;
    }
    let deleted = tx.deleted_uids();
    let mut validators: Vec<(usize, Validator<'_>)> = Vec::new();
    for a in &tx.to_validate {
        if deleted.contains(&a.uid) {
            continue;
        }
        let Some(table) = tx.nft.tables[a.t].as_ref() else {
            continue;
        };
        if table.chains.get(a.c).and_then(Option::as_ref).is_none() {
            continue;
        }
        let v6 = table.family == iptnl_sys::netfilter::NFPROTO_IPV6;
        let (exprs, jumps) = tx.added_ids(a);
        let jumps: Vec<usize> = jumps.collect();
        let restricted =
            !jumps.is_empty() || exprs.iter().any(|&e| graph::restricted(tx.nft, e, v6));
        if !restricted {
            continue;
        }
        let at = match validators.iter().position(|(t, _)| *t == a.t) {
            Some(i) => i,
            None => {
                validators.push((a.t, Validator::new(tx.nft, a.t)));
                validators.len() - 1
            }
        };
        if validators[at].1.check_rule(a.c, exprs, &jumps).is_err() {
            return false;
        }
    }
    true
}

/// Answers each refused message with its errno (and the offending attribute).
fn refuse(w: &mut MsgWriter, ops: &[Message<'_>], failures: &Failures, portid: u32) {
    for &(i, errno, offset) in failures {
        wire::error(w, ops[i].bytes(), portid, errno, offset, None);
    }
}

fn commit(
    tx: Txn<'_>,
    ops: &[Message<'_>],
    portid: u32,
    events: bool,
    who: &Who<'_>,
    out: &mut Outcome,
) {
    let report = tx.log.iter().any(|(_, c)| c.report);
    if tx.is_empty() {
        tx.commit(None);
        return;
    }
    if !events && !report {
        tx.commit(None);
        return;
    }
    let genid = tx.nft.genid.wrapping_add(1).max(1);
    let mut sink = Sink::default();
    let mut f = |nft: &Nft, tr: &Trans, ctx: &Ctx, pos: Pos| {
        event(nft, tr, ctx, pos, genid, &mut sink);
    };
    tx.commit(Some(&mut f));
    // NEWGEN closes the commit; it carries the sequence number of the batch's first
    // message, and goes to the sender too when that message asked for an echo.
    let first = &ops[0];
    let mut w = MsgWriter::new();
    wire::gen(
        &mut w,
        Head {
            flags: 0,
            seq: first.seq(),
            portid,
            genid,
        },
        (who.pid, who.name),
    );
    sink.flush();
    let gen_report = first.flags() & NLM_F_ECHO != 0;
    sink.out.push((gen_report, w.into_bytes()));
    for (report, bytes) in sink.out {
        match (report, events) {
            (true, true) => {
                out.replies.push(bytes.clone());
                out.events.push(bytes);
            }
            (true, false) => out.replies.push(bytes),
            (false, true) => out.events.push(bytes),
            (false, false) => {}
        }
    }
}

/// Events of a commit, packed into datagrams (reported and multicast ones apart).
#[derive(Debug, Default)]
struct Sink {
    cur: Option<(bool, MsgWriter)>,
    out: Vec<(bool, Vec<u8>)>,
}

impl Sink {
    fn writer(&mut self, report: bool) -> &mut MsgWriter {
        let start_new = match &self.cur {
            Some((r, w)) => *r != report || w.len() >= EVENT_DATAGRAM,
            None => true,
        };
        if start_new {
            self.flush();
            self.cur = Some((report, MsgWriter::with_capacity(EVENT_START)));
        }
        &mut self.cur.as_mut().expect("just set").1
    }

    fn flush(&mut self) {
        if let Some((r, w)) = self.cur.take() {
            if !w.is_empty() {
                self.out.push((r, w.into_bytes()));
            }
        }
    }
}

fn event(nft: &Nft, tr: &Trans, ctx: &Ctx, pos: Pos, genid: u32, sink: &mut Sink) {
    let create_excl = ctx.flags & (NLM_F_CREATE | NLM_F_EXCL);
    let head = |flags| Head {
        flags,
        seq: ctx.seq,
        portid: ctx.portid,
        genid,
    };
    let w = sink.writer(ctx.report);
    match tr {
        Trans::NewTable { t } | Trans::DelTable { t } => {
            let msg = if matches!(tr, Trans::NewTable { .. }) {
                NFT_MSG_NEWTABLE
            } else {
                NFT_MSG_DELTABLE
            };
            if let Some(table) = nft.tables[*t].as_ref() {
                wire::table(w, msg, head(create_excl), table);
            }
        }
        Trans::NewChain { t, c, .. } | Trans::UpdChain { t, c, .. } | Trans::DelChain { t, c } => {
            let msg = if matches!(tr, Trans::DelChain { .. }) {
                NFT_MSG_DELCHAIN
            } else {
                NFT_MSG_NEWCHAIN
            };
            if let Some(table) = nft.tables[*t].as_ref() {
                if let Some(ch) = table.chains.get(*c).and_then(Option::as_ref) {
                    wire::chain(w, msg, head(create_excl), table, ch);
                }
            }
        }
        Trans::NewRule { t, c, .. } | Trans::DelRule { t, c, .. } => {
            let msg = if matches!(tr, Trans::NewRule { .. }) {
                NFT_MSG_NEWRULE
            } else {
                NFT_MSG_DELRULE
            };
            let mut flags = create_excl;
            if ctx.flags & (NLM_F_APPEND | NLM_F_REPLACE) != 0 {
                flags |= NLM_F_APPEND;
            }
            let Some(table) = nft.tables[*t].as_ref() else {
                return;
            };
            let Some(ch) = table.chains.get(*c).and_then(Option::as_ref) else {
                return;
            };
            let Some(r) = pos.idx.and_then(|i| ch.rules.get(i)) else {
                return;
            };
            wire::rule(w, msg, head(flags), table, ch, r, pos.after, &nft.exprs);
        }
    }
}

fn msg_name(id: u16) -> String {
    let name = match id {
        NFT_MSG_NEWSET => "NEWSET",
        NFT_MSG_DELSET => "DELSET",
        NFT_MSG_NEWSETELEM => "NEWSETELEM",
        NFT_MSG_DELSETELEM => "DELSETELEM",
        NFT_MSG_NEWOBJ => "NEWOBJ",
        NFT_MSG_DELOBJ => "DELOBJ",
        NFT_MSG_NEWFLOWTABLE => "NEWFLOWTABLE",
        NFT_MSG_DELFLOWTABLE => "DELFLOWTABLE",
        _ => return format!("type {id}"),
    };
    name.to_owned()
}

/// Whether `msgs` (a whole datagram) is a batch.
pub(crate) fn is_batch(msgs: &[Message<'_>]) -> bool {
    msgs.first()
        .is_some_and(|m| m.msg_type() == NFNL_MSG_BATCH_BEGIN)
}

/// Splits a datagram into messages; `None` when it is not well formed.
pub(crate) fn split(buf: &[u8]) -> Option<Vec<Message<'_>>> {
    Messages::new(buf).collect::<Result<Vec<_>, _>>().ok()
}
