//! `cmp`: compare a register with a constant; the rule stops here when it does not hold.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};
use crate::nft::Value;

/// A comparison operator (`NFT_CMP_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// Equal.
    Eq,
    /// Not equal.
    Neq,
    /// Less than.
    Lt,
    /// Less than or equal.
    Lte,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Gte,
}

impl CmpOp {
    /// The `NFT_CMP_*` value.
    pub fn raw(self) -> u32 {
        match self {
            CmpOp::Eq => NFT_CMP_EQ,
            CmpOp::Neq => NFT_CMP_NEQ,
            CmpOp::Lt => NFT_CMP_LT,
            CmpOp::Lte => NFT_CMP_LTE,
            CmpOp::Gt => NFT_CMP_GT,
            CmpOp::Gte => NFT_CMP_GTE,
        }
    }

    /// The operator of an `NFT_CMP_*` value.
    pub fn from_raw(v: u32) -> Option<CmpOp> {
        Some(match v {
            NFT_CMP_EQ => CmpOp::Eq,
            NFT_CMP_NEQ => CmpOp::Neq,
            NFT_CMP_LT => CmpOp::Lt,
            NFT_CMP_LTE => CmpOp::Lte,
            NFT_CMP_GT => CmpOp::Gt,
            NFT_CMP_GTE => CmpOp::Gte,
            _ => return None,
        })
    }

    /// The name `nft --debug=netlink` prints.
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Neq => "neq",
            CmpOp::Lt => "lt",
            CmpOp::Lte => "lte",
            CmpOp::Gt => "gt",
            CmpOp::Gte => "gte",
        }
    }
}

/// A `cmp` expression.
///
/// ```
/// use iptnl::nft::expr::{Cmp, CmpOp};
/// use iptnl::nft::Value;
/// let c = Cmp { sreg: 1, op: CmpOp::Eq, data: Value::new(&[10, 0, 0, 1]).unwrap() };
/// assert_eq!(c.to_string(), "cmp eq reg 1 0x0100000a");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cmp {
    /// Register compared.
    pub sreg: u32,
    /// Operator.
    pub op: CmpOp,
    /// Constant compared with.
    pub data: Value,
}

impl Cmp {
    /// `cmp OP reg 1 DATA`.
    ///
    /// Panics when `data` is longer than a register set holds (64 bytes); callers give the
    /// bytes of one header field, interface name or address.
    ///
    /// ```
    /// use iptnl::nft::expr::{Cmp, CmpOp};
    /// assert_eq!(Cmp::new(CmpOp::Lte, &[0, 80]).to_string(), "cmp lte reg 1 0x00005000");
    /// ```
    pub fn new(op: CmpOp, data: &[u8]) -> Cmp {
        Cmp {
            sreg: super::REG,
            op,
            data: Value::new(data).expect("at most 64 bytes"),
        }
    }

    /// `cmp eq reg 1 DATA`, or `neq` when `inv` (a `!` in iptables' syntax).
    ///
    /// ```
    /// use iptnl::nft::expr::{Cmp, CmpOp};
    /// assert_eq!(Cmp::eq(false, &[6]).to_string(), "cmp eq reg 1 0x00000006");
    /// assert_eq!(Cmp::eq(true, &[6]).op, CmpOp::Neq);
    /// ```
    pub fn eq(inv: bool, data: &[u8]) -> Cmp {
        Cmp::new(if inv { CmpOp::Neq } else { CmpOp::Eq }, data)
    }
}

impl ExprKind for Cmp {
    const NAME: &'static str = "cmp";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_CMP_SREG, self.sreg);
        w.put_be32(NFTA_CMP_OP, self.op.raw());
        self.data.encode(w, NFTA_CMP_DATA);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_CMP_DATA as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let sreg = t.need(NFTA_CMP_SREG, "cmp register")?.be32()?;
        let Some(op) = CmpOp::from_raw(t.need(NFTA_CMP_OP, "cmp operator")?.be32()?) else {
            return Ok(None);
        };
        let Some(data) = Value::decode(t.need(NFTA_CMP_DATA, "cmp data")?)? else {
            return Ok(None);
        };
        Ok(Some(Cmp { sreg, op, data }))
    }
}

impl fmt::Display for Cmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cmp {} reg {} {}", self.op.name(), self.sreg, self.data)
    }
}
