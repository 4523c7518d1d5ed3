//! `tproxy`: divert a packet to a local socket without changing its destination (transparent
//! proxying).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};
use crate::nft::Family;

/// A `tproxy` expression.
///
/// ```
/// use iptnl::nft::expr::Tproxy;
/// use iptnl::nft::Family;
/// // tproxy ip to 127.0.0.1:1234
/// let t = Tproxy { family: Some(Family::Ipv4), reg_addr: Some(1), reg_port: Some(2) };
/// assert_eq!(t.to_string(), "tproxy ip addr reg 1 port reg 2");
/// // tproxy to :1234 in an inet table
/// let t = Tproxy { family: None, reg_addr: None, reg_port: Some(1) };
/// assert_eq!(t.to_string(), "tproxy port reg 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tproxy {
    /// Address family of the address register; `None` for `NFPROTO_UNSPEC` (port only, in an
    /// `inet` table).
    pub family: Option<Family>,
    /// Register holding the address.
    pub reg_addr: Option<u32>,
    /// Register holding the port.
    pub reg_port: Option<u32>,
}

impl ExprKind for Tproxy {
    const NAME: &'static str = "tproxy";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(
            NFTA_TPROXY_FAMILY,
            self.family.map_or(0, |f| u32::from(f.raw())),
        );
        if let Some(r) = self.reg_addr {
            w.put_be32(NFTA_TPROXY_REG_ADDR, r);
        }
        if let Some(r) = self.reg_port {
            w.put_be32(NFTA_TPROXY_REG_PORT, r);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_TPROXY_REG_PORT as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(fam) = t.get(NFTA_TPROXY_FAMILY) else {
            return Ok(None);
        };
        let family = match fam.be32()? {
            0 => None,
            v => match u8::try_from(v).ok().and_then(Family::from_raw) {
                Some(f) => Some(f),
                None => return Ok(None),
            },
        };
        Ok(Some(Tproxy {
            family,
            reg_addr: t.get(NFTA_TPROXY_REG_ADDR).map(|a| a.be32()).transpose()?,
            reg_port: t.get(NFTA_TPROXY_REG_PORT).map(|a| a.be32()).transpose()?,
        }))
    }
}

impl fmt::Display for Tproxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tproxy")?;
        if let Some(fam) = self.family {
            write!(f, " {fam}")?;
        }
        if let Some(r) = self.reg_addr {
            write!(f, " addr reg {r}")?;
        }
        if let Some(r) = self.reg_port {
            write!(f, " port reg {r}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        for t in [
            Tproxy {
                family: Some(Family::Ipv6),
                reg_addr: Some(1),
                reg_port: None,
            },
            Tproxy {
                family: None,
                reg_addr: None,
                reg_port: Some(1),
            },
        ] {
            let mut w = MsgWriter::new();
            t.encode(&mut w);
            assert_eq!(Tproxy::decode(Attrs::new(w.as_bytes())).unwrap(), Some(t));
        }
        let t = Tproxy {
            family: Some(Family::Ipv6),
            reg_addr: Some(1),
            reg_port: None,
        };
        assert_eq!(t.to_string(), "tproxy ip6 addr reg 1");
    }

    #[test]
    fn unknown_attribute_or_family_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_TPROXY_FAMILY, 2);
        w.put_be32(NFTA_TPROXY_REG_PORT + 1, 1);
        assert_eq!(Tproxy::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_TPROXY_FAMILY, 0x1_0002);
        assert_eq!(Tproxy::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        assert_eq!(Tproxy::decode(Attrs::new(&[])).unwrap(), None);
    }
}
