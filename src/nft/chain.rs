//! Chains: ordered lists of rules. Base chains hang on a netfilter hook.

use std::fmt;

use iptnl_sys::netfilter::{NF_ACCEPT, NF_DROP};
use iptnl_sys::nf_tables::*;

use super::Family;
use crate::netlink::{DecodeError, Message, MsgWriter};

/// The type of a base chain.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ChainType {
    /// `filter`.
    Filter,
    /// `nat`.
    Nat,
    /// `route` (mangle OUTPUT in iptables-nft).
    Route,
    /// Any other type name.
    Other(String),
}

impl ChainType {
    /// The name on the wire.
    pub fn name(&self) -> &str {
        match self {
            ChainType::Filter => "filter",
            ChainType::Nat => "nat",
            ChainType::Route => "route",
            ChainType::Other(s) => s,
        }
    }

    /// The type of a name.
    pub fn from_name(s: &str) -> ChainType {
        match s {
            "filter" => ChainType::Filter,
            "nat" => ChainType::Nat,
            "route" => ChainType::Route,
            s => ChainType::Other(s.to_owned()),
        }
    }
}

/// The default verdict of a base chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Accept packets that reach the end of the chain.
    Accept,
    /// Drop them.
    Drop,
}

impl Policy {
    /// The verdict code.
    pub fn raw(self) -> u32 {
        match self {
            Policy::Accept => NF_ACCEPT as u32,
            Policy::Drop => NF_DROP as u32,
        }
    }

    /// The policy of a verdict code.
    pub fn from_raw(v: u32) -> Option<Policy> {
        match v as i32 {
            NF_ACCEPT => Some(Policy::Accept),
            NF_DROP => Some(Policy::Drop),
            _ => None,
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Accept => "ACCEPT",
            Policy::Drop => "DROP",
        })
    }
}

/// The hook of a base chain.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hook {
    /// `NF_INET_*` (or netdev) hook number.
    pub num: u32,
    /// Priority: lower runs first.
    pub priority: i32,
    /// Chain type.
    pub chain_type: ChainType,
    /// Default verdict (absent for netdev chains without one).
    pub policy: Option<Policy>,
    /// Device(s) for netdev/inet ingress chains.
    pub devices: Vec<String>,
}

/// An nf_tables chain.
///
/// ```
/// use iptnl::nft::{Chain, Family};
/// let c = Chain::user(Family::Ipv4, "nat", "KUBE-SERVICES");
/// assert!(c.hook.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chain {
    /// The family of its table.
    pub family: Family,
    /// Its table.
    pub table: String,
    /// Its name.
    pub name: String,
    /// Handle assigned by the kernel (read only; also used to rename).
    pub handle: Option<u64>,
    /// Hook, for base chains.
    pub hook: Option<Hook>,
    /// Chain counters (packets, bytes), for base chains.
    pub counters: Option<(u64, u64)>,
    /// `NFT_CHAIN_*` flags as dumped (base, hw offload, binding).
    pub flags: Option<u32>,
    /// Number of references (rules in it and jumps to it; read only).
    pub use_count: Option<u32>,
    /// Batch-local id, to reference a chain created in the same batch.
    pub id: Option<u32>,
    /// Opaque user data.
    pub userdata: Option<Vec<u8>>,
}

impl Chain {
    /// A user (regular) chain.
    pub fn user(family: Family, table: impl Into<String>, name: impl Into<String>) -> Chain {
        Chain {
            family,
            table: table.into(),
            name: name.into(),
            handle: None,
            hook: None,
            counters: None,
            flags: None,
            use_count: None,
            id: None,
            userdata: None,
        }
    }

    /// A base chain.
    pub fn base(
        family: Family,
        table: impl Into<String>,
        name: impl Into<String>,
        hook: Hook,
    ) -> Chain {
        Chain {
            hook: Some(hook),
            ..Chain::user(family, table, name)
        }
    }

    /// Writes the attributes of a NEWCHAIN message.
    pub fn encode(&self, w: &mut MsgWriter) {
        w.put_str(NFTA_CHAIN_TABLE, &self.table);
        if let Some(h) = self.handle {
            w.put_be64(NFTA_CHAIN_HANDLE, h);
        }
        w.put_str(NFTA_CHAIN_NAME, &self.name);
        if let Some(h) = &self.hook {
            let n = w.nest(NFTA_CHAIN_HOOK);
            w.put_be32(NFTA_HOOK_HOOKNUM, h.num);
            w.put_be32(NFTA_HOOK_PRIORITY, h.priority as u32);
            match h.devices.as_slice() {
                [] => {}
                [one] => w.put_str(NFTA_HOOK_DEV, one),
                many => {
                    let d = w.nest(NFTA_HOOK_DEVS);
                    for dev in many {
                        w.put_str(NFTA_DEVICE_NAME, dev);
                    }
                    w.end_nest(d);
                }
            }
            w.end_nest(n);
            if let Some(p) = h.policy {
                w.put_be32(NFTA_CHAIN_POLICY, p.raw());
            }
            w.put_str(NFTA_CHAIN_TYPE, h.chain_type.name());
        }
        if let Some((packets, bytes)) = self.counters {
            let n = w.nest(NFTA_CHAIN_COUNTERS);
            w.put_be64(NFTA_COUNTER_BYTES, bytes);
            w.put_be64(NFTA_COUNTER_PACKETS, packets);
            w.end_nest(n);
        }
        if let Some(id) = self.id {
            w.put_be32(NFTA_CHAIN_ID, id);
        }
        if let Some(u) = &self.userdata {
            w.put(NFTA_CHAIN_USERDATA, u);
        }
    }

    /// Reads a NEWCHAIN message (dump reply or event).
    pub fn decode(m: &Message<'_>) -> Result<Chain, DecodeError> {
        let nf = m.nfgen()?;
        let family = Family::from_raw(nf.family).ok_or(DecodeError::BadValue {
            what: "chain family",
            value: nf.family as i64,
        })?;
        let t = nf.attrs().table::<{ NFTA_CHAIN_ID as usize + 8 }>()?;
        let hook = match t.get(NFTA_CHAIN_HOOK) {
            None => None,
            Some(h) => {
                let ht = h.nested().table::<{ NFTA_HOOK_DEVS as usize + 1 }>()?;
                // The kernel sends NFTA_HOOK_DEVS, and NFTA_HOOK_DEV as well when the
                // chain has one device: the list is read from the first when present.
                let mut devices = Vec::new();
                if let Some(ds) = ht.get(NFTA_HOOK_DEVS) {
                    for d in ds.nested() {
                        devices.push(d?.str()?.to_owned());
                    }
                } else if let Some(d) = ht.get(NFTA_HOOK_DEV) {
                    devices.push(d.str()?.to_owned());
                }
                let policy = match t.get(NFTA_CHAIN_POLICY) {
                    Some(p) => Some(Policy::from_raw(p.be32()?).ok_or(DecodeError::BadValue {
                        what: "chain policy",
                        value: p.be32()? as i64,
                    })?),
                    None => None,
                };
                Some(Hook {
                    num: ht.need(NFTA_HOOK_HOOKNUM, "hook number")?.be32()?,
                    priority: ht
                        .need(NFTA_HOOK_PRIORITY, "hook priority")?
                        .be32_signed()?,
                    chain_type: ChainType::from_name(
                        t.get(NFTA_CHAIN_TYPE)
                            .map(|a| a.str())
                            .transpose()?
                            .unwrap_or("filter"),
                    ),
                    policy,
                    devices,
                })
            }
        };
        let counters = match t.get(NFTA_CHAIN_COUNTERS) {
            None => None,
            Some(c) => {
                let ct = c
                    .nested()
                    .table::<{ NFTA_COUNTER_PACKETS as usize + 2 }>()?;
                Some((
                    ct.need(NFTA_COUNTER_PACKETS, "chain packet counter")?
                        .be64()?,
                    ct.need(NFTA_COUNTER_BYTES, "chain byte counter")?.be64()?,
                ))
            }
        };
        Ok(Chain {
            family,
            table: t.need(NFTA_CHAIN_TABLE, "chain table")?.str()?.to_owned(),
            name: t.need(NFTA_CHAIN_NAME, "chain name")?.str()?.to_owned(),
            handle: t.get(NFTA_CHAIN_HANDLE).map(|a| a.be64()).transpose()?,
            hook,
            counters,
            flags: t.get(NFTA_CHAIN_FLAGS).map(|a| a.be32()).transpose()?,
            use_count: t.get(NFTA_CHAIN_USE).map(|a| a.be32()).transpose()?,
            id: None,
            userdata: t.get(NFTA_CHAIN_USERDATA).map(|a| a.data().to_vec()),
        })
    }
}
