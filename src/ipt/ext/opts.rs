//! Declarative option tables of the extensions, and the one place that enforces them.
//!
//! Each extension declares its options once, in a static table of [`Opt`] entries, as
//! libxtables' `struct xt_option_entry` tables do: the option's name, the type of its value
//! ([`Ty`]), whether it may be inverted, given more than once or must be given, and which
//! other options it cannot be combined with (`excl`) or needs (`also`). The rule parser then
//!
//! - refuses a second use of an option ([`once_error`]) and a `!` before an option that cannot
//!   be inverted ([`invert_error`]) as `xtables_option_parse` does,
//! - parses the value into a typed [`Val`] with libxtables' number, range, mark/mask, string,
//!   prefix-length and name-list parsers ([`parse_value`]), and
//! - once the rule is read, checks mandatory options, exclusions and dependencies in
//!   `xtables_options_fcheck`'s order ([`fcheck`]),
//!
//! so an extension's `parse` only stores the typed value it receives, and its `finish` only
//! checks what no table can say.
//!
//! ```
//! use iptnl::ipt::ext::opts::{Opt, Ty};
//! static OPTIONS: &[Opt] = &[
//!     Opt::new("ttl-eq", Ty::Uint { min: 0, max: 255 }).inv().excl(&["ttl-eq", "ttl-lt"]),
//!     Opt::new("ttl-lt", Ty::Uint { min: 0, max: 255 }).excl(&["ttl-eq", "ttl-lt"]),
//! ];
//! assert_eq!(OPTIONS[0].arity(), 1);
//! assert!(OPTIONS[0].invertible() && !OPTIONS[1].invertible());
//! ```

use crate::ipt::error::ParseError;
use crate::ipt::ext::libxt::{inet_aton, prefix_mask, strtod_full};
use crate::ipt::ext::libxt::{strtoul_full, strtoul_prefix};
use crate::ipt::IpFamily;

/// The type of an option's value, as libxtables' `XTTYPE_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// No value (`XTTYPE_NONE`).
    Flag,
    /// An unsigned number within `min..=max` (`XTTYPE_UINT8`..`XTTYPE_UINT64`; the width is
    /// the one `max` fits in), in `strtoul`'s syntax (decimal, `0x` hex, `0` octal).
    Uint {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
    },
    /// One or two numbers `a[:b]` within `min..=max` (`XTTYPE_UINT*RC`); an empty first
    /// component is `min`, an empty second `max`.
    Range {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
        /// Whether the second may not be below the first, as libxtables 1.8.11 checks
        /// (1.8.9 took `5:3`).
        ordered: bool,
    },
    /// A floating-point number in `strtod`'s syntax within `min..=max` (`XTTYPE_DOUBLE`; no
    /// range when both are 0).
    Double {
        /// The smallest value.
        min: u32,
        /// The largest value.
        max: u32,
    },
    /// A string of `min..=max` bytes (`XTTYPE_STRING`; `max` 0 for no limit).
    Str {
        /// The shortest length (0 for none).
        min: usize,
        /// The longest length (0 for none).
        max: usize,
    },
    /// `value[/mask]`, 32 bits each, the mask `0xffffffff` when not given
    /// (`XTTYPE_MARKMASK32`).
    MarkMask,
    /// A prefix length of the family (0–32 or 0–128) or a network mask in address form
    /// (`XTTYPE_PLEN`, `XTTYPE_PLENMASK`).
    Plen,
    /// One of a list of names; `err` is the message for any other value, with `%s` standing
    /// for the value.
    OneOf {
        /// The names, in the order their index is reported.
        names: &'static [&'static str],
        /// Whether case is ignored.
        nocase: bool,
        /// The message for an unknown name (`%s` is the value).
        err: &'static str,
    },
    /// One value the extension parses itself.
    Custom,
    /// Two values the extension parses itself (`--tcp-flags MASK COMP`).
    Custom2,
    /// A value the extension parses itself that may be left out, as getopt's optional
    /// arguments of old-style extensions (`--rateest-bps [RATE]`): the next argument, unless
    /// there is none or it starts with `-` or `!`. It comes as [`Val::Raw`], or [`Val::None`]
    /// when left out.
    OptRaw,
}

/// `XTTYPE_UINT8`: 0–255.
pub const U8: Ty = Ty::Uint { min: 0, max: 0xff };
/// `XTTYPE_UINT16`: 0–65535.
pub const U16: Ty = Ty::Uint {
    min: 0,
    max: 0xffff,
};
/// `XTTYPE_UINT32`: 0–4294967295.
pub const U32: Ty = Ty::Uint {
    min: 0,
    max: 0xffff_ffff,
};
/// A string of any length (`XTTYPE_STRING` without limits).
pub const STR: Ty = Ty::Str { min: 0, max: 0 };

/// Flag of [`Opt::flags`]: `!` may precede the option (`XTOPT_INVERT`).
pub const INVERT: u8 = 1;
/// Flag of [`Opt::flags`]: the option must be given (`XTOPT_MAND`).
pub const MAND: u8 = 2;
/// Flag of [`Opt::flags`]: the option may be given more than once (`XTOPT_MULTI`).
pub const MULTI: u8 = 4;

/// One option of an extension (libxtables' `struct xt_option_entry`).
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// Long name without the dashes (`dport`).
    pub name: &'static str,
    /// The type of its value.
    pub ty: Ty,
    /// [`INVERT`], [`MAND`], [`MULTI`].
    pub flags: u8,
    /// Options it cannot be used with (by name; its own name makes a [`MULTI`] option
    /// once-only again, as in libxtables).
    pub excl: &'static [&'static str],
    /// Options it needs.
    pub also: &'static [&'static str],
    /// The option this one is another name of (`sport` for `source-port`): they count as one
    /// option, and messages name the first.
    pub alias_of: Option<&'static str>,
    /// The same facts by entry index, filled by [`table`]: the rule parser checks them with
    /// bit operations instead of comparing names.
    pub links: Links,
}

/// What [`table`] works out of an entry's names once, at compile time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Links {
    /// Set by [`table`]; a table built without it is checked by name.
    pub linked: bool,
    /// Index of the entry this one counts as (its alias target's, or its own).
    pub slot: u8,
    /// Whether its own name is in its `excl` list (a [`MULTI`] option once-only again).
    pub self_excl: bool,
    /// Bits of the (non-alias) entries it excludes.
    pub excl: u64,
    /// Bits of the (non-alias) entries it needs.
    pub also: u64,
    /// The same in every entry of a table: bits of its mandatory entries.
    pub table_mand: u64,
    /// The same in every entry of a table: bits of its entries that exclude or need others.
    pub table_linked: u64,
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn names_contain(list: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < list.len() {
        if str_eq(list[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

/// An extension's option table with its entries linked by index ([`Links`]), worked out at
/// compile time: each alias finds its entry, and `excl`/`also` become bit masks, so that the
/// rule parser's checks compare no names. At most 64 entries.
///
/// ```
/// use iptnl::ipt::ext::opts::{table, Opt, Ty};
/// static OPTIONS: &[Opt] = &table([
///     Opt::new("ttl-eq", Ty::Uint { min: 0, max: 255 }).excl(&["ttl-lt"]),
///     Opt::new("ttl-lt", Ty::Uint { min: 0, max: 255 }),
///     Opt::new("ttl", Ty::Uint { min: 0, max: 255 }).alias("ttl-eq"),
/// ]);
/// assert_eq!(OPTIONS[0].links.excl, 0b10);
/// assert_eq!(OPTIONS[2].links.slot, 0);
/// ```
pub const fn table<const N: usize>(mut t: [Opt; N]) -> [Opt; N] {
    assert!(N <= 64, "an option table has at most 64 entries");
    let mut i = 0;
    while i < N {
        let mut slot = i;
        if let Some(of) = t[i].alias_of {
            let mut j = 0;
            while j < N {
                if str_eq(t[j].name, of) {
                    slot = j;
                    break;
                }
                j += 1;
            }
        }
        let (mut excl, mut also) = (0u64, 0u64);
        let mut j = 0;
        while j < N {
            if t[j].alias_of.is_none() && !str_eq(t[j].name, t[i].name) {
                if names_contain(t[i].excl, t[j].name) {
                    excl |= 1 << j;
                }
                if names_contain(t[i].also, t[j].name) {
                    also |= 1 << j;
                }
            }
            j += 1;
        }
        t[i].links = Links {
            linked: true,
            slot: slot as u8,
            self_excl: names_contain(t[i].excl, t[i].name),
            excl,
            also,
            table_mand: 0,
            table_linked: 0,
        };
        i += 1;
    }
    let (mut mand, mut linked) = (0u64, 0u64);
    let mut i = 0;
    while i < N {
        if t[i].alias_of.is_none() {
            if t[i].flags & MAND != 0 {
                mand |= 1 << i;
            }
            if t[i].links.excl | t[i].links.also != 0 {
                linked |= 1 << i;
            }
        }
        i += 1;
    }
    let mut i = 0;
    while i < N {
        t[i].links.table_mand = mand;
        t[i].links.table_linked = linked;
        i += 1;
    }
    t
}

const SHOWN_CAP: usize = 48;

/// An option name with its dashes (`--dport`), see [`Opt::shown`]; derefs to `str`.
#[derive(Clone, Copy)]
pub struct ShownOpt {
    buf: [u8; SHOWN_CAP],
    len: usize,
}

impl std::ops::Deref for ShownOpt {
    type Target = str;
    fn deref(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("--")
    }
}

impl std::fmt::Display for ShownOpt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl From<&ShownOpt> for String {
    fn from(s: &ShownOpt) -> String {
        (**s).to_owned()
    }
}

impl std::fmt::Debug for ShownOpt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl Opt {
    /// An option with a value of type `ty`, not invertible, once only, optional.
    ///
    /// ```
    /// use iptnl::ipt::ext::opts::{Opt, Ty};
    /// let o = Opt::new("limit-burst", Ty::Uint { min: 0, max: 10_000 }).mand();
    /// assert!(o.mandatory() && !o.invertible() && !o.repeatable());
    /// ```
    pub const fn new(name: &'static str, ty: Ty) -> Opt {
        Opt {
            name,
            ty,
            flags: 0,
            excl: &[],
            also: &[],
            alias_of: None,
            links: Links {
                linked: false,
                slot: 0,
                self_excl: false,
                excl: 0,
                also: 0,
                table_mand: 0,
                table_linked: 0,
            },
        }
    }
    /// A flag (no value).
    pub const fn flag(name: &'static str) -> Opt {
        Opt::new(name, Ty::Flag)
    }
    /// An option with one value the extension parses itself.
    pub const fn custom(name: &'static str) -> Opt {
        Opt::new(name, Ty::Custom)
    }
    /// May be inverted.
    pub const fn inv(mut self) -> Opt {
        self.flags |= INVERT;
        self
    }
    /// Must be given.
    pub const fn mand(mut self) -> Opt {
        self.flags |= MAND;
        self
    }
    /// May be given more than once.
    pub const fn multi(mut self) -> Opt {
        self.flags |= MULTI;
        self
    }
    /// Cannot be used with these options.
    pub const fn excl(mut self, excl: &'static [&'static str]) -> Opt {
        self.excl = excl;
        self
    }
    /// Needs these options.
    pub const fn also(mut self, also: &'static [&'static str]) -> Opt {
        self.also = also;
        self
    }
    /// Another name of option `of` (declared before it in the table).
    pub const fn alias(mut self, of: &'static str) -> Opt {
        self.alias_of = Some(of);
        self
    }
    /// How many values it takes (an optional value, [`Ty::OptRaw`], counts none).
    pub const fn arity(&self) -> usize {
        match self.ty {
            Ty::Flag | Ty::OptRaw => 0,
            Ty::Custom2 => 2,
            _ => 1,
        }
    }
    /// Whether `!` may precede it.
    pub const fn invertible(&self) -> bool {
        self.flags & INVERT != 0
    }
    /// Whether it must be given.
    pub const fn mandatory(&self) -> bool {
        self.flags & MAND != 0
    }
    /// Whether it may be given more than once.
    pub const fn repeatable(&self) -> bool {
        self.flags & MULTI != 0
    }
    /// The option as messages show it (`--dport`), built on the stack: extensions parse
    /// hundreds of thousands of options in a restore, and the name is only read on errors.
    ///
    /// ```
    /// use iptnl::ipt::ext::opts::Opt;
    /// assert_eq!(&*Opt::custom("dport").shown(), "--dport");
    /// ```
    pub fn shown(&self) -> ShownOpt {
        let mut buf = [0u8; SHOWN_CAP];
        buf[..2].copy_from_slice(b"--");
        let name = self.name.as_bytes();
        // Option names are short constants; a longer one is cut at a char boundary.
        let mut n = name.len().min(SHOWN_CAP - 2);
        while !self.name.is_char_boundary(n) {
            n -= 1;
        }
        buf[2..2 + n].copy_from_slice(&name[..n]);
        ShownOpt { buf, len: 2 + n }
    }
    /// The name that counts for once-only checks and messages (`alias_of`, or its own).
    pub fn canonical(&self) -> &'static str {
        self.alias_of.unwrap_or(self.name)
    }
}

/// The index of the entry an option counts as (its alias target's, or its own), the bit it
/// sets in [`Given`]; `None` beyond 64 entries.
fn slot(table: &[Opt], name: &str) -> Option<usize> {
    slot_at(table, table.iter().position(|o| o.name == name)?).filter(|&i| i < 64)
}

/// The index of the entry that the entry at index `k` of `table` counts as (its alias
/// target's, or its own): no name comparison unless it is an alias. [`Given`] tracks the
/// first 64.
pub fn slot_at(table: &[Opt], k: usize) -> Option<usize> {
    let e = table.get(k)?;
    match e.alias_of {
        None => Some(k),
        Some(_) if e.links.linked => Some(e.links.slot as usize),
        Some(of) => table.iter().position(|o| o.name == of),
    }
}

/// The options of one extension given so far (libxtables' `xflags`). It never takes part in
/// equality of extensions: a decoded rule and a parsed one are equal whatever was typed.
#[derive(Debug, Clone, Copy)]
pub struct Given {
    bits: u64,
    table: &'static [Opt],
}

impl Given {
    /// None of `table`'s options given.
    pub fn new(table: &'static [Opt]) -> Given {
        Given { bits: 0, table }
    }
    /// Whether option `name` (or another name of it) was given.
    ///
    /// ```
    /// use iptnl::ipt::ext::opts::{Given, Opt};
    /// static T: &[Opt] = &[Opt::flag("a"), Opt::flag("b")];
    /// let mut g = Given::new(T);
    /// g.record("b");
    /// assert!(g.has("b") && !g.has("a"));
    /// ```
    pub fn has(&self, name: &str) -> bool {
        slot(self.table, name).is_some_and(|i| self.bits & (1 << i) != 0)
    }
    /// Records option `name` as given.
    pub fn record(&mut self, name: &str) {
        if let Some(i) = slot(self.table, name) {
            self.bits |= 1 << i;
        }
    }
    /// Whether the option of slot `i` (see [`slot_at`]) was given.
    pub fn has_slot(&self, i: usize) -> bool {
        i < 64 && self.bits & (1 << i) != 0
    }
    /// Records the option of slot `i` (see [`slot_at`]) as given.
    pub fn record_slot(&mut self, i: usize) {
        if i < 64 {
            self.bits |= 1 << i;
        }
    }
    /// Whether no option was given.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }
}

/// An option's value, parsed as its [`Ty`] says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val<'a> {
    /// A flag.
    None,
    /// [`Ty::Uint`].
    Uint(u64),
    /// [`Ty::Range`]: both ends (equal for one number) and how many components were given
    /// (1 for `5`, 2 for `5:` or `5:7`).
    Range([u64; 2], u8),
    /// [`Ty::Double`].
    Double(f64),
    /// [`Ty::Str`].
    Str(&'a str),
    /// [`Ty::MarkMask`]: value and mask.
    MarkMask(u32, u32),
    /// [`Ty::Plen`]: the prefix length (`None` for a mask that is not a prefix) and the mask
    /// (the first 4 bytes for IPv4).
    Plen(Option<u8>, [u8; 16]),
    /// [`Ty::OneOf`]: the index of the name.
    Name(usize),
    /// [`Ty::Custom`]: the text.
    Raw(&'a str),
    /// [`Ty::Custom2`]: both texts.
    Raw2(&'a str, &'a str),
}

impl<'a> Val<'a> {
    /// The number of a [`Val::Uint`] (0 otherwise).
    pub fn uint(&self) -> u64 {
        match *self {
            Val::Uint(v) => v,
            _ => 0,
        }
    }
    /// The text of a [`Val::Str`] or [`Val::Raw`] (the first of a [`Val::Raw2`]; empty
    /// otherwise).
    pub fn text(&self) -> &'a str {
        match *self {
            Val::Str(s) | Val::Raw(s) | Val::Raw2(s, _) => s,
            _ => "",
        }
    }
    /// The second text of a [`Val::Raw2`] (empty otherwise).
    pub fn second(&self) -> &'a str {
        match *self {
            Val::Raw2(_, s) => s,
            _ => "",
        }
    }
    /// Both ends of a [`Val::Range`] (`[0, 0]` otherwise).
    pub fn range(&self) -> [u64; 2] {
        match *self {
            Val::Range(r, _) => r,
            _ => [0, 0],
        }
    }
    /// The number of a [`Val::Double`] (0 otherwise).
    pub fn double(&self) -> f64 {
        match *self {
            Val::Double(v) => v,
            _ => 0.0,
        }
    }
    /// Value and mask of a [`Val::MarkMask`] (`(0, 0)` otherwise).
    pub fn mark_mask(&self) -> (u32, u32) {
        match *self {
            Val::MarkMask(v, m) => (v, m),
            _ => (0, 0),
        }
    }
    /// The index of a [`Val::Name`] (0 otherwise).
    pub fn index(&self) -> usize {
        match *self {
            Val::Name(i) => i,
            _ => 0,
        }
    }
}

/// One option as an extension's `parse` receives it: checked for repetition and inversion,
/// its value parsed.
#[derive(Debug, Clone, Copy)]
pub struct OptArg<'a> {
    /// The option's entry in the extension's table.
    pub opt: &'a Opt,
    /// Whether `!` preceded it.
    pub inv: bool,
    /// Its value.
    pub val: Val<'a>,
}

impl OptArg<'_> {
    /// The option's name (the name given, not the one it is an alias of).
    pub fn name(&self) -> &'static str {
        self.opt.name
    }
}

/// `EXT: option "--NAME" can only be used once.` (`xtables_option_parse`).
pub fn once_error(ext: &str, name: &str) -> ParseError {
    ParseError::bad(
        format!("--{name}"),
        format!("{ext}: option \"--{name}\" can only be used once."),
    )
}

/// `EXT: option "--NAME" cannot be inverted.` (`xtables_option_parse`).
pub fn invert_error(ext: &str, name: &str) -> ParseError {
    ParseError::bad(
        format!("--{name}"),
        format!("{ext}: option \"--{name}\" cannot be inverted."),
    )
}

/// `EXT: option "--NAME" must be specified` (`xtables_options_fcheck`).
pub fn mandatory_error(ext: &str, name: &str) -> ParseError {
    ParseError::Invalid(format!("{ext}: option \"--{name}\" must be specified"))
}

/// `EXT: option "--A" cannot be used together with "--B".` (`xtables_options_fcheck`).
pub fn excl_error(ext: &str, a: &str, b: &str) -> ParseError {
    ParseError::Invalid(format!(
        "{ext}: option \"--{a}\" cannot be used together with \"--{b}\"."
    ))
}

/// `EXT: option "--A" also requires "--B".` (`xtables_options_fcheck`).
pub fn also_error(ext: &str, a: &str, b: &str) -> ParseError {
    ParseError::Invalid(format!("{ext}: option \"--{a}\" also requires \"--{b}\"."))
}

/// The checks `xtables_option_parse` makes before an option's value is parsed: a second use
/// of a once-only option, and `!` before one that cannot be inverted. `slot` is the entry
/// the option counts as ([`slot_at`]): an alias counts, inverts and parses as the entry it
/// stands for, as libxtables looks an option up by its id.
#[inline]
pub fn precheck(
    ext: &str,
    table: &[Opt],
    given: &Given,
    slot: usize,
    inv: bool,
) -> Result<(), ParseError> {
    let Some(opt) = table.get(slot) else {
        return Ok(());
    };
    let self_excl = if opt.links.linked {
        opt.links.self_excl
    } else {
        opt.excl.contains(&opt.name)
    };
    let once_only = !opt.repeatable() || self_excl;
    if once_only && given.has_slot(slot) {
        return Err(once_error(ext, opt.name));
    }
    if inv && !opt.invertible() {
        return Err(invert_error(ext, opt.name));
    }
    Ok(())
}

/// The checks `xtables_options_fcheck` makes once the rule is read, in its order: each entry
/// in table order, whether it is mandatory and missing, then whether it needs an option not
/// given or was given with one it excludes.
pub fn fcheck(ext: &str, table: &[Opt], given: &Given) -> Result<(), ParseError> {
    if table.first().is_none_or(|e| e.links.linked) {
        return fcheck_linked(ext, table, given.bits);
    }
    for (i, e) in table.iter().enumerate() {
        if e.alias_of.is_some() {
            continue;
        }
        let has = given.has_slot(i);
        if e.mandatory() && !has {
            return Err(mandatory_error(ext, e.name));
        }
        if !has {
            continue;
        }
        for other in table.iter() {
            if other.alias_of.is_some() || other.name == e.name {
                continue;
            }
            if e.also.contains(&other.name) && !given.has(other.name) {
                return Err(also_error(ext, e.name, other.name));
            }
            if e.excl.contains(&other.name) && given.has(other.name) {
                return Err(excl_error(ext, e.name, other.name));
            }
        }
    }
    Ok(())
}

/// [`fcheck`] on a [`table`]: the same checks in the same order, by bit masks.
fn fcheck_linked(ext: &str, table: &[Opt], bits: u64) -> Result<(), ParseError> {
    if let Some(e) = table.first() {
        // What nearly every rule comes to: every mandatory option given, none that excludes
        // or needs another.
        let l = e.links;
        if bits & l.table_mand == l.table_mand && bits & l.table_linked == 0 {
            return Ok(());
        }
    }
    for (i, e) in table.iter().enumerate() {
        if e.alias_of.is_some() {
            continue;
        }
        let has = bits & (1u64 << i) != 0;
        if !has {
            if e.mandatory() {
                return Err(mandatory_error(ext, e.name));
            }
            continue;
        }
        let missing = e.links.also & !bits;
        let clash = e.links.excl & bits;
        if missing | clash == 0 {
            continue;
        }
        // The first offending entry in table order; "needs" before "excludes" at one entry.
        let j = (missing | clash).trailing_zeros() as usize;
        let other = table.get(j).map_or("", |o| o.name);
        return Err(if missing & (1u64 << j) != 0 {
            also_error(ext, e.name, other)
        } else {
            excl_error(ext, e.name, other)
        });
    }
    Ok(())
}

/// `EXT: bad value for option "--NAME", or out of range (MIN-MAX).` (`XTTYPE_UINT*`).
pub fn uint_error(ext: &str, name: &str, min: u64, max: u64) -> ParseError {
    ParseError::bad(
        format!("--{name}"),
        format!("{ext}: bad value for option \"--{name}\", or out of range ({min}-{max})."),
    )
}

/// A number as `XTTYPE_UINT*` reads it: the whole string in `strtoul`'s syntax, within
/// `min..=max`.
///
/// ```
/// use iptnl::ipt::ext::opts::parse_uint;
/// assert_eq!(parse_uint("ttl", "ttl-eq", "0x10", 0, 255), Ok(16));
/// assert_eq!(
///     parse_uint("ttl", "ttl-eq", "256", 0, 255).unwrap_err().to_string(),
///     "--ttl-eq: ttl: bad value for option \"--ttl-eq\", or out of range (0-255)."
/// );
/// ```
pub fn parse_uint(ext: &str, name: &str, s: &str, min: u64, max: u64) -> Result<u64, ParseError> {
    strtoul_full(s, min, max).ok_or_else(|| uint_error(ext, name, min, max))
}

/// A number as `XTTYPE_DOUBLE` reads it: the whole string in `strtod`'s syntax, within
/// `min..=max` unless both are 0.
///
/// ```
/// use iptnl::ipt::ext::opts::parse_double;
/// assert_eq!(parse_double("statistic", "probability", "0.5", 0, 1), Ok(0.5));
/// assert!(parse_double("statistic", "probability", "2", 0, 1).is_err());
/// ```
pub fn parse_double(ext: &str, name: &str, s: &str, min: u32, max: u32) -> Result<f64, ParseError> {
    strtod_full(s)
        .filter(|v| min == max || (f64::from(min)..=f64::from(max)).contains(v))
        .ok_or_else(|| {
            ParseError::bad(
                format!("--{name}"),
                format!("{ext}: bad value for option \"--{name}\", or out of range ({min}-{max})."),
            )
        })
}

/// `a[:b]` as `XTTYPE_UINT*RC` reads it (at most two components): each number within
/// `min..=max` (and, when `ordered`, not below the one before), an empty first component
/// `min` and an empty second `max`. Returns both ends (equal for one number) and how many
/// components were given.
///
/// ```
/// use iptnl::ipt::ext::opts::parse_range;
/// assert_eq!(parse_range("length", "length", "5:", 0, 65535, true), Ok(([5, 65535], 2)));
/// assert_eq!(parse_range("length", "length", "7", 0, 65535, true), Ok(([7, 7], 1)));
/// assert!(parse_range("frag", "fragid", "7:5", 0, 65535, true).is_err());
/// assert_eq!(parse_range("length", "length", "7:5", 0, 65535, false), Ok(([7, 5], 2)));
/// ```
pub fn parse_range(
    ext: &str,
    name: &str,
    arg: &str,
    min: u64,
    max: u64,
    ordered: bool,
) -> Result<([u64; 2], u8), ParseError> {
    let shown = format!("--{name}");
    let mut lmin = min;
    let mut out = [0u64; 2];
    let mut nvals = 0usize;
    let mut rest = arg;
    loop {
        if nvals == 2 {
            return Err(ParseError::bad(
                &shown,
                format!("{ext}: Too many components for option \"{shown}\" (max: 2)"),
            ));
        }
        let (value, after) = if rest.is_empty() || rest.starts_with(':') {
            (if nvals == 1 { max } else { lmin }, rest)
        } else {
            let (v, after) = strtoul_prefix(rest)
                .filter(|(v, _)| (lmin..=max).contains(v))
                .ok_or_else(|| {
                    ParseError::bad(
                        &shown,
                        format!(
                            "{ext}: bad value for option \"{shown}\" near \"{rest}\", or out of range ({lmin}-{max})."
                        ),
                    )
                })?;
            if !after.is_empty() && !after.starts_with(':') {
                return Err(ParseError::bad(
                    &shown,
                    format!(
                        "{ext}: Argument to \"{shown}\" has unexpected characters near \"{after}\"."
                    ),
                ));
            }
            if ordered {
                lmin = v;
            }
            (v, after)
        };
        out[nvals] = value;
        nvals += 1;
        match after.strip_prefix(':') {
            Some(next) => rest = next,
            None => break,
        }
    }
    if nvals == 1 {
        out[1] = out[0];
    }
    Ok((out, nvals as u8))
}

/// `value[/mask]` as `XTTYPE_MARKMASK32` reads it (`xtables_parse_val_mask`), 32 bits each;
/// the mask is `0xffffffff` when not given.
///
/// ```
/// use iptnl::ipt::ext::opts::parse_mark_mask;
/// assert_eq!(parse_mark_mask("mark", "mark", "0x1/0xff"), Ok((1, 0xff)));
/// assert_eq!(parse_mark_mask("mark", "mark", "7"), Ok((7, u32::MAX)));
/// assert_eq!(
///     parse_mark_mask("mark", "mark", "7x").unwrap_err().to_string(),
///     "--mark: mark: trailing garbage after value for option \"--mark\"."
/// );
/// ```
pub fn parse_mark_mask(ext: &str, name: &str, s: &str) -> Result<(u32, u32), ParseError> {
    let bad = || {
        ParseError::bad(
            format!("--{name}"),
            format!("{ext}: bad integer value for option \"--{name}\", or out of range."),
        )
    };
    let garbage = || {
        ParseError::bad(
            format!("--{name}"),
            format!("{ext}: trailing garbage after value for option \"--{name}\"."),
        )
    };
    let max = u64::from(u32::MAX);
    let (value, rest) = strtoul_prefix(s)
        .filter(|(v, _)| *v <= max)
        .ok_or_else(bad)?;
    if rest.is_empty() {
        return Ok((value as u32, u32::MAX));
    }
    let Some(m) = rest.strip_prefix('/') else {
        return Err(garbage());
    };
    let (mask, rest) = strtoul_prefix(m)
        .filter(|(v, _)| *v <= max)
        .ok_or_else(bad)?;
    if !rest.is_empty() {
        return Err(garbage());
    }
    Ok((value as u32, mask as u32))
}

/// A string as `XTTYPE_STRING` checks it: at least `min` and at most `max` bytes (0 for no
/// limit).
#[inline]
pub fn check_str(name: &str, s: &str, min: usize, max: usize) -> Result<(), ParseError> {
    if min != 0 && s.len() < min {
        return Err(ParseError::bad(
            format!("--{name}"),
            format!("Argument must have a minimum length of {min} characters"),
        ));
    }
    if max != 0 && s.len() > max {
        return Err(ParseError::bad(
            format!("--{name}"),
            format!("Argument must have a maximum length of {max} characters"),
        ));
    }
    Ok(())
}

/// A prefix length or network mask as `XTTYPE_PLEN`/`XTTYPE_PLENMASK` read it: a number
/// 0–32 (IPv4) or 0–128 (IPv6), or a mask written as an address. Returns the length
/// (`None` for a mask that is not a prefix) and the mask.
///
/// ```
/// use iptnl::ipt::ext::opts::parse_plen;
/// use iptnl::ipt::IpFamily;
/// let (len, mask) = parse_plen("recent", "mask", "255.255.0.0", IpFamily::V4).unwrap();
/// assert_eq!((len, &mask[..4]), (Some(16), &[255, 255, 0, 0][..]));
/// assert_eq!(parse_plen("x", "m", "24", IpFamily::V4).unwrap().0, Some(24));
/// ```
pub fn parse_plen(
    ext: &str,
    name: &str,
    s: &str,
    family: IpFamily,
) -> Result<(Option<u8>, [u8; 16]), ParseError> {
    let bits: u8 = match family {
        IpFamily::V4 => 32,
        IpFamily::V6 => 128,
    };
    let mut mask = [0u8; 16];
    if let Some(len) = strtoul_full(s, 0, u64::from(bits)) {
        return Ok((Some(len as u8), prefix_mask(len as u8)));
    }
    let parsed = match family {
        // A mask in any form getaddrinfo takes with AI_NUMERICHOST (inet_aton's).
        IpFamily::V4 => inet_aton(s).map(|a| {
            mask[..4].copy_from_slice(&a);
        }),
        IpFamily::V6 => s.parse::<std::net::Ipv6Addr>().ok().map(|a| {
            mask.copy_from_slice(&a.octets());
        }),
    };
    if parsed.is_none() {
        return Err(ParseError::bad(
            format!("--{name}"),
            format!(
                "{ext}: bad value for option \"--{name}\", neither a valid network mask nor valid CIDR (0-{bits})."
            ),
        ));
    }
    let used = &mask[..usize::from(bits / 8)];
    let ones: u32 = used.iter().map(|b| b.count_ones()).sum();
    let prefix = used
        .iter()
        .flat_map(|b| (0..8).rev().map(move |k| b >> k & 1))
        .take(ones as usize)
        .all(|bit| bit == 1);
    Ok((prefix.then_some(ones as u8), mask))
}

/// Parses one option's value as its type says. `values` holds the option's 0, 1 or 2 texts.
pub fn parse_value<'a>(
    ext: &str,
    opt: &Opt,
    values: &[&'a str],
    family: IpFamily,
) -> Result<Val<'a>, ParseError> {
    let first = values.first().copied().unwrap_or("");
    let name = opt.canonical();
    Ok(match opt.ty {
        Ty::Flag => Val::None,
        Ty::Uint { min, max } => Val::Uint(parse_uint(ext, name, first, min, max)?),
        Ty::Range { min, max, ordered } => {
            let (r, n) = parse_range(ext, name, first, min, max, ordered)?;
            Val::Range(r, n)
        }
        Ty::Double { min, max } => Val::Double(parse_double(ext, name, first, min, max)?),
        Ty::Str { min, max } => {
            check_str(name, first, min, max)?;
            Val::Str(first)
        }
        Ty::MarkMask => {
            let (v, m) = parse_mark_mask(ext, name, first)?;
            Val::MarkMask(v, m)
        }
        Ty::Plen => {
            let (len, mask) = parse_plen(ext, name, first, family)?;
            Val::Plen(len, mask)
        }
        Ty::OneOf { names, nocase, err } => {
            let found = names.iter().position(|n| {
                if nocase {
                    n.eq_ignore_ascii_case(first)
                } else {
                    *n == first
                }
            });
            match found {
                Some(i) => Val::Name(i),
                None => {
                    return Err(ParseError::bad(
                        format!("--{name}"),
                        err.replacen("%s", first, 1),
                    ))
                }
            }
        }
        Ty::Custom => Val::Raw(first),
        Ty::Custom2 => Val::Raw2(first, values.get(1).copied().unwrap_or("")),
        Ty::OptRaw if values.is_empty() => Val::None,
        Ty::OptRaw => Val::Raw(first),
    })
}

/// Hands one option to an extension as the rule parser does (value parsed as its entry
/// says), for the extensions' unit tests.
#[cfg(test)]
pub(crate) fn feed(
    ext: &mut dyn super::Extension,
    family: IpFamily,
    proto: Option<crate::ipt::ProtoMatch>,
    name: &str,
    value: &str,
) -> Result<(), ParseError> {
    let desc = ext.desc();
    let opt = desc
        .options
        .iter()
        .find(|o| o.name == name)
        .copied()
        .ok_or_else(|| ParseError::UnknownOption {
            option: format!("--{name}"),
        })?;
    let values = [value];
    let val = parse_value(desc.name, &opt, &values[..opt.arity().min(1)], family)?;
    let ctx = super::ParseCtx {
        family,
        proto,
        sets: &super::NoSets,
        given: Given::new(desc.options),
    };
    ext.parse(&opt, false, val, &ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRIES: [Opt; 6] = [
        Opt::new("a", Ty::Uint { min: 1, max: 9 }).mand(),
        Opt::flag("b").inv().excl(&["c"]),
        Opt::flag("c"),
        Opt::flag("bee").alias("b"),
        Opt::flag("d").multi(),
        Opt::flag("e").also(&["c"]),
    ];
    /// Checked by name.
    static T: &[Opt] = &ENTRIES;
    /// Checked by index.
    static L: &[Opt] = &table(ENTRIES);

    fn given(t: &'static [Opt], names: &[&str]) -> Given {
        let mut g = Given::new(t);
        for n in names {
            g.record(n);
        }
        g
    }

    #[test]
    fn once_invert_and_aliases() {
        for t in [T, L] {
            let g = given(t, &["b"]);
            let e = precheck("x", t, &g, slot_at(t, 3).unwrap(), false).unwrap_err();
            assert_eq!(
                e,
                ParseError::bad("--b", "x: option \"--b\" can only be used once.")
            );
            assert!(precheck("x", t, &given(t, &["d"]), 4, false).is_ok());
            let e = precheck("x", t, &Given::new(t), 2, true).unwrap_err();
            assert_eq!(
                e,
                ParseError::bad("--c", "x: option \"--c\" cannot be inverted.")
            );
            assert!(given(t, &["bee"]).has("b"));
        }
    }

    #[test]
    fn final_checks_in_table_order() {
        for t in [T, L] {
            assert_eq!(
                fcheck("x", t, &given(t, &["c"])),
                Err(ParseError::Invalid(
                    "x: option \"--a\" must be specified".into()
                ))
            );
            assert_eq!(
                fcheck("x", t, &given(t, &["a", "c", "bee"])),
                Err(ParseError::Invalid(
                    "x: option \"--b\" cannot be used together with \"--c\".".into()
                ))
            );
            assert_eq!(
                fcheck("x", t, &given(t, &["a", "e"])),
                Err(ParseError::Invalid(
                    "x: option \"--e\" also requires \"--c\".".into()
                ))
            );
            assert!(fcheck("x", t, &given(t, &["a", "e", "c"])).is_ok());
        }
    }

    #[test]
    fn every_extension_table_is_linked() {
        for d in crate::ipt::ext::all() {
            assert!(
                d.options.iter().all(|o| o.links.linked),
                "{}: option table not built with opts::table",
                d.name
            );
        }
    }

    /// The index masks say what the names say, for every extension.
    #[test]
    fn links_agree_with_names() {
        for d in crate::ipt::ext::all() {
            let t = d.options;
            for (i, e) in t.iter().enumerate() {
                assert_eq!(slot_at(t, i), slot(t, e.name).or(Some(i)), "{}", d.name);
                for (j, o) in t.iter().enumerate() {
                    let counted = o.alias_of.is_none() && o.name != e.name;
                    assert_eq!(
                        e.links.excl & (1 << j) != 0,
                        counted && e.excl.contains(&o.name),
                        "{} {} excl {}",
                        d.name,
                        e.name,
                        o.name
                    );
                    assert_eq!(
                        e.links.also & (1 << j) != 0,
                        counted && e.also.contains(&o.name),
                        "{} {} also {}",
                        d.name,
                        e.name,
                        o.name
                    );
                }
            }
        }
    }

    #[test]
    fn mark_masks() {
        assert_eq!(parse_mark_mask("X", "m", "0x1/0x1").unwrap(), (1, 1));
        assert_eq!(parse_mark_mask("X", "m", "16").unwrap(), (16, u32::MAX));
        assert!(parse_mark_mask("X", "m", "1/").is_err());
        assert!(parse_mark_mask("X", "m", "1x").is_err());
        assert!(parse_mark_mask("X", "m", "0x100000000").is_err());
        assert_eq!(
            parse_mark_mask("mark", "mark", "0x4000/0x4000").unwrap(),
            (0x4000, 0x4000)
        );
        assert!(parse_mark_mask("mark", "mark", "1/2/3").is_err());
    }

    #[test]
    fn ranges_as_libxtables_1_8_11() {
        let r = |s| parse_range("esp", "espspi", s, 0, u32::MAX.into(), true);
        let max = u64::from(u32::MAX);
        assert_eq!(r("5").unwrap(), ([5, 5], 1));
        assert_eq!(r("5:").unwrap(), ([5, max], 2));
        assert_eq!(r(":5").unwrap(), ([0, 5], 2));
        assert_eq!(r(":").unwrap(), ([0, max], 2));
        assert_eq!(r("4:4").unwrap(), ([4, 4], 2));
        assert!(r("4:3").is_err());
        assert!(r("1:2:3").is_err());
        assert!(r("5x").is_err());
        assert!(r("4294967296").is_err());
    }

    #[test]
    fn value_parsers() {
        assert_eq!(
            parse_range("frag", "fragid", "5:3", 0, u32::MAX.into(), true)
                .unwrap_err()
                .to_string(),
            "--fragid: frag: bad value for option \"--fragid\" near \"3\", or out of range (5-4294967295)."
        );
        assert_eq!(
            parse_range("length", "length", "5x", 0, 65535, true)
                .unwrap_err()
                .to_string(),
            "--length: length: Argument to \"--length\" has unexpected characters near \"x\"."
        );
        assert_eq!(
            parse_range("l", "l", ":", 0, 65535, true).unwrap(),
            ([0, 65535], 2)
        );
        assert!(parse_range("l", "l", "1:2:3", 0, 65535, true).is_err());
        assert_eq!(
            parse_mark_mask("mark", "mark", "1/x")
                .unwrap_err()
                .to_string(),
            "--mark: mark: bad integer value for option \"--mark\", or out of range."
        );
        let (len, mask) = parse_plen("r", "m", "ffff::", IpFamily::V6).unwrap();
        assert_eq!(len, Some(16));
        assert_eq!(&mask[..3], &[0xff, 0xff, 0]);
        assert_eq!(
            parse_plen("r", "m", "255.0.255.0", IpFamily::V4).unwrap().0,
            None
        );
        // Not a length: a mask in inet_aton's forms (0.0.0.33), as getaddrinfo reads it.
        assert_eq!(
            parse_plen("r", "m", "33", IpFamily::V4).unwrap(),
            (None, [0, 0, 0, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        );
        assert!(parse_plen("r", "m", "x", IpFamily::V4).is_err());
        let names = Ty::OneOf {
            names: &["accept", "drop"],
            nocase: true,
            err: "Bad action type value \"%s\"",
        };
        let o = Opt::new("type", names);
        assert_eq!(
            parse_value("AUDIT", &o, &["DROP"], IpFamily::V4),
            Ok(Val::Name(1))
        );
        assert_eq!(
            parse_value("AUDIT", &o, &["x"], IpFamily::V4)
                .unwrap_err()
                .to_string(),
            "--type: Bad action type value \"x\""
        );
    }
}
