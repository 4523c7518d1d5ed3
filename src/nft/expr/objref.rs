//! `objref`: use a named stateful object (counter, quota, limit, ct helper…) of the table,
//! either a fixed one or one picked by a map lookup.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A stateful object type (`NFT_OBJECT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectType {
    /// Named counter.
    Counter,
    /// Named quota.
    Quota,
    /// Conntrack helper.
    CtHelper,
    /// Named limit.
    Limit,
    /// Connection limit.
    Connlimit,
    /// Tunnel.
    Tunnel,
    /// Conntrack timeout policy.
    CtTimeout,
    /// Security mark.
    Secmark,
    /// Conntrack expectation.
    CtExpect,
    /// SYN proxy.
    Synproxy,
    /// Any other type (kept as it is).
    Other(u32),
}

impl ObjectType {
    /// The `NFT_OBJECT_*` value.
    pub fn raw(self) -> u32 {
        match self {
            ObjectType::Counter => NFT_OBJECT_COUNTER,
            ObjectType::Quota => NFT_OBJECT_QUOTA,
            ObjectType::CtHelper => NFT_OBJECT_CT_HELPER,
            ObjectType::Limit => NFT_OBJECT_LIMIT,
            ObjectType::Connlimit => NFT_OBJECT_CONNLIMIT,
            ObjectType::Tunnel => NFT_OBJECT_TUNNEL,
            ObjectType::CtTimeout => NFT_OBJECT_CT_TIMEOUT,
            ObjectType::Secmark => NFT_OBJECT_SECMARK,
            ObjectType::CtExpect => NFT_OBJECT_CT_EXPECT,
            ObjectType::Synproxy => NFT_OBJECT_SYNPROXY,
            ObjectType::Other(v) => v,
        }
    }

    /// The type of an `NFT_OBJECT_*` value.
    pub fn from_raw(v: u32) -> ObjectType {
        match v {
            NFT_OBJECT_COUNTER => ObjectType::Counter,
            NFT_OBJECT_QUOTA => ObjectType::Quota,
            NFT_OBJECT_CT_HELPER => ObjectType::CtHelper,
            NFT_OBJECT_LIMIT => ObjectType::Limit,
            NFT_OBJECT_CONNLIMIT => ObjectType::Connlimit,
            NFT_OBJECT_TUNNEL => ObjectType::Tunnel,
            NFT_OBJECT_CT_TIMEOUT => ObjectType::CtTimeout,
            NFT_OBJECT_SECMARK => ObjectType::Secmark,
            NFT_OBJECT_CT_EXPECT => ObjectType::CtExpect,
            NFT_OBJECT_SYNPROXY => ObjectType::Synproxy,
            v => ObjectType::Other(v),
        }
    }
}

/// An `objref` expression.
///
/// ```
/// use iptnl::nft::expr::objref::{ObjectType, Objref};
/// // counter name "c1"
/// let o = Objref::Imm { obj_type: ObjectType::Counter, name: "c1".into() };
/// assert_eq!(o.to_string(), "objref type 1 name c1");
/// // counter name ip saddr map @om (the address was loaded into register 1)
/// let m = Objref::Map { sreg: 1, set: "om".into(), set_id: None };
/// assert_eq!(m.to_string(), "objref sreg 1 set om");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Objref {
    /// A fixed object, by type and name.
    Imm {
        /// Object type.
        obj_type: ObjectType,
        /// Object name.
        name: String,
    },
    /// The object a map (of objects) yields for the key in `sreg`.
    Map {
        /// Register holding the key.
        sreg: u32,
        /// The map's name.
        set: String,
        /// The map's `NFTA_SET_ID`, to refer to a map created in the same batch (never
        /// dumped).
        set_id: Option<u32>,
    },
}

impl ExprKind for Objref {
    const NAME: &'static str = "objref";

    fn encode(&self, w: &mut MsgWriter) {
        match self {
            Objref::Imm { obj_type, name } => {
                w.put_str(NFTA_OBJREF_IMM_NAME, name);
                w.put_be32(NFTA_OBJREF_IMM_TYPE, obj_type.raw());
            }
            Objref::Map { sreg, set, set_id } => {
                w.put_be32(NFTA_OBJREF_SET_SREG, *sreg);
                w.put_str(NFTA_OBJREF_SET_NAME, set);
                if let Some(id) = set_id {
                    w.put_be32(NFTA_OBJREF_SET_ID, *id);
                }
            }
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_OBJREF_SET_ID as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let imm = (t.get(NFTA_OBJREF_IMM_TYPE), t.get(NFTA_OBJREF_IMM_NAME));
        let map = (
            t.get(NFTA_OBJREF_SET_SREG),
            t.get(NFTA_OBJREF_SET_NAME),
            t.get(NFTA_OBJREF_SET_ID),
        );
        Ok(match (imm, map) {
            ((Some(ty), Some(name)), (None, None, None)) => match (ty.be32(), name.str()) {
                (Ok(ty), Ok(name)) => Some(Objref::Imm {
                    obj_type: ObjectType::from_raw(ty),
                    name: name.to_owned(),
                }),
                _ => None,
            },
            ((None, None), (Some(sreg), Some(set), id)) => {
                match (sreg.be32(), set.str(), id.map(|a| a.be32()).transpose()) {
                    (Ok(sreg), Ok(set), Ok(set_id)) => Some(Objref::Map {
                        sreg,
                        set: set.to_owned(),
                        set_id,
                    }),
                    _ => None,
                }
            }
            _ => None,
        })
    }
}

impl fmt::Display for Objref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Objref::Imm { obj_type, name } => {
                write!(f, "objref type {} name {}", obj_type.raw(), name)
            }
            Objref::Map { sreg, set, .. } => write!(f, "objref sreg {sreg} set {set}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(o: &Objref) -> Option<Objref> {
        let mut w = MsgWriter::new();
        o.encode(&mut w);
        Objref::decode(Attrs::new(w.as_bytes())).unwrap()
    }

    #[test]
    fn display_matches_nft_debug() {
        let o = Objref::Imm {
            obj_type: ObjectType::CtHelper,
            name: "ftp-x".into(),
        };
        assert_eq!(o.to_string(), "objref type 3 name ftp-x");
    }

    #[test]
    fn both_forms_round_trip() {
        for o in [
            Objref::Imm {
                obj_type: ObjectType::Other(77),
                name: "q".into(),
            },
            Objref::Map {
                sreg: 9,
                set: "__objmap0".into(),
                set_id: Some(4),
            },
            Objref::Map {
                sreg: 1,
                set: "om".into(),
                set_id: None,
            },
        ] {
            assert_eq!(round_trip(&o), Some(o));
        }
    }

    #[test]
    fn unknown_or_mixed_attributes_are_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_str(NFTA_OBJREF_IMM_NAME, "c1");
        w.put_be32(NFTA_OBJREF_IMM_TYPE, 1);
        w.put_be32(NFTA_OBJREF_SET_ID + 1, 0);
        assert_eq!(Objref::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        w.put_str(NFTA_OBJREF_IMM_NAME, "c1");
        w.put_be32(NFTA_OBJREF_IMM_TYPE, 1);
        w.put_be32(NFTA_OBJREF_SET_SREG, 1);
        assert_eq!(Objref::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
