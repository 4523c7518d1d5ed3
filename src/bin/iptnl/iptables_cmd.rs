//! The `iptables` / `ip6tables` command (also `iptables-nft`, `iptnl iptables …`) on top of
//! `iptnl::ipt::parse_command` and the `IpTables` handle: commands `-A -C -D -I -R -S -F -Z
//! -N -X -E -P`, `-V`, `-h`, with iptables-nft 1.8.9's messages and exit codes (0; 1 for
//! refused operations, `NAME: Reason.`; 2 for usage errors, with the `Try ...` line; 3 for an
//! unknown table; 4 for a chain the kernel will not delete). `-L` prints iptables' table,
//! the options column in each extension's own words (its `print`, see
//! [`iptnl::ipt::ext::list_options`]), with service, host, network and user names unless
//! `-n` (from the files in /etc only; no DNS).

use iptnl::ipt::command::{drops_in_nat, NAT_DROP};
use iptnl::ipt::tables::{find_table, is_foreign_base_chain};
use iptnl::ipt::{parse_command_with, Command, CommandLine, IpFamily, ParseError, RuleTarget};
use iptnl::iptables::ipset::KernelSets;
use iptnl::iptables::{Error, IpTables};
use std::sync::{Arc, Mutex};

use crate::output::Output;

mod errors;
mod exec;
mod help;
mod list;

pub(crate) use errors::missing_module_warning_on;
use errors::*;
use exec::*;
use help::*;

pub(crate) use list::print_rule_line;
use list::{list, list_rules, lists_raw, raw_warning};

/// The program name iptables-nft uses in messages (whatever it was called as).
pub fn name(family: IpFamily) -> &'static str {
    match family {
        IpFamily::V4 => "iptables",
        IpFamily::V6 => "ip6tables",
    }
}

/// Whether `-w`/`--wait` is followed by a value that is not a number (iptables takes the
/// next argument as the wait time when it does not start with `-` or `!`).
fn bad_wait(args: &[String]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        let v = if a == "-w" || a == "--wait" {
            match args.get(i + 1) {
                Some(v) if !v.starts_with('-') && !v.starts_with('!') => v.as_str(),
                _ => return false,
            }
        } else if let Some(v) = a.strip_prefix("--wait=") {
            v
        } else {
            return false;
        };
        v.parse::<i32>().is_err()
    })
}

/// The arguments without `-c P B` / `--set-counters P B` when the command is `-P`.
fn without_counters(args: &[String]) -> Option<Vec<String>> {
    if !args.iter().any(|a| a == "-P" || a == "--policy") {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "-c" || args[i] == "--set-counters" {
            // `-c P,B` is one word, `-c P B` two.
            let joined = args.get(i + 1).is_some_and(|v| v.contains(','));
            i += if joined { 2 } else { 3 };
            continue;
        }
        out.push(args[i].clone());
        i += 1;
    }
    Some(out)
}

/// The kernel handles commands run on, one per family, opened on first use. A command
/// line run in its own process uses a fresh, private session; `iptnl serve` shares one
/// between all the commands it runs at once, so its netlink sockets (and its cache) live on
/// between commands, and writes that arrive together share a kernel commit (the handles'
/// group commit).
#[derive(Debug, Default)]
pub struct Session {
    v4: Mutex<Option<Arc<IpTables>>>,
    v6: Mutex<Option<Arc<IpTables>>>,
    /// Shared by concurrent commands: their handles follow the kernel's events, and a
    /// command's `-w` does not bound the shared handle's reads.
    shared: bool,
    /// The reader floor of the handles (the kernel's default when `None`).
    floor: Mutex<Option<iptnl::ipt::ReaderFloor>>,
    /// The in-memory ruleset the handles work on instead of the kernel (`iptnl serve
    /// --memory`).
    memory: Option<iptnl::memory::Ruleset>,
}

impl Session {
    /// A session shared by the commands of a resident server.
    pub fn shared() -> Session {
        Session {
            shared: true,
            ..Session::default()
        }
    }

    /// A shared session on an in-memory ruleset of its own, kept for the server's life.
    pub fn memory() -> Session {
        Session {
            shared: true,
            memory: Some(iptnl::memory::Ruleset::new()),
            ..Session::default()
        }
    }

    /// Whether the handles work on an in-memory ruleset instead of the kernel's.
    pub fn is_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// A private session on the same ruleset: the kernel's, or this session's in-memory one
    /// (for a command that must run with handles of its own).
    pub fn private_beside(&self) -> Session {
        Session {
            memory: self.memory.clone(),
            ..Session::default()
        }
    }

    fn slot(&self, family: IpFamily) -> &Mutex<Option<Arc<IpTables>>> {
        match family {
            IpFamily::V4 => &self.v4,
            IpFamily::V6 => &self.v6,
        }
    }

    /// Sets the reader floor of the handles this session opens from now on.
    pub fn set_reader_floor(&self, floor: Option<iptnl::ipt::ReaderFloor>) {
        *self.floor.lock().unwrap_or_else(|p| p.into_inner()) = floor;
    }

    /// The handle for `family`, opened now if this session has none yet.
    pub(crate) fn handle(&self, family: IpFamily) -> Result<Arc<IpTables>, Error> {
        let mut slot = self.slot(family).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = &*slot {
            return Ok(h.clone());
        }
        let h = Arc::new(match &self.memory {
            Some(r) => IpTables::from_conn(family, r.conn()),
            None => IpTables::new(family)?,
        });
        if let Some(f) = *self.floor.lock().unwrap_or_else(|p| p.into_inner()) {
            h.set_reader_floor(f);
        }
        if self.shared {
            h.set_follow_events(true);
        }
        *slot = Some(h.clone());
        Ok(h)
    }

    /// Forgets the handles: the next command opens fresh ones (commands running meanwhile
    /// keep theirs).
    pub fn reset(&self) {
        for f in [IpFamily::V4, IpFamily::V6] {
            *self.slot(f).lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }

    /// The commit and event-following figures of the handles opened so far (IPv4, then
    /// IPv6).
    pub fn commit_stats(
        &self,
    ) -> Vec<(
        IpFamily,
        iptnl::iptables::CommitStats,
        iptnl::iptables::FollowStats,
    )> {
        [IpFamily::V4, IpFamily::V6]
            .into_iter()
            .filter_map(|f| {
                let h = self
                    .slot(f)
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                h.map(|h| (f, h.commit_stats(), h.follow_stats()))
            })
            .collect()
    }
}

/// iptables / ip6tables, run in this process.
pub fn main(family: IpFamily, args: &[String]) -> i32 {
    execute(family, args, &Session::default()).print()
}

/// The exit code and message of a command line whose reader floor (option or environment)
/// is not one, printed as iptables prints a usage error.
pub fn usage_fail(family: IpFamily, msg: &str) -> i32 {
    let f = usage_err(family, msg);
    eprintln!("{}", f.text);
    f.code
}

/// The reader floor a command line gives (`--reader-floor`, see `floor_opt`) and the line
/// without it.
pub fn floor_of(args: &[String]) -> Result<(Vec<String>, Option<iptnl::ipt::ReaderFloor>), String> {
    crate::floor_opt::take(args, takes_value)
}

/// Runs one `iptables`/`ip6tables` command line on the session's handles and returns what
/// it prints and its exit code. A `--reader-floor` on the line sets the floor of a session
/// of its own (a server declines a line whose floor differs from its own before this).
pub fn execute(family: IpFamily, args: &[String], session: &Session) -> Output {
    let mut o = Output::default();
    let (args, floor) = match floor_of(args) {
        Ok(x) => x,
        Err(e) => {
            let f = usage_err(family, e);
            o.err(&f.text);
            o.err("\n");
            o.code = f.code;
            return o;
        }
    };
    if floor.is_some() && !session.shared {
        session.set_reader_floor(floor);
    }
    let args = &args[..];
    o.code = match run(family, args, session, &mut o) {
        Ok(()) => 0,
        Err(f) => {
            if !f.text.is_empty() {
                o.err(&f.text);
                o.err("\n");
            }
            f.code
        }
    };
    o
}

fn run(family: IpFamily, args: &[String], session: &Session, o: &mut Output) -> Result<(), Fail> {
    // -h / -V win over everything else on the line, as in iptables (parsed in order),
    // unless they are the value of the option before them (`--comment -V`).
    for (i, a) in args.iter().enumerate() {
        if i > 0 && takes_value(&args[i - 1]) {
            continue;
        }
        match a.as_str() {
            "-h" | "--help" => {
                let mut text = help(family);
                text.push_str(&extension_helps(family, &args[..i])?);
                o.out(&text);
                return Ok(());
            }
            "-V" | "--version" => {
                o.out(&version(family));
                return Ok(());
            }
            _ => {}
        }
    }
    if bad_wait(args) {
        return Err(usage_err(family, "wait seconds not numeric"));
    }
    let cmd = match parse_command_with(family, args, &KernelSets) {
        Ok(c) => c,
        // `-P chain policy -c pkts bytes` sets the chain's counters in iptables; iptnl takes
        // the policy and leaves the counters alone.
        Err(ParseError::Invalid(m))
            if m == "Illegal option `-c' with this command" && without_counters(args).is_some() =>
        {
            let rest = without_counters(args).unwrap_or_default();
            match parse_command_with(family, &rest, &KernelSets) {
                Ok(c) => c,
                Err(e) => return Err(usage_err(family, parse_msg(&e))),
            }
        }
        Err(ParseError::MissingValue { option })
            if option == "-W" || option == "--wait-interval" =>
        {
            return Err(usage_err(family, "wait interval value required"))
        }
        Err(ParseError::UnknownOption { option })
            if family == IpFamily::V6 && (option == "-f" || option == "--fragment") =>
        {
            return Err(usage_err(
                family,
                "`-f' is not supported in IPv6, use -m frag instead",
            ))
        }
        Err(e) => {
            let msg = parse_msg(&e);
            o.err(&load_warning(family, args, &msg));
            return Err(usage_err(family, msg));
        }
    };
    // libxt_NFLOG warns when it parses --nflog-range (and ignores the value).
    if args.iter().any(|a| a == "--nflog-range")
        && cmd
            .rules
            .iter()
            .any(|r| matches!(&r.target, Some(RuleTarget::Ext(t)) if t.save_name() == "NFLOG"))
    {
        o.err("warn: --nflog-range has never worked and is no longer supported, please use --nflog-size instead\n");
    }
    // -4 in ip6tables, -6 in iptables: only the `Try' line.
    if cmd.family_switch.is_some_and(|f| f != family) {
        let n = name(family);
        return Err(Fail {
            code: 2,
            text: format!("Try `{n} -h' or '{n} --help' for more information."),
        });
    }
    if cmd.wait_interval.is_some() {
        o.err("Ignoring deprecated --wait-interval option.\n");
        if cmd.wait.is_none() {
            return Err(usage_err(
                family,
                "--wait-interval only makes sense with --wait\n",
            ));
        }
    }
    check_options(family, &cmd)?;
    check_interfaces(family, &cmd)?;
    if find_table(&cmd.table).is_none() {
        return Err(Fail {
            code: 3,
            text: format!(
                "{}: table '{}' does not exist\nPerhaps {} or your kernel needs to be upgraded.",
                prefix(family),
                cmd.table,
                name(family)
            ),
        });
    }
    if let [c @ Command::Policy { .. }] = cmd.commands.as_slice() {
        if drops_in_nat(&cmd.table, c, &cmd.rules) {
            return Err(usage_err(family, NAT_DROP));
        }
    }
    // Other spellings (abbreviated long options) of -V and -h.
    match cmd.commands.as_slice() {
        [Command::Version] => {
            o.out(&version(family));
            return Ok(());
        }
        [Command::Help] => {
            o.out(&help(family));
            return Ok(());
        }
        _ => {}
    }
    if cmd
        .commands
        .iter()
        .any(|c| drops_in_nat(&cmd.table, c, &cmd.rules))
    {
        return Err(usage_err(family, NAT_DROP));
    }
    let ipt = session.handle(family).map_err(|e| kernel_err(family, &e))?;
    let ipt = &*ipt;
    // `-w N` bounds how long a read retries while others write (no limit without it, with
    // `-w` alone or `-w 0`). A shared handle's reads are not bounded per command.
    if !session.shared {
        if let Some(Some(secs @ 1..)) = cmd.wait {
            ipt.set_read_budget(Some(std::time::Duration::from_secs(u64::from(secs))));
        }
    }
    if cmd.verbose > 0 {
        if let [Command::Append { .. }] = cmd.commands.as_slice() {
            for r in &cmd.rules {
                o.out(&print_rule_line(family, r));
            }
        }
    }
    // `-L`/`-S` with `-Z`: iptables keeps one chain and one rule number for both commands
    // (the last given), lists first and zeroes after.
    let (p_chain, p_rulenum) = cmd
        .commands
        .iter()
        .fold((None, None), |(ch, n), c| match c {
            Command::List { chain, rulenum }
            | Command::ListRules { chain, rulenum }
            | Command::Zero { chain, rulenum } => (chain.clone().or(ch), rulenum.or(n)),
            _ => (ch, n),
        });
    let mut commands: Vec<Command> = cmd.commands.clone();
    if commands.len() > 1 {
        commands.sort_by_key(|c| matches!(c, Command::Zero { .. }));
        for c in &mut commands {
            match c {
                Command::List { chain, rulenum } | Command::ListRules { chain, rulenum } => {
                    *chain = p_chain.clone();
                    *rulenum = p_rulenum;
                }
                Command::Zero { chain, .. } => *chain = p_chain.clone(),
                _ => {}
            }
        }
    }
    for c in &commands {
        // A table that holds base chains iptables cannot express: iptables 1.8.11 says so
        // in the first line of a listing that reads them (the whole table, or the chain
        // listed, as its cache holds only that chain). `-S` cannot show such a chain as rule
        // lines (a tool would take them for its own); `-L` and save show them and their
        // rules.
        let listed = match c {
            Command::List { chain, .. } | Command::ListRules { chain, .. } => Some(chain),
            _ => None,
        };
        let tainted = match listed {
            None => false,
            Some(None) => !ipt
                .foreign_base_chains(&cmd.table)
                .map_err(|e| kernel_err(family, &e))?
                .is_empty(),
            Some(Some(name)) => ipt
                .with_conn(|conn| iptnl::nft::get_chain(conn, family.nft(), &cmd.table, name))
                .map_err(|e| Fail {
                    code: 4,
                    text: format!("{}: {e}", prefix(family)),
                })?
                .is_some_and(|ch| is_foreign_base_chain(&cmd.table, &ch)),
        };
        if tainted {
            o.out(&format!(
                "# Table `{}' contains incompatible base-chains, use 'nft' tool to list them.\n",
                cmd.table
            ));
        }
        let text = exec(family, ipt, &cmd, c)?;
        if matches!(c, Command::List { .. } | Command::ListRules { .. }) && lists_raw(&text) {
            o.err(&raw_warning(family, &cmd.table));
        }
        o.out_text(text);
    }
    // With -v, the rules of a rule command are printed: before it runs for -A (iptables-nft
    // prints them before the kernel refuses a missing chain), once it succeeded otherwise.
    if cmd.verbose > 0
        && cmd.commands.len() == 1
        && cmd.commands[0].takes_rule()
        && !matches!(cmd.commands[0], Command::Append { .. })
    {
        for r in &cmd.rules {
            o.out(&print_rule_line(family, r));
        }
    }
    Ok(())
}

/// Options that iptables refuses with a command (its `commands_v_options` table), for the
/// options iptnl's parser leaves to the caller: `-n`, `-x`, `--line-numbers` (shown as
/// `-0`) outside of `-L`, and `-c` with `-D`/`-C`.
fn check_options(family: IpFamily, cmd: &CommandLine) -> Result<(), Fail> {
    let listing = cmd
        .commands
        .iter()
        .any(|c| matches!(c, Command::List { .. }));
    let illegal =
        |opt: &str| usage_err(family, format!("Illegal option `{opt}' with this command"));
    if !listing {
        if cmd.numeric {
            return Err(illegal("-n"));
        }
        if cmd.exact {
            return Err(illegal("-x"));
        }
        if cmd.line_numbers {
            return Err(illegal("-0"));
        }
    }
    if let [Command::Delete { .. } | Command::Check { .. }] = cmd.commands.as_slice() {
        if cmd.rule_options.contains(&'c') {
            return Err(illegal("-c"));
        }
    }
    Ok(())
}

/// `-o` cannot match in PREROUTING/INPUT, `-i` not in POSTROUTING/OUTPUT (checked by name,
/// whatever the table, as iptables does).
fn check_interfaces(family: IpFamily, cmd: &CommandLine) -> Result<(), Fail> {
    let chain = match cmd.commands.as_slice() {
        [Command::Append { chain }
        | Command::Check { chain }
        | Command::Insert { chain, .. }
        | Command::Replace { chain, .. }
        | Command::Delete { chain, .. }] => chain.as_str(),
        _ => return Ok(()),
    };
    let bad = match chain {
        "PREROUTING" | "INPUT" => 'o',
        "POSTROUTING" | "OUTPUT" => 'i',
        _ => return Ok(()),
    };
    if cmd.rule_options.contains(&bad) {
        return Err(usage_err(
            family,
            format!("Can't use -{bad} with {chain}\n"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_texts() {
        let h4 = help(IpFamily::V4);
        assert!(h4.starts_with("iptables v1.8.11 (nf_tables)\n\nUsage: iptables -[ACD]"));
        assert!(h4.contains("--fragment"));
        let h6 = help(IpFamily::V6);
        assert!(h6.contains("       ip6tables -E old-chain-name new-chain-name\n"));
        assert!(h6.contains("-4\t\tError (line is ignored by ip6tables-restore)"));
        assert!(!h6.contains("--fragment"));
    }

    #[test]
    fn help_only_as_an_option() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let o = execute(
            IpFamily::V4,
            &s(&["-h", "-A", "INPUT"]),
            &Session::default(),
        );
        assert_eq!(o.code, 0);
        assert!(o
            .text(crate::output::Stream::Out)
            .starts_with("iptables v1.8.11"));
        assert!(takes_value("--comment"));
        assert!(takes_value("-s"));
        assert!(!takes_value("--line-numbers"));
        assert!(!takes_value("--wait=3"));
    }

    #[test]
    fn wait_values() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(bad_wait(&s(&["-w", "abc", "-S"])));
        assert!(!bad_wait(&s(&["-w", "5", "-S"])));
        assert!(!bad_wait(&s(&["-w", "-S"])));
        assert!(bad_wait(&s(&["--wait=x", "-S"])));
    }
}
