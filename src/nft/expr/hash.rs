//! `hash`: hash packet data (`jhash`) or the flow (`symhash`) into a register, modulo a bound.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// The hash function and its inputs (`NFTA_HASH_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashKind {
    /// Jenkins hash of `len` bytes of register `sreg` (`NFT_HASH_JENKINS`).
    Jenkins {
        /// Source register.
        sreg: u32,
        /// Number of bytes hashed.
        len: u32,
        /// The seed; `None` when the kernel picked a random one (it then does not dump it).
        seed: Option<u32>,
    },
    /// Symmetric hash of the flow, the same in both directions (`NFT_HASH_SYM`).
    Symmetric,
}

/// A `hash` expression: `dreg = offset + (hash % modulus)`.
///
/// (`NFTA_HASH_SET_NAME` / `NFTA_HASH_SET_ID` are obsolete and never dumped; an expression
/// carrying them is kept raw.)
///
/// ```
/// use iptnl::nft::expr::Hash;
/// use iptnl::nft::expr::hash::HashKind;
/// // jhash ip saddr mod 4, the address loaded in register 2
/// let h = Hash {
///     dreg: 1,
///     modulus: 4,
///     offset: None,
///     kind: HashKind::Jenkins { sreg: 2, len: 4, seed: None },
/// };
/// assert_eq!(h.to_string(), "hash reg 1 = jhash(reg 2, 4, 0x0) % mod 4");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hash {
    /// Destination register.
    pub dreg: u32,
    /// The modulus.
    pub modulus: u32,
    /// Added to the result (`NFTA_HASH_OFFSET`, dumped only when not zero).
    pub offset: Option<u32>,
    /// Jenkins or symmetric.
    pub kind: HashKind,
}

impl ExprKind for Hash {
    const NAME: &'static str = "hash";

    fn encode(&self, w: &mut MsgWriter) {
        match self.kind {
            HashKind::Jenkins { sreg, len, seed } => {
                w.put_be32(NFTA_HASH_SREG, sreg);
                w.put_be32(NFTA_HASH_DREG, self.dreg);
                w.put_be32(NFTA_HASH_LEN, len);
                w.put_be32(NFTA_HASH_MODULUS, self.modulus);
                if let Some(s) = seed {
                    w.put_be32(NFTA_HASH_SEED, s);
                }
                if let Some(o) = self.offset {
                    w.put_be32(NFTA_HASH_OFFSET, o);
                }
                w.put_be32(NFTA_HASH_TYPE, NFT_HASH_JENKINS);
            }
            HashKind::Symmetric => {
                w.put_be32(NFTA_HASH_DREG, self.dreg);
                w.put_be32(NFTA_HASH_MODULUS, self.modulus);
                if let Some(o) = self.offset {
                    w.put_be32(NFTA_HASH_OFFSET, o);
                }
                w.put_be32(NFTA_HASH_TYPE, NFT_HASH_SYM);
            }
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_HASH_TYPE as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(ty), Some(dreg), Some(modulus)) = (
            t.get(NFTA_HASH_TYPE),
            t.get(NFTA_HASH_DREG),
            t.get(NFTA_HASH_MODULUS),
        ) else {
            return Ok(None);
        };
        let get = |ty| t.get(ty).map(|a| a.be32()).transpose();
        let (sreg, len, seed) = (
            get(NFTA_HASH_SREG)?,
            get(NFTA_HASH_LEN)?,
            get(NFTA_HASH_SEED)?,
        );
        let kind = match (ty.be32()?, sreg, len) {
            (NFT_HASH_JENKINS, Some(sreg), Some(len)) => HashKind::Jenkins { sreg, len, seed },
            (NFT_HASH_SYM, None, None) if seed.is_none() => HashKind::Symmetric,
            _ => return Ok(None),
        };
        Ok(Some(Hash {
            dreg: dreg.be32()?,
            modulus: modulus.be32()?,
            offset: get(NFTA_HASH_OFFSET)?,
            kind,
        }))
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hash reg {} = ", self.dreg)?;
        match self.kind {
            HashKind::Jenkins { sreg, len, seed } => {
                write!(f, "jhash(reg {sreg}, {len}, 0x{:x})", seed.unwrap_or(0))?
            }
            HashKind::Symmetric => f.write_str("symhash()")?,
        }
        write!(f, " % mod {}", self.modulus)?;
        match self.offset {
            Some(o) if o != 0 => write!(f, " offset {o}"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let j = Hash {
            dreg: 1,
            modulus: 4,
            offset: Some(100),
            kind: HashKind::Jenkins {
                sreg: 2,
                len: 8,
                seed: Some(0xdead),
            },
        };
        let s = Hash {
            dreg: 1,
            modulus: 2,
            offset: None,
            kind: HashKind::Symmetric,
        };
        for h in [j, s] {
            let mut w = MsgWriter::new();
            h.encode(&mut w);
            assert_eq!(Hash::decode(Attrs::new(w.as_bytes())).unwrap(), Some(h));
        }
        assert_eq!(
            j.to_string(),
            "hash reg 1 = jhash(reg 2, 8, 0xdead) % mod 4 offset 100"
        );
        assert_eq!(s.to_string(), "hash reg 1 = symhash() % mod 2");
        let mut w = MsgWriter::new();
        s.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[8, 0, 2, 0, 0, 0, 0, 1, 8, 0, 4, 0, 0, 0, 0, 2, 8, 0, 7, 0, 0, 0, 0, 1]
        );
    }

    #[test]
    fn unknown_or_inconsistent_attributes_are_not_decoded() {
        let s = Hash {
            dreg: 1,
            modulus: 2,
            offset: None,
            kind: HashKind::Symmetric,
        };
        let mut w = MsgWriter::new();
        s.encode(&mut w);
        w.put_str(NFTA_HASH_SET_NAME, "m");
        assert_eq!(Hash::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        // symhash with a source register cannot be represented
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_HASH_SREG, 1);
        s.encode(&mut w);
        assert_eq!(Hash::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        // unknown hash type
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_HASH_DREG, 1);
        w.put_be32(NFTA_HASH_MODULUS, 1);
        w.put_be32(NFTA_HASH_TYPE, 5);
        assert_eq!(Hash::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
