//! The server's accepting thread: one thread per connection, a bound on those served at
//! once, and the exit when idle.

use super::*;

/// At most this many connections are served at once; more wait in the listen backlog
/// (and a client that cannot connect within a second runs its command itself).
const MAX_ACTIVE: usize = 4096;

/// One connection counted as being served, until dropped (also when its thread panics), so
/// that a stopping server never waits for a thread that is gone.
struct Active<'a>(&'a Server);

impl<'a> Active<'a> {
    fn enter(server: &'a Server) -> Active<'a> {
        *lock(&server.active) += 1;
        Active(server)
    }
}

impl Drop for Active<'_> {
    fn drop(&mut self) {
        *lock(&self.0.active) -= 1;
        self.0.idle.notify_all();
    }
}

/// Once no connection has come for this long and none is being served, the memory the last
/// commands freed (a listing's transient reads, a commit's batch) is given back to the
/// system: the server rests at what its cache holds, not at its last peak. The accept
/// timeout is at most this, so the wait is counted in these ticks.
pub(super) const TRIM_AFTER: Duration = Duration::from_secs(1);

/// Accepts connections until a stop is asked for, or none came for `idle_exit` (then returns
/// true), serving each on a thread of its own. Returns once the listening socket is closed
/// (the name is free again, or the service manager's copy alone listens). The listener's
/// accept timeout is set to at most [`TRIM_AFTER`].
pub(super) fn accept_loop<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    server: &'s Server,
    listener: UnixListener,
    idle_exit: Option<Duration>,
) -> bool {
    let mut last = std::time::Instant::now();
    let mut trimmed = false;
    loop {
        {
            let mut n = lock(&server.active);
            while *n >= MAX_ACTIVE {
                n = server.idle.wait(n).unwrap_or_else(|p| p.into_inner());
            }
        }
        let stream = match listener.accept() {
            Ok((stream, _)) => {
                last = std::time::Instant::now();
                trimmed = false;
                stream
            }
            // The accept timeout ran out: no connection for a tick.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let resting = *lock(&server.active) == 0;
                if resting && !trimmed {
                    iptnl::netlink::release_free_memory();
                    trimmed = true;
                }
                if let Some(idle) = idle_exit.filter(|d| last.elapsed() >= *d) {
                    if server.stopping.load(Ordering::SeqCst) || resting {
                        let secs = idle.as_secs_f64();
                        log!("iptnl serve: no command for {secs} s: exiting");
                        return true;
                    }
                }
                continue;
            }
            Err(e) => {
                // Out of descriptors and the like: the client runs its command itself.
                log!("iptnl serve: accept: {e}");
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if server.stopping.load(Ordering::SeqCst) {
            // Closed before "running": its client runs the command itself.
            return false;
        }
        let active = Active::enter(server);
        let spawned = std::thread::Builder::new()
            .name("iptnl-serve".into())
            .spawn_scoped(scope, move || {
                let _active = active;
                server.serve(stream);
            });
        if let Err(e) = spawned {
            // The stream and the count were dropped with the closure: its client runs the
            // command itself.
            log!("iptnl serve: cannot start a thread: {e}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
