//! `nat`: source or destination NAT to addresses and ports held in registers (`snat to`,
//! `dnat to`). The `NF_NAT_RANGE_*` flags are shared with [`Masq`](super::Masq) and
//! [`Redir`](super::Redir).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{AttrTable, Attrs, DecodeError, MsgWriter};
use crate::nft::Family;

// From include/uapi/linux/netfilter/nf_nat.h (not in iptnl_sys yet).
/// `NF_NAT_RANGE_MAP_IPS`: addresses are given (the kernel sets it itself when an address
/// register is).
pub const NF_NAT_RANGE_MAP_IPS: u32 = 1 << 0;
/// `NF_NAT_RANGE_PROTO_SPECIFIED`: ports are given (the kernel sets it itself when a port
/// register is).
pub const NF_NAT_RANGE_PROTO_SPECIFIED: u32 = 1 << 1;
/// `NF_NAT_RANGE_PROTO_RANDOM`: `random`.
pub const NF_NAT_RANGE_PROTO_RANDOM: u32 = 1 << 2;
/// `NF_NAT_RANGE_PERSISTENT`: `persistent`.
pub const NF_NAT_RANGE_PERSISTENT: u32 = 1 << 3;
/// `NF_NAT_RANGE_PROTO_RANDOM_FULLY`: `fully-random`.
pub const NF_NAT_RANGE_PROTO_RANDOM_FULLY: u32 = 1 << 4;
/// `NF_NAT_RANGE_PROTO_OFFSET`: port shift (`to :8000-9000/1000` style offsets).
pub const NF_NAT_RANGE_PROTO_OFFSET: u32 = 1 << 5;
/// `NF_NAT_RANGE_NETMAP`: prefix-to-prefix mapping (`snat ip prefix to …`).
pub const NF_NAT_RANGE_NETMAP: u32 = 1 << 6;

/// Writes each present value as a big-endian 32-bit attribute of the type at the same
/// index, in the order given (the order the kernel dumps them), skipping absent ones.
pub(super) fn put_regs<const K: usize>(
    w: &mut MsgWriter,
    types: &[u16; K],
    values: [Option<u32>; K],
) {
    for (&ty, v) in types.iter().zip(values) {
        if let Some(v) = v {
            w.put_be32(ty, v);
        }
    }
}

/// Reads the optional big-endian 32-bit attributes `types` of a decoded table.
pub(super) fn get_regs<const N: usize, const K: usize>(
    t: &AttrTable<'_, N>,
    types: &[u16; K],
) -> Result<[Option<u32>; K], DecodeError> {
    let mut out = [None; K];
    for (o, &ty) in out.iter_mut().zip(types) {
        *o = t.get(ty).map(|a| a.be32()).transpose()?;
    }
    Ok(out)
}

/// Reads a nest made only of the optional big-endian 32-bit attributes `types`, all below
/// `N`; `Ok(None)` when it holds any other attribute.
pub(super) fn decode_regs<const N: usize, const K: usize>(
    data: Attrs<'_>,
    types: &[u16; K],
) -> Result<Option<[Option<u32>; K]>, DecodeError> {
    let t = data.table::<N>()?;
    if t.has_unknown() {
        return Ok(None);
    }
    get_regs(&t, types).map(Some)
}

/// Prints `head`, then ` <name> reg <r>` for each present register, then ` flags 0x<f>` when
/// the flags are present: how `nft --debug=netlink` prints `nat`, `masq` and `redir`.
pub(super) fn fmt_regs(
    f: &mut fmt::Formatter<'_>,
    head: fmt::Arguments<'_>,
    regs: &[(&str, Option<u32>)],
    flags: Option<u32>,
) -> fmt::Result {
    f.write_fmt(head)?;
    for &(name, r) in regs {
        if let Some(r) = r {
            write!(f, " {name} reg {r}")?;
        }
    }
    if let Some(fl) = flags {
        write!(f, " flags 0x{fl:x}")?;
    }
    Ok(())
}

/// [`fmt_regs`] for an expression whose only registers are a port range (`masq`, `redir`).
pub(super) fn fmt_port_regs(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    reg_proto_min: Option<u32>,
    reg_proto_max: Option<u32>,
    flags: Option<u32>,
) -> fmt::Result {
    fmt_regs(
        f,
        format_args!("{name}"),
        &[("proto_min", reg_proto_min), ("proto_max", reg_proto_max)],
        flags,
    )
}

/// Which side of the connection a `nat` expression rewrites (`NFT_NAT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NatType {
    /// Source NAT (`snat`), in postrouting or input.
    Snat,
    /// Destination NAT (`dnat`), in prerouting or output.
    Dnat,
}

impl NatType {
    /// The `NFT_NAT_*` value.
    pub fn raw(self) -> u32 {
        match self {
            NatType::Snat => NFT_NAT_SNAT,
            NatType::Dnat => NFT_NAT_DNAT,
        }
    }

    /// The type of an `NFT_NAT_*` value.
    pub fn from_raw(v: u32) -> Option<NatType> {
        match v {
            NFT_NAT_SNAT => Some(NatType::Snat),
            NFT_NAT_DNAT => Some(NatType::Dnat),
            _ => None,
        }
    }

    /// The name `nft --debug=netlink` prints.
    pub fn name(self) -> &'static str {
        match self {
            NatType::Snat => "snat",
            NatType::Dnat => "dnat",
        }
    }
}

/// A `nat` expression.
///
/// The kernel dumps the maximum register whenever the minimum is set (equal to it when only
/// one was given) and ORs `NF_NAT_RANGE_MAP_IPS` / `NF_NAT_RANGE_PROTO_SPECIFIED` into the
/// flags, so a rule read back may show more than was written; it still behaves the same.
///
/// ```
/// use iptnl::nft::expr::Nat;
/// use iptnl::nft::expr::nat::{NatType, NF_NAT_RANGE_PROTO_SPECIFIED};
/// use iptnl::nft::Family;
/// // dnat to 10.0.0.1:8080, address in register 1 and port in register 2
/// let n = Nat {
///     nat_type: NatType::Dnat,
///     family: Family::Ipv4,
///     reg_addr_min: Some(1),
///     reg_addr_max: None,
///     reg_proto_min: Some(2),
///     reg_proto_max: None,
///     flags: Some(NF_NAT_RANGE_PROTO_SPECIFIED),
/// };
/// assert_eq!(n.to_string(), "nat dnat ip addr_min reg 1 proto_min reg 2 flags 0x2");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Nat {
    /// Source or destination NAT.
    pub nat_type: NatType,
    /// Address family of the addresses (`ip` or `ip6`; in an `inet` table, the family of
    /// packets it applies to).
    pub family: Family,
    /// Register holding the lowest address.
    pub reg_addr_min: Option<u32>,
    /// Register holding the highest address.
    pub reg_addr_max: Option<u32>,
    /// Register holding the lowest port (2 bytes, network order).
    pub reg_proto_min: Option<u32>,
    /// Register holding the highest port.
    pub reg_proto_max: Option<u32>,
    /// `NF_NAT_RANGE_*` flags (`NFTA_NAT_FLAGS`, dumped only when not zero).
    pub flags: Option<u32>,
}

/// The register and flag attributes of `nat`, in the order the kernel dumps them.
const REGS: [u16; 5] = [
    NFTA_NAT_REG_ADDR_MIN,
    NFTA_NAT_REG_ADDR_MAX,
    NFTA_NAT_REG_PROTO_MIN,
    NFTA_NAT_REG_PROTO_MAX,
    NFTA_NAT_FLAGS,
];

impl ExprKind for Nat {
    const NAME: &'static str = "nat";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_NAT_TYPE, self.nat_type.raw());
        w.put_be32(NFTA_NAT_FAMILY, u32::from(self.family.raw()));
        put_regs(
            w,
            &REGS,
            [
                self.reg_addr_min,
                self.reg_addr_max,
                self.reg_proto_min,
                self.reg_proto_max,
                self.flags,
            ],
        );
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_NAT_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(ty), Some(fam)) = (t.get(NFTA_NAT_TYPE), t.get(NFTA_NAT_FAMILY)) else {
            return Ok(None);
        };
        let Some(nat_type) = NatType::from_raw(ty.be32()?) else {
            return Ok(None);
        };
        let Some(family) = u8::try_from(fam.be32()?).ok().and_then(Family::from_raw) else {
            return Ok(None);
        };
        let [reg_addr_min, reg_addr_max, reg_proto_min, reg_proto_max, flags] =
            get_regs(&t, &REGS)?;
        Ok(Some(Nat {
            nat_type,
            family,
            reg_addr_min,
            reg_addr_max,
            reg_proto_min,
            reg_proto_max,
            flags,
        }))
    }
}

impl fmt::Display for Nat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_regs(
            f,
            format_args!("nat {} {}", self.nat_type.name(), self.family),
            &[
                ("addr_min", self.reg_addr_min),
                ("addr_max", self.reg_addr_max),
                ("proto_min", self.reg_proto_min),
                ("proto_max", self.reg_proto_max),
            ],
            self.flags,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(build: impl FnOnce(&mut MsgWriter)) -> Vec<u8> {
        let mut w = MsgWriter::new();
        build(&mut w);
        w.into_bytes()
    }

    #[test]
    fn round_trip_and_display() {
        let n = Nat {
            nat_type: NatType::Snat,
            family: Family::Ipv6,
            reg_addr_min: Some(1),
            reg_addr_max: Some(2),
            reg_proto_min: Some(3),
            reg_proto_max: Some(4),
            flags: Some(NF_NAT_RANGE_MAP_IPS | NF_NAT_RANGE_PERSISTENT),
        };
        let buf = attrs(|w| n.encode(w));
        assert_eq!(Nat::decode(Attrs::new(&buf)).unwrap(), Some(n.clone()));
        assert_eq!(
            n.to_string(),
            "nat snat ip6 addr_min reg 1 addr_max reg 2 proto_min reg 3 proto_max reg 4 flags 0x9"
        );
    }

    #[test]
    fn unknown_attribute_or_value_is_not_decoded() {
        let buf = attrs(|w| {
            w.put_be32(NFTA_NAT_TYPE, NFT_NAT_DNAT);
            w.put_be32(NFTA_NAT_FAMILY, 2);
            w.put_be32(NFTA_NAT_FLAGS + 1, 0);
        });
        assert_eq!(Nat::decode(Attrs::new(&buf)).unwrap(), None);
        let buf = attrs(|w| {
            w.put_be32(NFTA_NAT_TYPE, 7);
            w.put_be32(NFTA_NAT_FAMILY, 2);
        });
        assert_eq!(Nat::decode(Attrs::new(&buf)).unwrap(), None);
        let buf = attrs(|w| {
            w.put_be32(NFTA_NAT_TYPE, NFT_NAT_DNAT);
            w.put_be32(NFTA_NAT_FAMILY, 99);
        });
        assert_eq!(Nat::decode(Attrs::new(&buf)).unwrap(), None);
        let buf = attrs(|w| w.put_be32(NFTA_NAT_TYPE, NFT_NAT_DNAT));
        assert_eq!(Nat::decode(Attrs::new(&buf)).unwrap(), None);
    }
}
