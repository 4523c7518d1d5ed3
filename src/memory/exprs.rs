//! Rule expressions, interned: every distinct expression (one `NFTA_LIST_ELEM`, as the
//! kernel dumps it) is stored once, with a reference count, in one byte arena with its runs
//! of zeros folded (x_tables infos are mostly zero padding), and what the kernel would check
//! of it is worked out once ([`Facts`]). A rule is then a list of ids.
//!
//! An expression is accepted only when the nft layer reads it completely and writes it back
//! to the same bytes (so the dump the kernel would give is the bytes received) and it is of
//! a kind this model knows the kernel's checks of; anything else is
//! [`Facts::Unsupported`].

use iptnl_sys::nf_tables::*;
use iptnl_sys::nft_compat::{NFTA_MATCH_INFO, NFTA_MATCH_NAME, NFTA_MATCH_REV};

use crate::netlink::{Attr, Attrs, MsgWriter};
use crate::nft::{Data, Expr, Verdict};

use super::xt;

/// Index of an interned expression.
pub(crate) type ExprId = u32;

/// What the kernel checks of an expression when a rule holding it is added, worked out from
/// its bytes alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Facts {
    /// An expression with nothing to check in context (payload, cmp, counter, a verdict
    /// that is not a jump…), or rule user data.
    Plain,
    /// A jump or goto (the chain is named in the bytes).
    Jump,
    /// An x_tables match or target: its catalog entries for ip and ip6 (`u16::MAX`: not in
    /// the catalog).
    Xt { v4: u16, v6: u16 },
    /// A verdict the kernel refuses (`EINVAL`).
    BadVerdict,
    /// Something this model does not know the kernel's behaviour for (the reason's index).
    Unsupported(u16),
}

impl Facts {
    /// The catalog entry of an x_tables expression for the family.
    pub fn xt(self, v6: bool) -> Option<&'static xt::XtExt> {
        let Facts::Xt { v4, v6: six } = self else {
            return None;
        };
        let i = if v6 { six } else { v4 };
        xt::CATALOG.get(usize::from(i))
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where its folded bytes start in the arena, and their length.
    off: u32,
    len: u32,
    /// Its length unfolded (an attribute's length fits 16 bits).
    raw: u16,
    refs: u32,
    hash: u32,
    facts: Facts,
}

/// Index slots: an entry's hash in the high half and its id in the low half, or one of
/// these two (no id gets that high).
const EMPTY: u64 = u64::MAX;
const TOMB: u64 = u64::MAX - 1;

fn slot(h: u32, id: ExprId) -> u64 {
    u64::from(h) << 32 | u64::from(id)
}

fn slot_id(s: u64) -> ExprId {
    s as u32
}

fn slot_hash(s: u64) -> u32 {
    (s >> 32) as u32
}

/// The interned expressions of a namespace.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    arena: Vec<u8>,
    /// Arena bytes no entry uses any more.
    holes: usize,
    entries: Vec<Entry>,
    free: Vec<ExprId>,
    /// Open addressing by hash: [`slot`]s, [`EMPTY`] or [`TOMB`]. A slot carries its
    /// entry's hash, so that a probe passes other entries without reading them.
    slots: Vec<u64>,
    live: usize,
    tombs: usize,
    /// Unfolded bytes of the live entries.
    raw_bytes: usize,
    /// Why expressions are not supported, by [`Facts::Unsupported`] index.
    reasons: Vec<String>,
    scratch: Vec<u8>,
    /// Where a new expression is written back to compare it with its bytes.
    again: MsgWriter,
}

/// A fast hash of `b`, eight bytes at a time (the keys are the model's own, no adversary
/// picks them).
fn hash(b: &[u8]) -> u32 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    for &x in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(x)).wrapping_mul(K);
    }
    (h ^ (h >> 29) ^ (h >> 47)) as u32
}

/// Whether `folded` unfolds to `raw`, without unfolding it.
fn same(folded: &[u8], raw: &[u8]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < folded.len() {
        let c = folded[i];
        i += 1;
        if c >= 0x80 {
            let n = usize::from(c - 0x7d);
            match raw.get(j..j + n) {
                Some(z) if z.iter().all(|&b| b == 0) => j += n,
                _ => return false,
            }
        } else {
            let n = usize::from(c) + 1;
            match (folded.get(i..i + n), raw.get(j..j + n)) {
                (Some(a), Some(b)) if a == b => {
                    i += n;
                    j += n;
                }
                _ => return false,
            }
        }
    }
    j == raw.len()
}

/// Folds runs of three zeros or more: a control byte `n < 0x80` is followed by `n + 1`
/// literal bytes, `n >= 0x80` stands for `n - 0x7d` zeros (3 to 130).
fn fold(src: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < src.len() {
        let zeros = src[i..].iter().take(130).take_while(|&&b| b == 0).count();
        if zeros >= 3 {
            out.push(0x7d + zeros as u8);
            i += zeros;
            continue;
        }
        // Literal bytes up to the next run of three zeros (at most 128).
        let start = i;
        while i < src.len() && i - start < 128 {
            if src[i] == 0 && src[i..].iter().take(3).filter(|&&b| b == 0).count() == 3 {
                break;
            }
            i += 1;
        }
        out.push((i - start - 1) as u8);
        out.extend_from_slice(&src[start..i]);
    }
}

fn unfold(src: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        i += 1;
        if c >= 0x80 {
            out.resize(out.len() + usize::from(c - 0x7d), 0);
        } else {
            let n = usize::from(c) + 1;
            out.extend_from_slice(&src[i..(i + n).min(src.len())]);
            i += n;
        }
    }
}

impl Interner {
    fn folded(&self, e: &Entry) -> &[u8] {
        &self.arena[e.off as usize..(e.off + e.len) as usize]
    }

    /// Finds the slot of `raw` (with `h`), or the slot to put it in.
    fn probe_raw(&self, h: u32, raw: &[u8]) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        let mut first_tomb = None;
        loop {
            match self.slots[i] {
                EMPTY => return Err(first_tomb.unwrap_or(i)),
                TOMB => {
                    first_tomb.get_or_insert(i);
                }
                s if slot_hash(s) == h => {
                    let e = &self.entries[slot_id(s) as usize];
                    if usize::from(e.raw) == raw.len() && same(self.folded(e), raw) {
                        return Ok(i);
                    }
                }
                _ => {}
            }
            i = (i + 1) & mask;
        }
    }

    /// Finds the slot of `folded` (with `h`), or the slot to put it in.
    fn probe(&self, h: u32, folded: &[u8]) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        let mut first_tomb = None;
        loop {
            match self.slots[i] {
                EMPTY => return Err(first_tomb.unwrap_or(i)),
                TOMB => {
                    first_tomb.get_or_insert(i);
                }
                s if slot_hash(s) == h
                    && self.folded(&self.entries[slot_id(s) as usize]) == folded =>
                {
                    return Ok(i);
                }
                _ => {}
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let cap = ((self.live + 1) * 2).next_power_of_two().max(64);
        let mut slots = vec![EMPTY; cap];
        for s in self.slots.iter().copied().filter(|&s| s < TOMB) {
            let mut i = slot_hash(s) as usize & (cap - 1);
            while slots[i] != EMPTY {
                i = (i + 1) & (cap - 1);
            }
            slots[i] = s;
        }
        self.slots = slots;
        self.tombs = 0;
    }

    /// The id of `bytes` (one expression's `NFTA_LIST_ELEM` attribute, or user data when
    /// `udata`), taking one reference.
    pub fn intern(&mut self, bytes: &[u8], udata: bool) -> ExprId {
        if (self.live + self.tombs + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let h = hash(bytes);
        let at = match self.probe_raw(h, bytes) {
            Ok(i) => {
                let id = slot_id(self.slots[i]);
                self.entries[id as usize].refs += 1;
                return id;
            }
            Err(i) => i,
        };
        let mut folded = std::mem::take(&mut self.scratch);
        folded.clear();
        fold(bytes, &mut folded);
        let facts = if udata {
            Facts::Plain
        } else {
            self.facts_of(bytes)
        };
        let entry = Entry {
            off: self.arena.len() as u32,
            len: folded.len() as u32,
            raw: bytes.len().min(usize::from(u16::MAX)) as u16,
            refs: 1,
            hash: h,
            facts,
        };
        self.arena.extend_from_slice(&folded);
        self.scratch = folded;
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = entry;
                id
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as ExprId
            }
        };
        if self.slots[at] == TOMB {
            self.tombs -= 1;
        }
        self.slots[at] = slot(h, id);
        self.live += 1;
        self.raw_bytes += bytes.len();
        id
    }

    /// Drops one reference to `id`, forgetting the expression with its last one.
    pub fn release(&mut self, id: ExprId) {
        let e = &mut self.entries[id as usize];
        if e.refs == 0 {
            return;
        }
        e.refs -= 1;
        if e.refs > 0 {
            return;
        }
        let e = *e;
        if let Ok(i) = self.probe(
            e.hash,
            &self.arena[e.off as usize..(e.off + e.len) as usize],
        ) {
            self.slots[i] = TOMB;
            self.tombs += 1;
        }
        self.live -= 1;
        self.raw_bytes -= e.raw as usize;
        self.holes += e.len as usize;
        self.free.push(id);
        if self.holes > (1 << 20) && self.holes * 2 > self.arena.len() {
            self.compact();
        }
    }

    /// Rewrites the arena without the bytes of forgotten expressions.
    fn compact(&mut self) {
        let mut live = vec![true; self.entries.len()];
        for &f in &self.free {
            live[f as usize] = false;
        }
        let mut arena = Vec::with_capacity(self.arena.len() - self.holes);
        for (i, e) in self.entries.iter_mut().enumerate() {
            if !live[i] {
                continue;
            }
            let start = arena.len() as u32;
            arena.extend_from_slice(&self.arena[e.off as usize..(e.off + e.len) as usize]);
            e.off = start;
        }
        self.arena = arena;
        self.holes = 0;
    }

    /// Appends the bytes of `id` to `w`.
    pub fn write(&self, id: ExprId, out: &mut Vec<u8>) {
        let e = &self.entries[id as usize];
        out.reserve(usize::from(e.raw));
        unfold(self.folded(e), out);
    }

    /// The bytes of `id`, into `buf` (emptied first).
    pub fn bytes_into<'b>(&self, id: ExprId, buf: &'b mut Vec<u8>) -> &'b [u8] {
        buf.clear();
        self.write(id, buf);
        buf
    }

    /// The bytes of `id`.
    pub fn bytes(&self, id: ExprId) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(id, &mut out);
        out
    }

    pub fn facts(&self, id: ExprId) -> Facts {
        self.entries
            .get(id as usize)
            .map(|e| e.facts)
            .unwrap_or(Facts::Plain)
    }

    /// Why expression `id` is not supported.
    pub fn reason(&self, id: ExprId) -> String {
        match self.facts(id) {
            Facts::Unsupported(i) => self
                .reasons
                .get(usize::from(i))
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// Distinct expressions held, and their bytes (unfolded).
    pub fn stats(&self) -> (usize, usize) {
        (self.live, self.raw_bytes)
    }

    /// Gives back the room the arena and the entries grew beyond an eighth of what they
    /// hold (after a big batch).
    pub fn trim(&mut self) {
        let len = self.arena.len();
        if self.arena.capacity() > len + len / 8 + 4096 {
            self.arena.shrink_to(len + len / 8);
        }
        let n = self.entries.len();
        if self.entries.capacity() > n + n / 8 + 256 {
            self.entries.shrink_to(n + n / 8);
        }
    }

    /// Heap bytes held: the arena, the entries and the index.
    pub fn heap(&self) -> (usize, usize, usize) {
        (
            self.arena.capacity(),
            self.entries.capacity() * std::mem::size_of::<Entry>(),
            self.slots.capacity() * std::mem::size_of::<u64>(),
        )
    }

    fn unsupported(&mut self, why: String) -> Facts {
        let i = match self.reasons.iter().position(|r| *r == why) {
            Some(i) => i,
            None => {
                self.reasons.push(why);
                self.reasons.len() - 1
            }
        };
        Facts::Unsupported(i.min(usize::from(u16::MAX)) as u16)
    }

    /// Works out the [`Facts`] of one `NFTA_LIST_ELEM` attribute.
    fn facts_of(&mut self, bytes: &[u8]) -> Facts {
        let Some(Ok(attr)) = Attrs::new(bytes).next() else {
            return self.unsupported("an expression attribute that is not well formed".into());
        };
        let expr = match Expr::decode(attr) {
            Ok(e) => e,
            Err(e) => return self.unsupported(format!("an expression that cannot be read: {e}")),
        };
        let mut w = std::mem::take(&mut self.again);
        w.clear();
        expr.encode(&mut w);
        let same = w.as_bytes() == bytes;
        self.again = w;
        if !same {
            return self.unsupported(format!(
                "the {} expression as sent (the kernel would store it differently: only the \
                 form the kernel dumps is modelled)",
                expr_name(bytes)
            ));
        }
        match expr {
            Expr::Payload(_)
            | Expr::Cmp(_)
            | Expr::Bitwise(_)
            | Expr::Byteorder(_)
            | Expr::Range(_)
            | Expr::Meta(_)
            | Expr::Counter(_)
            | Expr::Limit(_)
            | Expr::Log(_)
            | Expr::Exthdr(_) => Facts::Plain,
            Expr::Immediate(i) => match (i.dreg, &i.data) {
                (NFT_REG_VERDICT, Data::Verdict(v)) => match verdict_facts(v) {
                    Ok(f) => f,
                    Err(why) => self.unsupported(why.into()),
                },
                (NFT_REG_VERDICT, Data::Value(_)) | (_, Data::Verdict(_)) => Facts::BadVerdict,
                (_, Data::Value(_)) => Facts::Plain,
            },
            Expr::Match(m) => xt_facts(&m.name, false, m.rev),
            Expr::Target(t) => xt_facts(&t.name, true, t.rev),
            _ => self.unsupported(format!("the {} expression", expr_name(bytes))),
        }
    }
}

fn xt_facts(name: &str, target: bool, rev: u32) -> Facts {
    let index = |v6| {
        xt::CATALOG
            .iter()
            .position(|e| {
                e.name == name && e.target == target && e.rev == rev && e.v6.is_none_or(|f| f == v6)
            })
            .map_or(u16::MAX, |i| i as u16)
    };
    Facts::Xt {
        v4: index(false),
        v6: index(true),
    }
}

fn verdict_facts(v: &Verdict) -> Result<Facts, &'static str> {
    use iptnl_sys::netfilter::{NF_ACCEPT, NF_DROP, NF_QUEUE, NF_VERDICT_MASK};
    Ok(match v {
        Verdict::Jump(_) | Verdict::Goto(_) => Facts::Jump,
        Verdict::JumpId(_) | Verdict::GotoId(_) => {
            return Err("a jump to a chain given by its batch id")
        }
        Verdict::Accept
        | Verdict::Drop
        | Verdict::Queue
        | Verdict::Continue
        | Verdict::Break
        | Verdict::Return => Facts::Plain,
        Verdict::Stolen => Facts::BadVerdict,
        Verdict::Other(c) => match c & NF_VERDICT_MASK {
            NF_ACCEPT | NF_DROP | NF_QUEUE => Facts::Plain,
            _ => Facts::BadVerdict,
        },
    })
}

fn child<'a>(buf: &'a [u8], ty: u16) -> Option<Attr<'a>> {
    Attrs::new(buf).flatten().find(|a| a.kind() == ty)
}

fn name_of(a: Attr<'_>) -> &str {
    let d = a.data();
    let end = d.iter().position(|&b| b == 0).unwrap_or(d.len());
    std::str::from_utf8(&d[..end]).unwrap_or("")
}

/// The kernel's name of the expression in `bytes` (an `NFTA_LIST_ELEM`).
fn expr_name(bytes: &[u8]) -> String {
    Attrs::new(bytes)
        .next()
        .and_then(Result::ok)
        .and_then(|e| child(e.data(), NFTA_EXPR_NAME))
        .map(|a| name_of(a).to_owned())
        .unwrap_or_else(|| "unnamed".to_owned())
}

/// The chain a jump or goto expression (`bytes`, an `NFTA_LIST_ELEM`) goes to, and whether
/// it is a goto.
pub(crate) fn jump_target(bytes: &[u8]) -> Option<(&str, bool)> {
    let elem = Attrs::new(bytes).next()?.ok()?;
    let data = child(elem.data(), NFTA_EXPR_DATA)?;
    let imm = child(data.data(), NFTA_IMMEDIATE_DATA)?;
    let verdict = child(imm.data(), NFTA_DATA_VERDICT)?;
    let code = child(verdict.data(), NFTA_VERDICT_CODE)?.be32().ok()? as i32;
    let chain = child(verdict.data(), NFTA_VERDICT_CHAIN)?;
    Some((name_of(chain), code == NFT_GOTO))
}

/// The name, revision and info of an x_tables expression (`bytes`, an `NFTA_LIST_ELEM`).
pub(crate) fn xt_parts(bytes: &[u8]) -> Option<(&str, u32, &[u8])> {
    let elem = Attrs::new(bytes).next()?.ok()?;
    let data = child(elem.data(), NFTA_EXPR_DATA)?;
    // NFTA_MATCH_* and NFTA_TARGET_* share their numbers.
    let name = name_of(child(data.data(), NFTA_MATCH_NAME)?);
    let rev = child(data.data(), NFTA_MATCH_REV)?.be32().ok()?;
    let info = child(data.data(), NFTA_MATCH_INFO)?.data();
    Some((name, rev, info))
}

/// The expression jumping (or going, `goto`) to `chain`, as the kernel dumps it.
pub(crate) fn jump_bytes(chain: &str, goto: bool) -> Vec<u8> {
    let v = if goto {
        Verdict::Goto(chain.to_owned())
    } else {
        Verdict::Jump(chain.to_owned())
    };
    let mut w = MsgWriter::new();
    Expr::Immediate(crate::nft::expr::Immediate::verdict(v)).encode(&mut w);
    w.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_gives_the_bytes_back() {
        let cases: [&[u8]; 6] = [
            &[],
            &[0],
            &[0, 0, 0],
            &[1, 0, 0, 2, 0, 0, 0, 0, 3],
            &[7; 300],
            &[0; 1000],
        ];
        for c in cases {
            let mut f = Vec::new();
            fold(c, &mut f);
            let mut back = Vec::new();
            unfold(&f, &mut back);
            assert_eq!(back, c);
        }
        let mut long = vec![0u8; 256];
        long[..5].copy_from_slice(b"hello");
        let mut f = Vec::new();
        fold(&long, &mut f);
        assert!(f.len() < 16, "{f:?}");
    }

    #[test]
    fn interning_counts_references_and_forgets() {
        let mut i = Interner::default();
        let counter = {
            let mut w = MsgWriter::new();
            Expr::Counter(crate::nft::expr::Counter::default()).encode(&mut w);
            w.into_bytes()
        };
        let a = i.intern(&counter, false);
        let b = i.intern(&counter, false);
        assert_eq!(a, b);
        assert_eq!(i.facts(a), Facts::Plain);
        assert_eq!(i.bytes(a), counter);
        assert_eq!(i.stats(), (1, counter.len()));
        i.release(a);
        assert_eq!(i.stats().0, 1);
        i.release(b);
        assert_eq!(i.stats(), (0, 0));
        let jump = jump_bytes("KUBE-SVC-X", false);
        let j = i.intern(&jump, false);
        assert_eq!(i.facts(j), Facts::Jump);
        assert_eq!(jump_target(&i.bytes(j)), Some(("KUBE-SVC-X", false)));
    }
}
