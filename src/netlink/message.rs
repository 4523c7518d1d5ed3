//! Zero-copy, bounds-checked reading of netlink messages.

use iptnl_sys::netlink::{
    nlmsg_align, NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS, NLMSG_HDRLEN, NLM_F_ACK_TLVS, NLM_F_CAPPED,
};

use super::attr::Attrs;
use super::error::DecodeError;

/// One netlink message: header fields and payload.
///
/// ```
/// use iptnl::netlink::{Messages, MsgWriter};
/// let mut w = MsgWriter::new();
/// let m = w.begin(0x0a10, 1, 5, 2, 0);
/// w.put_be32(1, 3);
/// w.finish(m).unwrap();
/// let msg = Messages::new(w.as_bytes()).next().unwrap().unwrap();
/// assert_eq!(msg.seq(), 5);
/// let nf = msg.nfgen().unwrap();
/// assert_eq!(nf.family, 2);
/// assert_eq!(nf.attrs().next().unwrap().unwrap().be32().unwrap(), 3);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Message<'a> {
    ty: u16,
    flags: u16,
    seq: u32,
    pid: u32,
    bytes: &'a [u8],
}

impl<'a> Message<'a> {
    /// `nlmsg_type`.
    pub fn msg_type(&self) -> u16 {
        self.ty
    }

    /// `nlmsg_flags`.
    pub fn flags(&self) -> u16 {
        self.flags
    }

    /// `nlmsg_seq`.
    pub fn seq(&self) -> u32 {
        self.seq
    }

    /// `nlmsg_pid`.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The whole message, header included.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The payload after `nlmsghdr`.
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[NLMSG_HDRLEN..]
    }

    /// The payload read as an nfnetlink message (`nfgenmsg` then attributes).
    pub fn nfgen(&self) -> Result<NfMessage<'a>, DecodeError> {
        let p = self.payload();
        if p.len() < 4 {
            return Err(DecodeError::Truncated {
                what: "nfgenmsg",
                need: 4,
                have: p.len(),
            });
        }
        Ok(NfMessage {
            family: p[0],
            version: p[1],
            res_id: u16::from_be_bytes([p[2], p[3]]),
            attrs: &p[4..],
        })
    }

    /// The payload read as an `NLMSG_ERROR` message.
    pub fn error(&self) -> Result<ErrorMessage<'a>, DecodeError> {
        let p = self.payload();
        if p.len() < 4 + NLMSG_HDRLEN {
            return Err(DecodeError::Truncated {
                what: "nlmsgerr",
                need: 4 + NLMSG_HDRLEN,
                have: p.len(),
            });
        }
        let errno = i32::from_ne_bytes([p[0], p[1], p[2], p[3]]);
        let orig = &p[4..4 + NLMSG_HDRLEN];
        let orig_len = u32::from_ne_bytes([orig[0], orig[1], orig[2], orig[3]]) as usize;
        let orig_type = u16::from_ne_bytes([orig[4], orig[5]]);
        let orig_seq = u32::from_ne_bytes([orig[8], orig[9], orig[10], orig[11]]);
        let mut rest = &p[4 + NLMSG_HDRLEN..];
        if self.flags & NLM_F_CAPPED == 0 && errno != 0 {
            // The original message's payload was copied back too: skip it.
            let skip = nlmsg_align(orig_len.saturating_sub(NLMSG_HDRLEN)).min(rest.len());
            rest = &rest[skip..];
        }
        let mut ext_msg = None;
        let mut ext_offset = None;
        if self.flags & NLM_F_ACK_TLVS != 0 {
            for a in Attrs::new(rest) {
                let Ok(a) = a else { break };
                match a.kind() {
                    NLMSGERR_ATTR_MSG => ext_msg = a.str().ok(),
                    NLMSGERR_ATTR_OFFS => ext_offset = a.ne32().ok(),
                    _ => {}
                }
            }
        }
        Ok(ErrorMessage {
            // The kernel sends a negative errno; any other value is read without overflow.
            errno: errno.saturating_neg(),
            orig_type,
            orig_seq,
            ext_msg,
            ext_offset,
        })
    }
}

/// The nfnetlink part of a message.
#[derive(Debug, Clone, Copy)]
pub struct NfMessage<'a> {
    /// `nfgen_family`.
    pub family: u8,
    /// `version`.
    pub version: u8,
    /// `res_id` in host order (for nf_tables replies: low 16 bits of the generation).
    pub res_id: u16,
    attrs: &'a [u8],
}

impl<'a> NfMessage<'a> {
    /// The message's attributes.
    pub fn attrs(&self) -> Attrs<'a> {
        Attrs::new(self.attrs)
    }

    /// The raw attribute bytes.
    pub fn attr_bytes(&self) -> &'a [u8] {
        self.attrs
    }
}

/// An `NLMSG_ERROR` message: an error (or, with errno 0, an ACK) for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorMessage<'a> {
    /// Positive errno; 0 for an ACK.
    pub errno: i32,
    /// Type of the message it answers.
    pub orig_type: u16,
    /// Sequence number of the message it answers.
    pub orig_seq: u32,
    /// Extended-ACK text.
    pub ext_msg: Option<&'a str>,
    /// Extended-ACK offset of the offending attribute in the original message.
    pub ext_offset: Option<u32>,
}

/// An iterator over the messages in a received buffer. It yields `Err` once for a malformed
/// message and then stops.
#[derive(Debug, Clone)]
pub struct Messages<'a> {
    buf: &'a [u8],
    failed: bool,
}

impl<'a> Messages<'a> {
    /// Iterates over the messages in `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Messages { buf, failed: false }
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<Message<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.buf.is_empty() {
            return None;
        }
        let b = self.buf;
        if b.len() < NLMSG_HDRLEN {
            self.failed = true;
            return Some(Err(DecodeError::Truncated {
                what: "message header",
                need: NLMSG_HDRLEN,
                have: b.len(),
            }));
        }
        let len = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize;
        if len < NLMSG_HDRLEN || len > b.len() {
            self.failed = true;
            return Some(Err(DecodeError::Truncated {
                what: "message",
                need: len.max(NLMSG_HDRLEN),
                have: b.len(),
            }));
        }
        let msg = Message {
            ty: u16::from_ne_bytes([b[4], b[5]]),
            flags: u16::from_ne_bytes([b[6], b[7]]),
            seq: u32::from_ne_bytes([b[8], b[9], b[10], b[11]]),
            pid: u32::from_ne_bytes([b[12], b[13], b[14], b[15]]),
            bytes: &b[..len],
        };
        self.buf = &b[nlmsg_align(len).min(b.len())..];
        Some(Ok(msg))
    }
}
