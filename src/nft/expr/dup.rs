//! `dup`: send a copy of the packet to another address (ip/ip6) or out of a device (netdev).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `dup` expression. In `ip`/`ip6` tables the address register is required and the device
/// optional; in `netdev` tables only the device is used.
///
/// ```
/// use iptnl::nft::expr::Dup;
/// // dup to 10.0.0.1 device "lo": address in register 1, interface index in register 2
/// let d = Dup { sreg_addr: Some(1), sreg_dev: Some(2) };
/// assert_eq!(d.to_string(), "dup sreg_addr 1 sreg_dev 2");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Dup {
    /// Register holding the gateway address.
    pub sreg_addr: Option<u32>,
    /// Register holding the output interface index.
    pub sreg_dev: Option<u32>,
}

impl ExprKind for Dup {
    const NAME: &'static str = "dup";

    fn encode(&self, w: &mut MsgWriter) {
        if let Some(r) = self.sreg_addr {
            w.put_be32(NFTA_DUP_SREG_ADDR, r);
        }
        if let Some(r) = self.sreg_dev {
            w.put_be32(NFTA_DUP_SREG_DEV, r);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_DUP_SREG_DEV as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        Ok(Some(Dup {
            sreg_addr: t.get(NFTA_DUP_SREG_ADDR).map(|a| a.be32()).transpose()?,
            sreg_dev: t.get(NFTA_DUP_SREG_DEV).map(|a| a.be32()).transpose()?,
        }))
    }
}

impl fmt::Display for Dup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("dup")?;
        if let Some(r) = self.sreg_addr {
            write!(f, " sreg_addr {r}")?;
        }
        if let Some(r) = self.sreg_dev {
            write!(f, " sreg_dev {r}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let d = Dup {
            sreg_addr: None,
            sreg_dev: Some(1),
        };
        let mut w = MsgWriter::new();
        d.encode(&mut w);
        assert_eq!(w.as_bytes(), &[8, 0, 2, 0, 0, 0, 0, 1]);
        assert_eq!(Dup::decode(Attrs::new(w.as_bytes())).unwrap(), Some(d));
        assert_eq!(d.to_string(), "dup sreg_dev 1");
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_DUP_SREG_ADDR, 1);
        w.put_be32(NFTA_DUP_SREG_DEV + 1, 1);
        assert_eq!(Dup::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
