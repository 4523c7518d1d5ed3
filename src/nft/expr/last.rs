//! `last`: remember when the rule last matched (`last used`).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `last` expression.
///
/// ```
/// use iptnl::nft::expr::Last;
/// assert_eq!(Last::default().to_string(), "last never");
/// assert_eq!(Last { set: true, msecs: 1500 }.to_string(), "last 1500");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Last {
    /// Whether the rule matched at least once (`NFTA_LAST_SET`).
    pub set: bool,
    /// Milliseconds since the last match (`NFTA_LAST_MSECS`, 0 when never).
    pub msecs: u64,
}

impl ExprKind for Last {
    const NAME: &'static str = "last";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_LAST_SET, u32::from(self.set));
        w.put_be64(NFTA_LAST_MSECS, self.msecs);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_LAST_MSECS as usize + 1 }>()?;
        // NFTA_LAST_PAD (beyond the table) only appears where 64-bit attributes are aligned.
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(set), Some(msecs)) = (t.get(NFTA_LAST_SET), t.get(NFTA_LAST_MSECS)) else {
            return Ok(None);
        };
        let set = match set.be32()? {
            0 => false,
            1 => true,
            _ => return Ok(None),
        };
        Ok(Some(Last {
            set,
            msecs: msecs.be64()?,
        }))
    }
}

impl fmt::Display for Last {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.set {
            write!(f, "last {}", self.msecs)
        } else {
            f.write_str("last never")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let l = Last {
            set: true,
            msecs: 42,
        };
        let mut w = MsgWriter::new();
        l.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[8, 0, 1, 0, 0, 0, 0, 1, 12, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 42]
        );
        assert_eq!(Last::decode(Attrs::new(w.as_bytes())).unwrap(), Some(l));
        assert_eq!(l.to_string(), "last 42");
    }

    #[test]
    fn unknown_attribute_or_value_is_not_decoded() {
        let mut w = MsgWriter::new();
        Last::default().encode(&mut w);
        w.put(NFTA_LAST_PAD, &[]);
        assert_eq!(Last::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_LAST_SET, 5);
        w.put_be64(NFTA_LAST_MSECS, 0);
        assert_eq!(Last::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
