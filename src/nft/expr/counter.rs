//! `counter`: count packets and bytes that reach it.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A `counter` expression. iptables-nft puts one in every rule, before the verdict.
///
/// ```
/// use iptnl::nft::expr::Counter;
/// assert_eq!(Counter { packets: 3, bytes: 180 }.to_string(), "counter pkts 3 bytes 180");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counter {
    /// Packets counted.
    pub packets: u64,
    /// Bytes counted.
    pub bytes: u64,
}

impl ExprKind for Counter {
    const NAME: &'static str = "counter";

    fn encode(&self, w: &mut MsgWriter) {
        // The kernel dumps bytes first, then packets.
        w.put_be64(NFTA_COUNTER_BYTES, self.bytes);
        w.put_be64(NFTA_COUNTER_PACKETS, self.packets);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_COUNTER_PACKETS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        Ok(Some(Counter {
            bytes: t.need(NFTA_COUNTER_BYTES, "counter bytes")?.be64()?,
            packets: t.need(NFTA_COUNTER_PACKETS, "counter packets")?.be64()?,
        }))
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "counter pkts {} bytes {}", self.packets, self.bytes)
    }
}
