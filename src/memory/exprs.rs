//! Rule expressions, interned: every distinct expression (one `NFTA_LIST_ELEM`, as the
//! kernel dumps it) is stored once with a reference count, and what the kernel would check
//! of it in context is worked out once ([`Facts`]). A 200k-rule ruleset holds a few
//! thousand distinct expressions: the counters, protocol matches and jumps to one chain
//! repeat.
//!
//! An expression is accepted only when the nft layer reads it completely and writes it back
//! to the same bytes (so the dump the kernel would give is the bytes received) and it is of
//! a kind this model knows the kernel's checks of; anything else is
//! [`Facts::Unsupported`].

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use iptnl_sys::nf_tables::NFT_REG_VERDICT;

use crate::netlink::{Attrs, MsgWriter};
use crate::nft::{Data, Expr, Verdict};

/// Index of an interned expression.
pub(crate) type ExprId = u32;

/// What the kernel checks of an expression when a rule holding it is added, worked out from
/// its bytes alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Facts {
    /// An expression with nothing to check in context (payload, cmp, counter, a verdict
    /// that is not a jump…), or rule user data.
    Plain,
    /// A jump or goto to the chain named.
    Jump { chain: Box<str>, goto: bool },
    /// An x_tables match or target.
    Xt {
        target: bool,
        name: Box<str>,
        rev: u32,
        info: Box<[u8]>,
    },
    /// A verdict the kernel refuses (`EINVAL`).
    BadVerdict,
    /// Something this model does not know the kernel's behaviour for.
    Unsupported(Box<str>),
}

#[derive(Debug)]
struct Entry {
    bytes: Box<[u8]>,
    refs: u32,
    facts: Facts,
}

/// The interned expressions of a namespace.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    entries: Vec<Option<Entry>>,
    free: Vec<ExprId>,
    /// Ids by hash of their bytes.
    index: HashMap<u64, Ids>,
    hasher: std::collections::hash_map::RandomState,
    /// Bytes held by the entries (for memory accounting).
    bytes: usize,
}

#[derive(Debug)]
enum Ids {
    One(ExprId),
    Many(Vec<ExprId>),
}

impl Interner {
    fn hash(&self, bytes: &[u8]) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(bytes);
        h.finish()
    }

    fn find(&self, hash: u64, bytes: &[u8]) -> Option<ExprId> {
        let same = |id: &ExprId| {
            self.entries[*id as usize]
                .as_ref()
                .is_some_and(|e| &*e.bytes == bytes)
        };
        match self.index.get(&hash)? {
            Ids::One(id) => same(id).then_some(*id),
            Ids::Many(v) => v.iter().copied().find(|id| same(id)),
        }
    }

    /// The id of `bytes` (one expression's `NFTA_LIST_ELEM` attribute, or user data when
    /// `udata`), taking one reference.
    pub fn intern(&mut self, bytes: &[u8], udata: bool) -> ExprId {
        let h = self.hash(bytes);
        if let Some(id) = self.find(h, bytes) {
            if let Some(e) = self.entries[id as usize].as_mut() {
                e.refs += 1;
            }
            return id;
        }
        let facts = if udata { Facts::Plain } else { facts_of(bytes) };
        let entry = Entry {
            bytes: bytes.into(),
            refs: 1,
            facts,
        };
        self.bytes += bytes.len();
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = Some(entry);
                id
            }
            None => {
                self.entries.push(Some(entry));
                (self.entries.len() - 1) as ExprId
            }
        };
        match self.index.get_mut(&h) {
            None => {
                self.index.insert(h, Ids::One(id));
            }
            Some(Ids::One(other)) => {
                let other = *other;
                self.index.insert(h, Ids::Many(vec![other, id]));
            }
            Some(Ids::Many(v)) => v.push(id),
        }
        id
    }

    /// Drops one reference to `id`, forgetting the expression with its last one.
    pub fn release(&mut self, id: ExprId) {
        let Some(e) = self.entries[id as usize].as_mut() else {
            return;
        };
        e.refs -= 1;
        if e.refs > 0 {
            return;
        }
        let Some(e) = self.entries[id as usize].take() else {
            return;
        };
        self.bytes -= e.bytes.len();
        let h = self.hash(&e.bytes);
        match self.index.get_mut(&h) {
            Some(Ids::One(_)) => {
                self.index.remove(&h);
            }
            Some(Ids::Many(v)) => {
                v.retain(|&x| x != id);
                if let [last] = v[..] {
                    self.index.insert(h, Ids::One(last));
                }
            }
            None => {}
        }
        self.free.push(id);
    }

    pub fn bytes_of(&self, id: ExprId) -> &[u8] {
        self.entries[id as usize]
            .as_ref()
            .map(|e| &*e.bytes)
            .unwrap_or(&[])
    }

    pub fn facts(&self, id: ExprId) -> &Facts {
        static PLAIN: Facts = Facts::Plain;
        self.entries[id as usize]
            .as_ref()
            .map(|e| &e.facts)
            .unwrap_or(&PLAIN)
    }

    /// Distinct expressions held, and their bytes.
    pub fn stats(&self) -> (usize, usize) {
        (self.entries.len() - self.free.len(), self.bytes)
    }
}

/// Works out the [`Facts`] of one `NFTA_LIST_ELEM` attribute.
fn facts_of(bytes: &[u8]) -> Facts {
    let Some(Ok(attr)) = Attrs::new(bytes).next() else {
        return Facts::Unsupported("an expression attribute that is not well formed".into());
    };
    let expr = match Expr::decode(attr) {
        Ok(e) => e,
        Err(e) => {
            return Facts::Unsupported(format!("an expression that cannot be read: {e}").into())
        }
    };
    let mut w = MsgWriter::with_capacity(bytes.len());
    expr.encode(&mut w);
    if w.as_bytes() != bytes {
        return Facts::Unsupported(
            format!(
                "the {} expression as sent (the kernel would store it differently: only the \
                 form the kernel dumps is modelled)",
                expr_name(&expr)
            )
            .into(),
        );
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
            (NFT_REG_VERDICT, Data::Verdict(v)) => verdict_facts(v),
            (NFT_REG_VERDICT, Data::Value(_)) => Facts::BadVerdict,
            (_, Data::Value(_)) => Facts::Plain,
            (_, Data::Verdict(_)) => Facts::BadVerdict,
        },
        Expr::Match(m) => Facts::Xt {
            target: false,
            name: m.name.as_ref().into(),
            rev: m.rev,
            info: m.info.into(),
        },
        Expr::Target(t) => Facts::Xt {
            target: true,
            name: t.name.as_ref().into(),
            rev: t.rev,
            info: t.info.into(),
        },
        other => Facts::Unsupported(format!("the {} expression", expr_name(&other)).into()),
    }
}

fn verdict_facts(v: &Verdict) -> Facts {
    use iptnl_sys::netfilter::{NF_ACCEPT, NF_DROP, NF_QUEUE, NF_VERDICT_MASK};
    match v {
        Verdict::Jump(c) => Facts::Jump {
            chain: c.as_str().into(),
            goto: false,
        },
        Verdict::Goto(c) => Facts::Jump {
            chain: c.as_str().into(),
            goto: true,
        },
        Verdict::JumpId(_) | Verdict::GotoId(_) => {
            Facts::Unsupported("a jump to a chain given by its batch id".into())
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
    }
}

/// The kernel's name of an expression.
fn expr_name(e: &Expr) -> String {
    let mut w = MsgWriter::new();
    e.encode(&mut w);
    let bytes = w.into_bytes();
    let name = Attrs::new(&bytes)
        .next()
        .and_then(|a| a.ok())
        .and_then(|a| {
            a.nested()
                .flatten()
                .find(|x| x.kind() == iptnl_sys::nf_tables::NFTA_EXPR_NAME)
                .and_then(|x| x.str().ok().map(str::to_owned))
        });
    name.unwrap_or_else(|| "unnamed".to_owned())
}
