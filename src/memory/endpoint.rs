//! The netlink endpoints of an in-memory ruleset: each is a [`Transport`] with its own
//! queue of datagrams; a send is applied under the ruleset's lock and answered at once (as
//! the kernel answers within `sendmsg`), dumps are built as they are read, and the events
//! of a commit are queued to every endpoint that joined `NFNLGRP_NFTABLES` (up to its
//! receive buffer: past it, events are dropped and the next read says `ENOBUFS`, as the
//! kernel's socket does).

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Duration;

use iptnl_sys::nfnetlink::NFNLGRP_NFTABLES;

use super::batch::{self, Who};
use super::requests::{self, Answer, Dump};
use super::state::Nft;
use crate::netlink::{Error, Transport};

/// The default receive buffer of an endpoint that listens (`net.core.rmem_default`).
const RCVBUF_DEFAULT: usize = 212_992;

/// What the endpoints of one ruleset share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub world: Mutex<World>,
}

#[derive(Debug, Default)]
pub(crate) struct World {
    pub nft: Nft,
    listeners: Vec<Weak<Queue>>,
    next_portid: u32,
}

impl Shared {
    pub fn new() -> Arc<Shared> {
        Arc::new(Shared {
            world: Mutex::new(World {
                next_portid: 1,
                ..World::default()
            }),
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[derive(Debug, Default)]
struct Inbox {
    datagrams: VecDeque<Vec<u8>>,
    bytes: usize,
    limit: usize,
    lost: bool,
    listening: bool,
    timeout: Option<Duration>,
    dump: Option<Dump>,
}

#[derive(Debug, Default)]
pub(crate) struct Queue {
    inbox: Mutex<Inbox>,
    ready: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a reply (never dropped: the sender reads its replies).
    fn reply(&self, d: Vec<u8>) {
        let mut q = self.lock();
        q.bytes += d.len();
        q.datagrams.push_back(d);
    }

    /// Queues an event, or drops it when the receive buffer is full.
    fn event(&self, d: &[u8]) {
        let mut q = self.lock();
        if q.bytes + d.len() > q.limit {
            q.lost = true;
        } else {
            q.bytes += d.len();
            q.datagrams.push_back(d.to_vec());
        }
        drop(q);
        self.ready.notify_all();
    }
}

/// One endpoint: a [`Transport`] to the in-memory ruleset.
#[derive(Debug)]
pub(crate) struct Endpoint {
    shared: Arc<Shared>,
    queue: Arc<Queue>,
    portid: u32,
}

impl Endpoint {
    pub fn new(shared: Arc<Shared>) -> Endpoint {
        let portid = {
            let mut w = shared.lock();
            let p = w.next_portid;
            w.next_portid = w.next_portid.wrapping_add(1).max(1);
            p
        };
        let queue = Arc::new(Queue::default());
        queue.lock().limit = RCVBUF_DEFAULT;
        Endpoint {
            shared,
            queue,
            portid,
        }
    }
}

/// The calling thread's id and name, as the kernel reports the committing task.
fn who() -> (u32, std::rc::Rc<str>) {
    thread_local! {
        static WHO: (u32, std::rc::Rc<str>) = {
            let (pid, name) = read_who();
            (pid, name.into())
        };
    }
    WHO.with(|w| w.clone())
}

fn read_who() -> (u32, String) {
    let tid = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name()?.to_str()?.parse().ok())
        .unwrap_or_else(std::process::id);
    let name = std::fs::read_to_string("/proc/thread-self/comm")
        .map(|s| s.trim_end_matches('\n').to_owned())
        .unwrap_or_else(|_| "iptnl".to_owned());
    (tid, name)
}

impl Transport for Endpoint {
    fn send(&mut self, buf: &[u8]) -> Result<(), Error> {
        let Some(msgs) = batch::split(buf) else {
            return Err(Error::Unsupported {
                what: "a datagram that is not well-formed netlink".into(),
            });
        };
        if msgs.is_empty() {
            return Ok(());
        }
        let (pid, name) = who();
        let who = Who { pid, name: &name };
        let mut world = self.shared.lock();
        if batch::is_batch(&msgs) {
            world.listeners.retain(|l| l.strong_count() > 0);
            let listening = !world.listeners.is_empty();
            let out = batch::apply(&mut world.nft, &msgs, self.portid, listening, &who)
                .map_err(|what| Error::Unsupported { what })?;
            for l in world.listeners.iter().filter_map(Weak::upgrade) {
                if Arc::ptr_eq(&l, &self.queue) {
                    continue;
                }
                for e in &out.events {
                    l.event(e);
                }
            }
            drop(world);
            for r in out.replies {
                self.queue.reply(r);
            }
            return Ok(());
        }
        for m in &msgs {
            match requests::answer(&world.nft, m, self.portid, &who)
                .map_err(|what| Error::Unsupported { what })?
            {
                Answer::Now(d) => self.queue.reply(d),
                Answer::Dump(d) => self.queue.lock().dump = Some(d),
            }
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut Vec<u8>, wait: bool) -> io::Result<bool> {
        buf.clear();
        loop {
            let mut q = self.queue.lock();
            if q.lost {
                q.lost = false;
                q.datagrams.clear();
                q.bytes = 0;
                return Err(io::Error::from_raw_os_error(libc::ENOBUFS));
            }
            if let Some(d) = q.datagrams.pop_front() {
                q.bytes -= d.len();
                buf.extend_from_slice(&d);
                return Ok(true);
            }
            if let Some(mut dump) = q.dump.take() {
                drop(q);
                let (d, last) = {
                    let world = self.shared.lock();
                    dump.next(&world.nft)
                };
                let mut q = self.queue.lock();
                if !last {
                    q.dump = Some(dump);
                }
                buf.extend_from_slice(&d);
                return Ok(true);
            }
            if !wait || !q.listening {
                // Nothing can come to an endpoint that does not listen: every reply was
                // queued by its send.
                return if wait {
                    Err(io::Error::from(io::ErrorKind::WouldBlock))
                } else {
                    Ok(false)
                };
            }
            let timeout = q.timeout;
            match timeout {
                Some(t) => {
                    let (q2, res) = self
                        .queue
                        .ready
                        .wait_timeout(q, t)
                        .unwrap_or_else(|p| p.into_inner());
                    let empty = q2.datagrams.is_empty() && !q2.lost;
                    drop(q2);
                    if res.timed_out() && empty {
                        return Err(io::Error::from(io::ErrorKind::WouldBlock));
                    }
                }
                None => {
                    let q2 = self.queue.ready.wait(q).unwrap_or_else(|p| p.into_inner());
                    drop(q2);
                }
            }
        }
    }

    fn ensure_rcvbuf(&mut self, len: usize) {
        let mut q = self.queue.lock();
        q.limit = q.limit.max(len);
    }

    fn set_recv_timeout(&mut self, timeout: Option<Duration>) -> Result<(), Error> {
        self.queue.lock().timeout = timeout;
        Ok(())
    }

    fn join_group(&mut self, group: u32) -> Result<(), Error> {
        if group != NFNLGRP_NFTABLES {
            return Err(Error::Unsupported {
                what: format!("netlink multicast group {group}"),
            });
        }
        let mut world = self.shared.lock();
        self.queue.lock().listening = true;
        world.listeners.push(Arc::downgrade(&self.queue));
        Ok(())
    }

    fn open_another(&self) -> Result<Box<dyn Transport>, Error> {
        Ok(Box::new(Endpoint::new(self.shared.clone())))
    }

    fn portid(&self) -> u32 {
        self.portid
    }

    fn peek_genid(&self) -> Option<u32> {
        Some(self.shared.lock().nft.genid)
    }
}
