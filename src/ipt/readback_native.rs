//! Whether a rule decoded from native expressions says all of them: each piece of the decoded
//! rule, printed as a save prints it and read back as a restore reads it, must be the same
//! piece again, so that the printed rule encodes back to exactly the expressions it was
//! decoded from.
//!
//! The decoder already requires the decoded rule to encode back to the rule's expressions
//! (see [`super::decode::decode_rule_exact`]); that does not make its printed form read back.
//! A native expression holds values the options cannot say or the parser refuses (a `limit`
//! burst over iptables' 10000, a port range upside down, `! -s 0.0.0.0/0`): printed, such a
//! rule would be saved as a line that does not restore, or restores another rule. A rule one
//! of whose pieces does not read back is carried whole (see [`super::raw`]).
//!
//! The pieces are: the addresses (each read by the parser's own reading of `-s`/`-d`), a
//! verdict or chain target (split as a restore splits it, read by the parser's reading of
//! `-j`/`-g`), the other fields of `ipt_entry` (`-i`, `-o`, `-p`, `-f`: one line, parsed),
//! and each extension decoded from native expressions (`-p N -m
//! NAME …` or `-j NAME …`, parsed and encoded at the layout the rule was matched in, and
//! compared with the decoded extension's own encoding). Extensions decoded from an x_tables
//! blob have their own check ([`super::readback`]). Checking piece by piece, not the whole
//! line, keeps the cost low: a big ruleset repeats its pieces but for the addresses (a
//! service's port and mark, an interface), so the answers are remembered, and the addresses
//! and chain names, different in nearly every rule, are read without the rest of the parser.

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use super::args::split_restore_cow;
use super::ext::{EncodeCtx, ExtKind, Extension, SetIndex};
use super::parse::{addr_option, parse_rule_with, target_word};
use super::spec::{IfaceMatch, ProtoMatch, RuleSpec, RuleTarget};
use super::{IpFamily, ReaderFloor};
use crate::nft::Expr;

/// Answers remembered per thread and kind, forgotten all at once past this many.
const MEMO_CAP: usize = 1 << 15;

/// An extension of the decoded rule that was read from native expressions.
#[derive(Debug, Clone)]
pub(crate) struct NativePiece {
    /// Its index in the rule's matches, or `None` for the target.
    pub(crate) at: Option<usize>,
    /// The expressions it was read from.
    pub(crate) exprs: Range<usize>,
}

/// What `-i`, `-o`, `-p` and `-f` read back as.
type Core = (
    Option<IfaceMatch>,
    Option<IfaceMatch>,
    Option<ProtoMatch>,
    Option<bool>,
);

/// A remembered answer for a native extension: the key's text and expressions, and whether
/// they read back.
type PieceAnswer = (Vec<u8>, Vec<Expr>, bool);

#[derive(Default)]
struct Memo {
    /// Core line (family first) → what it parses to (`None`: it does not).
    core: HashMap<String, Option<Core>>,
    /// Hash of a native extension's key → the answers of that hash.
    pieces: HashMap<u64, Vec<PieceAnswer>>,
    pieces_len: usize,
    /// Buffers reused from rule to rule.
    line: String,
    key: Vec<u8>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Whether every piece of `spec`, decoded from `exprs` (the rule's expressions) in `table` and
/// `chain`, with `natives` the extensions read from native expressions, reads back as itself
/// when encoded at `floor` (see the module's documentation).
#[allow(clippy::too_many_arguments)]
pub(crate) fn reads_back(
    spec: &RuleSpec,
    natives: &[NativePiece],
    exprs: &[Expr],
    table: &str,
    chain: &str,
    sets: &dyn SetIndex,
    floor: ReaderFloor,
) -> bool {
    addresses_read_back(spec)
        && target_reads_back(spec)
        && MEMO.with(|m| {
            let mut m = m.borrow_mut();
            core_reads_back(&mut m, spec, sets)
                && natives.iter().all(|n| {
                    let (kind, ext) = match n.at {
                        Some(i) => match spec.matches.get(i) {
                            Some(x) => (ExtKind::Match, x.as_ref()),
                            None => return false,
                        },
                        None => match &spec.target {
                            Some(RuleTarget::Ext(t)) => (ExtKind::Target, t.as_ref()),
                            _ => return false,
                        },
                    };
                    let Some(consumed) = exprs.get(n.exprs.clone()) else {
                        return false;
                    };
                    let ecx = EncodeCtx {
                        family: spec.family,
                        proto: spec.proto,
                        table,
                        chain,
                        sets,
                        floor,
                    };
                    native_reads_back(&mut m, kind, ext, consumed, &ecx)
                })
        })
}

/// `-s` and `-d`, printed, read by the parser's reading of those options as the same test.
fn addresses_read_back(spec: &RuleSpec) -> bool {
    let mut buf = String::new();
    [(&spec.src, "-s"), (&spec.dst, "-d")]
        .into_iter()
        .all(|(a, opt)| match a {
            None => true,
            Some(a) => {
                use std::fmt::Write;
                buf.clear();
                let _ = write!(buf, "{}", a.addr);
                matches!(
                    addr_option(spec.family, &buf, opt, a.inv).as_deref(),
                    Ok([back]) if *back == a.addr
                )
            }
        })
}

/// A verdict or chain target, printed, is split as a restore splits a save line into that
/// one word, which the parser's reading of `-j`/`-g` takes as the same target. (Not
/// remembered: nearly every chain of a big ruleset is the target of a jump of its own.)
fn target_reads_back(spec: &RuleSpec) -> bool {
    let mut word = String::new();
    if !spec.save_core_target(&mut word) {
        return true;
    }
    // " -j NAME": the option, then its value.
    let Some((opt, name)) = word.trim_start().split_once(' ') else {
        return false;
    };
    let same_word = match split_restore_cow(name) {
        Ok(w) => w.len() == 1 && w[0] == name,
        Err(_) => false,
    };
    same_word
        && match target_word(opt == "-g", name, opt, spec.family) {
            Ok(Some(t)) => spec.target.as_ref() == Some(&t),
            _ => false,
        }
}

/// `-i`, `-o`, `-p` and `-f`, printed on one line and parsed, are the same fields again.
fn core_reads_back(m: &mut Memo, spec: &RuleSpec, sets: &dyn SetIndex) -> bool {
    let Memo { core, line, .. } = m;
    line.clear();
    line.push(match spec.family {
        IpFamily::V4 => '4',
        IpFamily::V6 => '6',
    });
    spec.save_core(line);
    let same = |c: &Core| {
        c.0 == spec.in_iface && c.1 == spec.out_iface && c.2 == spec.proto && c.3 == spec.frag
    };
    if let Some(answer) = core.get(line.as_str()) {
        return answer.as_ref().is_some_and(same);
    }
    let parsed = parse_core(spec.family, &line[1..], sets);
    let ok = parsed.as_ref().is_some_and(same);
    if core.len() >= MEMO_CAP {
        core.clear();
    }
    core.insert(line.clone(), parsed);
    ok
}

fn parse_core(family: IpFamily, text: &str, sets: &dyn SetIndex) -> Option<Core> {
    // A line break ends the save line, and a restore drops a `\r` at its end.
    if text.contains(['\n', '\r']) {
        return None;
    }
    let words = split_restore_cow(text.trim_start()).ok()?;
    let mut specs = parse_rule_with(family, &words, sets).ok()?;
    let (Some(s), true) = (specs.pop(), specs.is_empty()) else {
        return None;
    };
    if !s.matches.is_empty() || s.src.is_some() || s.dst.is_some() || s.target.is_some() {
        return None;
    }
    Some((s.in_iface, s.out_iface, s.proto, s.frag))
}

/// A native extension `ext`, read from `consumed`, printed alone and parsed, encodes at the
/// floor of `ecx` as `ext` does.
fn native_reads_back(
    m: &mut Memo,
    kind: ExtKind,
    ext: &dyn Extension,
    consumed: &[Expr],
    ecx: &EncodeCtx<'_>,
) -> bool {
    let Memo {
        pieces,
        pieces_len,
        line,
        key,
        ..
    } = m;
    // The key: what the answer depends on besides the expressions.
    line.clear();
    ext.save(ecx.family, line);
    super::readback::key_head(key, kind, ecx.family, ecx.proto);
    key.push(ecx.floor as u8);
    // (Not the table or chain: no extension's encoding depends on them.)
    for s in [ext.save_name(), line.as_str()] {
        key.extend((s.len() as u32).to_ne_bytes());
        key.extend(s.as_bytes());
    }
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    consumed.hash(&mut h);
    let h = h.finish();
    if let Some(answers) = pieces.get(&h) {
        if let Some((_, _, ok)) = answers
            .iter()
            .find(|(k, e, _)| k == key && e.as_slice() == consumed)
        {
            return *ok;
        }
    }
    let ok = check_native(kind, ext, ecx);
    if *pieces_len >= MEMO_CAP {
        pieces.clear();
        *pieces_len = 0;
    }
    pieces
        .entry(h)
        .or_default()
        .push((key.clone(), consumed.to_vec(), ok));
    *pieces_len += 1;
    ok
}

fn check_native(kind: ExtKind, ext: &dyn Extension, ecx: &EncodeCtx<'_>) -> bool {
    let Some(again) = super::readback::parse_piece(kind, ext, ecx.family, ecx.proto, ecx.sets)
    else {
        return false;
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    ext.encode(ecx, &mut a).is_ok() && again.encode(ecx, &mut b).is_ok() && a == b
}
