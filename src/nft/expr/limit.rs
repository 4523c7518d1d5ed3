//! `limit`: token-bucket rate limit, in packets or bytes per time unit.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// What a limit counts (`NFT_LIMIT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitType {
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
    /// Any other type (kept as it is).
    Other(u32),
}

impl LimitType {
    /// The `NFT_LIMIT_*` value.
    pub fn raw(self) -> u32 {
        match self {
            LimitType::Packets => NFT_LIMIT_PKTS,
            LimitType::Bytes => NFT_LIMIT_PKT_BYTES,
            LimitType::Other(v) => v,
        }
    }

    /// The type of an `NFT_LIMIT_*` value.
    pub fn from_raw(v: u32) -> LimitType {
        match v {
            NFT_LIMIT_PKTS => LimitType::Packets,
            NFT_LIMIT_PKT_BYTES => LimitType::Bytes,
            v => LimitType::Other(v),
        }
    }
}

impl fmt::Display for LimitType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitType::Packets => f.write_str("packets"),
            LimitType::Bytes => f.write_str("bytes"),
            LimitType::Other(v) => write!(f, "{v}"),
        }
    }
}

/// A `limit` expression: at most `rate` packets (or bytes) per `unit` seconds, with bursts of
/// `burst`. The kernel always dumps all five attributes.
///
/// ```
/// use iptnl::nft::expr::limit::{Limit, LimitType};
/// // limit rate 10/minute burst 3 packets
/// let l = Limit { rate: 10, unit: 60, burst: 3, limit_type: LimitType::Packets, flags: 0 };
/// assert_eq!(l.to_string(), "limit rate 10/minute burst 3 type packets flags 0x0");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limit {
    /// Packets or bytes per unit.
    pub rate: u64,
    /// The time unit, in seconds (1, 60, 3600, 86400, 604800 for second…week).
    pub unit: u64,
    /// Burst (packets, or bytes for a byte limit). The kernel dumps 5 for a packet limit
    /// written without one.
    pub burst: u32,
    /// Packets or bytes.
    pub limit_type: LimitType,
    /// `NFT_LIMIT_F_*` flags (`NFT_LIMIT_F_INV` for `limit rate over`).
    pub flags: u32,
}

impl Limit {
    /// Whether the limit is inverted (`limit rate over`: matches packets above the rate).
    pub fn inverted(&self) -> bool {
        self.flags & NFT_LIMIT_F_INV != 0
    }
}

impl ExprKind for Limit {
    const NAME: &'static str = "limit";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be64(NFTA_LIMIT_RATE, self.rate);
        w.put_be64(NFTA_LIMIT_UNIT, self.unit);
        w.put_be32(NFTA_LIMIT_BURST, self.burst);
        w.put_be32(NFTA_LIMIT_TYPE, self.limit_type.raw());
        w.put_be32(NFTA_LIMIT_FLAGS, self.flags);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        // NFTA_LIMIT_PAD (only on architectures that align 64-bit attributes) is outside the
        // table: such a limit is kept raw so its bytes survive.
        let t = data.table::<{ NFTA_LIMIT_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let u64_of = |ty| t.get(ty).and_then(|a| a.be64().ok());
        let u32_of = |ty| t.get(ty).and_then(|a| a.be32().ok());
        let (Some(rate), Some(unit), Some(burst), Some(ty), Some(flags)) = (
            u64_of(NFTA_LIMIT_RATE),
            u64_of(NFTA_LIMIT_UNIT),
            u32_of(NFTA_LIMIT_BURST),
            u32_of(NFTA_LIMIT_TYPE),
            u32_of(NFTA_LIMIT_FLAGS),
        ) else {
            return Ok(None);
        };
        Ok(Some(Limit {
            rate,
            unit,
            burst,
            limit_type: LimitType::from_raw(ty),
            flags,
        }))
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "limit rate {}/", self.rate)?;
        match self.unit {
            1 => f.write_str("second")?,
            60 => f.write_str("minute")?,
            3600 => f.write_str("hour")?,
            86400 => f.write_str("day")?,
            604800 => f.write_str("week")?,
            u => write!(f, "{u}s")?,
        }
        write!(
            f,
            " burst {} type {} flags 0x{:x}",
            self.burst, self.limit_type, self.flags
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Limit {
        Limit {
            rate: 1048576,
            unit: 1,
            burst: 10240,
            limit_type: LimitType::Bytes,
            flags: NFT_LIMIT_F_INV,
        }
    }

    #[test]
    fn display_matches_nft_debug() {
        assert_eq!(
            sample().to_string(),
            "limit rate 1048576/second burst 10240 type bytes flags 0x1"
        );
        let odd = Limit {
            unit: 7,
            limit_type: LimitType::Other(4),
            ..sample()
        };
        assert_eq!(
            odd.to_string(),
            "limit rate 1048576/7s burst 10240 type 4 flags 0x1"
        );
        assert!(sample().inverted());
    }

    #[test]
    fn round_trips() {
        let mut w = MsgWriter::new();
        sample().encode(&mut w);
        assert_eq!(
            Limit::decode(Attrs::new(w.as_bytes())).unwrap(),
            Some(sample())
        );
    }

    #[test]
    fn unknown_attribute_or_missing_one_is_not_decoded() {
        let mut w = MsgWriter::new();
        sample().encode(&mut w);
        w.put(NFTA_LIMIT_PAD, &[]);
        assert_eq!(Limit::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        w.put_be64(NFTA_LIMIT_RATE, 1);
        w.put_be64(NFTA_LIMIT_UNIT, 1);
        assert_eq!(Limit::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
