//! The text of iptables-restore input, line by line: `*table`, chain lines, commands,
//! `COMMIT`. Parsing is streamed: each parsed line is handed on at once, so that no more than
//! one line's rules are alive at a time. What the lines mean for the ruleset is planned by
//! the agent layer (`iptables::restore`), which also reads the input.

use super::args::{split_restore_cow, split_restore_plain};
use super::command::{
    check_chain_name, drops_in_nat, parse_command_with, parse_command_words, table_option_refused,
    Command, Words, NAT_DROP,
};
use super::decode::decode_rule_with;
use super::ext::SetIndex;
use super::raw::RawRule;
use super::savefile::{NATIVE_NOTE, OLD_NATIVE_NOTE};
use super::spec::RuleSpec;
use super::tables::find_table;
use super::IpFamily;
use crate::nft::Policy;

/// A line of the input that is wrong, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputError {
    /// 1-based line number.
    pub(crate) line: usize,
    /// What is wrong.
    pub(crate) msg: String,
}

fn fail<T, E: From<InputError>>(line: usize, msg: impl Into<String>) -> Result<T, E> {
    Err(input_err(line, msg).into())
}

fn input_err(line: usize, msg: impl Into<String>) -> InputError {
    InputError {
        line,
        msg: msg.into(),
    }
}

/// What is called with each line: its number and text.
pub(crate) type LineFn<'f, E> = dyn FnMut(usize, &str) -> Result<(), E> + 'f;

/// Where the lines come from: text in memory, or a file read in pieces (the reader's own
/// errors travel as `Error`, with the parser's).
pub(crate) trait Lines {
    /// The error of a pass over the lines.
    type Error: From<InputError>;
    /// Calls `f` with each line, numbered from 1, as [`str::lines`] splits them.
    fn for_each_line(&self, f: &mut LineFn<'_, Self::Error>) -> Result<(), Self::Error>;
}

/// Which part of the input is handed on, and the ipsets its rules may name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Selection<'a> {
    /// Only this table (`--table`).
    pub(crate) table: Option<&'a str>,
    /// Keep `[packets:bytes]` (`--counters`); without it they are dropped.
    pub(crate) counters: bool,
    /// The ipsets rules may name.
    pub(crate) sets: &'a dyn SetIndex,
}

/// One item of a table block.
#[derive(Debug)]
pub(crate) enum Item {
    Chain {
        line: usize,
        name: String,
        policy: Option<Policy>,
        counters: Option<(u64, u64)>,
    },
    Cmd {
        line: usize,
        cmd: Command,
        rules: Vec<RuleSpec>,
    },
}

/// A `*table … COMMIT` block (its items are streamed, never collected, outside tests).
#[derive(Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Block {
    pub(crate) table: String,
    pub(crate) line: usize,
    pub(crate) items: Vec<Item>,
}

fn parse_counters(s: &str) -> Option<(u64, u64)> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let (p, b) = inner.split_once(':')?;
    Some((p.parse().ok()?, b.parse().ok()?))
}

/// The lines of `text`, as [`str::lines`] splits them (at `\n`, without a `\r` before it),
/// with the line ends found by `memchr`: `str::lines` took an eighth of the parsing
/// thread's time on a 200k-rule input.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // `\n` is ASCII, so the positions around it are char boundaries.
        Some(match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                let line = &rest[..i];
                rest = &rest[i + 1..];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => std::mem::take(&mut rest),
        })
    })
}

/// What the parser reports, line by line, for the tables being restored.
#[derive(Debug)]
pub(crate) enum Event {
    /// A `*table` line.
    Table { name: String, line: usize },
    /// A chain or command line of the open table.
    Item(Item),
}

/// Parses the input line by line and hands each line of a restored table to `sink` as soon
/// as it is parsed, so that no more than one line's rules are alive at a time (memory stays
/// proportional to the batch, not to the parsed input).
pub(crate) fn parse_stream<L: Lines + ?Sized>(
    family: IpFamily,
    input: &L,
    sel: Selection<'_>,
    mut sink: impl FnMut(Event) -> Result<(), L::Error>,
) -> Result<(), L::Error> {
    let selected = |table: &str| sel.table.is_none_or(|only| only == table);
    let mut open: Option<Block> = None;
    let mut last = 0;
    // The content of a rule `nft` wrote, from the comment a save puts before its line.
    let mut native: Option<RawRule> = None;
    input.for_each_line(&mut |line, raw| {
        last = line;
        let l = raw.trim_end_matches('\r');
        let t = l.trim_start();
        if t.is_empty() {
            return Ok(());
        }
        if t.starts_with('#') {
            native = t
                .strip_prefix(NATIVE_NOTE)
                .or_else(|| t.strip_prefix(OLD_NATIVE_NOTE))
                .and_then(|hex| RawRule::from_hex(hex.trim()).ok());
            return Ok(());
        }
        let native = native.take();
        if let Some(name) = t.strip_prefix('*') {
            if let Some(b) = &open {
                return fail(
                    line,
                    format!(
                        "table `{}' (line {}) has no COMMIT before the next table",
                        b.table, b.line
                    ),
                );
            }
            let name = name.trim();
            if find_table(name).is_none() {
                return fail(line, format!("table `{name}' does not exist (iptables tables are filter, nat, mangle, raw and security)"));
            }
            if selected(name) {
                sink(Event::Table {
                    name: name.to_owned(),
                    line,
                })?;
            }
            open = Some(Block {
                table: name.to_owned(),
                line,
                items: Vec::new(),
            });
            return Ok(());
        }
        if t == "COMMIT" {
            match open.take() {
                Some(_) => {}
                None => return fail(line, "COMMIT without a table"),
            }
            return Ok(());
        }
        let Some(block) = open.as_mut() else {
            return fail(
                line,
                "a line outside of a table: the input must start with `*TABLE'",
            );
        };
        if let Some(decl) = t.strip_prefix(':') {
            let mut f = decl.split_whitespace();
            let name = f
                .next()
                .ok_or_else(|| input_err(line, "a chain line needs a chain name"))?;
            let policy = f.next().ok_or_else(|| {
                input_err(line, format!("chain {name}: no policy (ACCEPT, DROP or -)"))
            })?;
            let builtin = find_table(&block.table).and_then(|tb| tb.builtin(name));
            let third = f.next();
            let (policy, counters) = match builtin {
                // iptables reads no policy and no counters of a user chain: `:foo - [0:0]`,
                // `:foo [0:0]` and `:foo ACCEPT` all declare it.
                None => (None, third.and_then(parse_counters)),
                Some(_) => {
                    let counters = match third {
                        Some(c) => Some(parse_counters(c).ok_or_else(|| {
                            input_err(line, format!("chain {name}: bad counters `{c}'"))
                        })?),
                        None => None,
                    };
                    let policy = match policy {
                        "ACCEPT" => Some(Policy::Accept),
                        "DROP" => Some(Policy::Drop),
                        // `-`: the chain keeps the policy it has (ACCEPT when it is new).
                        "-" => None,
                        _ => return fail(line, "Bad policy name."),
                    };
                    (policy, counters)
                }
            };
            if builtin.is_none() {
                check_chain_name(name, family)
                    .map_err(|e| input_err(line, e.to_string()))?;
            }
            if selected(&block.table) {
                sink(Event::Item(Item::Chain {
                    line,
                    name: name.to_owned(),
                    policy,
                    counters,
                }))?;
            }
            return Ok(());
        }
        let (counters, rest) = if t.starts_with('[') {
            let (c, rest) = t.split_once(' ').unwrap_or((t, ""));
            (
                Some(
                    parse_counters(c)
                        .ok_or_else(|| input_err(line, format!("bad counters `{c}'")))?,
                ),
                rest,
            )
        } else {
            (None, t)
        };
        // The words as pieces of the line, when no word needs putting together (then no
        // copy is made of any).
        let split_err = |e: super::error::ParseError| input_err(line, e.to_string());
        let cows;
        let args: Vec<&str> = match split_restore_plain(rest).map_err(split_err)? {
            Some(words) => words,
            None => {
                cows = split_restore_cow(rest).map_err(split_err)?;
                cows.iter().map(AsRef::as_ref).collect()
            }
        };
        // A line for the other family (`-6 ...` in iptables-restore, `-4 ...` in
        // ip6tables-restore) is skipped, as iptables' parser returns on that switch.
        let other = match family {
            IpFamily::V4 => ["-6", "--ipv6"],
            IpFamily::V6 => ["-4", "--ipv4"],
        };
        if args.first().is_some_and(|a| other.contains(a)) {
            return Ok(());
        }
        // A rule a save carried whole, on a note line before its iptables form: the line is
        // still that form, word for word, so it is the rule as it was (even when iptables'
        // form of it would not read back as that rule, or at all).
        let whole = native.as_ref().and_then(|raw| {
            let (chain, tail) = rest.trim_end().strip_prefix("-A ")?.split_once(' ')?;
            (native_view(raw, family, sel.sets)?.trim_end() == tail).then_some(chain)
        });
        let mut cl = match whole {
            Some(chain) => parse_command_with(family, &["-A", chain], sel.sets),
            // A NUL byte ends a word where iptables reads it, as the parser cuts it: one
            // search of the line spares it one of every word.
            None => {
                let nul = memchr::memchr(0, rest.as_bytes()).is_some();
                let words = Words::RestoreLine { may_hold_nul: nul };
                parse_command_words(family, &args, sel.sets, words)
            }
        }
        .map_err(|e| input_err(line, e.iptables_words()))?;
        if cl.table_given {
            return fail(line, table_option_refused(family));
        }
        let cmd = match cl.commands.len() {
            1 => cl.commands.swap_remove(0),
            _ => return fail(line, "one command per line"),
        };
        if matches!(
            cmd,
            Command::List { .. } | Command::ListRules { .. } | Command::Version | Command::Help
        ) {
            return fail(
                line,
                format!("-{} cannot be used in restore input", cmd.letter()),
            );
        }
        if drops_in_nat(&block.table, &cmd, &cl.rules) {
            return fail(line, NAT_DROP);
        }
        let mut rules = cl.rules;
        if let (Some(raw), Some(_)) = (&native, whole) {
            rules = vec![RuleSpec {
                family,
                raw: Some(Box::new(raw.clone())),
                ..RuleSpec::default()
            }];
        } else if let (Some(raw), [rule]) = (native, rules.as_mut_slice()) {
            // The line is still the saved rule's iptables form: the rule as it was.
            if native_view(&raw, family, sel.sets).is_some_and(|v| *v == rule.to_save_args()) {
                *rule = RuleSpec {
                    family,
                    counters: rule.counters,
                    raw: Some(Box::new(raw)),
                    ..RuleSpec::default()
                };
            }
        }
        if let (true, Some(c)) = (
            sel.counters,
            counters.or_else(|| rules.first().and_then(|r| r.counters)),
        ) {
            for r in &mut rules {
                r.counters = Some(c);
            }
        }
        // Without --counters a `[p:b]` prefix is not applied, but a rule's own `-c P B`
        // is kept, as iptables-restore keeps it.
        if selected(&block.table) {
            sink(Event::Item(Item::Cmd { line, cmd, rules }))?;
        }
        Ok(())
    })?;
    if let Some(b) = open {
        return fail(
            last.max(b.line),
            format!("table `{}' (line {}) has no COMMIT line", b.table, b.line),
        );
    }
    Ok(())
}

/// The iptables form of a rule carried whole, as a save printed it after [`NATIVE_NOTE`].
fn native_view(raw: &RawRule, family: IpFamily, sets: &dyn SetIndex) -> Option<String> {
    decode_rule_with(&raw.to_rule(family.nft()), family, sets)
        .ok()
        .map(|v| v.to_save_args())
}

#[cfg(test)]
impl Lines for str {
    type Error = InputError;
    fn for_each_line(&self, f: &mut LineFn<'_, InputError>) -> Result<(), InputError> {
        for (i, l) in lines(self).enumerate() {
            f(i + 1, l)?;
        }
        Ok(())
    }
}

/// The whole input as blocks (the planner streams instead: see [`parse_stream`]).
#[cfg(test)]
pub(crate) fn parse_input(family: IpFamily, input: &str) -> Result<Vec<Block>, InputError> {
    let mut blocks: Vec<Block> = Vec::new();
    let sel = Selection {
        table: None,
        counters: false,
        sets: &super::ext::NoSets,
    };
    parse_stream(family, input, sel, |ev| {
        match ev {
            Event::Table { name, line } => blocks.push(Block {
                table: name,
                line,
                items: Vec::new(),
            }),
            Event::Item(it) => {
                if let Some(b) = blocks.last_mut() {
                    b.items.push(it);
                }
            }
        }
        Ok(())
    })?;
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_str_lines_does() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\r",
            "a\rb\n\r\n\n",
            "\n\nx\n",
            "é\nü\r\n",
        ] {
            let want: Vec<&str> = text.lines().collect();
            assert_eq!(lines(text).collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    fn parse(s: &str) -> Result<Vec<Block>, String> {
        parse_input(IpFamily::V4, s).map_err(|e| format!("line {}: {}", e.line, e.msg))
    }

    #[test]
    fn format_errors_name_the_line() {
        let e = parse("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT --bogus\nCOMMIT\n").unwrap_err();
        assert_eq!(e, "line 3: unknown option \"--bogus\"");
        assert!(parse("*filter\n-A INPUT -j ACCEPT\n")
            .unwrap_err()
            .starts_with("line 2: table `filter' (line 1) has no COMMIT"));
        assert!(parse("-A INPUT -j ACCEPT\n")
            .unwrap_err()
            .starts_with("line 1: a line outside of a table"));
        assert!(parse("*bogus\nCOMMIT\n").is_err());
        // As iptables 1.8.11: a user chain's policy word is not read, and `-` keeps a
        // built-in chain's policy; any other word is refused for a built-in chain.
        assert!(parse("*filter\n:FOO ACCEPT [0:0]\n:BAR [0:0]\nCOMMIT\n").is_ok());
        assert!(parse("*filter\n:INPUT - [0:0]\nCOMMIT\n").is_ok());
        assert_eq!(
            parse("*filter\n:INPUT FOO [0:0]\nCOMMIT\n").unwrap_err(),
            "line 2: Bad policy name."
        );
        assert!(parse("*filter\n:FOO\nCOMMIT\n").is_err());
        assert!(parse("*filter\n-t nat -A INPUT -j ACCEPT\nCOMMIT\n").is_err());
        assert!(parse("*filter\n-L\nCOMMIT\n").is_err());
        let ok = parse("# c\n*filter\n:INPUT DROP [1:2]\n:FOO - [0:0]\n[3:4] -A FOO -s 1.1.1.1,2.2.2.2 -j ACCEPT\n\nCOMMIT\n").unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].items.len(), 3);
    }

    /// Words of rule lines: quoting (whole, inside a word, escaped), NUL bytes, options.
    const WORDS: &[&str] = &[
        "-s",
        "1.2.3.4",
        "-p",
        "tcp",
        "--dport",
        "80",
        "-m",
        "comment",
        "--comment",
        "\"a b\"",
        "\"a\\\"b\"",
        "x\"y z\"",
        "\"\"",
        "a\0b",
        "\"c\0 d\"",
        "\0",
        "-j",
        "ACCEPT",
        "DROP",
        "FOO\0",
        "!",
        "--bogus",
    ];

    proptest::proptest! {
        /// A rule line of a restore is what the command line of its words is: the restore's
        /// own split (no copies) and its one NUL search per line change nothing, in the
        /// rules or in the error.
        #[test]
        fn a_restore_line_parses_as_its_words_do(
            words in proptest::collection::vec(proptest::sample::select(WORDS), 0..10),
        ) {
            let line = format!("-A INPUT {}", words.join(" "));
            let general = crate::ipt::split_restore_args(&line)
                .map_err(|e| e.to_string())
                .and_then(|args| {
                    parse_command_with(IpFamily::V4, &args, &crate::ipt::ext::NoSets)
                        .map_err(|e| e.iptables_words())
                });
            let restored = parse_input(IpFamily::V4, &format!("*filter\n{line}\nCOMMIT\n"));
            match (general, restored) {
                (Ok(cl), Ok(blocks)) => {
                    let Some(Item::Cmd { cmd, rules, .. }) = blocks[0].items.first() else {
                        panic!("{line:?}: no command read");
                    };
                    proptest::prop_assert_eq!(format!("{:?}", cl.commands), format!("{:?}", [cmd]));
                    let saved = |r: &[RuleSpec]| r.iter().map(RuleSpec::to_save_args).collect::<Vec<_>>();
                    proptest::prop_assert_eq!(saved(&cl.rules), saved(rules));
                }
                (Err(want), Err(got)) => proptest::prop_assert_eq!(want, got.msg),
                (want, got) => panic!("{line:?}: {:?} against {:?}", want.map(|_| ()), got.map(|_| ())),
            }
        }
    }
}
