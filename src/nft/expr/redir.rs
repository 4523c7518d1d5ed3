//! `redir`: destination NAT to the local machine (`redirect`).

use std::fmt;

use iptnl_sys::nf_tables::*;

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

impl ExprKind for Redir {
    const NAME: &'static str = "redir";

    fn encode(&self, w: &mut MsgWriter) {
        if let Some(r) = self.reg_proto_min {
            w.put_be32(NFTA_REDIR_REG_PROTO_MIN, r);
        }
        if let Some(r) = self.reg_proto_max {
            w.put_be32(NFTA_REDIR_REG_PROTO_MAX, r);
        }
        if let Some(f) = self.flags {
            w.put_be32(NFTA_REDIR_FLAGS, f);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_REDIR_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let get = |ty| t.get(ty).map(|a| a.be32()).transpose();
        Ok(Some(Redir {
            reg_proto_min: get(NFTA_REDIR_REG_PROTO_MIN)?,
            reg_proto_max: get(NFTA_REDIR_REG_PROTO_MAX)?,
            flags: get(NFTA_REDIR_FLAGS)?,
        }))
    }
}

impl fmt::Display for Redir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("redir")?;
        if let Some(r) = self.reg_proto_min {
            write!(f, " proto_min reg {r}")?;
        }
        if let Some(r) = self.reg_proto_max {
            write!(f, " proto_max reg {r}")?;
        }
        if let Some(fl) = self.flags {
            write!(f, " flags 0x{fl:x}")?;
        }
        Ok(())
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
