//! The checks of their own (`checkentry`) of the matches that keep state across packets or
//! read the connection's: `recent`, `connbytes`, `quota`, `connlabel` and `cluster`
//! (`connlimit` checks nothing an info can fail).

use std::mem::offset_of;

use iptnl_sys::xt::*;

use super::*;

/// `XT_RECENT_MAX_NSTAMPS` (xt_recent.c): a hit count must be below it.
const RECENT_MAX_NSTAMPS: u32 = 65536;

// struct xt_recent_mtinfo(_v1) (xt_recent.c, recent_mt_check): exactly one of --set,
// --rcheck, --update, --remove; no time or hit count with --set and --remove; --reap
// needs --seconds; a list name the kernel can make a /proc file of.
pub(super) fn recent(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_recent_mtinfo;
    let set = byte(b, offset_of!(I, check_set));
    let seconds = u32_at(b, offset_of!(I, seconds));
    let hits = u32_at(b, offset_of!(I, hit_count));
    let cmds = XT_RECENT_SET | XT_RECENT_REMOVE | XT_RECENT_CHECK | XT_RECENT_UPDATE;
    if set & !XT_RECENT_VALID_FLAGS != 0
        || (set & cmds).count_ones() != 1
        || (set & (XT_RECENT_SET | XT_RECENT_REMOVE) != 0
            && (seconds != 0 || hits != 0 || set & XT_RECENT_MODIFIERS != 0))
        || (set & XT_RECENT_REAP != 0 && seconds == 0)
        || hits >= RECENT_MAX_NSTAMPS
    {
        return Err(libc::EINVAL);
    }
    let at = offset_of!(I, name);
    proc_name(b.get(at..at + XT_RECENT_NAME_LEN).unwrap_or(&[]))
}

/// `xt_check_proc_name`: a name that is not empty, fits with its NUL, is not `.` or `..`
/// and has no `/`.
fn proc_name(name: &[u8]) -> Result<(), i32> {
    let Some(len) = name.iter().position(|&c| c == 0) else {
        return Err(libc::ENAMETOOLONG);
    };
    let name = &name[..len];
    einval(name.is_empty() || name == b"." || name == b".." || name.contains(&b'/'))
}

// struct xt_connbytes_info (xt_connbytes.c, connbytes_mt_check).
pub(super) fn connbytes(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_connbytes_info;
    let what = byte(b, offset_of!(I, what));
    let dir = byte(b, offset_of!(I, direction));
    einval(
        !matches!(
            what,
            XT_CONNBYTES_PKTS | XT_CONNBYTES_BYTES | XT_CONNBYTES_AVGPKT
        ) || !matches!(
            dir,
            XT_CONNBYTES_DIR_ORIGINAL | XT_CONNBYTES_DIR_REPLY | XT_CONNBYTES_DIR_BOTH
        ),
    )
}

// struct xt_quota_info (xt_quota.c, quota_mt_check).
pub(super) fn quota(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    einval(u32_at(b, offset_of!(xt_quota_info, flags)) & !XT_QUOTA_MASK != 0)
}

// struct xt_connlabel_mtinfo (xt_connlabel.c, connlabel_mt_check; nf_connlabels_get): 128
// labels.
pub(super) fn connlabel(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_connlabel_mtinfo;
    let ops = XT_CONNLABEL_OP_INVERT | XT_CONNLABEL_OP_SET;
    if u16_at(b, offset_of!(I, options)) & !ops != 0 {
        return Err(libc::EINVAL);
    }
    if u16_at(b, offset_of!(I, bit)) >= 128 {
        return Err(libc::ERANGE);
    }
    Ok(())
}

// struct xt_cluster_match_info (xt_cluster.c, xt_cluster_mt_checkentry).
pub(super) fn cluster(_: &CheckCtx<'_>, b: &[u8]) -> Result<(), i32> {
    type I = xt_cluster_match_info;
    let total = u32_at(b, offset_of!(I, total_nodes));
    if total > XT_CLUSTER_NODES_MAX {
        return Err(libc::EINVAL);
    }
    if u64::from(u32_at(b, offset_of!(I, node_mask))) >= 1u64 << total {
        return Err(libc::EDOM);
    }
    Ok(())
}
