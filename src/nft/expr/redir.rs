//! `redir`: destination NAT to the local machine (`redirect`).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::nat::{decode_regs, fmt_port_regs, put_regs};
use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `redir` expression, optionally with a port range in registers.
///
/// ```
/// use iptnl::nft::expr::Redir;
/// use iptnl::nft::expr::nat::NF_NAT_RANGE_PROTO_SPECIFIED;
/// // redirect to :8080, the port in register 1
/// let r = Redir {
///     reg_proto_min: Some(1),
///     reg_proto_max: None,
///     flags: Some(NF_NAT_RANGE_PROTO_SPECIFIED),
/// };
/// assert_eq!(r.to_string(), "redir proto_min reg 1 flags 0x2");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Redir {
    /// Register holding the lowest port.
    pub reg_proto_min: Option<u32>,
    /// Register holding the highest port (the kernel dumps it whenever the lowest is set).
    pub reg_proto_max: Option<u32>,
    /// `NF_NAT_RANGE_*` flags (see [`nat`](super::nat)), dumped only when not zero.
    pub flags: Option<u32>,
}

/// The attributes of `redir`, in the order the kernel dumps them.
const REGS: [u16; 3] = [
    NFTA_REDIR_REG_PROTO_MIN,
    NFTA_REDIR_REG_PROTO_MAX,
    NFTA_REDIR_FLAGS,
];

impl ExprKind for Redir {
    const NAME: &'static str = "redir";

    fn encode(&self, w: &mut MsgWriter) {
        put_regs(
            w,
            &REGS,
            [self.reg_proto_min, self.reg_proto_max, self.flags],
        );
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        const N: usize = NFTA_REDIR_FLAGS as usize + 1;
        let Some([reg_proto_min, reg_proto_max, flags]) = decode_regs::<N, 3>(data, &REGS)? else {
            return Ok(None);
        };
        Ok(Some(Redir {
            reg_proto_min,
            reg_proto_max,
            flags,
        }))
    }
}

impl fmt::Display for Redir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Redir {
            reg_proto_min: min,
            reg_proto_max: max,
            flags,
        } = *self;
        fmt_port_regs(f, "redir", min, max, flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let r = Redir {
            reg_proto_min: Some(1),
            reg_proto_max: Some(2),
            flags: Some(6),
        };
        let mut w = MsgWriter::new();
        r.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[8, 0, 1, 0, 0, 0, 0, 1, 8, 0, 2, 0, 0, 0, 0, 2, 8, 0, 3, 0, 0, 0, 0, 6]
        );
        assert_eq!(Redir::decode(Attrs::new(w.as_bytes())).unwrap(), Some(r));
        assert_eq!(
            r.to_string(),
            "redir proto_min reg 1 proto_max reg 2 flags 0x6"
        );
        assert_eq!(Redir::default().to_string(), "redir");
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_REDIR_FLAGS + 1, 1);
        assert_eq!(Redir::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
