//! `fib`: look the packet up in the routing table (reverse path filtering, address type,
//! output interface).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// `NFTA_FIB_F_SADDR`: look up the source address.
pub const FIB_F_SADDR: u32 = NFTA_FIB_F_SADDR as u32;
/// `NFTA_FIB_F_DADDR`: look up the destination address.
pub const FIB_F_DADDR: u32 = NFTA_FIB_F_DADDR as u32;
/// `NFTA_FIB_F_MARK`: use the packet mark.
pub const FIB_F_MARK: u32 = NFTA_FIB_F_MARK as u32;
/// `NFTA_FIB_F_IIF`: restrict to the input interface.
pub const FIB_F_IIF: u32 = NFTA_FIB_F_IIF as u32;
/// `NFTA_FIB_F_OIF`: restrict to the output interface.
pub const FIB_F_OIF: u32 = NFTA_FIB_F_OIF as u32;
/// `NFTA_FIB_F_PRESENT`: only store whether a result exists (`exists` / `missing`).
pub const FIB_F_PRESENT: u32 = NFTA_FIB_F_PRESENT as u32;

/// What a `fib` lookup stores (`NFT_FIB_RESULT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FibResult {
    /// Output interface index (`oif`).
    Oif,
    /// Output interface name (`oifname`).
    OifName,
    /// Address type (`type`: local, unicast…).
    AddrType,
    /// Any other result (kept as it is).
    Other(u32),
}

impl FibResult {
    /// The `NFT_FIB_RESULT_*` value.
    pub fn raw(self) -> u32 {
        match self {
            FibResult::Oif => NFT_FIB_RESULT_OIF,
            FibResult::OifName => NFT_FIB_RESULT_OIFNAME,
            FibResult::AddrType => NFT_FIB_RESULT_ADDRTYPE,
            FibResult::Other(v) => v,
        }
    }

    /// The result of an `NFT_FIB_RESULT_*` value.
    pub fn from_raw(v: u32) -> FibResult {
        match v {
            NFT_FIB_RESULT_OIF => FibResult::Oif,
            NFT_FIB_RESULT_OIFNAME => FibResult::OifName,
            NFT_FIB_RESULT_ADDRTYPE => FibResult::AddrType,
            v => FibResult::Other(v),
        }
    }
}

/// A `fib` expression.
///
/// ```
/// use iptnl::nft::expr::Fib;
/// use iptnl::nft::expr::fib::{FibResult, FIB_F_IIF, FIB_F_PRESENT, FIB_F_SADDR};
/// // fib saddr . iif oif missing
/// let f = Fib { dreg: 1, result: FibResult::Oif, flags: FIB_F_SADDR | FIB_F_IIF | FIB_F_PRESENT };
/// assert_eq!(f.to_string(), "fib saddr . iif oif present => reg 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fib {
    /// Destination register.
    pub dreg: u32,
    /// What is stored.
    pub result: FibResult,
    /// `FIB_F_*` (`NFTA_FIB_F_*`) flags: the lookup keys.
    pub flags: u32,
}

impl ExprKind for Fib {
    const NAME: &'static str = "fib";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_FIB_DREG, self.dreg);
        w.put_be32(NFTA_FIB_RESULT, self.result.raw());
        w.put_be32(NFTA_FIB_FLAGS, self.flags);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_FIB_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(dreg), Some(result), Some(flags)) = (
            t.get(NFTA_FIB_DREG),
            t.get(NFTA_FIB_RESULT),
            t.get(NFTA_FIB_FLAGS),
        ) else {
            return Ok(None);
        };
        Ok(Some(Fib {
            dreg: dreg.be32()?,
            result: FibResult::from_raw(result.be32()?),
            flags: flags.be32()?,
        }))
    }
}

impl fmt::Display for Fib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KEYS: [(u32, &str); 5] = [
            (FIB_F_SADDR, "saddr"),
            (FIB_F_DADDR, "daddr"),
            (FIB_F_MARK, "mark"),
            (FIB_F_IIF, "iif"),
            (FIB_F_OIF, "oif"),
        ];
        f.write_str("fib ")?;
        let mut rest = self.flags & !FIB_F_PRESENT;
        for (bit, name) in KEYS {
            if rest & bit != 0 {
                rest &= !bit;
                f.write_str(name)?;
                f.write_str(if rest != 0 { " . " } else { " " })?;
            }
        }
        if rest != 0 {
            write!(f, "unknown 0x{rest:x} ")?;
        }
        match self.result {
            FibResult::Oif => f.write_str("oif")?,
            FibResult::OifName => f.write_str("oifname")?,
            FibResult::AddrType => f.write_str("type")?,
            FibResult::Other(v) => write!(f, "result {v}")?,
        }
        if self.flags & FIB_F_PRESENT != 0 {
            f.write_str(" present")?;
        }
        write!(f, " => reg {}", self.dreg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let x = Fib {
            dreg: 1,
            result: FibResult::OifName,
            flags: FIB_F_DADDR | FIB_F_MARK,
        };
        let mut w = MsgWriter::new();
        x.encode(&mut w);
        assert_eq!(Fib::decode(Attrs::new(w.as_bytes())).unwrap(), Some(x));
        assert_eq!(x.to_string(), "fib daddr . mark oifname => reg 1");
        let t = Fib {
            dreg: 2,
            result: FibResult::AddrType,
            flags: FIB_F_DADDR,
        };
        assert_eq!(t.to_string(), "fib daddr type => reg 2");
        let o = Fib {
            dreg: 3,
            result: FibResult::Other(9),
            flags: FIB_F_SADDR | 0x100,
        };
        assert_eq!(o.to_string(), "fib saddr . unknown 0x100 result 9 => reg 3");
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_FIB_DREG, 1);
        w.put_be32(NFTA_FIB_RESULT, 1);
        w.put_be32(NFTA_FIB_FLAGS, 1);
        w.put_be32(NFTA_FIB_FLAGS + 1, 1);
        assert_eq!(Fib::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_FIB_DREG, 1);
        assert_eq!(Fib::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
