//! Throwaway network namespaces, so that tests and the demo never touch the host's ruleset.

use std::io;

use crate::netlink::unshare_net_namespace;

/// Runs `f` on a new thread that first moves into a fresh, empty network namespace, and
/// returns its result. Child processes spawned from inside `f` (for example `nft` or
/// `iptables-nft-save` used as oracles) inherit that namespace. A panic in `f` is resumed on
/// the caller's thread.
///
/// Needs root, or root in a user namespace (`unshare -rn cargo test`).
///
/// ```no_run
/// let genid = iptnl::netns::run_in_fresh_netns(|| {
///     iptnl::netlink::Conn::open().and_then(|mut c| c.genid())
/// }).expect("unshare");
/// ```
pub fn run_in_fresh_netns<T: Send>(f: impl FnOnce() -> T + Send) -> io::Result<T> {
    std::thread::scope(|s| {
        let h = s.spawn(move || {
            unshare_net_namespace()?;
            Ok(f())
        });
        match h.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}
