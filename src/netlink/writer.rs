//! A contiguous-buffer writer for netlink messages and attributes.
//!
//! Messages and attributes are appended to one `Vec<u8>`, so a whole batch of a million rules
//! is built without one allocation per attribute. A nest is opened by reserving its header and
//! patched in place when it is closed. An attribute or nest longer than the 16-bit
//! `nla_len` allows is never wrapped silently: the writer remembers the first such overflow and
//! [`MsgWriter::finish`] reports it.

use iptnl_sys::netlink::{nla_align, NLA_HDRLEN, NLMSG_HDRLEN};

use super::error::EncodeError;

/// Size of `nlmsghdr` + `nfgenmsg`, the start of every nfnetlink message.
pub const NFNL_HDRLEN: usize = NLMSG_HDRLEN + 4;

/// Largest value that fits in `nla_len`.
pub const NLA_MAX_LEN: usize = u16::MAX as usize;

/// The start of an open message, returned by [`MsgWriter::begin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a message must be closed with MsgWriter::finish"]
pub struct MsgStart(usize);

impl MsgStart {
    /// Offset of the message's `nlmsghdr` in the writer's buffer.
    pub fn offset(self) -> usize {
        self.0
    }
}

/// An open nest, returned by [`MsgWriter::nest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a nest must be closed with MsgWriter::end_nest"]
pub struct Nest {
    start: usize,
    ty: u16,
}

/// Builds netlink messages into one contiguous buffer.
///
/// ```
/// use iptnl::netlink::MsgWriter;
/// let mut w = MsgWriter::new();
/// let m = w.begin(0x0a00, 0x01, 7, 2, 0);
/// w.put_str(1, "filter");
/// let n = w.nest(2);
/// w.put_be32(1, 42);
/// w.end_nest(n);
/// w.finish(m).unwrap();
/// // nlmsghdr(16) + nfgenmsg(4) + "filter\0"(4+7, padded to 12) + nest(4) + u32(8)
/// assert_eq!(w.len(), 16 + 4 + 12 + 4 + 8);
/// ```
#[derive(Debug, Default, Clone)]
pub struct MsgWriter {
    buf: Vec<u8>,
    overflow: Option<EncodeError>,
}

impl MsgWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer that can hold `cap` bytes before growing.
    pub fn with_capacity(cap: usize) -> Self {
        MsgWriter {
            buf: Vec::with_capacity(cap),
            overflow: None,
        }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Number of bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Makes room for at least `additional` more bytes (moving the buffer if it must), so
    /// that writing them later does not move it.
    pub fn reserve(&mut self, additional: usize) {
        self.buf.reserve(additional);
    }

    /// Bytes the buffer holds before it has to grow (and move).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Address of the buffer, bytes written and capacity.
    pub(crate) fn window(&self) -> (usize, usize, usize) {
        (
            self.buf.as_ptr() as usize,
            self.buf.len(),
            self.buf.capacity(),
        )
    }

    /// Drops everything written, keeping the allocation.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.overflow = None;
    }

    /// Takes the buffer out of the writer.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Appends bytes that are whole attributes or messages already.
    pub(crate) fn put_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Appends what `f` writes: whole attributes already (an in-memory ruleset's stored
    /// expressions, unfolded straight into the message).
    pub(crate) fn put_interned(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        f(&mut self.buf);
    }

    /// Appends `n` zero bytes (room to be overwritten later).
    pub(crate) fn put_raw_zeroes(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }

    /// Overwrites bytes at `at` (which must already be written).
    pub(crate) fn overwrite(&mut self, at: usize, bytes: &[u8]) {
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// The buffer, for patching fields in place.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// Cuts the buffer back to `len` bytes (to drop a message that could not be completed).
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
    }

    /// Opens an nfnetlink message: `nlmsghdr` (length patched by [`finish`](Self::finish)) and
    /// `nfgenmsg` with `family`, version 0 and `res_id` (given in host order, written big endian).
    pub fn begin(&mut self, ty: u16, flags: u16, seq: u32, family: u8, res_id: u16) -> MsgStart {
        let start = self.buf.len();
        self.buf.extend_from_slice(&0u32.to_ne_bytes());
        self.buf.extend_from_slice(&ty.to_ne_bytes());
        self.buf.extend_from_slice(&flags.to_ne_bytes());
        self.buf.extend_from_slice(&seq.to_ne_bytes());
        self.buf.extend_from_slice(&0u32.to_ne_bytes());
        self.buf.push(family);
        self.buf.push(0);
        self.buf.extend_from_slice(&res_id.to_be_bytes());
        MsgStart(start)
    }

    /// Closes a message opened with [`begin`](Self::begin), patching its length, and reports
    /// the first attribute or nest that did not fit in 16 bits.
    pub fn finish(&mut self, m: MsgStart) -> Result<(), EncodeError> {
        if let Some(e) = self.overflow.take() {
            return Err(e);
        }
        let len = self.buf.len() - m.0;
        let len32 = u32::try_from(len).map_err(|_| EncodeError::MessageTooLarge { len })?;
        self.buf[m.0..m.0 + 4].copy_from_slice(&len32.to_ne_bytes());
        Ok(())
    }

    fn note_overflow(&mut self, ty: u16, len: usize) {
        if self.overflow.is_none() {
            self.overflow = Some(EncodeError::AttributeTooLarge { ty, len });
        }
    }

    /// Appends an attribute with `data` as its payload, padded to 4 bytes.
    #[inline]
    pub fn put(&mut self, ty: u16, data: &[u8]) {
        let len = NLA_HDRLEN + data.len();
        if len > NLA_MAX_LEN {
            self.note_overflow(ty, len);
            return;
        }
        let pad = nla_align(len) - len;
        self.buf.reserve(len + pad);
        let l = (len as u16).to_ne_bytes();
        let t = ty.to_ne_bytes();
        self.buf.extend_from_slice(&[l[0], l[1], t[0], t[1]]);
        self.buf.extend_from_slice(data);
        self.buf.extend_from_slice(&[0u8; 3][..pad]);
    }

    /// Appends an attribute with a payload of 4 bytes or less (one copy, no padding logic).
    #[inline]
    fn put_small<const N: usize>(&mut self, ty: u16, data: [u8; N]) {
        let l = ((NLA_HDRLEN + N) as u16).to_ne_bytes();
        let t = ty.to_ne_bytes();
        self.buf.extend_from_slice(&[l[0], l[1], t[0], t[1]]);
        self.buf.extend_from_slice(&data);
        self.buf.extend_from_slice(&[0u8; 3][..(nla_align(N) - N)]);
    }

    /// Appends a one-byte attribute.
    pub fn put_u8(&mut self, ty: u16, v: u8) {
        self.put_small(ty, [v]);
    }

    /// Appends a big-endian 16-bit attribute.
    pub fn put_be16(&mut self, ty: u16, v: u16) {
        self.put_small(ty, v.to_be_bytes());
    }

    /// Appends a big-endian 32-bit attribute.
    pub fn put_be32(&mut self, ty: u16, v: u32) {
        self.put_small(ty, v.to_be_bytes());
    }

    /// Appends a big-endian 64-bit attribute.
    pub fn put_be64(&mut self, ty: u16, v: u64) {
        self.put_small(ty, v.to_be_bytes());
    }

    /// Appends a string attribute with its terminating NUL.
    #[inline]
    pub fn put_str(&mut self, ty: u16, s: &str) {
        let len = NLA_HDRLEN + s.len() + 1;
        if len > NLA_MAX_LEN {
            self.note_overflow(ty, len);
            return;
        }
        // As `put`: the terminating NUL and the padding come zeroed with the growth.
        let at = self.buf.len();
        self.buf.resize(at + nla_align(len), 0);
        let dst = &mut self.buf[at..at + len - 1];
        dst[..2].copy_from_slice(&(len as u16).to_ne_bytes());
        dst[2..4].copy_from_slice(&ty.to_ne_bytes());
        dst[4..].copy_from_slice(s.as_bytes());
    }

    /// Opens a nest: its header is reserved now and its length patched by
    /// [`end_nest`](Self::end_nest). The `NLA_F_NESTED` flag is not set, as the kernel's own
    /// nf_tables dumps do not set it either.
    #[inline]
    pub fn nest(&mut self, ty: u16) -> Nest {
        let start = self.buf.len();
        let t = ty.to_ne_bytes();
        self.buf.extend_from_slice(&[0, 0, t[0], t[1]]);
        Nest { start, ty }
    }

    /// Closes a nest. A nest longer than 64 KiB is recorded as an error, reported by
    /// [`finish`](Self::finish), never wrapped.
    #[inline]
    pub fn end_nest(&mut self, n: Nest) {
        let len = self.buf.len() - n.start;
        if len > NLA_MAX_LEN {
            self.note_overflow(n.ty, len);
            return;
        }
        self.buf[n.start..n.start + 2].copy_from_slice(&(len as u16).to_ne_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_attribute_is_nul_terminated_and_padded() {
        let mut w = MsgWriter::new();
        w.put_str(3, "abc");
        assert_eq!(w.as_bytes(), &[8, 0, 3, 0, b'a', b'b', b'c', 0]);
        w.clear();
        w.put_str(3, "abcd");
        assert_eq!(
            w.as_bytes(),
            &[9, 0, 3, 0, b'a', b'b', b'c', b'd', 0, 0, 0, 0]
        );
    }

    #[test]
    fn nest_length_is_patched() {
        let mut w = MsgWriter::new();
        let n = w.nest(1);
        w.put_be32(2, 0x01020304);
        w.end_nest(n);
        assert_eq!(w.as_bytes(), &[12, 0, 1, 0, 8, 0, 2, 0, 1, 2, 3, 4]);
    }

    #[test]
    fn oversized_nest_is_an_error_not_a_wrap() {
        let mut w = MsgWriter::new();
        let m = w.begin(0x0a06, 1, 1, 2, 0);
        let n = w.nest(4);
        for _ in 0..20 {
            w.put(1, &[0u8; 4000]);
        }
        w.end_nest(n);
        let err = w.finish(m).unwrap_err();
        assert!(
            matches!(err, EncodeError::AttributeTooLarge { ty: 4, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn message_header_is_complete() {
        let mut w = MsgWriter::new();
        let m = w.begin(0x0a10, 0x0405, 9, 10, 10);
        w.finish(m).unwrap();
        let b = w.as_bytes();
        assert_eq!(u32::from_ne_bytes(b[0..4].try_into().unwrap()), 20);
        assert_eq!(u16::from_ne_bytes(b[4..6].try_into().unwrap()), 0x0a10);
        assert_eq!(u16::from_ne_bytes(b[6..8].try_into().unwrap()), 0x0405);
        assert_eq!(u32::from_ne_bytes(b[8..12].try_into().unwrap()), 9);
        assert_eq!(&b[16..20], &[10, 0, 0, 10]);
    }
}
