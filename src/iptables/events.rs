//! Keeping the cache current from the kernel's ruleset events (`NFNLGRP_NFTABLES`), so that a
//! generation moved by another writer costs no dump of the chains cached (opt-in, see
//! [`IpTables::set_follow_events`](super::IpTables::set_follow_events)).
//!
//! The kernel sends, for every commit, one event per object changed and then `NEWGEN` with
//! the new generation. The generation is bumped before the events are sent, so a subscription
//! made before the generation read that a cached chain belongs to receives every event of
//! every later commit. Commits are replayed in order onto the cached chains; anything that
//! cannot be replayed exactly (a position that is not cached, a lost event, a gap in the
//! generations) makes the chain, or the whole cache, be read again instead. This module reads
//! the events and hands over the commits, in order; the cache applies them.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use iptnl_sys::netlink::NLM_F_APPEND;
use iptnl_sys::nf_tables::{
    NFTA_GEN_ID, NFT_MSG_DELCHAIN, NFT_MSG_DELRULE, NFT_MSG_DELTABLE, NFT_MSG_NEWCHAIN,
    NFT_MSG_NEWGEN, NFT_MSG_NEWRULE,
};
use iptnl_sys::nfnetlink::{nfnl_msg_id, nfnl_subsys_id, NFNLGRP_NFTABLES, NFNL_SUBSYS_NFTABLES};

use crate::netlink::{Conn, Messages, Transport};
use crate::nft::{Chain, Rule, Table};

/// One event, decoded.
#[derive(Debug)]
pub(crate) enum Ev {
    NewRule { rule: Rule, append: bool },
    DelRule(Rule),
    NewChain(Chain),
    DelChain(Chain),
    DelTable(Table),
    Gen(u32),
}

/// A subscription to the ruleset events of one namespace.
#[derive(Debug)]
pub(crate) struct Events {
    sock: Box<dyn Transport>,
    rx: Vec<u8>,
    queue: VecDeque<Ev>,
}

impl Events {
    /// Subscribes in the namespace of `conn`.
    pub(crate) fn open(conn: &Conn) -> Option<Events> {
        let sock = conn.subscribe(NFNLGRP_NFTABLES, 8 << 20).ok()?;
        Some(Events {
            sock,
            rx: Vec::new(),
            queue: VecDeque::new(),
        })
    }

    /// Reads every queued event (waiting up to the socket's timeout for the first one when
    /// `wait`); `false` when some were lost (or could not be decoded).
    fn drain(&mut self, mut wait: bool) -> bool {
        let mut ok = true;
        loop {
            match self.sock.recv(&mut self.rx, wait) {
                Ok(true) => wait = false,
                Ok(false) => return ok,
                Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {
                    // Events were dropped. Keep draining so the buffer is empty.
                    ok = false;
                    continue;
                }
                Err(_) => return false,
            }
            if !decode_into(&self.rx, &mut self.queue) {
                ok = false;
            }
        }
    }

    /// The commits that brought the ruleset from generation `from` to generation `to`, in
    /// order, each as its events (the last one its [`Ev::Gen`]), and apart from them the
    /// commits at or before `from` (read already, or this handle's own). `to` may have been
    /// read while its commit was still being applied (the kernel moves the generation first
    /// and sends the commit's events at its end): its events are waited for, up to
    /// [`IN_FLIGHT`]. `None` when they cannot all be known: events were lost or could not be
    /// read, a generation is missing, or the commit did not end in time; the queue is then
    /// emptied, and the caller must forget what it cached and read the generation again.
    pub(crate) fn commits(&mut self, from: u32, to: u32) -> Option<Commits> {
        if (to.wrapping_sub(from) as i32) < 0 {
            self.queue.clear();
            return None;
        }
        let deadline = Instant::now() + IN_FLIGHT;
        let mut out = Commits::default();
        let mut cur = from;
        let mut wait = false;
        loop {
            if !self.drain(wait) {
                self.queue.clear();
                return None;
            }
            if !take_commits(&mut self.queue, &mut cur, to, &mut out) {
                self.queue.clear();
                return None;
            }
            if cur == to {
                return Some(out);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.sock.set_recv_timeout(Some(left)).is_err() {
                self.queue.clear();
                return None;
            }
            out.waited = true;
            wait = true;
        }
    }
}

/// How long a reader waits for the events of a commit whose generation it read.
const IN_FLIGHT: Duration = Duration::from_secs(5);

/// The commits [`Events::commits`] found.
#[derive(Debug, Default)]
pub(crate) struct Commits {
    /// Commits the cache holds already (for [`Cache::learn`](super::cache::Cache::learn)).
    pub(crate) known: Vec<Vec<Ev>>,
    /// The commits after the cache's generation, to replay in order.
    pub(crate) new: Vec<Vec<Ev>>,
    /// Whether the last one was still being applied when its generation was read.
    pub(crate) waited: bool,
}

/// Decodes the messages of `buf` (what one receive brought) onto `queue`; `false` when one
/// could not be read (the events are then as good as lost).
pub(crate) fn decode_into(buf: &[u8], queue: &mut VecDeque<Ev>) -> bool {
    let mut ok = true;
    for m in Messages::new(buf) {
        let Ok(m) = m else {
            return false;
        };
        if nfnl_subsys_id(m.msg_type()) != NFNL_SUBSYS_NFTABLES {
            continue;
        }
        let ev = match nfnl_msg_id(m.msg_type()) {
            NFT_MSG_NEWRULE => Rule::decode(&m).map(|rule| Ev::NewRule {
                rule,
                append: m.flags() & NLM_F_APPEND != 0,
            }),
            NFT_MSG_DELRULE => Rule::decode(&m).map(Ev::DelRule),
            NFT_MSG_NEWCHAIN => Chain::decode(&m).map(Ev::NewChain),
            NFT_MSG_DELCHAIN => Chain::decode(&m).map(Ev::DelChain),
            NFT_MSG_DELTABLE => Table::decode(&m).map(Ev::DelTable),
            NFT_MSG_NEWGEN => {
                let mut genid = None;
                if let Ok(nf) = m.nfgen() {
                    for a in nf.attrs().flatten() {
                        if a.kind() == NFTA_GEN_ID {
                            genid = a.be32().ok();
                        }
                    }
                }
                match genid {
                    Some(g) => Ok(Ev::Gen(g)),
                    None => {
                        ok = false;
                        continue;
                    }
                }
            }
            _ => continue,
        };
        match ev {
            Ok(ev) => queue.push_back(ev),
            Err(_) => ok = false,
        }
    }
    ok
}

/// Takes the whole commits of `queue` that bring generation `cur` towards `to` into `out`
/// (see [`Events::commits`]), moving `cur`; `false` when a generation is missing.
pub(crate) fn take_commits(
    queue: &mut VecDeque<Ev>,
    cur: &mut u32,
    to: u32,
    out: &mut Commits,
) -> bool {
    while *cur != to {
        let Some(end) = queue.iter().position(|e| matches!(e, Ev::Gen(_))) else {
            break;
        };
        let batch: Vec<Ev> = queue.drain(..=end).collect();
        let Some(&Ev::Gen(x)) = batch.last() else {
            break;
        };
        if (x.wrapping_sub(*cur) as i32) <= 0 {
            // Already in the cache (read after it, or our own commit).
            out.known.push(batch);
            continue;
        }
        if x != cur.wrapping_add(1) {
            return false;
        }
        out.new.push(batch);
        *cur = x;
    }
    true
}
