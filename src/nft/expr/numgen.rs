//! `numgen`: generate a number (incrementing or random) modulo a bound, plus an offset.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// How a `numgen` expression generates numbers (`NFT_NG_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumgenType {
    /// Round robin (`inc`).
    Incremental,
    /// Random (`random`).
    Random,
    /// Any other type (kept as it is).
    Other(u32),
}

impl NumgenType {
    /// The `NFT_NG_*` value.
    pub fn raw(self) -> u32 {
        match self {
            NumgenType::Incremental => NFT_NG_INCREMENTAL,
            NumgenType::Random => NFT_NG_RANDOM,
            NumgenType::Other(v) => v,
        }
    }

    /// The type of an `NFT_NG_*` value.
    pub fn from_raw(v: u32) -> NumgenType {
        match v {
            NFT_NG_INCREMENTAL => NumgenType::Incremental,
            NFT_NG_RANDOM => NumgenType::Random,
            v => NumgenType::Other(v),
        }
    }
}

/// A `numgen` expression: `dreg = offset + (next number % modulus)`.
///
/// (`NFTA_NG_SET_NAME` / `NFTA_NG_SET_ID` are obsolete and never dumped; an expression
/// carrying them is kept raw.)
///
/// ```
/// use iptnl::nft::expr::Numgen;
/// use iptnl::nft::expr::numgen::NumgenType;
/// let n = Numgen { dreg: 1, modulus: 2, ng_type: NumgenType::Incremental, offset: 0 };
/// assert_eq!(n.to_string(), "numgen reg 1 = inc mod 2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Numgen {
    /// Destination register.
    pub dreg: u32,
    /// The modulus.
    pub modulus: u32,
    /// Incrementing or random.
    pub ng_type: NumgenType,
    /// Added to the result.
    pub offset: u32,
}

impl ExprKind for Numgen {
    const NAME: &'static str = "numgen";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_NG_DREG, self.dreg);
        w.put_be32(NFTA_NG_MODULUS, self.modulus);
        w.put_be32(NFTA_NG_TYPE, self.ng_type.raw());
        w.put_be32(NFTA_NG_OFFSET, self.offset);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_NG_OFFSET as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(dreg), Some(modulus), Some(ty), Some(offset)) = (
            t.get(NFTA_NG_DREG),
            t.get(NFTA_NG_MODULUS),
            t.get(NFTA_NG_TYPE),
            t.get(NFTA_NG_OFFSET),
        ) else {
            return Ok(None);
        };
        Ok(Some(Numgen {
            dreg: dreg.be32()?,
            modulus: modulus.be32()?,
            ng_type: NumgenType::from_raw(ty.be32()?),
            offset: offset.be32()?,
        }))
    }
}

impl fmt::Display for Numgen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "numgen reg {} = ", self.dreg)?;
        match self.ng_type {
            NumgenType::Incremental => f.write_str("inc")?,
            NumgenType::Random => f.write_str("random")?,
            NumgenType::Other(v) => write!(f, "type {v}")?,
        }
        write!(f, " mod {}", self.modulus)?;
        if self.offset != 0 {
            write!(f, " offset {}", self.offset)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let n = Numgen {
            dreg: 1,
            modulus: 4,
            ng_type: NumgenType::Random,
            offset: 10,
        };
        let mut w = MsgWriter::new();
        n.encode(&mut w);
        assert_eq!(w.len(), 32);
        assert_eq!(Numgen::decode(Attrs::new(w.as_bytes())).unwrap(), Some(n));
        assert_eq!(n.to_string(), "numgen reg 1 = random mod 4 offset 10");
    }

    #[test]
    fn unknown_or_obsolete_attribute_is_not_decoded() {
        let base = Numgen {
            dreg: 1,
            modulus: 2,
            ng_type: NumgenType::Incremental,
            offset: 0,
        };
        let mut w = MsgWriter::new();
        base.encode(&mut w);
        w.put_str(NFTA_NG_SET_NAME, "m");
        assert_eq!(Numgen::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_NG_DREG, 1);
        assert_eq!(Numgen::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
