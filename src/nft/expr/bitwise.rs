//! `bitwise`: boolean and shift operations on a register.
//!
//! nft and iptables-nft express AND, OR, XOR and NOT with constants as one mask-and-xor
//! operation; kernels from 6.13 on also have direct AND, OR and XOR with a constant or a
//! second register.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};
use crate::nft::Value;

/// `NFT_BITWISE_AND` (kernel 6.13+, not in `iptnl_sys`, which follows the 6.1 header).
const NFT_BITWISE_AND: u32 = 3;
/// `NFT_BITWISE_OR` (kernel 6.13+).
const NFT_BITWISE_OR: u32 = 4;
/// `NFT_BITWISE_XOR` (kernel 6.13+).
const NFT_BITWISE_XOR: u32 = 5;
/// `NFTA_BITWISE_SREG2`, the second source register (kernel 6.13+).
const NFTA_BITWISE_SREG2: u16 = NFTA_BITWISE_DATA + 1;

/// The second operand of a direct AND, OR or XOR.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BitwiseOperand {
    /// A second register (`NFTA_BITWISE_SREG2`).
    Reg(u32),
    /// A constant (`NFTA_BITWISE_DATA`).
    Value(Value),
}

impl fmt::Display for BitwiseOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BitwiseOperand::Reg(r) => write!(f, "reg {r}"),
            BitwiseOperand::Value(v) => v.fmt(f),
        }
    }
}

/// The operation (`NFTA_BITWISE_OP`) and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BitwiseOp {
    /// `NFT_BITWISE_MASK_XOR`: `dreg = (sreg & mask) ^ xor`, both `len` bytes.
    MaskXor {
        /// Mask.
        mask: Value,
        /// Xor.
        xor: Value,
    },
    /// `NFT_BITWISE_LSHIFT` by the host-order u32 in `NFTA_BITWISE_DATA`.
    Lshift(Value),
    /// `NFT_BITWISE_RSHIFT` by the host-order u32 in `NFTA_BITWISE_DATA`.
    Rshift(Value),
    /// `NFT_BITWISE_AND` with a register or a constant.
    And(BitwiseOperand),
    /// `NFT_BITWISE_OR` with a register or a constant.
    Or(BitwiseOperand),
    /// `NFT_BITWISE_XOR` with a register or a constant.
    Xor(BitwiseOperand),
}

impl BitwiseOp {
    /// The `NFT_BITWISE_*` value.
    pub fn raw(&self) -> u32 {
        match self {
            BitwiseOp::MaskXor { .. } => NFT_BITWISE_MASK_XOR,
            BitwiseOp::Lshift(_) => NFT_BITWISE_LSHIFT,
            BitwiseOp::Rshift(_) => NFT_BITWISE_RSHIFT,
            BitwiseOp::And(_) => NFT_BITWISE_AND,
            BitwiseOp::Or(_) => NFT_BITWISE_OR,
            BitwiseOp::Xor(_) => NFT_BITWISE_XOR,
        }
    }
}

/// A `bitwise` expression on `len` bytes from `sreg` into `dreg`.
///
/// ```
/// use iptnl::nft::expr::Bitwise;
/// use iptnl::nft::Value;
/// // meta mark & 0xffff (the mark was loaded into register 1)
/// let b = Bitwise::mask_xor(1, 1, Value::ne32(0xffff), Value::ne32(0));
/// assert_eq!(b.to_string(), "bitwise reg 1 = ( reg 1 & 0x0000ffff ) ^ 0x00000000");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bitwise {
    /// Source register.
    pub sreg: u32,
    /// Destination register.
    pub dreg: u32,
    /// Number of bytes operated on.
    pub len: u32,
    /// The operation.
    pub op: BitwiseOp,
}

impl Bitwise {
    /// `dreg = (sreg & mask) ^ xor`, with `len` taken from `mask` (which must be as long as
    /// `xor`).
    pub fn mask_xor(sreg: u32, dreg: u32, mask: Value, xor: Value) -> Bitwise {
        Bitwise {
            sreg,
            dreg,
            len: mask.len() as u32,
            op: BitwiseOp::MaskXor { mask, xor },
        }
    }

    /// `reg 1 = (reg 1 & mask) ^ 0`, the masking iptables-nft puts between a load and a
    /// compare.
    ///
    /// Panics when `mask` is longer than a register set holds (64 bytes).
    ///
    /// ```
    /// use iptnl::nft::expr::Bitwise;
    /// let b = Bitwise::mask(&[255, 255, 255, 0]);
    /// assert_eq!(b.to_string(), "bitwise reg 1 = ( reg 1 & 0x00ffffff ) ^ 0x00000000");
    /// ```
    pub fn mask(mask: &[u8]) -> Bitwise {
        let zero = vec![0u8; mask.len()];
        Bitwise::mask_xor(
            super::REG,
            super::REG,
            Value::new(mask).expect("small"),
            Value::new(&zero).expect("small"),
        )
    }

    /// The mask and xor of a `reg 1 = (reg 1 & mask) ^ xor`, if it is one.
    ///
    /// ```
    /// use iptnl::nft::expr::Bitwise;
    /// use iptnl::nft::Value;
    /// let b = Bitwise::mask(&[0x1f, 0xff]);
    /// assert_eq!(b.as_mask_xor(), Some((Value::new(&[0x1f, 0xff]).unwrap(), Value::new(&[0, 0]).unwrap())));
    /// assert_eq!(Bitwise::mask_xor(2, 2, Value::ne32(1), Value::ne32(0)).as_mask_xor(), None);
    /// ```
    pub fn as_mask_xor(&self) -> Option<(Value, Value)> {
        match &self.op {
            BitwiseOp::MaskXor { mask, xor }
                if self.sreg == super::REG && self.dreg == super::REG =>
            {
                Some((mask.clone(), xor.clone()))
            }
            _ => None,
        }
    }
}

impl ExprKind for Bitwise {
    const NAME: &'static str = "bitwise";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_BITWISE_SREG, self.sreg);
        w.put_be32(NFTA_BITWISE_DREG, self.dreg);
        w.put_be32(NFTA_BITWISE_LEN, self.len);
        w.put_be32(NFTA_BITWISE_OP, self.op.raw());
        match &self.op {
            BitwiseOp::MaskXor { mask, xor } => {
                mask.encode(w, NFTA_BITWISE_MASK);
                xor.encode(w, NFTA_BITWISE_XOR);
            }
            BitwiseOp::Lshift(v) | BitwiseOp::Rshift(v) => v.encode(w, NFTA_BITWISE_DATA),
            BitwiseOp::And(o) | BitwiseOp::Or(o) | BitwiseOp::Xor(o) => match o {
                BitwiseOperand::Reg(r) => w.put_be32(NFTA_BITWISE_SREG2, *r),
                BitwiseOperand::Value(v) => v.encode(w, NFTA_BITWISE_DATA),
            },
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_BITWISE_SREG2 as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let u32_of = |ty| t.get(ty).and_then(|a| a.be32().ok());
        let (Some(sreg), Some(dreg), Some(len), Some(op)) = (
            u32_of(NFTA_BITWISE_SREG),
            u32_of(NFTA_BITWISE_DREG),
            u32_of(NFTA_BITWISE_LEN),
            u32_of(NFTA_BITWISE_OP),
        ) else {
            return Ok(None);
        };
        let value = |ty| t.get(ty).map(Value::decode).transpose();
        let (mask, xor, data) = (
            value(NFTA_BITWISE_MASK)?,
            value(NFTA_BITWISE_XOR)?,
            value(NFTA_BITWISE_DATA)?,
        );
        // An attribute present but not a plain value reads as Some(None): not understood.
        if [&mask, &xor, &data].iter().any(|v| matches!(v, Some(None))) {
            return Ok(None);
        }
        let sreg2 = match t.get(NFTA_BITWISE_SREG2).map(|a| a.be32()) {
            None => None,
            Some(Ok(r)) => Some(r),
            Some(Err(_)) => return Ok(None),
        };
        let args = (mask.flatten(), xor.flatten(), data.flatten(), sreg2);
        let op = match (op, args) {
            (NFT_BITWISE_MASK_XOR, (Some(mask), Some(xor), None, None)) => {
                BitwiseOp::MaskXor { mask, xor }
            }
            (NFT_BITWISE_LSHIFT, (None, None, Some(v), None)) => BitwiseOp::Lshift(v),
            (NFT_BITWISE_RSHIFT, (None, None, Some(v), None)) => BitwiseOp::Rshift(v),
            (NFT_BITWISE_AND | NFT_BITWISE_OR | NFT_BITWISE_XOR, (None, None, v, r)) => {
                let operand = match (v, r) {
                    (Some(v), None) => BitwiseOperand::Value(v),
                    (None, Some(r)) => BitwiseOperand::Reg(r),
                    _ => return Ok(None),
                };
                match op {
                    NFT_BITWISE_AND => BitwiseOp::And(operand),
                    NFT_BITWISE_OR => BitwiseOp::Or(operand),
                    _ => BitwiseOp::Xor(operand),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(Bitwise {
            sreg,
            dreg,
            len,
            op,
        }))
    }
}

impl fmt::Display for Bitwise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bitwise reg {} = ( reg {} ", self.dreg, self.sreg)?;
        match &self.op {
            BitwiseOp::MaskXor { mask, xor } => write!(f, "& {mask} ) ^ {xor}"),
            BitwiseOp::Lshift(v) => write!(f, "<< {v} )"),
            BitwiseOp::Rshift(v) => write!(f, ">> {v} )"),
            BitwiseOp::And(o) => write!(f, "& {o} )"),
            BitwiseOp::Or(o) => write!(f, "| {o} )"),
            BitwiseOp::Xor(o) => write!(f, "^ {o} )"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Bitwise> {
        let b = |op| Bitwise {
            sreg: 1,
            dreg: 2,
            len: 4,
            op,
        };
        vec![
            Bitwise::mask_xor(1, 1, Value::ne32(0xf0), Value::ne32(3)),
            b(BitwiseOp::Lshift(Value::ne32(8))),
            b(BitwiseOp::Rshift(Value::ne32(8))),
            b(BitwiseOp::And(BitwiseOperand::Reg(3))),
            b(BitwiseOp::Or(BitwiseOperand::Value(Value::ne32(4)))),
            b(BitwiseOp::Xor(BitwiseOperand::Reg(9))),
        ]
    }

    #[test]
    fn display_matches_nft_debug() {
        let s: Vec<String> = all().iter().map(|b| b.to_string()).collect();
        assert_eq!(
            s,
            [
                "bitwise reg 1 = ( reg 1 & 0x000000f0 ) ^ 0x00000003",
                "bitwise reg 2 = ( reg 1 << 0x00000008 )",
                "bitwise reg 2 = ( reg 1 >> 0x00000008 )",
                "bitwise reg 2 = ( reg 1 & reg 3 )",
                "bitwise reg 2 = ( reg 1 | 0x00000004 )",
                "bitwise reg 2 = ( reg 1 ^ reg 9 )",
            ]
        );
    }

    #[test]
    fn every_operation_round_trips() {
        for b in all() {
            let mut w = MsgWriter::new();
            b.encode(&mut w);
            assert_eq!(Bitwise::decode(Attrs::new(w.as_bytes())).unwrap(), Some(b));
        }
    }

    #[test]
    fn unknown_attribute_operation_or_mix_is_not_decoded() {
        let base = |w: &mut MsgWriter, op: u32| {
            w.put_be32(NFTA_BITWISE_SREG, 1);
            w.put_be32(NFTA_BITWISE_DREG, 1);
            w.put_be32(NFTA_BITWISE_LEN, 4);
            w.put_be32(NFTA_BITWISE_OP, op);
        };
        let mut w = MsgWriter::new();
        all()[0].encode(&mut w);
        w.put_be32(NFTA_BITWISE_SREG2 + 1, 0);
        assert_eq!(Bitwise::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        base(&mut w, 6);
        Value::ne32(1).encode(&mut w, NFTA_BITWISE_DATA);
        assert_eq!(Bitwise::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        base(&mut w, NFT_BITWISE_AND);
        Value::ne32(1).encode(&mut w, NFTA_BITWISE_DATA);
        w.put_be32(NFTA_BITWISE_SREG2, 2);
        assert_eq!(Bitwise::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        base(&mut w, NFT_BITWISE_MASK_XOR);
        Value::ne32(1).encode(&mut w, NFTA_BITWISE_MASK);
        assert_eq!(Bitwise::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
