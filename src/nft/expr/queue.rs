//! `queue`: pass the packet to a userspace program through nfnetlink_queue (`queue num`).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// Which queue a packet goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueueTarget {
    /// Queue `num`, or one of `total` queues starting at `num` (spread by flow hash, or by
    /// CPU with `NFT_QUEUE_FLAG_CPU_FANOUT`).
    Num {
        /// First queue number (`NFTA_QUEUE_NUM`).
        num: u16,
        /// Number of queues (`NFTA_QUEUE_TOTAL`, 1 for a single queue).
        total: u16,
    },
    /// The queue number held in a register (`NFTA_QUEUE_SREG_QNUM`).
    Sreg(u32),
}

/// A `queue` expression.
///
/// ```
/// use iptnl::nft::expr::Queue;
/// use iptnl::nft::expr::queue::QueueTarget;
/// use iptnl::sys::nf_tables::{NFT_QUEUE_FLAG_BYPASS, NFT_QUEUE_FLAG_CPU_FANOUT};
/// // queue num 2-3 fanout,bypass
/// let q = Queue {
///     target: QueueTarget::Num { num: 2, total: 2 },
///     flags: (NFT_QUEUE_FLAG_BYPASS | NFT_QUEUE_FLAG_CPU_FANOUT) as u16,
/// };
/// assert_eq!(q.to_string(), "queue num 2-3 bypass fanout");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Queue {
    /// The queue.
    pub target: QueueTarget,
    /// `NFT_QUEUE_FLAG_*` (`NFTA_QUEUE_FLAGS`, 16 bits, always dumped).
    pub flags: u16,
}

impl ExprKind for Queue {
    const NAME: &'static str = "queue";

    fn encode(&self, w: &mut MsgWriter) {
        match self.target {
            QueueTarget::Num { num, total } => {
                w.put_be16(NFTA_QUEUE_NUM, num);
                w.put_be16(NFTA_QUEUE_TOTAL, total);
            }
            QueueTarget::Sreg(r) => w.put_be32(NFTA_QUEUE_SREG_QNUM, r),
        }
        w.put_be16(NFTA_QUEUE_FLAGS, self.flags);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_QUEUE_SREG_QNUM as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let Some(flags) = t.get(NFTA_QUEUE_FLAGS) else {
            return Ok(None);
        };
        let target = match (
            t.get(NFTA_QUEUE_NUM),
            t.get(NFTA_QUEUE_TOTAL),
            t.get(NFTA_QUEUE_SREG_QNUM),
        ) {
            (Some(num), Some(total), None) => QueueTarget::Num {
                num: num.be16()?,
                total: total.be16()?,
            },
            (None, None, Some(r)) => QueueTarget::Sreg(r.be32()?),
            _ => return Ok(None),
        };
        Ok(Some(Queue {
            target,
            flags: flags.be16()?,
        }))
    }
}

impl fmt::Display for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("queue")?;
        match self.target {
            QueueTarget::Num { num, total } => {
                write!(f, " num {num}")?;
                if total > 1 {
                    write!(f, "-{}", u32::from(num) + u32::from(total) - 1)?;
                }
            }
            QueueTarget::Sreg(r) => write!(f, " sreg_qnum {r}")?,
        }
        if u32::from(self.flags) & NFT_QUEUE_FLAG_BYPASS != 0 {
            f.write_str(" bypass")?;
        }
        if u32::from(self.flags) & NFT_QUEUE_FLAG_CPU_FANOUT != 0 {
            f.write_str(" fanout")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let q = Queue {
            target: QueueTarget::Num { num: 4, total: 1 },
            flags: 0,
        };
        let mut w = MsgWriter::new();
        q.encode(&mut w);
        // The layout of nft_queue_dump: three 16-bit attributes.
        assert_eq!(
            w.as_bytes(),
            &[6, 0, 1, 0, 0, 4, 0, 0, 6, 0, 2, 0, 0, 1, 0, 0, 6, 0, 3, 0, 0, 0, 0, 0]
        );
        assert_eq!(Queue::decode(Attrs::new(w.as_bytes())).unwrap(), Some(q));
        assert_eq!(q.to_string(), "queue num 4");
        let s = Queue {
            target: QueueTarget::Sreg(1),
            flags: NFT_QUEUE_FLAG_BYPASS as u16,
        };
        let mut w = MsgWriter::new();
        s.encode(&mut w);
        assert_eq!(Queue::decode(Attrs::new(w.as_bytes())).unwrap(), Some(s));
        assert_eq!(s.to_string(), "queue sreg_qnum 1 bypass");
    }

    #[test]
    fn unknown_or_inconsistent_attributes_are_not_decoded() {
        let mut w = MsgWriter::new();
        Queue {
            target: QueueTarget::Num { num: 1, total: 1 },
            flags: 0,
        }
        .encode(&mut w);
        w.put_be32(NFTA_QUEUE_SREG_QNUM + 1, 0);
        assert_eq!(Queue::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        // both a number and a register
        let mut w = MsgWriter::new();
        w.put_be16(NFTA_QUEUE_NUM, 1);
        w.put_be16(NFTA_QUEUE_TOTAL, 1);
        w.put_be16(NFTA_QUEUE_FLAGS, 0);
        w.put_be32(NFTA_QUEUE_SREG_QNUM, 1);
        assert_eq!(Queue::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
