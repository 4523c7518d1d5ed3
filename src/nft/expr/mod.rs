//! nf_tables expressions, one file per expression (or family of expressions).
//!
//! Each expression type implements [`ExprKind`]: its name, how it writes its attributes inside
//! `NFTA_EXPR_DATA`, how it reads them back, and how it prints in `nft --debug=netlink` style.
//! [`Expr`] is the sum of them all plus [`RawExpr`], which keeps any expression iptnl does not
//! understand as the exact bytes the kernel sent, so every rule decodes and re-encodes
//! byte-for-byte.
//!
//! Decoding is strict: an expression whose attributes are not all understood (an unknown
//! attribute type, an unknown operator…) is kept as [`RawExpr`] rather than half-read.

use std::fmt;

use iptnl_sys::nf_tables::{NFTA_EXPR_DATA, NFTA_EXPR_NAME, NFTA_LIST_ELEM};

use crate::netlink::{Attr, Attrs, DecodeError, MsgWriter};

/// One expression type: its name and wire form.
pub trait ExprKind: Sized + Clone + PartialEq + fmt::Debug + fmt::Display {
    /// The name in `NFTA_EXPR_NAME`.
    const NAME: &'static str;
    /// Whether the kernel dumps an `NFTA_EXPR_DATA` nest for it (false for expressions with
    /// no attributes at all, such as `notrack`).
    const HAS_DATA: bool = true;
    /// Writes the attributes inside `NFTA_EXPR_DATA`, in the order the kernel dumps them.
    fn encode(&self, w: &mut MsgWriter);
    /// Reads them back. `Ok(None)` when something is not understood: the caller then keeps
    /// the expression as raw bytes.
    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError>;
}

/// An expression iptnl does not understand (or not fully), kept byte for byte.
///
/// ```
/// use iptnl::nft::expr::RawExpr;
/// let r = RawExpr { name: "osf".into(), data: Some(vec![8, 0, 1, 0, 0, 0, 0, 1]) };
/// assert_eq!(r.to_string(), "osf (8 bytes not decoded)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawExpr {
    /// The expression name.
    pub name: String,
    /// The contents of `NFTA_EXPR_DATA`, or `None` when the attribute was absent.
    pub data: Option<Vec<u8>>,
}

impl fmt::Display for RawExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.data {
            Some(d) => write!(f, "{} ({} bytes not decoded)", self.name, d.len()),
            None => f.write_str(&self.name),
        }
    }
}

macro_rules! exprs {
    ($($(#[$doc:meta])* $variant:ident($module:ident :: $ty:ident),)*) => {
        /// Any nf_tables expression.
        ///
        /// ```
        /// use iptnl::nft::expr::{Counter, Expr};
        /// let e = Expr::Counter(Counter::default());
        /// assert_eq!(e.name(), "counter");
        /// assert_eq!(e.to_string(), "[ counter pkts 0 bytes 0 ]");
        /// ```
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Expr {
            $($(#[$doc])* $variant($module::$ty),)*
            /// Anything else, byte for byte.
            Raw(RawExpr),
        }

        impl Expr {
            /// The expression's name in `NFTA_EXPR_NAME`.
            pub fn name(&self) -> &str {
                match self {
                    $(Expr::$variant(_) => <$module::$ty as ExprKind>::NAME,)*
                    Expr::Raw(r) => &r.name,
                }
            }

            /// Writes the expression as one `NFTA_LIST_ELEM` nest (name and data).
            pub fn encode(&self, w: &mut MsgWriter) {
                let elem = w.nest(NFTA_LIST_ELEM);
                match self {
                    $(Expr::$variant(e) => {
                        w.put_str(NFTA_EXPR_NAME, <$module::$ty as ExprKind>::NAME);
                        if <$module::$ty as ExprKind>::HAS_DATA {
                            let d = w.nest(NFTA_EXPR_DATA);
                            e.encode(w);
                            w.end_nest(d);
                        }
                    })*
                    Expr::Raw(r) => {
                        w.put_str(NFTA_EXPR_NAME, &r.name);
                        if let Some(data) = &r.data {
                            w.put(NFTA_EXPR_DATA, data);
                        }
                    }
                }
                w.end_nest(elem);
            }

            fn decode_typed(name: &str, data: Option<Attrs<'_>>) -> Result<Option<Expr>, DecodeError> {
                match name {
                    $(<$module::$ty as ExprKind>::NAME => {
                        match (data, <$module::$ty as ExprKind>::HAS_DATA) {
                            (Some(d), true) => Ok(<$module::$ty as ExprKind>::decode(d)?.map(Expr::$variant)),
                            (None, false) => Ok(<$module::$ty as ExprKind>::decode(Attrs::new(&[]))?.map(Expr::$variant)),
                            _ => Ok(None),
                        }
                    })*
                    _ => Ok(None),
                }
            }
        }

        impl fmt::Display for Expr {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Expr::$variant(e) => write!(f, "[ {e} ]"),)*
                    Expr::Raw(r) => write!(f, "[ {r} ]"),
                }
            }
        }

        $(impl From<$module::$ty> for Expr {
            fn from(e: $module::$ty) -> Expr {
                Expr::$variant(e)
            }
        })*
    };
}

exprs! {
    /// Load or write packet header bytes.
    Payload(payload::Payload),
    /// Compare a register with a constant.
    Cmp(cmp::Cmp),
    /// Bitwise operations on a register (mask and xor, shifts).
    Bitwise(bitwise::Bitwise),
    /// Load or set packet metadata (interface names, mark, l4proto…).
    Meta(meta::Meta),
    /// Count packets and bytes.
    Counter(counter::Counter),
    /// Load a constant or verdict.
    Immediate(immediate::Immediate),
    /// Match a register against a range.
    Range(range::Range),
    /// Look a register up in a set or map.
    Lookup(lookup::Lookup),
    /// Rate limit.
    Limit(limit::Limit),
    /// Log (also NFLOG).
    Log(log::Log),
    /// x_tables match.
    Match(xt::Match),
    /// x_tables target.
    Target(xt::Target),
    /// Byte order conversion.
    Byteorder(byteorder::Byteorder),
    /// IPv6/TCP/IPv4 extension headers and options.
    Exthdr(exthdr::Exthdr),
    /// Conntrack keys.
    Ct(ct::Ct),
    /// Add or update set elements from the packet path.
    Dynset(dynset::DynsetBox),
    /// Reference to a stateful object.
    Objref(objref::Objref),
    /// Native SNAT/DNAT.
    Nat(nat::Nat),
    /// Native masquerade.
    Masq(masq::Masq),
    /// Native redirect.
    Redir(redir::Redir),
    /// Native reject.
    Reject(reject::Reject),
    /// FIB lookup.
    Fib(fib::Fib),
    /// Disable conntrack for the packet.
    Notrack(notrack::Notrack),
    /// Byte quota.
    Quota(quota::Quota),
    /// Socket lookup.
    Socket(socket::Socket),
    /// Transparent proxy.
    Tproxy(tproxy::Tproxy),
    /// Number generator.
    Numgen(numgen::Numgen),
    /// Hashing.
    Hash(hash::Hash),
    /// Connection count limit.
    Connlimit(connlimit::Connlimit),
    /// Queue to userspace.
    Queue(queue::Queue),
    /// Duplicate packets.
    Dup(dup::Dup),
    /// Forward packets (netdev).
    Fwd(fwd::Fwd),
    /// Routing information.
    Rt(rt::Rt),
    /// Last-seen timestamp.
    Last(last::Last),
    /// SYN proxy.
    Synproxy(synproxy::Synproxy),
}

pub mod bitwise;
pub mod byteorder;
pub mod cmp;
pub mod connlimit;
pub mod counter;
pub mod ct;
pub mod dup;
pub mod dynset;
pub mod exthdr;
pub mod fib;
pub mod fwd;
pub mod hash;
pub mod immediate;
pub mod last;
pub mod limit;
pub mod log;
pub mod lookup;
pub mod masq;
pub mod meta;
pub mod nat;
pub mod notrack;
pub mod numgen;
pub mod objref;
pub mod payload;
pub mod queue;
pub mod quota;
pub mod range;
pub mod redir;
pub mod reject;
pub mod rt;
pub mod socket;
pub mod synproxy;
pub mod tproxy;
pub mod xt;

/// Register 1 (`NFT_REG_1`), the register iptables-nft loads every value it tests into;
/// the constructors that take no register ([`Cmp::eq`], [`Payload::load_reg1`],
/// [`Meta::load_reg1`], [`Bitwise::mask`]) use it.
///
/// ```
/// use iptnl::nft::expr::{Cmp, REG};
/// assert_eq!(Cmp::eq(false, &[6]).sreg, REG);
/// ```
pub const REG: u32 = iptnl_sys::nf_tables::NFT_REG_1;

pub use bitwise::Bitwise;
pub use byteorder::Byteorder;
pub use cmp::{Cmp, CmpOp};
pub use connlimit::Connlimit;
pub use counter::Counter;
pub use ct::Ct;
pub use dup::Dup;
pub use dynset::Dynset;
pub use exthdr::Exthdr;
pub use fib::Fib;
pub use fwd::Fwd;
pub use hash::Hash;
pub use immediate::Immediate;
pub use last::Last;
pub use limit::Limit;
pub use log::Log;
pub use lookup::Lookup;
pub use masq::Masq;
pub use meta::Meta;
pub use nat::Nat;
pub use notrack::Notrack;
pub use numgen::Numgen;
pub use objref::Objref;
pub use payload::{Payload, PayloadBase, PayloadCsum, PayloadOp};
pub use queue::Queue;
pub use quota::Quota;
pub use range::Range;
pub use redir::Redir;
pub use reject::Reject;
pub use rt::Rt;
pub use socket::Socket;
pub use synproxy::Synproxy;
pub use tproxy::Tproxy;
pub use xt::{Match, Target};

impl Expr {
    /// Reads one `NFTA_LIST_ELEM` nest. Never fails on an expression it does not know: that
    /// one becomes [`Expr::Raw`]. Fails only on malformed netlink (bad lengths) or a missing
    /// name.
    pub fn decode(elem: Attr<'_>) -> Result<Expr, DecodeError> {
        let mut name = None;
        let mut data = None;
        let mut extra = false;
        for a in elem.nested() {
            let a = a?;
            match a.kind() {
                NFTA_EXPR_NAME if name.is_none() => name = Some(a.str()?),
                NFTA_EXPR_DATA if data.is_none() => data = Some(a),
                _ => extra = true,
            }
        }
        let name = name.ok_or(DecodeError::Missing {
            what: "expression name",
        })?;
        if extra {
            return Err(DecodeError::BadValue {
                what: "unexpected attribute in an expression",
                value: 0,
            });
        }
        if let Some(e) = Expr::decode_typed(name, data.map(|d| d.nested()))? {
            return Ok(e);
        }
        Ok(Expr::Raw(RawExpr {
            name: name.to_owned(),
            data: data.map(|d| d.data().to_vec()),
        }))
    }

    /// The form of this expression the kernel accepts on input, when it differs from the form
    /// it dumps (the kernel dumps a few attributes of `exthdr` and `dynset` that it refuses on
    /// input); `None` when the dumped form is accepted as it is.
    pub fn input_form(&self) -> Option<Expr> {
        match self {
            Expr::Exthdr(x) => Some(Expr::Exthdr(x.input_form())).filter(|f| f != self),
            Expr::Dynset(d) => Some(Expr::Dynset(Box::new(d.input_form()))).filter(|f| f != self),
            _ => None,
        }
    }

    /// Writes an expression list for a NEWRULE message: like [`encode_list`](Self::encode_list)
    /// but with each expression in its [`input_form`](Self::input_form), so that a rule read
    /// from the kernel can be written back as it is.
    pub fn encode_list_input(exprs: &[Expr], w: &mut MsgWriter, ty: u16) {
        let n = w.nest(ty);
        for e in exprs {
            match e.input_form() {
                Some(f) => f.encode(w),
                None => e.encode(w),
            }
        }
        w.end_nest(n);
    }

    /// Writes a whole expression list: a nest of type `ty` (e.g. `NFTA_RULE_EXPRESSIONS`)
    /// holding one `NFTA_LIST_ELEM` per expression.
    pub fn encode_list(exprs: &[Expr], w: &mut MsgWriter, ty: u16) {
        let n = w.nest(ty);
        for e in exprs {
            e.encode(w);
        }
        w.end_nest(n);
    }

    /// Reads a whole expression list nest.
    pub fn decode_list(list: Attr<'_>) -> Result<Vec<Expr>, DecodeError> {
        let mut out = Vec::new();
        for a in list.nested() {
            let a = a?;
            if a.kind() != NFTA_LIST_ELEM {
                return Err(DecodeError::BadValue {
                    what: "expression list element type",
                    value: a.kind() as i64,
                });
            }
            out.push(Expr::decode(a)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod size_tests {
    /// Encoding 100k rules reads every expression once: memory traffic is most of its cost,
    /// so an expression stays within one cache line (it was 144 bytes with 64-byte inline
    /// values).
    #[test]
    fn an_expression_fits_a_cache_line() {
        assert!(std::mem::size_of::<super::Expr>() <= 64);
        assert!(std::mem::size_of::<crate::nft::Value>() <= 24);
    }
}
