//! The kernel's ipsets, for the rule model: [`KernelSets`] resolves ipset names to the
//! indexes the kernel refers to them by, and back, as iptables' `libxt_set` does, with
//! `getsockopt(SOL_IP, SO_IP_SET)` on a raw socket (see [`crate::netlink::ip_set_sockopt`])
//! in the calling thread's network namespace.

use std::mem::offset_of;

use iptnl_sys::netfilter::{NFPROTO_IPV4, NFPROTO_IPV6};
use iptnl_sys::xt::{
    ip_set_req_get_set, ip_set_req_get_set_family, ip_set_req_version, IPSET_INVALID_ID,
    IPSET_MAXNAMELEN, IPSET_PROTOCOL, IP_SET_OP_GET_BYINDEX, IP_SET_OP_GET_BYNAME,
    IP_SET_OP_GET_FNAME, IP_SET_OP_VERSION,
};

use crate::ipt::ext::{SetIndex, XtView};
use crate::ipt::IpFamily;
use crate::netlink::ip_set_sockopt;

/// The ipsets of the kernel, asked in the calling thread's network namespace each time a
/// name or an index is resolved (nothing is remembered: sets come and go).
///
/// ```no_run
/// use iptnl::iptables::ipset::KernelSets;
/// use iptnl::ipt::{encode_rule_with, parse_rule_with, IpFamily};
/// let spec = &parse_rule_with(IpFamily::V4, &["-m", "set", "--match-set", "web", "src"], &KernelSets)?[0];
/// let rule = encode_rule_with(spec, IpFamily::V4, "filter", "INPUT", &KernelSets)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelSets;

impl SetIndex for KernelSets {
    fn index(&self, name: &str, family: IpFamily) -> Result<u16, String> {
        set_index(name, family)
    }

    fn name(&self, index: u16) -> Option<String> {
        set_name(index)
    }

    fn interface_name(&self, index: u32) -> Option<String> {
        crate::netlink::interface_name(index)
    }
}

/// Asks the kernel's ipset protocol version (`IP_SET_OP_VERSION`).
fn ipset_version() -> Result<u32, String> {
    type R = ip_set_req_version;
    let mut b = req_buf(std::mem::size_of::<R>());
    b[offset_of!(R, op)..][..4].copy_from_slice(&IP_SET_OP_VERSION.to_ne_bytes());
    ip_set_sockopt(&mut b).map_err(|_| "Kernel module xt_set is not loaded in.".to_owned())?;
    Ok(XtView::new(&b)
        .u32(offset_of!(R, version))
        .unwrap_or(IPSET_PROTOCOL))
}

fn req_buf(size: usize) -> Vec<u8> {
    vec![0u8; size]
}

/// Resolves a set name to its index, checking its family against `family` (libxt_set's
/// `get_set_byname`).
fn set_index(name: &str, family: IpFamily) -> Result<u16, String> {
    let version = ipset_version()?;
    type F = ip_set_req_get_set_family;
    let mut b = req_buf(std::mem::size_of::<F>());
    b[offset_of!(F, op)..][..4].copy_from_slice(&IP_SET_OP_GET_FNAME.to_ne_bytes());
    b[offset_of!(F, version)..][..4].copy_from_slice(&version.to_ne_bytes());
    let n = name.len().min(IPSET_MAXNAMELEN - 1);
    b[offset_of!(F, set)..][..n].copy_from_slice(&name.as_bytes()[..n]);
    match ip_set_sockopt(&mut b) {
        Ok(len) if len == b.len() => {
            let v = XtView::new(&b);
            let index = v.u16(offset_of!(F, set)).unwrap_or(IPSET_INVALID_ID);
            if index == IPSET_INVALID_ID {
                return Err(format!("Set {name} doesn't exist."));
            }
            let fam = v.u32(offset_of!(F, family)).unwrap_or(0);
            let want = match family {
                IpFamily::V4 => NFPROTO_IPV4,
                IpFamily::V6 => NFPROTO_IPV6,
            } as u32;
            if fam != want && fam != 0 {
                return Err(format!(
                    "The protocol family of set {name} is {}, which is not applicable.",
                    if fam == NFPROTO_IPV4 as u32 {
                        "IPv4"
                    } else {
                        "IPv6"
                    }
                ));
            }
            Ok(index)
        }
        Ok(len) => Err(format!(
            "Incorrect return size from kernel during ipset lookup, (want {}, got {len})",
            b.len()
        )),
        Err(e) if e.raw_os_error() == Some(libc::EBADMSG) => {
            // Kernels without IP_SET_OP_GET_FNAME: look the name up without its family.
            type G = ip_set_req_get_set;
            let mut b = req_buf(std::mem::size_of::<G>());
            b[offset_of!(G, op)..][..4].copy_from_slice(&IP_SET_OP_GET_BYNAME.to_ne_bytes());
            b[offset_of!(G, version)..][..4].copy_from_slice(&version.to_ne_bytes());
            b[offset_of!(G, set)..][..n].copy_from_slice(&name.as_bytes()[..n]);
            let len = ip_set_sockopt(&mut b).map_err(|e| {
                format!(
                    "Problem when communicating with ipset, errno={}.",
                    e.raw_os_error().unwrap_or(0)
                )
            })?;
            if len != b.len() {
                return Err(format!(
                    "Incorrect return size from kernel during ipset lookup, (want {}, got {len})",
                    b.len()
                ));
            }
            let index = XtView::new(&b)
                .u16(offset_of!(G, set))
                .unwrap_or(IPSET_INVALID_ID);
            if index == IPSET_INVALID_ID {
                return Err(format!("Set {name} doesn't exist."));
            }
            Ok(index)
        }
        Err(e) => Err(format!(
            "Problem when communicating with ipset, errno={}.",
            e.raw_os_error().unwrap_or(0)
        )),
    }
}

/// The name of the set with kernel index `index` (libxt_set's `get_set_byid`), `None` when
/// there is none or ipset cannot be asked.
fn set_name(index: u16) -> Option<String> {
    let version = ipset_version().ok()?;
    type G = ip_set_req_get_set;
    let mut b = req_buf(std::mem::size_of::<G>());
    b[offset_of!(G, op)..][..4].copy_from_slice(&IP_SET_OP_GET_BYINDEX.to_ne_bytes());
    b[offset_of!(G, version)..][..4].copy_from_slice(&version.to_ne_bytes());
    b[offset_of!(G, set)..][..2].copy_from_slice(&index.to_ne_bytes());
    let len = ip_set_sockopt(&mut b).ok()?;
    if len != b.len() {
        return None;
    }
    let name = XtView::new(&b).str(offset_of!(G, set), IPSET_MAXNAMELEN)?;
    (!name.is_empty()).then_some(name)
}
