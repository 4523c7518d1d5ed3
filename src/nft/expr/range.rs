//! `range`: check that a register lies inside (or outside) an inclusive range of constants;
//! the rule stops here when it does not hold.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};
use crate::nft::Value;

/// A range operator (`NFT_RANGE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RangeOp {
    /// The register lies within `from..=to`.
    Eq,
    /// The register lies outside `from..=to`.
    Neq,
}

impl RangeOp {
    /// The `NFT_RANGE_*` value.
    pub fn raw(self) -> u32 {
        match self {
            RangeOp::Eq => NFT_RANGE_EQ,
            RangeOp::Neq => NFT_RANGE_NEQ,
        }
    }

    /// The operator of an `NFT_RANGE_*` value.
    pub fn from_raw(v: u32) -> Option<RangeOp> {
        match v {
            NFT_RANGE_EQ => Some(RangeOp::Eq),
            NFT_RANGE_NEQ => Some(RangeOp::Neq),
            _ => None,
        }
    }

    /// The name `nft --debug=netlink` prints.
    pub fn name(self) -> &'static str {
        match self {
            RangeOp::Eq => "eq",
            RangeOp::Neq => "neq",
        }
    }
}

/// A `range` expression. Bounds are compared as big-endian byte strings, as `cmp` does.
///
/// ```
/// use iptnl::nft::expr::range::{Range, RangeOp};
/// use iptnl::nft::Value;
/// // tcp dport != 1000-2000 (the port was loaded into register 1)
/// let r = Range { sreg: 1, op: RangeOp::Neq, from: Value::be16(1000), to: Value::be16(2000) };
/// assert_eq!(r.to_string(), "range neq reg 1 0x0000e803 0x0000d007");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Range {
    /// Register compared.
    pub sreg: u32,
    /// Inside or outside.
    pub op: RangeOp,
    /// Lower bound (inclusive).
    pub from: Value,
    /// Upper bound (inclusive).
    pub to: Value,
}

impl ExprKind for Range {
    const NAME: &'static str = "range";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_RANGE_SREG, self.sreg);
        w.put_be32(NFTA_RANGE_OP, self.op.raw());
        self.from.encode(w, NFTA_RANGE_FROM_DATA);
        self.to.encode(w, NFTA_RANGE_TO_DATA);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_RANGE_TO_DATA as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(sreg) = t.get(NFTA_RANGE_SREG).and_then(|a| a.be32().ok()) else {
            return Ok(None);
        };
        let Some(op) = t
            .get(NFTA_RANGE_OP)
            .and_then(|a| a.be32().ok())
            .and_then(RangeOp::from_raw)
        else {
            return Ok(None);
        };
        let (Some(from), Some(to)) = (t.get(NFTA_RANGE_FROM_DATA), t.get(NFTA_RANGE_TO_DATA))
        else {
            return Ok(None);
        };
        let (Some(from), Some(to)) = (Value::decode(from)?, Value::decode(to)?) else {
            return Ok(None);
        };
        Ok(Some(Range { sreg, op, from, to }))
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "range {} reg {} {} {}",
            self.op.name(),
            self.sreg,
            self.from,
            self.to
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Range {
        Range {
            sreg: 1,
            op: RangeOp::Eq,
            from: Value::be16(22),
            to: Value::be16(80),
        }
    }

    #[test]
    fn display_matches_nft_debug() {
        assert_eq!(sample().to_string(), "range eq reg 1 0x00001600 0x00005000");
    }

    #[test]
    fn round_trips() {
        let mut w = MsgWriter::new();
        sample().encode(&mut w);
        assert_eq!(
            Range::decode(Attrs::new(w.as_bytes())).unwrap(),
            Some(sample())
        );
    }

    #[test]
    fn unknown_attribute_or_operator_is_not_decoded() {
        let mut w = MsgWriter::new();
        sample().encode(&mut w);
        w.put_be32(NFTA_RANGE_TO_DATA + 1, 0);
        assert_eq!(Range::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        w.put_be32(NFTA_RANGE_SREG, 1);
        w.put_be32(NFTA_RANGE_OP, 7);
        Value::be16(1).encode(&mut w, NFTA_RANGE_FROM_DATA);
        Value::be16(2).encode(&mut w, NFTA_RANGE_TO_DATA);
        assert_eq!(Range::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }

    #[test]
    fn missing_bound_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_RANGE_SREG, 1);
        w.put_be32(NFTA_RANGE_OP, NFT_RANGE_EQ);
        Value::be16(1).encode(&mut w, NFTA_RANGE_FROM_DATA);
        assert_eq!(Range::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
