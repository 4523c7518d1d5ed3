//! `synproxy`: answer TCP handshakes with SYN cookies before the server sees them.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

// From include/uapi/linux/netfilter/nf_synproxy.h (not in iptnl_sys yet).
/// `NF_SYNPROXY_OPT_MSS`: the MSS option is set.
pub const NF_SYNPROXY_OPT_MSS: u32 = 0x01;
/// `NF_SYNPROXY_OPT_WSCALE`: the window scale option is set.
pub const NF_SYNPROXY_OPT_WSCALE: u32 = 0x02;
/// `NF_SYNPROXY_OPT_SACK_PERM`: `sack-perm`.
pub const NF_SYNPROXY_OPT_SACK_PERM: u32 = 0x04;
/// `NF_SYNPROXY_OPT_TIMESTAMP`: `timestamp`.
pub const NF_SYNPROXY_OPT_TIMESTAMP: u32 = 0x08;
/// `NF_SYNPROXY_OPT_ECN`: ECN.
pub const NF_SYNPROXY_OPT_ECN: u32 = 0x10;

/// A `synproxy` expression.
///
/// ```
/// use iptnl::nft::expr::Synproxy;
/// use iptnl::nft::expr::synproxy::*;
/// // synproxy mss 1460 wscale 7 timestamp sack-perm
/// let s = Synproxy {
///     mss: 1460,
///     wscale: 7,
///     flags: NF_SYNPROXY_OPT_MSS | NF_SYNPROXY_OPT_WSCALE | NF_SYNPROXY_OPT_SACK_PERM
///         | NF_SYNPROXY_OPT_TIMESTAMP,
/// };
/// assert_eq!(s.to_string(), "synproxy mss 1460 wscale 7");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Synproxy {
    /// Maximum segment size announced (`NFTA_SYNPROXY_MSS`, 16 bits).
    pub mss: u16,
    /// Window scale announced (`NFTA_SYNPROXY_WSCALE`, 8 bits).
    pub wscale: u8,
    /// `NF_SYNPROXY_OPT_*` options. Not printed, as `nft` does not print them either.
    pub flags: u32,
}

impl ExprKind for Synproxy {
    const NAME: &'static str = "synproxy";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be16(NFTA_SYNPROXY_MSS, self.mss);
        w.put_u8(NFTA_SYNPROXY_WSCALE, self.wscale);
        w.put_be32(NFTA_SYNPROXY_FLAGS, self.flags);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_SYNPROXY_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(mss), Some(wscale), Some(flags)) = (
            t.get(NFTA_SYNPROXY_MSS),
            t.get(NFTA_SYNPROXY_WSCALE),
            t.get(NFTA_SYNPROXY_FLAGS),
        ) else {
            return Ok(None);
        };
        Ok(Some(Synproxy {
            mss: mss.be16()?,
            wscale: wscale.u8()?,
            flags: flags.be32()?,
        }))
    }
}

impl fmt::Display for Synproxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "synproxy mss {} wscale {}", self.mss, self.wscale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let s = Synproxy {
            mss: 1460,
            wscale: 7,
            flags: 0x0f,
        };
        let mut w = MsgWriter::new();
        s.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[6, 0, 1, 0, 0x05, 0xb4, 0, 0, 5, 0, 2, 0, 7, 0, 0, 0, 8, 0, 3, 0, 0, 0, 0, 0x0f]
        );
        assert_eq!(Synproxy::decode(Attrs::new(w.as_bytes())).unwrap(), Some(s));
        assert_eq!(s.to_string(), "synproxy mss 1460 wscale 7");
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        Synproxy::default().encode(&mut w);
        w.put_be32(NFTA_SYNPROXY_FLAGS + 1, 0);
        assert_eq!(Synproxy::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be16(NFTA_SYNPROXY_MSS, 1);
        assert_eq!(Synproxy::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
