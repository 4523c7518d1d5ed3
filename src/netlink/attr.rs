//! Zero-copy, bounds-checked reading of netlink attributes.
//!
//! [`Attrs`] walks a buffer of attributes and yields each as an [`Attr`] view. Every length is
//! checked before it is used: a truncated or garbage buffer yields a [`DecodeError`], never a
//! panic or an out-of-bounds read.

use iptnl_sys::netlink::{nla_align, NLA_F_NESTED, NLA_HDRLEN, NLA_TYPE_MASK};

use super::error::DecodeError;

/// One attribute: its type and its payload (without header and padding).
///
/// ```
/// use iptnl::netlink::Attrs;
/// let buf = [8u8, 0, 1, 0, 0, 0, 0, 42];
/// let a = Attrs::new(&buf).next().unwrap().unwrap();
/// assert_eq!(a.kind(), 1);
/// assert_eq!(a.be32().unwrap(), 42);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr<'a> {
    ty: u16,
    data: &'a [u8],
}

impl<'a> Attr<'a> {
    /// The attribute type with the `NLA_F_NESTED` and `NLA_F_NET_BYTEORDER` flags removed.
    pub fn kind(&self) -> u16 {
        self.ty & NLA_TYPE_MASK
    }

    /// The attribute type as it was on the wire, flags included.
    pub fn raw_type(&self) -> u16 {
        self.ty
    }

    /// Whether the `NLA_F_NESTED` flag was set.
    pub fn has_nested_flag(&self) -> bool {
        self.ty & NLA_F_NESTED != 0
    }

    /// The payload.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    fn fixed<const N: usize>(&self) -> Result<[u8; N], DecodeError> {
        self.data.try_into().map_err(|_| DecodeError::BadLength {
            attr: self.kind(),
            expected: N,
            got: self.data.len(),
        })
    }

    /// The payload as one byte.
    pub fn u8(&self) -> Result<u8, DecodeError> {
        Ok(self.fixed::<1>()?[0])
    }

    /// The payload as a big-endian u16.
    pub fn be16(&self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.fixed()?))
    }

    /// The payload as a big-endian u32.
    pub fn be32(&self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.fixed()?))
    }

    /// The payload as a big-endian i32.
    pub fn be32_signed(&self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.fixed()?))
    }

    /// The payload as a big-endian u64.
    pub fn be64(&self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.fixed()?))
    }

    /// The payload as a host-order u32 (a few attributes, such as extack offsets, use it).
    pub fn ne32(&self) -> Result<u32, DecodeError> {
        Ok(u32::from_ne_bytes(self.fixed()?))
    }

    /// The payload as a NUL-terminated UTF-8 string (the NUL is required, last, and removed:
    /// bytes after it would be dropped, so they make it an error as a missing one does).
    ///
    /// ```
    /// use iptnl::netlink::{Attrs, MsgWriter};
    /// let mut w = MsgWriter::new();
    /// w.put(1, b"nat\0");
    /// w.put(2, b"nat\0x\0");
    /// let mut a = Attrs::new(w.as_bytes());
    /// assert_eq!(a.next().unwrap().unwrap().str().unwrap(), "nat");
    /// assert!(a.next().unwrap().unwrap().str().is_err());
    /// ```
    pub fn str(&self) -> Result<&'a str, DecodeError> {
        let bytes = match self.data.iter().position(|&b| b == 0) {
            Some(nul) if nul + 1 == self.data.len() => &self.data[..nul],
            _ => return Err(DecodeError::NotNulTerminated { attr: self.kind() }),
        };
        core::str::from_utf8(bytes).map_err(|_| DecodeError::BadUtf8 { attr: self.kind() })
    }

    /// The payload as a nest of attributes.
    pub fn nested(&self) -> Attrs<'a> {
        Attrs::new(self.data)
    }
}

/// An iterator over the attributes in a buffer.
///
/// It yields `Err` once for a malformed attribute and then stops.
///
/// ```
/// use iptnl::netlink::Attrs;
/// // a header that claims 200 bytes in a 6-byte buffer
/// let buf = [200u8, 0, 1, 0, 0, 0];
/// assert!(Attrs::new(&buf).next().unwrap().is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Attrs<'a> {
    buf: &'a [u8],
    failed: bool,
}

impl<'a> Attrs<'a> {
    /// Iterates over the attributes in `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Attrs { buf, failed: false }
    }

    /// The bytes not yet walked.
    pub fn remaining(&self) -> &'a [u8] {
        self.buf
    }

    /// Collects the attributes into a table indexed by type, for types up to `N - 1`. A larger
    /// type, type 0, or a type seen twice (which a kernel dump never holds; the last one is
    /// kept, as the kernel's parser keeps it) is reported via [`AttrTable::has_unknown`], so
    /// a decoder that checks it keeps such bytes whole instead of dropping some.
    ///
    /// ```
    /// use iptnl::netlink::{Attrs, MsgWriter};
    /// let mut w = MsgWriter::new();
    /// w.put_be32(1, 7);
    /// w.put_be32(1, 8);
    /// let t = Attrs::new(w.as_bytes()).table::<2>().unwrap();
    /// assert_eq!(t.get(1).unwrap().be32().unwrap(), 8);
    /// assert!(t.has_unknown());
    /// ```
    pub fn table<const N: usize>(self) -> Result<AttrTable<'a, N>, DecodeError> {
        let mut t = AttrTable {
            slots: [None; N],
            unknown: false,
        };
        for a in self {
            let a = a?;
            match t.slots.get_mut(a.kind() as usize) {
                Some(slot) if a.kind() != 0 => {
                    t.unknown |= slot.is_some();
                    *slot = Some(a);
                }
                _ => t.unknown = true,
            }
        }
        Ok(t)
    }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Result<Attr<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.buf.is_empty() {
            return None;
        }
        if self.buf.len() < NLA_HDRLEN {
            self.failed = true;
            return Some(Err(DecodeError::Truncated {
                what: "attribute header",
                need: NLA_HDRLEN,
                have: self.buf.len(),
            }));
        }
        let len = u16::from_ne_bytes([self.buf[0], self.buf[1]]) as usize;
        let ty = u16::from_ne_bytes([self.buf[2], self.buf[3]]);
        if len < NLA_HDRLEN || len > self.buf.len() {
            self.failed = true;
            return Some(Err(DecodeError::Truncated {
                what: "attribute",
                need: len.max(NLA_HDRLEN),
                have: self.buf.len(),
            }));
        }
        let data = &self.buf[NLA_HDRLEN..len];
        let next = nla_align(len).min(self.buf.len());
        self.buf = &self.buf[next..];
        Some(Ok(Attr { ty, data }))
    }
}

/// Attributes of one nest indexed by type, built by [`Attrs::table`].
#[derive(Debug, Clone)]
pub struct AttrTable<'a, const N: usize> {
    slots: [Option<Attr<'a>>; N],
    unknown: bool,
}

impl<'a, const N: usize> AttrTable<'a, N> {
    /// The attribute of type `ty`, if present.
    pub fn get(&self, ty: u16) -> Option<Attr<'a>> {
        self.slots.get(ty as usize).copied().flatten()
    }

    /// The attribute of type `ty`, or [`DecodeError::Missing`] naming `what`.
    pub fn need(&self, ty: u16, what: &'static str) -> Result<Attr<'a>, DecodeError> {
        self.get(ty).ok_or(DecodeError::Missing { what })
    }

    /// Whether an attribute of a type beyond the table (or type 0), or one type twice, was
    /// seen.
    pub fn has_unknown(&self) -> bool {
        self.unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netlink::MsgWriter;

    #[test]
    fn reads_back_what_the_writer_wrote() {
        let mut w = MsgWriter::new();
        w.put_str(1, "nat");
        let n = w.nest(2);
        w.put_be64(1, 7);
        w.put_u8(2, 9);
        w.end_nest(n);
        let attrs: Vec<_> = Attrs::new(w.as_bytes()).map(|a| a.unwrap()).collect();
        assert_eq!(attrs.len(), 2);
        assert_eq!(attrs[0].str().unwrap(), "nat");
        let inner: Vec<_> = attrs[1].nested().map(|a| a.unwrap()).collect();
        assert_eq!(inner[0].be64().unwrap(), 7);
        assert_eq!(inner[1].u8().unwrap(), 9);
    }

    #[test]
    fn wrong_sized_integer_is_an_error() {
        let mut w = MsgWriter::new();
        w.put_be16(1, 7);
        let a = Attrs::new(w.as_bytes()).next().unwrap().unwrap();
        assert!(a.be32().is_err());
        assert_eq!(a.be16().unwrap(), 7);
    }

    #[test]
    fn string_without_nul_is_an_error() {
        let buf = [7u8, 0, 1, 0, b'a', b'b', b'c', 0];
        let a = Attrs::new(&buf).next().unwrap().unwrap();
        assert!(a.str().is_err());
    }

    #[test]
    fn short_length_stops_iteration() {
        let buf = [2u8, 0, 1, 0, 9, 9, 9, 9];
        let mut it = Attrs::new(&buf);
        assert!(it.next().unwrap().is_err());
        assert!(it.next().is_none());
    }
}
