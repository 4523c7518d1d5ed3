//! `exthdr`: load (or test the presence of) an IPv6 extension header, a TCP/IPv4 option, an
//! SCTP chunk or a DCCP option; write a TCP option; or strip a TCP option.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// Which header or option space `type` and `offset` refer to (`NFT_EXTHDR_OP_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExthdrOp {
    /// IPv6 extension headers (`type` is the next-header number).
    Ipv6,
    /// TCP options (`type` is the option kind).
    TcpOpt,
    /// IPv4 options.
    Ipv4,
    /// SCTP chunks.
    Sctp,
    /// DCCP options.
    Dccp,
    /// Any other space (kept as it is).
    Other(u32),
}

impl ExthdrOp {
    /// The `NFT_EXTHDR_OP_*` value.
    pub fn raw(self) -> u32 {
        match self {
            ExthdrOp::Ipv6 => NFT_EXTHDR_OP_IPV6,
            ExthdrOp::TcpOpt => NFT_EXTHDR_OP_TCPOPT,
            ExthdrOp::Ipv4 => NFT_EXTHDR_OP_IPV4,
            ExthdrOp::Sctp => NFT_EXTHDR_OP_SCTP,
            ExthdrOp::Dccp => NFT_EXTHDR_OP_DCCP,
            ExthdrOp::Other(v) => v,
        }
    }

    /// The space of an `NFT_EXTHDR_OP_*` value.
    pub fn from_raw(v: u32) -> ExthdrOp {
        match v {
            NFT_EXTHDR_OP_IPV6 => ExthdrOp::Ipv6,
            NFT_EXTHDR_OP_TCPOPT => ExthdrOp::TcpOpt,
            NFT_EXTHDR_OP_IPV4 => ExthdrOp::Ipv4,
            NFT_EXTHDR_OP_SCTP => ExthdrOp::Sctp,
            NFT_EXTHDR_OP_DCCP => ExthdrOp::Dccp,
            v => ExthdrOp::Other(v),
        }
    }

    /// What `nft --debug=netlink` prints after `load`/`write` (libnftnl prints nothing for
    /// SCTP and DCCP; iptnl names them).
    fn tag(self) -> String {
        match self {
            ExthdrOp::Ipv6 => " ipv6".into(),
            ExthdrOp::TcpOpt => " tcpopt".into(),
            ExthdrOp::Ipv4 => " ipv4".into(),
            ExthdrOp::Sctp => " sctp".into(),
            ExthdrOp::Dccp => " dccp".into(),
            ExthdrOp::Other(v) => format!(" op {v}"),
        }
    }
}

/// What an `exthdr` expression does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExthdrAction {
    /// Load `len` bytes (or a presence boolean with `NFT_EXTHDR_F_PRESENT`) into `dreg`.
    Load {
        /// Destination register.
        dreg: u32,
    },
    /// Write `len` bytes from `sreg` into the option (TCP options only).
    Set {
        /// Source register.
        sreg: u32,
    },
    /// Remove the option (neither register; TCP options only, `reset tcp option …`).
    Strip,
}

/// An `exthdr` expression.
///
/// The kernel dumps `offset`, `len` and `flags` for every action, but refuses `flags` when
/// writing a TCP option and all three when stripping one: [`Exthdr::input_form`] drops them,
/// so that a dumped expression can be written back.
///
/// ```
/// use iptnl::nft::expr::Exthdr;
/// use iptnl::nft::expr::exthdr::{ExthdrAction, ExthdrOp};
/// // tcp option maxseg size 1360: load 2 bytes at offset 2 of TCP option 2
/// let e = Exthdr {
///     op: ExthdrOp::TcpOpt, ty: 2, offset: Some(2), len: Some(2), flags: Some(0),
///     action: ExthdrAction::Load { dreg: 1 },
/// };
/// assert_eq!(e.to_string(), "exthdr load tcpopt 2b @ 2 + 2 => reg 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Exthdr {
    /// Header or option space.
    pub op: ExthdrOp,
    /// Header number, option kind or chunk type.
    pub ty: u8,
    /// Byte offset inside it (always dumped; not accepted for a strip).
    pub offset: Option<u32>,
    /// Number of bytes (always dumped; not accepted for a strip).
    pub len: Option<u32>,
    /// `NFT_EXTHDR_F_*` flags (`NFT_EXTHDR_F_PRESENT`: load whether it exists). Always
    /// dumped; accepted for a load only.
    pub flags: Option<u32>,
    /// Load, write or strip.
    pub action: ExthdrAction,
}

impl Exthdr {
    /// The form the kernel accepts on input: without `flags` for a write, without `offset`,
    /// `len` and `flags` for a strip (it dumps them, as zeroes, but refuses them). A load is
    /// returned unchanged.
    pub fn input_form(&self) -> Exthdr {
        match self.action {
            ExthdrAction::Load { .. } => *self,
            ExthdrAction::Set { .. } => Exthdr {
                flags: None,
                ..*self
            },
            ExthdrAction::Strip => Exthdr {
                offset: None,
                len: None,
                flags: None,
                ..*self
            },
        }
    }
}

impl ExprKind for Exthdr {
    const NAME: &'static str = "exthdr";

    fn encode(&self, w: &mut MsgWriter) {
        match self.action {
            ExthdrAction::Load { dreg } => w.put_be32(NFTA_EXTHDR_DREG, dreg),
            ExthdrAction::Set { sreg } => w.put_be32(NFTA_EXTHDR_SREG, sreg),
            ExthdrAction::Strip => {}
        }
        w.put_u8(NFTA_EXTHDR_TYPE, self.ty);
        for (ty, v) in [
            (NFTA_EXTHDR_OFFSET, self.offset),
            (NFTA_EXTHDR_LEN, self.len),
            (NFTA_EXTHDR_FLAGS, self.flags),
        ] {
            if let Some(v) = v {
                w.put_be32(ty, v);
            }
        }
        w.put_be32(NFTA_EXTHDR_OP, self.op.raw());
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_EXTHDR_SREG as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(ty), Some(op)) = (
            t.get(NFTA_EXTHDR_TYPE).and_then(|a| a.u8().ok()),
            t.get(NFTA_EXTHDR_OP).and_then(|a| a.be32().ok()),
        ) else {
            return Ok(None);
        };
        let opt = |ty| t.get(ty).map(|a| a.be32()).transpose();
        let (Ok(offset), Ok(len), Ok(flags)) = (
            opt(NFTA_EXTHDR_OFFSET),
            opt(NFTA_EXTHDR_LEN),
            opt(NFTA_EXTHDR_FLAGS),
        ) else {
            return Ok(None);
        };
        let action = match (t.get(NFTA_EXTHDR_DREG), t.get(NFTA_EXTHDR_SREG)) {
            (Some(d), None) => match d.be32() {
                Ok(dreg) => ExthdrAction::Load { dreg },
                Err(_) => return Ok(None),
            },
            (None, Some(s)) => match s.be32() {
                Ok(sreg) => ExthdrAction::Set { sreg },
                Err(_) => return Ok(None),
            },
            (None, None) => ExthdrAction::Strip,
            (Some(_), Some(_)) => return Ok(None),
        };
        Ok(Some(Exthdr {
            op: ExthdrOp::from_raw(op),
            ty,
            offset,
            len,
            flags,
            action,
        }))
    }
}

impl fmt::Display for Exthdr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = self.op.tag();
        let (len, offset) = (self.len.unwrap_or(0), self.offset.unwrap_or(0));
        match self.action {
            ExthdrAction::Load { dreg } => write!(
                f,
                "exthdr load{} {}b @ {} + {}{} => reg {}",
                tag,
                len,
                self.ty,
                offset,
                if self.flags.unwrap_or(0) & NFT_EXTHDR_F_PRESENT != 0 {
                    " present"
                } else {
                    ""
                },
                dreg
            ),
            ExthdrAction::Set { sreg } => write!(
                f,
                "exthdr write{} reg {} => {}b @ {} + {}",
                tag, sreg, len, self.ty, offset
            ),
            ExthdrAction::Strip => write!(f, "exthdr reset{} {}", tag, self.ty),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(op: ExthdrOp, action: ExthdrAction, flags: u32) -> Exthdr {
        Exthdr {
            op,
            ty: 44,
            offset: Some(3),
            len: Some(1),
            flags: Some(flags),
            action,
        }
    }

    #[test]
    fn display_matches_nft_debug() {
        let load = ExthdrAction::Load { dreg: 1 };
        assert_eq!(
            e(ExthdrOp::Ipv6, load, NFT_EXTHDR_F_PRESENT).to_string(),
            "exthdr load ipv6 1b @ 44 + 3 present => reg 1"
        );
        assert_eq!(
            e(ExthdrOp::TcpOpt, ExthdrAction::Set { sreg: 1 }, 0).to_string(),
            "exthdr write tcpopt reg 1 => 1b @ 44 + 3"
        );
        assert_eq!(
            e(ExthdrOp::TcpOpt, ExthdrAction::Strip, 0).to_string(),
            "exthdr reset tcpopt 44"
        );
        assert_eq!(
            e(ExthdrOp::Other(9), load, 0).to_string(),
            "exthdr load op 9 1b @ 44 + 3 => reg 1"
        );
    }

    #[test]
    fn every_form_round_trips() {
        for op in [
            ExthdrOp::Ipv6,
            ExthdrOp::TcpOpt,
            ExthdrOp::Ipv4,
            ExthdrOp::Sctp,
            ExthdrOp::Dccp,
            ExthdrOp::Other(42),
        ] {
            for action in [
                ExthdrAction::Load { dreg: 8 },
                ExthdrAction::Set { sreg: 2 },
                ExthdrAction::Strip,
            ] {
                for x in [e(op, action, 0x80), e(op, action, 0).input_form()] {
                    let mut w = MsgWriter::new();
                    x.encode(&mut w);
                    assert_eq!(Exthdr::decode(Attrs::new(w.as_bytes())).unwrap(), Some(x));
                }
            }
        }
    }

    #[test]
    fn input_form_drops_what_the_kernel_refuses() {
        let set = e(ExthdrOp::TcpOpt, ExthdrAction::Set { sreg: 1 }, 0).input_form();
        assert_eq!((set.offset, set.len, set.flags), (Some(3), Some(1), None));
        let strip = e(ExthdrOp::TcpOpt, ExthdrAction::Strip, 0).input_form();
        assert_eq!((strip.offset, strip.len, strip.flags), (None, None, None));
        let mut w = MsgWriter::new();
        strip.encode(&mut w);
        let kinds: Vec<u16> = Attrs::new(w.as_bytes())
            .map(|a| a.unwrap().kind())
            .collect();
        assert_eq!(kinds, [NFTA_EXTHDR_TYPE, NFTA_EXTHDR_OP]);
        let load = e(ExthdrOp::Ipv6, ExthdrAction::Load { dreg: 1 }, 1);
        assert_eq!(load.input_form(), load);
    }

    #[test]
    fn unknown_attribute_or_both_registers_is_not_decoded() {
        let mut w = MsgWriter::new();
        e(ExthdrOp::Ipv4, ExthdrAction::Strip, 0).encode(&mut w);
        w.put_be32(NFTA_EXTHDR_SREG + 1, 0);
        assert_eq!(Exthdr::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        e(ExthdrOp::Ipv4, ExthdrAction::Load { dreg: 1 }, 0).encode(&mut w);
        w.put_be32(NFTA_EXTHDR_SREG, 1);
        assert_eq!(Exthdr::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
