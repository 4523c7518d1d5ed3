//! `ct`: load conntrack information (state, mark, addresses, counters…) into a register, or
//! set writable conntrack fields (mark, labels, zone, event mask…) from one.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

macro_rules! ct_keys {
    ($($(#[$doc:meta])* $variant:ident = $value:ident, $name:literal;)*) => {
        /// A conntrack key (`NFT_CT_*`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum CtKey {
            $($(#[$doc])* $variant,)*
            /// Any other key (kept as it is).
            Other(u32),
        }

        impl CtKey {
            /// The `NFT_CT_*` value.
            pub fn raw(self) -> u32 {
                match self {
                    $(CtKey::$variant => $value,)*
                    CtKey::Other(v) => v,
                }
            }

            /// The key of an `NFT_CT_*` value.
            pub fn from_raw(v: u32) -> CtKey {
                match v {
                    $($value => CtKey::$variant,)*
                    v => CtKey::Other(v),
                }
            }

            /// The name `nft --debug=netlink` prints (`id` where libnftnl prints
            /// `unknown`), `None` for [`CtKey::Other`].
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $(CtKey::$variant => Some($name),)*
                    CtKey::Other(_) => None,
                }
            }
        }
    };
}

ct_keys! {
    /// Connection state bits (new, established, related, invalid, untracked).
    State = NFT_CT_STATE, "state";
    /// Direction of the packet (original or reply).
    Direction = NFT_CT_DIRECTION, "direction";
    /// Status bits (`IPS_*`: seen reply, assured, dnat…).
    Status = NFT_CT_STATUS, "status";
    /// Connection mark.
    Mark = NFT_CT_MARK, "mark";
    /// Security mark.
    Secmark = NFT_CT_SECMARK, "secmark";
    /// Milliseconds before the entry expires.
    Expiration = NFT_CT_EXPIRATION, "expiration";
    /// Name of the attached helper.
    Helper = NFT_CT_HELPER, "helper";
    /// Layer-3 protocol (`NFPROTO_*`).
    L3protocol = NFT_CT_L3PROTOCOL, "l3protocol";
    /// Source address (4 or 16 bytes; deprecated for `SrcIp`/`SrcIp6`).
    Src = NFT_CT_SRC, "src";
    /// Destination address (deprecated for `DstIp`/`DstIp6`).
    Dst = NFT_CT_DST, "dst";
    /// Layer-4 protocol number.
    Protocol = NFT_CT_PROTOCOL, "protocol";
    /// Layer-4 source port.
    ProtoSrc = NFT_CT_PROTO_SRC, "proto_src";
    /// Layer-4 destination port.
    ProtoDst = NFT_CT_PROTO_DST, "proto_dst";
    /// Connection labels (128 bits).
    Labels = NFT_CT_LABELS, "label";
    /// Packet count.
    Pkts = NFT_CT_PKTS, "packets";
    /// Byte count.
    Bytes = NFT_CT_BYTES, "bytes";
    /// Average bytes per packet.
    Avgpkt = NFT_CT_AVGPKT, "avgpkt";
    /// Conntrack zone.
    Zone = NFT_CT_ZONE, "zone";
    /// Mask of ctnetlink events generated for the connection.
    Eventmask = NFT_CT_EVENTMASK, "event";
    /// IPv4 source address.
    SrcIp = NFT_CT_SRC_IP, "src_ip";
    /// IPv4 destination address.
    DstIp = NFT_CT_DST_IP, "dst_ip";
    /// IPv6 source address.
    SrcIp6 = NFT_CT_SRC_IP6, "src_ip6";
    /// IPv6 destination address.
    DstIp6 = NFT_CT_DST_IP6, "dst_ip6";
    /// Connection id.
    Id = NFT_CT_ID, "id";
}

impl fmt::Display for CtKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown({})", self.raw()),
        }
    }
}

/// A conntrack direction (`IP_CT_DIR_*`), the one-byte `NFTA_CT_DIRECTION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CtDirection {
    /// The original direction (0).
    Original,
    /// The reply direction (1).
    Reply,
    /// Any other value (kept as it is).
    Other(u8),
}

impl CtDirection {
    /// The `IP_CT_DIR_*` value.
    pub fn raw(self) -> u8 {
        match self {
            CtDirection::Original => 0,
            CtDirection::Reply => 1,
            CtDirection::Other(v) => v,
        }
    }

    /// The direction of an `IP_CT_DIR_*` value.
    pub fn from_raw(v: u8) -> CtDirection {
        match v {
            0 => CtDirection::Original,
            1 => CtDirection::Reply,
            v => CtDirection::Other(v),
        }
    }
}

impl fmt::Display for CtDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CtDirection::Original => f.write_str("original"),
            CtDirection::Reply => f.write_str("reply"),
            CtDirection::Other(v) => write!(f, "unknown({v})"),
        }
    }
}

/// Direction of a `ct` expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CtOp {
    /// Load the key into register `dreg`.
    Load {
        /// Destination register.
        dreg: u32,
    },
    /// Set the key from register `sreg`.
    Set {
        /// Source register.
        sreg: u32,
    },
}

/// A `ct` expression. `direction` is dumped by the kernel for the per-direction keys
/// (addresses and ports always; packets, bytes, avgpkt and zone only when one was given).
///
/// ```
/// use iptnl::nft::expr::Ct;
/// use iptnl::nft::expr::ct::{CtDirection, CtKey};
/// assert_eq!(Ct::load(CtKey::State, 1).to_string(), "ct load state => reg 1");
/// assert_eq!(Ct::set(CtKey::Mark, 1).to_string(), "ct set mark with reg 1");
/// let src = Ct { direction: Some(CtDirection::Original), ..Ct::load(CtKey::SrcIp, 1) };
/// assert_eq!(src.to_string(), "ct load src_ip => reg 1 , dir original");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ct {
    /// The conntrack item.
    pub key: CtKey,
    /// Direction, when the key has one.
    pub direction: Option<CtDirection>,
    /// Load or set.
    pub op: CtOp,
}

impl Ct {
    /// Loads `key` (without direction) into `dreg`.
    pub fn load(key: CtKey, dreg: u32) -> Ct {
        Ct {
            key,
            direction: None,
            op: CtOp::Load { dreg },
        }
    }

    /// Sets `key` (without direction) from `sreg`.
    pub fn set(key: CtKey, sreg: u32) -> Ct {
        Ct {
            key,
            direction: None,
            op: CtOp::Set { sreg },
        }
    }
}

impl ExprKind for Ct {
    const NAME: &'static str = "ct";

    fn encode(&self, w: &mut MsgWriter) {
        // The kernel dumps the register first, then the key and the direction.
        match self.op {
            CtOp::Load { dreg } => w.put_be32(NFTA_CT_DREG, dreg),
            CtOp::Set { sreg } => w.put_be32(NFTA_CT_SREG, sreg),
        }
        w.put_be32(NFTA_CT_KEY, self.key.raw());
        if let Some(d) = self.direction {
            w.put_u8(NFTA_CT_DIRECTION, d.raw());
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_CT_SREG as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(key) = t.get(NFTA_CT_KEY).and_then(|a| a.be32().ok()) else {
            return Ok(None);
        };
        let Ok(direction) = t.get(NFTA_CT_DIRECTION).map(|a| a.u8()).transpose() else {
            return Ok(None);
        };
        let op = match (t.get(NFTA_CT_DREG), t.get(NFTA_CT_SREG)) {
            (Some(d), None) => match d.be32() {
                Ok(dreg) => CtOp::Load { dreg },
                Err(_) => return Ok(None),
            },
            (None, Some(s)) => match s.be32() {
                Ok(sreg) => CtOp::Set { sreg },
                Err(_) => return Ok(None),
            },
            _ => return Ok(None),
        };
        Ok(Some(Ct {
            key: CtKey::from_raw(key),
            direction: direction.map(CtDirection::from_raw),
            op,
        }))
    }
}

impl fmt::Display for Ct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            CtOp::Load { dreg } => write!(f, "ct load {} => reg {}", self.key, dreg)?,
            CtOp::Set { sreg } => write!(f, "ct set {} with reg {}", self.key, sreg)?,
        }
        if let Some(d) = self.direction {
            write!(f, " , dir {d}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_nft_debug() {
        let c = Ct {
            direction: Some(CtDirection::Reply),
            ..Ct::load(CtKey::DstIp, 1)
        };
        assert_eq!(c.to_string(), "ct load dst_ip => reg 1 , dir reply");
        assert_eq!(
            Ct::set(CtKey::Labels, 1).to_string(),
            "ct set label with reg 1"
        );
        assert_eq!(
            Ct::load(CtKey::Other(77), 2).to_string(),
            "ct load unknown(77) => reg 2"
        );
    }

    #[test]
    fn every_form_round_trips() {
        for c in [
            Ct::load(CtKey::State, 1),
            Ct::set(CtKey::Zone, 8),
            Ct {
                direction: Some(CtDirection::Other(5)),
                ..Ct::set(CtKey::Zone, 8)
            },
            Ct {
                direction: Some(CtDirection::Original),
                ..Ct::load(CtKey::Other(200), 1)
            },
        ] {
            let mut w = MsgWriter::new();
            c.encode(&mut w);
            assert_eq!(Ct::decode(Attrs::new(w.as_bytes())).unwrap(), Some(c));
        }
        for v in 0..30 {
            assert_eq!(CtKey::from_raw(v).raw(), v);
        }
    }

    #[test]
    fn unknown_attribute_or_bad_direction_is_not_decoded() {
        let mut w = MsgWriter::new();
        Ct::load(CtKey::Mark, 1).encode(&mut w);
        w.put_be32(NFTA_CT_SREG + 1, 0);
        assert_eq!(Ct::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        Ct::load(CtKey::Mark, 1).encode(&mut w);
        w.put_be32(NFTA_CT_DIRECTION, 0);
        assert_eq!(Ct::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
