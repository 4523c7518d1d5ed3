//! `immediate`: load a constant or a verdict into a register.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};
use crate::nft::{Data, Verdict};

/// An `immediate` expression. With `dreg` 0 (`NFT_REG_VERDICT`) and a verdict it ends the rule
/// with accept, drop, jump…
///
/// ```
/// use iptnl::nft::expr::Immediate;
/// use iptnl::nft::Verdict;
/// let i = Immediate::verdict(Verdict::Accept);
/// assert_eq!(i.to_string(), "immediate reg 0 accept");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Immediate {
    /// Destination register.
    pub dreg: u32,
    /// The value or verdict.
    pub data: Data,
}

impl Immediate {
    /// A verdict into the verdict register.
    pub fn verdict(v: Verdict) -> Immediate {
        Immediate {
            dreg: NFT_REG_VERDICT,
            data: Data::Verdict(v),
        }
    }
}

impl ExprKind for Immediate {
    const NAME: &'static str = "immediate";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_IMMEDIATE_DREG, self.dreg);
        self.data.encode(w, NFTA_IMMEDIATE_DATA);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_IMMEDIATE_DATA as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let dreg = t.need(NFTA_IMMEDIATE_DREG, "immediate register")?.be32()?;
        let Some(data) = Data::decode(t.need(NFTA_IMMEDIATE_DATA, "immediate data")?)? else {
            return Ok(None);
        };
        Ok(Some(Immediate { dreg, data }))
    }
}

impl fmt::Display for Immediate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "immediate reg {} {}", self.dreg, self.data)
    }
}
