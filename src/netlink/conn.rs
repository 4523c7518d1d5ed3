//! A connection to nf_tables: batches, requests, dumps and the generation id, on one socket.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iptnl_sys::netlink::{
    NLMSG_DONE, NLMSG_ERROR, NLMSG_NOOP, NLMSG_OVERRUN, NLM_F_ACK, NLM_F_DUMP, NLM_F_DUMP_INTR,
    NLM_F_REQUEST,
};
use iptnl_sys::nf_tables::{NFTA_GEN_ID, NFT_MSG_GETGEN, NFT_MSG_NEWGEN};
use iptnl_sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, nfnl_subsys_id, NFNL_SUBSYS_NFTABLES};

use super::batch::{Batch, OpIndex};
use super::error::{DecodeError, Error, MsgFailure};
use super::message::{Message, Messages};
use super::socket::Socket;
use super::transport::Transport;
use super::writer::MsgWriter;

/// How a read that must be consistent with one generation is retried while other writers
/// keep changing the ruleset: without a limit on the number of tries (a read never fails
/// because someone else writes, as iptables-nft's cache rebuild never gives up), bounded
/// only by an optional time budget (`iptables -w N`). The first 16 tries follow at once; after
/// that each waits a short jittered pause, so that a reader and a writer do not keep meeting.
///
/// ```
/// use std::time::Duration;
/// let mut r = iptnl::netlink::DumpRetry::new(Some(Duration::ZERO));
/// assert!(r.again()); // the first try is always made
/// assert!(!r.again()); // the budget is spent
/// assert_eq!(r.tries(), 1);
/// let mut r = iptnl::netlink::DumpRetry::new(None);
/// assert!((0..100).all(|_| r.again()));
/// ```
#[derive(Debug, Clone)]
pub struct DumpRetry {
    start: Instant,
    budget: Option<Duration>,
    tries: u32,
}

impl DumpRetry {
    /// A retry policy with `budget` (`None`: no limit).
    pub fn new(budget: Option<Duration>) -> DumpRetry {
        DumpRetry {
            start: Instant::now(),
            budget,
            tries: 0,
        }
    }

    /// Whether to make one more try: always the first; after a failed one, when the budget
    /// allows: at once for the first 16 tries, then after a pause of at most a few
    /// milliseconds (growing with the tries).
    pub fn again(&mut self) -> bool {
        if self.tries > 0 {
            if self.budget.is_some_and(|b| self.start.elapsed() >= b) {
                return false;
            }
            // The first tries follow at once (a retry right after a writer's commit has the
            // best chance); a read that keeps meeting writers then pauses a little.
            if self.tries >= IMMEDIATE_TRIES {
                std::thread::sleep(retry_pause(self.tries - IMMEDIATE_TRIES));
            }
        }
        self.tries = self.tries.saturating_add(1);
        true
    }

    /// The tries made so far.
    pub fn tries(&self) -> u32 {
        self.tries
    }
}

/// Tries made one after the other before the pauses start.
const IMMEDIATE_TRIES: u32 = 16;

/// The pause before the `n`th paused try: random, up to 100 µs doubled per try (at most about 6 ms).
fn retry_pause(n: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(n);
    let cap_us = 100u64 << n.min(6);
    Duration::from_micros(h.finish() % cap_us)
}

/// What a successful commit returns.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Committed {
    /// Objects the kernel echoed back, for the operations that asked for it: the operation's
    /// index and the whole echoed netlink message.
    pub echoes: Vec<(OpIndex, Vec<u8>)>,
    /// Whether the kernel acknowledged BATCH_END (kernels from 6.10 on do).
    pub end_acked: bool,
}

/// The outcome of a dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpStatus {
    /// The kernel flagged the dump as inconsistent (the ruleset changed while it ran).
    pub interrupted: bool,
    /// The low 16 bits of the generation the dump's messages carried, if any message came.
    pub genid_low: Option<u16>,
}

/// Wall time a [`Conn`] has spent inside its system calls, cumulative since it was first
/// asked (see [`Conn::kernel_time`]), and its sends and dumped objects since it was opened.
///
/// nfnetlink handles what it is sent synchronously, inside the sender's `sendmsg`: a batch is
/// validated and committed there, a request answered there, the first part of a dump built
/// there. So [`sendmsg`](Self::sendmsg) is the kernel's time for commits and requests, and a
/// caller's own time is its wall time minus that. Later parts of a dump are built inside
/// `recvmsg`, counted in [`recv`](Self::recv) together with copying every reply out.
///
/// ```
/// use iptnl::netlink::KernelTime;
/// let a = KernelTime::default();
/// assert_eq!(a.since(&a), KernelTime::default());
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KernelTime {
    /// Time inside `sendmsg` (batches, requests, dump requests).
    pub sendmsg: Duration,
    /// Time inside `recv` (replies, acks, and the continuation of dumps).
    pub recv: Duration,
    /// Number of `sendmsg` calls.
    pub sends: u64,
    /// Number of objects (rules, chains, sets, …) the kernel delivered in dumps: what a
    /// caller read, whatever the time it took.
    pub dumped: u64,
}

impl KernelTime {
    /// The time spent between `earlier` (an earlier reading of the same connection) and this
    /// reading.
    ///
    /// ```
    /// use std::time::Duration;
    /// use iptnl::netlink::KernelTime;
    /// let a = KernelTime { sendmsg: Duration::from_millis(1), ..Default::default() };
    /// let b = KernelTime { sendmsg: Duration::from_millis(3), sends: 2, ..Default::default() };
    /// assert_eq!(b.since(&a).sendmsg, Duration::from_millis(2));
    /// ```
    pub fn since(&self, earlier: &KernelTime) -> KernelTime {
        KernelTime {
            sendmsg: self.sendmsg.saturating_sub(earlier.sendmsg),
            recv: self.recv.saturating_sub(earlier.recv),
            sends: self.sends.saturating_sub(earlier.sends),
            dumped: self.dumped.saturating_sub(earlier.dumped),
        }
    }
}

/// A connection to the kernel's nf_tables subsystem (or to another [`Transport`] that
/// answers the same messages, such as an in-memory ruleset).
///
/// It owns one socket, a receive buffer and a sequence counter. It is `Send` but not meant to
/// be shared between threads while in use: give each thread its own, or guard it.
///
/// ```no_run
/// use iptnl::netlink::Conn;
/// let mut conn = Conn::open()?;
/// println!("ruleset generation {}", conn.genid()?);
/// # Ok::<(), iptnl::netlink::Error>(())
/// ```
#[derive(Debug)]
pub struct Conn {
    sock: Box<dyn Transport>,
    rx: Vec<u8>,
    seq: u32,
    time: KernelTime,
    /// Whether `sendmsg` and `recv` are timed: from the first [`Conn::kernel_time`] reading
    /// on (two clock reads per system call are paid only when someone reads the figure).
    timed: AtomicBool,
    dump_budget: Option<Duration>,
    /// Every reply to what this connection sent has been read: no stale reply can be
    /// queued, so the next exchange need not look for one (a `recv` that would only say
    /// `EAGAIN`; a save or a restore diff runs one exchange per chain).
    quiet: bool,
}

impl Conn {
    /// Opens a connection in the calling thread's network namespace.
    pub fn open() -> Result<Conn, Error> {
        Ok(Self::from_socket(Socket::open()?))
    }

    /// Opens a connection inside the network namespace at `path` (e.g. `/var/run/netns/x` or
    /// `/proc/PID/ns/net`) without moving any of the caller's threads.
    pub fn open_in_netns(path: impl AsRef<Path>) -> Result<Conn, Error> {
        Ok(Self::from_socket(Socket::open_in_netns(path.as_ref())?))
    }

    /// Wraps an open socket.
    pub fn from_socket(sock: Socket) -> Conn {
        Self::from_transport(Box::new(sock))
    }

    /// A connection through `transport` instead of a kernel socket (see [`Transport`]).
    ///
    /// ```
    /// let conn = iptnl::netlink::Conn::from_transport(iptnl::memory::Ruleset::new().transport());
    /// assert!(conn.socket().is_none());
    /// ```
    pub fn from_transport(sock: Box<dyn Transport>) -> Conn {
        // Start from a value unlikely to match stale replies of another connection.
        let seq = (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as u32)
            .unwrap_or(1))
            | 1;
        Conn {
            sock,
            rx: Vec::new(),
            seq,
            time: KernelTime::default(),
            timed: AtomicBool::new(false),
            dump_budget: None,
            quiet: false,
        }
    }

    /// Bounds how long reads on this connection retry while other writers keep changing the
    /// ruleset (`None`, the default: until the read is consistent). `iptables -w N` sets N
    /// seconds.
    ///
    /// ```no_run
    /// let mut conn = iptnl::netlink::Conn::open()?;
    /// conn.set_dump_budget(Some(std::time::Duration::from_secs(5)));
    /// # Ok::<(), iptnl::netlink::Error>(())
    /// ```
    pub fn set_dump_budget(&mut self, budget: Option<Duration>) {
        self.dump_budget = budget;
    }

    /// A retry policy for one consistent read, with this connection's budget.
    ///
    /// ```no_run
    /// let mut conn = iptnl::netlink::Conn::open()?;
    /// let mut retry = conn.dump_retry();
    /// while retry.again() {
    ///     let g = conn.genid()?;
    ///     if conn.genid()? == g {
    ///         break;
    ///     }
    /// }
    /// # Ok::<(), iptnl::netlink::Error>(())
    /// ```
    pub fn dump_retry(&self) -> DumpRetry {
        DumpRetry::new(self.dump_budget)
    }

    /// Wall time spent inside `sendmsg` and `recv` by this connection so far. Take a reading
    /// before and after an operation and subtract with [`KernelTime::since`] to split its
    /// wall time into the kernel's part and the caller's.
    ///
    /// The system calls are timed (two clock reads each) from the first reading on: a
    /// connection nobody asks does not pay for the clock, so the times of the first reading
    /// are zero (the counts of sends and dumped objects are kept from the start).
    ///
    /// ```no_run
    /// let mut conn = iptnl::netlink::Conn::open()?;
    /// let before = conn.kernel_time();
    /// conn.genid()?;
    /// println!("{:?} in sendmsg", conn.kernel_time().since(&before).sendmsg);
    /// # Ok::<(), iptnl::netlink::Error>(())
    /// ```
    pub fn kernel_time(&self) -> KernelTime {
        self.timed.store(true, Ordering::Relaxed);
        self.time
    }

    /// `sendmsg` of `buf`, timed.
    fn send(
        sock: &mut dyn Transport,
        time: &mut KernelTime,
        timed: &AtomicBool,
        buf: &[u8],
    ) -> Result<(), Error> {
        time.sends += 1;
        if !timed.load(Ordering::Relaxed) {
            return sock.send(buf);
        }
        let t = Instant::now();
        let r = sock.send(buf);
        time.sendmsg += t.elapsed();
        r
    }

    /// One `recv` into the receive buffer, timed.
    fn recv(&mut self, wait: bool) -> std::io::Result<bool> {
        if !self.timed.load(Ordering::Relaxed) {
            return self.sock.recv(&mut self.rx, wait);
        }
        let t = Instant::now();
        let r = self.sock.recv(&mut self.rx, wait);
        self.time.recv += t.elapsed();
        r
    }

    /// The ruleset's generation now when the transport can tell it without a request (see
    /// [`Transport::peek_genid`]): `None` on a kernel socket.
    ///
    /// ```
    /// let conn = iptnl::netlink::Conn::from_transport(iptnl::memory::Ruleset::new().transport());
    /// assert_eq!(conn.peek_genid(), Some(1));
    /// ```
    pub fn peek_genid(&self) -> Option<u32> {
        self.sock.peek_genid()
    }

    /// The underlying socket (`None` when the connection talks to another [`Transport`]).
    /// Requests sent on it directly are not the connection's: it does not read their replies
    /// (replies with other sequence numbers are skipped by every exchange).
    pub fn socket(&self) -> Option<&Socket> {
        self.sock.as_socket()
    }

    /// A second connection to the same nf_tables: for a socket, a new socket in the same
    /// network namespace (whatever the calling thread's).
    ///
    /// ```
    /// let conn = iptnl::netlink::Conn::from_transport(iptnl::memory::Ruleset::new().transport());
    /// let mut other = conn.open_another()?;
    /// assert_eq!(other.genid()?, 1);
    /// # Ok::<(), iptnl::netlink::Error>(())
    /// ```
    pub fn open_another(&self) -> Result<Conn, Error> {
        Ok(Conn::from_transport(self.sock.open_another()?))
    }

    /// A new endpoint on the same nf_tables that has joined multicast `group`
    /// (`NFNLGRP_NFTABLES`: the ruleset events of every later commit), its receive buffer
    /// raised to `rcvbuf` bytes where allowed.
    ///
    /// ```
    /// use iptnl_sys::nfnetlink::NFNLGRP_NFTABLES;
    /// let conn = iptnl::netlink::Conn::from_transport(iptnl::memory::Ruleset::new().transport());
    /// let mut events = conn.subscribe(NFNLGRP_NFTABLES, 1 << 20)?;
    /// let mut buf = Vec::new();
    /// assert!(!events.recv(&mut buf, false)?); // nothing committed yet
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subscribe(&self, group: u32, rcvbuf: usize) -> Result<Box<dyn Transport>, Error> {
        let mut t = self.sock.open_another()?;
        t.ensure_rcvbuf(rcvbuf);
        t.join_group(group)?;
        Ok(t)
    }

    fn next_seq(&mut self, count: u32) -> u32 {
        let s = self.seq;
        self.seq = self.seq.wrapping_add(count.wrapping_add(1));
        s
    }

    /// Discards replies left over from an earlier exchange.
    fn drain_stale(&mut self) -> Result<(), Error> {
        if self.quiet {
            self.quiet = false;
            return Ok(());
        }
        loop {
            match self.recv(false) {
                Ok(true) => continue,
                Ok(false) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => continue,
                Err(e) => return Err(Error::io("discarding stale replies", e)),
            }
        }
    }

    /// Sends `batch` in one `sendmsg` and collects the kernel's answers.
    ///
    /// Success means the kernel committed every operation. On any error nothing was applied:
    /// [`Error::Rejected`] lists each refused operation by index with errno and extended-ACK
    /// details, [`Error::Conflict`] says the generation id no longer matched,
    /// [`Error::BatchRefused`] reports a failure of the batch as a whole.
    pub fn commit(&mut self, batch: &mut Batch) -> Result<Committed, Error> {
        self.drain_stale()?;
        let base = self.next_seq(batch.len() as u32 + 2);
        let start = batch.seal(base);
        let end_seq = batch.end_seq(base);
        let sent = {
            let bytes = batch.sealed_bytes(start);
            let len = bytes.len();
            match self.sock.ensure_sndbuf(len) {
                Ok(()) => {
                    // Echoed objects and errors must fit in the receive buffer too.
                    self.sock
                        .ensure_rcvbuf(batch.echo_count().saturating_mul(4096).max(256 * 1024));
                    Self::send(&mut *self.sock, &mut self.time, &self.timed, bytes)
                }
                Err(e) => Err(e),
            }
        };
        batch.unseal();
        sent?;
        self.collect_commit(batch, base, end_seq)
    }

    fn collect_commit(
        &mut self,
        batch: &Batch,
        base: u32,
        end_seq: u32,
    ) -> Result<Committed, Error> {
        let mut out = Committed::default();
        let mut failures: Vec<MsgFailure> = Vec::new();
        let mut whole: Option<(i32, Option<String>)> = None;
        let mut overrun = false;
        let n = batch.len() as u32;
        loop {
            match self.recv(false) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {
                    overrun = true;
                    continue;
                }
                Err(e) => return Err(Error::io("reading the kernel's answer to the batch", e)),
            }
            for m in Messages::new(&self.rx) {
                let m = m?;
                let rel = m.seq().wrapping_sub(base);
                if m.msg_type() == NLMSG_ERROR {
                    let e = m.error()?;
                    let rel = e.orig_seq.wrapping_sub(base);
                    if e.orig_seq == end_seq {
                        if e.errno == 0 {
                            out.end_acked = true;
                        } else {
                            whole.get_or_insert((e.errno, e.ext_msg.map(str::to_owned)));
                        }
                    } else if rel == 0 {
                        if e.errno != 0 {
                            whole.get_or_insert((e.errno, e.ext_msg.map(str::to_owned)));
                        }
                    } else if rel >= 1 && rel <= n && e.errno != 0 {
                        failures.push(MsgFailure {
                            index: (rel - 1) as usize,
                            errno: e.errno,
                            ext_msg: e.ext_msg.map(str::to_owned),
                            ext_offset: e.ext_offset,
                        });
                    }
                } else if rel >= 1
                    && rel <= n
                    && nfnl_subsys_id(m.msg_type()) == NFNL_SUBSYS_NFTABLES
                {
                    out.echoes.push(((rel - 1) as usize, m.bytes().to_vec()));
                }
            }
        }
        // Read until the queue was empty: the kernel answers a batch within its sendmsg.
        self.quiet = true;
        if let Some((errno, ext_msg)) = whole {
            return Err(match errno {
                libc::ERESTART => Error::Conflict {
                    genid: batch.genid().unwrap_or(0),
                },
                libc::EPERM => Error::Permission {
                    op: "committing the batch",
                },
                _ => Error::BatchRefused { errno, ext_msg },
            });
        }
        if !failures.is_empty() {
            if failures.iter().all(|f| f.errno == libc::EPERM) {
                return Err(Error::Permission {
                    op: "committing the batch",
                });
            }
            return Err(Error::Rejected { failures });
        }
        if overrun && !out.end_acked {
            return Err(Error::Overrun {
                op: "committing the batch",
            });
        }
        Ok(out)
    }

    /// Sends one request that expects at most a few replies (not a dump) and passes each reply
    /// message to `on_reply`. The request is acknowledged; a refusal is [`Error::Request`].
    pub fn request(
        &mut self,
        op: &'static str,
        msg_type: u16,
        family: u8,
        attrs: impl FnOnce(&mut MsgWriter),
        mut on_reply: impl FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<(), Error> {
        self.drain_stale()?;
        let seq = self.next_seq(0);
        let mut w = MsgWriter::with_capacity(256);
        let m = w.begin(msg_type, NLM_F_REQUEST | NLM_F_ACK, seq, family, 0);
        attrs(&mut w);
        w.finish(m)?;
        Self::send(&mut *self.sock, &mut self.time, &self.timed, w.as_bytes())?;
        loop {
            self.recv(true).map_err(|e| Error::io(op, e))?;
            for m in Messages::new(&self.rx) {
                let m = m?;
                if m.seq() != seq {
                    continue;
                }
                match m.msg_type() {
                    NLMSG_ERROR => {
                        let e = m.error()?;
                        // The acknowledgement or the refusal is the request's last reply.
                        self.quiet = true;
                        if e.errno == 0 {
                            return Ok(());
                        }
                        if e.errno == libc::EPERM {
                            return Err(Error::Permission { op });
                        }
                        return Err(Error::Request {
                            op,
                            errno: e.errno,
                            ext_msg: e.ext_msg.map(str::to_owned),
                        });
                    }
                    NLMSG_DONE => {
                        self.quiet = true;
                        return Ok(());
                    }
                    _ => on_reply(&m)?,
                }
            }
        }
    }

    /// Reads the ruleset generation id (`NFT_MSG_GETGEN`): one round trip, whatever the size
    /// of the ruleset.
    pub fn genid(&mut self) -> Result<u32, Error> {
        let mut genid = None;
        self.request(
            "reading the ruleset generation",
            nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETGEN),
            0,
            |_| {},
            |m| {
                if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWGEN {
                    for a in m.nfgen()?.attrs() {
                        let a = a?;
                        if a.kind() == NFTA_GEN_ID {
                            genid = Some(a.be32()?);
                        }
                    }
                }
                Ok(())
            },
        )?;
        genid.ok_or(Error::Decode(DecodeError::Missing {
            what: "generation id in the NEWGEN reply",
        }))
    }

    /// Runs one dump: sends `msg_type` with `NLM_F_DUMP` and the filter attributes written by
    /// `attrs`, and passes every reply message to `on_msg` until the kernel says it is done.
    /// The caller checks [`DumpStatus::interrupted`] and retries (see
    /// [`dump_consistent`](Self::dump_consistent)).
    pub fn dump(
        &mut self,
        op: &'static str,
        msg_type: u16,
        family: u8,
        attrs: impl FnOnce(&mut MsgWriter),
        mut on_msg: impl FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<DumpStatus, Error> {
        self.drain_stale()?;
        let seq = self.next_seq(0);
        let mut w = MsgWriter::with_capacity(256);
        let m = w.begin(msg_type, NLM_F_REQUEST | NLM_F_DUMP, seq, family, 0);
        attrs(&mut w);
        w.finish(m)?;
        Self::send(&mut *self.sock, &mut self.time, &self.timed, w.as_bytes())?;
        let mut status = DumpStatus {
            interrupted: false,
            genid_low: None,
        };
        loop {
            match self.recv(true) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {
                    // Part of the dump was lost: report it as interrupted so it is redone.
                    status.interrupted = true;
                    continue;
                }
                Err(e) => return Err(Error::io(op, e)),
            }
            for m in Messages::new(&self.rx) {
                let m = m?;
                if m.seq() != seq {
                    continue;
                }
                if m.flags() & NLM_F_DUMP_INTR != 0 {
                    status.interrupted = true;
                }
                match m.msg_type() {
                    NLMSG_DONE => {
                        self.quiet = true;
                        return Ok(status);
                    }
                    NLMSG_ERROR => {
                        let e = m.error()?;
                        if e.errno == 0 {
                            continue;
                        }
                        // A refused dump ends with its error.
                        self.quiet = true;
                        if e.errno == libc::EPERM {
                            return Err(Error::Permission { op });
                        }
                        return Err(Error::Request {
                            op,
                            errno: e.errno,
                            ext_msg: e.ext_msg.map(str::to_owned),
                        });
                    }
                    NLMSG_NOOP | NLMSG_OVERRUN => {}
                    _ => {
                        let nf = m.nfgen()?;
                        match status.genid_low {
                            None => status.genid_low = Some(nf.res_id),
                            Some(g) if g != nf.res_id => status.interrupted = true,
                            _ => {}
                        }
                        if !status.interrupted {
                            self.time.dumped += 1;
                            on_msg(&m)?;
                        }
                    }
                }
            }
        }
    }

    /// Runs a dump whose result is consistent with one generation: reads the generation,
    /// dumps, reads the generation again, and starts over (calling `reset` first) when it moved
    /// or the kernel flagged the dump. Returns the generation the result belongs to.
    #[allow(clippy::too_many_arguments)]
    pub fn dump_consistent(
        &mut self,
        op: &'static str,
        msg_type: u16,
        family: u8,
        attrs: impl Fn(&mut MsgWriter),
        mut reset: impl FnMut(),
        mut on_msg: impl FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<u32, Error> {
        let mut retry = self.dump_retry();
        while retry.again() {
            let before = self.genid()?;
            let st = self.dump(op, msg_type, family, &attrs, &mut on_msg)?;
            let after = self.genid()?;
            let low_ok = st.genid_low.is_none_or(|g| g == before as u16);
            if !st.interrupted && before == after && low_ok {
                return Ok(before);
            }
            reset();
        }
        Err(Error::DumpInterrupted {
            op,
            tries: retry.tries(),
        })
    }
}
