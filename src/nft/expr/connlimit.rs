//! `connlimit`: match on the number of conntrack connections (`ct count`).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `connlimit` expression.
///
/// ```
/// use iptnl::nft::expr::Connlimit;
/// use iptnl::sys::nf_tables::NFT_CONNLIMIT_F_INV;
/// // ct count over 10
/// let c = Connlimit { count: 10, flags: Some(NFT_CONNLIMIT_F_INV) };
/// assert_eq!(c.to_string(), "connlimit count 10 flags 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Connlimit {
    /// The connection count limit.
    pub count: u32,
    /// `NFT_CONNLIMIT_F_INV` (`over`); the kernel dumps `NFTA_CONNLIMIT_FLAGS` only when it
    /// is set.
    pub flags: Option<u32>,
}

impl ExprKind for Connlimit {
    const NAME: &'static str = "connlimit";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_CONNLIMIT_COUNT, self.count);
        if let Some(f) = self.flags {
            w.put_be32(NFTA_CONNLIMIT_FLAGS, f);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_CONNLIMIT_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(count) = t.get(NFTA_CONNLIMIT_COUNT) else {
            return Ok(None);
        };
        Ok(Some(Connlimit {
            count: count.be32()?,
            flags: t.get(NFTA_CONNLIMIT_FLAGS).map(|a| a.be32()).transpose()?,
        }))
    }
}

impl fmt::Display for Connlimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "connlimit count {} flags {:x}",
            self.count,
            self.flags.unwrap_or(0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        for c in [
            Connlimit {
                count: 5,
                flags: None,
            },
            Connlimit {
                count: 10,
                flags: Some(NFT_CONNLIMIT_F_INV),
            },
        ] {
            let mut w = MsgWriter::new();
            c.encode(&mut w);
            assert_eq!(
                Connlimit::decode(Attrs::new(w.as_bytes())).unwrap(),
                Some(c)
            );
        }
        let c = Connlimit {
            count: 5,
            flags: None,
        };
        assert_eq!(c.to_string(), "connlimit count 5 flags 0");
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_CONNLIMIT_COUNT, 1);
        w.put_be32(NFTA_CONNLIMIT_FLAGS + 1, 1);
        assert_eq!(Connlimit::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        assert_eq!(Connlimit::decode(Attrs::new(&[])).unwrap(), None);
    }
}
