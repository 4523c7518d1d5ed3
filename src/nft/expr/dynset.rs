//! `dynset`: add, update or delete set elements from the packet path (`add @s { ip saddr }`,
//! `update @m { ip saddr timeout 30s : … }`), optionally with stateful expressions attached to
//! the new element.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::{Expr, ExprKind};
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// What a `dynset` does (`NFT_DYNSET_OP_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DynsetOp {
    /// Add the element if missing.
    Add,
    /// Add the element, or refresh its timeout.
    Update,
    /// Delete the element.
    Delete,
    /// Any other operation (kept as it is).
    Other(u32),
}

impl DynsetOp {
    /// The `NFT_DYNSET_OP_*` value.
    pub fn raw(self) -> u32 {
        match self {
            DynsetOp::Add => NFT_DYNSET_OP_ADD,
            DynsetOp::Update => NFT_DYNSET_OP_UPDATE,
            DynsetOp::Delete => NFT_DYNSET_OP_DELETE,
            DynsetOp::Other(v) => v,
        }
    }

    /// The operation of an `NFT_DYNSET_OP_*` value.
    pub fn from_raw(v: u32) -> DynsetOp {
        match v {
            NFT_DYNSET_OP_ADD => DynsetOp::Add,
            NFT_DYNSET_OP_UPDATE => DynsetOp::Update,
            NFT_DYNSET_OP_DELETE => DynsetOp::Delete,
            v => DynsetOp::Other(v),
        }
    }
}

impl fmt::Display for DynsetOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynsetOp::Add => f.write_str("add"),
            DynsetOp::Update => f.write_str("update"),
            DynsetOp::Delete => f.write_str("delete"),
            DynsetOp::Other(v) => write!(f, "op {v}"),
        }
    }
}

/// A `dynset` expression.
///
/// The kernel always dumps `timeout` (0 when none was given) and `flags`, but on input it
/// refuses a `timeout`, even 0, for a set without the timeout flag (EOPNOTSUPP), and requires
/// `NFT_DYNSET_F_EXPR` in `flags` with several expressions (which it never dumps):
/// [`Dynset::input_form`] turns a dumped expression into one it accepts.
///
/// ```
/// use iptnl::nft::expr::Dynset;
/// use iptnl::nft::expr::dynset::DynsetOp;
/// use iptnl::nft::expr::limit::{Limit, LimitType};
/// // add @dyn { ip saddr limit rate 10/second } (the address was loaded into register 1)
/// let d = Dynset {
///     exprs: vec![Limit { rate: 10, unit: 1, burst: 5, limit_type: LimitType::Packets, flags: 0 }.into()],
///     ..Dynset::new(DynsetOp::Add, "dyn", 1)
/// };
/// assert_eq!(
///     d.to_string(),
///     "dynset add reg_key 1 set dyn expr [ limit rate 10/second burst 5 type packets flags 0x0 ]"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dynset {
    /// Add, update or delete.
    pub op: DynsetOp,
    /// Register holding the key.
    pub sreg_key: u32,
    /// Register holding the value, for a map (dumped for maps only).
    pub sreg_data: Option<u32>,
    /// The set's name.
    pub set: String,
    /// The set's `NFTA_SET_ID`, to refer to a set created in the same batch (never dumped).
    pub set_id: Option<u32>,
    /// Timeout of the element in milliseconds (0: the set's default).
    pub timeout: Option<u64>,
    /// Stateful expressions attached to the new element: one is written as
    /// `NFTA_DYNSET_EXPR`, several as `NFTA_DYNSET_EXPRESSIONS`, as the kernel dumps them.
    /// The kernel does not dump them when the set itself declares expressions.
    pub exprs: Vec<Expr>,
    /// `NFT_DYNSET_F_*` flags (`NFT_DYNSET_F_INV`).
    pub flags: Option<u32>,
}

impl Dynset {
    /// A dynset of `sreg_key` into `set` with nothing else set.
    pub fn new(op: DynsetOp, set: impl Into<String>, sreg_key: u32) -> Dynset {
        Dynset {
            op,
            sreg_key,
            sreg_data: None,
            set: set.into(),
            set_id: None,
            timeout: None,
            exprs: Vec::new(),
            flags: None,
        }
    }
}

impl Dynset {
    /// The form the kernel accepts on input: a zero `timeout` left out (absent means 0, the
    /// set's default, and is accepted by sets without timeouts) and `NFT_DYNSET_F_EXPR` added
    /// to `flags` when there are several expressions.
    pub fn input_form(&self) -> Dynset {
        let mut d = self.clone();
        if d.timeout == Some(0) {
            d.timeout = None;
        }
        if d.exprs.len() > 1 {
            d.flags = Some(d.flags.unwrap_or(0) | NFT_DYNSET_F_EXPR);
        }
        d
    }
}

impl ExprKind for Dynset {
    const NAME: &'static str = "dynset";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_DYNSET_SREG_KEY, self.sreg_key);
        if let Some(d) = self.sreg_data {
            w.put_be32(NFTA_DYNSET_SREG_DATA, d);
        }
        w.put_be32(NFTA_DYNSET_OP, self.op.raw());
        w.put_str(NFTA_DYNSET_SET_NAME, &self.set);
        if let Some(id) = self.set_id {
            w.put_be32(NFTA_DYNSET_SET_ID, id);
        }
        if let Some(t) = self.timeout {
            w.put_be64(NFTA_DYNSET_TIMEOUT, t);
        }
        match self.exprs.as_slice() {
            [] => {}
            [one] => {
                // NFTA_DYNSET_EXPR holds the name and data directly, like one list element:
                // write the element and keep its contents.
                let mut tmp = MsgWriter::new();
                one.encode(&mut tmp);
                w.put(NFTA_DYNSET_EXPR, &tmp.as_bytes()[4..]);
            }
            many => Expr::encode_list(many, w, NFTA_DYNSET_EXPRESSIONS),
        }
        if let Some(fl) = self.flags {
            w.put_be32(NFTA_DYNSET_FLAGS, fl);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        // NFTA_DYNSET_PAD (only on architectures that align 64-bit attributes) is refused
        // along with unknown types: such a dynset is kept raw.
        let t = data.table::<{ NFTA_DYNSET_EXPRESSIONS as usize + 1 }>()?;
        if t.has_unknown() || t.get(NFTA_DYNSET_PAD).is_some() {
            return Ok(None);
        }
        let u32_of = |ty| t.get(ty).and_then(|a| a.be32().ok());
        let (Some(sreg_key), Some(op), Some(set)) = (
            u32_of(NFTA_DYNSET_SREG_KEY),
            u32_of(NFTA_DYNSET_OP),
            t.get(NFTA_DYNSET_SET_NAME).and_then(|a| a.str().ok()),
        ) else {
            return Ok(None);
        };
        let (Ok(sreg_data), Ok(set_id), Ok(timeout), Ok(flags)) = (
            t.get(NFTA_DYNSET_SREG_DATA).map(|a| a.be32()).transpose(),
            t.get(NFTA_DYNSET_SET_ID).map(|a| a.be32()).transpose(),
            t.get(NFTA_DYNSET_TIMEOUT).map(|a| a.be64()).transpose(),
            t.get(NFTA_DYNSET_FLAGS).map(|a| a.be32()).transpose(),
        ) else {
            return Ok(None);
        };
        let exprs = match (t.get(NFTA_DYNSET_EXPR), t.get(NFTA_DYNSET_EXPRESSIONS)) {
            (None, None) => Vec::new(),
            // An inner expression that cannot be read keeps the whole dynset raw.
            (Some(e), None) => match Expr::decode(e) {
                Ok(e) => vec![e],
                Err(_) => return Ok(None),
            },
            (None, Some(list)) => {
                let mut v = Vec::new();
                for a in list.nested() {
                    match a {
                        Ok(a) if a.kind() == NFTA_LIST_ELEM => match Expr::decode(a) {
                            Ok(e) => v.push(e),
                            Err(_) => return Ok(None),
                        },
                        _ => return Ok(None),
                    }
                }
                // A list of fewer than two is never dumped and would not re-encode the same.
                if v.len() < 2 {
                    return Ok(None);
                }
                v
            }
            (Some(_), Some(_)) => return Ok(None),
        };
        Ok(Some(Dynset {
            op: DynsetOp::from_raw(op),
            sreg_key,
            sreg_data,
            set: set.to_owned(),
            set_id,
            timeout,
            exprs,
            flags,
        }))
    }
}

impl fmt::Display for Dynset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dynset {} reg_key {} set {}",
            self.op, self.sreg_key, self.set
        )?;
        if let Some(d) = self.sreg_data {
            write!(f, " sreg_data {d}")?;
        }
        if let Some(t) = self.timeout {
            write!(f, " timeout {t}ms")?;
        }
        for e in &self.exprs {
            write!(f, " expr {e}")?;
        }
        if let Some(fl) = self.flags.filter(|&fl| fl != 0) {
            write!(f, " flags 0x{fl:x}")?;
        }
        Ok(())
    }
}

/// A [`Dynset`] as [`Expr::Dynset`] stores it: boxed, because it is
/// the largest expression (a set name, a timeout and nested expressions) and rare in iptables
/// rules, so that every other expression stays small.
pub type DynsetBox = Box<Dynset>;

impl ExprKind for DynsetBox {
    const NAME: &'static str = Dynset::NAME;

    fn encode(&self, w: &mut MsgWriter) {
        (**self).encode(w)
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        Ok(Dynset::decode(data)?.map(Box::new))
    }
}

impl From<Dynset> for super::Expr {
    fn from(d: Dynset) -> super::Expr {
        super::Expr::Dynset(Box::new(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nft::expr::{Counter, Limit, RawExpr};

    fn limit() -> Expr {
        Limit {
            rate: 10,
            unit: 1,
            burst: 5,
            limit_type: super::super::limit::LimitType::Packets,
            flags: 0,
        }
        .into()
    }

    fn round_trip(d: &Dynset) -> Option<Dynset> {
        let mut w = MsgWriter::new();
        d.encode(&mut w);
        Dynset::decode(Attrs::new(w.as_bytes())).unwrap()
    }

    #[test]
    fn display_matches_nft_debug() {
        let d = Dynset {
            timeout: Some(30000),
            flags: Some(0),
            ..Dynset::new(DynsetOp::Update, "dyn", 1)
        };
        assert_eq!(
            d.to_string(),
            "dynset update reg_key 1 set dyn timeout 30000ms"
        );
        let m = Dynset {
            sreg_data: Some(2),
            exprs: vec![Counter::default().into(), limit()],
            flags: Some(1),
            ..Dynset::new(DynsetOp::Add, "m", 1)
        };
        assert_eq!(
            m.to_string(),
            "dynset add reg_key 1 set m sreg_data 2 expr [ counter pkts 0 bytes 0 ] \
             expr [ limit rate 10/second burst 5 type packets flags 0x0 ] flags 0x1"
        );
    }

    #[test]
    fn every_form_round_trips() {
        for d in [
            Dynset::new(DynsetOp::Delete, "s", 1),
            Dynset {
                timeout: Some(0),
                flags: Some(0),
                exprs: vec![limit()],
                set_id: Some(7),
                ..Dynset::new(DynsetOp::Add, "s", 9)
            },
            Dynset {
                sreg_data: Some(2),
                exprs: vec![
                    Counter::default().into(),
                    Expr::Raw(RawExpr {
                        name: "quota".into(),
                        data: Some(vec![8, 0, 9, 0, 1, 2, 3, 4]),
                    }),
                ],
                ..Dynset::new(DynsetOp::Other(9), "m", 1)
            },
        ] {
            assert_eq!(round_trip(&d), Some(d));
        }
    }

    #[test]
    fn input_form_drops_zero_timeout_and_flags_expression_lists() {
        let dumped = Dynset {
            timeout: Some(0),
            flags: Some(0),
            exprs: vec![Counter::default().into(), limit()],
            ..Dynset::new(DynsetOp::Add, "s", 1)
        };
        let input = dumped.input_form();
        assert_eq!(input.timeout, None);
        assert_eq!(input.flags, Some(NFT_DYNSET_F_EXPR));
        let one = Dynset {
            timeout: Some(5),
            flags: Some(NFT_DYNSET_F_INV),
            exprs: vec![limit()],
            ..Dynset::new(DynsetOp::Update, "s", 1)
        };
        assert_eq!(one.input_form(), one);
    }

    #[test]
    fn single_expression_is_written_as_nfta_dynset_expr() {
        let d = Dynset {
            exprs: vec![Counter::default().into()],
            ..Dynset::new(DynsetOp::Add, "s", 1)
        };
        let mut w = MsgWriter::new();
        d.encode(&mut w);
        let e = Attrs::new(w.as_bytes())
            .map(|a| a.unwrap())
            .find(|a| a.kind() == NFTA_DYNSET_EXPR)
            .unwrap();
        let inner: Vec<u16> = e.nested().map(|a| a.unwrap().kind()).collect();
        assert_eq!(inner, [NFTA_EXPR_NAME, NFTA_EXPR_DATA]);
    }

    #[test]
    fn unknown_attribute_or_short_list_is_not_decoded() {
        let mut w = MsgWriter::new();
        Dynset::new(DynsetOp::Add, "s", 1).encode(&mut w);
        w.put_be32(NFTA_DYNSET_EXPRESSIONS + 1, 0);
        assert_eq!(Dynset::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        Dynset::new(DynsetOp::Add, "s", 1).encode(&mut w);
        Expr::encode_list(&[limit()], &mut w, NFTA_DYNSET_EXPRESSIONS);
        assert_eq!(Dynset::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        Dynset::new(DynsetOp::Add, "s", 1).encode(&mut w);
        w.put_be64(NFTA_DYNSET_PAD, 0);
        assert_eq!(Dynset::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
