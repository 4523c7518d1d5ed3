//! One declarative field table per x_tables struct, in the manner of libxtables' option
//! tables: each field of the kernel struct is named once, with its offset (`offset_of!`),
//! its kind (width and how the bytes read) and where it lives in the extension's options,
//! and that one table both decodes a received blob and encodes the options back into one.
//!
//! An extension whose info struct is a plain sequence of fields declares an [`XtStruct`]
//! with [`xt_field!`](crate::xt_field) entries instead of writing the read-struct and
//! write-struct bodies by hand; what a struct holds beyond plain fields (a union, a
//! pointer the kernel fills, a field whose meaning depends on another) stays in the
//! extension's own code around the table.

use iptnl_sys::xt::xt_align;

use super::xtbuf::{XtBuf, XtView};

/// How one field of a kernel struct reads and writes, and where it lives in `T`, the
/// extension's options: a getter used when encoding and a setter used when decoding.
pub enum Kind<T: 'static> {
    /// A byte.
    U8(fn(&T) -> u8, fn(&mut T, u8)),
    /// A host-order `__u16`.
    U16(fn(&T) -> u16, fn(&mut T, u16)),
    /// A host-order `__u32`.
    U32(fn(&T) -> u32, fn(&mut T, u32)),
    /// A host-order `int` (`__s32`).
    I32(fn(&T) -> i32, fn(&mut T, i32)),
    /// A host-order `__u64`.
    U64(fn(&T) -> u64, fn(&mut T, u64)),
    /// A byte that is 1 when set, read as set when not 0.
    Flag(fn(&T) -> bool, fn(&mut T, bool)),
    /// A `[low, high]` pair of host-order `__u16`s.
    U16Pair(fn(&T) -> [u16; 2], fn(&mut T, [u16; 2])),
    /// A `[low, high]` pair of host-order `__u32`s.
    U32Pair(fn(&T) -> [u32; 2], fn(&mut T, [u32; 2])),
    /// A NUL-padded `char[N]` of `N` bytes, written truncated to `N - 1` and read up to
    /// its first NUL (lossy for bytes that are not UTF-8).
    Str(usize, fn(&T) -> &str, fn(&mut T, String)),
    /// A NUL-padded `char[N]` of `N` bytes held as bytes, not text: read up to its first NUL
    /// (all `N` when it has none), written as held (at most `N` bytes).
    CBytes(usize, fn(&T) -> &[u8], fn(&mut T, Vec<u8>)),
    /// `N` raw bytes.
    Bytes(usize, fn(&T) -> &[u8], fn(&mut T, &[u8])),
    /// A `__u32[N]` array of host-order words.
    U32Array(usize, fn(&T) -> &[u32], fn(&mut T, &[u32])),
    /// `N` bytes the kernel fills in (a pointer to its private state, an id it computes):
    /// written as zero, never read, and not compared by
    /// [`decode_exact`](XtStruct::decode_exact), as iptables leaves them out of the
    /// `userspacesize` bytes it compares.
    Kernel(usize),
    /// `N` bytes the extension writes and reads itself (an array of records, a union whose
    /// member another field picks), with a writer given the zeroed field and a reader
    /// that refuses bytes it cannot take; the table still places them, and
    /// [`decode_exact`](XtStruct::decode_exact) still compares them. Fields are read in
    /// table order, so a reader may use what the fields before it set.
    Custom(usize, fn(&T, &mut [u8]), fn(&mut T, &[u8]) -> Option<()>),
    /// A network-order `__be16` (a port), held in host order.
    Be16(fn(&T) -> u16, fn(&mut T, u16)),
    /// An array of `N` host-order `__u16`s (`__u16 ports[N]`).
    U16s(usize, fn(&T) -> &[u16], fn(&mut T, &[u16])),
    /// A host-order `size_t` or `unsigned long`: as wide as a pointer (8 bytes on 64-bit
    /// hosts, 4 on 32-bit ones), held as a `u64` and written cut to that width.
    Word(fn(&T) -> u64, fn(&mut T, u64)),
    /// `N` bytes computed from other options when encoding (an interface mask made from its
    /// name), never read: a blob whose bytes differ from what the options give is refused
    /// by [`XtStruct::decode_exact`].
    Derived(usize, fn(&T) -> Vec<u8>),
}

impl<T> Kind<T> {
    /// The bytes the field takes in the struct.
    pub const fn width(&self) -> usize {
        match self {
            Kind::U8(..) | Kind::Flag(..) => 1,
            Kind::U16(..) | Kind::Be16(..) => 2,
            Kind::U32(..) | Kind::I32(..) | Kind::U16Pair(..) => 4,
            Kind::U64(..) | Kind::U32Pair(..) => 8,
            Kind::Str(n, ..)
            | Kind::CBytes(n, ..)
            | Kind::Bytes(n, ..)
            | Kind::Kernel(n)
            | Kind::Custom(n, ..)
            | Kind::Derived(n, _) => *n,
            Kind::U32Array(n, ..) => *n * 4,
            Kind::U16s(n, ..) => 2 * *n,
            Kind::Word(..) => std::mem::size_of::<usize>(),
        }
    }
}

/// One field of a kernel struct: its C name, its offset and its [`Kind`]. Written with
/// [`xt_field!`](crate::xt_field).
pub struct Field<T: 'static> {
    /// The field's name in the kernel header.
    pub name: &'static str,
    /// Its offset in the struct (`offset_of!`).
    pub at: usize,
    /// Its width, how it reads and writes, and where it lives in `T`.
    pub kind: Kind<T>,
}

/// The field table of one revision of a kernel struct: its name, size, revision and
/// fields. [`new`](Self::new) refuses, at compile time, a field that runs past the struct
/// or over another one.
///
/// ```
/// use iptnl::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
///
/// #[derive(Debug, Default, PartialEq)]
/// struct Len {
///     min: u16,
///     max: u16,
///     invert: bool,
/// }
/// // struct xt_length_info { __u16 min, max; __u8 invert; }: 6 bytes, 8 on the wire.
/// static LEN: XtStruct<Len> = XtStruct::new(
///     "xt_length_info",
///     6,
///     0,
///     &[
///         Field { name: "min", at: 0, kind: Kind::U16(|s| s.min, |s, v| s.min = v) },
///         Field { name: "max", at: 2, kind: Kind::U16(|s| s.max, |s, v| s.max = v) },
///         Field { name: "invert", at: 4, kind: Kind::Flag(|s| s.invert, |s, v| s.invert = v) },
///     ],
/// );
/// let l = Len { min: 1, max: 1500, invert: true };
/// let blob = LEN.encode(&l);
/// assert_eq!(blob.len(), 8);
/// assert_eq!(LEN.decode(0, &blob), Some(l));
/// assert_eq!(LEN.decode(1, &blob), None); // another revision
/// assert_eq!(LEN.decode(0, &blob[..6]), None); // not XT_ALIGN(6) bytes
/// ```
pub struct XtStruct<T: 'static> {
    /// The struct's name in the kernel header.
    pub name: &'static str,
    /// `sizeof` the struct; a blob of it is `XT_ALIGN(size)` bytes.
    pub size: usize,
    /// The match or target revision this layout belongs to.
    pub rev: u32,
    /// The fields, each once.
    pub fields: &'static [Field<T>],
}

impl<T> XtStruct<T> {
    /// The table, checked: every field lies within `size` bytes and no two overlap (a
    /// `static` or `const` table that breaks this does not compile).
    pub const fn new(
        name: &'static str,
        size: usize,
        rev: u32,
        fields: &'static [Field<T>],
    ) -> XtStruct<T> {
        let mut i = 0;
        while i < fields.len() {
            let (a, w) = (fields[i].at, fields[i].kind.width());
            assert!(a + w <= size, "a field runs past the end of its struct");
            let mut j = i + 1;
            while j < fields.len() {
                let (b, v) = (fields[j].at, fields[j].kind.width());
                assert!(a + w <= b || b + v <= a, "two fields of a struct overlap");
                j += 1;
            }
            i += 1;
        }
        XtStruct {
            name,
            size,
            rev,
            fields,
        }
    }

    /// Reads every field of the table from `v` into `into`; `None` when `v` is too short.
    pub fn read(&self, v: &XtView<'_>, into: &mut T) -> Option<()> {
        for f in self.fields {
            let at = f.at;
            match &f.kind {
                Kind::U8(_, set) => set(into, v.u8(at)?),
                Kind::U16(_, set) => set(into, v.u16(at)?),
                Kind::U32(_, set) => set(into, v.u32(at)?),
                Kind::I32(_, set) => set(into, v.u32(at)? as i32),
                Kind::U64(_, set) => set(into, v.u64(at)?),
                Kind::Flag(_, set) => set(into, v.u8(at)? != 0),
                Kind::U16Pair(_, set) => set(into, v.u16_pair(at)?),
                Kind::U32Pair(_, set) => set(into, v.u32_pair(at)?),
                Kind::Str(n, _, set) => set(into, v.str(at, *n)?),
                Kind::CBytes(n, _, set) => {
                    let b = v.bytes(at, *n)?;
                    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                    set(into, b[..end].to_vec());
                }
                Kind::Bytes(n, _, set) => set(into, v.bytes(at, *n)?),
                Kind::U32Array(n, _, set) => {
                    let words = (0..*n)
                        .map(|i| v.u32(at + i * 4))
                        .collect::<Option<Vec<u32>>>()?;
                    set(into, &words);
                }
                Kind::Kernel(_) => {}
                Kind::Custom(n, _, read) => read(into, v.bytes(at, *n)?)?,
                Kind::Be16(_, set) => set(into, u16::from_be_bytes(v.u16(at)?.to_ne_bytes())),
                Kind::U16s(n, _, set) => {
                    let mut a = Vec::with_capacity(*n);
                    for i in 0..*n {
                        a.push(v.u16(at + 2 * i)?);
                    }
                    set(into, &a)
                }
                Kind::Word(_, set) => set(into, v.word(at)?),
                Kind::Derived(..) => {}
            }
        }
        Some(())
    }

    /// Writes every field of the table from `from` into `b`.
    pub fn write(&self, from: &T, b: &mut XtBuf) {
        for f in self.fields {
            let at = f.at;
            match &f.kind {
                Kind::U8(get, _) => b.put_u8(at, get(from)),
                Kind::U16(get, _) => b.put_u16(at, get(from)),
                Kind::U32(get, _) => b.put_u32(at, get(from)),
                Kind::I32(get, _) => b.put_u32(at, get(from) as u32),
                Kind::U64(get, _) => b.put_u64(at, get(from)),
                Kind::Flag(get, _) => b.put_u8(at, get(from) as u8),
                Kind::U16Pair(get, _) => b.put_u16_pair(at, get(from)),
                Kind::U32Pair(get, _) => b.put_u32_pair(at, get(from)),
                Kind::Str(n, get, _) => b.put_str(at, *n, get(from)),
                Kind::CBytes(n, get, _) => {
                    let bytes = get(from);
                    b.put(at, &bytes[..bytes.len().min(*n)]);
                }
                Kind::Bytes(n, get, _) => {
                    let bytes = get(from);
                    b.put(at, &bytes[..bytes.len().min(*n)]);
                }
                Kind::U32Array(n, get, _) => {
                    for (i, w) in get(from).iter().take(*n).enumerate() {
                        b.put_u32(at + i * 4, *w);
                    }
                }
                Kind::Kernel(_) => {}
                Kind::Custom(n, write, _) => write(from, b.field(at, *n)),
                Kind::Be16(get, _) => b.put(at, &get(from).to_be_bytes()),
                Kind::U16s(n, get, _) => {
                    for (i, x) in get(from).iter().take(*n).enumerate() {
                        b.put_u16(at + 2 * i, *x);
                    }
                }
                Kind::Word(get, _) => b.put_word(at, get(from)),
                Kind::Derived(n, get) => {
                    let bytes = get(from);
                    b.put(at, &bytes[..bytes.len().min(*n)]);
                }
            }
        }
    }

    /// A view over `info` when it is this revision and exactly `XT_ALIGN(size)` bytes.
    pub fn view<'a>(&self, rev: u32, info: &'a [u8]) -> Option<XtView<'a>> {
        (rev == self.rev && info.len() == xt_align(self.size)).then(|| XtView::new(info))
    }

    /// The blob of `from`: a zeroed `XT_ALIGN(size)` buffer with every field written.
    pub fn encode(&self, from: &T) -> Vec<u8> {
        let mut b = XtBuf::new(self.size);
        self.write(from, &mut b);
        b.into_vec()
    }

    /// Decodes a blob of this revision into a `T` that starts as `T::default()`; `None`
    /// for another revision or size.
    pub fn decode(&self, rev: u32, info: &[u8]) -> Option<T>
    where
        T: Default,
    {
        let v = self.view(rev, info)?;
        let mut out = T::default();
        self.read(&v, &mut out)?;
        Some(out)
    }

    /// [`decode`](Self::decode), kept only when the options encode back to exactly
    /// `info`: a blob with a byte the table does not read (padding, a field the kernel
    /// fills, a reserved bit) is not claimed by the extension, so nothing in it is lost.
    pub fn decode_exact(&self, rev: u32, info: &[u8]) -> Option<T>
    where
        T: Default,
    {
        let out = self.decode(rev, info)?;
        self.encodes_to(&out, info).then_some(out)
    }

    /// Whether `from` encodes to exactly `info`, the bytes of [`Kind::Kernel`] fields
    /// aside: the check that decides whether a received blob is claimed.
    pub fn encodes_to(&self, from: &T, info: &[u8]) -> bool {
        let mut got = self.encode(from);
        if got.len() != info.len() {
            return false;
        }
        for f in self.fields {
            if let Kind::Kernel(n) = f.kind {
                got[f.at..f.at + n].copy_from_slice(&info[f.at..f.at + n]);
            }
        }
        got == info
    }
}

/// The tables of every revision of a struct whose layout changes with the revision, one
/// [`XtStruct`] each: the revision a blob comes with (or the one a rule is written at)
/// picks its table.
///
/// ```
/// use iptnl::ipt::ext::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
///
/// #[derive(Debug, Default, PartialEq)]
/// struct Id {
///     id: u32,
/// }
/// // Revision 0 holds the id in a byte, revision 1 in a word.
/// static V0: XtStruct<Id> = XtStruct::new(
///     "v0",
///     1,
///     0,
///     &[Field { name: "id", at: 0, kind: Kind::U8(|s| s.id as u8, |s, v| s.id = v.into()) }],
/// );
/// static V1: XtStruct<Id> = XtStruct::new(
///     "v1",
///     4,
///     1,
///     &[Field { name: "id", at: 0, kind: Kind::U32(|s| s.id, |s, v| s.id = v) }],
/// );
/// static REVS: XtRevs<Id> = XtRevs(&[&V0, &V1]);
/// let blob = REVS.get(1).unwrap().encode(&Id { id: 300 });
/// assert_eq!(REVS.decode_exact(1, &blob), Some(Id { id: 300 }));
/// // Revision 0 reads one byte of it, and the rest keeps it from being claimed.
/// assert_eq!(REVS.decode(0, &blob), Some(Id { id: 44 }));
/// assert_eq!(REVS.decode_exact(0, &blob), None);
/// assert!(REVS.get(2).is_none());
/// ```
pub struct XtRevs<T: 'static>(pub &'static [&'static XtStruct<T>]);

impl<T> XtRevs<T> {
    /// The table of revision `rev`, if there is one.
    pub fn get(&self, rev: u32) -> Option<&'static XtStruct<T>> {
        self.0.iter().copied().find(|t| t.rev == rev)
    }

    /// [`XtStruct::decode`] with the table of `rev`.
    pub fn decode(&self, rev: u32, info: &[u8]) -> Option<T>
    where
        T: Default,
    {
        self.get(rev)?.decode(rev, info)
    }

    /// [`XtStruct::decode_exact`] with the table of `rev`.
    pub fn decode_exact(&self, rev: u32, info: &[u8]) -> Option<T>
    where
        T: Default,
    {
        self.get(rev)?.decode_exact(rev, info)
    }
}

/// The size of the field that `_f` reads, for [`xt_field!`](crate::xt_field)'s `Kernel`
/// kind, whose width is its field's.
#[doc(hidden)]
pub const fn field_size<C, F>(_f: fn(&C) -> &F) -> usize {
    std::mem::size_of::<F>()
}

/// A [`Field`] of kernel struct `C` named `cfield`, of kind `Kind` (`U8`, `U16`, `U32`,
/// `I32`, `U64`, `Flag`, `U16Pair`, `U32Pair`, `Be16`, `Word`), held in the options at `path`
/// (a field, or a dotted path, of the extension's struct); `Str(N)`, `Bytes(N)`, `U16s(N)`,
/// `U32Array(N)` and `CBytes(N)` take the field's capacity. `xt_field!(C, cfield: Kernel)` is
/// a field the kernel fills, as wide as `cfield` is, held nowhere.
///
/// ```
/// use iptnl::ipt::ext::base::xtstruct::XtStruct;
/// use iptnl::xt_field;
///
/// #[repr(C)]
/// struct xt_cpu_info {
///     cpu: u32,
///     invert: u32,
/// }
/// #[derive(Default)]
/// struct Cpu {
///     cpu: u32,
///     invert: u32,
/// }
/// static CPU: XtStruct<Cpu> = XtStruct::new(
///     "xt_cpu_info",
///     std::mem::size_of::<xt_cpu_info>(),
///     0,
///     &[
///         xt_field!(xt_cpu_info, cpu: U32 => cpu),
///         xt_field!(xt_cpu_info, invert: U32 => invert),
///     ],
/// );
/// let blob = CPU.encode(&Cpu { cpu: 3, invert: 1 });
/// assert_eq!(blob[..4], 3u32.to_ne_bytes());
/// assert_eq!(blob[4..], 1u32.to_ne_bytes());
/// assert_eq!(CPU.decode(0, &blob).unwrap().cpu, 3);
/// ```
#[macro_export]
macro_rules! xt_field {
    ($c:ty, $cf:ident: Kernel) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::Kernel(
                $crate::ipt::ext::base::xtstruct::field_size(|c: &$c| &c.$cf),
            ),
        }
    };
    ($c:ty, $cf:ident: U32Array($n:expr) => $($p:ident).+) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::U32Array(
                $n,
                |s| &s.$($p).+,
                |s, v| s.$($p).+.copy_from_slice(v),
            ),
        }
    };
    ($c:ty, $cf:ident: Str($n:expr) => $($p:ident).+) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::Str(
                $n,
                |s| &s.$($p).+,
                |s, v| s.$($p).+ = v,
            ),
        }
    };
    ($c:ty, $cf:ident: CBytes($n:expr) => $($p:ident).+) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::CBytes(
                $n,
                |s| &s.$($p).+,
                |s, v| s.$($p).+ = v,
            ),
        }
    };
    ($c:ty, $cf:ident: Bytes($n:expr) => $($p:ident).+) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::Bytes(
                $n,
                |s| &s.$($p).+,
                |s, v| s.$($p).+.copy_from_slice(v),
            ),
        }
    };
    ($c:ty, $cf:ident: U16s($n:expr) => $($p:ident).+) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::U16s(
                $n,
                |s| &s.$($p).+,
                |s, v| s.$($p).+.copy_from_slice(v),
            ),
        }
    };
    ($c:ty, $cf:ident: $kind:ident => $($p:ident).+) => {
        $crate::ipt::ext::base::xtstruct::Field {
            name: stringify!($cf),
            at: ::std::mem::offset_of!($c, $cf),
            kind: $crate::ipt::ext::base::xtstruct::Kind::$kind(
                |s| s.$($p).+,
                |s, v| s.$($p).+ = v,
            ),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, Clone)]
    struct All {
        a: u8,
        b: u16,
        c: u32,
        d: u64,
        e: bool,
        f: [u16; 2],
        g: [u32; 2],
        h: String,
        i: [u8; 6],
        j: i32,
        k: Vec<u8>,
    }

    #[repr(C)]
    #[allow(non_camel_case_types)]
    struct c_all {
        d: u64,
        c: u32,
        b: u16,
        a: u8,
        e: u8,
        f: [u16; 2],
        g: [u32; 2],
        h: [u8; 8],
        i: [u8; 6],
        j: i32,
        k: [u8; 4],
    }

    static ALL: XtStruct<All> = XtStruct::new(
        "c_all",
        std::mem::size_of::<c_all>(),
        3,
        &[
            xt_field!(c_all, a: U8 => a),
            xt_field!(c_all, b: U16 => b),
            xt_field!(c_all, c: U32 => c),
            xt_field!(c_all, d: U64 => d),
            xt_field!(c_all, e: Flag => e),
            xt_field!(c_all, f: U16Pair => f),
            xt_field!(c_all, g: U32Pair => g),
            xt_field!(c_all, h: Str(8) => h),
            xt_field!(c_all, i: Bytes(6) => i),
            xt_field!(c_all, j: I32 => j),
            xt_field!(c_all, k: CBytes(4) => k),
        ],
    );

    /// Every kind writes at its offset in host order and reads back what it wrote; a
    /// string is truncated to leave its NUL; a flag reads any non-zero byte as set.
    #[test]
    fn every_kind_round_trips_at_its_offset() {
        let v = All {
            a: 0xa1,
            b: 0xb1b2,
            c: 0xc1c2_c3c4,
            d: 0xd1d2_d3d4_d5d6_d7d8,
            e: true,
            f: [1, 2],
            g: [3, 4],
            h: "abcdefgh".into(),
            i: [1, 2, 3, 4, 5, 6],
            j: -2,
            k: vec![0xff, 0xfe, 1, 2],
        };
        let j = std::mem::offset_of!(c_all, j);
        let blob = ALL.encode(&v);
        assert_eq!(blob[j..j + 4], (-2i32).to_ne_bytes());
        assert_eq!(blob.len(), xt_align(std::mem::size_of::<c_all>()));
        assert_eq!(blob[..8], v.d.to_ne_bytes());
        assert_eq!(blob[8..12], v.c.to_ne_bytes());
        assert_eq!(blob[12..14], v.b.to_ne_bytes());
        assert_eq!(blob[14], 0xa1);
        assert_eq!(blob[15], 1);
        let h = std::mem::offset_of!(c_all, h);
        assert_eq!(&blob[h..h + 8], b"abcdefg\0");
        // Bytes, even not text, up to the NUL or the end of the field.
        let k = std::mem::offset_of!(c_all, k);
        assert_eq!(blob[k..k + 4], [0xff, 0xfe, 1, 2]);
        let mut cut = blob.clone();
        cut[k + 1..k + 4].fill(0);
        assert_eq!(ALL.decode(3, &cut).unwrap().k, [0xff]);
        let back = ALL.decode(3, &blob).unwrap();
        assert_eq!(
            back,
            All {
                h: "abcdefg".into(),
                ..v.clone()
            }
        );
        let mut odd = blob.clone();
        odd[15] = 7;
        assert!(ALL.decode(3, &odd).unwrap().e);
        assert_eq!(ALL.decode(2, &blob), None);
        assert_eq!(ALL.decode(3, &blob[..blob.len() - 8]), None);
        // A byte no field reads (here the string's NUL) keeps the blob from being claimed.
        assert_eq!(ALL.decode_exact(3, &blob), Some(back));
        let mut extra = blob.clone();
        extra[h + 7] = b'x';
        assert!(ALL.decode(3, &extra).is_some());
        assert_eq!(ALL.decode_exact(3, &extra), None);
        assert_eq!(ALL.decode_exact(3, &odd), None);
    }

    #[derive(Debug, Default, PartialEq, Clone)]
    struct Held {
        words: [u32; 3],
        flags: u32,
    }

    #[repr(C)]
    #[allow(non_camel_case_types)]
    struct c_held {
        words: [u32; 3],
        secid: u32,
        flags: u32,
        master: usize,
    }

    static HELD: XtStruct<Held> = XtStruct::new(
        "c_held",
        std::mem::size_of::<c_held>(),
        0,
        &[
            xt_field!(c_held, words: U32Array(3) => words),
            xt_field!(c_held, secid: Kernel),
            xt_field!(c_held, flags: U32 => flags),
            xt_field!(c_held, master: Kernel),
        ],
    );

    /// An array writes its words in order; a kernel-filled field is as wide as its C
    /// field, written as zero, and whatever the kernel put there does not keep a blob
    /// from being claimed, while every other byte still does.
    #[test]
    fn arrays_and_kernel_fields() {
        let v = Held {
            words: [1, 2, 0xdead_beef],
            flags: 5,
        };
        let blob = HELD.encode(&v);
        assert_eq!(blob.len(), xt_align(std::mem::size_of::<c_held>()));
        assert_eq!(blob[8..12], 0xdead_beefu32.to_ne_bytes());
        let (secid, master) = (
            std::mem::offset_of!(c_held, secid),
            std::mem::offset_of!(c_held, master),
        );
        assert!(blob[secid..secid + 4].iter().all(|&b| b == 0));
        assert!(blob[master..].iter().all(|&b| b == 0));
        assert_eq!(HELD.fields[3].kind.width(), std::mem::size_of::<usize>());
        let mut filled = blob.clone();
        filled[secid] = 9;
        filled[master..master + std::mem::size_of::<usize>()].fill(0xff);
        assert_eq!(HELD.decode_exact(0, &filled), Some(v.clone()));
        assert!(HELD.encodes_to(&v, &filled));
        let mut other = filled.clone();
        other[0] = 7;
        assert_eq!(HELD.decode(0, &other).unwrap().words[0], 7);
        assert!(!HELD.encodes_to(&v, &other));
        assert!(!HELD.encodes_to(&v, &filled[..8]));
    }

    #[derive(Debug, Default, PartialEq, Clone)]
    struct Counted {
        items: Vec<u8>,
    }

    /// A count field sizes what a custom field after it reads; a custom reader's refusal
    /// refuses the blob, and its bytes are compared like any field's.
    #[test]
    fn custom_fields_follow_the_fields_before_them() {
        static T: XtStruct<Counted> = XtStruct::new(
            "counted",
            8,
            0,
            &[
                Field {
                    name: "n",
                    at: 0,
                    kind: Kind::U8(|s| s.items.len() as u8, |s, n| s.items = vec![0; n.into()]),
                },
                Field {
                    name: "items",
                    at: 1,
                    kind: Kind::Custom(
                        4,
                        |s, f| f[..s.items.len()].copy_from_slice(&s.items),
                        |s, f| {
                            let n = s.items.len();
                            s.items = f.get(..n)?.to_vec();
                            Some(())
                        },
                    ),
                },
            ],
        );
        let v = Counted { items: vec![5, 6] };
        let blob = T.encode(&v);
        assert_eq!(blob, [2, 5, 6, 0, 0, 0, 0, 0]);
        assert_eq!(T.decode_exact(0, &blob), Some(v));
        assert_eq!(T.decode(0, &[9, 1, 2, 3, 4, 0, 0, 0]), None);
        assert_eq!(T.decode_exact(0, &[1, 5, 6, 0, 0, 0, 0, 0]), None);
    }

    #[derive(Debug, Default, PartialEq, Clone)]
    struct More {
        port: u16,
        ports: [u16; 3],
        size: u64,
        name: Vec<u8>,
    }

    #[repr(C)]
    #[allow(non_camel_case_types)]
    struct c_more {
        size: usize,
        port: u16,
        ports: [u16; 3],
        name: [u8; 4],
        ports_sum: u16,
    }

    static MORE: XtStruct<More> = XtStruct::new(
        "c_more",
        std::mem::size_of::<c_more>(),
        0,
        &[
            xt_field!(c_more, size: Word => size),
            xt_field!(c_more, port: Be16 => port),
            xt_field!(c_more, ports: U16s(3) => ports),
            xt_field!(c_more, name: CBytes(4) => name),
            Field {
                name: "ports_sum",
                at: std::mem::offset_of!(c_more, ports_sum),
                kind: Kind::Derived(2, |s| {
                    s.ports
                        .iter()
                        .fold(0u16, |a, p| a.wrapping_add(*p))
                        .to_ne_bytes()
                        .to_vec()
                }),
            },
        ],
    );

    /// A port is written in network order, an array of u16s each in host order, a word as
    /// wide as a pointer, a byte name as held: up to its NUL, or all of it without one; a
    /// derived field is written from the others and only checked by `decode_exact`.
    #[test]
    fn port_array_word_and_byte_name() {
        let v = More {
            port: 0x1234,
            ports: [1, 2, 0xffff],
            size: 70000,
            name: b"ab\xff".to_vec(),
        };
        let blob = MORE.encode(&v);
        let w = std::mem::size_of::<usize>();
        assert_eq!(blob[..w], 70000usize.to_ne_bytes());
        let port = std::mem::offset_of!(c_more, port);
        assert_eq!(blob[port..port + 2], [0x12, 0x34]);
        let ports = std::mem::offset_of!(c_more, ports);
        assert_eq!(blob[ports + 4..ports + 6], 0xffffu16.to_ne_bytes());
        let name = std::mem::offset_of!(c_more, name);
        assert_eq!(&blob[name..name + 4], b"ab\xff\0");
        assert_eq!(MORE.decode_exact(0, &blob), Some(v.clone()));
        let mut full = blob.clone();
        full[name + 3] = b'z';
        assert_eq!(MORE.decode(0, &full).unwrap().name, b"ab\xffz");
        assert_eq!(MORE.decode_exact(0, &full).unwrap().name.len(), 4);
        // Bytes after the first NUL are not read, so the blob is not claimed.
        let mut after = blob.clone();
        after[name] = 0;
        after[name + 1] = b'x';
        assert_eq!(MORE.decode(0, &after).unwrap().name, b"");
        assert_eq!(MORE.decode_exact(0, &after), None);
        let sum = std::mem::offset_of!(c_more, ports_sum);
        assert_eq!(blob[sum..sum + 2], 2u16.to_ne_bytes()); // 1 + 2 + 0xffff, wrapped
        let mut bad_sum = blob.clone();
        bad_sum[sum] ^= 1;
        assert_eq!(MORE.decode(0, &bad_sum), Some(v.clone()));
        assert_eq!(MORE.decode_exact(0, &bad_sum), None);
    }
}
