//! Values held in registers and expression attributes: plain data and verdicts
//! (`NFTA_DATA_VALUE` / `NFTA_DATA_VERDICT`).

use std::fmt;

use iptnl_sys::netfilter::{NF_ACCEPT, NF_DROP, NF_QUEUE, NF_STOLEN};
use iptnl_sys::nf_tables::*;

use crate::netlink::{Attr, DecodeError, MsgWriter};

/// A data value of up to 64 bytes (`NFT_DATA_VALUE_MAXLEN`). Values of up to 22 bytes
/// (addresses, ports, interface names, marks: nearly all) are stored inline; longer ones
/// (concatenations) on the heap. This keeps an [`Expr`](super::expr::Expr) small: encoding
/// 100k rules reads every expression once, and memory traffic is most of that cost.
///
/// ```
/// use iptnl::nft::Value;
/// let v = Value::new(&[10, 0, 0, 1]).unwrap();
/// assert_eq!(v.as_bytes(), &[10, 0, 0, 1]);
/// assert_eq!(v.to_string(), "0x0100000a");
/// assert_eq!(Value::new(&[7; 40]).unwrap().as_bytes(), &[7; 40]);
/// assert!(Value::new(&[0; 65]).is_none());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Value(Repr);

/// Inline capacity of a [`Value`].
const INLINE: usize = 22;

/// Canonical: a value of up to `INLINE` bytes is always `Inline`, with zeroes after `len`, so
/// that the derived equality and hash compare the bytes.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Inline { len: u8, buf: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl Value {
    /// A value holding `bytes`, or `None` when longer than 64 bytes.
    pub fn new(bytes: &[u8]) -> Option<Value> {
        if bytes.len() > NFT_DATA_VALUE_MAXLEN {
            return None;
        }
        if bytes.len() > INLINE {
            return Some(Value(Repr::Heap(bytes.into())));
        }
        let mut buf = [0u8; INLINE];
        buf[..bytes.len()].copy_from_slice(bytes);
        Some(Value(Repr::Inline {
            len: bytes.len() as u8,
            buf,
        }))
    }

    /// A 4-byte big-endian value.
    pub fn be32(v: u32) -> Value {
        Self::new(&v.to_be_bytes()).expect("4 bytes fit")
    }

    /// A 2-byte big-endian value.
    pub fn be16(v: u16) -> Value {
        Self::new(&v.to_be_bytes()).expect("2 bytes fit")
    }

    /// A 4-byte host-order value (meta keys such as mark are host order).
    pub fn ne32(v: u32) -> Value {
        Self::new(&v.to_ne_bytes()).expect("4 bytes fit")
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, buf } => &buf[..*len as usize],
            Repr::Heap(b) => b,
        }
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes `NFTA_DATA_VALUE` inside a nest of type `ty`.
    pub fn encode(&self, w: &mut MsgWriter, ty: u16) {
        let n = w.nest(ty);
        w.put(NFTA_DATA_VALUE, self.as_bytes());
        w.end_nest(n);
    }

    /// Reads a value from an `nft_data` nest; `None` when it holds anything else.
    pub fn decode(a: Attr<'_>) -> Result<Option<Value>, DecodeError> {
        let mut out = None;
        for inner in a.nested() {
            let inner = inner?;
            if inner.kind() != NFTA_DATA_VALUE || out.is_some() {
                return Ok(None);
            }
            out = Value::new(inner.data());
        }
        Ok(out)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Value({self})")
    }
}

/// Prints as `nft --debug=netlink` does: 32-bit words in host order, `0x%08x` each.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, chunk) in self.as_bytes().chunks(4).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            write!(f, "0x{:08x}", u32::from_ne_bytes(word))?;
        }
        Ok(())
    }
}

/// A verdict: accept, drop, continue, return, jump or goto a chain.
///
/// ```
/// use iptnl::nft::Verdict;
/// assert_eq!(Verdict::Jump("KUBE-SERVICES".into()).to_string(), "jump KUBE-SERVICES");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// `NF_ACCEPT`.
    Accept,
    /// `NF_DROP`.
    Drop,
    /// `NF_QUEUE`.
    Queue,
    /// `NF_STOLEN`.
    Stolen,
    /// `NFT_CONTINUE`.
    Continue,
    /// `NFT_BREAK`.
    Break,
    /// `NFT_RETURN`.
    Return,
    /// `NFT_JUMP` to a chain by name.
    Jump(String),
    /// `NFT_GOTO` to a chain by name.
    Goto(String),
    /// `NFT_JUMP` to a chain created in the same batch, by its `NFTA_CHAIN_ID`.
    JumpId(u32),
    /// `NFT_GOTO` to a chain created in the same batch, by its `NFTA_CHAIN_ID`.
    GotoId(u32),
    /// Any other code (kept as it is).
    Other(i32),
}

impl Verdict {
    /// The verdict code.
    pub fn code(&self) -> i32 {
        match self {
            Verdict::Accept => NF_ACCEPT,
            Verdict::Drop => NF_DROP,
            Verdict::Queue => NF_QUEUE,
            Verdict::Stolen => NF_STOLEN,
            Verdict::Continue => NFT_CONTINUE,
            Verdict::Break => NFT_BREAK,
            Verdict::Return => NFT_RETURN,
            Verdict::Jump(_) | Verdict::JumpId(_) => NFT_JUMP,
            Verdict::Goto(_) | Verdict::GotoId(_) => NFT_GOTO,
            Verdict::Other(c) => *c,
        }
    }

    /// The chain jumped to, if it is named.
    pub fn chain(&self) -> Option<&str> {
        match self {
            Verdict::Jump(c) | Verdict::Goto(c) => Some(c),
            _ => None,
        }
    }

    /// Writes an `nft_data` nest of type `ty` holding `NFTA_DATA_VERDICT`.
    pub fn encode(&self, w: &mut MsgWriter, ty: u16) {
        let outer = w.nest(ty);
        let n = w.nest(NFTA_DATA_VERDICT);
        w.put_be32(NFTA_VERDICT_CODE, self.code() as u32);
        match self {
            Verdict::Jump(c) | Verdict::Goto(c) => w.put_str(NFTA_VERDICT_CHAIN, c),
            Verdict::JumpId(id) | Verdict::GotoId(id) => w.put_be32(NFTA_VERDICT_CHAIN_ID, *id),
            _ => {}
        }
        w.end_nest(n);
        w.end_nest(outer);
    }

    /// Reads a verdict from the `NFTA_DATA_VERDICT` attribute; `None` for a form it does not
    /// know (an unknown attribute inside).
    pub fn decode_inner(a: Attr<'_>) -> Result<Option<Verdict>, DecodeError> {
        let t = a.nested().table::<4>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let code = t.need(NFTA_VERDICT_CODE, "verdict code")?.be32_signed()?;
        let chain = t.get(NFTA_VERDICT_CHAIN).map(|c| c.str()).transpose()?;
        let chain_id = t.get(NFTA_VERDICT_CHAIN_ID).map(|c| c.be32()).transpose()?;
        Ok(Some(match (code, chain, chain_id) {
            (NFT_JUMP, Some(c), None) => Verdict::Jump(c.to_owned()),
            (NFT_GOTO, Some(c), None) => Verdict::Goto(c.to_owned()),
            (NFT_JUMP, None, Some(id)) => Verdict::JumpId(id),
            (NFT_GOTO, None, Some(id)) => Verdict::GotoId(id),
            (_, Some(_), _) | (_, _, Some(_)) => return Ok(None),
            (NF_ACCEPT, ..) => Verdict::Accept,
            (NF_DROP, ..) => Verdict::Drop,
            (NF_QUEUE, ..) => Verdict::Queue,
            (NF_STOLEN, ..) => Verdict::Stolen,
            (NFT_CONTINUE, ..) => Verdict::Continue,
            (NFT_BREAK, ..) => Verdict::Break,
            (NFT_RETURN, ..) => Verdict::Return,
            (NFT_JUMP, ..) | (NFT_GOTO, ..) => return Ok(None),
            (c, ..) => Verdict::Other(c),
        }))
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Accept => f.write_str("accept"),
            Verdict::Drop => f.write_str("drop"),
            Verdict::Queue => f.write_str("queue"),
            Verdict::Stolen => f.write_str("stolen"),
            Verdict::Continue => f.write_str("continue"),
            Verdict::Break => f.write_str("break"),
            Verdict::Return => f.write_str("return"),
            Verdict::Jump(c) => write!(f, "jump {c}"),
            Verdict::Goto(c) => write!(f, "goto {c}"),
            Verdict::JumpId(id) => write!(f, "jump chain-id {id}"),
            Verdict::GotoId(id) => write!(f, "goto chain-id {id}"),
            Verdict::Other(c) => write!(f, "verdict {c}"),
        }
    }
}

/// What an `nft_data` attribute holds: a value or a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Data {
    /// Plain bytes.
    Value(Value),
    /// A verdict.
    Verdict(Verdict),
}

impl Data {
    /// Writes an `nft_data` nest of type `ty`.
    pub fn encode(&self, w: &mut MsgWriter, ty: u16) {
        match self {
            Data::Value(v) => v.encode(w, ty),
            Data::Verdict(v) => v.encode(w, ty),
        }
    }

    /// Reads an `nft_data` nest; `None` for a form it does not know.
    pub fn decode(a: Attr<'_>) -> Result<Option<Data>, DecodeError> {
        let mut out = None;
        for inner in a.nested() {
            let inner = inner?;
            if out.is_some() {
                return Ok(None);
            }
            out = match inner.kind() {
                NFTA_DATA_VALUE => Value::new(inner.data()).map(Data::Value),
                NFTA_DATA_VERDICT => Verdict::decode_inner(inner)?.map(Data::Verdict),
                _ => return Ok(None),
            };
            if out.is_none() {
                return Ok(None);
            }
        }
        Ok(out)
    }
}

impl fmt::Display for Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Data::Value(v) => v.fmt(f),
            Data::Verdict(v) => v.fmt(f),
        }
    }
}
