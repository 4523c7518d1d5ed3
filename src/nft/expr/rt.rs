//! `rt`: load routing information of the packet (next hop, realm, path MTU, IPsec).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// What an `rt` expression loads (`NFT_RT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RtKey {
    /// Routing realm (`classid`).
    Classid,
    /// IPv4 next hop (`ip nexthop`).
    Nexthop4,
    /// IPv6 next hop (`ip6 nexthop`).
    Nexthop6,
    /// TCP MSS derived from the path MTU (`mtu`).
    Tcpmss,
    /// Whether an IPsec transform applies (`ipsec`).
    Xfrm,
    /// Any other key (kept as it is).
    Other(u32),
}

impl RtKey {
    /// The `NFT_RT_*` value.
    pub fn raw(self) -> u32 {
        match self {
            RtKey::Classid => NFT_RT_CLASSID,
            RtKey::Nexthop4 => NFT_RT_NEXTHOP4,
            RtKey::Nexthop6 => NFT_RT_NEXTHOP6,
            RtKey::Tcpmss => NFT_RT_TCPMSS,
            RtKey::Xfrm => NFT_RT_XFRM,
            RtKey::Other(v) => v,
        }
    }

    /// The key of an `NFT_RT_*` value.
    pub fn from_raw(v: u32) -> RtKey {
        match v {
            NFT_RT_CLASSID => RtKey::Classid,
            NFT_RT_NEXTHOP4 => RtKey::Nexthop4,
            NFT_RT_NEXTHOP6 => RtKey::Nexthop6,
            NFT_RT_TCPMSS => RtKey::Tcpmss,
            NFT_RT_XFRM => RtKey::Xfrm,
            v => RtKey::Other(v),
        }
    }
}

impl fmt::Display for RtKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RtKey::Classid => f.write_str("classid"),
            RtKey::Nexthop4 => f.write_str("nexthop4"),
            RtKey::Nexthop6 => f.write_str("nexthop6"),
            RtKey::Tcpmss => f.write_str("tcpmss"),
            RtKey::Xfrm => f.write_str("ipsec"),
            RtKey::Other(v) => write!(f, "key {v}"),
        }
    }
}

/// An `rt` expression.
///
/// ```
/// use iptnl::nft::expr::Rt;
/// use iptnl::nft::expr::rt::RtKey;
/// let r = Rt { key: RtKey::Tcpmss, dreg: 1 };
/// assert_eq!(r.to_string(), "rt load tcpmss => reg 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rt {
    /// What is loaded.
    pub key: RtKey,
    /// Destination register.
    pub dreg: u32,
}

impl ExprKind for Rt {
    const NAME: &'static str = "rt";

    fn encode(&self, w: &mut MsgWriter) {
        // The kernel dumps the key before the register.
        w.put_be32(NFTA_RT_KEY, self.key.raw());
        w.put_be32(NFTA_RT_DREG, self.dreg);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_RT_KEY as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(key), Some(dreg)) = (t.get(NFTA_RT_KEY), t.get(NFTA_RT_DREG)) else {
            return Ok(None);
        };
        Ok(Some(Rt {
            key: RtKey::from_raw(key.be32()?),
            dreg: dreg.be32()?,
        }))
    }
}

impl fmt::Display for Rt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rt load {} => reg {}", self.key, self.dreg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let r = Rt {
            key: RtKey::Nexthop6,
            dreg: 1,
        };
        let mut w = MsgWriter::new();
        r.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[8, 0, 2, 0, 0, 0, 0, 2, 8, 0, 1, 0, 0, 0, 0, 1]
        );
        assert_eq!(Rt::decode(Attrs::new(w.as_bytes())).unwrap(), Some(r));
        assert_eq!(r.to_string(), "rt load nexthop6 => reg 1");
        assert_eq!(
            Rt {
                key: RtKey::Xfrm,
                dreg: 2
            }
            .to_string(),
            "rt load ipsec => reg 2"
        );
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_RT_KEY, 0);
        w.put_be32(NFTA_RT_DREG, 1);
        w.put_be32(NFTA_RT_KEY + 1, 1);
        assert_eq!(Rt::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
