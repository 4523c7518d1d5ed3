//! The keys rules are compared by: a rule's encoded bytes, hashed once, kept per chain in one
//! arena with their handles.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use crate::netlink::{DecodeError, Message, MsgWriter};
use crate::nft::expr::Counter;
use crate::nft::{Expr, Rule};
use iptnl_sys::nf_tables::*;

/// A rule's key as compared: its bytes (hashed once).
#[derive(Debug, Clone, Copy)]
pub(super) struct Key<'a> {
    pub(super) hash: u64,
    pub(super) bytes: &'a [u8],
}

impl PartialEq for Key<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.hash == o.hash && self.bytes == o.bytes
    }
}

impl Eq for Key<'_> {}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

/// What the ordered comparison pairs: a rule by its key, or a wanted rule (by its place in
/// the chain) that pairs with no rule of the kernel's.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) enum Match<'a> {
    Key(Key<'a>),
    Alone(usize),
}

/// A hash of a key's bytes, eight at a time.
pub(super) fn hash_bytes(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in chunks.by_ref() {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w))
            .wrapping_mul(0x100_0000_01b3)
            .rotate_left(29);
    }
    for &x in chunks.remainder() {
        h = (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3);
    }
    h ^ (h >> 31)
}

/// What a rule is compared by: its expressions as the kernel takes them on input, each
/// counter without its values, and its user data, as [`Rule::content`] writes them (which is
/// also what writes the rule back). A rule with anonymous sets of its own (only a rule about
/// to be written has them) carries them too, so it is never taken for a rule read from the
/// kernel.
pub(super) fn key_bytes<'b>(r: &Rule, w: &'b mut MsgWriter) -> Cow<'b, [u8]> {
    if !r.bound_sets.is_empty() {
        return Cow::Owned(r.content());
    }
    w.clear();
    let n = w.nest(NFTA_RULE_EXPRESSIONS);
    for e in &r.exprs {
        match e {
            Expr::Counter(_) => Expr::Counter(Counter::default()).encode(w),
            e => match e.input_form() {
                Some(f) => f.encode(w),
                None => e.encode(w),
            },
        }
    }
    w.end_nest(n);
    if let Some(u) = &r.userdata {
        w.put(NFTA_RULE_USERDATA, u);
    }
    Cow::Borrowed(w.as_bytes())
}

/// The keys of a chain's rules as read, one after another, with their handles.
#[derive(Debug, Default)]
pub(super) struct Keys {
    pub(super) handles: Vec<Option<u64>>,
    pub(super) arena: Vec<u8>,
    pub(super) spans: Vec<(usize, usize, u64)>,
}

impl Keys {
    pub(super) fn push(&mut self, handle: Option<u64>, bytes: &[u8]) {
        self.handles.push(handle);
        self.spans
            .push((self.arena.len(), bytes.len(), hash_bytes(bytes)));
        self.arena.extend_from_slice(bytes);
    }

    pub(super) fn of_rules(rules: &[Rule], buf: &mut MsgWriter) -> Keys {
        let mut k = Keys::default();
        for r in rules {
            let b = key_bytes(r, buf);
            let b = b.to_vec();
            k.push(r.handle, &b);
        }
        k
    }

    /// Adds a rule from its dump message: its key written as [`key_bytes`] writes the
    /// decoded rule's, without decoding the rest of it.
    pub(super) fn push_msg(
        &mut self,
        m: &Message<'_>,
        w: &mut MsgWriter,
    ) -> Result<(), DecodeError> {
        let mut handle = None;
        let mut exprs = None;
        let mut userdata = None;
        for a in m.nfgen()?.attrs() {
            let a = a?;
            match a.kind() {
                NFTA_RULE_HANDLE => handle = Some(a.be64()?),
                NFTA_RULE_EXPRESSIONS => exprs = Some(a),
                NFTA_RULE_USERDATA => userdata = Some(a.data()),
                _ => {}
            }
        }
        w.clear();
        let n = w.nest(NFTA_RULE_EXPRESSIONS);
        for a in exprs.into_iter().flat_map(|l| l.nested()) {
            let a = a?;
            if a.kind() != NFTA_LIST_ELEM {
                return Err(DecodeError::BadValue {
                    what: "expression list element type",
                    value: i64::from(a.kind()),
                });
            }
            // The kernel dumps an expression as it takes it, but for a counter's values and
            // a few attributes of `exthdr` and `dynset` (see `Expr::input_form`): the others
            // are copied as they are. Were one dumped otherwise, its rules would only never
            // be kept.
            let name = a
                .nested()
                .flatten()
                .find(|x| x.kind() == NFTA_EXPR_NAME)
                .and_then(|x| x.str().ok());
            match name {
                Some("counter") => Expr::Counter(Counter::default()).encode(w),
                Some("exthdr" | "dynset") => {
                    let e = Expr::decode(a)?;
                    match e.input_form() {
                        Some(f) => f.encode(w),
                        None => e.encode(w),
                    }
                }
                _ => w.put(a.raw_type(), a.data()),
            }
        }
        w.end_nest(n);
        if let Some(u) = userdata {
            w.put(NFTA_RULE_USERDATA, u);
        }
        let (handles, spans, arena) = (&mut self.handles, &mut self.spans, &mut self.arena);
        let b = w.as_bytes();
        handles.push(handle);
        spans.push((arena.len(), b.len(), hash_bytes(b)));
        arena.extend_from_slice(b);
        Ok(())
    }

    pub(super) fn key(&self, i: usize) -> Key<'_> {
        let (at, len, hash) = self.spans.get(i).copied().unwrap_or((0, 0, 0));
        Key {
            hash,
            bytes: self.arena.get(at..at + len).unwrap_or(&[]),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(super) fn clear(&mut self) {
        self.handles.clear();
        self.arena.clear();
        self.spans.clear();
    }
}
