//! Tables: named containers of chains, sets and objects in one family.

use iptnl_sys::nf_tables::*;

use super::Family;
use crate::netlink::{DecodeError, Message, MsgWriter};

/// An nf_tables table.
///
/// ```
/// use iptnl::nft::{Family, Table};
/// let t = Table::new(Family::Ipv4, "nat");
/// assert_eq!(t.name, "nat");
/// assert_eq!(t.flags, 0);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Table {
    /// The family.
    pub family: Family,
    /// The name.
    pub name: String,
    /// `NFT_TABLE_F_*` flags (dormant, owner, persist).
    pub flags: u32,
    /// Handle assigned by the kernel (read only).
    pub handle: Option<u64>,
    /// Number of chains, sets and objects in it (read only).
    pub use_count: Option<u32>,
    /// Opaque user data (nft stores its version here).
    pub userdata: Option<Vec<u8>>,
    /// Port id of the owning socket when `NFT_TABLE_F_OWNER` is set (read only).
    pub owner: Option<u32>,
}

impl Table {
    /// A table with no flags, as iptables-nft creates them.
    pub fn new(family: Family, name: impl Into<String>) -> Table {
        Table {
            family,
            name: name.into(),
            flags: 0,
            handle: None,
            use_count: None,
            userdata: None,
            owner: None,
        }
    }

    /// Writes the attributes of a NEWTABLE message.
    pub fn encode(&self, w: &mut MsgWriter) {
        w.put_str(NFTA_TABLE_NAME, &self.name);
        w.put_be32(NFTA_TABLE_FLAGS, self.flags);
        if let Some(u) = &self.userdata {
            w.put(NFTA_TABLE_USERDATA, u);
        }
    }

    /// Reads a NEWTABLE message (dump reply or event).
    pub fn decode(m: &Message<'_>) -> Result<Table, DecodeError> {
        let nf = m.nfgen()?;
        let family = Family::from_raw(nf.family).ok_or(DecodeError::BadValue {
            what: "table family",
            value: nf.family as i64,
        })?;
        let t = nf.attrs().table::<{ NFTA_TABLE_OWNER as usize + 1 }>()?;
        Ok(Table {
            family,
            name: t.need(NFTA_TABLE_NAME, "table name")?.str()?.to_owned(),
            flags: t
                .get(NFTA_TABLE_FLAGS)
                .map(|a| a.be32())
                .transpose()?
                .unwrap_or(0),
            handle: t.get(NFTA_TABLE_HANDLE).map(|a| a.be64()).transpose()?,
            use_count: t.get(NFTA_TABLE_USE).map(|a| a.be32()).transpose()?,
            userdata: t.get(NFTA_TABLE_USERDATA).map(|a| a.data().to_vec()),
            owner: t.get(NFTA_TABLE_OWNER).map(|a| a.be32()).transpose()?,
        })
    }
}
