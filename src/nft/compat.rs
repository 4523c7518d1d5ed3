//! Asking the kernel which x_tables extension revisions it offers (`NFNL_SUBSYS_NFT_COMPAT`),
//! the way iptables-nft probes before it picks a revision.

use iptnl_sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFT_COMPAT};
use iptnl_sys::nft_compat::{
    NFNL_MSG_COMPAT_GET, NFTA_COMPAT_NAME, NFTA_COMPAT_REV, NFTA_COMPAT_TYPE,
};

use super::error::Error;
use super::Family;
use crate::netlink::Conn;

/// Match or target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XtKind {
    /// An x_tables match (`-m`).
    Match,
    /// An x_tables target (`-j`).
    Target,
}

/// Whether the kernel offers revision `rev` of the x_tables extension `name` for `family`.
/// Returns the highest revision it offers when it does, `None` when it does not (unknown
/// extension, module not available, or revision too new). The kernel loads the module on
/// demand, as it would for a rule.
///
/// ```no_run
/// use iptnl::nft::compat::{xt_revision, XtKind};
/// use iptnl::nft::Family;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// if xt_revision(&mut conn, Family::Ipv4, "DNAT", 2, XtKind::Target)?.is_none() {
///     println!("this kernel has no DNAT revision 2");
/// }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn xt_revision(
    conn: &mut Conn,
    family: Family,
    name: &str,
    rev: u32,
    kind: XtKind,
) -> Result<Option<u32>, Error> {
    let mut got = None;
    let r = conn.request(
        "asking the kernel for an x_tables extension revision",
        nfnl_msg_type(NFNL_SUBSYS_NFT_COMPAT, NFNL_MSG_COMPAT_GET),
        family.raw(),
        |w| {
            w.put_str(NFTA_COMPAT_NAME, name);
            w.put_be32(NFTA_COMPAT_REV, rev);
            w.put_be32(NFTA_COMPAT_TYPE, (kind == XtKind::Target) as u32);
        },
        |m| {
            for a in m.nfgen()?.attrs() {
                let a = a?;
                if a.kind() == NFTA_COMPAT_REV {
                    got = Some(a.be32()?);
                }
            }
            Ok(())
        },
    );
    match r {
        Ok(()) => Ok(got.or(Some(rev))),
        Err(e)
            if matches!(
                e.errno(),
                Some(libc::ENOENT) | Some(libc::EPROTONOSUPPORT) | Some(libc::EINVAL)
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether the kernel offers any revision of the x_tables extension `name` for `family`
/// (its module loaded on demand): what iptables checks when it loads an extension, and
/// warns `Extension NAME revision 0 not supported, missing kernel module?` when not.
///
/// ```no_run
/// use iptnl::nft::compat::{xt_known, XtKind};
/// use iptnl::nft::Family;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// if !xt_known(&mut conn, Family::Ipv4, "ULOG", XtKind::Target)? {
///     println!("this kernel has no ULOG target");
/// }
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
pub fn xt_known(conn: &mut Conn, family: Family, name: &str, kind: XtKind) -> Result<bool, Error> {
    let r = conn.request(
        "asking the kernel for an x_tables extension",
        nfnl_msg_type(NFNL_SUBSYS_NFT_COMPAT, NFNL_MSG_COMPAT_GET),
        family.raw(),
        |w| {
            w.put_str(NFTA_COMPAT_NAME, name);
            w.put_be32(NFTA_COMPAT_REV, 0);
            w.put_be32(NFTA_COMPAT_TYPE, (kind == XtKind::Target) as u32);
        },
        |_| Ok(()),
    );
    match r {
        Ok(()) => Ok(true),
        // Known, without revision 0.
        Err(e) if e.errno() == Some(libc::EPROTONOSUPPORT) => Ok(true),
        Err(e) if e.errno() == Some(libc::ENOENT) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
