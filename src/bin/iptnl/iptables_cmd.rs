//! The `iptables` / `ip6tables` command (also `iptables-nft`, `iptnl iptables …`) on top of
//! `iptnl::ipt::parse_command` and the `IpTables` handle: commands `-A -C -D -I -R -S -F -Z
//! -N -X -E -P`, `-V`, `-h`, with iptables-nft 1.8.9's messages and exit codes (0; 1 for
//! refused operations, `NAME: Reason.`; 2 for usage errors, with the `Try ...` line; 3 for an
//! unknown table; 4 for a chain the kernel will not delete). `-L` prints iptables' table,
//! the options column in each extension's own words (its `print`, see
//! [`iptnl::ipt::ext::list_options`]), with service, host, network and user names unless
//! `-n` (from the files in /etc only; no DNS).

use iptnl::ipt::command::{drops_in_nat, NAT_DROP};
use iptnl::ipt::savefile::SAVE_VERSION;
use iptnl::ipt::tables::{find_table, is_foreign_base_chain};
use iptnl::ipt::{
    parse_command_with, Command, CommandLine, IpFamily, ParseError, RuleSpec, RuleTarget,
};
use iptnl::iptables::ipset::KernelSets;
use iptnl::iptables::{Error, IpTables, What};
use iptnl::nft::Policy;
use std::sync::{Arc, Mutex};

use crate::output::{Output, Text};

mod list;

pub(crate) use list::print_rule_line;
use list::{list, list_rules, lists_raw, raw_warning};

const HELP: &str = include_str!("iptables_help.txt");

/// What a failed command prints and returns.
struct Fail {
    code: i32,
    text: String,
}

/// The program name iptables-nft uses in messages (whatever it was called as).
pub fn name(family: IpFamily) -> &'static str {
    match family {
        IpFamily::V4 => "iptables",
        IpFamily::V6 => "ip6tables",
    }
}

/// `NAME v1.8.11 (nf_tables)`.
fn prefix(family: IpFamily) -> String {
    format!("{} {SAVE_VERSION} (nf_tables)", name(family))
}

/// A parameter problem: exit 2, the message with the version prefix and the `Try` line.
fn usage_err(family: IpFamily, msg: impl std::fmt::Display) -> Fail {
    let n = name(family);
    let msg = msg.to_string();
    if msg.starts_with("Bad argument `") {
        // iptables prints this one without the program prefix.
        return Fail {
            code: 2,
            text: format!("{msg}\nTry `{n} -h' or '{n} --help' for more information."),
        };
    }
    // Extension option checks end in a newline of their own.
    let msg = if iptnl::ipt::error::ends_with_newline(&msg) {
        format!("{msg}\n")
    } else {
        msg
    };
    Fail {
        code: 2,
        text: format!(
            "{}: {msg}\nTry `{n} -h' or '{n} --help' for more information.",
            prefix(family)
        ),
    }
}

/// A parse error in iptables' words: values are reported without the option name, and an
/// unknown extension as `Couldn't load match `x':No such file or directory` (and a newline).
fn parse_msg(e: &ParseError) -> String {
    match e {
        ParseError::BadValue { reason, .. } => reason.clone(),
        ParseError::UnknownExtension { kind, name } => {
            format!("Couldn't load {kind} `{name}':No such file or directory\n")
        }
        e => e.to_string(),
    }
}

/// A refused operation: exit 1, `NAME: Reason.`.
fn op_err(family: IpFamily, msg: &str) -> Fail {
    Fail {
        code: 1,
        text: format!("{}: {msg}", name(family)),
    }
}

const NO_CHAIN: &str = "No chain/target/match by that name.";
const BAD_RULE: &str = "Bad rule (does a matching rule exist in that chain?).";

/// The help text, as `iptables -h` prints it.
fn help(family: IpFamily) -> String {
    let mut out = format!("{}\n", prefix(family));
    for line in HELP.lines() {
        let line = match family {
            IpFamily::V4 => line.to_owned(),
            IpFamily::V6 => {
                if line.contains("--fragment") {
                    continue;
                }
                if line.starts_with("Usage: iptables") || line.starts_with("       iptables") {
                    line.replacen("iptables", "ip6tables", 1)
                } else if line.starts_with("    --ipv4") {
                    line.replace("Nothing", "Error")
                } else if line.starts_with("    --ipv6") {
                    line.replace("Error", "Nothing")
                } else {
                    line.to_owned()
                }
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether an option takes the next argument as its value (long options other than the
/// flags, and iptables' short options with a value).
fn takes_value(opt: &str) -> bool {
    const FLAGS: &[&str] = &[
        "--verbose",
        "--numeric",
        "--exact",
        "--line-numbers",
        "--wait",
        "--ipv4",
        "--ipv6",
        "--fragment",
        "--syn",
        "--help",
        "--version",
        "--list",
        "--list-rules",
        "--flush",
        "--zero",
        "--delete-chain",
    ];
    if let Some(long) = opt.strip_prefix("--") {
        return !long.contains('=') && !FLAGS.contains(&opt);
    }
    matches!(
        opt,
        "-s" | "-d"
            | "-p"
            | "-i"
            | "-o"
            | "-j"
            | "-g"
            | "-m"
            | "-t"
            | "-A"
            | "-C"
            | "-D"
            | "-I"
            | "-R"
            | "-N"
            | "-E"
            | "-P"
            | "-c"
            | "-W"
            | "-M"
    )
}

/// The option sections iptables prints after its help for the extensions named before
/// `-h`: the `-j` target's first, then each `-m` match in order (or, with no `-m`, the
/// match of the `-p` protocol name), each after a blank line.
fn extension_helps(family: IpFamily, before: &[String]) -> Result<String, Fail> {
    use iptnl::ipt::ext::{self, help, ExtKind};
    let mut matches = Vec::new();
    let mut target = None;
    let mut proto = None;
    let mut i = 0;
    while i < before.len() {
        let a = before[i].as_str();
        let value = |long: &str, short: &str| -> Option<(String, usize)> {
            if a == long || a == short {
                before.get(i + 1).map(|v| (v.clone(), 2))
            } else if let Some(v) = a.strip_prefix(&format!("{long}=")) {
                Some((v.to_owned(), 1))
            } else {
                a.strip_prefix(short)
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
                    .map(|v| (v.to_owned(), 1))
            }
        };
        if let Some((v, n)) = value("--match", "-m") {
            matches.push(v);
            i += n;
        } else if let Some((v, n)) = value("--jump", "-j") {
            target = Some(v);
            i += n;
        } else if let Some((v, n)) = value("--protocol", "-p") {
            proto = Some(v.to_ascii_lowercase());
            i += n;
        } else {
            i += if takes_value(a) { 2 } else { 1 };
        }
    }
    let mut out = String::new();
    match target.as_deref() {
        Some("ACCEPT" | "DROP" | "RETURN") => {
            out.push('\n');
            out.push_str(help::STANDARD);
        }
        Some(t) => {
            if let Some(h) = help::help(ExtKind::Target, t, family) {
                out.push('\n');
                out.push_str(h);
            }
        }
        None => {}
    }
    if matches.is_empty() {
        // libxtables loads the ICMPv6 match under any of its protocol's names.
        let proto = match proto.as_deref() {
            Some("ipv6-icmp" | "icmpv6") if family == IpFamily::V6 => Some("icmp6".to_owned()),
            _ => proto,
        };
        if let Some(h) = proto.and_then(|p| help::help(ExtKind::Match, &p, family)) {
            out.push('\n');
            out.push_str(h);
        }
    }
    for m in &matches {
        if ext::find(ExtKind::Match, m, family).is_none() {
            return Err(usage_err(
                family,
                parse_msg(&ParseError::UnknownExtension {
                    kind: "match",
                    name: m.clone(),
                }),
            ));
        }
        if let Some(h) = help::help(ExtKind::Match, m, family) {
            out.push('\n');
            out.push_str(h);
        }
    }
    Ok(out)
}

/// `iptables v1.8.11 (nf_tables) (iptnl X.Y.Z)`: go-iptables reads the version with
/// `v([0-9]+)\.([0-9]+)\.([0-9]+)` and the mode from `(nf_tables)`.
fn version(family: IpFamily) -> String {
    format!("{} (iptnl {})\n", prefix(family), env!("CARGO_PKG_VERSION"))
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

/// An error the kernel layer reported, in iptables' words where it has some.
fn kernel_err(family: IpFamily, e: &Error) -> Fail {
    match e.root() {
        Error::Permission { .. } => Fail {
            code: 4,
            text: format!(
                "{}: Could not fetch rule set generation id: Permission denied (you must be root)",
                prefix(family)
            ),
        },
        Error::InvalidSpec(p) => usage_err(family, parse_msg(p)),
        Error::ExtensionUnavailable(m) => usage_err(family, m),
        Error::ChainInUse { chain, .. } | Error::NotEmpty { chain, .. } => busy(family, chain),
        Error::NotFound { .. } => op_err(family, NO_CHAIN),
        Error::AlreadyExists { .. } => op_err(family, "Chain already exists."),
        other => nft_fail(family, other),
    }
}

/// A rule the kernel refused as invalid (an x_tables extension's check: a protocol it needs,
/// a table or chain it cannot be in), in iptables-nft's words (` RULE_APPEND failed (Invalid
/// argument): rule in chain INPUT`, exit 4); other errors as [`kernel_err`].
fn rule_err(family: IpFamily, ipt: &IpTables, what: &str, chain: &str, e: Error) -> Fail {
    match e {
        Error::Kernel {
            errno: libc::EINVAL,
            ..
        } => Fail {
            code: 4,
            text: format!(
                "{}:  {what} failed (Invalid argument): rule in chain {chain}",
                prefix(family)
            ),
        },
        Error::ExtensionUnavailable(m) => Fail {
            code: 4,
            text: format!(
                "{}{}:  {what} failed (No such file or directory): rule in chain {chain}",
                missing_module_warning(family, ipt, &m),
                prefix(family)
            ),
        },
        e => kernel_err(family, &e),
    }
}

/// iptables-nft's warning for an x_tables extension the kernel has no revision of at all
/// (`Warning: Extension LED revision 0 not supported, missing kernel module?`, on its own
/// line), or nothing when the kernel has the extension and only its check refused the rule
/// (`SECMARK` without SELinux). `reason` is the kernel layer's account of the refusal, which
/// names the extension as ``x_tables target `NAME' ``.
fn missing_module_warning(family: IpFamily, ipt: &IpTables, reason: &str) -> String {
    ipt.with_conn(|conn| missing_module_warning_on(family, conn, reason))
}

/// [`missing_module_warning`] asked on `conn`.
pub(crate) fn missing_module_warning_on(
    family: IpFamily,
    conn: &mut iptnl::netlink::Conn,
    reason: &str,
) -> String {
    use iptnl::nft::compat::{xt_revision, XtKind};
    let found = [
        ("x_tables target `", XtKind::Target),
        ("x_tables match `", XtKind::Match),
    ]
    .into_iter()
    .find_map(|(lead, kind)| {
        let rest = &reason[reason.find(lead)? + lead.len()..];
        Some((&rest[..rest.find('\'')?], kind))
    });
    let Some((name, kind)) = found else {
        return String::new();
    };
    match xt_revision(conn, family.nft(), name, 0, kind) {
        Ok(None) => {
            format!("Warning: Extension {name} revision 0 not supported, missing kernel module?\n")
        }
        _ => String::new(),
    }
}

/// The warning iptables prints when it loads an extension the kernel lacks (`ULOG`), before
/// it reads the extension's options: for an option error `NAME: ...` of a target or match
/// named on the line, when the kernel knows no revision of it (empty when it does, or when
/// the kernel cannot be asked).
fn load_warning(family: IpFamily, args: &[String], msg: &str) -> String {
    let Some((name, _)) = msg.split_once(": ") else {
        return String::new();
    };
    use iptnl::nft::compat::{xt_known, XtKind};
    let kind = args.windows(2).find_map(|w| match (w[0].as_str(), &w[1]) {
        ("-j" | "--jump", n) if n == name => Some(XtKind::Target),
        ("-m" | "--match", n) if n == name => Some(XtKind::Match),
        _ => None,
    });
    let Some(kind) = kind else {
        return String::new();
    };
    let known = iptnl::netlink::Conn::open()
        .map_err(iptnl::nft::Error::from)
        .and_then(|mut conn| xt_known(&mut conn, family.nft(), name, kind));
    match known {
        Ok(false) => {
            format!("Warning: Extension {name} revision 0 not supported, missing kernel module?\n")
        }
        _ => String::new(),
    }
}

/// `-X` of a chain the kernel keeps (rules in it, or jumps to it).
fn busy(family: IpFamily, chain: &str) -> Fail {
    Fail {
        code: 4,
        text: format!(
            "{}:  CHAIN_DEL failed (Device or resource busy): chain {chain}",
            prefix(family)
        ),
    }
}

/// A kernel-side failure without words of iptables' own: exit 4 with the error.
fn nft_fail(family: IpFamily, e: &dyn std::fmt::Display) -> Fail {
    Fail {
        code: 4,
        text: format!("{}: {e}", prefix(family)),
    }
}

fn is_builtin(table: &str, chain: &str) -> bool {
    find_table(table).is_some_and(|t| t.builtin(chain).is_some())
}

/// Whether the chain is in the kernel (a built-in chain is created on first use).
fn in_kernel(family: IpFamily, ipt: &IpTables, table: &str, chain: &str) -> Result<bool, Fail> {
    ipt.with_conn(|conn| iptnl::nft::get_chain(conn, family.nft(), table, chain))
        .map(|c| c.is_some())
        .map_err(|e| nft_fail(family, &e))
}

/// The names of the table's chains in the kernel.
fn kernel_chains(family: IpFamily, ipt: &IpTables, table: &str) -> Result<Vec<String>, Fail> {
    ipt.with_conn(|conn| iptnl::nft::list_chains(conn, Some(family.nft()), Some(table)))
        .map(|(v, _)| v.into_iter().map(|c| c.name).collect())
        .map_err(|e| nft_fail(family, &e))
}

/// iptables checks that a jump target exists before it talks to the kernel.
fn check_targets(
    family: IpFamily,
    ipt: &IpTables,
    table: &str,
    rules: &[RuleSpec],
) -> Result<(), Fail> {
    for r in rules {
        if let Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) = &r.target {
            if is_builtin(table, c) {
                continue;
            }
            if !ipt
                .chain_exists(table, c)
                .map_err(|e| kernel_err(family, &e))?
            {
                return Err(usage_err(family, format!("Chain '{c}' does not exist")));
            }
        }
    }
    Ok(())
}

fn exec(family: IpFamily, ipt: &IpTables, cmd: &CommandLine, c: &Command) -> Result<Text, Fail> {
    let t = cmd.table.as_str();
    let kerr = |e: Error| kernel_err(family, &e);
    match c {
        Command::Append { chain } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            let mut tx = ipt.transaction();
            for r in &cmd.rules {
                tx.append(t, chain, r.clone());
            }
            tx.commit()
                .map(|_| Text::default())
                .map_err(|e| rule_err(family, ipt, "RULE_APPEND", chain, e.into_root()))
        }
        Command::Insert { chain, rulenum } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            let mut tx = ipt.transaction();
            for r in &cmd.rules {
                // Each address pair at the same position, as iptables does (the last ends
                // up first).
                tx.insert(t, chain, *rulenum, r.clone());
            }
            tx.commit()
                .map(|_| Text::default())
                .map_err(|e| match e.into_root() {
                    Error::NotFound {
                        what: What::Rule, ..
                    } => op_err(family, "Index of insertion too big."),
                    e => rule_err(family, ipt, "RULE_INSERT", chain, e),
                })
        }
        Command::Replace { chain, rulenum } => {
            // Of an expanded `-s a,b`, the first source and the first destination, as
            // iptables 1.8.10 on replaces (1.8.9 refused the line).
            let Some(r) = cmd.rules.first() else {
                return Err(usage_err(family, "-R needs a rule"));
            };
            check_targets(family, ipt, t, std::slice::from_ref(r))?;
            ipt.replace(t, chain, *rulenum, r.clone())
                .map(|_| Text::default())
                .map_err(|e| match e {
                    Error::NotFound {
                        what: What::Rule, ..
                    } => op_err(family, "Index of replacement too big."),
                    e => rule_err(family, ipt, "RULE_REPLACE", chain, e),
                })
        }
        Command::Check { chain } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            for r in &cmd.rules {
                if !ipt.exists(t, chain, r.clone()).map_err(kerr)? {
                    return Err(op_err(family, BAD_RULE));
                }
            }
            Ok(Text::default())
        }
        Command::Delete {
            chain,
            rulenum: None,
        } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            let mut tx = ipt.transaction();
            for r in &cmd.rules {
                tx.delete(t, chain, r.clone());
            }
            tx.commit()
                .map(|_| Text::default())
                .map_err(|e| match e.into_root() {
                    Error::NotFound { .. } => op_err(family, BAD_RULE),
                    e => kerr(e),
                })
        }
        Command::Delete {
            chain,
            rulenum: Some(n),
        } => {
            if is_builtin(t, chain) && !in_kernel(family, ipt, t, chain)? {
                return Err(op_err(family, NO_CHAIN));
            }
            ipt.delete_by_number(t, chain, *n)
                .map_err(|e| match e {
                    Error::NotFound {
                        what: What::Rule, ..
                    } => op_err(family, "Index of deletion too big."),
                    e => kerr(e),
                })
                .map(|_| Text::default())
        }
        Command::ListRules { chain, rulenum } => {
            list_rules(family, ipt, t, chain.as_deref(), *rulenum, cmd.verbose > 0)
        }
        Command::List { chain, rulenum } => {
            list(family, ipt, cmd, chain.as_deref(), *rulenum).map(Text::from)
        }
        Command::Flush { chain: None } => {
            let mut out = String::new();
            if cmd.verbose > 0 {
                for ch in ipt.list_chains(t).map_err(kerr)? {
                    out.push_str(&format!("Flushing chain `{ch}'\n"));
                }
            }
            ipt.clear_all(t).map(|_| out.into()).map_err(kerr)
        }
        Command::Flush { chain: Some(chain) } => {
            if !ipt.chain_exists(t, chain).map_err(kerr)? {
                return Err(op_err(family, NO_CHAIN));
            }
            let out = if cmd.verbose > 0 {
                format!("Flushing chain `{chain}'\n")
            } else {
                String::new()
            };
            ipt.clear_chain(t, chain).map(|_| out.into()).map_err(kerr)
        }
        Command::Zero {
            chain: None,
            rulenum: _,
        } => {
            let present: std::collections::HashSet<String> =
                kernel_chains(family, ipt, t)?.into_iter().collect();
            // Every chain of the table, the built-in ones that are not in the kernel too
            // (iptables' fake built-in chains: named, with nothing to zero).
            let mut out = String::new();
            let mut zero = Vec::new();
            for ch in ipt.list_chains(t).map_err(kerr)? {
                let here = present.contains(&ch);
                if !here && !is_builtin(t, &ch) {
                    continue;
                }
                if cmd.verbose > 0 {
                    out.push_str(&format!("Zeroing chain `{ch}'\n"));
                }
                if here {
                    zero.push(ch);
                }
            }
            // Every chain in one batch; a chain deleted meanwhile leaves the others to be
            // zeroed one by one.
            let mut tx = ipt.transaction();
            for ch in &zero {
                tx.zero(t, ch, None);
            }
            match tx.commit().map_err(Error::into_root) {
                Ok(_) => {}
                Err(Error::NotFound { .. }) => {
                    for ch in &zero {
                        match ipt.zero(t, ch, None) {
                            Ok(()) | Err(Error::NotFound { .. }) => {}
                            Err(e) => return Err(kerr(e)),
                        }
                    }
                }
                Err(e) => return Err(kerr(e)),
            }
            Ok(out.into())
        }
        Command::Zero {
            chain: Some(chain),
            rulenum,
        } => {
            // A built-in chain that is not in the kernel has nothing to zero (iptables
            // zeroes a fake one).
            let (present, builtin) = if is_builtin(t, chain) {
                (in_kernel(family, ipt, t, chain)?, true)
            } else {
                (ipt.chain_exists(t, chain).map_err(kerr)?, false)
            };
            // One rule (`-Z CHAIN N`): no "Zeroing chain" line; a missing chain or rule is
            // a bad rule, as iptables 1.8.11 reports it.
            if let Some(n) = rulenum {
                if !present {
                    return Err(op_err(family, BAD_RULE));
                }
                return match ipt.zero(t, chain, Some(*n)) {
                    Ok(()) => Ok(Text::default()),
                    Err(Error::NotFound { .. }) => Err(op_err(family, BAD_RULE)),
                    Err(e) => Err(kerr(e)),
                };
            }
            if !present && !builtin {
                return Err(op_err(family, NO_CHAIN));
            }
            let out = if cmd.verbose > 0 {
                format!("Zeroing chain `{chain}'\n")
            } else {
                String::new()
            };
            if !present {
                return Ok(out.into());
            }
            match ipt.zero(t, chain, None) {
                Ok(()) | Err(Error::NotFound { .. }) => Ok(out.into()),
                Err(e) => Err(kerr(e)),
            }
        }
        Command::NewChain { chain } => {
            // Refused here, as iptables-nft refuses it from its cache: a batch the kernel
            // rejects costs an RCU grace period (the abort path), which is what
            // go-iptables' ClearChain (`-N`, then `-F` on exit 1) would pay on every call.
            if in_kernel(family, ipt, t, chain)? {
                return Err(op_err(family, "Chain already exists."));
            }
            ipt.new_chain(t, chain)
                .map(|_| Text::default())
                .map_err(kerr)
        }
        Command::DeleteChain { chain: None } => {
            let mut out = String::new();
            if cmd.verbose > 0 {
                for ch in ipt.list_chains(t).map_err(kerr)? {
                    if !is_builtin(t, &ch) {
                        out.push_str(&format!("Deleting chain `{ch}'\n"));
                    }
                }
            }
            ipt.delete_all_chains(t).map(|_| out.into()).map_err(kerr)
        }
        Command::DeleteChain { chain: Some(chain) } => {
            if is_builtin(t, chain) {
                if !in_kernel(family, ipt, t, chain)? {
                    return Err(op_err(family, NO_CHAIN));
                }
                // iptables-nft deletes an empty built-in chain with policy ACCEPT (it is
                // created again on next use); one with rules is busy, one with another
                // policy stays ("Directory not empty").
                return ipt
                    .delete_chain(t, chain)
                    .map(|()| Text::default())
                    .map_err(|e| match e {
                        Error::BuiltinKept { .. } => op_err(family, "Directory not empty."),
                        e => kerr(e),
                    });
            }
            let out = if cmd.verbose > 0 {
                format!("Deleting chain `{chain}'\n")
            } else {
                String::new()
            };
            ipt.delete_chain(t, chain).map(|_| out.into()).map_err(kerr)
        }
        Command::RenameChain { old, new } => {
            if is_builtin(t, old) {
                return Err(op_err(family, NO_CHAIN));
            }
            ipt.rename_chain(t, old, new)
                .map(|_| Text::default())
                .map_err(|e| match e {
                    Error::AlreadyExists { .. } => op_err(family, "File exists."),
                    Error::Invalid(m) => usage_err(family, m),
                    e => kerr(e),
                })
        }
        Command::Policy { chain, policy } => {
            if !is_builtin(t, chain) {
                return Err(op_err(family, "Bad built-in chain name."));
            }
            let p = match policy.as_str() {
                "ACCEPT" => Policy::Accept,
                "DROP" => Policy::Drop,
                _ => {
                    return Err(op_err(
                        family,
                        "Bad policy name. Run `dmesg' for more information.",
                    ))
                }
            };
            ipt.set_policy(t, chain, p)
                .map(|_| Text::default())
                .map_err(kerr)
        }
        Command::Version | Command::Help => Ok(Text::default()),
    }
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
