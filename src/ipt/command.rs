//! Whole iptables command lines: the command (`-A`, `-D`, `-L` …), its chain and rule
//! number, the table, the listing flags, and the rule spec, parsed in one getopt-like pass as
//! iptables does (commands may stand anywhere among the rule options).

use super::error::ParseError;
use super::ext::{NoSets, SetIndex};
use super::parse::Parser;
use super::spec::RuleSpec;
use super::IpFamily;

pub use super::cmdline::{check_chain_name, Command, CommandLine};

/// Parses a whole iptables command line (without the program name).
pub fn parse_command<S: AsRef<str>>(
    family: IpFamily,
    args: &[S],
) -> Result<CommandLine, ParseError> {
    parse_command_with(family, args, &NoSets)
}

/// [`parse_command`] with the ipsets the rule names checked against `sets`.
pub fn parse_command_with<S: AsRef<str>>(
    family: IpFamily,
    args: &[S],
    sets: &dyn SetIndex,
) -> Result<CommandLine, ParseError> {
    let args: Vec<&str> = args.iter().map(|s| s.as_ref()).collect();
    parse_command_words(family, &args, sets, Words::CommandLine)
}

/// What the words given to [`parse_command_words`] are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Words {
    /// A command line: the [`CommandLine`] is filled whole.
    CommandLine,
    /// A line of restore input, which has only its commands and rules read: the table is
    /// left empty (a restore line gives none) and so are the rule option letters (which
    /// are still checked). `may_hold_nul` is false when the line holds no NUL byte (searched
    /// once for the whole line, rather than word by word).
    RestoreLine { may_hold_nul: bool },
}

/// [`parse_command_with`] of words as they are.
pub(crate) fn parse_command_words(
    family: IpFamily,
    args: &[&str],
    sets: &dyn SetIndex,
    words: Words,
) -> Result<CommandLine, ParseError> {
    let mut p = Parser::new(family, sets);
    p.cmd = Some(CommandLine {
        table: match words {
            Words::CommandLine => "filter".into(),
            Words::RestoreLine { .. } => String::new(),
        },
        ..CommandLine::default()
    });
    match words {
        Words::RestoreLine {
            may_hold_nul: false,
        } => p.parse_nul_free(args)?,
        _ => p.parse(args)?,
    }
    let mut cmd = p.cmd.take().unwrap_or_default();
    if words == Words::CommandLine {
        cmd.rule_options = p.rule_option_letters().collect();
    }
    let illegal = p.rule_option_letters().next();
    let rules = p.finish()?;
    match (cmd.commands.as_slice(), illegal) {
        ([], _) => return Err(ParseError::Invalid("no command specified".into())),
        ([c], _) if c.takes_rule() => cmd.rules = rules,
        (_, Some(letter)) => {
            return Err(ParseError::Invalid(format!(
                "Illegal option `-{letter}' with this command"
            )));
        }
        _ => {}
    }
    Ok(cmd)
}

/// What iptables says of a `-t` in a restore line (its program name is the restore's:
/// `iptables-restore`, `ip6tables-restore`).
///
/// ```
/// use iptnl::ipt::command::table_option_refused;
/// use iptnl::ipt::IpFamily;
/// assert_eq!(
///     table_option_refused(IpFamily::V6),
///     "The -t option cannot be used in ip6tables-restore."
/// );
/// ```
pub fn table_option_refused(family: IpFamily) -> String {
    let prog = match family {
        IpFamily::V4 => "iptables-restore",
        IpFamily::V6 => "ip6tables-restore",
    };
    format!("The -t option cannot be used in {prog}.")
}

/// iptables' refusal of DROP in the nat table (a rule's target or `-P`), on the command line
/// and in a restore line (not a chain line: `:PREROUTING DROP` is taken), with its empty
/// lines.
pub const NAT_DROP: &str = "\nThe \"nat\" table is not intended for filtering, the use of DROP is therefore inhibited.\n\n";

/// Whether a command of `table` uses DROP where iptables refuses it ([`NAT_DROP`]): a rule's
/// target or `-P` in the nat table.
///
/// ```
/// use iptnl::ipt::command::drops_in_nat;
/// use iptnl::ipt::{parse_command, IpFamily};
/// let c = parse_command(IpFamily::V4, &["-t", "nat", "-A", "PREROUTING", "-j", "DROP"]).unwrap();
/// assert!(drops_in_nat(&c.table, &c.commands[0], &c.rules));
/// ```
pub fn drops_in_nat(table: &str, cmd: &Command, rules: &[RuleSpec]) -> bool {
    use super::spec::RuleTarget;
    if table != "nat" {
        return false;
    }
    match cmd {
        Command::Policy { policy, .. } => policy == "DROP",
        _ => rules.iter().any(|r| r.target == Some(RuleTarget::Drop)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<CommandLine, ParseError> {
        parse_command(IpFamily::V4, args)
    }

    #[test]
    fn commands_and_operands() {
        let c = p(&["-A", "INPUT", "-s", "1.2.3.4", "-j", "DROP"]).unwrap();
        assert_eq!(
            c.commands,
            vec![Command::Append {
                chain: "INPUT".into()
            }]
        );
        assert_eq!(c.rules.len(), 1);
        let c = p(&["-s", "1.2.3.4", "-A", "INPUT"]).unwrap();
        assert_eq!(c.rules[0].to_save_args(), "-s 1.2.3.4/32");
        assert_eq!(
            p(&["-D", "INPUT", "3"]).unwrap().commands,
            vec![Command::Delete {
                chain: "INPUT".into(),
                rulenum: Some(3)
            }]
        );
        assert_eq!(
            p(&["-I", "INPUT"]).unwrap().commands,
            vec![Command::Insert {
                chain: "INPUT".into(),
                rulenum: 1
            }]
        );
        assert_eq!(
            p(&["-L"]).unwrap().commands,
            vec![Command::List {
                chain: None,
                rulenum: None
            }]
        );
        assert_eq!(
            p(&["-L", "INPUT", "2", "-n", "-v", "--line-numbers"])
                .unwrap()
                .commands,
            vec![Command::List {
                chain: Some("INPUT".into()),
                rulenum: Some(2)
            }]
        );
        assert_eq!(p(&["-L", "-Z"]).unwrap().commands.len(), 2);
        assert_eq!(
            p(&["--list-rules", "FOO"]).unwrap().commands,
            vec![Command::ListRules {
                chain: Some("FOO".into()),
                rulenum: None
            }]
        );
        assert_eq!(
            p(&["-E", "A", "B"]).unwrap().commands,
            vec![Command::RenameChain {
                old: "A".into(),
                new: "B".into()
            }]
        );
        assert_eq!(
            p(&["-P", "INPUT", "DROP"]).unwrap().commands,
            vec![Command::Policy {
                chain: "INPUT".into(),
                policy: "DROP".into()
            }]
        );
        let c = p(&["-w", "-W", "100000", "-S"]).unwrap();
        assert_eq!((c.wait, c.wait_interval), (Some(None), Some(100000)));
        assert_eq!(p(&["-t", "nat", "-F"]).unwrap().table, "nat");
        assert_eq!(p(&["-vvv", "-L"]).unwrap().verbose, 3);
        assert_eq!(
            p(&["-AINPUT", "-jACCEPT"]).unwrap().commands,
            vec![Command::Append {
                chain: "INPUT".into()
            }]
        );
    }

    #[test]
    fn errors() {
        assert!(p(&[]).is_err());
        assert!(p(&["-A", "INPUT", "-D", "INPUT"]).is_err());
        assert!(p(&["-L", "-p", "tcp"]).is_err());
        assert!(p(&["-R", "INPUT"]).is_err());
        assert!(p(&["-D", "INPUT", "0"]).is_err());
        assert!(p(&["-N", "ACCEPT"]).is_err());
        assert!(p(&["-N", "a-very-long-chain-name-over-28-chars"]).is_err());
        assert!(p(&["-A"]).is_err());
        // `-t` twice: the last one counts, as with iptables 1.8.9 and 1.8.11.
        assert_eq!(
            p(&["-t", "nat", "-t", "filter", "-L"]).unwrap().table,
            "filter"
        );
        assert_eq!(
            p(&["-t", "filter", "-L", "UPnP", "-t", "nat", "-n"])
                .unwrap()
                .table,
            "nat"
        );
        // In a rule spec alone, commands are unknown options.
        assert!(super::super::parse_rule(IpFamily::V4, &["-A", "INPUT"]).is_err());
    }
}
