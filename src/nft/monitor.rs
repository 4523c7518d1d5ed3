//! Ruleset events: every change committed to nf_tables, by anyone, as it happens
//! (`NFNLGRP_NFTABLES`). The ground for caches that stay current and for owned chains that
//! repair themselves.

use std::time::Duration;

use iptnl_sys::nf_tables::*;
use iptnl_sys::nfnetlink::{
    nfnl_msg_id, nfnl_subsys_id, NFNLGRP_NFTABLES, NFNLGRP_NFTRACE, NFNL_SUBSYS_NFTABLES,
};

use super::error::Error;
use super::trace::Trace;
use super::{Chain, Rule, Table};
use crate::netlink::{self, Conn, Messages, Socket, Transport};

/// One ruleset event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A table was added or updated.
    NewTable(Table),
    /// A table was deleted.
    DelTable(Table),
    /// A chain was added, renamed or updated.
    NewChain(Chain),
    /// A chain was deleted.
    DelChain(Chain),
    /// A rule was added or replaced.
    NewRule(Rule),
    /// A rule was deleted.
    DelRule(Rule),
    /// A transaction was committed: the new generation, and who committed it.
    NewGen {
        /// The new generation id.
        genid: u32,
        /// Task (thread) id of the committer, when the kernel says.
        pid: Option<u32>,
        /// Process name of the committer, when the kernel says.
        name: Option<String>,
    },
    /// A packet marked for tracing met a rule, a return or a policy (only with
    /// [`Monitor::open_with`] asking for traces).
    Trace(Box<Trace>),
    /// Another kind of object changed (set, element, object, flowtable): its message type.
    Other(u16),
    /// Events were lost (the receive buffer overflowed): whatever was cached must be read
    /// again.
    Lost,
    /// A table, chain, rule, generation or trace message iptnl could not read (its message type and
    /// why); the events around it are still delivered.
    Unreadable {
        /// The `NFT_MSG_*` type.
        msg_type: u16,
        /// What was wrong with it.
        error: String,
    },
}

/// A subscription to ruleset events in one network namespace.
///
/// ```no_run
/// use iptnl::nft::monitor::{Event, Monitor};
/// let mut m = Monitor::open()?;
/// while let Some(ev) = m.next(None)? {
///     if let Event::NewGen { genid, name, .. } = ev {
///         println!("generation {genid} committed by {name:?}");
///     }
/// }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
#[derive(Debug)]
pub struct Monitor {
    sock: Box<dyn Transport>,
    rx: Vec<u8>,
    queue: std::collections::VecDeque<Event>,
}

impl Monitor {
    /// Subscribes in the calling thread's network namespace.
    pub fn open() -> Result<Monitor, Error> {
        Self::from_socket(Socket::open()?)
    }

    /// Subscribes inside the network namespace at `path`.
    pub fn open_in_netns(path: impl AsRef<std::path::Path>) -> Result<Monitor, Error> {
        Self::from_socket(Socket::open_in_netns(path.as_ref())?)
    }

    /// Subscribes in the calling thread's network namespace to ruleset events (`events`),
    /// packet traces (`traces`, [`Event::Trace`]), or both.
    ///
    /// ```no_run
    /// use iptnl::nft::monitor::{Event, Monitor};
    /// let mut m = Monitor::open_with(false, true)?;
    /// while let Some(ev) = m.next(None)? {
    ///     if let Event::Trace(t) = ev {
    ///         println!("packet {:08x} in {:?}", t.id, t.chain);
    ///     }
    /// }
    /// # Ok::<(), iptnl::nft::Error>(())
    /// ```
    pub fn open_with(events: bool, traces: bool) -> Result<Monitor, Error> {
        let mut sock = Socket::open()?;
        sock.ensure_rcvbuf(4 << 20);
        if events {
            sock.join_group(NFNLGRP_NFTABLES)?;
        }
        if traces {
            sock.join_group(NFNLGRP_NFTRACE)?;
        }
        Ok(Monitor {
            sock: Box::new(sock),
            rx: Vec::new(),
            queue: Default::default(),
        })
    }

    /// Subscribes to the ruleset events of the nf_tables `conn` talks to: its network
    /// namespace (whatever the calling thread's), or the in-memory ruleset it is a
    /// connection to.
    ///
    /// ```
    /// let ruleset = iptnl::memory::Ruleset::new();
    /// let mut m = iptnl::nft::monitor::Monitor::beside(&ruleset.conn())?;
    /// assert!(m.try_next()?.is_none());
    /// # Ok::<(), iptnl::nft::Error>(())
    /// ```
    pub fn beside(conn: &Conn) -> Result<Monitor, Error> {
        Ok(Monitor {
            sock: conn.subscribe(NFNLGRP_NFTABLES, 4 << 20)?,
            rx: Vec::new(),
            queue: Default::default(),
        })
    }

    fn from_socket(mut sock: Socket) -> Result<Monitor, Error> {
        sock.ensure_rcvbuf(4 << 20);
        sock.join_group(NFNLGRP_NFTABLES)?;
        Ok(Monitor {
            sock: Box::new(sock),
            rx: Vec::new(),
            queue: Default::default(),
        })
    }

    /// The next event, waiting at most `timeout` (`None`: forever). `Ok(None)` when the time
    /// ran out.
    pub fn next(&mut self, timeout: Option<Duration>) -> Result<Option<Event>, Error> {
        self.read(Some(timeout))
    }

    /// The next event when one is queued already, without waiting (a receive timeout is
    /// counted in the kernel's clock ticks, so even a tiny one can wait some milliseconds).
    ///
    /// ```no_run
    /// let mut m = iptnl::nft::monitor::Monitor::open()?;
    /// while let Some(ev) = m.try_next()? {
    ///     println!("{ev:?}");
    /// }
    /// # Ok::<(), iptnl::nft::Error>(())
    /// ```
    pub fn try_next(&mut self) -> Result<Option<Event>, Error> {
        self.read(None)
    }

    /// The next event: waiting at most `timeout` when it is `Some`, not at all when `None`.
    fn read(&mut self, timeout: Option<Option<Duration>>) -> Result<Option<Event>, Error> {
        if let Some(e) = self.queue.pop_front() {
            return Ok(Some(e));
        }
        if let Some(t) = timeout {
            self.sock.set_recv_timeout(t)?;
        }
        match self.sock.recv(&mut self.rx, timeout.is_some()) {
            Ok(false) => return Ok(None),
            Ok(true) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => return Ok(Some(Event::Lost)),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return Ok(None)
            }
            Err(e) => return Err(netlink::Error::io("reading ruleset events", e).into()),
        }
        for m in Messages::new(&self.rx) {
            let m = m.map_err(netlink::Error::from)?;
            if nfnl_subsys_id(m.msg_type()) != NFNL_SUBSYS_NFTABLES {
                continue;
            }
            let msg_type = nfnl_msg_id(m.msg_type());
            let ev = match msg_type {
                NFT_MSG_NEWTABLE => Table::decode(&m).map(Event::NewTable),
                NFT_MSG_DELTABLE => Table::decode(&m).map(Event::DelTable),
                NFT_MSG_NEWCHAIN => Chain::decode(&m).map(Event::NewChain),
                NFT_MSG_DELCHAIN => Chain::decode(&m).map(Event::DelChain),
                NFT_MSG_NEWRULE => Rule::decode(&m).map(Event::NewRule),
                NFT_MSG_DELRULE => Rule::decode(&m).map(Event::DelRule),
                NFT_MSG_NEWGEN => m.nfgen().map(|nf| {
                    let (mut genid, mut pid, mut name) = (0, None, None);
                    for a in nf.attrs().flatten() {
                        match a.kind() {
                            NFTA_GEN_ID => genid = a.be32().unwrap_or(0),
                            NFTA_GEN_PROC_PID => pid = a.be32().ok(),
                            NFTA_GEN_PROC_NAME => name = a.str().ok().map(str::to_owned),
                            _ => {}
                        }
                    }
                    Event::NewGen { genid, pid, name }
                }),
                NFT_MSG_TRACE => Trace::decode(&m).map(|t| Event::Trace(Box::new(t))),
                other => Ok(Event::Other(other)),
            };
            self.queue
                .push_back(ev.unwrap_or_else(|e| Event::Unreadable {
                    msg_type,
                    error: e.to_string(),
                }));
        }
        Ok(self.queue.pop_front())
    }
}
