//! `byteorder`: convert a register between network and host byte order, element by element.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A conversion direction (`NFT_BYTEORDER_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteorderOp {
    /// Network to host order.
    Ntoh,
    /// Host to network order.
    Hton,
}

impl ByteorderOp {
    /// The `NFT_BYTEORDER_*` value.
    pub fn raw(self) -> u32 {
        match self {
            ByteorderOp::Ntoh => NFT_BYTEORDER_NTOH,
            ByteorderOp::Hton => NFT_BYTEORDER_HTON,
        }
    }

    /// The direction of an `NFT_BYTEORDER_*` value.
    pub fn from_raw(v: u32) -> Option<ByteorderOp> {
        match v {
            NFT_BYTEORDER_NTOH => Some(ByteorderOp::Ntoh),
            NFT_BYTEORDER_HTON => Some(ByteorderOp::Hton),
            _ => None,
        }
    }

    /// The name `nft --debug=netlink` prints.
    pub fn name(self) -> &'static str {
        match self {
            ByteorderOp::Ntoh => "ntoh",
            ByteorderOp::Hton => "hton",
        }
    }
}

/// A `byteorder` expression: converts `len` bytes of `sreg`, in elements of `size` bytes
/// (2, 4 or 8), into `dreg`.
///
/// ```
/// use iptnl::nft::expr::byteorder::{Byteorder, ByteorderOp};
/// // what nft emits after `meta time` to compare it with a big-endian constant
/// let b = Byteorder { sreg: 1, dreg: 1, op: ByteorderOp::Hton, len: 8, size: 8 };
/// assert_eq!(b.to_string(), "byteorder reg 1 = hton(reg 1, 8, 8)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Byteorder {
    /// Source register.
    pub sreg: u32,
    /// Destination register.
    pub dreg: u32,
    /// Direction.
    pub op: ByteorderOp,
    /// Number of bytes converted.
    pub len: u32,
    /// Size of one element in bytes.
    pub size: u32,
}

impl ExprKind for Byteorder {
    const NAME: &'static str = "byteorder";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_BYTEORDER_SREG, self.sreg);
        w.put_be32(NFTA_BYTEORDER_DREG, self.dreg);
        w.put_be32(NFTA_BYTEORDER_OP, self.op.raw());
        w.put_be32(NFTA_BYTEORDER_LEN, self.len);
        w.put_be32(NFTA_BYTEORDER_SIZE, self.size);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_BYTEORDER_SIZE as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let u32_of = |ty| t.get(ty).and_then(|a| a.be32().ok());
        let (Some(sreg), Some(dreg), Some(op), Some(len), Some(size)) = (
            u32_of(NFTA_BYTEORDER_SREG),
            u32_of(NFTA_BYTEORDER_DREG),
            u32_of(NFTA_BYTEORDER_OP).and_then(ByteorderOp::from_raw),
            u32_of(NFTA_BYTEORDER_LEN),
            u32_of(NFTA_BYTEORDER_SIZE),
        ) else {
            return Ok(None);
        };
        Ok(Some(Byteorder {
            sreg,
            dreg,
            op,
            len,
            size,
        }))
    }
}

impl fmt::Display for Byteorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "byteorder reg {} = {}(reg {}, {}, {})",
            self.dreg,
            self.op.name(),
            self.sreg,
            self.size,
            self.len
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Byteorder {
        Byteorder {
            sreg: 2,
            dreg: 1,
            op: ByteorderOp::Ntoh,
            len: 4,
            size: 2,
        }
    }

    #[test]
    fn display_matches_nft_debug() {
        assert_eq!(sample().to_string(), "byteorder reg 1 = ntoh(reg 2, 2, 4)");
    }

    #[test]
    fn round_trips_in_kernel_order() {
        let mut w = MsgWriter::new();
        sample().encode(&mut w);
        let kinds: Vec<u16> = Attrs::new(w.as_bytes())
            .map(|a| a.unwrap().kind())
            .collect();
        assert_eq!(kinds, [1, 2, 3, 4, 5]);
        assert_eq!(
            Byteorder::decode(Attrs::new(w.as_bytes())).unwrap(),
            Some(sample())
        );
    }

    #[test]
    fn unknown_attribute_or_operator_is_not_decoded() {
        let mut w = MsgWriter::new();
        sample().encode(&mut w);
        w.put_be32(NFTA_BYTEORDER_SIZE + 1, 0);
        assert_eq!(Byteorder::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        Byteorder {
            op: ByteorderOp::Hton,
            ..sample()
        }
        .encode(&mut w);
        let mut bytes = w.into_bytes();
        // NFTA_BYTEORDER_OP is the third attribute; make it 9
        bytes[16 + 4 + 3] = 9;
        assert_eq!(Byteorder::decode(Attrs::new(&bytes)).unwrap(), None);
    }
}
