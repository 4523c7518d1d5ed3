//! Safe building and reading of x_tables info structs as bytes.
//!
//! The layouts come from `iptnl_sys::xt` through `size_of` and `offset_of!`, so no `unsafe`
//! transmute is needed: fields are written and read at their offsets in host byte order.

use iptnl_sys::xt::xt_align;

/// A zeroed info struct of `XT_ALIGN(size)` bytes being filled in.
///
/// ```
/// use iptnl::ipt::ext::XtBuf;
/// let mut b = XtBuf::new(10);
/// b.put_u16(2, 0x1234);
/// assert_eq!(b.into_vec().len(), 16);
/// ```
#[derive(Debug, Clone)]
pub struct XtBuf {
    buf: Vec<u8>,
}

impl XtBuf {
    /// A zeroed buffer for a struct of `size` bytes, padded to `XT_ALIGN`.
    pub fn new(size: usize) -> XtBuf {
        XtBuf {
            buf: vec![0; xt_align(size)],
        }
    }

    /// A zeroed buffer for `T`.
    pub fn of<T>() -> XtBuf {
        Self::new(std::mem::size_of::<T>())
    }

    /// Writes bytes at `off`.
    pub fn put(&mut self, off: usize, bytes: &[u8]) {
        self.buf[off..off + bytes.len()].copy_from_slice(bytes);
    }

    /// Writes a byte.
    pub fn put_u8(&mut self, off: usize, v: u8) {
        self.buf[off] = v;
    }

    /// Writes a host-order u16.
    pub fn put_u16(&mut self, off: usize, v: u16) {
        self.put(off, &v.to_ne_bytes());
    }

    /// Writes a host-order u32.
    pub fn put_u32(&mut self, off: usize, v: u32) {
        self.put(off, &v.to_ne_bytes());
    }

    /// Writes a `[low, high]` range of host-order u16s (`__u16 spts[2]`).
    pub fn put_u16_pair(&mut self, off: usize, r: [u16; 2]) {
        self.put_u16(off, r[0]);
        self.put_u16(off + 2, r[1]);
    }

    /// Writes a `[low, high]` range of host-order u32s (`__u32 ids[2]`).
    pub fn put_u32_pair(&mut self, off: usize, r: [u32; 2]) {
        self.put_u32(off, r[0]);
        self.put_u32(off + 4, r[1]);
    }

    /// Writes a host-order u64.
    pub fn put_u64(&mut self, off: usize, v: u64) {
        self.put(off, &v.to_ne_bytes());
    }

    /// Writes a host-order `size_t` / `unsigned long` (as wide as a pointer), cut to that
    /// width.
    pub fn put_word(&mut self, off: usize, v: u64) {
        self.put(off, &(v as usize).to_ne_bytes());
    }

    /// Writes a NUL-padded string into a field of `cap` bytes (truncating to `cap - 1`).
    pub fn put_str(&mut self, off: usize, cap: usize, s: &str) {
        let n = s.len().min(cap.saturating_sub(1));
        self.put(off, &s.as_bytes()[..n]);
    }

    /// The `len` bytes at `off`, to be written in place.
    ///
    /// ```
    /// use iptnl::ipt::ext::XtBuf;
    /// let mut b = XtBuf::new(4);
    /// b.field(1, 2).copy_from_slice(&[7, 8]);
    /// assert_eq!(b.into_vec(), [0, 7, 8, 0, 0, 0, 0, 0]);
    /// ```
    pub fn field(&mut self, off: usize, len: usize) -> &mut [u8] {
        &mut self.buf[off..off + len]
    }

    /// The bytes.
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }
}

/// A read-only view over an info struct received from the kernel; every accessor is
/// bounds-checked and returns `None` when the buffer is too short.
#[derive(Debug, Clone, Copy)]
pub struct XtView<'a> {
    buf: &'a [u8],
}

impl<'a> XtView<'a> {
    /// A view over `buf` if it is exactly `XT_ALIGN(size_of::<T>())` bytes (what the kernel
    /// requires of a valid info).
    pub fn of<T>(buf: &'a [u8]) -> Option<XtView<'a>> {
        (buf.len() == xt_align(std::mem::size_of::<T>())).then_some(XtView { buf })
    }

    /// A view over `buf` as [`of`](Self::of) gives it, when `rev` is `want`: a decoder of
    /// one revision of an info struct.
    ///
    /// ```
    /// use iptnl::ipt::ext::XtView;
    /// assert!(XtView::of_rev::<u32>(0, 0, &[0; 8]).is_some());
    /// assert!(XtView::of_rev::<u32>(1, 0, &[0; 8]).is_none());
    /// ```
    pub fn of_rev<T>(rev: u32, want: u32, buf: &'a [u8]) -> Option<XtView<'a>> {
        if rev != want {
            return None;
        }
        Self::of::<T>(buf)
    }

    /// A view over any buffer.
    pub fn new(buf: &'a [u8]) -> XtView<'a> {
        XtView { buf }
    }

    /// Bytes at `off`.
    pub fn bytes(&self, off: usize, len: usize) -> Option<&'a [u8]> {
        self.buf.get(off..off.checked_add(len)?)
    }

    /// A byte.
    pub fn u8(&self, off: usize) -> Option<u8> {
        self.buf.get(off).copied()
    }

    /// A host-order u16.
    pub fn u16(&self, off: usize) -> Option<u16> {
        Some(u16::from_ne_bytes(self.bytes(off, 2)?.try_into().ok()?))
    }

    /// A host-order u32.
    pub fn u32(&self, off: usize) -> Option<u32> {
        Some(u32::from_ne_bytes(self.bytes(off, 4)?.try_into().ok()?))
    }

    /// A `[low, high]` range of host-order u16s.
    pub fn u16_pair(&self, off: usize) -> Option<[u16; 2]> {
        Some([self.u16(off)?, self.u16(off.checked_add(2)?)?])
    }

    /// A `[low, high]` range of host-order u32s.
    pub fn u32_pair(&self, off: usize) -> Option<[u32; 2]> {
        Some([self.u32(off)?, self.u32(off.checked_add(4)?)?])
    }

    /// A host-order u64.
    pub fn u64(&self, off: usize) -> Option<u64> {
        Some(u64::from_ne_bytes(self.bytes(off, 8)?.try_into().ok()?))
    }

    /// A host-order `size_t` / `unsigned long` (as wide as a pointer).
    pub fn word(&self, off: usize) -> Option<u64> {
        let b = self.bytes(off, std::mem::size_of::<usize>())?;
        Some(usize::from_ne_bytes(b.try_into().ok()?) as u64)
    }

    /// A NUL-terminated string in a field of `cap` bytes (lossy for non-UTF-8 bytes).
    pub fn str(&self, off: usize, cap: usize) -> Option<String> {
        let b = self.bytes(off, cap.min(self.buf.len().saturating_sub(off)))?;
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Some(String::from_utf8_lossy(&b[..end]).into_owned())
    }
}
