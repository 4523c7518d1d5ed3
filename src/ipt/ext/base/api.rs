//! The interface every extension implements and the types it is given: the static
//! description of an extension ([`ExtDesc`], its options as [`Opt`] entries), the [`Extension`]
//! trait, the contexts of parsing, encoding, decoding and printing, and the small helpers
//! every extension's save and encode use ([`save_string`], [`xt_match`]).
//!
//! The registry in the parent module lists the extensions; this module knows none of them.

use std::any::Any;
use std::fmt;

pub use super::xtbuf::{XtBuf, XtView};
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;
use crate::nft::Expr;

/// Whether an extension is a match (`-m`) or a target (`-j`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtKind {
    /// A match.
    Match,
    /// A target.
    Target,
}

pub use super::opts::{Given, Opt, ShownOpt, Ty, Val};

/// The ipsets a rule may name: the kernel refers to an ipset by an index that only the ipset
/// subsystem knows, so the `set` match and `SET` target ask this to turn a name into its index
/// (when a rule is parsed and encoded) and an index back into its name (when a rule is
/// decoded). The rule model asks, and never looks itself; the agent layer's
/// `iptnl::iptables::ipset::KernelSets` asks the kernel, [`NoSets`] knows no set. It is
/// `Sync`: a save decodes the rules of several chains at once.
///
/// ```
/// use iptnl::ipt::ext::SetIndex;
/// use iptnl::ipt::IpFamily;
/// /// One set, `web`, of index 3.
/// struct One;
/// impl SetIndex for One {
///     fn index(&self, name: &str, _family: IpFamily) -> Result<u16, String> {
///         if name == "web" { Ok(3) } else { Err(format!("Set {name} doesn't exist.")) }
///     }
///     fn name(&self, index: u16) -> Option<String> {
///         (index == 3).then(|| "web".to_owned())
///     }
/// }
/// let spec = &iptnl::ipt::parse_rule_with(IpFamily::V4, &["-m", "set", "--match-set", "web", "src"], &One).unwrap()[0];
/// let rule = iptnl::ipt::encode_rule_with(spec, IpFamily::V4, "filter", "INPUT", &One).unwrap();
/// let back = iptnl::ipt::decode_rule_with(&rule, IpFamily::V4, &One).unwrap();
/// assert_eq!(back.to_save_args(), "-m set --match-set web src");
/// ```
pub trait SetIndex: Sync {
    /// The index of set `name`, which must suit `family`; otherwise the message iptables
    /// gives (`Set NAME doesn't exist.`, `The protocol family of set NAME is IPv6, which is
    /// not applicable.`, `Problem when communicating with ipset, errno=N.` …).
    fn index(&self, name: &str, family: IpFamily) -> Result<u16, String>;

    /// The name of the set of index `index`, `None` when there is none (or it cannot be
    /// known).
    fn name(&self, index: u16) -> Option<String>;

    /// The name of the network interface of index `index`, for a rule `nft` wrote with
    /// `meta iif`/`meta oif` (iptables 1.8.11 shows it as `-i NAME`/`-o NAME`). `None`
    /// when there is none or it cannot be known, as here by default: such a rule then
    /// has no iptables form.
    fn interface_name(&self, _index: u32) -> Option<String> {
        None
    }
}

impl fmt::Debug for dyn SetIndex + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SetIndex")
    }
}

/// The [`SetIndex`] that knows no set: every name is unknown (`Set NAME doesn't exist.`) and
/// every index names nothing. The rule model's functions without a `_with` suffix use it, so a
/// rule naming an ipset fails to encode with them, and decodes as a rule without an iptables
/// form.
///
/// ```
/// use iptnl::ipt::ext::{NoSets, SetIndex};
/// use iptnl::ipt::IpFamily;
/// assert_eq!(NoSets.index("web", IpFamily::V4).unwrap_err(), "Set web doesn't exist.");
/// assert_eq!(NoSets.name(0), None);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSets;

impl SetIndex for NoSets {
    fn index(&self, name: &str, _family: IpFamily) -> Result<u16, String> {
        Err(format!("Set {name} doesn't exist."))
    }

    fn name(&self, _index: u16) -> Option<String> {
        None
    }
}

/// What the parser knows about the rule when an extension parses or validates its options.
#[derive(Debug, Clone, Copy)]
pub struct ParseCtx<'a> {
    /// The family.
    pub family: IpFamily,
    /// `-p` so far, if given.
    pub proto: Option<crate::ipt::ProtoMatch>,
    /// The ipsets rules may name.
    pub sets: &'a dyn SetIndex,
    /// The options of this extension given before (all of them in `finish`).
    pub given: Given,
}

/// What an extension needs to encode itself.
#[derive(Debug, Clone, Copy)]
pub struct EncodeCtx<'a> {
    /// The family.
    pub family: IpFamily,
    /// `-p` of the rule.
    pub proto: Option<crate::ipt::ProtoMatch>,
    /// The table the rule goes into.
    pub table: &'a str,
    /// The chain the rule goes into.
    pub chain: &'a str,
    /// The ipsets rules may name.
    pub sets: &'a dyn SetIndex,
    /// The oldest iptables-nft that must read the rule: the forms to write.
    pub floor: crate::ipt::ReaderFloor,
}

/// What an extension needs to decode itself.
#[derive(Debug, Clone, Copy)]
pub struct DecodeCtx<'a> {
    /// The family.
    pub family: IpFamily,
    /// `-p` of the rule as decoded so far.
    pub proto: Option<crate::ipt::ProtoMatch>,
    /// The ipsets rules may name.
    pub sets: &'a dyn SetIndex,
}

/// What an extension needs to print itself as `iptables -L` does.
#[derive(Debug, Clone, Copy)]
pub struct PrintCtx {
    /// The family.
    pub family: IpFamily,
    /// The rule's `-p` protocol number (0 when none), for service names of ports.
    pub proto: u8,
    /// `-n`: numbers instead of service, host and network names.
    pub numeric: bool,
}

/// An encoding problem (a value that cannot go on the wire).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EncodeError(pub String);

/// A cursor over a rule's expressions, for native decoders that consume several expressions.
#[derive(Debug, Clone, Copy)]
pub struct ExprCursor<'a> {
    /// The expressions.
    pub exprs: &'a [Expr],
    /// Index of the next expression.
    pub pos: usize,
}

impl<'a> ExprCursor<'a> {
    /// The expression at `pos + i`, if any.
    pub fn peek(&self, i: usize) -> Option<&'a Expr> {
        self.exprs.get(self.pos + i)
    }
}

/// Decodes a native encoding starting at the cursor; on success it advances the cursor past
/// what it consumed.
pub type NativeDecoder = fn(&mut ExprCursor<'_>, &DecodeCtx) -> Option<Box<dyn Extension>>;

/// Decodes an x_tables info struct of a given revision.
pub type XtDecoder = fn(rev: u32, info: &[u8], &DecodeCtx) -> Option<Box<dyn Extension>>;

/// The static description of an extension.
pub struct ExtDesc {
    /// The name given to `-m`/`-j`.
    pub name: &'static str,
    /// Match or target.
    pub kind: ExtKind,
    /// Families it exists for (`None` = both).
    pub family: Option<IpFamily>,
    /// Its options.
    pub options: &'static [Opt],
    /// Creates an instance with no option set.
    pub new: fn(IpFamily) -> Box<dyn Extension>,
    /// Names of the x_tables extension in the kernel this decodes (`match`/`target` name).
    pub xt_names: &'static [&'static str],
    /// Decoder for those.
    pub decode_xt: Option<XtDecoder>,
    /// Decoder for a native encoding.
    pub decode_native: Option<NativeDecoder>,
}

impl fmt::Debug for ExtDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExtDesc")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish()
    }
}

/// One match or target with its options.
pub trait Extension: Any + fmt::Debug + Send + Sync {
    /// Its description.
    fn desc(&self) -> &'static ExtDesc;

    /// Takes one option (`opt` is one of `desc().options`, as given: an alias's own entry,
    /// see [`Opt::canonical`]), already checked as its entry says (given once, `!` only
    /// where allowed) and its value parsed into `val` as the entry's [`Ty`] says.
    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError>;

    /// Checks what the option table cannot say once the rule is read (the parser checks
    /// mandatory options, exclusions and dependencies after it, see
    /// [`super::opts::fcheck`]).
    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        Ok(())
    }

    /// Appends its nf_tables expressions, as the iptables-nft release of `ctx.floor` encodes
    /// it.
    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError>;

    /// Appends its options in iptables-save form, each preceded by a space (the `-m NAME` or
    /// `-j NAME` prefix is printed by the caller from [`save_name`](Self::save_name)).
    fn save(&self, family: IpFamily, out: &mut String);

    /// Appends its options as `iptables -L` prints them (the extension's `print` function in
    /// iptables 1.8.9: `tcp dpt:22`, `/* comment */`, `reject-with icmp-port-unreachable`),
    /// each piece preceded by a space. The default is the save form, for extensions whose
    /// `-L` words iptnl does not know.
    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        self.save(ctx.family, out);
    }

    /// The name printed after `-m`/`-j` (`state` for a conntrack match that only tests
    /// states, for example).
    fn save_name(&self) -> &str {
        self.desc().name
    }

    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn Extension>;

    /// Equality with another extension of any type.
    fn eq_dyn(&self, other: &dyn Extension) -> bool;

    /// For downcasting.
    fn as_any(&self) -> &dyn Any;
}

/// Implements the boilerplate methods of [`Extension`] for a `Clone + PartialEq` type.
#[macro_export]
#[doc(hidden)]
macro_rules! ext_boilerplate {
    () => {
        fn clone_box(&self) -> Box<dyn $crate::ipt::ext::base::api::Extension> {
            Box::new(self.clone())
        }
        fn eq_dyn(&self, other: &dyn $crate::ipt::ext::base::api::Extension) -> bool {
            other.as_any().downcast_ref::<Self>() == Some(self)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}

/// Builds the `match` expression for an x_tables match.
pub fn xt_match(name: &'static str, rev: u32, info: Vec<u8>) -> Expr {
    Expr::Match(crate::nft::expr::Match {
        name: name.into(),
        rev,
        info,
    })
}

/// Builds the `target` expression for an x_tables target.
pub fn xt_target(name: &'static str, rev: u32, info: Vec<u8>) -> Expr {
    Expr::Target(crate::nft::expr::Target {
        name: name.into(),
        rev,
        info,
    })
}

/// Parses a number as iptables' `xtables_strtoui` does (decimal, `0x` hex, `0` octal, leading
/// blanks and `+` allowed), within `min..=max`.
pub fn parse_uint(s: &str, min: u64, max: u64) -> Option<u64> {
    super::libxt::strtoul_full(s, min, max)
}

/// Appends ` VALUE` quoted as iptables-save does (`xtables_save_string`): bare when it is
/// only letters, digits, `_` and `-`, otherwise in double quotes with `"`, `\` and `'`
/// escaped.
///
/// ```
/// let mut s = String::new();
/// iptnl::ipt::ext::save_string(&mut s, "ns/svc:http cluster IP");
/// assert_eq!(s, " \"ns/svc:http cluster IP\"");
/// ```
pub fn save_string(out: &mut String, value: &str) {
    let plain = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    out.push(' ');
    if plain {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '\'') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// Appends ` !` when `inv`.
pub fn save_inv(out: &mut String, inv: bool) {
    if inv {
        out.push_str(" !");
    }
}
