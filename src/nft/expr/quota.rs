//! `quota`: match until (or once) a number of bytes has passed.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `quota` expression.
///
/// ```
/// use iptnl::nft::expr::Quota;
/// use iptnl::sys::nf_tables::NFT_QUOTA_F_INV;
/// // quota over 10 mbytes
/// let q = Quota { bytes: 10 << 20, consumed: 0, flags: NFT_QUOTA_F_INV };
/// assert_eq!(q.to_string(), "quota bytes 10485760 consumed 0 flags 1");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Quota {
    /// The quota in bytes.
    pub bytes: u64,
    /// Bytes used so far (capped at `bytes` in dumps).
    pub consumed: u64,
    /// `NFT_QUOTA_F_INV` (`over`); dumps also carry `NFT_QUOTA_F_DEPLETED` once the quota is
    /// used up, which the kernel refuses on write.
    pub flags: u32,
}

impl ExprKind for Quota {
    const NAME: &'static str = "quota";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be64(NFTA_QUOTA_BYTES, self.bytes);
        w.put_be64(NFTA_QUOTA_CONSUMED, self.consumed);
        w.put_be32(NFTA_QUOTA_FLAGS, self.flags);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_QUOTA_CONSUMED as usize + 1 }>()?;
        // NFTA_QUOTA_PAD only appears on architectures that align 64-bit attributes; it is
        // not reproduced, so such a dump stays raw.
        if t.has_unknown() || t.get(NFTA_QUOTA_PAD).is_some() {
            return Ok(None);
        }
        let (Some(bytes), Some(consumed), Some(flags)) = (
            t.get(NFTA_QUOTA_BYTES),
            t.get(NFTA_QUOTA_CONSUMED),
            t.get(NFTA_QUOTA_FLAGS),
        ) else {
            return Ok(None);
        };
        Ok(Some(Quota {
            bytes: bytes.be64()?,
            consumed: consumed.be64()?,
            flags: flags.be32()?,
        }))
    }
}

impl fmt::Display for Quota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "quota bytes {} consumed {} flags {}",
            self.bytes, self.consumed, self.flags
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let q = Quota {
            bytes: 100,
            consumed: 50,
            flags: 0,
        };
        let mut w = MsgWriter::new();
        q.encode(&mut w);
        assert_eq!(w.len(), 12 + 12 + 8);
        assert_eq!(Quota::decode(Attrs::new(w.as_bytes())).unwrap(), Some(q));
        assert_eq!(q.to_string(), "quota bytes 100 consumed 50 flags 0");
    }

    #[test]
    fn unknown_or_pad_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        Quota::default().encode(&mut w);
        w.put_be32(NFTA_QUOTA_CONSUMED + 1, 0);
        assert_eq!(Quota::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put(NFTA_QUOTA_PAD, &[]);
        Quota::default().encode(&mut w);
        assert_eq!(Quota::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be64(NFTA_QUOTA_BYTES, 1);
        assert_eq!(Quota::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
