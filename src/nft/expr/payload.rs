//! `payload`: load bytes of a packet header into a register, or write a register into the
//! packet (with checksum update).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// Which header a payload offset counts from (`NFT_PAYLOAD_*_HEADER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadBase {
    /// Link-layer header.
    LinkLayer,
    /// Network header (IPv4/IPv6).
    Network,
    /// Transport header (TCP/UDP/…).
    Transport,
    /// Inner header (tunnels).
    Inner,
    /// Any other base (kept as it is).
    Other(u32),
}

impl PayloadBase {
    /// The `NFT_PAYLOAD_*` value.
    pub fn raw(self) -> u32 {
        match self {
            PayloadBase::LinkLayer => NFT_PAYLOAD_LL_HEADER,
            PayloadBase::Network => NFT_PAYLOAD_NETWORK_HEADER,
            PayloadBase::Transport => NFT_PAYLOAD_TRANSPORT_HEADER,
            PayloadBase::Inner => NFT_PAYLOAD_INNER_HEADER,
            PayloadBase::Other(v) => v,
        }
    }

    /// The base of an `NFT_PAYLOAD_*` value.
    pub fn from_raw(v: u32) -> PayloadBase {
        match v {
            NFT_PAYLOAD_LL_HEADER => PayloadBase::LinkLayer,
            NFT_PAYLOAD_NETWORK_HEADER => PayloadBase::Network,
            NFT_PAYLOAD_TRANSPORT_HEADER => PayloadBase::Transport,
            NFT_PAYLOAD_INNER_HEADER => PayloadBase::Inner,
            v => PayloadBase::Other(v),
        }
    }

    fn name(self) -> String {
        match self {
            PayloadBase::LinkLayer => "link".into(),
            PayloadBase::Network => "network".into(),
            PayloadBase::Transport => "transport".into(),
            PayloadBase::Inner => "inner".into(),
            PayloadBase::Other(v) => format!("base {v}"),
        }
    }
}

/// Checksum fix-up of a payload write (`NFTA_PAYLOAD_CSUM_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PayloadCsum {
    /// `NFT_PAYLOAD_CSUM_*` type.
    pub csum_type: u32,
    /// Offset of the checksum field.
    pub offset: u32,
    /// `NFT_PAYLOAD_L4CSUM_*` flags.
    pub flags: u32,
}

/// A payload expression.
///
/// ```
/// use iptnl::nft::expr::{Payload, PayloadBase};
/// // IPv4 source address into register 1, as iptables-nft emits for `-s`.
/// let p = Payload::load(PayloadBase::Network, 12, 4, 1);
/// assert_eq!(p.to_string(), "payload load 4b @ network header + 12 => reg 1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Payload {
    /// The header the offset counts from.
    pub base: PayloadBase,
    /// Byte offset within that header.
    pub offset: u32,
    /// Number of bytes.
    pub len: u32,
    /// Load into a register, or write from one.
    pub op: PayloadOp,
}

/// Direction of a payload expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadOp {
    /// Load packet bytes into register `dreg`.
    Load {
        /// Destination register.
        dreg: u32,
    },
    /// Write register `sreg` into the packet; `csum` when checksum attributes are present.
    Set {
        /// Source register.
        sreg: u32,
        /// Checksum fix-up.
        csum: Option<PayloadCsum>,
    },
}

impl Payload {
    /// A load of `len` bytes at `offset` of `base` into `dreg`.
    pub fn load(base: PayloadBase, offset: u32, len: u32, dreg: u32) -> Payload {
        Payload {
            base,
            offset,
            len,
            op: PayloadOp::Load { dreg },
        }
    }

    /// A load of `len` bytes at `offset` of `base` into register 1 ([`super::REG`]).
    ///
    /// ```
    /// use iptnl::nft::expr::{Payload, PayloadBase};
    /// // The TCP destination port, as iptables-nft loads it for `--dport`.
    /// let p = Payload::load_reg1(PayloadBase::Transport, 2, 2);
    /// assert_eq!(p, Payload::load(PayloadBase::Transport, 2, 2, 1));
    /// ```
    pub fn load_reg1(base: PayloadBase, offset: u32, len: u32) -> Payload {
        Payload::load(base, offset, len, super::REG)
    }
}

impl ExprKind for Payload {
    const NAME: &'static str = "payload";

    fn encode(&self, w: &mut MsgWriter) {
        match self.op {
            PayloadOp::Load { dreg } => {
                w.put_be32(NFTA_PAYLOAD_DREG, dreg);
                w.put_be32(NFTA_PAYLOAD_BASE, self.base.raw());
                w.put_be32(NFTA_PAYLOAD_OFFSET, self.offset);
                w.put_be32(NFTA_PAYLOAD_LEN, self.len);
            }
            PayloadOp::Set { sreg, csum } => {
                w.put_be32(NFTA_PAYLOAD_SREG, sreg);
                w.put_be32(NFTA_PAYLOAD_BASE, self.base.raw());
                w.put_be32(NFTA_PAYLOAD_OFFSET, self.offset);
                w.put_be32(NFTA_PAYLOAD_LEN, self.len);
                if let Some(c) = csum {
                    w.put_be32(NFTA_PAYLOAD_CSUM_TYPE, c.csum_type);
                    w.put_be32(NFTA_PAYLOAD_CSUM_OFFSET, c.offset);
                    w.put_be32(NFTA_PAYLOAD_CSUM_FLAGS, c.flags);
                }
            }
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_PAYLOAD_CSUM_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let base = PayloadBase::from_raw(t.need(NFTA_PAYLOAD_BASE, "payload base")?.be32()?);
        let offset = t.need(NFTA_PAYLOAD_OFFSET, "payload offset")?.be32()?;
        let len = t.need(NFTA_PAYLOAD_LEN, "payload length")?.be32()?;
        let op = match (t.get(NFTA_PAYLOAD_DREG), t.get(NFTA_PAYLOAD_SREG)) {
            (Some(d), None) => {
                if t.get(NFTA_PAYLOAD_CSUM_TYPE).is_some() {
                    return Ok(None);
                }
                PayloadOp::Load { dreg: d.be32()? }
            }
            (None, Some(s)) => {
                let ty = t.get(NFTA_PAYLOAD_CSUM_TYPE);
                let off = t.get(NFTA_PAYLOAD_CSUM_OFFSET);
                let fl = t.get(NFTA_PAYLOAD_CSUM_FLAGS);
                let csum = match (ty, off, fl) {
                    (None, None, None) => None,
                    (Some(ty), Some(off), Some(fl)) => Some(PayloadCsum {
                        csum_type: ty.be32()?,
                        offset: off.be32()?,
                        flags: fl.be32()?,
                    }),
                    _ => return Ok(None),
                };
                PayloadOp::Set {
                    sreg: s.be32()?,
                    csum,
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(Payload {
            base,
            offset,
            len,
            op,
        }))
    }
}

impl fmt::Display for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            PayloadOp::Load { dreg } => write!(
                f,
                "payload load {}b @ {} header + {} => reg {}",
                self.len,
                self.base.name(),
                self.offset,
                dreg
            ),
            PayloadOp::Set { sreg, csum } => {
                write!(
                    f,
                    "payload write reg {} => {}b @ {} header + {}",
                    sreg,
                    self.len,
                    self.base.name(),
                    self.offset
                )?;
                if let Some(c) = csum {
                    write!(
                        f,
                        " csum_type {} csum_off {} csum_flags 0x{:x}",
                        c.csum_type, c.offset, c.flags
                    )?;
                }
                Ok(())
            }
        }
    }
}
