//! `set` match (`-m set [!] --match-set NAME src|dst[,…] [--return-nomatch]
//! [! --update-counters] [! --update-subcounters] [[!] --packets-eq N|--packets-lt N|
//! --packets-gt N] [[!] --bytes-eq N|--bytes-lt N|--bytes-gt N]`) and `SET` target (`-j SET
//! --add-set NAME FLAGS [--exist] [--timeout N] | --del-set NAME FLAGS | --map-set NAME FLAGS
//! [--map-mark] [--map-prio] [--map-queue]`).
//!
//! The kernel refers to an ipset by its index, which only the ipset subsystem knows: rules
//! keep set names, and the [`SetIndex`] of the parse, encode or
//! decode context resolves them (the agent layer's asks the kernel as iptables' `libxt_set`
//! does). A name is checked when the rule is parsed, as `libxt_set` does, and resolved to its
//! index when the rule is encoded (an error when the set does not exist, or is of the other
//! family, as the kernel would refuse the rule); an index is resolved back to its name when a
//! rule is decoded.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `set` match, revision 4
//! (`xt_set_info_match_v4`), and `SET` target, revision 3 (`xt_set_info_target_v3`).
//! Decoding: match revisions 0–4, target revisions 1–3.
//!
//! Options: libxt_set and libxt_SET read them by hand, not through libxtables' tables, so
//! their tables here let `!` and repeats through and the extensions check them in their own
//! words; `--set` is another name of `--match-set`.

use iptnl_sys::xt::{
    xt_set_info_match_v0, xt_set_info_match_v1, xt_set_info_match_v3, xt_set_info_match_v4,
    xt_set_info_target_v1, xt_set_info_target_v2, xt_set_info_target_v3, IPSET_COUNTER_EQ,
    IPSET_COUNTER_GT, IPSET_COUNTER_LT, IPSET_COUNTER_NE, IPSET_COUNTER_NONE, IPSET_DIM_MAX,
    IPSET_DST, IPSET_FLAG_EXIST, IPSET_FLAG_MAP_SKBMARK, IPSET_FLAG_MAP_SKBPRIO,
    IPSET_FLAG_MAP_SKBQUEUE, IPSET_FLAG_RETURN_NOMATCH, IPSET_FLAG_SKIP_COUNTER_UPDATE,
    IPSET_FLAG_SKIP_SUBCOUNTER_UPDATE, IPSET_INVALID_ID, IPSET_INV_MATCH, IPSET_MATCH_INV,
    IPSET_MAXNAMELEN, IPSET_RETURN_NOMATCH, IPSET_SRC,
};

use super::base::libxt::parse_c_uint;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, SetIndex, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The `set` match.
pub static MATCH: ExtDesc = ExtDesc {
    name: "set",
    kind: ExtKind::Match,
    family: None,
    // libxt_set reads its options itself (`set_parse_v3`), with no libxtables checks: `!`
    // passes before every option, and repeats pass too. It refuses a second `--match-set`
    // (`--match-set can be specified only once`), a second counter test of a kind (`only
    // one of the --packets-[eq|lt|gt] is allowed`), `! --return-nomatch` and `!` before an
    // `-lt`/`-gt` test in words of its own, so the table leaves those to `parse`, and the
    // missing `--match-set` to `finish`.
    options: &super::base::opts::table([
        Opt::new("match-set", Ty::Custom2).inv().multi(),
        // Deprecated name of `--match-set`.
        Opt::new("set", Ty::Custom2)
            .inv()
            .multi()
            .alias("match-set"),
        Opt::flag("return-nomatch").inv().multi(),
        Opt::flag("update-counters").inv().multi(),
        Opt::custom("packets-eq").inv().multi(),
        Opt::custom("packets-lt").inv().multi(),
        Opt::custom("packets-gt").inv().multi(),
        Opt::custom("bytes-eq").inv().multi(),
        Opt::custom("bytes-lt").inv().multi(),
        Opt::custom("bytes-gt").inv().multi(),
        Opt::flag("update-subcounters").inv().multi(),
    ]),
    new: |_| Box::new(SetMatch::default()),
    xt_names: &["set"],
    decode_xt: Some(decode_match_xt),
    decode_native: None,
};

/// The `SET` target.
pub static TARGET: ExtDesc = ExtDesc {
    name: "SET",
    kind: ExtKind::Target,
    family: None,
    // libxt_SET reads its options itself (`set_target_parse_v3`): it ignores `!`, takes
    // repeated flags and `--timeout`, and refuses a second `--add-set`, `--del-set` or
    // `--map-set` in words of its own (`--add-set can be specified only once`); its final
    // check (`finish`) says which options need which, in its words too.
    options: &super::base::opts::table([
        Opt::new("add-set", Ty::Custom2).inv().multi(),
        Opt::new("del-set", Ty::Custom2).inv().multi(),
        Opt::flag("exist").inv().multi(),
        Opt::custom("timeout").inv().multi(),
        Opt::new("map-set", Ty::Custom2).inv().multi(),
        Opt::flag("map-mark").inv().multi(),
        Opt::flag("map-prio").inv().multi(),
        Opt::flag("map-queue").inv().multi(),
    ]),
    new: |_| Box::new(SetTarget::default()),
    xt_names: &["SET"],
    decode_xt: Some(decode_target_xt),
    decode_native: None,
};

/// The [`Extension`] methods the match and the target share: `save` and `print` are their
/// `dump` with the prefix `--` or none, as libxt_set's save and print are.
macro_rules! dumped {
    () => {
        fn save(&self, _family: IpFamily, out: &mut String) {
            self.dump("--", out);
        }

        fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
            self.dump("", out);
        }

        crate::ext_boilerplate!();
    };
}

// ---------------------------------------------------------------------------------------
// Set references: a name and its src/dst flags.

/// A set reference as `struct xt_set_info` holds it, with the name instead of the index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetRef {
    /// The set's name (empty: no set).
    pub name: String,
    /// Number of `src`/`dst` flags given.
    pub dim: u8,
    /// `IPSET_INV_MATCH`, and `1 << n` when flag `n` (from 1) is `src`.
    pub flags: u8,
}

impl SetRef {
    /// Parses `NAME` and `src,dst,…` (libxt_set's checks and `parse_dirs`).
    fn parse(name: &str, dirs: &str, opt: &str) -> Result<SetRef, ParseError> {
        if dirs.is_empty() || dirs.starts_with(['-', '!']) {
            return Err(ParseError::bad(opt, format!("{opt} requires two args.")));
        }
        if name.len() > IPSET_MAXNAMELEN - 1 {
            return Err(ParseError::bad(
                opt,
                format!(
                    "setname `{name}' too long, max {} characters.",
                    IPSET_MAXNAMELEN - 1
                ),
            ));
        }
        let mut r = SetRef {
            name: name.to_owned(),
            dim: 0,
            flags: 0,
        };
        let mut rest = Some(dirs);
        while let Some(s) = rest {
            if r.dim >= IPSET_DIM_MAX {
                return Err(ParseError::bad(
                    opt,
                    format!("Can't be more src/dst options than {IPSET_DIM_MAX}."),
                ));
            }
            let (tok, next) = match s.split_once(',') {
                Some((t, n)) => (t, Some(n)),
                None => (s, None),
            };
            r.dim += 1;
            if tok.starts_with("src") {
                r.flags |= 1 << r.dim;
            } else if !tok.starts_with("dst") {
                return Err(ParseError::bad(
                    opt,
                    format!(
                        "You must spefify (the comma separated list of) 'src' or 'dst': `{dirs}'"
                    ),
                ));
            }
            rest = next;
        }
        Ok(r)
    }

    /// Checks that the set exists and suits the family (libxt_set checks this when it parses
    /// the option).
    fn check(&self, ctx: &ParseCtx<'_>, opt: &str) -> Result<(), ParseError> {
        ctx.sets
            .index(&self.name, ctx.family)
            .map(|_| ())
            .map_err(|e| ParseError::bad(opt, e))
    }

    fn is_set(&self) -> bool {
        !self.name.is_empty()
    }

    /// Appends ` PREFIX NAME src,dst` (libxt_set's `print_target`, and `print_match`'s tail).
    fn save(&self, out: &mut String) {
        out.push(' ');
        out.push_str(&self.name);
        for i in 1..=self.dim {
            out.push(if i == 1 { ' ' } else { ',' });
            out.push_str(if self.flags & (1 << i) != 0 {
                "src"
            } else {
                "dst"
            });
        }
    }

    /// The `struct xt_set_info` of this reference, the name resolved to its index.
    fn to_raw(&self, ctx: &EncodeCtx<'_>) -> Result<RawRef, EncodeError> {
        let index = if self.is_set() {
            ctx.sets
                .index(&self.name, ctx.family)
                .map_err(EncodeError)?
        } else {
            IPSET_INVALID_ID
        };
        Ok(RawRef {
            index,
            dim: self.dim,
            flags: self.flags,
        })
    }

    /// The reference a `struct xt_set_info` holds, resolving the index; `None` when a used
    /// index names no set.
    fn from_raw(r: RawRef, sets: &dyn SetIndex) -> Option<SetRef> {
        if r.index == IPSET_INVALID_ID {
            return Some(SetRef::default());
        }
        // The kernel takes no more than IPSET_DIM_MAX dimensions (each a bit of `flags`).
        if r.dim > IPSET_DIM_MAX {
            return None;
        }
        Some(SetRef {
            name: sets.name(r.index)?,
            dim: r.dim,
            flags: r.flags,
        })
    }
}

// ---------------------------------------------------------------------------------------
// The structs as the kernel holds them: sets by index.

/// A `struct xt_set_info`: the set's kernel index, its dimension and flags.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RawRef {
    index: u16,
    dim: u8,
    flags: u8,
}

impl Default for RawRef {
    fn default() -> Self {
        RawRef {
            index: IPSET_INVALID_ID,
            dim: 0,
            flags: 0,
        }
    }
}

/// A match or target info struct of any revision, its sets by index: what the field
/// tables read and write; resolving the names is the extensions' (they need the context).
#[derive(Debug, Clone, PartialEq)]
struct Raw {
    /// The match's set, or the target's add, delete and map sets.
    sets: [RawRef; 3],
    /// Revision 0's set: its index and its `IPSET_SRC`/`IPSET_DST` words.
    v0: (u16, [u32; IPSET_DIM_MAX as usize + 1]),
    /// Packet counter test: operator, value.
    packets: (u8, u64),
    /// Byte counter test.
    bytes: (u8, u64),
    flags: u32,
    timeout: u32,
}

impl Default for Raw {
    fn default() -> Self {
        let t = SetTarget::default();
        Raw {
            sets: [RawRef::default(); 3],
            v0: (0, [0; IPSET_DIM_MAX as usize + 1]),
            packets: (0, 0),
            bytes: (0, 0),
            flags: t.flags,
            timeout: t.timeout,
        }
    }
}

/// A field of info struct `$c` at (nested) field `$f`, of `$kind`, held at `$p` of [`Raw`].
macro_rules! raw {
    ($c:ty, $($f:ident).+: $kind:ident => $($p:tt)+) => {
        Field {
            name: stringify!($($f).+),
            at: std::mem::offset_of!($c, $($f).+),
            kind: Kind::$kind(|s: &Raw| s.$($p)+, |s: &mut Raw, v| s.$($p)+ = v),
        }
    };
}

/// A table of info struct `$c` at revision `$rev`: its `struct xt_set_info`s, each at
/// field `$set` held in `sets[$i]`, then the fields `$more`.
macro_rules! raw_table {
    ($c:ty, $rev:literal, [$($set:ident => $i:literal),+] $(, $more:expr)* $(,)?) => {
        XtStruct::new(
            stringify!($c),
            std::mem::size_of::<$c>(),
            $rev,
            &[
                $(
                    raw!($c, $set.index: U16 => sets[$i].index),
                    raw!($c, $set.dim: U8 => sets[$i].dim),
                    raw!($c, $set.flags: U8 => sets[$i].flags),
                )+
                $($more),*
            ],
        )
    };
}

/// The counter tests and flags of match revisions 3 and 4, whose info is `$c`.
macro_rules! counted_table {
    ($c:ty, $rev:literal) => {
        raw_table!(
            $c,
            $rev,
            [match_set => 0],
            raw!($c, packets.op: U8 => packets.0),
            raw!($c, packets.value: U64 => packets.1),
            raw!($c, bytes.op: U8 => bytes.0),
            raw!($c, bytes.value: U64 => bytes.1),
            raw!($c, flags: U32 => flags),
        )
    };
}

/// `struct xt_set_info_match_v0`: the set's index and its direction words.
static MATCH_V0: XtStruct<Raw> = XtStruct::new(
    "xt_set_info_match_v0",
    std::mem::size_of::<xt_set_info_match_v0>(),
    0,
    &[
        raw!(xt_set_info_match_v0, match_set.index: U16 => v0.0),
        Field {
            name: "match_set.u",
            at: std::mem::offset_of!(xt_set_info_match_v0, match_set.u),
            kind: Kind::U32Array(
                IPSET_DIM_MAX as usize + 1,
                |s| &s.v0.1,
                |s, v| s.v0.1.copy_from_slice(v),
            ),
        },
    ],
);
/// `struct xt_set_info_match_v1`, revision 1.
static MATCH_V1: XtStruct<Raw> = raw_table!(xt_set_info_match_v1, 1, [match_set => 0]);
/// `struct xt_set_info_match_v1` again, revision 2 (with `IPSET_RETURN_NOMATCH`).
static MATCH_V2: XtStruct<Raw> = raw_table!(xt_set_info_match_v1, 2, [match_set => 0]);
/// `struct xt_set_info_match_v3`: counter tests of operator then value.
static MATCH_V3: XtStruct<Raw> = counted_table!(xt_set_info_match_v3, 3);
/// `struct xt_set_info_match_v4`: counter tests of value then operator.
static MATCH_V4: XtStruct<Raw> = counted_table!(xt_set_info_match_v4, 4);
/// The `set` match's revisions.
static MATCHES: XtRevs<Raw> = XtRevs(&[&MATCH_V0, &MATCH_V1, &MATCH_V2, &MATCH_V3, &MATCH_V4]);

/// `struct xt_set_info_target_v1`: the sets to add to and delete from.
static TARGET_V1: XtStruct<Raw> =
    raw_table!(xt_set_info_target_v1, 1, [add_set => 0, del_set => 1]);
/// `struct xt_set_info_target_v2`: revision 1's with the flags and the timeout.
static TARGET_V2: XtStruct<Raw> = raw_table!(
    xt_set_info_target_v2,
    2,
    [add_set => 0, del_set => 1],
    raw!(xt_set_info_target_v2, flags: U32 => flags),
    raw!(xt_set_info_target_v2, timeout: U32 => timeout),
);
/// `struct xt_set_info_target_v3`: revision 2's with the set to map from.
static TARGET_V3: XtStruct<Raw> = raw_table!(
    xt_set_info_target_v3,
    3,
    [add_set => 0, del_set => 1, map_set => 2],
    raw!(xt_set_info_target_v3, flags: U32 => flags),
    raw!(xt_set_info_target_v3, timeout: U32 => timeout),
);
/// The `SET` target's revisions.
static TARGETS: XtRevs<Raw> = XtRevs(&[&TARGET_V1, &TARGET_V2, &TARGET_V3]);

/// The raw struct of a blob of revision `rev`, as `revs` read it.
fn read_raw(revs: &XtRevs<Raw>, rev: u32, info: &[u8]) -> Option<Raw> {
    let t = revs.get(rev)?;
    let mut raw = Raw::default();
    t.read(&t.view(rev, info)?, &mut raw)?;
    Some(raw)
}

// ---------------------------------------------------------------------------------------
// The match.

/// `-m set …`, as `struct xt_set_info_match_v4`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SetMatch {
    /// The set tested, with `IPSET_INV_MATCH` for `! --match-set`.
    pub set: SetRef,
    /// Packet counter test: `IPSET_COUNTER_*` operator and value.
    pub packets: (u8, u64),
    /// Byte counter test.
    pub bytes: (u8, u64),
    /// `IPSET_FLAG_RETURN_NOMATCH`, `_SKIP_COUNTER_UPDATE`, `_SKIP_SUBCOUNTER_UPDATE`.
    pub flags: u32,
}

fn parse_counter(s: &str, opt: &str) -> Result<u64, ParseError> {
    parse_c_uint(s, u64::MAX)
        .ok_or_else(|| ParseError::bad(opt, format!("Cannot parse {s} as a counter value")))
}

fn save_counter(out: &mut String, (op, value): (u8, u64), p: &str, name: &str) {
    match op {
        IPSET_COUNTER_EQ => out.push_str(&format!(" {p}{name}-eq {value}")),
        IPSET_COUNTER_NE => out.push_str(&format!(" ! {p}{name}-eq {value}")),
        IPSET_COUNTER_LT => out.push_str(&format!(" {p}{name}-lt {value}")),
        IPSET_COUNTER_GT => out.push_str(&format!(" {p}{name}-gt {value}")),
        _ => {}
    }
}

impl SetMatch {
    /// libxt_set's `set_print_v4_matchinfo`: options with prefix `p` (`--` to save).
    fn dump(&self, p: &str, out: &mut String) {
        if self.set.flags & IPSET_INV_MATCH != 0 {
            out.push_str(" !");
        }
        out.push_str(&format!(" {p}match-set"));
        self.set.save(out);
        if self.flags & IPSET_FLAG_RETURN_NOMATCH != 0 {
            out.push_str(&format!(" {p}return-nomatch"));
        }
        if self.flags & IPSET_FLAG_SKIP_COUNTER_UPDATE != 0 {
            out.push_str(&format!(" ! {p}update-counters"));
        }
        if self.flags & IPSET_FLAG_SKIP_SUBCOUNTER_UPDATE != 0 {
            out.push_str(&format!(" ! {p}update-subcounters"));
        }
        save_counter(out, self.packets, p, "packets");
        save_counter(out, self.bytes, p, "bytes");
    }
}

impl Extension for SetMatch {
    fn desc(&self) -> &'static ExtDesc {
        &MATCH
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let name = opt.canonical();
        let shown = opt.shown();
        match name {
            "match-set" => {
                if self.set.dim != 0 {
                    return Err(ParseError::bad(
                        &shown,
                        "--match-set can be specified only once",
                    ));
                }
                let mut r = SetRef::parse(val.text(), val.second(), "--match-set")?;
                r.check(ctx, "--match-set")?;
                if inv {
                    r.flags |= IPSET_INV_MATCH;
                }
                self.set = r;
            }
            "return-nomatch" => {
                if inv {
                    return Err(ParseError::bad(
                        &shown,
                        "--return-nomatch flag cannot be inverted",
                    ));
                }
                self.flags |= IPSET_FLAG_RETURN_NOMATCH;
            }
            "update-counters" => {
                if inv {
                    self.flags |= IPSET_FLAG_SKIP_COUNTER_UPDATE;
                }
            }
            "update-subcounters" => {
                if inv {
                    self.flags |= IPSET_FLAG_SKIP_SUBCOUNTER_UPDATE;
                }
            }
            _ => {
                let (what, op) = name.split_once('-').unwrap_or((name, ""));
                let slot = if what == "packets" {
                    &mut self.packets
                } else {
                    &mut self.bytes
                };
                if slot.0 != IPSET_COUNTER_NONE {
                    return Err(ParseError::bad(
                        &shown,
                        format!("only one of the --{what}-[eq|lt|gt] is allowed"),
                    ));
                }
                let code = match (op, inv) {
                    ("eq", false) => IPSET_COUNTER_EQ,
                    ("eq", true) => IPSET_COUNTER_NE,
                    ("lt", false) => IPSET_COUNTER_LT,
                    ("gt", false) => IPSET_COUNTER_GT,
                    _ => {
                        return Err(ParseError::bad(
                            &shown,
                            format!("{shown} option cannot be inverted"),
                        ))
                    }
                };
                *slot = (code, parse_counter(val.text(), &shown)?);
            }
        }
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.set.dim == 0 {
            return Err(ParseError::Invalid(
                "You must specify `--match-set' with proper arguments".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let raw = Raw {
            sets: [self.set.to_raw(ctx)?, RawRef::default(), RawRef::default()],
            packets: self.packets,
            bytes: self.bytes,
            flags: self.flags,
            ..Raw::default()
        };
        out.push(xt_match("set", 4, MATCH_V4.encode(&raw)));
        Ok(())
    }

    dumped!();
}

fn decode_match_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev == 0 && ctx.family != IpFamily::V4 {
        return None;
    }
    let raw = read_raw(&MATCHES, rev, info)?;
    let mut m = SetMatch::default();
    match rev {
        0 => {
            let (index, u) = raw.v0;
            let mut r = SetRef {
                name: ctx.sets.name(index)?,
                dim: 0,
                flags: 0,
            };
            if u[0] & IPSET_MATCH_INV != 0 {
                r.flags |= IPSET_INV_MATCH;
            }
            for &f in &u[..IPSET_DIM_MAX as usize] {
                if f == 0 {
                    break;
                }
                r.dim += 1;
                if f & IPSET_SRC != 0 {
                    r.flags |= 1 << r.dim;
                } else if f & IPSET_DST == 0 {
                    return None;
                }
            }
            m.set = r;
        }
        _ => {
            m.set = SetRef::from_raw(raw.sets[0], ctx.sets)?;
            if rev == 2 && m.set.flags & IPSET_RETURN_NOMATCH != 0 {
                m.set.flags &= !IPSET_RETURN_NOMATCH;
                m.flags |= IPSET_FLAG_RETURN_NOMATCH;
            }
            if rev >= 3 {
                m.packets = raw.packets;
                m.bytes = raw.bytes;
                m.flags = raw.flags;
            }
        }
    }
    if !m.set.is_set() {
        return None;
    }
    Some(Box::new(m))
}

// ---------------------------------------------------------------------------------------
// The target.

/// `-j SET …`, as `struct xt_set_info_target_v3`.
#[derive(Debug, Clone, PartialEq)]
pub struct SetTarget {
    /// `--add-set` (empty name: none).
    pub add: SetRef,
    /// `--del-set`.
    pub del: SetRef,
    /// `--map-set`.
    pub map: SetRef,
    /// `IPSET_FLAG_EXIST`, `IPSET_FLAG_MAP_SKB*`.
    pub flags: u32,
    /// `--timeout` (`u32::MAX`: the set's default).
    pub timeout: u32,
}

impl Default for SetTarget {
    fn default() -> Self {
        SetTarget {
            add: SetRef::default(),
            del: SetRef::default(),
            map: SetRef::default(),
            flags: 0,
            timeout: u32::MAX,
        }
    }
}

impl SetTarget {
    /// libxt_SET's `print_target` sequence: options with prefix `p` (`--` to save).
    fn dump(&self, p: &str, out: &mut String) {
        if self.add.is_set() {
            out.push_str(&format!(" {p}add-set"));
            self.add.save(out);
        }
        if self.flags & IPSET_FLAG_EXIST != 0 {
            out.push_str(&format!(" {p}exist"));
        }
        if self.timeout != u32::MAX {
            out.push_str(&format!(" {p}timeout {}", self.timeout));
        }
        if self.del.is_set() {
            out.push_str(&format!(" {p}del-set"));
            self.del.save(out);
        }
        if self.map.is_set() {
            out.push_str(&format!(" {p}map-set"));
            self.map.save(out);
        }
        if self.flags & IPSET_FLAG_MAP_SKBMARK != 0 {
            out.push_str(&format!(" {p}map-mark"));
        }
        if self.flags & IPSET_FLAG_MAP_SKBPRIO != 0 {
            out.push_str(&format!(" {p}map-prio"));
        }
        if self.flags & IPSET_FLAG_MAP_SKBQUEUE != 0 {
            out.push_str(&format!(" {p}map-queue"));
        }
    }
}

impl Extension for SetTarget {
    fn desc(&self) -> &'static ExtDesc {
        &TARGET
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        // libxt_SET ignores `!` before its options.
        let name = opt.name;
        let shown = opt.shown();
        match name {
            "add-set" | "del-set" | "map-set" => {
                let slot = match name {
                    "add-set" => &mut self.add,
                    "del-set" => &mut self.del,
                    _ => &mut self.map,
                };
                if slot.dim != 0 {
                    return Err(ParseError::bad(
                        &shown,
                        format!("{shown} can be specified only once"),
                    ));
                }
                let r = SetRef::parse(val.text(), val.second(), &shown)?;
                r.check(ctx, &shown)?;
                *slot = r;
            }
            "exist" => self.flags |= IPSET_FLAG_EXIST,
            "timeout" => {
                self.timeout = parse_c_uint(val.text(), u32::MAX as u64 - 1).ok_or_else(|| {
                    ParseError::bad(
                        &shown,
                        format!(
                            "Invalid value for option --timeout or out of range 0-{}",
                            u32::MAX - 1
                        ),
                    )
                })? as u32;
            }
            "map-mark" => self.flags |= IPSET_FLAG_MAP_SKBMARK,
            "map-prio" => self.flags |= IPSET_FLAG_MAP_SKBPRIO,
            "map-queue" => self.flags |= IPSET_FLAG_MAP_SKBQUEUE,
            _ => {
                return Err(ParseError::UnknownOption {
                    option: String::from(&shown),
                })
            }
        }
        Ok(())
    }

    /// libxt_SET's `set_target_check_v3`, on the options given.
    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        let has = |n: &str| ctx.given.has(n);
        if !has("add-set") && !has("del-set") && !has("map-set") {
            return Err(ParseError::Invalid(
                "You must specify either `--add-set' or `--del-set' or `--map-set'".into(),
            ));
        }
        if !has("add-set") {
            if has("exist") {
                return Err(ParseError::Invalid(
                    "Flag `--exist' can be used with `--add-set' only".into(),
                ));
            }
            if has("timeout") {
                return Err(ParseError::Invalid(
                    "Option `--timeout' can be used with `--add-set' only".into(),
                ));
            }
        }
        if !has("map-set") {
            for f in ["map-mark", "map-prio", "map-queue"] {
                if has(f) {
                    return Err(ParseError::Invalid(format!(
                        "Flag `--{f}' can be used with `--map-set' only"
                    )));
                }
            }
        } else if !has("map-mark") && !has("map-prio") && !has("map-queue") {
            return Err(ParseError::Invalid(
                "You must specify flags `--map-mark' or '--map-prio` or `--map-queue'".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let raw = Raw {
            sets: [
                self.add.to_raw(ctx)?,
                self.del.to_raw(ctx)?,
                self.map.to_raw(ctx)?,
            ],
            flags: self.flags,
            timeout: self.timeout,
            ..Raw::default()
        };
        out.push(xt_target("SET", 3, TARGET_V3.encode(&raw)));
        Ok(())
    }

    dumped!();
}

fn decode_target_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Every revision starts with the sets to add to and delete from; revision 2 adds the
    // flags and the timeout, revision 3 the set to map from after them: what a revision
    // lacks keeps the value a new target has.
    let raw = read_raw(&TARGETS, rev, info)?;
    let [add, del, map] = raw.sets;
    Some(Box::new(SetTarget {
        add: SetRef::from_raw(add, ctx.sets)?,
        del: SetRef::from_raw(del, ctx.sets)?,
        map: SetRef::from_raw(map, ctx.sets)?,
        flags: raw.flags,
        timeout: raw.timeout,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::ext::base::api::XtBuf;
    use iptnl_sys::xt::{ip_set_counter_match0, xt_set_info};
    use std::mem::offset_of;

    #[test]
    fn dirs_parse_like_libxt_set() {
        let r = SetRef::parse("s", "src,dst", "--match-set").unwrap();
        assert_eq!((r.dim, r.flags), (2, 0b10));
        let r = SetRef::parse("s", "dstx,srcy", "--match-set").unwrap();
        assert_eq!((r.dim, r.flags), (2, 0b100));
        assert!(SetRef::parse("s", "src,foo", "--match-set").is_err());
        assert!(SetRef::parse("s", "src,", "--match-set").is_err());
        assert!(SetRef::parse("s", "-src", "--match-set").is_err());
        assert!(SetRef::parse("s", "src,src,src,src,src,src", "--match-set").is_ok());
        assert!(SetRef::parse("s", "src,src,src,src,src,src,src", "--match-set").is_err());
        assert!(SetRef::parse(&"x".repeat(32), "src", "--match-set").is_err());
        assert!(SetRef::parse(&"x".repeat(31), "src", "--match-set").is_ok());
        let mut s = String::new();
        SetRef::parse("kube", "dst,src", "--match-set")
            .unwrap()
            .save(&mut s);
        assert_eq!(s, " kube dst,src");
    }

    #[test]
    fn counters_print_in_order() {
        let m = SetMatch {
            set: SetRef {
                name: "s".into(),
                dim: 1,
                flags: IPSET_INV_MATCH | 2,
            },
            packets: (IPSET_COUNTER_GT, 5),
            bytes: (IPSET_COUNTER_NE, 100),
            flags: IPSET_FLAG_RETURN_NOMATCH | IPSET_FLAG_SKIP_COUNTER_UPDATE,
        };
        let mut s = String::new();
        m.save(IpFamily::V4, &mut s);
        assert_eq!(
            s,
            " ! --match-set s src --return-nomatch ! --update-counters --packets-gt 5 ! --bytes-eq 100"
        );
    }

    /// Sets `a` (index 1) and `b` (index 2).
    struct Two;

    impl SetIndex for Two {
        fn index(&self, name: &str, _family: IpFamily) -> Result<u16, String> {
            match name {
                "a" => Ok(1),
                "b" => Ok(2),
                _ => Err(format!("Set {name} doesn't exist.")),
            }
        }

        fn name(&self, index: u16) -> Option<String> {
            ["a", "b"]
                .get(usize::from(index).checked_sub(1)?)
                .map(|s| (*s).to_owned())
        }
    }

    fn parse(spec: &str) -> Result<String, String> {
        let args: Vec<&str> = spec.split(' ').collect();
        crate::ipt::parse_rule_with(IpFamily::V4, &args, &Two)
            .map(|r| r[0].to_save_args())
            .map_err(|e| e.to_string())
    }

    /// libxt_set's and libxt_SET's own checks and words, on the options the table lets by.
    #[test]
    fn options_are_checked_in_libxt_sets_words() {
        assert_eq!(
            parse("-m set --set a src --match-set b dst").unwrap_err(),
            "--match-set: --match-set can be specified only once"
        );
        assert_eq!(
            parse("-m set ! --set a src,dst").unwrap(),
            "-m set ! --match-set a src,dst"
        );
        assert_eq!(
            parse("-m set --match-set a src ! --return-nomatch").unwrap_err(),
            "--return-nomatch: --return-nomatch flag cannot be inverted"
        );
        assert_eq!(
            parse("-m set --match-set a src --bytes-lt 1 --bytes-eq 2").unwrap_err(),
            "--bytes-eq: only one of the --bytes-[eq|lt|gt] is allowed"
        );
        assert_eq!(
            parse("-m set --return-nomatch").unwrap_err(),
            "You must specify `--match-set' with proper arguments"
        );
        assert_eq!(
            parse("-j SET --add-set a src ! --exist --exist --timeout 5 --timeout 6").unwrap(),
            "-j SET --add-set a src --exist --timeout 6"
        );
        assert_eq!(
            parse("-j SET --del-set a src --del-set b src").unwrap_err(),
            "--del-set: --del-set can be specified only once"
        );
        assert_eq!(
            parse("-j SET --del-set a src --timeout 5").unwrap_err(),
            "Option `--timeout' can be used with `--add-set' only"
        );
        assert_eq!(
            parse("-j SET --add-set a src --timeout x").unwrap_err(),
            "--timeout: Invalid value for option --timeout or out of range 0-4294967294"
        );
        assert_eq!(
            parse("-j SET --map-set a src").unwrap_err(),
            "You must specify flags `--map-mark' or '--map-prio` or `--map-queue'"
        );
        assert_eq!(
            parse("-j SET --add-set a src --map-prio").unwrap_err(),
            "Flag `--map-prio' can be used with `--map-set' only"
        );
    }

    /// Every revision decodes: what revision 4 (match) and 3 (target) encode, and older
    /// layouts built by hand.
    #[test]
    fn revisions_decode() {
        let dctx = DecodeCtx {
            family: IpFamily::V4,
            proto: None,
            sets: &Two,
        };
        let ectx = EncodeCtx {
            family: IpFamily::V4,
            proto: None,
            table: "filter",
            chain: "INPUT",
            sets: &Two,
            floor: crate::ipt::ReaderFloor::UNPINNED,
        };
        let back = |e: &Expr| {
            let (rev, info) = match e {
                Expr::Match(m) => (m.rev, &m.info),
                Expr::Target(t) => (t.rev, &t.info),
                _ => unreachable!(),
            };
            let ext = match e {
                Expr::Match(_) => decode_match_xt(rev, info, &dctx),
                _ => decode_target_xt(rev, info, &dctx),
            };
            let mut s = String::new();
            ext.expect("decodes").save(IpFamily::V4, &mut s);
            s
        };
        for spec in [
            "-m set ! --match-set b dst,src --packets-lt 3 ! --bytes-eq 4",
            "-j SET --add-set a src --exist --timeout 5 --del-set b dst --map-set a src --map-mark",
        ] {
            let args: Vec<&str> = spec.split(' ').collect();
            let rule = &crate::ipt::parse_rule_with(IpFamily::V4, &args, &Two).unwrap()[0];
            let ext: &dyn Extension = match &rule.target {
                Some(crate::ipt::RuleTarget::Ext(t)) => t.as_ref(),
                _ => rule.matches[0].as_ref(),
            };
            let mut out = Vec::new();
            ext.encode(&ectx, &mut out).unwrap();
            let mut want = String::new();
            ext.save(IpFamily::V4, &mut want);
            assert_eq!(back(&out[0]), want);
        }

        type M = xt_set_info_match_v3;
        type C0 = ip_set_counter_match0;
        let mut b = XtBuf::of::<M>();
        b.put_u16(offset_of!(M, match_set) + offset_of!(xt_set_info, index), 2);
        b.put_u8(offset_of!(M, match_set) + offset_of!(xt_set_info, dim), 1);
        b.put_u8(
            offset_of!(M, packets) + offset_of!(C0, op),
            IPSET_COUNTER_GT,
        );
        b.put_u64(offset_of!(M, packets) + offset_of!(C0, value), 9);
        let e = xt_match("set", 3, b.into_vec());
        assert_eq!(back(&e), " --match-set b dst --packets-gt 9");

        type T1 = xt_set_info_target_v1;
        let mut b = XtBuf::of::<T1>();
        b.put_u16(
            offset_of!(T1, add_set) + offset_of!(xt_set_info, index),
            IPSET_INVALID_ID,
        );
        b.put_u16(offset_of!(T1, del_set) + offset_of!(xt_set_info, index), 1);
        b.put_u8(offset_of!(T1, del_set) + offset_of!(xt_set_info, dim), 1);
        b.put_u8(offset_of!(T1, del_set) + offset_of!(xt_set_info, flags), 2);
        let e = xt_target("SET", 1, b.into_vec());
        assert_eq!(back(&e), " --del-set a src");

        type T2 = xt_set_info_target_v2;
        let mut b = XtBuf::of::<T2>();
        b.put_u16(offset_of!(T2, add_set) + offset_of!(xt_set_info, index), 2);
        b.put_u8(offset_of!(T2, add_set) + offset_of!(xt_set_info, dim), 1);
        b.put_u16(
            offset_of!(T2, del_set) + offset_of!(xt_set_info, index),
            IPSET_INVALID_ID,
        );
        b.put_u32(offset_of!(T2, flags), IPSET_FLAG_EXIST);
        b.put_u32(offset_of!(T2, timeout), 7);
        let e = xt_target("SET", 2, b.into_vec());
        assert_eq!(back(&e), " --add-set b dst --exist --timeout 7");
    }
}
