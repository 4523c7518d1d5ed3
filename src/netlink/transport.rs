//! What a [`Conn`](super::Conn) talks through: the kernel's netlink socket, or another
//! implementation of nf_tables that takes the same bytes and answers the same messages (the
//! in-memory ruleset of [`crate::memory`]).
//!
//! The contract is the netlink socket's: [`send`](Transport::send) hands over one datagram (a
//! request, or a whole batch framed by BATCH_BEGIN and BATCH_END) and every reply is queued
//! by the time it returns, as the kernel answers within `sendmsg`;
//! [`recv`](Transport::recv) returns one queued datagram. Multicast groups
//! ([`join_group`](Transport::join_group)) deliver the ruleset events of other endpoints'
//! commits.

use std::fmt;
use std::io;
use std::time::Duration;

use super::error::Error;
use super::socket::Socket;

/// One endpoint of an nf_tables netlink conversation.
///
/// ```
/// use iptnl::netlink::Transport;
/// fn describe(t: &dyn Transport) -> String {
///     format!("port {}{}", t.portid(), if t.as_socket().is_some() { " (kernel)" } else { "" })
/// }
/// ```
pub trait Transport: Send + fmt::Debug {
    /// Sends one datagram; every reply is queued when this returns.
    fn send(&mut self, buf: &[u8]) -> Result<(), Error>;

    /// Receives one datagram (possibly several messages) into `buf`, resized to its length.
    /// With `wait == false`, `Ok(false)` when nothing is queued; with `wait`, blocks until a
    /// datagram comes or the receive timeout passes (an error of kind `WouldBlock`).
    /// `ENOBUFS` (messages lost) is an error with that errno.
    fn recv(&mut self, buf: &mut Vec<u8>, wait: bool) -> io::Result<bool>;

    /// Makes room to send a datagram of `len` bytes (the socket raises its send buffer).
    fn ensure_sndbuf(&mut self, _len: usize) -> Result<(), Error> {
        Ok(())
    }

    /// Makes room to queue `len` bytes of replies or events (best effort).
    fn ensure_rcvbuf(&mut self, _len: usize) {}

    /// How long a waiting [`recv`](Self::recv) blocks (`None`: forever).
    fn set_recv_timeout(&mut self, timeout: Option<Duration>) -> Result<(), Error>;

    /// Joins a multicast group (`NFNLGRP_NFTABLES` for ruleset events).
    fn join_group(&mut self, group: u32) -> Result<(), Error>;

    /// A new endpoint on the same nf_tables (for a socket: in the same network namespace),
    /// for a second connection or a subscription.
    fn open_another(&self) -> Result<Box<dyn Transport>, Error>;

    /// The endpoint's netlink port id.
    fn portid(&self) -> u32;

    /// The kernel socket, when this endpoint is one.
    fn as_socket(&self) -> Option<&Socket> {
        None
    }

    /// The ruleset's generation now, when the endpoint can tell it without a request (an
    /// in-memory ruleset can; the kernel's socket cannot: `None`, ask with `GETGEN`). A
    /// reader that saw the same generation before knows that nothing changed since.
    fn peek_genid(&self) -> Option<u32> {
        None
    }
}

impl Transport for Socket {
    fn send(&mut self, buf: &[u8]) -> Result<(), Error> {
        Socket::send(self, buf)
    }

    fn recv(&mut self, buf: &mut Vec<u8>, wait: bool) -> io::Result<bool> {
        Socket::recv(self, buf, wait)
    }

    fn ensure_sndbuf(&mut self, len: usize) -> Result<(), Error> {
        Socket::ensure_sndbuf(self, len)
    }

    fn ensure_rcvbuf(&mut self, len: usize) {
        Socket::ensure_rcvbuf(self, len)
    }

    fn set_recv_timeout(&mut self, timeout: Option<Duration>) -> Result<(), Error> {
        Socket::set_recv_timeout(self, timeout)
    }

    fn join_group(&mut self, group: u32) -> Result<(), Error> {
        Socket::join_group(self, group)
    }

    fn open_another(&self) -> Result<Box<dyn Transport>, Error> {
        use std::os::fd::AsRawFd;
        let ns = self
            .netns()
            .map_err(|e| Error::io("finding the socket's network namespace", e))?;
        let path = format!("/proc/self/fd/{}", ns.as_raw_fd());
        Ok(Box::new(Socket::open_in_netns(std::path::Path::new(
            &path,
        ))?))
    }

    fn portid(&self) -> u32 {
        Socket::portid(self)
    }

    fn as_socket(&self) -> Option<&Socket> {
        Some(self)
    }
}
