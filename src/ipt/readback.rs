//! Whether an x_tables match or target decoded from a blob says all of that blob: its
//! printed options, read back by the parser and encoded, must give the very same blob.
//!
//! A decoder reads the fields of a kernel struct; a blob written by anything but iptables
//! (`nft`, a program of its own with CAP_NET_ADMIN in the namespace) may hold values the
//! options cannot say: a mode bit the print ignores, a mandatory option left out, a string
//! that is not text. Shown as an iptables rule, such a rule would be saved as a line that
//! does not restore, or restores another rule, and compared by spec with rules it is not. A
//! blob that does not read back is not decoded: its rule is shown and saved whole (see
//! [`super::raw`]). The answer depends on the blob and its context only, so it is
//! remembered: a big ruleset repeats its blobs (a comment per service, a mark per chain).

use std::cell::RefCell;
use std::collections::HashMap;

use super::args::split_restore_cow;
use super::ext::{EncodeCtx, ExtKind, Extension, SetIndex};
use super::parse::parse_rule_with;
use super::spec::{ProtoMatch, RuleTarget};
use super::{IpFamily, ReaderFloor};
use crate::nft::Expr;

/// Answers remembered per thread, forgotten all at once past this many.
const MEMO_CAP: usize = 1 << 16;

/// The answers by key (the blob and its context), and the key being built.
type Memo = (HashMap<Vec<u8>, bool>, Vec<u8>);

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new((HashMap::new(), Vec::new()));
}

/// What the blob is read in: the rule's family, its `-p` and where it is.
pub(crate) struct Context<'a> {
    pub(crate) family: IpFamily,
    pub(crate) proto: Option<ProtoMatch>,
    pub(crate) table: &'a str,
    pub(crate) chain: &'a str,
    pub(crate) sets: &'a dyn SetIndex,
}

/// Whether `ext`, decoded from the x_tables blob `info` of revision `rev` of `name`, prints
/// options that read back to that blob (see the module's documentation).
pub(crate) fn reads_back(
    kind: ExtKind,
    ext: &dyn Extension,
    name: &str,
    rev: u32,
    info: &[u8],
    cx: &Context<'_>,
) -> bool {
    // Decoders that refuse by themselves every blob that would not read back (proven, as
    // every decoder is, by tests/xt_decode_roundtrip.rs).
    if matches!((kind, name), (ExtKind::Match, "comment")) {
        return true;
    }
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let (memo, key) = &mut *m;
        key_head(key, kind, cx.family, cx.proto);
        key.extend(rev.to_ne_bytes());
        key.extend((name.len() as u32).to_ne_bytes());
        key.extend(name.as_bytes());
        key.extend((cx.table.len() as u32).to_ne_bytes());
        key.extend(cx.table.as_bytes());
        key.extend(info);
        if let Some(&ok) = memo.get(key.as_slice()) {
            return ok;
        }
        let ok = check(kind, ext, name, rev, info, cx);
        if memo.len() >= MEMO_CAP {
            memo.clear();
        }
        memo.insert(key.clone(), ok);
        ok
    })
}

fn check(
    kind: ExtKind,
    ext: &dyn Extension,
    name: &str,
    rev: u32,
    info: &[u8],
    cx: &Context<'_>,
) -> bool {
    let Some(again) = parse_piece(kind, ext, cx.family, cx.proto, cx.sets) else {
        return false;
    };
    // The blob reads back when the writer of any layout writes it so: 1.8.7 writes the
    // x_tables forms of `tcp`, `udp`, `mark`, `NFLOG` and `SECMARK` that later ones do not.
    let mut out = Vec::new();
    ReaderFloor::LAYOUTS.iter().any(|&floor| {
        let ecx = EncodeCtx {
            family: cx.family,
            proto: cx.proto,
            table: cx.table,
            chain: cx.chain,
            sets: cx.sets,
            floor,
        };
        out.clear();
        again.encode(&ecx, &mut out).is_ok()
            && out.iter().any(|e| match (kind, e) {
                (ExtKind::Match, Expr::Match(m)) => {
                    m.name == name && m.rev == rev && m.info == info
                }
                (ExtKind::Target, Expr::Target(t)) => {
                    t.name == name && t.rev == rev && t.info == info
                }
                _ => false,
            })
    })
}

/// Starts a remembered answer's key afresh with what every piece's reading depends on: match
/// or target, the family and the rule's `-p`.
pub(crate) fn key_head(
    key: &mut Vec<u8>,
    kind: ExtKind,
    family: IpFamily,
    proto: Option<ProtoMatch>,
) {
    key.clear();
    key.push(matches!(kind, ExtKind::Target) as u8);
    key.push(matches!(family, IpFamily::V6) as u8);
    match proto {
        Some(p) => key.extend([1, p.num, p.inv as u8]),
        None => key.extend([0, 0, 0]),
    }
}

/// `ext` printed alone as a save prints it (`[! ]-p N -m NAME OPTIONS`, or `-j NAME
/// OPTIONS`) and read back as a restore reads a save line: the one extension that line
/// gives, if it reads.
pub(crate) fn parse_piece(
    kind: ExtKind,
    ext: &dyn Extension,
    family: IpFamily,
    proto: Option<ProtoMatch>,
    sets: &dyn SetIndex,
) -> Option<Box<dyn Extension>> {
    let mut line = String::with_capacity(64);
    if let Some(p) = proto {
        line.push_str(if p.inv { "! -p " } else { "-p " });
        line.push_str(&p.num.to_string());
        line.push(' ');
    }
    line.push_str(match kind {
        ExtKind::Match => "-m ",
        ExtKind::Target => "-j ",
    });
    line.push_str(ext.save_name());
    ext.save(family, &mut line);
    // A line break ends the save line, and a restore drops a `\r` at its end.
    if line.contains(['\n', '\r']) {
        return None;
    }
    let words = split_restore_cow(&line).ok()?;
    let mut specs = parse_rule_with(family, &words, sets).ok()?;
    let (Some(mut spec), true) = (specs.pop(), specs.is_empty()) else {
        return None;
    };
    match kind {
        ExtKind::Match if spec.matches.len() == 1 && spec.target.is_none() => spec.matches.pop(),
        ExtKind::Target if spec.matches.is_empty() => match spec.target {
            Some(RuleTarget::Ext(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}
