//! `fwd`: forward the packet out of another device, optionally to a neighbour address
//! (netdev family only).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};
use crate::nft::Family;

/// A `fwd` expression.
///
/// ```
/// use iptnl::nft::expr::Fwd;
/// use iptnl::nft::Family;
/// // fwd to "lo": interface index in register 1
/// let f = Fwd { sreg_dev: 1, sreg_addr: None, nfproto: None };
/// assert_eq!(f.to_string(), "fwd sreg_dev 1");
/// // fwd ip to 10.0.0.1 device "lo"
/// let f = Fwd { sreg_dev: 1, sreg_addr: Some(2), nfproto: Some(Family::Ipv4) };
/// assert_eq!(f.to_string(), "fwd sreg_dev 1 sreg_addr 2 nfproto 2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fwd {
    /// Register holding the output interface index.
    pub sreg_dev: u32,
    /// Register holding the neighbour address.
    pub sreg_addr: Option<u32>,
    /// Family of that address (`NFTA_FWD_NFPROTO`, `ip` or `ip6`).
    pub nfproto: Option<Family>,
}

impl ExprKind for Fwd {
    const NAME: &'static str = "fwd";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_FWD_SREG_DEV, self.sreg_dev);
        if let Some(r) = self.sreg_addr {
            w.put_be32(NFTA_FWD_SREG_ADDR, r);
        }
        if let Some(p) = self.nfproto {
            w.put_be32(NFTA_FWD_NFPROTO, u32::from(p.raw()));
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_FWD_NFPROTO as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(dev) = t.get(NFTA_FWD_SREG_DEV) else {
            return Ok(None);
        };
        let nfproto = match t.get(NFTA_FWD_NFPROTO) {
            None => None,
            Some(a) => match u8::try_from(a.be32()?).ok().and_then(Family::from_raw) {
                Some(f) => Some(f),
                None => return Ok(None),
            },
        };
        Ok(Some(Fwd {
            sreg_dev: dev.be32()?,
            sreg_addr: t.get(NFTA_FWD_SREG_ADDR).map(|a| a.be32()).transpose()?,
            nfproto,
        }))
    }
}

impl fmt::Display for Fwd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fwd sreg_dev {}", self.sreg_dev)?;
        if let Some(r) = self.sreg_addr {
            write!(f, " sreg_addr {r}")?;
        }
        if let Some(p) = self.nfproto {
            write!(f, " nfproto {}", p.raw())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let x = Fwd {
            sreg_dev: 1,
            sreg_addr: Some(2),
            nfproto: Some(Family::Ipv6),
        };
        let mut w = MsgWriter::new();
        x.encode(&mut w);
        assert_eq!(Fwd::decode(Attrs::new(w.as_bytes())).unwrap(), Some(x));
        assert_eq!(x.to_string(), "fwd sreg_dev 1 sreg_addr 2 nfproto 10");
    }

    #[test]
    fn unknown_attribute_or_family_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_FWD_SREG_DEV, 1);
        w.put_be32(NFTA_FWD_NFPROTO + 1, 1);
        assert_eq!(Fwd::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_FWD_SREG_DEV, 1);
        w.put_be32(NFTA_FWD_NFPROTO, 77);
        assert_eq!(Fwd::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        assert_eq!(Fwd::decode(Attrs::new(&[])).unwrap(), None);
    }
}
