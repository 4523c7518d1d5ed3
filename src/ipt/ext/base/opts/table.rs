//! The option table itself: an option's type ([`Ty`]) and entry ([`Opt`]), the options
//! given so far ([`Given`]) and a parsed value ([`Val`]).

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
/// use iptnl::ipt::ext::base::opts::{table, Opt, Ty};
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
    /// use iptnl::ipt::ext::base::opts::{Opt, Ty};
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
    /// use iptnl::ipt::ext::base::opts::Opt;
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
pub(super) fn slot(table: &[Opt], name: &str) -> Option<usize> {
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
    pub(super) bits: u64,
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
    /// use iptnl::ipt::ext::base::opts::{Given, Opt};
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
