//! `masq`: source NAT to the address of the outgoing interface (`masquerade`).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::nat::{decode_regs, fmt_port_regs, put_regs};
use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `masq` expression, optionally with a port range in registers.
///
/// ```
/// use iptnl::nft::expr::Masq;
/// use iptnl::nft::expr::nat::NF_NAT_RANGE_PROTO_RANDOM;
/// // masquerade random
/// let m = Masq { flags: Some(NF_NAT_RANGE_PROTO_RANDOM), ..Masq::default() };
/// assert_eq!(m.to_string(), "masq flags 0x4");
/// assert_eq!(Masq::default().to_string(), "masq");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Masq {
    /// `NF_NAT_RANGE_*` flags (see [`nat`](super::nat)), dumped only when not zero.
    pub flags: Option<u32>,
    /// Register holding the lowest port.
    pub reg_proto_min: Option<u32>,
    /// Register holding the highest port.
    pub reg_proto_max: Option<u32>,
}

/// The attributes of `masq`, in the order the kernel dumps them (the flags first, unlike `redir`).
const REGS: [u16; 3] = [
    NFTA_MASQ_FLAGS,
    NFTA_MASQ_REG_PROTO_MIN,
    NFTA_MASQ_REG_PROTO_MAX,
];

impl ExprKind for Masq {
    const NAME: &'static str = "masq";

    fn encode(&self, w: &mut MsgWriter) {
        put_regs(
            w,
            &REGS,
            [self.flags, self.reg_proto_min, self.reg_proto_max],
        );
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        const N: usize = NFTA_MASQ_REG_PROTO_MAX as usize + 1;
        let Some([flags, reg_proto_min, reg_proto_max]) = decode_regs::<N, 3>(data, &REGS)? else {
            return Ok(None);
        };
        Ok(Some(Masq {
            flags,
            reg_proto_min,
            reg_proto_max,
        }))
    }
}

impl fmt::Display for Masq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Masq {
            flags,
            reg_proto_min: min,
            reg_proto_max: max,
        } = *self;
        fmt_port_regs(f, "masq", min, max, flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let m = Masq {
            flags: Some(0x12),
            reg_proto_min: Some(1),
            reg_proto_max: Some(2),
        };
        let mut w = MsgWriter::new();
        m.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[8, 0, 1, 0, 0, 0, 0, 0x12, 8, 0, 2, 0, 0, 0, 0, 1, 8, 0, 3, 0, 0, 0, 0, 2]
        );
        assert_eq!(Masq::decode(Attrs::new(w.as_bytes())).unwrap(), Some(m));
        assert_eq!(
            m.to_string(),
            "masq proto_min reg 1 proto_max reg 2 flags 0x12"
        );
        assert_eq!(
            Masq::decode(Attrs::new(&[])).unwrap(),
            Some(Masq::default())
        );
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_MASQ_FLAGS, 4);
        w.put_be32(NFTA_MASQ_REG_PROTO_MAX + 1, 1);
        assert_eq!(Masq::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
