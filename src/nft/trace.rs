//! Packet traces: what the kernel reports (`NFT_MSG_TRACE` on `NFNLGRP_NFTRACE`) for each
//! rule, return and policy a packet marked for tracing (`meta nftrace set 1`, iptables'
//! `-j TRACE`) meets.

use iptnl_sys::nf_tables::*;

use crate::netlink::{DecodeError, Message};

/// One trace message.
///
/// ```
/// use iptnl::nft::trace::Trace;
/// let t = Trace::default();
/// assert_eq!(t.kind, 0);
/// assert!(t.rule_handle.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// The `NFPROTO_*` family of the table traversed.
    pub family: u8,
    /// The packet's trace id: the same for every message about one packet.
    pub id: u32,
    /// `NFT_TRACETYPE_*`: rule, return or policy.
    pub kind: u32,
    /// The table.
    pub table: Option<String>,
    /// The chain.
    pub chain: Option<String>,
    /// The rule's handle (rule traces).
    pub rule_handle: Option<u64>,
    /// The verdict code (`NF_*` or `NFT_*`) and the chain of a jump or goto.
    pub verdict: Option<(i32, Option<String>)>,
    /// The chain's policy (policy traces).
    pub policy: Option<u32>,
    /// The link-layer header (first message of a packet only).
    pub ll_header: Option<Vec<u8>>,
    /// The network header (first message of a packet only).
    pub network_header: Option<Vec<u8>>,
    /// The transport header (first message of a packet only).
    pub transport_header: Option<Vec<u8>>,
    /// Input interface index.
    pub iif: Option<u32>,
    /// Input interface type (`ARPHRD_*`).
    pub iif_type: Option<u16>,
    /// Output interface index.
    pub oif: Option<u32>,
    /// Output interface type (`ARPHRD_*`).
    pub oif_type: Option<u16>,
    /// The packet mark.
    pub mark: Option<u32>,
    /// The packet's protocol family when the table's family is inet, bridge or netdev.
    pub nfproto: Option<u32>,
}

impl Trace {
    /// Reads a trace message.
    ///
    /// ```
    /// use iptnl::netlink::{Messages, MsgWriter};
    /// use iptnl::nft::trace::Trace;
    /// use iptnl::sys::nf_tables::*;
    /// use iptnl::sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
    /// let mut w = MsgWriter::new();
    /// let m = w.begin(nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_TRACE), 0, 1, 2, 0);
    /// w.put_str(NFTA_TRACE_TABLE, "filter");
    /// w.put_be32(NFTA_TRACE_TYPE, NFT_TRACETYPE_POLICY);
    /// w.put_be32(NFTA_TRACE_ID, 7);
    /// w.finish(m).unwrap();
    /// let bytes = w.into_bytes();
    /// let t = Trace::decode(&Messages::new(&bytes).next().unwrap().unwrap()).unwrap();
    /// assert_eq!((t.family, t.id, t.kind), (2, 7, NFT_TRACETYPE_POLICY));
    /// assert_eq!(t.table.as_deref(), Some("filter"));
    /// ```
    pub fn decode(m: &Message<'_>) -> Result<Trace, DecodeError> {
        let nf = m.nfgen()?;
        let mut t = Trace {
            family: nf.family,
            ..Trace::default()
        };
        for a in nf.attrs() {
            let a = a?;
            match a.kind() {
                NFTA_TRACE_TABLE => t.table = Some(a.str()?.to_owned()),
                NFTA_TRACE_CHAIN => t.chain = Some(a.str()?.to_owned()),
                NFTA_TRACE_RULE_HANDLE => t.rule_handle = Some(a.be64()?),
                NFTA_TRACE_TYPE => t.kind = a.be32()?,
                NFTA_TRACE_VERDICT => {
                    let (mut code, mut chain) = (0, None);
                    for v in a.nested() {
                        let v = v?;
                        match v.kind() {
                            NFTA_VERDICT_CODE => code = v.be32_signed()?,
                            NFTA_VERDICT_CHAIN => chain = Some(v.str()?.to_owned()),
                            _ => {}
                        }
                    }
                    t.verdict = Some((code, chain));
                }
                NFTA_TRACE_ID => t.id = a.be32()?,
                NFTA_TRACE_LL_HEADER => t.ll_header = Some(a.data().to_vec()),
                NFTA_TRACE_NETWORK_HEADER => t.network_header = Some(a.data().to_vec()),
                NFTA_TRACE_TRANSPORT_HEADER => t.transport_header = Some(a.data().to_vec()),
                NFTA_TRACE_IIF => t.iif = Some(a.be32()?),
                NFTA_TRACE_IIFTYPE => t.iif_type = Some(a.be16()?),
                NFTA_TRACE_OIF => t.oif = Some(a.be32()?),
                NFTA_TRACE_OIFTYPE => t.oif_type = Some(a.be16()?),
                NFTA_TRACE_MARK => t.mark = Some(a.be32()?),
                NFTA_TRACE_NFPROTO => t.nfproto = Some(a.be32()?),
                NFTA_TRACE_POLICY => t.policy = Some(a.be32()?),
                _ => {}
            }
        }
        Ok(t)
    }
}
