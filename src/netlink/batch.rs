//! nf_tables batches: many messages framed by BATCH_BEGIN and BATCH_END, applied by the
//! kernel as one transaction.

use iptnl_sys::netlink::{NLM_F_ACK, NLM_F_ECHO, NLM_F_REQUEST};
use iptnl_sys::nfnetlink::{
    nfnl_msg_type, NFNL_BATCH_GENID, NFNL_MSG_BATCH_BEGIN, NFNL_MSG_BATCH_END, NFNL_SUBSYS_NFTABLES,
};

use super::error::EncodeError;
use super::writer::{MsgWriter, NFNL_HDRLEN};

/// Room reserved at the start of the buffer for BATCH_BEGIN with a generation id attribute.
const BEGIN_RESERVE: usize = NFNL_HDRLEN + 8;

/// Index of an operation (message) within a [`Batch`], counting from 0.
pub type OpIndex = usize;

/// A batch of nf_tables messages under construction.
///
/// Messages are appended with [`push`](Batch::push); BATCH_BEGIN (with the optional generation
/// id) and BATCH_END are added when the batch is sent by
/// [`Conn::commit`](super::Conn::commit), in one `sendmsg`. No message asks for an ACK, so a
/// million-message batch does not flood the receive buffer: only failing messages are answered.
///
/// ```
/// use iptnl::netlink::Batch;
/// use iptnl_sys::nf_tables::*;
/// let mut b = Batch::new();
/// let i = b.push(NFT_MSG_NEWTABLE, 0x400, 2, false, |w| w.put_str(NFTA_TABLE_NAME, "filter")).unwrap();
/// assert_eq!(i, 0);
/// assert_eq!(b.len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct Batch {
    w: MsgWriter,
    offsets: Vec<u32>,
    echoes: usize,
    genid: Option<u32>,
}

impl Default for Batch {
    fn default() -> Self {
        Self::new()
    }
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Self::with_capacity(4096)
    }

    /// An empty batch whose buffer can hold `bytes` before growing.
    pub fn with_capacity(bytes: usize) -> Batch {
        let mut w = MsgWriter::with_capacity(bytes.max(BEGIN_RESERVE));
        w.put_raw_zeroes(BEGIN_RESERVE);
        Batch {
            w,
            offsets: Vec::new(),
            echoes: 0,
            genid: None,
        }
    }

    /// Empties the batch, keeping its buffer (already paged in) for the next one, and clears
    /// the generation id.
    pub fn clear(&mut self) {
        self.w.clear();
        self.w.put_raw_zeroes(BEGIN_RESERVE);
        self.offsets.clear();
        self.echoes = 0;
        self.genid = None;
    }

    /// Makes the kernel refuse the whole batch with `ERESTART` (reported as
    /// [`Error::Conflict`](super::Error::Conflict)) if the ruleset generation is no longer
    /// `genid`. `None` (the default) applies the batch whatever the generation.
    pub fn set_genid(&mut self, genid: Option<u32>) {
        self.genid = genid;
    }

    /// The generation id the batch is conditioned on.
    pub fn genid(&self) -> Option<u32> {
        self.genid
    }

    /// Appends one nf_tables message of type `msg` (an `NFT_MSG_*` value) with `flags`
    /// (`NLM_F_REQUEST` is added), for `family`; `attrs` writes its attributes. With `echo`,
    /// the kernel sends the resulting object back (for example a new rule with its handle).
    /// On an encoding error nothing is appended.
    pub fn push(
        &mut self,
        msg: u16,
        flags: u16,
        family: u8,
        echo: bool,
        attrs: impl FnOnce(&mut MsgWriter),
    ) -> Result<OpIndex, EncodeError> {
        let start = self.w.len();
        let mut flags = flags | NLM_F_REQUEST;
        if echo {
            flags |= NLM_F_ECHO;
        }
        let m = self.w.begin(
            nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
            flags,
            0,
            family,
            0,
        );
        attrs(&mut self.w);
        if let Err(e) = self.w.finish(m) {
            self.w.truncate(start);
            return Err(e);
        }
        let Ok(off) = u32::try_from(start) else {
            self.w.truncate(start);
            return Err(EncodeError::MessageTooLarge { len: start });
        };
        self.offsets.push(off);
        if echo {
            self.echoes += 1;
        }
        Ok(self.offsets.len() - 1)
    }

    /// Makes room for at least `additional` more bytes (moving the buffer if it must), so
    /// that writing them later does not move it.
    pub fn reserve(&mut self, additional: usize) {
        self.w.reserve(additional);
    }

    /// Bytes the buffer holds before it has to grow (and move).
    pub fn capacity(&self) -> usize {
        self.w.capacity()
    }

    /// Address of the buffer, bytes written and capacity (for [`Prefault`](super::Prefault)).
    pub(crate) fn buffer_window(&self) -> (usize, usize, usize) {
        self.w.window()
    }

    /// Number of operations (messages between BEGIN and END).
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Number of operations that asked for an echo.
    pub fn echo_count(&self) -> usize {
        self.echoes
    }

    /// Size in bytes of the batch as it will be sent (BEGIN and END included).
    pub fn wire_len(&self) -> usize {
        self.w.len() - BEGIN_RESERVE + self.begin_len() + NFNL_HDRLEN
    }

    fn begin_len(&self) -> usize {
        if self.genid.is_some() {
            NFNL_HDRLEN + 8
        } else {
            NFNL_HDRLEN
        }
    }

    /// The bytes of operation `i` (its whole netlink message), for describing errors.
    pub fn op_bytes(&self, i: OpIndex) -> Option<&[u8]> {
        let start = *self.offsets.get(i)? as usize;
        let end = self
            .offsets
            .get(i + 1)
            .map(|&o| o as usize)
            .unwrap_or(self.w.len());
        self.w.as_bytes().get(start..end)
    }

    /// The attribute bytes of operation `i` (after `nlmsghdr` and `nfgenmsg`).
    pub fn op_attrs(&self, i: OpIndex) -> Option<&[u8]> {
        self.op_bytes(i).and_then(|b| b.get(NFNL_HDRLEN..))
    }

    /// The batch exactly as [`Conn::commit`](super::Conn::commit) would send it, sealed
    /// with sequence numbers from `seq_base` (BEGIN), `seq_base + 1 + i` (operation i) and
    /// `seq_base + 1 + len` (END): to keep a batch aside and have the kernel commit it later, alone (a replay of these bytes in one
    /// `sendmsg` costs the kernel what the commit costs).
    ///
    /// ```
    /// let mut b = iptnl::netlink::Batch::new();
    /// let bytes = b.to_wire(1);
    /// assert_eq!(bytes.len(), b.wire_len()); // BEGIN and END only
    /// ```
    pub fn to_wire(&mut self, seq_base: u32) -> Vec<u8> {
        let start = self.seal(seq_base);
        let bytes = self.sealed_bytes(start).to_vec();
        self.unseal();
        bytes
    }

    /// Finalises the wire form with sequence numbers `seq_base` (BEGIN), `seq_base + 1 + i`
    /// (operation i) and `seq_base + 1 + len` (END), and returns where it starts in the buffer.
    /// [`unseal`](Self::unseal) must be called after sending.
    pub(crate) fn seal(&mut self, seq_base: u32) -> usize {
        let mut begin = MsgWriter::with_capacity(BEGIN_RESERVE);
        let m = begin.begin(
            NFNL_MSG_BATCH_BEGIN,
            NLM_F_REQUEST,
            seq_base,
            0,
            NFNL_SUBSYS_NFTABLES,
        );
        if let Some(g) = self.genid {
            begin.put_be32(NFNL_BATCH_GENID, g);
        }
        begin.finish(m).expect("BATCH_BEGIN is a few bytes");
        let start = BEGIN_RESERVE - begin.len();
        self.w.overwrite(start, begin.as_bytes());
        let buf = self.w.bytes_mut();
        for (i, &off) in self.offsets.iter().enumerate() {
            let seq = seq_base.wrapping_add(1).wrapping_add(i as u32);
            let o = off as usize + 8;
            buf[o..o + 4].copy_from_slice(&seq.to_ne_bytes());
        }
        let end_seq = self.end_seq(seq_base);
        // ACK on BATCH_END is honoured from kernel 6.10 on and ignored before; it is read if
        // present and never waited for.
        let m = self.w.begin(
            NFNL_MSG_BATCH_END,
            NLM_F_REQUEST | NLM_F_ACK,
            end_seq,
            0,
            NFNL_SUBSYS_NFTABLES,
        );
        self.w.finish(m).expect("BATCH_END is a header only");
        start
    }

    /// Removes what [`seal`](Self::seal) added after the operations.
    pub(crate) fn unseal(&mut self) {
        let len = self.w.len() - NFNL_HDRLEN;
        self.w.truncate(len);
    }

    /// The sealed bytes from `start`.
    pub(crate) fn sealed_bytes(&self, start: usize) -> &[u8] {
        &self.w.as_bytes()[start..]
    }

    /// Sequence number of BATCH_END for a batch sealed with `seq_base`.
    pub(crate) fn end_seq(&self, seq_base: u32) -> u32 {
        seq_base
            .wrapping_add(1)
            .wrapping_add(self.offsets.len() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netlink::Messages;
    use iptnl_sys::netlink::NLMSG_HDRLEN;

    #[test]
    fn sealed_batch_is_begin_ops_end_with_consecutive_seqs() {
        let mut b = Batch::new();
        b.push(0, 0x400, 2, false, |w| w.put_str(1, "t")).unwrap();
        b.push(0, 0x400, 2, true, |w| w.put_str(1, "u")).unwrap();
        b.set_genid(Some(77));
        let wire_len = b.wire_len();
        let start = b.seal(100);
        let bytes = b.sealed_bytes(start).to_vec();
        assert_eq!(bytes.len(), wire_len);
        let msgs: Vec<_> = Messages::new(&bytes).map(|m| m.unwrap()).collect();
        assert_eq!(msgs.len(), 4);
        assert_eq!(msgs[0].msg_type(), NFNL_MSG_BATCH_BEGIN);
        let genid = msgs[0].nfgen().unwrap().attrs().next().unwrap().unwrap();
        assert_eq!(genid.be32().unwrap(), 77);
        assert_eq!(msgs[0].nfgen().unwrap().res_id, NFNL_SUBSYS_NFTABLES);
        let seqs: Vec<u32> = msgs.iter().map(|m| m.seq()).collect();
        assert_eq!(seqs, vec![100, 101, 102, 103]);
        assert_eq!(msgs[2].flags() & NLM_F_ECHO, NLM_F_ECHO);
        assert_eq!(msgs[3].msg_type(), NFNL_MSG_BATCH_END);
        b.unseal();
        assert_eq!(b.len(), 2);
        assert_eq!(b.op_bytes(1).unwrap().len(), NLMSG_HDRLEN + 4 + 8);
    }

    #[test]
    fn failed_encoding_appends_nothing() {
        let mut b = Batch::new();
        let before = b.wire_len();
        let r = b.push(0, 0, 2, false, |w| w.put(1, &vec![0u8; 70_000]));
        assert!(r.is_err());
        assert_eq!(b.wire_len(), before);
        assert!(b.is_empty());
    }
}
