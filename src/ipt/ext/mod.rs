//! iptables match and target extensions, one file each, as iptables' own
//! `extensions/libxt_*.c`: each file owns the extension's options, validation, encoding into
//! nf_tables expressions (native or x_tables struct + revision, exactly as iptables-nft 1.8.9),
//! decoding from every encoding iptables-nft 1.8.0–1.8.11 produce, and save-format printing.
//!
//! An extension is described once by a static [`ExtDesc`] (name, options, decoders) and lives
//! in a rule as a `Box<dyn Extension>` holding its parsed options.

use std::any::Any;
use std::fmt;

use super::error::ParseError;
use super::IpFamily;
use crate::nft::Expr;

// Helpers the extensions share.
pub mod libxt;
pub mod names;
pub mod ports;
pub mod xtbuf;

// The extensions, one file each.
pub mod addrtype;
pub mod audit;
pub mod checksum;
pub mod classify;
pub mod comment;
pub mod connlimit;
pub mod connmark;
pub mod conntrack;
pub mod ct;
pub mod dscp_match;
pub mod dscp_target;
pub mod esp_ah;
pub mod frag;
pub mod hashlimit;
pub mod hbh_dst;
pub mod helper;
pub mod icmp;
pub mod iprange;
pub mod ipv6header;
pub mod length;
pub mod limit;
pub mod log;
pub mod mac;
pub mod mark;
pub mod mh;
pub mod multiport;
pub mod nat;
pub mod nflog;
pub mod nfqueue;
pub mod owner;
pub mod physdev;
pub mod pkttype;
pub mod recent;
pub mod reject;
pub mod rpfilter;
pub mod rt;
pub mod set;
pub mod socket;
pub mod statistic;
pub mod tcp;
pub mod tcpmss_target;
pub mod tos_target;
pub mod tproxy;
pub mod trace;
pub mod ttl_hl;
pub mod udp;

pub use xtbuf::{XtBuf, XtView};

/// Whether an extension is a match (`-m`) or a target (`-j`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtKind {
    /// A match.
    Match,
    /// A target.
    Target,
}

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// A flag.
    None,
    /// One value (`--dport 80`).
    One,
    /// Two values (`--tcp-flags SYN,ACK SYN`, `--match-set name src`).
    Two,
}

/// One option of an extension.
#[derive(Debug, Clone, Copy)]
pub struct OptSpec {
    /// Long name without the dashes (`dport`).
    pub name: &'static str,
    /// How many values it takes.
    pub arity: Arity,
    /// Whether `!` may precede it.
    pub invertible: bool,
}

const SHOWN_CAP: usize = 48;

/// An option name with its dashes (`--dport`), see [`OptSpec::shown`]; derefs to `str`.
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

impl OptSpec {
    /// The option as messages show it (`--dport`), built on the stack: extensions parse
    /// hundreds of thousands of options in a restore, and the name is only read on errors.
    ///
    /// ```
    /// use iptnl::ipt::ext::OptSpec;
    /// assert_eq!(&*OptSpec::inv("dport").shown(), "--dport");
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
    /// An option with one value that can be inverted.
    pub const fn inv(name: &'static str) -> OptSpec {
        OptSpec {
            name,
            arity: Arity::One,
            invertible: true,
        }
    }
    /// An option with one value that cannot be inverted.
    pub const fn val(name: &'static str) -> OptSpec {
        OptSpec {
            name,
            arity: Arity::One,
            invertible: false,
        }
    }
    /// A flag that cannot be inverted.
    pub const fn flag(name: &'static str) -> OptSpec {
        OptSpec {
            name,
            arity: Arity::None,
            invertible: false,
        }
    }
    /// A flag that can be inverted.
    pub const fn inv_flag(name: &'static str) -> OptSpec {
        OptSpec {
            name,
            arity: Arity::None,
            invertible: true,
        }
    }
    /// An option with two values.
    pub const fn two(name: &'static str, invertible: bool) -> OptSpec {
        OptSpec {
            name,
            arity: Arity::Two,
            invertible,
        }
    }
}

/// What the parser knows about the rule when an extension parses or validates its options.
#[derive(Debug, Clone, Copy)]
pub struct ParseCtx {
    /// The family.
    pub family: IpFamily,
    /// `-p` so far, if given.
    pub proto: Option<super::ProtoMatch>,
}

/// What an extension needs to encode itself.
#[derive(Debug, Clone, Copy)]
pub struct EncodeCtx<'a> {
    /// The family.
    pub family: IpFamily,
    /// `-p` of the rule.
    pub proto: Option<super::ProtoMatch>,
    /// The table the rule goes into.
    pub table: &'a str,
    /// The chain the rule goes into.
    pub chain: &'a str,
}

/// What an extension needs to decode itself.
#[derive(Debug, Clone, Copy)]
pub struct DecodeCtx {
    /// The family.
    pub family: IpFamily,
    /// `-p` of the rule as decoded so far.
    pub proto: Option<super::ProtoMatch>,
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
    pub options: &'static [OptSpec],
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

    /// Takes one option (`opt` is one of `desc().options`), already checked for arity and
    /// inversion support. `values` holds 0, 1 or 2 values per the option's arity.
    fn parse(
        &mut self,
        opt: &OptSpec,
        inv: bool,
        values: &[&str],
        ctx: &ParseCtx,
    ) -> Result<(), ParseError>;

    /// Checks the options as a whole once the rule is read (mandatory options, conflicts).
    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        Ok(())
    }

    /// Appends its nf_tables expressions, as iptables-nft 1.8.9 encodes it.
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
        fn clone_box(&self) -> Box<dyn $crate::ipt::ext::Extension> {
            Box::new(self.clone())
        }
        fn eq_dyn(&self, other: &dyn $crate::ipt::ext::Extension) -> bool {
            other.as_any().downcast_ref::<Self>() == Some(self)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}

/// The registry: native decoders are tried in this order.
static ALL: &[&ExtDesc] = &[
    &tcp::DESC,
    &udp::DESC,
    &comment::DESC,
    &mark::MATCH,
    &mark::TARGET,
    &conntrack::CONNTRACK,
    &conntrack::STATE,
    &addrtype::DESC,
    &multiport::DESC,
    &set::MATCH,
    &set::TARGET,
    &connmark::MATCH,
    &connmark::TARGET,
    &nat::MASQUERADE,
    &nat::SNAT,
    &nat::DNAT,
    &nat::REDIRECT,
    &reject::DESC,
    &log::DESC,
    &nflog::DESC,
    &ct::CT,
    &ct::NOTRACK,
    &tproxy::DESC,
    &tcpmss_target::DESC,
    &nfqueue::DESC,
    &checksum::DESC,
    &classify::DESC,
    &trace::DESC,
    &audit::DESC,
    &dscp_target::DESC,
    &tos_target::DESC,
    &statistic::DESC,
    &recent::DESC,
    &owner::DESC,
    &limit::DESC,
    &icmp::ICMP,
    &icmp::ICMP6,
    &length::DESC,
    &pkttype::DESC,
    &physdev::DESC,
    &iprange::DESC,
    &mac::DESC,
    &socket::DESC,
    &hashlimit::DESC,
    &connlimit::DESC,
    &rpfilter::DESC,
    &ttl_hl::TTL_MATCH,
    &ttl_hl::HL_MATCH,
    &ttl_hl::TTL_TARGET,
    &ttl_hl::HL_TARGET,
    &dscp_match::DSCP,
    &dscp_match::TOS,
    &helper::DESC,
    &frag::DESC,
    &hbh_dst::HBH,
    &hbh_dst::DST,
    &rt::DESC,
    &esp_ah::AH4,
    &esp_ah::AH6,
    &esp_ah::ESP,
    &ipv6header::DESC,
    &mh::DESC,
];

/// Every extension iptnl knows, matches and targets, in the order native decoders are tried.
pub fn all() -> &'static [&'static ExtDesc] {
    ALL
}

/// Finds an extension by `-m`/`-j` name for a family.
pub fn find(kind: ExtKind, name: &str, family: IpFamily) -> Option<&'static ExtDesc> {
    // By name first (a restore looks up several names per line, and `-j CHAIN` misses
    // them all), then the first of those in list order that fits. The keys are the fixed
    // extension names, so a hash of a few of their bytes does (SipHash cost 200
    // instructions a lookup).
    type ByName = std::collections::HashMap<
        &'static str,
        Vec<&'static ExtDesc>,
        std::hash::BuildHasherDefault<NameHash>,
    >;
    static BY_NAME: std::sync::OnceLock<ByName> = std::sync::OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut m = ByName::default();
        for &d in all() {
            m.entry(d.name).or_default().push(d);
        }
        m
    });
    by_name
        .get(name)?
        .iter()
        .copied()
        .find(|d| d.kind == kind && d.family.is_none_or(|f| f == family))
}

/// The hash of the map of extension names in [`find`]: the length and four of the bytes,
/// spread by a multiplication (the same cost for a long chain name given to `-j`).
#[derive(Default)]
struct NameHash(u64);

impl std::hash::Hasher for NameHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let at = |i: usize| bytes.get(i).map_or(0, |&b| u64::from(b));
        let summary =
            n as u64 ^ at(0) << 8 ^ at(n.wrapping_sub(1)) << 16 ^ at(n / 2) << 24 ^ at(n / 4) << 32;
        self.0 = (self.0.rotate_left(29) ^ summary).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Finds the extension that decodes a kernel x_tables `match`/`target` of that name.
pub fn find_xt(kind: ExtKind, xt_name: &str, family: IpFamily) -> Option<&'static ExtDesc> {
    all().iter().copied().find(|d| {
        d.kind == kind
            && d.decode_xt.is_some()
            && d.xt_names.contains(&xt_name)
            && d.family.is_none_or(|f| f == family)
    })
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
    libxt::strtoul_full(s, min, max)
}

/// Which options of an extension instance were given, to refuse duplicates. It never takes
/// part in equality: a decoded rule and a parsed one are equal whatever was typed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen(u64);

impl Seen {
    /// Records option `name` (from the extension's option list); errors when it was given
    /// before.
    pub fn once(&mut self, desc: &ExtDesc, name: &str) -> Result<(), ParseError> {
        let idx = desc
            .options
            .iter()
            .position(|o| o.name == name)
            .unwrap_or(63)
            .min(63);
        if self.0 & (1 << idx) != 0 {
            return Err(ParseError::Duplicate {
                option: format!("--{name}"),
            });
        }
        self.0 |= 1 << idx;
        Ok(())
    }

    /// Whether option `name` was given.
    pub fn has(&self, desc: &ExtDesc, name: &str) -> bool {
        let idx = desc
            .options
            .iter()
            .position(|o| o.name == name)
            .unwrap_or(63)
            .min(63);
        self.0 & (1 << idx) != 0
    }
}

impl PartialEq for Seen {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The options column of `iptables -L` for a rule: `[goto] ` is the caller's; then each
/// match's and the target's `print` words, each piece with its leading space (`tcp dpt:22`
/// is ` tcp dpt:22`). `numeric` is `-n`.
pub fn list_options(spec: &super::RuleSpec, numeric: bool) -> String {
    let ctx = PrintCtx {
        family: spec.family,
        proto: spec.proto.map_or(0, |p| p.num),
        numeric,
    };
    let mut out = String::new();
    if let Some(raw) = &spec.raw {
        out.push(' ');
        out.push_str(super::raw::RAW_LIST_MARK);
        out.push(' ');
        out.push_str(&raw.describe());
        return out;
    }
    for m in &spec.matches {
        m.print(&ctx, &mut out);
    }
    if let Some(super::RuleTarget::Ext(t)) = &spec.target {
        t.print(&ctx, &mut out);
    }
    out
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

#[cfg(test)]
mod print_tests {
    use super::list_options;
    use crate::ipt::{parse_rule_str, IpFamily};

    fn listed(f: IpFamily, spec: &str, numeric: bool) -> String {
        list_options(&parse_rule_str(f, spec).unwrap()[0], numeric)
    }

    #[test]
    fn options_column_words() {
        let v4 = IpFamily::V4;
        assert_eq!(
            listed(
                v4,
                "-p tcp --dport 22 -m comment --comment \"a b\" -j ACCEPT",
                true
            ),
            " tcp dpt:22 /* a b */"
        );
        assert_eq!(
            listed(v4, "-p tcp ! --sport 1:1024 --syn -j REJECT", true),
            " tcp spts:!1:1024 flags:0x17/0x02 reject-with icmp-port-unreachable"
        );
        assert_eq!(
            listed(
                v4,
                "-m mark --mark 0x1/0xff -j MARK --or-mark 0x4000",
                false
            ),
            " mark match 0x1/0xff MARK or 0x4000"
        );
        assert_eq!(
            listed(v4, "-j LOG --log-prefix x --log-uid", false),
            " LOG level warn uid prefix \"x\""
        );
        assert_eq!(
            listed(v4, "-j LOG --log-prefix x", true),
            " LOG flags 0 level 4 prefix \"x\""
        );
        assert_eq!(
            listed(
                v4,
                "-p udp -j MASQUERADE --to-ports 1000-2000 --random-fully",
                true
            ),
            " masq ports: 1000-2000 random-fully"
        );
        assert_eq!(
            listed(IpFamily::V6, "-p ipv6-icmp --icmpv6-type 1/3", true),
            " ipv6-icmptype 1 code 3"
        );
        assert_eq!(listed(v4, "-j ACCEPT", true), "");
    }
}

#[cfg(test)]
mod header_tests {
    use crate::ipt::ext::xt_match;
    use crate::ipt::{decode_rule, encode_rule, parse_rule_str, IpFamily};
    use crate::nft::expr::{Counter, Expr};
    use crate::nft::{Rule, RuleCompat};

    /// Every spec decodes from its own encoding to an equal spec printing the same line.
    #[test]
    fn encode_decode_round_trip() {
        let specs: &[(IpFamily, &str, &str)] = &[
            (IpFamily::V4, "-m hashlimit --hashlimit-above 512kb/s --hashlimit-burst 1mb --hashlimit-mode srcip,dstport --hashlimit-name a --hashlimit-srcmask 24", "filter"),
            (IpFamily::V6, "-m hashlimit --hashlimit-upto 3/min --hashlimit-rate-match --hashlimit-rate-interval 5 --hashlimit-name b --hashlimit-dstmask 64", "filter"),
            (IpFamily::V4, "-m connlimit --connlimit-upto 5 --connlimit-mask 24 --connlimit-daddr", "filter"),
            (IpFamily::V6, "-m connlimit ! --connlimit-upto 5 --connlimit-mask 64", "filter"),
            (IpFamily::V4, "-m rpfilter --loose --validmark --accept-local --invert", "raw"),
            (IpFamily::V4, "-m ttl ! --ttl-eq 5 -j TTL --ttl-dec 2", "mangle"),
            (IpFamily::V6, "-m hl --hl-lt 5 -j HL --hl-inc 3", "mangle"),
            (IpFamily::V6, "-m dscp ! --dscp-class AF41 -m tos ! --tos 0x10/0x3f -m helper ! --helper \"a b\"", "filter"),
            (IpFamily::V6, "-m frag ! --fragid 1:2 ! --fraglen 3 --fragres --fragfirst --fragmore -m hbh ! --hbh-len 3 --hbh-opts 1,2:3 -m dst --dst-opts 4", "filter"),
            (IpFamily::V6, "-m rt --rt-type 0 ! --rt-segsleft 2:3 ! --rt-len 8 --rt-0-res --rt-0-addrs ::1,2001:db8::2 --rt-0-not-strict", "filter"),
            (IpFamily::V6, "-m ah ! --ahspi 5: ! --ahlen 0 --ahres -m ipv6header ! --header frag,auth --soft", "filter"),
            (IpFamily::V6, "-p mh -m mh ! --mh-type bu:be", "filter"),
            (IpFamily::V4, "-p ah -m ah --ahspi :7", "filter"),
            (IpFamily::V4, "-p esp -m esp ! --espspi 0:4294967295", "filter"),
        ];
        for (f, s, table) in specs {
            let spec = &parse_rule_str(*f, s).unwrap()[0];
            let rule = encode_rule(spec, *f, table, "PREROUTING").unwrap();
            let back = decode_rule(&rule, *f).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(back.to_save_args(), spec.to_save_args(), "{s}");
            let again = encode_rule(&back, *f, table, "PREROUTING").unwrap();
            assert_eq!(again.exprs, rule.exprs, "{s}");
        }
    }

    fn saved(f: IpFamily, name: &'static str, rev: u32, info: Vec<u8>) -> String {
        let mut r = Rule::new(f.nft(), "filter", "INPUT");
        r.exprs = vec![
            xt_match(name, rev, info),
            Expr::Counter(Counter {
                packets: 0,
                bytes: 0,
            }),
        ];
        r.compat = Some(RuleCompat { proto: 0, flags: 0 });
        let d = decode_rule(&r, f).unwrap();
        let again = encode_rule(&d, f, "filter", "INPUT").unwrap();
        assert_eq!(again.exprs, r.exprs);
        d.to_save_args()
    }

    /// Older revisions iptables or the kernel may have used decode and print as iptables
    /// prints them with those revisions' own save functions.
    #[test]
    fn older_revisions() {
        // hashlimit rev 1 (avg in 1/10000 s): 5/sec, srcip, dstmask 24.
        let mut i = vec![0u8; 56];
        i[..2].copy_from_slice(b"r1");
        for (k, v) in [(16, 4u32), (20, 2000), (24, 5), (36, 1000), (40, 1000)] {
            i[k..k + 4].copy_from_slice(&v.to_ne_bytes());
        }
        i[44] = 32;
        i[45] = 24;
        assert_eq!(
            saved(IpFamily::V4, "hashlimit", 1, i),
            "-m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 5 --hashlimit-mode srcip --hashlimit-name r1 --hashlimit-dstmask 24"
        );
        // hashlimit rev 2, IPv6: 5/sec, dstip, expire 2000, srcmask 64.
        let mut i = vec![0u8; 304];
        i[..2].copy_from_slice(b"r2");
        i[256..264].copy_from_slice(&200000u64.to_ne_bytes());
        i[264..272].copy_from_slice(&5u64.to_ne_bytes());
        for (k, v) in [(272, 1u32), (284, 1000), (288, 2000)] {
            i[k..k + 4].copy_from_slice(&v.to_ne_bytes());
        }
        i[292] = 64;
        i[293] = 128;
        assert_eq!(
            saved(IpFamily::V6, "hashlimit", 2, i),
            "-m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 5 --hashlimit-mode dstip --hashlimit-name r2 --hashlimit-htable-expire 2000 --hashlimit-srcmask 64"
        );
        // connlimit rev 0: no saddr/daddr.
        let mut i = vec![0xffu8; 16];
        i.extend_from_slice(&7u32.to_ne_bytes());
        i.extend_from_slice(&[0; 12]);
        assert_eq!(
            saved(IpFamily::V4, "connlimit", 0, i),
            "-m connlimit --connlimit-above 7 --connlimit-mask 32"
        );
        // tos rev 0 (IPv4).
        assert_eq!(
            saved(IpFamily::V4, "tos", 0, vec![0x10, 1, 0, 0, 0, 0, 0, 0]),
            "-m tos ! --tos 0x10"
        );
    }
}
