//! The x_tables extensions this model knows, with what the kernel checks of each when a rule
//! uses it through nf_tables' `match` and `target` expressions (`xt_check_match`,
//! `xt_check_target` and the extension's `checkentry`): the info size, the table it is
//! restricted to, the hooks it may run in, the layer-4 protocol it needs, and the checks of
//! its own that an info iptables writes can fail.
//!
//! An extension (or revision, or family) not in the catalog (`CATALOG`) is answered
//! [`Unsupported`](crate::netlink::Error::Unsupported): the kernel may offer it or not, and
//! its checks are not known here.

use iptnl_sys::netfilter::{
    NF_INET_FORWARD, NF_INET_LOCAL_IN, NF_INET_LOCAL_OUT, NF_INET_POST_ROUTING, NF_INET_PRE_ROUTING,
};
use iptnl_sys::xt::*;

const PRE: u32 = 1 << NF_INET_PRE_ROUTING;
const IN: u32 = 1 << NF_INET_LOCAL_IN;
const FWD: u32 = 1 << NF_INET_FORWARD;
const OUT: u32 = 1 << NF_INET_LOCAL_OUT;
const POST: u32 = 1 << NF_INET_POST_ROUTING;

const TCP: u16 = 6;
const UDP: u16 = 17;
const ICMP: u16 = 1;
const ICMPV6: u16 = 58;
const SCTP: u16 = 132;
const DCCP: u16 = 33;
const UDPLITE: u16 = 136;
const ESP: u16 = 50;
const AH: u16 = 51;
const COMP: u16 = 108;
const MH: u16 = 135;

/// What a check sees of the rule and where it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckCtx<'a> {
    pub v6: bool,
    /// The table's name (x_tables restrictions compare it by name).
    pub table: &'a str,
    /// `1 << hook` for a rule in a base chain, 0 in a user chain (at rule creation) or the
    /// hook of the base chain it is reached from (at validation).
    pub hook_mask: u32,
    /// `NFTA_RULE_COMPAT` protocol and inversion (0 and false without it).
    pub proto: u16,
    pub inv_proto: bool,
}

type Check = fn(&CheckCtx<'_>, &[u8]) -> Result<(), i32>;

/// One extension revision, for one family or both.
#[derive(Debug)]
pub(crate) struct XtExt {
    pub name: &'static str,
    pub target: bool,
    pub rev: u32,
    /// `Some(false)`: IPv4 only; `Some(true)`: IPv6 only; `None`: both.
    pub v6: Option<bool>,
    /// The info size (`XT_ALIGN`ed).
    pub size: usize,
    /// Bytes of the info the kernel dumps back (the rest is kernel-private, dumped as zero);
    /// `None`: all of it.
    pub usersize: Option<usize>,
    pub table: Option<&'static str>,
    /// Hooks it may run in (0: any).
    pub hooks: u32,
    /// The protocol the rule must match, uninverted (0: any).
    pub proto: u16,
    pub check: Option<Check>,
}

const fn al(n: usize) -> usize {
    (n + 7) & !7
}

macro_rules! ext {
    ($name:expr, $target:expr, $rev:expr, $v6:expr, $size:expr) => {
        XtExt {
            name: $name,
            target: $target,
            rev: $rev,
            v6: $v6,
            size: al($size),
            usersize: None,
            table: None,
            hooks: 0,
            proto: 0,
            check: None,
        }
    };
}

const M: bool = false;
const T: bool = true;
const V4: Option<bool> = Some(false);
const V6: Option<bool> = Some(true);
const ANY: Option<bool> = None;

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map(|x| u16::from_ne_bytes([x[0], x[1]]))
        .unwrap_or(0)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map(|x| u32::from_ne_bytes([x[0], x[1], x[2], x[3]]))
        .unwrap_or(0)
}

fn byte(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

fn einval(bad: bool) -> Result<(), i32> {
    if bad {
        Err(libc::EINVAL)
    } else {
        Ok(())
    }
}

mod catalog;
mod checks;
mod packet;
mod tracking;

pub(crate) use catalog::CATALOG;

/// Why an info this model cannot judge is refused as unsupported (the catalog entry is
/// known, but the info asks for something whose kernel check depends on more than the
/// info: a conntrack helper module, for one).
pub(crate) fn unmodelled(e: &XtExt, info: &[u8]) -> Option<&'static str> {
    match e.name {
        "CT" => checks::ct_unmodelled(info),
        "string" => packet::string_unmodelled(info),
        "hbh" | "dst" => packet::opts_unmodelled(info),
        "rt" => packet::rt_unmodelled(info),
        "u32" => packet::u32_unmodelled(info),
        _ => None,
    }
}

/// The kernel's checks of an x_tables extension when a rule using it is added
/// (`xt_check_match`/`xt_check_target`): size, table, hooks, protocol, then the extension's
/// own.
pub(crate) fn check(e: &XtExt, ctx: &CheckCtx<'_>, info: &[u8]) -> Result<(), i32> {
    if al(info.len()) != e.size {
        return Err(libc::EINVAL);
    }
    if e.table.is_some_and(|t| t != ctx.table) {
        return Err(libc::EINVAL);
    }
    if e.hooks != 0 && ctx.hook_mask & !e.hooks != 0 {
        return Err(libc::EINVAL);
    }
    if e.proto != 0 && (e.proto != ctx.proto || ctx.inv_proto) {
        return Err(libc::EINVAL);
    }
    match e.check {
        Some(c) => c(ctx, info),
        None => Ok(()),
    }
}

/// Whether the dumped form of `info` is `info` itself: the kernel dumps only `usersize`
/// bytes and zeroes the kernel-private rest.
pub(crate) fn private_zero(e: &XtExt, info: &[u8]) -> bool {
    match e.usersize {
        Some(u) => info
            .get(u..)
            .is_none_or(|rest| rest.iter().all(|&b| b == 0)),
        None => true,
    }
}
