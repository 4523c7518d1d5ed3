//! Socket activation: the listening socket a service manager (systemd, with a socket unit
//! `ListenStream=@iptnl`) opened for the server and passed to it, so that no server runs until
//! the first command and an idle one may exit (`--idle-exit`): the manager keeps the socket
//! listening, the commands that arrive meanwhile wait in its backlog, and the next one starts
//! the server again.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::UnixListener;

/// The listening socket passed by a service manager (`LISTEN_FDS`, `LISTEN_PID`), if any.
/// It must be the abstract unix socket `@name`, the only one the commands connect to. The
/// variables are removed so that no child takes them for its own; this must run before any
/// thread starts.
pub fn take_inherited(name: &str) -> Result<Option<UnixListener>, String> {
    let taken = iptnl::netlink::inherited_unix_listener();
    for var in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
        std::env::remove_var(var);
    }
    let listener = match taken {
        Ok(Some(l)) => l,
        Ok(None) => return Ok(None),
        Err(e) => return Err(format!("the socket passed by the service manager: {e}")),
    };
    let addr = listener
        .local_addr()
        .map_err(|e| format!("the socket passed by the service manager: {e}"))?;
    match addr.as_abstract_name() {
        Some(n) if n == name.as_bytes() => Ok(Some(listener)),
        _ => Err(format!(
            "the socket passed by the service manager listens on {}, not on @{name}, \
             where the commands connect (the socket unit needs ListenStream=@{name})",
            words(&addr)
        )),
    }
}

/// A unix socket address in words.
fn words(addr: &std::os::unix::net::SocketAddr) -> String {
    if let Some(p) = addr.as_pathname() {
        format!("the path {}", p.display())
    } else if let Some(n) = addr.as_abstract_name() {
        format!("@{}", String::from_utf8_lossy(n))
    } else {
        "an unnamed socket".to_owned()
    }
}
