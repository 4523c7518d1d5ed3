//! Sets and maps: named (or anonymous) collections of keys, optionally mapped to data,
//! verdicts or stateful objects, and their elements.
//!
//! A [`Set`] is one `NFT_MSG_NEWSET` message; [`SetElems`] is one `NFT_MSG_NEWSETELEM`
//! message: a table, a set (by name or batch-local id) and a list of [`SetElem`]. Decoding
//! never fails on an attribute iptnl does not model: such attributes (and nests whose contents
//! are not fully understood) are kept raw, type and payload, in the `unknown` fields.

use iptnl_sys::nf_tables::*;

use super::expr::Expr;
use super::{Data, Family, Value};
use crate::netlink::{
    Attr, DecodeError, EncodeError, Message, MsgWriter, NFNL_HDRLEN, NLA_MAX_LEN,
};

pub use super::dump::{list_set_elems, list_sets};

/// An attribute kept as it was on the wire: its type (flags such as `NLA_F_NESTED`
/// included) and its payload.
pub type RawAttr = (u16, Vec<u8>);

/// Key and data types of sets, as nft numbers them (`enum datatypes` in nftables'
/// `datatype.h`). The kernel stores them without interpreting them; `nft` uses them to
/// print the elements.
///
/// ```
/// use iptnl::nft::set::key_type::{concat, INET_SERVICE, IPV4_ADDR};
/// assert_eq!(concat(&[IPV4_ADDR, INET_SERVICE]), (7 << 6) | 13);
/// ```
pub mod key_type {
    /// `verdict`.
    pub const VERDICT: u32 = 1;
    /// `nf_proto`.
    pub const NFPROTO: u32 = 2;
    /// `bitmask`.
    pub const BITMASK: u32 = 3;
    /// `integer`.
    pub const INTEGER: u32 = 4;
    /// `string`.
    pub const STRING: u32 = 5;
    /// `ll_addr`.
    pub const LLADDR: u32 = 6;
    /// `ipv4_addr`.
    pub const IPV4_ADDR: u32 = 7;
    /// `ipv6_addr`.
    pub const IPV6_ADDR: u32 = 8;
    /// `ether_addr`.
    pub const ETHER_ADDR: u32 = 9;
    /// `ether_type`.
    pub const ETHER_TYPE: u32 = 10;
    /// `inet_proto`.
    pub const INET_PROTO: u32 = 12;
    /// `inet_service` (a port).
    pub const INET_SERVICE: u32 = 13;
    /// `icmp_type`.
    pub const ICMP_TYPE: u32 = 14;
    /// `mark`.
    pub const MARK: u32 = 19;
    /// `iface_index`.
    pub const IFINDEX: u32 = 20;
    /// `ct_state`.
    pub const CT_STATE: u32 = 26;
    /// `icmpv6_type`.
    pub const ICMPV6_TYPE: u32 = 29;
    /// `ifname`.
    pub const IFNAME: u32 = 41;

    /// Bits per field in a concatenated type.
    pub const TYPE_BITS: u32 = 6;

    /// The type of a concatenation of `fields` (`ipv4_addr . inet_service`), as nft
    /// computes it: each field shifted in after the previous ones.
    pub fn concat(fields: &[u32]) -> u32 {
        fields.iter().fold(0, |acc, &t| (acc << TYPE_BITS) | t)
    }
}

/// `NFTA_SET_DESC`: the size hint and, for concatenations, the length of each field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SetDesc {
    /// `NFTA_SET_DESC_SIZE`: the maximum number of elements (`size` in nft).
    pub size: Option<u32>,
    /// `NFTA_SET_DESC_CONCAT`: length in bytes of each field of a concatenated key (before
    /// padding to 4 bytes), e.g. `[4, 2]` for `ipv4_addr . inet_service`. Empty otherwise.
    pub concat: Vec<u32>,
}

impl SetDesc {
    fn encode(&self, w: &mut MsgWriter) {
        let n = w.nest(NFTA_SET_DESC);
        if let Some(s) = self.size {
            w.put_be32(NFTA_SET_DESC_SIZE, s);
        }
        if !self.concat.is_empty() {
            let c = w.nest(NFTA_SET_DESC_CONCAT);
            for &len in &self.concat {
                let e = w.nest(NFTA_LIST_ELEM);
                w.put_be32(NFTA_SET_FIELD_LEN, len);
                w.end_nest(e);
            }
            w.end_nest(c);
        }
        w.end_nest(n);
    }

    /// `None` when the nest holds anything not understood (the caller keeps it raw).
    fn decode(a: Attr<'_>) -> Result<Option<SetDesc>, DecodeError> {
        let mut d = SetDesc::default();
        for inner in a.nested() {
            let inner = inner?;
            match inner.kind() {
                NFTA_SET_DESC_SIZE => d.size = Some(inner.be32()?),
                NFTA_SET_DESC_CONCAT => {
                    for f in inner.nested() {
                        let f = f?;
                        if f.kind() != NFTA_LIST_ELEM {
                            return Ok(None);
                        }
                        let mut len = None;
                        for fa in f.nested() {
                            let fa = fa?;
                            if fa.kind() != NFTA_SET_FIELD_LEN || len.is_some() {
                                return Ok(None);
                            }
                            len = Some(fa.be32()?);
                        }
                        match len {
                            Some(l) => d.concat.push(l),
                            None => return Ok(None),
                        }
                    }
                }
                _ => return Ok(None),
            }
        }
        Ok(Some(d))
    }
}

/// Writes one expression the way sets and set elements carry a single one: a nest of type
/// `ty` holding `NFTA_EXPR_NAME` and `NFTA_EXPR_DATA` directly (no `NFTA_LIST_ELEM`).
fn encode_single_expr(e: &Expr, w: &mut MsgWriter, ty: u16) {
    let mut tmp = MsgWriter::with_capacity(64);
    e.encode(&mut tmp);
    // `tmp` is one NFTA_LIST_ELEM nest: re-emit its payload under type `ty`.
    w.put(ty, &tmp.as_bytes()[4..]);
}

/// Writes a set's or element's expressions as libnftnl does: one in the single form
/// (`single`), several as a list (`list`).
fn encode_exprs(exprs: &[Expr], w: &mut MsgWriter, single: u16, list: u16) {
    match exprs {
        [] => {}
        [one] => encode_single_expr(one, w, single),
        many => Expr::encode_list(many, w, list),
    }
}

fn family_of(nf_family: u8, what: &'static str) -> Result<Family, DecodeError> {
    Family::from_raw(nf_family).ok_or(DecodeError::BadValue {
        what,
        value: nf_family as i64,
    })
}

fn raw(a: &Attr<'_>) -> RawAttr {
    (a.raw_type(), a.data().to_vec())
}

/// An nf_tables set or map.
///
/// Lengths are in bytes, times in milliseconds. Only `table`, `name`, `key_type` and
/// `key_len` are required to create one; maps also need `data_type` and `data_len` with
/// [`NFT_SET_MAP`], object maps `obj_type` with [`NFT_SET_OBJECT`].
///
/// ```
/// use iptnl::nft::set::key_type;
/// use iptnl::nft::{Family, Set};
/// use iptnl_sys::nf_tables::{NFT_DATA_VERDICT, NFT_SET_MAP, NFT_SET_TIMEOUT};
///
/// // `set allowed { type ipv4_addr; timeout 1h; }`
/// let mut s = Set::new(Family::Inet, "filter", "allowed", key_type::IPV4_ADDR, 4);
/// s.flags = NFT_SET_TIMEOUT;
/// s.timeout = Some(3_600_000);
/// assert!(s.has_timeout() && !s.is_map());
///
/// // A verdict map from ports: `map ports { type inet_service : verdict; }`
/// let mut m = Set::new(Family::Inet, "filter", "ports", key_type::INET_SERVICE, 2);
/// m.flags = NFT_SET_MAP;
/// m.data_type = Some(NFT_DATA_VERDICT);
/// m.data_len = Some(0);
/// assert!(m.is_map());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Set {
    /// The family of its table.
    pub family: Family,
    /// Its table.
    pub table: String,
    /// Its name. Anonymous sets are created as `__set%d` (the kernel picks the number) and
    /// dumped with the name it picked.
    pub name: String,
    /// Handle assigned by the kernel (read only; not sent by [`encode`](Self::encode)).
    pub handle: Option<u64>,
    /// `NFT_SET_*` flags (anonymous, constant, interval, map, timeout, eval, object, concat,
    /// expr). Absent on the wire means 0.
    pub flags: u32,
    /// Key type, an nft datatype number (see [`key_type`]); the kernel does not interpret it.
    pub key_type: u32,
    /// Key length in bytes (each field of a concatenation padded to 4 bytes).
    pub key_len: u32,
    /// Data type of a map: an nft datatype, or [`NFT_DATA_VERDICT`] for verdict maps.
    pub data_type: Option<u32>,
    /// Data length of a map in bytes (the kernel reports 16 for verdict maps).
    pub data_len: Option<u32>,
    /// `NFT_OBJECT_*` type of the objects of an object map.
    pub obj_type: Option<u32>,
    /// `NFT_SET_POL_*` (performance or memory). The kernel dumps it only when not
    /// performance.
    pub policy: Option<u32>,
    /// Size and concatenation field lengths. The kernel always dumps the nest, so decoded
    /// sets have `Some` even when it is empty.
    pub desc: Option<SetDesc>,
    /// Batch-local id, so that elements and rules of the same batch can reference a set
    /// (anonymous ones in particular) before it has a name. The kernel requires one in
    /// NEWSET and does not dump it.
    pub id: Option<u32>,
    /// Default element timeout in milliseconds (sets with [`NFT_SET_TIMEOUT`]).
    pub timeout: Option<u64>,
    /// Garbage collection interval in milliseconds.
    pub gc_interval: Option<u32>,
    /// Opaque user data (nft stores key byte order, typeof expressions, the comment…).
    pub userdata: Option<Vec<u8>>,
    /// Expressions attached to every element (e.g. `counter`), as templates.
    pub expressions: Vec<Expr>,
    /// Attributes iptnl does not model, as received (decode only; never sent).
    pub unknown: Vec<RawAttr>,
}

impl Set {
    /// A set of `key_type` keys of `key_len` bytes, with no flags.
    pub fn new(
        family: Family,
        table: impl Into<String>,
        name: impl Into<String>,
        key_type: u32,
        key_len: u32,
    ) -> Set {
        Set {
            family,
            table: table.into(),
            name: name.into(),
            handle: None,
            flags: 0,
            key_type,
            key_len,
            data_type: None,
            data_len: None,
            obj_type: None,
            policy: None,
            desc: None,
            id: None,
            timeout: None,
            gc_interval: None,
            userdata: None,
            expressions: Vec::new(),
            unknown: Vec::new(),
        }
    }

    /// `NFT_SET_ANONYMOUS`: bound to the rule that uses it, gone with it.
    pub fn is_anonymous(&self) -> bool {
        self.flags & NFT_SET_ANONYMOUS != 0
    }

    /// `NFT_SET_CONSTANT`: elements cannot change once the set is in use.
    pub fn is_constant(&self) -> bool {
        self.flags & NFT_SET_CONSTANT != 0
    }

    /// `NFT_SET_INTERVAL`: elements are ranges.
    pub fn is_interval(&self) -> bool {
        self.flags & NFT_SET_INTERVAL != 0
    }

    /// `NFT_SET_MAP`: elements map keys to data or verdicts.
    pub fn is_map(&self) -> bool {
        self.flags & NFT_SET_MAP != 0
    }

    /// `NFT_SET_TIMEOUT`: elements can expire.
    pub fn has_timeout(&self) -> bool {
        self.flags & NFT_SET_TIMEOUT != 0
    }

    /// `NFT_SET_EVAL`: elements are added from the packet path (dynamic set).
    pub fn is_eval(&self) -> bool {
        self.flags & NFT_SET_EVAL != 0
    }

    /// `NFT_SET_OBJECT`: elements map keys to stateful objects.
    pub fn is_object(&self) -> bool {
        self.flags & NFT_SET_OBJECT != 0
    }

    /// `NFT_SET_CONCAT`: the key is a concatenation of ranges (with `NFT_SET_INTERVAL`).
    pub fn is_concat(&self) -> bool {
        self.flags & NFT_SET_CONCAT != 0
    }

    /// Writes the attributes of a NEWSET message. `handle` and `unknown` are not sent. The
    /// kernel requires an `NFTA_SET_ID`: without [`id`](Self::id), 0 is sent
    /// ([`Batch::add_set`](super::Batch::add_set) picks a fresh one instead).
    pub fn encode(&self, w: &mut MsgWriter) {
        self.encode_with_id(w, self.id.unwrap_or(0));
    }

    /// [`encode`](Self::encode) with `id` in place of [`id`](Self::id).
    pub(crate) fn encode_with_id(&self, w: &mut MsgWriter, id: u32) {
        w.put_str(NFTA_SET_TABLE, &self.table);
        w.put_str(NFTA_SET_NAME, &self.name);
        if self.flags != 0 {
            w.put_be32(NFTA_SET_FLAGS, self.flags);
        }
        w.put_be32(NFTA_SET_KEY_TYPE, self.key_type);
        w.put_be32(NFTA_SET_KEY_LEN, self.key_len);
        if let Some(t) = self.data_type {
            w.put_be32(NFTA_SET_DATA_TYPE, t);
        }
        if let Some(l) = self.data_len {
            w.put_be32(NFTA_SET_DATA_LEN, l);
        }
        if let Some(t) = self.obj_type {
            w.put_be32(NFTA_SET_OBJ_TYPE, t);
        }
        w.put_be32(NFTA_SET_ID, id);
        if let Some(p) = self.policy {
            w.put_be32(NFTA_SET_POLICY, p);
        }
        if let Some(d) = &self.desc {
            d.encode(w);
        }
        if let Some(t) = self.timeout {
            w.put_be64(NFTA_SET_TIMEOUT, t);
        }
        if let Some(g) = self.gc_interval {
            w.put_be32(NFTA_SET_GC_INTERVAL, g);
        }
        if let Some(u) = &self.userdata {
            w.put(NFTA_SET_USERDATA, u);
        }
        encode_exprs(&self.expressions, w, NFTA_SET_EXPR, NFTA_SET_EXPRESSIONS);
    }

    /// Reads a NEWSET message (dump reply, echo or event). Attributes it does not model are
    /// kept in [`unknown`](Self::unknown); only malformed netlink or a missing table, name or
    /// key length is an error.
    pub fn decode(m: &Message<'_>) -> Result<Set, DecodeError> {
        let nf = m.nfgen()?;
        let mut s = Set::new(family_of(nf.family, "set family")?, "", "", 0, 0);
        let (mut table, mut name, mut ktype, mut klen) = (None, None, None, None);
        for a in nf.attrs() {
            let a = a?;
            match a.kind() {
                NFTA_SET_TABLE => table = Some(a.str()?.to_owned()),
                NFTA_SET_NAME => name = Some(a.str()?.to_owned()),
                NFTA_SET_HANDLE => s.handle = Some(a.be64()?),
                NFTA_SET_FLAGS => s.flags = a.be32()?,
                NFTA_SET_KEY_TYPE => ktype = Some(a.be32()?),
                NFTA_SET_KEY_LEN => klen = Some(a.be32()?),
                NFTA_SET_DATA_TYPE => s.data_type = Some(a.be32()?),
                NFTA_SET_DATA_LEN => s.data_len = Some(a.be32()?),
                NFTA_SET_OBJ_TYPE => s.obj_type = Some(a.be32()?),
                NFTA_SET_POLICY => s.policy = Some(a.be32()?),
                NFTA_SET_ID => s.id = Some(a.be32()?),
                NFTA_SET_TIMEOUT => s.timeout = Some(a.be64()?),
                NFTA_SET_GC_INTERVAL => s.gc_interval = Some(a.be32()?),
                NFTA_SET_USERDATA => s.userdata = Some(a.data().to_vec()),
                NFTA_SET_PAD => {}
                NFTA_SET_DESC => match SetDesc::decode(a)? {
                    Some(d) => s.desc = Some(d),
                    None => s.unknown.push(raw(&a)),
                },
                NFTA_SET_EXPR => s.expressions.push(Expr::decode(a)?),
                NFTA_SET_EXPRESSIONS => s.expressions.extend(Expr::decode_list(a)?),
                _ => s.unknown.push(raw(&a)),
            }
        }
        s.table = table.ok_or(DecodeError::Missing { what: "set table" })?;
        s.name = name.ok_or(DecodeError::Missing { what: "set name" })?;
        s.key_type = ktype.unwrap_or(0);
        s.key_len = klen.ok_or(DecodeError::Missing {
            what: "set key length",
        })?;
        Ok(s)
    }
}

/// One element of a set or map.
///
/// For interval sets (rbtree) a range is two elements: its start, and its end (exclusive)
/// flagged [`NFT_SET_ELEM_INTERVAL_END`]. Sets of concatenated ranges (pipapo) use one
/// element with [`key_end`](Self::key_end) (inclusive) instead.
///
/// ```
/// use iptnl::nft::{Data, SetElem, Value, Verdict};
/// // 10.0.0.1 in a set of ipv4_addr
/// let e = SetElem::new(Value::new(&[10, 0, 0, 1]).unwrap());
/// assert_eq!(e.key.unwrap().as_bytes(), &[10, 0, 0, 1]);
///
/// // 22 : jump ssh in a verdict map of inet_service
/// let mut v = SetElem::new(Value::be16(22));
/// v.data = Some(Data::Verdict(Verdict::Jump("ssh".into())));
///
/// // the range 10.0.0.0-10.0.0.255 of an interval set is two elements
/// let start = SetElem::new(Value::new(&[10, 0, 0, 0]).unwrap());
/// let end = SetElem::interval_end(Value::new(&[10, 0, 1, 0]).unwrap());
/// assert!(end.is_interval_end() && !start.is_interval_end());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SetElem {
    /// The key; `None` only for the catch-all element (flag [`NFT_SET_ELEM_CATCHALL`]).
    pub key: Option<Value>,
    /// End of the range (inclusive), for sets of concatenated ranges.
    pub key_end: Option<Value>,
    /// What a map element maps to: a value, or a verdict for verdict maps.
    pub data: Option<Data>,
    /// `NFT_SET_ELEM_*` flags (interval end, catch-all); absent on the wire means 0.
    pub flags: u32,
    /// Timeout in milliseconds, when it differs from the set's default.
    pub timeout: Option<u64>,
    /// Milliseconds left before the element expires (read only; not sent).
    pub expiration: Option<u64>,
    /// Opaque user data (nft stores the comment).
    pub userdata: Option<Vec<u8>>,
    /// Stateful expressions of the element (e.g. its `counter`).
    pub expressions: Vec<Expr>,
    /// Name of the stateful object an object map element maps to.
    pub objref: Option<String>,
    /// Attributes (or nests) iptnl does not model, as received (decode only; never sent).
    pub unknown: Vec<RawAttr>,
}

impl SetElem {
    /// An element with this key and nothing else.
    pub fn new(key: Value) -> SetElem {
        SetElem {
            key: Some(key),
            ..SetElem::empty()
        }
    }

    fn empty() -> SetElem {
        SetElem {
            key: None,
            key_end: None,
            data: None,
            flags: 0,
            timeout: None,
            expiration: None,
            userdata: None,
            expressions: Vec::new(),
            objref: None,
            unknown: Vec::new(),
        }
    }

    /// The end of a range in an interval set (exclusive: the first key after the range).
    pub fn interval_end(key: Value) -> SetElem {
        SetElem {
            flags: NFT_SET_ELEM_INTERVAL_END,
            ..SetElem::new(key)
        }
    }

    /// The catch-all element of a set (`*`), matching any key not otherwise found.
    pub fn catchall() -> SetElem {
        SetElem {
            flags: NFT_SET_ELEM_CATCHALL,
            ..SetElem::empty()
        }
    }

    /// Whether this element is the end of a range ([`NFT_SET_ELEM_INTERVAL_END`]).
    pub fn is_interval_end(&self) -> bool {
        self.flags & NFT_SET_ELEM_INTERVAL_END != 0
    }

    /// Whether this is the catch-all element ([`NFT_SET_ELEM_CATCHALL`]).
    pub fn is_catchall(&self) -> bool {
        self.flags & NFT_SET_ELEM_CATCHALL != 0
    }

    /// Writes the element as one `NFTA_LIST_ELEM` nest (inside
    /// `NFTA_SET_ELEM_LIST_ELEMENTS`). `expiration` and `unknown` are not sent.
    pub fn encode(&self, w: &mut MsgWriter) {
        let n = w.nest(NFTA_LIST_ELEM);
        if let Some(k) = &self.key {
            k.encode(w, NFTA_SET_ELEM_KEY);
        }
        if let Some(k) = &self.key_end {
            k.encode(w, NFTA_SET_ELEM_KEY_END);
        }
        if let Some(d) = &self.data {
            d.encode(w, NFTA_SET_ELEM_DATA);
        }
        if self.flags != 0 {
            w.put_be32(NFTA_SET_ELEM_FLAGS, self.flags);
        }
        if let Some(t) = self.timeout {
            w.put_be64(NFTA_SET_ELEM_TIMEOUT, t);
        }
        if let Some(u) = &self.userdata {
            w.put(NFTA_SET_ELEM_USERDATA, u);
        }
        if let Some(o) = &self.objref {
            w.put_str(NFTA_SET_ELEM_OBJREF, o);
        }
        encode_exprs(
            &self.expressions,
            w,
            NFTA_SET_ELEM_EXPR,
            NFTA_SET_ELEM_EXPRESSIONS,
        );
        w.end_nest(n);
    }

    /// Writes only what identifies the element (key, key end, flags), as a deletion needs.
    pub fn encode_key(&self, w: &mut MsgWriter) {
        let n = w.nest(NFTA_LIST_ELEM);
        if let Some(k) = &self.key {
            k.encode(w, NFTA_SET_ELEM_KEY);
        }
        if let Some(k) = &self.key_end {
            k.encode(w, NFTA_SET_ELEM_KEY_END);
        }
        if self.flags != 0 {
            w.put_be32(NFTA_SET_ELEM_FLAGS, self.flags);
        }
        w.end_nest(n);
    }

    /// Reads one `NFTA_LIST_ELEM` nest of an element list. Attributes it does not model, and
    /// keys or data in a form it does not know, are kept in [`unknown`](Self::unknown).
    pub fn decode(elem: Attr<'_>) -> Result<SetElem, DecodeError> {
        let mut e = SetElem::empty();
        for a in elem.nested() {
            let a = a?;
            match a.kind() {
                NFTA_SET_ELEM_KEY => match Value::decode(a)? {
                    Some(v) => e.key = Some(v),
                    None => e.unknown.push(raw(&a)),
                },
                NFTA_SET_ELEM_KEY_END => match Value::decode(a)? {
                    Some(v) => e.key_end = Some(v),
                    None => e.unknown.push(raw(&a)),
                },
                NFTA_SET_ELEM_DATA => match Data::decode(a)? {
                    Some(d) => e.data = Some(d),
                    None => e.unknown.push(raw(&a)),
                },
                NFTA_SET_ELEM_FLAGS => e.flags = a.be32()?,
                NFTA_SET_ELEM_TIMEOUT => e.timeout = Some(a.be64()?),
                NFTA_SET_ELEM_EXPIRATION => e.expiration = Some(a.be64()?),
                NFTA_SET_ELEM_USERDATA => e.userdata = Some(a.data().to_vec()),
                NFTA_SET_ELEM_OBJREF => e.objref = Some(a.str()?.to_owned()),
                NFTA_SET_ELEM_EXPR => e.expressions.push(Expr::decode(a)?),
                NFTA_SET_ELEM_EXPRESSIONS => e.expressions.extend(Expr::decode_list(a)?),
                NFTA_SET_ELEM_PAD => {}
                _ => e.unknown.push(raw(&a)),
            }
        }
        Ok(e)
    }
}

/// Which set an element message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetRef<'a> {
    /// An existing set (or one created earlier in the batch), by name.
    Name(&'a str),
    /// A set created earlier in the same batch, by its batch-local [`Set::id`] (the only way
    /// to reach an anonymous set before the kernel names it).
    Id(u32),
}

impl<'a> From<&'a str> for SetRef<'a> {
    fn from(s: &'a str) -> Self {
        SetRef::Name(s)
    }
}

impl<'a> From<&'a String> for SetRef<'a> {
    fn from(s: &'a String) -> Self {
        SetRef::Name(s)
    }
}

impl From<u32> for SetRef<'_> {
    fn from(id: u32) -> Self {
        SetRef::Id(id)
    }
}

impl SetRef<'_> {
    /// Writes `NFTA_SET_ELEM_LIST_SET` or `NFTA_SET_ELEM_LIST_SET_ID`.
    pub fn encode(&self, w: &mut MsgWriter) {
        match self {
            SetRef::Name(n) => w.put_str(NFTA_SET_ELEM_LIST_SET, n),
            SetRef::Id(id) => w.put_be32(NFTA_SET_ELEM_LIST_SET_ID, *id),
        }
    }
}

/// One NEWSETELEM (or DELSETELEM) message: elements of one set.
///
/// A dump of a large set comes as many such messages; [`Batch::add_set_elems`] splits the
/// other way, so that no `NFTA_SET_ELEM_LIST_ELEMENTS` nest exceeds 64 KiB.
///
/// [`Batch::add_set_elems`]: super::Batch::add_set_elems
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SetElems {
    /// The family of the table.
    pub family: Family,
    /// The table.
    pub table: String,
    /// The set's name (empty when it is referenced by id only).
    pub set: String,
    /// The set's batch-local id, for a set created in the same batch.
    pub set_id: Option<u32>,
    /// The elements.
    pub elems: Vec<SetElem>,
    /// Top-level attributes iptnl does not model, as received (decode only; never sent).
    pub unknown: Vec<RawAttr>,
}

impl SetElems {
    /// No elements yet, for the set `set` of `table`.
    pub fn new(family: Family, table: impl Into<String>, set: impl Into<String>) -> SetElems {
        SetElems {
            family,
            table: table.into(),
            set: set.into(),
            set_id: None,
            elems: Vec::new(),
            unknown: Vec::new(),
        }
    }

    /// Writes the attributes of a NEWSETELEM message with every element in one nest (which
    /// must stay under 64 KiB: [`Batch::add_set_elems`](super::Batch::add_set_elems) splits
    /// larger lists).
    pub fn encode(&self, w: &mut MsgWriter) {
        w.put_str(NFTA_SET_ELEM_LIST_TABLE, &self.table);
        if !self.set.is_empty() || self.set_id.is_none() {
            w.put_str(NFTA_SET_ELEM_LIST_SET, &self.set);
        }
        if let Some(id) = self.set_id {
            w.put_be32(NFTA_SET_ELEM_LIST_SET_ID, id);
        }
        let n = w.nest(NFTA_SET_ELEM_LIST_ELEMENTS);
        for e in &self.elems {
            e.encode(w);
        }
        w.end_nest(n);
    }

    /// Reads a NEWSETELEM message (dump reply, echo or event).
    pub fn decode(m: &Message<'_>) -> Result<SetElems, DecodeError> {
        let nf = m.nfgen()?;
        let mut out = SetElems::new(family_of(nf.family, "set element family")?, "", "");
        let mut table = None;
        for a in nf.attrs() {
            let a = a?;
            match a.kind() {
                NFTA_SET_ELEM_LIST_TABLE => table = Some(a.str()?.to_owned()),
                NFTA_SET_ELEM_LIST_SET => out.set = a.str()?.to_owned(),
                NFTA_SET_ELEM_LIST_SET_ID => out.set_id = Some(a.be32()?),
                NFTA_SET_ELEM_LIST_ELEMENTS => {
                    for e in a.nested() {
                        let e = e?;
                        if e.kind() != NFTA_LIST_ELEM {
                            return Err(DecodeError::BadValue {
                                what: "set element list entry type",
                                value: e.kind() as i64,
                            });
                        }
                        out.elems.push(SetElem::decode(e)?);
                    }
                }
                _ => out.unknown.push(raw(&a)),
            }
        }
        out.table = table.ok_or(DecodeError::Missing {
            what: "set element table",
        })?;
        Ok(out)
    }
}

/// Largest payload of `NFTA_SET_ELEM_LIST_ELEMENTS`: 64 KiB minus the nest's header.
pub(crate) const ELEMS_NEST_MAX: usize = NLA_MAX_LEN - 4;

/// Elements encoded back to back, with where each one ends, to be cut into messages whose
/// element nests stay under 64 KiB.
pub(crate) struct EncodedElems {
    pub(crate) bytes: Vec<u8>,
    /// Byte ranges of the groups, each small enough for one message.
    pub(crate) groups: Vec<std::ops::Range<usize>>,
}

impl EncodedElems {
    /// Encodes `elems` (whole, or keys only) and groups them. Fails on the first element
    /// that cannot be encoded (an attribute over 64 KiB) or that cannot fit in any message.
    pub(crate) fn new(elems: &[SetElem], keys_only: bool) -> Result<EncodedElems, EncodeError> {
        let mut bytes = Vec::with_capacity(elems.len() * 32);
        let mut groups = Vec::new();
        let mut start = 0;
        // Each element is framed as a message of its own in `scratch`, so that the writer
        // reports any attribute it had to leave out.
        let mut scratch = MsgWriter::with_capacity(256);
        for e in elems {
            scratch.clear();
            let m = scratch.begin(0, 0, 0, 0, 0);
            if keys_only {
                e.encode_key(&mut scratch);
            } else {
                e.encode(&mut scratch);
            }
            scratch.finish(m)?;
            let one = &scratch.as_bytes()[NFNL_HDRLEN..];
            if one.len() > ELEMS_NEST_MAX {
                return Err(EncodeError::AttributeTooLarge {
                    ty: NFTA_SET_ELEM_LIST_ELEMENTS,
                    len: one.len() + 4,
                });
            }
            if bytes.len() + one.len() - start > ELEMS_NEST_MAX {
                groups.push(start..bytes.len());
                start = bytes.len();
            }
            bytes.extend_from_slice(one);
        }
        if bytes.len() > start {
            groups.push(start..bytes.len());
        }
        Ok(EncodedElems { bytes, groups })
    }

    /// Writes the element nest of group `i`.
    pub(crate) fn write_group(&self, w: &mut MsgWriter, i: usize) {
        let n = w.nest(NFTA_SET_ELEM_LIST_ELEMENTS);
        let chunk = &self.bytes[self.groups[i].clone()];
        let at = w.len();
        w.put_raw_zeroes(chunk.len());
        w.overwrite(at, chunk);
        w.end_nest(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netlink::{Attrs, Messages};
    use crate::nft::expr::Counter;
    use crate::nft::Verdict;

    fn message(ty: u16, family: u8, attrs: impl FnOnce(&mut MsgWriter)) -> Vec<u8> {
        let mut w = MsgWriter::new();
        let m = w.begin(ty, 0, 1, family, 0);
        attrs(&mut w);
        w.finish(m).unwrap();
        w.into_bytes()
    }

    #[test]
    fn set_round_trips_and_keeps_unknown_attributes() {
        let mut s = Set::new(Family::Inet, "t", "s", key_type::concat(&[7, 13]), 8);
        s.flags = NFT_SET_INTERVAL | NFT_SET_CONCAT | NFT_SET_TIMEOUT;
        s.desc = Some(SetDesc {
            size: Some(100),
            concat: vec![4, 2],
        });
        s.timeout = Some(60_000);
        s.gc_interval = Some(1000);
        s.policy = Some(NFT_SET_POL_MEMORY);
        s.userdata = Some(vec![1, 2, 3]);
        s.id = Some(5);
        s.expressions = vec![Counter::default().into()];
        let bytes = message(NFT_MSG_NEWSET, 1, |w| {
            s.encode(w);
            w.put_be32(99, 7);
        });
        let m = Messages::new(&bytes).next().unwrap().unwrap();
        let d = Set::decode(&m).unwrap();
        assert_eq!(d.unknown, vec![(99, 7u32.to_be_bytes().to_vec())]);
        assert_eq!(
            Set {
                unknown: vec![],
                ..d
            },
            s
        );
    }

    #[test]
    fn single_expression_uses_the_bare_form() {
        let mut w = MsgWriter::new();
        encode_exprs(&[Counter::default().into()], &mut w, NFTA_SET_EXPR, 0);
        let a = Attrs::new(w.as_bytes()).next().unwrap().unwrap();
        assert_eq!(a.kind(), NFTA_SET_EXPR);
        assert_eq!(
            a.nested().next().unwrap().unwrap().str().unwrap(),
            "counter"
        );
    }

    #[test]
    fn elements_round_trip() {
        let mut a = SetElem::new(Value::be16(22));
        a.data = Some(Data::Verdict(Verdict::Jump("ssh".into())));
        a.timeout = Some(5000);
        a.userdata = Some(vec![9]);
        let mut b = SetElem::new(Value::new(&[10, 0, 0, 0, 0, 80, 0, 0]).unwrap());
        b.key_end = Some(Value::new(&[10, 0, 0, 255, 0, 90, 0, 0]).unwrap());
        b.expressions = vec![Counter::default().into(), Counter::default().into()];
        let c = SetElem {
            objref: Some("c1".into()),
            ..SetElem::catchall()
        };
        let mut els = SetElems::new(Family::Ipv4, "t", "m");
        els.elems = vec![a, b, c, SetElem::interval_end(Value::be32(1))];
        let bytes = message(NFT_MSG_NEWSETELEM, 2, |w| els.encode(w));
        let m = Messages::new(&bytes).next().unwrap().unwrap();
        assert_eq!(SetElems::decode(&m).unwrap(), els);
    }

    #[test]
    fn unknown_element_data_is_kept_raw() {
        let mut w = MsgWriter::new();
        let n = w.nest(NFTA_LIST_ELEM);
        Value::be32(1).encode(&mut w, NFTA_SET_ELEM_KEY);
        let d = w.nest(NFTA_SET_ELEM_DATA);
        w.put_be32(7, 1);
        w.end_nest(d);
        w.put_be32(42, 3);
        w.end_nest(n);
        let a = Attrs::new(w.as_bytes()).next().unwrap().unwrap();
        let e = SetElem::decode(a).unwrap();
        assert_eq!(e.key, Some(Value::be32(1)));
        assert_eq!(e.data, None);
        assert_eq!(e.unknown.len(), 2);
        assert_eq!(e.unknown[0].0, NFTA_SET_ELEM_DATA);
        assert_eq!(e.unknown[1], (42, 3u32.to_be_bytes().to_vec()));
    }

    #[test]
    fn an_element_too_large_for_any_message_is_refused() {
        let mut e = SetElem::new(Value::be32(1));
        e.userdata = Some(vec![0; 70_000]);
        assert!(EncodedElems::new(&[SetElem::new(Value::be32(2)), e], false).is_err());
        // keys alone fit
        assert!(EncodedElems::new(&[SetElem::new(Value::be32(2))], true).is_ok());
    }

    #[test]
    fn grouping_keeps_every_nest_under_64k() {
        let elems: Vec<SetElem> = (0..20_000u32)
            .map(|i| SetElem::new(Value::be32(i)))
            .collect();
        let enc = EncodedElems::new(&elems, false).unwrap();
        assert!(enc.groups.len() > 1);
        let mut total = 0;
        for (i, g) in enc.groups.iter().enumerate() {
            assert!(g.len() <= ELEMS_NEST_MAX);
            let mut w = MsgWriter::new();
            let m = w.begin(NFT_MSG_NEWSETELEM, 0, 1, 2, 0);
            enc.write_group(&mut w, i);
            w.finish(m).unwrap();
            let msg = Messages::new(w.as_bytes()).next().unwrap().unwrap();
            let nf = msg.nfgen().unwrap();
            total += nf.attrs().next().unwrap().unwrap().nested().count();
        }
        assert_eq!(total, 20_000);
        assert_eq!(enc.groups.last().unwrap().end, enc.bytes.len());
    }
}
