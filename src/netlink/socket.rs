//! The `NETLINK_NETFILTER` socket: the only place in iptnl with `unsafe` code.
//!
//! Every system call is wrapped in a small safe function here; nothing else in the crate
//! touches file descriptors or raw pointers.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use iptnl_sys::netlink::{
    NETLINK_ADD_MEMBERSHIP, NETLINK_CAP_ACK, NETLINK_EXT_ACK, NETLINK_NETFILTER, SOL_NETLINK,
};

use super::error::Error;

mod activation;
pub use activation::{inherited_unix_listener, set_accept_timeout};

/// Size of the buffer each `recv` reads into. Netlink dump messages are at most 32 KiB; a
/// larger buffer lets one call return several of them.
pub const RECV_BUF_SIZE: usize = 256 * 1024;

/// An open `NETLINK_NETFILTER` socket, bound to a kernel-assigned port id.
///
/// ```no_run
/// use iptnl::netlink::Socket;
/// let sock = Socket::open()?;
/// println!("port id {}", sock.portid());
/// # Ok::<(), iptnl::netlink::Error>(())
/// ```
#[derive(Debug)]
pub struct Socket {
    fd: OwnedFd,
    portid: u32,
    sndbuf: usize,
    rcvbuf: usize,
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn setsockopt_int(fd: RawFd, level: i32, name: i32, value: i32) -> io::Result<()> {
    // SAFETY: `fd` is an open socket owned by the caller; the option value is a valid c_int
    // living for the duration of the call, and its size is passed exactly.
    let ret = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        )
    };
    cvt(ret).map(|_| ())
}

fn getsockopt_int(fd: RawFd, level: i32, name: i32) -> io::Result<i32> {
    let mut value: i32 = 0;
    let mut len = std::mem::size_of::<i32>() as libc::socklen_t;
    // SAFETY: `value` and `len` are valid for writes and `len` holds the size of `value`.
    let ret =
        unsafe { libc::getsockopt(fd, level, name, (&mut value as *mut i32).cast(), &mut len) };
    cvt(ret).map(|_| value)
}

/// Sets the socket timeout option `name` (`SO_RCVTIMEO` or `SO_SNDTIMEO`) of `fd`; `None`
/// waits forever.
fn set_timeout(fd: RawFd, name: i32, timeout: Option<std::time::Duration>) -> io::Result<()> {
    let tv = match timeout {
        Some(d) => libc::timeval {
            tv_sec: d.as_secs().min(i64::MAX as u64) as _,
            // At least 1 µs, so that a tiny timeout does not mean "forever".
            tv_usec: (d.subsec_micros().max(u32::from(d.is_zero()))) as _,
        },
        None => libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
    };
    // SAFETY: `fd` is an open socket owned by the caller; `tv` is a valid timeval living for
    // the duration of the call, and its size is passed exactly.
    let ret = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            name,
            (&tv as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    cvt(ret).map(|_| ())
}

/// `net.core.wmem_max`, the largest `SO_SNDBUF` a process without CAP_NET_ADMIN in the
/// initial user namespace may ask for (the kernel doubles it).
fn read_wmem_max() -> Option<usize> {
    std::fs::read_to_string("/proc/sys/net/core/wmem_max")
        .ok()?
        .trim()
        .parse()
        .ok()
}

impl Socket {
    /// Opens a socket in the calling thread's network namespace.
    pub fn open() -> Result<Socket, Error> {
        // SAFETY: plain socket(2) call with constant arguments; the result is checked.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                NETLINK_NETFILTER,
            )
        };
        let fd = cvt(fd).map_err(|e| Error::io("opening the netfilter netlink socket", e))?;
        // SAFETY: `fd` was just returned by socket(2) and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let raw = fd.as_raw_fd();

        // SAFETY: sockaddr_nl is plain old data; all-zero is a valid value (nl_pid 0 lets the
        // kernel assign the port id).
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        let addr_len = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
        // SAFETY: `addr` is a valid sockaddr_nl and `addr_len` its size.
        let ret = unsafe { libc::bind(raw, (&addr as *const libc::sockaddr_nl).cast(), addr_len) };
        cvt(ret).map_err(|e| Error::io("binding the netlink socket", e))?;
        let mut got_len = addr_len;
        // SAFETY: `addr` is valid for writes of `got_len` bytes.
        let ret = unsafe {
            libc::getsockname(
                raw,
                (&mut addr as *mut libc::sockaddr_nl).cast(),
                &mut got_len,
            )
        };
        cvt(ret).map_err(|e| Error::io("reading the netlink port id", e))?;

        // Extended ACKs give the offending attribute and a message; capped ACKs keep error
        // replies small. Both are best effort (old kernels lack them).
        let _ = setsockopt_int(raw, SOL_NETLINK, NETLINK_EXT_ACK, 1);
        let _ = setsockopt_int(raw, SOL_NETLINK, NETLINK_CAP_ACK, 1);
        let sndbuf = getsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUF).unwrap_or(0) as usize;
        let rcvbuf = getsockopt_int(raw, libc::SOL_SOCKET, libc::SO_RCVBUF).unwrap_or(0) as usize;
        Ok(Socket {
            fd,
            portid: addr.nl_pid,
            sndbuf,
            rcvbuf,
        })
    }

    /// Opens a socket inside the network namespace at `path` (for example
    /// `/var/run/netns/blue` or `/proc/1234/ns/net`).
    ///
    /// A short-lived helper thread enters the namespace, creates the socket and exits, so no
    /// thread of the caller ever changes namespace. The socket stays bound to that namespace
    /// for its whole life.
    pub fn open_in_netns(path: &Path) -> Result<Socket, Error> {
        let ns =
            std::fs::File::open(path).map_err(|e| Error::io("opening the network namespace", e))?;
        let ns_fd = OwnedFd::from(ns);
        std::thread::scope(|s| {
            s.spawn(|| {
                // SAFETY: `ns_fd` is an open namespace file descriptor; setns only affects the
                // calling thread, which is this helper thread and ends right after.
                let ret = unsafe { libc::setns(ns_fd.as_raw_fd(), libc::CLONE_NEWNET) };
                cvt(ret).map_err(|e| Error::io("entering the network namespace", e))?;
                Socket::open()
            })
            .join()
            .unwrap_or_else(|_| {
                Err(Error::io(
                    "entering the network namespace",
                    io::Error::other("helper thread panicked"),
                ))
            })
        })
    }

    /// The port id the kernel assigned to this socket.
    pub fn portid(&self) -> u32 {
        self.portid
    }

    /// The socket's file descriptor (for polling).
    pub fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Makes sure the send buffer can hold a message of `len` bytes: `SO_SNDBUFFORCE` first
    /// (needs CAP_NET_ADMIN), then `SO_SNDBUF`, then a clear error.
    pub fn ensure_sndbuf(&mut self, len: usize) -> Result<(), Error> {
        // netlink_sendmsg refuses (EMSGSIZE) a message longer than the send buffer minus 32.
        const SLACK: usize = 32;
        if len.saturating_add(SLACK) <= self.sndbuf {
            return Ok(());
        }
        // The kernel doubles the value it is given and compares the message length against
        // that doubled value; ask for the length plus some room.
        let want = len.saturating_add(64 * 1024).min(i32::MAX as usize / 2);
        let raw = self.fd.as_raw_fd();
        if setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, want as i32).is_err() {
            let _ = setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUF, want as i32);
        }
        self.sndbuf = getsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUF).unwrap_or(0) as usize;
        if len.saturating_add(SLACK) > self.sndbuf {
            return Err(Error::SendBuffer {
                need: len,
                got: self.sndbuf,
                wmem_max: read_wmem_max(),
            });
        }
        Ok(())
    }

    /// The longest batch this process can send on a netlink socket, in bytes: `None` when
    /// it may raise the send buffer at will (`SO_SNDBUFFORCE`, which needs CAP_NET_ADMIN in
    /// the initial user namespace), otherwise what the largest `SO_SNDBUF` allows (twice
    /// `net.core.wmem_max`, less the 32 bytes `netlink_sendmsg` keeps). Probed on a socket
    /// of its own, which is closed again.
    pub fn send_limit() -> Result<Option<usize>, Error> {
        const SLACK: usize = 32;
        let sock = Socket::open()?;
        let raw = sock.fd.as_raw_fd();
        // Asking for the buffer the socket already has changes nothing when allowed.
        let half = (sock.sndbuf / 2).max(1).min(i32::MAX as usize) as i32;
        if setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, half).is_ok() {
            return Ok(None);
        }
        let _ = setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUF, i32::MAX / 2);
        let got = getsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUF)
            .map_err(|e| Error::io("reading the socket send buffer size", e))?;
        Ok(Some((got.max(0) as usize).saturating_sub(SLACK)))
    }

    /// The network namespace this socket lives in, as an open file (`SIOCGSKNS`), for
    /// opening more sockets there or running programs in it.
    pub fn netns(&self) -> io::Result<OwnedFd> {
        const SIOCGSKNS: libc::c_ulong = 0x894C;
        // SAFETY: an ioctl on our own open socket that takes no argument; on success it
        // returns a new descriptor of the namespace.
        let fd = cvt(unsafe { libc::ioctl(self.fd.as_raw_fd(), SIOCGSKNS as _) })?;
        // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// The kernel's current `SO_SNDBUF` of this socket, in bytes (it reports twice the value
    /// that was set, as netlink accounts for overhead).
    pub fn send_buffer_size(&self) -> std::io::Result<usize> {
        getsockopt_int(self.fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDBUF).map(|v| v as usize)
    }

    /// Raises the receive buffer to at least `len` bytes where allowed (best effort).
    pub fn ensure_rcvbuf(&mut self, len: usize) {
        if len <= self.rcvbuf {
            return;
        }
        let want = len.min(i32::MAX as usize / 2) as i32;
        let raw = self.fd.as_raw_fd();
        if setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, want).is_err() {
            let _ = setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_RCVBUF, want);
        }
        self.rcvbuf = getsockopt_int(raw, libc::SOL_SOCKET, libc::SO_RCVBUF).unwrap_or(0) as usize;
    }

    /// Sets how long a waiting [`recv`](Self::recv) blocks before it returns `Ok(false)`
    /// (`SO_RCVTIMEO`); `None` waits forever.
    pub fn set_recv_timeout(&self, timeout: Option<std::time::Duration>) -> Result<(), Error> {
        set_timeout(self.fd.as_raw_fd(), libc::SO_RCVTIMEO, timeout)
            .map_err(|e| Error::io("setting the receive timeout", e))
    }

    /// Joins a multicast group (for example `NFNLGRP_NFTABLES` for ruleset events).
    pub fn join_group(&self, group: u32) -> Result<(), Error> {
        setsockopt_int(
            self.fd.as_raw_fd(),
            SOL_NETLINK,
            NETLINK_ADD_MEMBERSHIP,
            group as i32,
        )
        .map_err(|e| Error::io("joining the netlink multicast group", e))
    }

    /// Sends `buf` to the kernel in exactly one `sendmsg` call. The kernel processes a batch
    /// synchronously inside this call, so every reply is queued when it returns.
    pub fn send(&self, buf: &[u8]) -> Result<(), Error> {
        // SAFETY: sockaddr_nl is plain old data; zeroed means "the kernel" (pid 0, no groups).
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        let mut iov = libc::iovec {
            iov_base: buf.as_ptr() as *mut libc::c_void,
            iov_len: buf.len(),
        };
        // SAFETY: msghdr is plain old data; all-zero is valid before the fields are set.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_name = (&mut addr as *mut libc::sockaddr_nl).cast();
        msg.msg_namelen = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        loop {
            // SAFETY: `msg` points to `addr` and `iov`, which point to live memory of the given
            // sizes for the duration of the call; the kernel only reads from `buf`.
            let ret = unsafe { libc::sendmsg(self.fd.as_raw_fd(), &msg, 0) };
            if ret < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::io("sending to the kernel", e));
            }
            if ret as usize != buf.len() {
                return Err(Error::io(
                    "sending to the kernel",
                    io::Error::other(format!("short send: {ret} of {} bytes", buf.len())),
                ));
            }
            return Ok(());
        }
    }

    /// Receives one datagram (possibly several netlink messages) into `buf`, which is resized
    /// to what was received. With `wait == false` it returns `Ok(false)` at once when nothing
    /// is queued. `ENOBUFS` (lost messages) is returned as an error of kind `Other` with that
    /// errno, for the caller to map.
    pub fn recv(&self, buf: &mut Vec<u8>, wait: bool) -> io::Result<bool> {
        // Not zeroed: the kernel writes what is read (zeroing 256 KiB per call made a dump of
        // thousands of small chains spend most of its time in memset).
        buf.clear();
        buf.reserve(RECV_BUF_SIZE);
        let flags = if wait { 0 } else { libc::MSG_DONTWAIT };
        loop {
            // SAFETY: the spare capacity is valid for writes of RECV_BUF_SIZE bytes.
            let ret = unsafe {
                libc::recv(
                    self.fd.as_raw_fd(),
                    buf.spare_capacity_mut().as_mut_ptr().cast(),
                    RECV_BUF_SIZE,
                    flags | libc::MSG_TRUNC,
                )
            };
            if ret < 0 {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => {
                        buf.clear();
                        return Ok(false);
                    }
                    _ => return Err(e),
                }
            }
            let n = ret as usize;
            if n > RECV_BUF_SIZE {
                return Err(io::Error::other(format!(
                    "netlink message of {n} bytes did not fit the {RECV_BUF_SIZE}-byte receive buffer"
                )));
            }
            // SAFETY: the kernel wrote the first `n` bytes.
            unsafe { buf.set_len(n) };
            return Ok(true);
        }
    }
}

/// Moves the calling thread (only it) into the network namespace `ns` (an open namespace
/// file, e.g. `/proc/PID/ns/net` or one returned by [`Socket::netns`]).
pub fn enter_net_namespace(ns: &impl std::os::fd::AsFd) -> io::Result<()> {
    use std::os::fd::AsRawFd as _;
    // SAFETY: setns(2) with a borrowed, open file descriptor; it only changes the calling
    // thread's network namespace.
    cvt(unsafe { libc::setns(ns.as_fd().as_raw_fd(), libc::CLONE_NEWNET) }).map(|_| ())
}

/// Moves the calling thread (only it) into a new, empty network namespace.
///
/// Needs CAP_SYS_ADMIN (root, or root inside a user namespace as under `unshare -rn`). Used by
/// [`crate::netns`] to give tests and the demo a throwaway ruleset.
pub fn unshare_net_namespace() -> io::Result<()> {
    // SAFETY: unshare(2) with CLONE_NEWNET only changes the calling thread's network
    // namespace; it takes no pointers.
    cvt(unsafe { libc::unshare(libc::CLONE_NEWNET) }).map(|_| ())
}

/// The process at the other end of a connected unix socket, as the kernel recorded it when
/// the connection was made (`SO_PEERCRED`): process id, user id and group id, translated
/// into the caller's namespaces. `iptnl serve` uses it to serve only its own user and root.
///
/// ```no_run
/// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
/// let peer = iptnl::netlink::peer_credentials(&a)?;
/// assert_eq!(peer.pid, std::process::id() as i32);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn peer_credentials(sock: &impl std::os::fd::AsFd) -> io::Result<PeerCredentials> {
    use std::os::fd::AsRawFd as _;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes and `len` holds the size of `cred`; the
    // descriptor is borrowed and open.
    cvt(unsafe {
        libc::getsockopt(
            sock.as_fd().as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    })?;
    Ok(PeerCredentials {
        pid: cred.pid,
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// Moves up to `len` bytes from `from` to `to` inside the kernel (`splice(2)`), one of them
/// being a pipe, and returns how many moved (0 at the end of `from`). Data a unix stream
/// socket received from a big write moves into a pipe without being copied through this
/// process. An error of kind [`io::ErrorKind::InvalidInput`] means the pair cannot be
/// spliced (neither is a pipe, say): copy instead.
///
/// ```no_run
/// let (a, b) = std::os::unix::net::UnixStream::pair()?;
/// let out = std::io::stdout();
/// let moved = iptnl::netlink::splice(&a, &out, 1 << 16)?;
/// # drop(b);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn splice(
    from: &impl std::os::fd::AsFd,
    to: &impl std::os::fd::AsFd,
    len: usize,
) -> io::Result<usize> {
    splice_from(from.as_fd(), None, to.as_fd(), len)
}

/// `splice(2)` from `from` (at `offset` when given, without moving its position; else at
/// and moving its position) to `to` at its position.
fn splice_from(
    from: std::os::fd::BorrowedFd<'_>,
    offset: Option<&mut i64>,
    to: std::os::fd::BorrowedFd<'_>,
    len: usize,
) -> io::Result<usize> {
    let off_in = offset.map_or(std::ptr::null_mut(), |o| o as *mut i64);
    // SAFETY: both descriptors are borrowed and open; `off_in` is null (the kernel uses and
    // advances the descriptor's own position) or points at an i64 the caller lends for the
    // call, the only memory of this process handed over (the kernel reads and updates it).
    let n = unsafe {
        libc::splice(
            from.as_raw_fd(),
            off_in,
            to.as_raw_fd(),
            std::ptr::null_mut(),
            len,
            libc::SPLICE_F_MOVE,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize)
}

/// Connects a unix stream socket to the abstract name `name` (shown as `@name`) of the
/// calling thread's network namespace, waiting at most `timeout` for room in the listener's
/// backlog. A plain `connect` to a listener that never accepts blocks for good once its
/// backlog is full; this one fails with [`io::ErrorKind::WouldBlock`] instead. Nobody
/// listening is [`io::ErrorKind::ConnectionRefused`]; a name over 107 bytes is
/// [`io::ErrorKind::InvalidInput`]. The stream has no timeouts of its own.
///
/// ```no_run
/// use std::time::Duration;
/// let stream = iptnl::netlink::connect_abstract(b"iptnl", Duration::from_secs(1))?;
/// println!("{:?}", iptnl::netlink::peer_credentials(&stream)?);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn connect_abstract(
    name: &[u8],
    timeout: std::time::Duration,
) -> io::Result<std::os::unix::net::UnixStream> {
    // SAFETY: sockaddr_un is plain old data; all-zero is a valid value (family AF_UNSPEC,
    // an empty path), and the leading zero byte of sun_path is what makes a name abstract.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let path = addr
        .sun_path
        .get_mut(1..=name.len())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "socket name too long"))?;
    for (d, &s) in path.iter_mut().zip(name) {
        *d = s as libc::c_char;
    }
    let addr_len = (std::mem::size_of::<libc::sa_family_t>() + 1 + name.len()) as libc::socklen_t;
    // SAFETY: plain socket(2) call with constant arguments; the result is checked.
    let fd =
        cvt(unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: `fd` was just returned by socket(2) and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // A unix socket's connect waits for backlog room for as long as its send timeout.
    set_timeout(fd.as_raw_fd(), libc::SO_SNDTIMEO, Some(timeout))?;
    loop {
        // SAFETY: `addr` is a valid sockaddr_un and `addr_len` at most its size.
        let ret = unsafe {
            libc::connect(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_un).cast(),
                addr_len,
            )
        };
        match cvt(ret) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    set_timeout(fd.as_raw_fd(), libc::SO_SNDTIMEO, None)?;
    Ok(std::os::unix::net::UnixStream::from(fd))
}

/// A unix socket peer's identity (see [`peer_credentials`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerCredentials {
    /// Process id (0 when the peer is in a pid namespace the caller cannot see).
    pub pid: i32,
    /// User id (the overflow id, usually 65534, when unmapped in the caller's user namespace).
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

/// The calling process's effective user id.
///
/// ```
/// let root = iptnl::netlink::effective_uid() == 0;
/// println!("running as {}", if root { "root" } else { "another user" });
/// ```
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid(2) takes no arguments and cannot fail.
    unsafe { libc::geteuid() }
}

/// Sends one ipset `SO_IP_SET` request (`getsockopt(SOL_IP, SO_IP_SET)` on a raw IPv4
/// socket, as iptables' `libxt_set` does): `req` holds the request struct (an
/// `iptnl_sys::xt::ip_set_req_*` as bytes) and receives the kernel's answer in place.
/// Returns the length the kernel wrote back. Needs CAP_NET_RAW and CAP_NET_ADMIN in the
/// calling thread's network namespace, whose sets it sees.
pub fn ip_set_sockopt(req: &mut [u8]) -> io::Result<usize> {
    // SAFETY: plain socket(2) call with constant arguments; the result is checked.
    let fd = cvt(unsafe {
        libc::socket(
            libc::AF_INET,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            libc::IPPROTO_RAW,
        )
    })?;
    // SAFETY: `fd` was just returned by socket(2) and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut len = req.len() as libc::socklen_t;
    // SAFETY: `req` is valid for reads and writes of `len` bytes for the duration of the
    // call, and `len` is a valid socklen_t the kernel updates with the length it wrote.
    let ret = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_IP,
            iptnl_sys::xt::SO_IP_SET,
            req.as_mut_ptr().cast(),
            &mut len,
        )
    };
    cvt(ret)?;
    Ok(len as usize)
}

/// The name of the network interface of index `index` in the calling thread's network
/// namespace (`if_indextoname(3)`), `None` when there is none.
///
/// ```
/// assert_eq!(iptnl::netlink::interface_name(0), None);
/// ```
pub fn interface_name(index: u32) -> Option<String> {
    if index == 0 {
        return None;
    }
    let mut buf = [0u8; libc::IF_NAMESIZE];
    // SAFETY: `buf` holds IF_NAMESIZE bytes, the size if_indextoname(3) writes at most (the
    // name and its NUL); the returned pointer is only compared with null.
    let p = unsafe { libc::if_indextoname(index, buf.as_mut_ptr().cast()) };
    if p.is_null() {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0)?;
    String::from_utf8(buf[..end].to_vec()).ok()
}

/// Faults in the pages of `len` bytes at address `addr` as if they were written
/// (`madvise(MADV_POPULATE_WRITE)`, Linux 5.14 on), without changing their contents. A range
/// that is not (or no longer) mapped fails with `ENOMEM`; an older kernel with `EINVAL`.
/// Used to move the page faults of a big batch buffer to a thread that has time for them.
pub fn populate_write(addr: usize, len: usize) -> io::Result<()> {
    // SAFETY: MADV_POPULATE_WRITE only populates page tables (allocating zeroed pages where
    // none are present, or breaking copy-on-write); it never changes what any mapped byte
    // holds, so no memory the program can observe is modified, whatever the range. An
    // address range that is not mapped is refused by the kernel with ENOMEM.
    cvt(unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) })
        .map(|_| ())
}

/// A set of signals, for [`block_signals`] and [`wait_signal`].
fn sigset(signals: &[i32]) -> io::Result<libc::sigset_t> {
    // SAFETY: sigset_t is plain data; sigemptyset initializes it before any other use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, exclusively borrowed sigset_t.
    cvt(unsafe { libc::sigemptyset(&mut set) })?;
    for &s in signals {
        // SAFETY: as above; an invalid signal number is reported as EINVAL.
        cvt(unsafe { libc::sigaddset(&mut set, s) })?;
    }
    Ok(set)
}

/// Blocks `signals` in the calling thread, and so in every thread it starts afterwards, so
/// that they wait to be taken by [`wait_signal`] instead of running their default action.
/// `iptnl serve` blocks SIGTERM, SIGINT and SIGUSR1 before it starts its threads.
///
/// ```no_run
/// iptnl::netlink::block_signals(&[libc::SIGUSR1])?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn block_signals(signals: &[i32]) -> io::Result<()> {
    let set = sigset(signals)?;
    // SAFETY: pthread_sigmask with a valid set and no old-set pointer; it changes only the
    // calling thread's mask.
    let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// Waits for one of `signals` (blocked beforehand with [`block_signals`]) for at most
/// `timeout` (`None`: no limit) and returns it, or `None` when the time ran out.
///
/// ```no_run
/// use std::time::Duration;
/// iptnl::netlink::block_signals(&[libc::SIGUSR1])?;
/// if let Some(s) = iptnl::netlink::wait_signal(&[libc::SIGUSR1], Some(Duration::from_secs(1)))? {
///     println!("signal {s}");
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn wait_signal(
    signals: &[i32],
    timeout: Option<std::time::Duration>,
) -> io::Result<Option<i32>> {
    let set = sigset(signals)?;
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs().min(i64::MAX as u64) as _,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
    loop {
        let tsp = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: sigtimedwait with a valid set, no siginfo pointer and a timespec that lives
        // across the call (or null: wait without limit).
        let r = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), tsp) };
        if r >= 0 {
            return Ok(Some(r));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) => return Ok(None),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}

/// Sends `signal` to the process `pid` (`kill(2)`): how `iptnl demo` stops the server it
/// started as an operator would, with SIGTERM, so that the commands in flight finish and are
/// logged. A `pid` of 0 or beyond `i32` (a process group, or none) is refused as EINVAL.
///
/// ```no_run
/// let child = std::process::Command::new("sleep").arg("60").spawn()?;
/// iptnl::netlink::send_signal(child.id(), libc::SIGTERM)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn send_signal(pid: u32, signal: i32) -> io::Result<()> {
    let pid = match libc::pid_t::try_from(pid) {
        Ok(p) if p > 0 => p,
        _ => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
    };
    // SAFETY: kill(2) with a positive pid signals that one process; it touches no memory of
    // ours, and a bad signal number or a gone process comes back as an error.
    cvt(unsafe { libc::kill(pid, signal) })?;
    Ok(())
}

/// Whether `fd` has input ready (or its end, or an error, to read) within `timeout`
/// (`poll(2)` for `POLLIN`): a restore reading a pipe commits what is complete when its writer
/// pauses.
///
/// ```
/// use std::io::Write;
/// use std::time::Duration;
/// let (r, mut w) = std::io::pipe()?;
/// assert!(!iptnl::netlink::input_ready(&r, Duration::ZERO)?);
/// w.write_all(b"COMMIT\n")?;
/// assert!(iptnl::netlink::input_ready(&r, Duration::ZERO)?);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn input_ready(fd: &impl std::os::fd::AsFd, timeout: std::time::Duration) -> io::Result<bool> {
    let mut p = libc::pollfd {
        fd: fd.as_fd().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: poll on one pollfd that lives across the call; the descriptor is borrowed
        // from `fd`, open for the whole call.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r >= 0 {
            return Ok(r > 0 && p.revents != 0);
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// An anonymous in-memory file (`memfd_create(2)`, close-on-exec) that can be sealed with
/// [`seal_contents`], to hand a big text to other processes as a descriptor instead of
/// copying it into each of their sockets.
///
/// ```no_run
/// use std::io::Write;
/// let mut f = iptnl::netlink::memfd("listing")?;
/// f.write_all(b"-P INPUT ACCEPT\n")?;
/// iptnl::netlink::seal_contents(&f)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn memfd(name: &str) -> io::Result<std::fs::File> {
    let name = std::ffi::CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a name with a NUL byte"))?;
    // SAFETY: `name` is a NUL-terminated string that lives across the call; the flags are
    // plain bits.
    let fd = cvt(unsafe {
        libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING)
    })?;
    // SAFETY: `fd` was just returned by memfd_create and nothing else owns it.
    Ok(std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Gives the free memory the allocator holds back to the system where it can (glibc's
/// `malloc_trim`, which returns the free pages of every arena; nothing elsewhere): a
/// long-lived process that has just freed a big transient read does not keep it resident.
///
/// ```
/// iptnl::netlink::release_free_memory();
/// ```
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only walks the allocator's own free lists,
    // under the allocator's locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Seals a [`memfd`] so that its contents and size never change again, whoever holds it
/// (`F_SEAL_WRITE`, `F_SEAL_SHRINK`, `F_SEAL_GROW`, then `F_SEAL_SEAL`).
///
/// ```no_run
/// let f = iptnl::netlink::memfd("empty")?;
/// iptnl::netlink::seal_contents(&f)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn seal_contents(file: &std::fs::File) -> io::Result<()> {
    let seals = libc::F_SEAL_WRITE | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
    // SAFETY: fcntl on a borrowed open descriptor with an integer argument.
    cvt(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) }).map(|_| ())
}

/// Sends `bytes` on a unix stream socket with the descriptor `fd` attached (`SCM_RIGHTS`);
/// returns how many bytes went (the descriptor goes with the first of them).
///
/// ```no_run
/// let (a, b) = std::os::unix::net::UnixStream::pair()?;
/// let f = std::fs::File::open("/etc/hostname")?;
/// iptnl::netlink::send_with_fd(&a, b"x", &f)?;
/// let (mut buf, mut fds) = ([0; 1], Vec::new());
/// iptnl::netlink::recv_with_fds(&b, &mut buf, &mut fds)?;
/// assert_eq!(fds.len(), 1);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn send_with_fd(
    sock: &impl std::os::fd::AsFd,
    bytes: &[u8],
    fd: &impl std::os::fd::AsFd,
) -> io::Result<usize> {
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: a zeroed msghdr is a valid empty one; its pointers are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: `msg` points at `control`, which is CMSG_SPACE(one descriptor) bytes long, so
    // CMSG_FIRSTHDR is a valid header with room for CMSG_LEN(one descriptor) bytes, and
    // CMSG_DATA points at room for one descriptor (written unaligned).
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<RawFd>(), fd.as_fd().as_raw_fd());
    }
    loop {
        // SAFETY: `msg` and everything it points at (`iov` over `bytes`, `control`) live
        // across the call; the kernel only reads them.
        let n = unsafe { libc::sendmsg(sock.as_fd().as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Reads from a unix stream socket into `buf` like `read`, keeping the descriptors that
/// come with the bytes (`SCM_RIGHTS`, received close-on-exec) in `fds`, in order. Returns
/// how many bytes were read (0 at the end of the stream).
///
/// ```no_run
/// let (a, b) = std::os::unix::net::UnixStream::pair()?;
/// iptnl::netlink::send_with_fd(&a, b"x", &std::io::stdin())?;
/// let (mut buf, mut fds) = ([0; 8], Vec::new());
/// assert_eq!(iptnl::netlink::recv_with_fds(&b, &mut buf, &mut fds)?, 1);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn recv_with_fds(
    sock: &impl std::os::fd::AsFd,
    buf: &mut [u8],
    fds: &mut Vec<OwnedFd>,
) -> io::Result<usize> {
    /// The most descriptors taken with one read.
    const MAX_FDS: u32 = 8;
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(MAX_FDS * std::mem::size_of::<RawFd>() as u32) };
    // u64s, so the buffer is aligned for cmsghdr.
    let mut control = vec![0u64; (space as usize).div_ceil(8)];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: a zeroed msghdr is a valid empty one; its pointers are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = (control.len() * 8) as _;
    let n = loop {
        // SAFETY: `msg` points at `buf` (through `iov`) and `control`, both valid for writes
        // of the lengths given, and both live across the call.
        let n =
            unsafe { libc::recvmsg(sock.as_fd().as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n as usize;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    // SAFETY: the kernel filled `msg.msg_controllen` bytes of `control` with well-formed
    // control messages; CMSG_FIRSTHDR/CMSG_NXTHDR walk only within them; an SCM_RIGHTS
    // message's data holds (cmsg_len - CMSG_LEN(0)) / size_of::<RawFd>() descriptors that
    // the kernel just installed in this process and nothing else owns (read unaligned).
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let bytes = (*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let data = libc::CMSG_DATA(c).cast::<RawFd>();
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok(n)
}

/// [`splice`] from a regular file at `offset` (the file's own position is neither used
/// nor moved, so processes sharing the descriptor do not disturb each other) to `to`, which
/// must be a pipe ([`io::ErrorKind::InvalidInput`] otherwise). Pages of an in-memory file
/// go into the pipe without being copied.
///
/// ```no_run
/// let f = std::fs::File::open("/etc/hostname")?;
/// let moved = iptnl::netlink::splice_at(&f, 0, &std::io::stdout(), 4096)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn splice_at(
    from: &std::fs::File,
    offset: u64,
    to: &impl std::os::fd::AsFd,
    len: usize,
) -> io::Result<usize> {
    use std::os::fd::AsFd as _;
    let mut off = i64::try_from(offset)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "an offset over 2^63"))?;
    splice_from(from.as_fd(), Some(&mut off), to.as_fd(), len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::fs::FileExt;

    #[test]
    fn a_sealed_memfd_travels_and_splices_at_an_offset() {
        let mut f = memfd("test").unwrap();
        f.write_all(b"hello, world\n").unwrap();
        seal_contents(&f).unwrap();
        // Sealed: no more writes, whoever holds it.
        assert!(f.write_all(b"x").is_err());
        assert!(f.set_len(1).is_err());

        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(send_with_fd(&a, b"ab", &f).unwrap(), 2);
        (&a).write_all(b"cd").unwrap();
        drop(a);
        let (mut buf, mut fds) = ([0; 16], Vec::new());
        let mut got = Vec::new();
        loop {
            let n = recv_with_fds(&b, &mut buf, &mut fds).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, b"abcd");
        assert_eq!(fds.len(), 1);
        let g = std::fs::File::from(fds.pop().unwrap());
        let mut head = [0; 5];
        g.read_exact_at(&mut head, 0).unwrap();
        assert_eq!(&head, b"hello");

        // From offset 7 into a pipe, the file's own position neither used nor moved.
        let (mut r, w) = std::io::pipe().unwrap();
        assert_eq!(splice_at(&g, 7, &w, 100).unwrap(), 6);
        drop(w);
        let mut out = String::new();
        r.read_to_string(&mut out).unwrap();
        assert_eq!(out, "world\n");
        // The description is the writer's (13, after its write) and stays there.
        use std::io::Seek;
        assert_eq!((&g).stream_position().unwrap(), 13);

        // Not a pipe on either side.
        let e = splice_at(&g, 0, &f, 4).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
