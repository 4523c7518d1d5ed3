//! `reject`: drop the packet and answer with an ICMP error or a TCP reset.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// How a packet is rejected (`NFT_REJECT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectType {
    /// ICMP (IPv4) or ICMPv6 unreachable with a family-specific code.
    IcmpUnreach,
    /// TCP reset.
    TcpRst,
    /// Family-independent ICMP unreachable (`icmpx`, `NFT_REJECT_ICMPX_*` codes).
    IcmpxUnreach,
    /// Any other type (kept as it is).
    Other(u32),
}

impl RejectType {
    /// The `NFT_REJECT_*` value.
    pub fn raw(self) -> u32 {
        match self {
            RejectType::IcmpUnreach => NFT_REJECT_ICMP_UNREACH,
            RejectType::TcpRst => NFT_REJECT_TCP_RST,
            RejectType::IcmpxUnreach => NFT_REJECT_ICMPX_UNREACH,
            RejectType::Other(v) => v,
        }
    }

    /// The type of an `NFT_REJECT_*` value.
    pub fn from_raw(v: u32) -> RejectType {
        match v {
            NFT_REJECT_ICMP_UNREACH => RejectType::IcmpUnreach,
            NFT_REJECT_TCP_RST => RejectType::TcpRst,
            NFT_REJECT_ICMPX_UNREACH => RejectType::IcmpxUnreach,
            v => RejectType::Other(v),
        }
    }
}

/// A `reject` expression.
///
/// The kernel dumps the ICMP code only for the two ICMP types.
///
/// ```
/// use iptnl::nft::expr::Reject;
/// use iptnl::nft::expr::reject::RejectType;
/// use iptnl::sys::nf_tables::NFT_REJECT_ICMPX_ADMIN_PROHIBITED;
/// // reject with icmpx admin-prohibited
/// let r = Reject {
///     reject_type: RejectType::IcmpxUnreach,
///     icmp_code: Some(NFT_REJECT_ICMPX_ADMIN_PROHIBITED as u8),
/// };
/// assert_eq!(r.to_string(), "reject type 2 code 3");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reject {
    /// ICMP error or TCP reset.
    pub reject_type: RejectType,
    /// The ICMP code (`NFTA_REJECT_ICMP_CODE`, one byte): an ICMP/ICMPv6 code for
    /// [`RejectType::IcmpUnreach`], an `NFT_REJECT_ICMPX_*` value for
    /// [`RejectType::IcmpxUnreach`].
    pub icmp_code: Option<u8>,
}

impl ExprKind for Reject {
    const NAME: &'static str = "reject";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_REJECT_TYPE, self.reject_type.raw());
        if let Some(c) = self.icmp_code {
            w.put_u8(NFTA_REJECT_ICMP_CODE, c);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_REJECT_ICMP_CODE as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(ty) = t.get(NFTA_REJECT_TYPE) else {
            return Ok(None);
        };
        Ok(Some(Reject {
            reject_type: RejectType::from_raw(ty.be32()?),
            icmp_code: t.get(NFTA_REJECT_ICMP_CODE).map(|a| a.u8()).transpose()?,
        }))
    }
}

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reject type {} code {}",
            self.reject_type.raw(),
            self.icmp_code.unwrap_or(0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        for r in [
            Reject {
                reject_type: RejectType::TcpRst,
                icmp_code: None,
            },
            Reject {
                reject_type: RejectType::IcmpUnreach,
                icmp_code: Some(3),
            },
            Reject {
                reject_type: RejectType::Other(9),
                icmp_code: Some(1),
            },
        ] {
            let mut w = MsgWriter::new();
            r.encode(&mut w);
            assert_eq!(Reject::decode(Attrs::new(w.as_bytes())).unwrap(), Some(r));
        }
        let r = Reject {
            reject_type: RejectType::TcpRst,
            icmp_code: None,
        };
        assert_eq!(r.to_string(), "reject type 1 code 0");
        let mut w = MsgWriter::new();
        r.encode(&mut w);
        assert_eq!(w.as_bytes(), &[8, 0, 1, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_REJECT_TYPE, 0);
        w.put_u8(NFTA_REJECT_ICMP_CODE, 3);
        w.put_be32(NFTA_REJECT_ICMP_CODE + 1, 0);
        assert_eq!(Reject::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        assert_eq!(Reject::decode(Attrs::new(&[])).unwrap(), None);
    }
}
