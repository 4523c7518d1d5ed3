//! Sockets handed over by a service manager (systemd's socket activation protocol), and
//! accepting with a timeout.
//!
//! A service started for a socket unit finds its listening sockets already open from
//! descriptor 3 on, `LISTEN_FDS` saying how many and `LISTEN_PID` naming the process they
//! are for (see `sd_listen_fds(3)`).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixListener;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{cvt, getsockopt_int, set_timeout};

/// The first descriptor a service manager passes (`SD_LISTEN_FDS_START`).
const LISTEN_FDS_START: RawFd = 3;

/// Set once the inherited socket has been taken, so that it is never owned twice.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The listening unix stream socket a service manager passed to this process, if any.
///
/// Reads `LISTEN_PID` and `LISTEN_FDS` as `sd_listen_fds(3)` does: no `LISTEN_FDS`, a count
/// of 0, or a `LISTEN_PID` naming another process mean none was passed (`Ok(None)`). Exactly
/// one socket is taken (descriptor 3); it must be a listening `AF_UNIX` stream socket, and
/// is marked close-on-exec. The variables are left for the caller to remove (before any
/// thread starts, as changing the environment requires). A second call returns `Ok(None)`.
///
/// ```no_run
/// match iptnl::netlink::inherited_unix_listener()? {
///     Some(l) => println!("activated on {:?}", l.local_addr()?),
///     None => println!("started by hand"),
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn inherited_unix_listener() -> io::Result<Option<UnixListener>> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let Some(fds) = std::env::var_os("LISTEN_FDS") else {
        return Ok(None);
    };
    if let Some(pid) = std::env::var_os("LISTEN_PID") {
        let pid = pid.to_str().and_then(|p| p.parse::<u32>().ok());
        match pid {
            Some(p) if p == std::process::id() => {}
            Some(_) => return Ok(None),
            None => return Err(invalid("LISTEN_PID is not a process id".into())),
        }
    }
    let n = match fds.to_str().and_then(|n| n.parse::<u32>().ok()) {
        Some(n) => n,
        None => return Err(invalid("LISTEN_FDS is not a number of descriptors".into())),
    };
    if n == 0 {
        return Ok(None);
    }
    if n != 1 {
        return Err(invalid(format!(
            "the service manager passed {n} sockets (LISTEN_FDS={n}); exactly one is served"
        )));
    }
    let fd = LISTEN_FDS_START;
    let check = |what: &str, level: i32, name: i32, want: i32| -> io::Result<()> {
        match getsockopt_int(fd, level, name) {
            Ok(v) if v == want => Ok(()),
            Ok(_) => Err(invalid(format!("descriptor {fd} is not {what}"))),
            Err(e) if e.raw_os_error() == Some(libc::ENOTSOCK) => {
                Err(invalid(format!("descriptor {fd} is not a socket")))
            }
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!("descriptor {fd} passed by the service manager: {e}"),
            )),
        }
    };
    check(
        "a unix socket",
        libc::SOL_SOCKET,
        libc::SO_DOMAIN,
        libc::AF_UNIX,
    )?;
    check(
        "a stream socket",
        libc::SOL_SOCKET,
        libc::SO_TYPE,
        libc::SOCK_STREAM,
    )?;
    check("listening", libc::SOL_SOCKET, libc::SO_ACCEPTCONN, 1)?;
    if TAKEN.swap(true, Ordering::SeqCst) {
        return Ok(None);
    }
    // SAFETY: descriptor 3 is open (getsockopt answered for it) and, by the socket
    // activation protocol, handed to this process to own; TAKEN makes sure only one
    // OwnedFd is ever made of it.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: fcntl on a descriptor this process owns, with integer arguments only.
    cvt(unsafe { libc::fcntl(owned.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) })?;
    Ok(Some(UnixListener::from(owned)))
}

/// Makes `accept` on `listener` give up after `timeout` with an error of kind
/// [`io::ErrorKind::WouldBlock`] (Linux applies a socket's receive timeout to `accept`);
/// `None` waits forever again.
///
/// ```no_run
/// use std::os::unix::net::UnixListener;
/// let l = UnixListener::bind("/run/example.sock")?;
/// iptnl::netlink::set_accept_timeout(&l, Some(std::time::Duration::from_secs(30)))?;
/// match l.accept() {
///     Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => println!("idle"),
///     other => drop(other),
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn set_accept_timeout(
    listener: &UnixListener,
    timeout: Option<std::time::Duration>,
) -> io::Result<()> {
    set_timeout(listener.as_raw_fd(), libc::SO_RCVTIMEO, timeout)
}
