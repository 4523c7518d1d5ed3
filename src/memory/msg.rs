//! One nf_tables message of a batch or request, with its attributes by type and the offsets
//! the kernel reports offending attributes at (`NLMSGERR_ATTR_OFFS`, counted from the start
//! of the message).

use crate::netlink::{Attr, AttrTable, Message};

use super::txn::Fail;

/// Attribute slots of a message (every `NFTA_*_MAX` of the messages handled is below).
const SLOTS: usize = 24;

/// A message and its top-level attributes.
#[derive(Debug)]
pub(crate) struct Msg<'a> {
    /// `NFT_MSG_*`.
    pub id: u16,
    pub flags: u16,
    pub seq: u32,
    pub family: u8,
    pub bytes: &'a [u8],
    pub attrs: AttrTable<'a, SLOTS>,
}

impl<'a> Msg<'a> {
    /// Reads `m`; a message whose attributes do not parse is refused as the kernel's
    /// attribute parser refuses it (`EINVAL`).
    pub fn parse(m: &Message<'a>) -> Result<Msg<'a>, Fail> {
        let nf = m.nfgen().map_err(|_| Fail::errno(libc::EINVAL))?;
        let attrs = nf
            .attrs()
            .table::<SLOTS>()
            .map_err(|_| Fail::errno(libc::EINVAL))?;
        Ok(Msg {
            id: m.msg_type() & 0xff,
            flags: m.flags(),
            seq: m.seq(),
            family: nf.family,
            bytes: m.bytes(),
            attrs,
        })
    }

    pub fn get(&self, ty: u16) -> Option<Attr<'a>> {
        self.attrs.get(ty)
    }

    /// Offset of attribute `a` (its header) from the start of the message.
    pub fn offset(&self, a: &Attr<'_>) -> u32 {
        let data = a.data().as_ptr() as usize;
        let start = self.bytes.as_ptr() as usize;
        (data.saturating_sub(start).saturating_sub(4)) as u32
    }

    /// Offset of attribute `ty`, when present.
    pub fn offset_of(&self, ty: u16) -> Option<u32> {
        self.get(ty).map(|a| self.offset(&a))
    }

    /// `errno`, pointing at attribute `ty` when present.
    pub fn fail_at(&self, errno: i32, ty: u16) -> Fail {
        Fail::Errno {
            errno,
            offset: self.offset_of(ty),
        }
    }

    /// A string attribute's bytes, without the terminating NUL (the kernel compares names
    /// with `nla_strcmp`, up to the first NUL).
    pub fn name(&self, ty: u16) -> Option<&'a [u8]> {
        self.get(ty).map(|a| {
            let d = a.data();
            match d.iter().position(|&b| b == 0) {
                Some(n) => &d[..n],
                None => d,
            }
        })
    }

    pub fn be32(&self, ty: u16) -> Option<u32> {
        self.get(ty).and_then(|a| a.be32().ok())
    }

    pub fn be64(&self, ty: u16) -> Option<u64> {
        self.get(ty).and_then(|a| a.be64().ok())
    }
}

/// A name as the model keeps it.
pub(crate) fn text(b: &[u8]) -> Result<String, Fail> {
    String::from_utf8(b.to_vec()).map_err(|_| Fail::unsupported("a name that is not UTF-8"))
}
