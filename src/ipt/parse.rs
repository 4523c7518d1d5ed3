//! The rule-spec parser: iptables' options for one rule, as iptables 1.8.11 accepts them.

use super::addr::AddrMask;
use super::cmdline::{is_command_short, option_value, CommandLine, LINE_NUMBERS};
use super::error::ParseError;
use super::ext::base::opts::{self, Given};
use super::ext::{self, ExtKind, Extension, NoSets, ParseCtx, SetIndex};
use super::proto::{implicit_match, proto_number};
use super::raw;
use super::spec::{AddrMatch, IfaceMatch, ProtoMatch, RuleSpec, RuleTarget};
use super::IpFamily;

/// iptables' own long options (commands included, for abbreviation ambiguity as getopt_long
/// sees it), with the short letter of the rule options.
const BUILTIN_LONG: &[(&str, Option<char>)] = &[
    ("append", Some('A')),
    ("delete", Some('D')),
    ("check", Some('C')),
    ("insert", Some('I')),
    ("replace", Some('R')),
    ("list", Some('L')),
    ("list-rules", Some('S')),
    ("flush", Some('F')),
    ("zero", Some('Z')),
    ("new-chain", Some('N')),
    ("delete-chain", Some('X')),
    ("rename-chain", Some('E')),
    ("policy", Some('P')),
    ("source", Some('s')),
    ("src", Some('s')),
    ("destination", Some('d')),
    ("dst", Some('d')),
    ("protocol", Some('p')),
    ("in-interface", Some('i')),
    ("jump", Some('j')),
    ("table", Some('t')),
    ("match", Some('m')),
    ("numeric", Some('n')),
    ("out-interface", Some('o')),
    ("verbose", Some('v')),
    ("exact", Some('x')),
    ("fragments", Some('f')),
    ("fragment", Some('f')),
    ("version", Some('V')),
    ("help", Some('h')),
    ("line-numbers", Some(LINE_NUMBERS)),
    ("modprobe", Some('M')),
    ("set-counters", Some('c')),
    ("goto", Some('g')),
    ("ipv4", Some('4')),
    ("ipv6", Some('6')),
    ("wait", Some('w')),
    ("wait-interval", Some('W')),
];

/// The exact entry of [`BUILTIN_LONG`] for `name` (a `match`, which the compiler turns into a
/// length switch: this runs for every long option of every rule of a restore).
fn builtin_long_exact(name: &str) -> Option<Option<char>> {
    match name {
        "append" => Some(Some('A')),
        "delete" => Some(Some('D')),
        "check" => Some(Some('C')),
        "insert" => Some(Some('I')),
        "replace" => Some(Some('R')),
        "list" => Some(Some('L')),
        "list-rules" => Some(Some('S')),
        "flush" => Some(Some('F')),
        "zero" => Some(Some('Z')),
        "new-chain" => Some(Some('N')),
        "delete-chain" => Some(Some('X')),
        "rename-chain" => Some(Some('E')),
        "policy" => Some(Some('P')),
        "source" => Some(Some('s')),
        "src" => Some(Some('s')),
        "destination" => Some(Some('d')),
        "dst" => Some(Some('d')),
        "protocol" => Some(Some('p')),
        "in-interface" => Some(Some('i')),
        "jump" => Some(Some('j')),
        "table" => Some(Some('t')),
        "match" => Some(Some('m')),
        "numeric" => Some(Some('n')),
        "out-interface" => Some(Some('o')),
        "verbose" => Some(Some('v')),
        "exact" => Some(Some('x')),
        "fragments" => Some(Some('f')),
        "fragment" => Some(Some('f')),
        "version" => Some(Some('V')),
        "help" => Some(Some('h')),
        "line-numbers" => Some(Some(LINE_NUMBERS)),
        "modprobe" => Some(Some('M')),
        "set-counters" => Some(Some('c')),
        "goto" => Some(Some('g')),
        "ipv4" => Some(Some('4')),
        "ipv6" => Some(Some('6')),
        "wait" => Some(Some('w')),
        "wait-interval" => Some(Some('W')),
        _ => None,
    }
}

/// Parses one rule spec given as arguments (without the command and chain: `-A INPUT` is not
/// part of it). Several addresses in `-s`/`-d` expand to several rules, as iptables does.
///
/// ```
/// use iptnl::ipt::{parse_rule, IpFamily};
/// let r = parse_rule(IpFamily::V4, &["-s", "1.1.1.1,2.2.2.2", "-j", "DROP"]).unwrap();
/// assert_eq!(r.len(), 2);
/// assert!(parse_rule(IpFamily::V4, &["--bogus"]).is_err());
/// ```
pub fn parse_rule<S: AsRef<str>>(
    family: IpFamily,
    args: &[S],
) -> Result<Vec<RuleSpec>, ParseError> {
    parse_rule_with(family, args, &NoSets)
}

/// [`parse_rule`] with the ipsets the rule names checked against `sets` (as iptables checks
/// them while it parses).
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::{parse_rule_with, IpFamily};
/// let err = parse_rule_with(IpFamily::V4, &["-m", "set", "--match-set", "web", "src"], &NoSets).unwrap_err();
/// assert_eq!(err.to_string(), "--match-set: Set web doesn't exist.");
/// ```
pub fn parse_rule_with<S: AsRef<str>>(
    family: IpFamily,
    args: &[S],
    sets: &dyn SetIndex,
) -> Result<Vec<RuleSpec>, ParseError> {
    let args: Vec<&str> = args.iter().map(|s| s.as_ref()).collect();
    let mut p = Parser::new(family, sets);
    p.parse(&args)?;
    p.finish()
}

/// Parses a rule spec written as one string, split shell-like (see [`super::split_args`]).
pub fn parse_rule_str(family: IpFamily, s: &str) -> Result<Vec<RuleSpec>, ParseError> {
    parse_rule_str_with(family, s, &NoSets)
}

/// [`parse_rule_str`] with the ipsets the rule names checked against `sets`.
pub fn parse_rule_str_with(
    family: IpFamily,
    s: &str,
    sets: &dyn SetIndex,
) -> Result<Vec<RuleSpec>, ParseError> {
    parse_rule_with(family, &super::args::split_args_cow(s)?, sets)
}

struct Loaded {
    ext: Box<dyn Extension>,
    is_target: bool,
    /// Its options given so far.
    given: Given,
}

impl Loaded {
    fn new(ext: Box<dyn Extension>, is_target: bool) -> Loaded {
        let given = Given::new(ext.desc().options);
        Loaded {
            ext,
            is_target,
            given,
        }
    }
}

pub(crate) struct Parser<'a> {
    /// Commands and command-line flags, when parsing a whole command line.
    pub(crate) cmd: Option<CommandLine>,
    pub(crate) family: IpFamily,
    /// The ipsets rules may name.
    sets: &'a dyn SetIndex,
    spec: RuleSpec,
    srcs: Vec<AddrMask>,
    dsts: Vec<AddrMask>,
    src_inv: bool,
    dst_inv: bool,
    /// Extensions in load order (matches and the target), as getopt sees their options.
    loaded: Vec<Loaded>,
    proto_used: bool,
    seen: Letters,
}

/// The letters of the builtin options seen, in order, each once: a few bytes in place (a
/// vector was two allocations per parsed line). Option letters are ASCII, and fewer than 32.
#[derive(Debug, Default, Clone)]
struct Letters {
    order: [u8; 32],
    len: u8,
}

impl Letters {
    fn contains(&self, c: char) -> bool {
        self.iter().any(|x| x == c)
    }

    fn push(&mut self, c: char) {
        let n = usize::from(self.len);
        if c.is_ascii() && n < self.order.len() {
            self.order[n] = c as u8;
            self.len += 1;
        }
    }

    fn iter(&self) -> impl Iterator<Item = char> + '_ {
        self.order[..usize::from(self.len)]
            .iter()
            .map(|&b| char::from(b))
    }
}

enum Resolved {
    Builtin(char),
    /// The loaded extension's index, and the option's index in its table.
    Ext(usize, usize),
}

impl<'a> Parser<'a> {
    pub(crate) fn new(family: IpFamily, sets: &'a dyn SetIndex) -> Parser<'a> {
        Parser {
            cmd: None,
            family,
            sets,
            spec: RuleSpec {
                family,
                ..RuleSpec::default()
            },
            srcs: Vec::new(),
            dsts: Vec::new(),
            src_inv: false,
            dst_inv: false,
            loaded: Vec::new(),
            proto_used: false,
            seen: Letters::default(),
        }
    }

    /// The context for the options of an extension that was given `given` so far.
    fn ctx(&self, given: Given) -> ParseCtx<'a> {
        ParseCtx {
            family: self.family,
            proto: self.spec.proto,
            sets: self.sets,
            given,
        }
    }

    /// Resolves a long option name (without dashes), with getopt_long's abbreviations.
    fn resolve_long(&self, name: &str) -> Result<Option<Resolved>, ParseError> {
        // getopt_long sees the most recently loaded extension's options first (iptables merges
        // new options in front of the older ones).
        let ext_opts = self.loaded.iter().enumerate().rev().flat_map(|(i, l)| {
            l.ext
                .desc()
                .options
                .iter()
                .enumerate()
                .map(move |(k, o)| (i, k, o))
        });
        // Exact matches first, builtins before extensions.
        if let Some(short) = builtin_long_exact(name) {
            return Ok(short.map(Resolved::Builtin));
        }
        if let Some((i, k, _)) = ext_opts.clone().find(|(_, _, o)| o.name == name) {
            return Ok(Some(Resolved::Ext(i, k)));
        }
        let mut names: Vec<&str> = BUILTIN_LONG
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| n.starts_with(name))
            .collect();
        names.extend(
            ext_opts
                .clone()
                .map(|(_, _, o)| o.name)
                .filter(|n| n.starts_with(name)),
        );
        names.sort_unstable();
        names.dedup();
        match names.as_slice() {
            [] => Ok(None),
            [one] => {
                if let Some(&(_, short)) = BUILTIN_LONG.iter().find(|(n, _)| n == one) {
                    return Ok(short.map(Resolved::Builtin));
                }
                Ok(ext_opts
                    .clone()
                    .find(|(_, _, o)| o.name == *one)
                    .map(|(i, k, _)| Resolved::Ext(i, k)))
            }
            _ => Err(ParseError::AmbiguousOption {
                option: format!("--{name}"),
            }),
        }
    }

    pub(crate) fn parse(&mut self, args: &[&str]) -> Result<(), ParseError> {
        // A command line's words are C strings: each ends at its first NUL byte, as in
        // iptables (a chain name, comment or prefix with a NUL in it would otherwise be cut
        // there by the kernel or by a later restore, and be another rule than the one asked
        // for).
        let cut: Vec<&str>;
        let args = if args.iter().any(|a| a.contains('\0')) {
            cut = args
                .iter()
                .map(|a| a.split('\0').next().unwrap_or(""))
                .collect();
            &cut[..]
        } else {
            args
        };
        self.parse_nul_free(args)
    }

    /// [`Parser::parse`] of words none of which holds a NUL byte.
    pub(crate) fn parse_nul_free(&mut self, args: &[&str]) -> Result<(), ParseError> {
        let mut i = 0;
        let mut inv = false;
        // The rest of a group of short flags (`-nvL`: after `n`, `-vL`), read as getopt does.
        let mut group: Option<String> = None;
        let mut held = String::new();
        while i < args.len() || group.is_some() {
            let a: &str = match group.take() {
                Some(g) => {
                    held.clear();
                    held.push_str(&g);
                    &held
                }
                None => {
                    i += 1;
                    args[i - 1]
                }
            };
            if a == "!" {
                if inv {
                    return Err(ParseError::Invalid(
                        "multiple consecutive ! not allowed".into(),
                    ));
                }
                inv = true;
                continue;
            }
            // The option as messages name it (`--dport`, `-s`): the word up to its value.
            let shown: &str;
            let (resolved, inline) = if let Some(long) = a.strip_prefix("--") {
                // A byte search: `split_once('=')` went through the generic char searcher,
                // slower on words this short.
                let (name, inline) = match long.bytes().position(|b| b == b'=') {
                    Some(k) => (&long[..k], Some(&long[k + 1..])),
                    None => (long, None),
                };
                let mut r = self.resolve_long(name)?;
                if r.is_none() && self.try_implicit_proto()? {
                    r = self.resolve_long(name)?;
                }
                let r = match r {
                    Some(Resolved::Builtin(c))
                        if self.cmd.is_none() && (is_command_short(c) || c == LINE_NUMBERS) =>
                    {
                        None
                    }
                    r => r,
                };
                shown = &a[..2 + name.len()];
                match r {
                    Some(r) => (r, inline),
                    None => {
                        return Err(ParseError::UnknownOption {
                            option: a.to_owned(),
                        });
                    }
                }
            } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
                let c = short.chars().next().unwrap_or('-');
                let rest = &short[c.len_utf8()..];
                let allowed =
                    matches!(c, 's' | 'd' | 'p' | 'i' | 'o' | 'j' | 'm' | 'g' | 'f' | 'c')
                        || self.cmd.is_some() && is_command_short(c);
                if !allowed {
                    // getopt names the one letter it does not know, not the whole word
                    // (`-aL` is `unknown option "-a"`).
                    return Err(ParseError::UnknownOption {
                        option: format!("-{c}"),
                    });
                }
                shown = &a[..1 + c.len_utf8()];
                // A flag that takes no value (`-n`, `-v`, `-x`, `-4`, `-6`, `-V`, `-h`) lets
                // the letters after it be options of their own, as getopt reads them.
                if self.cmd.is_some()
                    && !rest.is_empty()
                    && matches!(c, 'n' | 'v' | 'x' | 'V' | 'h' | '4' | '6')
                {
                    group = Some(format!("-{rest}"));
                    (Resolved::Builtin(c), None)
                } else {
                    (Resolved::Builtin(c), (!rest.is_empty()).then_some(rest))
                }
            } else {
                return Err(ParseError::Invalid(format!("Bad argument `{a}'")));
            };
            match resolved {
                Resolved::Builtin(c) => {
                    i = self.builtin(c, shown, inv, inline, args, i)?;
                }
                Resolved::Ext(idx, k) => {
                    let desc = self.loaded[idx].ext.desc();
                    let Some(opt) = desc.options.get(k) else {
                        continue;
                    };
                    let need = opt.arity();
                    let mut values: [&str; 2] = ["", ""];
                    let mut got = 0;
                    if let Some(v) = inline {
                        if need == 0 {
                            return Err(ParseError::Invalid(format!(
                                "option '{shown}' doesn't allow an argument"
                            )));
                        }
                        values[0] = v;
                        got = 1;
                    }
                    while got < need {
                        match args.get(i) {
                            Some(v) => {
                                values[got] = v;
                                got += 1;
                                i += 1;
                            }
                            // The second word of a two-word value is the extension's to
                            // ask for (`--tcp-flags requires two args.`): it sees "".
                            None if got == 1 && opt.ty == opts::Ty::Custom2 => break,
                            None => {
                                return Err(ParseError::MissingValue {
                                    option: shown.to_owned(),
                                })
                            }
                        }
                    }
                    // A value that may be left out (`--rateest-bps [RATE]`): the next
                    // argument, unless it is an option or `!`.
                    if opt.ty == opts::Ty::OptRaw {
                        if let Some(v) = args.get(i).filter(|v| !v.starts_with(['-', '!'])) {
                            values[0] = v;
                            got = 1;
                            i += 1;
                        }
                    }
                    let values = &values[..got];
                    let given = self.loaded[idx].given;
                    let ctx = self.ctx(given);
                    let l = &mut self.loaded[idx];
                    // An alias counts, inverts and parses as the entry it stands for; the
                    // extension sees the name given.
                    let slot = opts::slot_at(desc.options, k).unwrap_or(k);
                    let entry = desc.options.get(slot).unwrap_or(opt);
                    opts::precheck(desc.name, desc.options, &given, slot, inv)?;
                    let val = opts::parse_value(desc.name, entry, values, self.family)?;
                    l.ext.parse(opt, inv, val, &ctx)?;
                    l.given.record_slot(slot);
                }
            }
            inv = false;
        }
        if inv {
            return Err(ParseError::Invalid(
                "no command specified after \"!\"".into(),
            ));
        }
        Ok(())
    }

    /// Loads the match named after `-p` when an option is unknown (iptables' `load_proto`).
    fn try_implicit_proto(&mut self) -> Result<bool, ParseError> {
        if self.proto_used {
            return Ok(false);
        }
        let Some(p) = self.spec.proto else {
            return Ok(false);
        };
        self.proto_used = true;
        let Some(name) = implicit_match(p.num, self.family) else {
            return Ok(false);
        };
        let Some(desc) = ext::find(ExtKind::Match, name, self.family) else {
            return Ok(false);
        };
        // `! -p tcp --dport 1` loads the tcp match too, as iptables does (and iptables-nft
        // accepts the rule).
        self.loaded
            .push(Loaded::new((desc.new)(self.family), false));
        Ok(true)
    }

    /// Letters of the rule options seen (everything that is not a command or a flag).
    pub(crate) fn rule_option_letters(&self) -> impl Iterator<Item = char> + '_ {
        self.seen_letters()
            .filter(|c| matches!(c, 's' | 'd' | 'p' | 'i' | 'o' | 'f' | 'j' | 'g' | 'm' | 'c'))
    }

    /// Letters of the builtin options seen so far (`m` last if an extension was loaded).
    pub(crate) fn seen_letters(&self) -> impl Iterator<Item = char> + '_ {
        self.seen
            .iter()
            .chain((!self.loaded.is_empty()).then_some('m'))
    }

    fn once(&mut self, c: char) -> Result<(), ParseError> {
        if self.seen.contains(c) {
            return Err(ParseError::Invalid(format!(
                "multiple -{c} flags not allowed"
            )));
        }
        self.seen.push(c);
        Ok(())
    }

    fn builtin(
        &mut self,
        c: char,
        shown: &str,
        inv: bool,
        inline: Option<&str>,
        args: &[&str],
        mut i: usize,
    ) -> Result<usize, ParseError> {
        if is_command_short(c) || c == LINE_NUMBERS {
            let family = self.family;
            if let Some(cmd) = self.cmd.as_mut() {
                if inv {
                    return Err(ParseError::Invalid(format!("cannot have ! before {shown}")));
                }
                return cmd.take_option(family, c, shown, inline, args, i);
            }
        }
        if inv && matches!(c, 'j' | 'm' | 'g' | 'c') {
            return Err(ParseError::NotInvertible {
                option: shown.to_owned(),
            });
        }
        match c {
            's' | 'd' => {
                self.once(c)?;
                let v = option_value(shown, inline, args, &mut i)?;
                let list = addr_option(self.family, v, shown, inv)?;
                if c == 's' {
                    self.srcs = list;
                    self.src_inv = inv;
                } else {
                    self.dsts = list;
                    self.dst_inv = inv;
                }
            }
            'p' => {
                self.once(c)?;
                let v = option_value(shown, inline, args, &mut i)?;
                let num = proto_number(v).ok_or_else(|| {
                    ParseError::bad(shown, format!("unknown protocol \"{v}\" specified"))
                })?;
                if num == 0 && inv {
                    return Err(ParseError::Invalid(
                        "rule would never match protocol".into(),
                    ));
                }
                self.spec.proto = Some(ProtoMatch { num, inv });
            }
            'i' | 'o' => {
                self.once(c)?;
                let v = option_value(shown, inline, args, &mut i)?;
                // iptables sees a C string: a NUL (possible in a restore line) ends the name,
                // and the kernel attribute could not carry it either.
                let v = v.split('\0').next().unwrap_or_default();
                if v.is_empty() {
                    // iptables' words (xtables_parse_interface).
                    return Err(ParseError::Invalid(
                        "Empty interface is likely to be undesired".into(),
                    ));
                }
                if !iface_name_ok(v) {
                    return Err(ParseError::bad(
                        shown,
                        format!("interface name `{v}' must be shorter than 16 characters"),
                    ));
                }
                let m = IfaceMatch {
                    name: v.to_owned(),
                    inv,
                };
                if c == 'i' {
                    self.spec.in_iface = Some(m);
                } else {
                    self.spec.out_iface = Some(m);
                }
            }
            'f' => {
                if self.family == IpFamily::V6 {
                    return Err(ParseError::UnknownOption {
                        option: shown.to_owned(),
                    });
                }
                if inline.is_some() {
                    return Err(ParseError::Invalid(format!(
                        "option '{shown}' doesn't allow an argument"
                    )));
                }
                self.once(c)?;
                self.spec.frag = Some(!inv);
            }
            'm' => {
                let v = option_value(shown, inline, args, &mut i)?;
                if v == raw::RAW_MATCH {
                    return self.raw_rule(args, i);
                }
                let desc = ext::find(ExtKind::Match, v, self.family).ok_or_else(|| {
                    ParseError::UnknownExtension {
                        kind: "match",
                        name: v.to_owned(),
                    }
                })?;
                if let Some(p) = self.spec.proto {
                    if implicit_match(p.num, self.family) == Some(v) {
                        self.proto_used = true;
                    }
                }
                self.loaded
                    .push(Loaded::new((desc.new)(self.family), false));
            }
            'j' | 'g' => {
                if self.seen.contains('j') || self.seen.contains('g') {
                    return Err(ParseError::Invalid("multiple -j flags not allowed".into()));
                }
                self.seen.push(c);
                let v = option_value(shown, inline, args, &mut i)?;
                self.spec.target = Some(match target_word(c == 'g', v, shown, self.family)? {
                    Some(t) => t,
                    None => {
                        // An extension target: its options follow.
                        if let Some(desc) = ext::find(ExtKind::Target, v, self.family) {
                            self.loaded.push(Loaded::new((desc.new)(self.family), true));
                        }
                        RuleTarget::Jump(String::new())
                    }
                });
            }
            'c' => {
                // `-c P,B` or `-c P B`; each read as sscanf("%llu") reads it.
                self.once(c)?;
                let p = option_value(shown, inline, args, &mut i)?;
                let b = match p.split_once(',') {
                    Some((_, b)) => b,
                    None => match args.get(i) {
                        Some(b) if !b.starts_with('-') && !b.starts_with('!') => {
                            i += 1;
                            b
                        }
                        _ => {
                            return Err(ParseError::Invalid(
                                "--set-counters requires packet and byte counter".into(),
                            ))
                        }
                    },
                };
                let pk = scan_llu(p).ok_or_else(|| {
                    ParseError::Invalid("--set-counters packet counter not numeric".into())
                })?;
                let by = scan_llu(b).ok_or_else(|| {
                    ParseError::Invalid("--set-counters byte counter not numeric".into())
                })?;
                self.spec.counters = Some((pk, by));
            }
            _ => {
                return Err(ParseError::UnknownOption {
                    option: shown.to_owned(),
                })
            }
        }
        Ok(i)
    }

    /// `-m nft --nft-rule HEX`: a rule without an iptables form, carried whole.
    fn raw_rule(&mut self, args: &[&str], mut i: usize) -> Result<usize, ParseError> {
        let hex = match args.get(i).copied() {
            Some(a) if a == raw::RAW_OPTION => {
                i += 1;
                args.get(i)
                    .copied()
                    .ok_or_else(|| ParseError::MissingValue {
                        option: raw::RAW_OPTION.into(),
                    })?
            }
            Some(a)
                if a.strip_prefix(raw::RAW_OPTION)
                    .is_some_and(|r| r.starts_with('=')) =>
            {
                &a[raw::RAW_OPTION.len() + 1..]
            }
            _ => {
                return Err(ParseError::Invalid(format!(
                    "-m {} must be followed by {} HEX",
                    raw::RAW_MATCH,
                    raw::RAW_OPTION
                )))
            }
        };
        if self.spec.raw.is_some() {
            return Err(ParseError::Invalid(format!(
                "{} given twice",
                raw::RAW_OPTION
            )));
        }
        self.spec.raw = Some(Box::new(raw::RawRule::from_hex(hex)?));
        Ok(i + 1)
    }

    pub(crate) fn finish(mut self) -> Result<Vec<RuleSpec>, ParseError> {
        if self.spec.raw.is_some() {
            let others = !self.srcs.is_empty()
                || !self.dsts.is_empty()
                || self.spec.in_iface.is_some()
                || self.spec.out_iface.is_some()
                || self.spec.proto.is_some()
                || self.spec.frag.is_some()
                || self.spec.target.is_some()
                || !self.loaded.is_empty();
            if others {
                return Err(ParseError::Invalid(format!(
                    "-m {} {} carries a whole rule: no other rule option but -c may stand beside it",
                    raw::RAW_MATCH,
                    raw::RAW_OPTION
                )));
            }
            return Ok(vec![self.spec]);
        }
        for l in &mut self.loaded {
            let ctx = ParseCtx {
                family: self.family,
                proto: self.spec.proto,
                sets: self.sets,
                given: l.given,
            };
            l.ext.finish(&ctx)?;
            let desc = l.ext.desc();
            opts::fcheck(desc.name, desc.options, &l.given)?;
        }
        for l in self.loaded.drain(..) {
            if l.is_target {
                self.spec.target = Some(RuleTarget::Ext(l.ext));
            } else {
                self.spec.matches.push(l.ext);
            }
        }
        let (src_inv, dst_inv) = (self.src_inv, self.dst_inv);
        let with = |mut r: RuleSpec, s: Option<AddrMask>, d: Option<AddrMask>| {
            r.src = s.map(|addr| AddrMatch { addr, inv: src_inv });
            r.dst = d.map(|addr| AddrMatch { addr, inv: dst_inv });
            r
        };
        // One source and one destination (nearly every rule): the spec itself, not a copy.
        if self.srcs.len() <= 1 && self.dsts.len() <= 1 {
            let (s, d) = (self.srcs.first().copied(), self.dsts.first().copied());
            return Ok(vec![with(self.spec, s, d)]);
        }
        let srcs: Vec<Option<AddrMask>> = if self.srcs.is_empty() {
            vec![None]
        } else {
            self.srcs.iter().copied().map(Some).collect()
        };
        let dsts: Vec<Option<AddrMask>> = if self.dsts.is_empty() {
            vec![None]
        } else {
            self.dsts.iter().copied().map(Some).collect()
        };
        let mut out = Vec::with_capacity(srcs.len() * dsts.len());
        for s in &srcs {
            for d in &dsts {
                out.push(with(self.spec.clone(), *s, *d));
            }
        }
        Ok(out)
    }
}

/// A number read as C's `sscanf(s, "%llu")` reads it (see
/// [`scan_llu_prefix`](super::ext::base::libxt::scan_llu_prefix)). `None` when no digit follows.
fn scan_llu(s: &str) -> Option<u64> {
    super::ext::base::libxt::scan_llu_prefix(s.as_bytes()).map(|(v, _)| v)
}

/// Whether iptables takes `name` as the interface of `-i` or `-o` (xtables_parse_interface):
/// not empty, and shorter than IFNAMSIZ with its `+`. A decoder shows no other name in a
/// rule's iptables form (a restore would refuse it).
/// The addresses of `-s`/`-d` (`shown`) with value `v`, inverted when `inv`.
pub(crate) fn addr_option(
    family: IpFamily,
    v: &str,
    shown: &str,
    inv: bool,
) -> Result<Vec<AddrMask>, ParseError> {
    let list = AddrMask::parse(family, v, shown)?;
    // `! -s 0.0.0.0/0` can match no packet (iptables-nft 1.8.9 then sends a rule the kernel
    // refuses with EINVAL): say so while parsing.
    if inv && list.iter().any(|a| a.prefix_len() == Some(0)) {
        return Err(ParseError::bad(
            shown,
            format!("`! {v}' matches no packet at all (a /0 mask matches every address)"),
        ));
    }
    Ok(list)
}

/// The target `-j v` (`-g v` when `goto`; `shown` names the option in errors) names: a
/// verdict or a chain, or `None` for a target extension.
pub(crate) fn target_word(
    goto: bool,
    v: &str,
    shown: &str,
    family: IpFamily,
) -> Result<Option<RuleTarget>, ParseError> {
    if v.is_empty() || v.len() >= 29 {
        return Err(ParseError::bad(
            shown,
            format!("Invalid target name `{v}' (28 chars max)"),
        ));
    }
    if !target_name_ok(v) {
        return Err(ParseError::bad(shown, format!("Invalid target name `{v}'")));
    }
    if goto {
        return Ok(Some(RuleTarget::Goto(v.to_owned())));
    }
    Ok(match v {
        "ACCEPT" => Some(RuleTarget::Accept),
        "DROP" => Some(RuleTarget::Drop),
        "RETURN" => Some(RuleTarget::Return),
        "QUEUE" => Some(RuleTarget::Queue),
        _ if ext::find(ExtKind::Target, v, family).is_some() => None,
        _ => Some(RuleTarget::Jump(v.to_owned())),
    })
}

pub(crate) fn iface_name_ok(name: &str) -> bool {
    !name.is_empty() && name.len() < 16
}

/// Whether iptables takes `name` as the value of `-j` or `-g` (parse_target): 1 to 28
/// bytes, none of them a C `isspace()` character. A decoder shows no other chain name as a
/// rule's jump.
pub(crate) fn target_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() < 29
        && !name.bytes().any(|b| b.is_ascii_whitespace() || b == 0x0b)
}

#[cfg(test)]
mod builtin_tests {
    use super::*;

    #[test]
    fn exact_lookup_agrees_with_the_table() {
        for &(name, short) in BUILTIN_LONG {
            assert_eq!(builtin_long_exact(name), Some(short), "{name}");
        }
        assert_eq!(builtin_long_exact("dport"), None);
        assert_eq!(builtin_long_exact("appen"), None);
    }

    #[test]
    fn counters_are_read_as_iptables_reads_them() {
        let c = |a: &[&str]| {
            crate::ipt::parse_rule(IpFamily::V4, a)
                .map(|r| r[0].counters)
                .map_err(|e| e.to_string())
        };
        assert_eq!(c(&["-c", "2,3", "-j", "ACCEPT"]), Ok(Some((2, 3))));
        assert_eq!(c(&["-c", "2", "3"]), Ok(Some((2, 3))));
        assert_eq!(c(&["-c", " +7x", "5"]), Ok(Some((7, 5))));
        assert_eq!(c(&["-c", "1,-1"]), Ok(Some((1, u64::MAX))));
        let no = "--set-counters requires packet and byte counter";
        assert_eq!(c(&["-c", ""]), Err(no.into()));
        assert_eq!(c(&["-c", "1", "-j", "ACCEPT"]), Err(no.into()));
        let pk = "--set-counters packet counter not numeric";
        assert_eq!(c(&["-c", ",3"]), Err(pk.into()));
        assert_eq!(c(&["-c", ","]), Err(pk.into()));
        let by = "--set-counters byte counter not numeric";
        assert_eq!(c(&["-c", "3,"]), Err(by.into()));
        assert_eq!(c(&["-c", "3", "x"]), Err(by.into()));
    }

    #[test]
    fn an_empty_interface_is_refused_as_iptables_does() {
        for opt in ["-i", "-o"] {
            let e = crate::ipt::parse_rule(IpFamily::V4, &[opt, "", "-j", "ACCEPT"]).unwrap_err();
            assert_eq!(e.to_string(), "Empty interface is likely to be undesired");
            // A NUL ends the name, as in iptables' C strings.
            let e = crate::ipt::parse_rule(IpFamily::V4, &[opt, "\0", "-j", "ACCEPT"]).unwrap_err();
            assert_eq!(e.to_string(), "Empty interface is likely to be undesired");
            let r =
                crate::ipt::parse_rule(IpFamily::V4, &[opt, "eth0\0x", "-j", "ACCEPT"]).unwrap();
            assert_eq!(r[0].to_save_args(), format!("{opt} eth0 -j ACCEPT"));
        }
    }

    #[test]
    fn a_target_or_chain_with_a_blank_is_refused_as_iptables_does() {
        for opt in ["-j", "-g"] {
            for name in ["hello world", "a\tb", "a\x0bb"] {
                let e = crate::ipt::parse_rule(IpFamily::V4, &[opt, name]).unwrap_err();
                assert_eq!(
                    e.to_string(),
                    format!("{opt}: Invalid target name `{name}'")
                );
            }
        }
        let e = crate::ipt::cmdline::check_chain_name("hello world", IpFamily::V4).unwrap_err();
        assert_eq!(e.to_string(), "Invalid chain name `hello world'");
    }
}
