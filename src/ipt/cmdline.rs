//! The commands of an iptables command line (`-A`, `-D`, `-L` …) with their chains and rule
//! numbers, the table and the listing flags: what [`super::parse_command`] fills in as the
//! rule-spec parser meets them (commands may stand anywhere among the rule options).

use super::error::ParseError;
use super::ext::{self, parse_uint, ExtKind};
use super::spec::RuleSpec;
use super::IpFamily;

/// Pseudo short option of `--line-numbers`, which has none.
pub(crate) const LINE_NUMBERS: char = '\u{1}';

/// Whether `c` is the short option of a command or a command-line flag (only in
/// [`super::parse_command`]).
#[inline]
pub(crate) fn is_command_short(c: char) -> bool {
    matches!(
        c,
        'A' | 'D'
            | 'C'
            | 'I'
            | 'R'
            | 'L'
            | 'S'
            | 'F'
            | 'Z'
            | 'N'
            | 'X'
            | 'E'
            | 'P'
            | 't'
            | 'n'
            | 'v'
            | 'x'
            | 'V'
            | 'h'
            | 'M'
            | '4'
            | '6'
            | 'w'
            | 'W'
    )
}

/// One iptables command with its operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `-A chain rule`.
    Append {
        /// The chain.
        chain: String,
    },
    /// `-C chain rule`.
    Check {
        /// The chain.
        chain: String,
    },
    /// `-D chain rule` (`rulenum` is `None`) or `-D chain rulenum`.
    Delete {
        /// The chain.
        chain: String,
        /// 1-based rule number, when deleting by number.
        rulenum: Option<u32>,
    },
    /// `-I chain [rulenum] rule` (default position 1).
    Insert {
        /// The chain.
        chain: String,
        /// 1-based position.
        rulenum: u32,
    },
    /// `-R chain rulenum rule`.
    Replace {
        /// The chain.
        chain: String,
        /// 1-based rule number.
        rulenum: u32,
    },
    /// `-L [chain [rulenum]]`.
    List {
        /// The chain, or all.
        chain: Option<String>,
        /// A single rule.
        rulenum: Option<u32>,
    },
    /// `-S [chain [rulenum]]`.
    ListRules {
        /// The chain, or all.
        chain: Option<String>,
        /// A single rule.
        rulenum: Option<u32>,
    },
    /// `-F [chain]`.
    Flush {
        /// The chain, or all.
        chain: Option<String>,
    },
    /// `-Z [chain [rulenum]]`.
    Zero {
        /// The chain, or all.
        chain: Option<String>,
        /// A single rule.
        rulenum: Option<u32>,
    },
    /// `-N chain`.
    NewChain {
        /// The chain.
        chain: String,
    },
    /// `-X [chain]`.
    DeleteChain {
        /// The chain, or every empty user chain.
        chain: Option<String>,
    },
    /// `-E old new`.
    RenameChain {
        /// Current name.
        old: String,
        /// New name.
        new: String,
    },
    /// `-P chain target`.
    Policy {
        /// The built-in chain.
        chain: String,
        /// `ACCEPT` or `DROP` (as given).
        policy: String,
    },
    /// `-V`.
    Version,
    /// `-h`.
    Help,
}

impl Command {
    /// The option letter of the command.
    pub fn letter(&self) -> char {
        match self {
            Command::Append { .. } => 'A',
            Command::Check { .. } => 'C',
            Command::Delete { .. } => 'D',
            Command::Insert { .. } => 'I',
            Command::Replace { .. } => 'R',
            Command::List { .. } => 'L',
            Command::ListRules { .. } => 'S',
            Command::Flush { .. } => 'F',
            Command::Zero { .. } => 'Z',
            Command::NewChain { .. } => 'N',
            Command::DeleteChain { .. } => 'X',
            Command::RenameChain { .. } => 'E',
            Command::Policy { .. } => 'P',
            Command::Version => 'V',
            Command::Help => 'h',
        }
    }

    /// Whether the command takes a rule spec.
    pub fn takes_rule(&self) -> bool {
        matches!(
            self,
            Command::Append { .. }
                | Command::Check { .. }
                | Command::Insert { .. }
                | Command::Replace { .. }
                | Command::Delete { rulenum: None, .. }
        )
    }
}

/// A parsed command line.
///
/// ```
/// use iptnl::ipt::{parse_command, Command, IpFamily};
/// let c = parse_command(IpFamily::V4, &["-t", "nat", "-I", "PREROUTING", "2", "-p", "tcp", "-j", "ACCEPT", "-w", "5"]).unwrap();
/// assert_eq!(c.table, "nat");
/// assert_eq!(c.commands, vec![Command::Insert { chain: "PREROUTING".into(), rulenum: 2 }]);
/// assert_eq!(c.rules[0].to_save_args(), "-p tcp -j ACCEPT");
/// assert_eq!(c.wait, Some(Some(5)));
/// ```
#[derive(Debug, Clone, Default)]
pub struct CommandLine {
    /// The commands: one, or `-L`/`-S` together with `-Z`.
    pub commands: Vec<Command>,
    /// `-t` (default `filter`).
    pub table: String,
    /// Whether `-t` was given.
    pub table_given: bool,
    /// `-v` count.
    pub verbose: u32,
    /// `-n`.
    pub numeric: bool,
    /// `-x`.
    pub exact: bool,
    /// `--line-numbers`.
    pub line_numbers: bool,
    /// `-w [seconds]` (accepted and ignored: iptnl takes no lock).
    pub wait: Option<Option<u32>>,
    /// `-W usecs` (accepted and ignored).
    pub wait_interval: Option<u32>,
    /// `--modprobe` (accepted and ignored).
    pub modprobe: Option<String>,
    /// `-4` / `-6`.
    pub family_switch: Option<IpFamily>,
    /// The rule spec(s) (several when `-s`/`-d` list several addresses); empty without rule
    /// options.
    pub rules: Vec<RuleSpec>,
    /// Rule options that were given (their letters), to refuse them where a command takes no
    /// rule.
    pub rule_options: Vec<char>,
}

/// The value of option `shown`: `inline` (`-tnat`, `--table=nat`), or else the argument at
/// `*i`, which it moves past.
pub(crate) fn option_value<'v>(
    shown: &str,
    inline: Option<&'v str>,
    args: &[&'v str],
    i: &mut usize,
) -> Result<&'v str, ParseError> {
    if let Some(v) = inline {
        return Ok(v);
    }
    match args.get(*i) {
        Some(v) => {
            *i += 1;
            Ok(v)
        }
        None => Err(ParseError::MissingValue {
            option: shown.to_owned(),
        }),
    }
}

fn chain_arg<'a>(
    shown: &str,
    inline: Option<&'a str>,
    args: &[&'a str],
    i: &mut usize,
) -> Result<String, ParseError> {
    Ok(option_value(shown, inline, args, i)?.to_owned())
}

/// The next argument if it is an operand (not an option and not `!`), as iptables decides.
fn optional<'a>(args: &[&'a str], i: &mut usize) -> Option<&'a str> {
    let a = args.get(*i)?;
    if a.starts_with('-') || *a == "!" {
        return None;
    }
    *i += 1;
    Some(a)
}

fn rulenum(s: &str) -> Result<u32, ParseError> {
    parse_uint(s, 1, i32::MAX as u64)
        .map(|v| v as u32)
        .ok_or_else(|| ParseError::Invalid(format!("Invalid rule number `{s}'")))
}

/// Checks a new chain name as iptables does.
pub fn check_chain_name(name: &str, family: IpFamily) -> Result<(), ParseError> {
    if name.len() >= 29 {
        return Err(ParseError::Invalid(format!(
            "chain name `{name}' too long (must be under 29 chars)"
        )));
    }
    if name.is_empty() || name.starts_with('-') || name.starts_with('!') {
        return Err(ParseError::Invalid(format!("Invalid chain name `{name}'")));
    }
    if name.parse::<i64>().is_ok() {
        return Err(ParseError::Invalid(format!("Invalid chain name `{name}'")));
    }
    if ext::find(ExtKind::Target, name, family).is_some()
        || matches!(name, "ACCEPT" | "DROP" | "RETURN" | "QUEUE")
    {
        return Err(ParseError::Invalid(
            "chain name may not clash with target name".into(),
        ));
    }
    // iptables' parse_chain refuses any C isspace() character; a NUL byte ends its C string
    // (the kernel's too), so it can be no part of a name.
    if name
        .bytes()
        .any(|b| b.is_ascii_whitespace() || b == 0x0b || b == 0)
    {
        return Err(ParseError::Invalid(format!("Invalid chain name `{name}'")));
    }
    Ok(())
}

impl CommandLine {
    /// Takes command or command-line flag `c` (written `shown`; its value is `inline`, or
    /// the next of `args` from `i`), for `family`; returns the index of the argument after
    /// what it took. `!` before it is refused by the caller.
    pub(crate) fn take_option(
        &mut self,
        family: IpFamily,
        c: char,
        shown: &str,
        inline: Option<&str>,
        args: &[&str],
        mut i: usize,
    ) -> Result<usize, ParseError> {
        let cmdline = self;
        let new_cmd = match c {
            'A' => Some(Command::Append {
                chain: chain_arg(shown, inline, args, &mut i)?,
            }),
            'C' => Some(Command::Check {
                chain: chain_arg(shown, inline, args, &mut i)?,
            }),
            'D' => {
                let chain = chain_arg(shown, inline, args, &mut i)?;
                let rulenum = optional(args, &mut i).map(rulenum).transpose()?;
                Some(Command::Delete { chain, rulenum })
            }
            'I' => {
                let chain = chain_arg(shown, inline, args, &mut i)?;
                let rulenum = optional(args, &mut i)
                    .map(rulenum)
                    .transpose()?
                    .unwrap_or(1);
                Some(Command::Insert { chain, rulenum })
            }
            'R' => {
                let chain = chain_arg(shown, inline, args, &mut i)?;
                let n = args
                    .get(i)
                    .ok_or_else(|| ParseError::Invalid("-R requires a rule number".into()))?;
                i += 1;
                Some(Command::Replace {
                    chain,
                    rulenum: rulenum(n)?,
                })
            }
            'L' | 'S' | 'Z' => {
                let chain = inline
                    .map(str::to_owned)
                    .or_else(|| optional(args, &mut i).map(str::to_owned));
                let rn = match chain {
                    Some(_) => optional(args, &mut i).map(rulenum).transpose()?,
                    None => None,
                };
                Some(match c {
                    'L' => Command::List { chain, rulenum: rn },
                    'S' => Command::ListRules { chain, rulenum: rn },
                    _ => Command::Zero { chain, rulenum: rn },
                })
            }
            'F' | 'X' => {
                let chain = inline
                    .map(str::to_owned)
                    .or_else(|| optional(args, &mut i).map(str::to_owned));
                Some(if c == 'F' {
                    Command::Flush { chain }
                } else {
                    Command::DeleteChain { chain }
                })
            }
            'N' => {
                let chain = chain_arg(shown, inline, args, &mut i)?;
                check_chain_name(&chain, family)?;
                Some(Command::NewChain { chain })
            }
            'E' => {
                let old = chain_arg(shown, inline, args, &mut i)?;
                let new = args.get(i).ok_or_else(|| {
                    ParseError::Invalid("-E requires old-chain-name and new-chain-name".into())
                })?;
                i += 1;
                check_chain_name(new, family)?;
                Some(Command::RenameChain {
                    old,
                    new: (*new).to_owned(),
                })
            }
            'P' => {
                let chain = chain_arg(shown, inline, args, &mut i)?;
                let policy = args.get(i).ok_or_else(|| {
                    ParseError::Invalid("-P requires a chain and a policy".into())
                })?;
                i += 1;
                Some(Command::Policy {
                    chain,
                    policy: (*policy).to_owned(),
                })
            }
            'V' => Some(Command::Version),
            'h' => Some(Command::Help),
            't' => {
                // Given twice, the last one counts, as with iptables (a restore line refuses
                // any `-t`: see `restore_input`).
                let t = option_value(shown, inline, args, &mut i)?;
                cmdline.table = t.to_owned();
                cmdline.table_given = true;
                None
            }
            'v' => {
                cmdline.verbose += 1;
                if let Some(rest) = inline {
                    // `-vvv` counts every v.
                    if rest.chars().all(|ch| ch == 'v') {
                        cmdline.verbose += rest.len() as u32;
                    } else {
                        return Err(ParseError::UnknownOption {
                            option: format!("-v{rest}"),
                        });
                    }
                }
                None
            }
            'n' => {
                cmdline.numeric = true;
                None
            }
            'x' => {
                cmdline.exact = true;
                None
            }
            LINE_NUMBERS => {
                cmdline.line_numbers = true;
                None
            }
            'w' => {
                let secs = match inline {
                    Some(v) => Some(v),
                    None => args
                        .get(i)
                        .filter(|a| a.bytes().all(|b| b.is_ascii_digit()) && !a.is_empty())
                        .inspect(|_| i += 1)
                        .copied(),
                };
                let secs = secs
                    .map(|v| {
                        v.parse::<u32>().map_err(|_| {
                            ParseError::bad(shown, format!("wait seconds not numeric: `{v}'"))
                        })
                    })
                    .transpose()?;
                cmdline.wait = Some(secs);
                None
            }
            'W' => {
                let v = option_value(shown, inline, args, &mut i)?;
                cmdline.wait_interval = Some(v.parse::<u32>().map_err(|_| {
                    ParseError::bad(shown, format!("wait interval not numeric: `{v}'"))
                })?);
                None
            }
            'M' => {
                cmdline.modprobe = Some(option_value(shown, inline, args, &mut i)?.to_owned());
                None
            }
            '4' | '6' => {
                cmdline.family_switch = Some(if c == '4' { IpFamily::V4 } else { IpFamily::V6 });
                None
            }
            _ => {
                return Err(ParseError::UnknownOption {
                    option: shown.to_owned(),
                })
            }
        };
        if let Some(nc) = new_cmd {
            let ok = matches!(
                (cmdline.commands.as_slice(), &nc),
                ([], _)
                    | (
                        [Command::List { .. } | Command::ListRules { .. }],
                        Command::Zero { .. }
                    )
                    | (
                        [Command::Zero { .. }],
                        Command::List { .. } | Command::ListRules { .. }
                    )
            );
            if !ok {
                return Err(ParseError::Invalid(format!(
                    "Cannot use -{} with -{}",
                    nc.letter(),
                    cmdline.commands[0].letter()
                )));
            }
            // `-Z CHAIN N` takes the place of a `-L`/`-S` given before it (iptables sets its
            // command to "zero one rule"): `-L -Z CHAIN N` zeroes and lists nothing.
            if matches!(
                nc,
                Command::Zero {
                    rulenum: Some(_),
                    ..
                }
            ) {
                cmdline.commands.clear();
            }
            cmdline.commands.push(nc);
        }
        Ok(i)
    }
}
