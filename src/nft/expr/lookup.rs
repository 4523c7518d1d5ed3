//! `lookup`: look a register up in a set (the rule stops when it is missing, or present when
//! inverted) or in a map (the value found goes to `dreg`; a verdict map ends the rule).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `lookup` expression.
///
/// ```
/// use iptnl::nft::expr::Lookup;
/// // ip saddr @myset (the address was loaded into register 1)
/// let l = Lookup::set("myset", 1);
/// assert_eq!(l.to_string(), "lookup reg 1 set myset 0x0");
/// // meta mark set ip saddr map @m
/// let m = Lookup { dreg: Some(1), ..Lookup::set("m", 1) };
/// assert_eq!(m.to_string(), "lookup reg 1 set m dreg 1 0x0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lookup {
    /// The set's name.
    pub set: String,
    /// The set's `NFTA_SET_ID`, to refer to a set created in the same batch (never dumped).
    pub set_id: Option<u32>,
    /// Register holding the key.
    pub sreg: u32,
    /// Register receiving the value, for a map (`NFT_REG_VERDICT` for a verdict map); the
    /// kernel dumps it for maps only.
    pub dreg: Option<u32>,
    /// `NFT_LOOKUP_F_*` flags (`NFT_LOOKUP_F_INV` for `!= @set`); always dumped.
    pub flags: u32,
}

impl Lookup {
    /// A plain (not inverted) membership test of `sreg` in `set`.
    pub fn set(set: impl Into<String>, sreg: u32) -> Lookup {
        Lookup {
            set: set.into(),
            set_id: None,
            sreg,
            dreg: None,
            flags: 0,
        }
    }

    /// Whether the test is inverted (matches when the key is not in the set).
    pub fn inverted(&self) -> bool {
        self.flags & NFT_LOOKUP_F_INV != 0
    }
}

impl ExprKind for Lookup {
    const NAME: &'static str = "lookup";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_str(NFTA_LOOKUP_SET, &self.set);
        if let Some(id) = self.set_id {
            w.put_be32(NFTA_LOOKUP_SET_ID, id);
        }
        w.put_be32(NFTA_LOOKUP_SREG, self.sreg);
        if let Some(d) = self.dreg {
            w.put_be32(NFTA_LOOKUP_DREG, d);
        }
        w.put_be32(NFTA_LOOKUP_FLAGS, self.flags);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_LOOKUP_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(set), Some(sreg), Some(flags)) = (
            t.get(NFTA_LOOKUP_SET).and_then(|a| a.str().ok()),
            t.get(NFTA_LOOKUP_SREG).and_then(|a| a.be32().ok()),
            t.get(NFTA_LOOKUP_FLAGS).and_then(|a| a.be32().ok()),
        ) else {
            return Ok(None);
        };
        let (Ok(set_id), Ok(dreg)) = (
            t.get(NFTA_LOOKUP_SET_ID).map(|a| a.be32()).transpose(),
            t.get(NFTA_LOOKUP_DREG).map(|a| a.be32()).transpose(),
        ) else {
            return Ok(None);
        };
        Ok(Some(Lookup {
            set: set.to_owned(),
            set_id,
            sreg,
            dreg,
            flags,
        }))
    }
}

impl fmt::Display for Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lookup reg {} set {}", self.sreg, self.set)?;
        if let Some(d) = self.dreg {
            write!(f, " dreg {d}")?;
        }
        write!(f, " 0x{:x}", self.flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_nft_debug() {
        let l = Lookup {
            flags: NFT_LOOKUP_F_INV,
            ..Lookup::set("myset", 1)
        };
        assert!(l.inverted());
        assert_eq!(l.to_string(), "lookup reg 1 set myset 0x1");
        let v = Lookup {
            dreg: Some(0),
            ..Lookup::set("vm", 1)
        };
        assert_eq!(v.to_string(), "lookup reg 1 set vm dreg 0 0x0");
    }

    #[test]
    fn round_trips_in_kernel_order() {
        let l = Lookup {
            dreg: Some(1),
            ..Lookup::set("m", 9)
        };
        let mut w = MsgWriter::new();
        l.encode(&mut w);
        let kinds: Vec<u16> = Attrs::new(w.as_bytes())
            .map(|a| a.unwrap().kind())
            .collect();
        assert_eq!(
            kinds,
            [
                NFTA_LOOKUP_SET,
                NFTA_LOOKUP_SREG,
                NFTA_LOOKUP_DREG,
                NFTA_LOOKUP_FLAGS
            ]
        );
        assert_eq!(Lookup::decode(Attrs::new(w.as_bytes())).unwrap(), Some(l));

        let with_id = Lookup {
            set_id: Some(3),
            ..Lookup::set("__set0", 1)
        };
        let mut w = MsgWriter::new();
        with_id.encode(&mut w);
        assert_eq!(
            Lookup::decode(Attrs::new(w.as_bytes())).unwrap(),
            Some(with_id)
        );
    }

    #[test]
    fn unknown_attribute_or_missing_flags_is_not_decoded() {
        let mut w = MsgWriter::new();
        Lookup::set("s", 1).encode(&mut w);
        w.put_be32(NFTA_LOOKUP_FLAGS + 1, 0);
        assert_eq!(Lookup::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        w.put_str(NFTA_LOOKUP_SET, "s");
        w.put_be32(NFTA_LOOKUP_SREG, 1);
        assert_eq!(Lookup::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
