//! `meta`: load packet metadata (mark, interfaces, protocols, time…) into a register, or set
//! writable metadata (mark, priority, nftrace…) from one.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

macro_rules! meta_keys {
    ($($(#[$doc:meta])* $variant:ident = $value:literal, $name:literal;)*) => {
        /// A metadata key (`NFT_META_*`).
        ///
        /// The values are those of the kernel 6.18 UAPI header, written out here:
        /// `iptnl_sys::nf_tables` lacks `NFT_META_OIFTYPE` (9), so its constants from
        /// `NFT_META_SKUID` on are one too low, and it has no `NFT_META_BRI_BROUTE`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum MetaKey {
            $($(#[$doc])* $variant,)*
            /// Any other key (kept as it is).
            Other(u32),
        }

        impl MetaKey {
            /// The `NFT_META_*` value.
            pub fn raw(self) -> u32 {
                match self {
                    $(MetaKey::$variant => $value,)*
                    MetaKey::Other(v) => v,
                }
            }

            /// The key of an `NFT_META_*` value.
            pub fn from_raw(v: u32) -> MetaKey {
                match v {
                    $($value => MetaKey::$variant,)*
                    v => MetaKey::Other(v),
                }
            }

            /// The name `nft --debug=netlink` prints, `None` for [`MetaKey::Other`].
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $(MetaKey::$variant => Some($name),)*
                    MetaKey::Other(_) => None,
                }
            }
        }
    };
}

meta_keys! {
    /// Packet length (`skb->len`).
    Len = 0, "len";
    /// Ethertype (`skb->protocol`).
    Protocol = 1, "protocol";
    /// Packet priority (`skb->priority`).
    Priority = 2, "priority";
    /// Packet mark.
    Mark = 3, "mark";
    /// Input interface index.
    Iif = 4, "iif";
    /// Output interface index.
    Oif = 5, "oif";
    /// Input interface name (16 bytes, NUL padded).
    Iifname = 6, "iifname";
    /// Output interface name (16 bytes, NUL padded).
    Oifname = 7, "oifname";
    /// Input interface type (`NFT_META_IIFTYPE`).
    Iiftype = 8, "iiftype";
    /// Output interface type.
    Oiftype = 9, "oiftype";
    /// UID of the originating socket.
    Skuid = 10, "skuid";
    /// GID of the originating socket.
    Skgid = 11, "skgid";
    /// The nftrace bit.
    Nftrace = 12, "nftrace";
    /// Routing realm.
    Rtclassid = 13, "rtclassid";
    /// Security mark.
    Secmark = 14, "secmark";
    /// Netfilter family (`NFPROTO_*`).
    Nfproto = 15, "nfproto";
    /// Layer-4 protocol number.
    L4proto = 16, "l4proto";
    /// Bridge input port name.
    BriIifname = 17, "bri_iifname";
    /// Bridge output port name.
    BriOifname = 18, "bri_oifname";
    /// Packet type (unicast, broadcast…).
    Pkttype = 19, "pkttype";
    /// CPU number.
    Cpu = 20, "cpu";
    /// Input interface group.
    Iifgroup = 21, "iifgroup";
    /// Output interface group.
    Oifgroup = 22, "oifgroup";
    /// Socket cgroup (net_cls classid).
    Cgroup = 23, "cgroup";
    /// A pseudo-random number.
    Prandom = 24, "prandom";
    /// Whether the packet has an IPsec security path.
    Secpath = 25, "secpath";
    /// Input interface kind (`veth`, `vxlan`…).
    Iifkind = 26, "iifkind";
    /// Output interface kind.
    Oifkind = 27, "oifkind";
    /// Bridge input port PVID.
    BriIifpvid = 28, "bri_iifpvid";
    /// Bridge input port VLAN protocol.
    BriIifvproto = 29, "bri_iifvproto";
    /// Nanoseconds since the epoch.
    TimeNs = 30, "time";
    /// Day of week (0 is Sunday).
    TimeDay = 31, "day";
    /// Seconds since midnight.
    TimeHour = 32, "hour";
    /// Slave (VRF) device index.
    Sdif = 33, "sdif";
    /// Slave (VRF) device name.
    Sdifname = 34, "sdifname";
    /// The bridge `broute` bit (`NFT_META_BRI_BROUTE`, kernel 6.7+).
    BriBroute = 35, "broute";
}

impl fmt::Display for MetaKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown({})", self.raw()),
        }
    }
}

/// Direction of a `meta` expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MetaOp {
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

/// A `meta` expression.
///
/// ```
/// use iptnl::nft::expr::Meta;
/// use iptnl::nft::expr::meta::MetaKey;
/// assert_eq!(Meta::load(MetaKey::Mark, 1).to_string(), "meta load mark => reg 1");
/// assert_eq!(Meta::set(MetaKey::Mark, 1).to_string(), "meta set mark with reg 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Meta {
    /// The metadata item.
    pub key: MetaKey,
    /// Load or set.
    pub op: MetaOp,
}

impl Meta {
    /// Loads `key` into `dreg`.
    pub fn load(key: MetaKey, dreg: u32) -> Meta {
        Meta {
            key,
            op: MetaOp::Load { dreg },
        }
    }

    /// Loads `key` into register 1 ([`super::REG`]).
    ///
    /// ```
    /// use iptnl::nft::expr::Meta;
    /// use iptnl::nft::expr::meta::MetaKey;
    /// assert_eq!(Meta::load_reg1(MetaKey::Mark).to_string(), "meta load mark => reg 1");
    /// ```
    pub fn load_reg1(key: MetaKey) -> Meta {
        Meta::load(key, super::REG)
    }

    /// Sets `key` from `sreg`.
    pub fn set(key: MetaKey, sreg: u32) -> Meta {
        Meta {
            key,
            op: MetaOp::Set { sreg },
        }
    }
}

impl ExprKind for Meta {
    const NAME: &'static str = "meta";

    fn encode(&self, w: &mut MsgWriter) {
        // The kernel dumps the key first, then the register.
        w.put_be32(NFTA_META_KEY, self.key.raw());
        match self.op {
            MetaOp::Load { dreg } => w.put_be32(NFTA_META_DREG, dreg),
            MetaOp::Set { sreg } => w.put_be32(NFTA_META_SREG, sreg),
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_META_SREG as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(key) = t.get(NFTA_META_KEY).and_then(|a| a.be32().ok()) else {
            return Ok(None);
        };
        let op = match (t.get(NFTA_META_DREG), t.get(NFTA_META_SREG)) {
            (Some(d), None) => match d.be32() {
                Ok(dreg) => MetaOp::Load { dreg },
                Err(_) => return Ok(None),
            },
            (None, Some(s)) => match s.be32() {
                Ok(sreg) => MetaOp::Set { sreg },
                Err(_) => return Ok(None),
            },
            _ => return Ok(None),
        };
        Ok(Some(Meta {
            key: MetaKey::from_raw(key),
            op,
        }))
    }
}

impl fmt::Display for Meta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            MetaOp::Load { dreg } => write!(f, "meta load {} => reg {}", self.key, dreg),
            MetaOp::Set { sreg } => write!(f, "meta set {} with reg {}", self.key, sreg),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_the_kernel_header() {
        assert_eq!(MetaKey::Mark.raw(), NFT_META_MARK);
        assert_eq!(MetaKey::Iiftype.raw(), NFT_META_IIFTYPE);
        assert_eq!(MetaKey::L4proto.raw(), 16);
        assert_eq!(MetaKey::Sdifname.raw(), 34);
        for v in 0..40 {
            assert_eq!(MetaKey::from_raw(v).raw(), v);
        }
        assert_eq!(MetaKey::from_raw(36), MetaKey::Other(36));
    }

    #[test]
    fn display_matches_nft_debug() {
        assert_eq!(
            Meta::load(MetaKey::L4proto, 1).to_string(),
            "meta load l4proto => reg 1"
        );
        assert_eq!(
            Meta::set(MetaKey::Priority, 2).to_string(),
            "meta set priority with reg 2"
        );
        assert_eq!(
            Meta::load(MetaKey::Other(99), 9).to_string(),
            "meta load unknown(99) => reg 9"
        );
    }

    #[test]
    fn both_directions_round_trip() {
        for m in [
            Meta::load(MetaKey::TimeNs, 1),
            Meta::set(MetaKey::Nftrace, 3),
            Meta::load(MetaKey::Other(1000), 8),
        ] {
            let mut w = MsgWriter::new();
            m.encode(&mut w);
            assert_eq!(Meta::decode(Attrs::new(w.as_bytes())).unwrap(), Some(m));
        }
    }

    #[test]
    fn unknown_attribute_or_both_registers_is_not_decoded() {
        let mut w = MsgWriter::new();
        Meta::load(MetaKey::Mark, 1).encode(&mut w);
        w.put_be32(NFTA_META_SREG + 1, 0);
        assert_eq!(Meta::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        Meta::load(MetaKey::Mark, 1).encode(&mut w);
        w.put_be32(NFTA_META_SREG, 1);
        assert_eq!(Meta::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        w.put_be32(NFTA_META_DREG, 1);
        assert_eq!(Meta::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
