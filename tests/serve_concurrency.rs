//! Many `iptables` commands served at once by one `iptnl serve` give each command exactly
//! what iptables-nft gives it alone.
//!
//! Fifty sequences of `tests/cli.rs` (see `common/cli_seqs.rs`) run concurrently, each on a
//! thread of its own, through ONE `iptnl serve` in ONE network namespace: every step of
//! every sequence must give the stdout, stderr (after replacing the program version) and
//! exit code that `iptables-nft` (`ip6tables-nft`) gives for that sequence run by itself in
//! a fresh namespace. The server must have served every command, and its figures must show
//! writes of different commands sharing a kernel commit.
//!
//! The sequences share the namespace, so only sequences that cannot see each other qualify:
//! [`isolate`] decides, and says why a sequence is left out. A qualifying sequence names
//! user chains only (never a built-in chain, nor a command on a whole table), and every
//! chain it names gets a suffix of its own (`FOO` becomes `FOO_s17`), so no two sequences
//! name the same chain. The oracle runs the renamed sequence too, so messages that quote a
//! chain's name are compared as they are. When fewer than fifty qualify, the first ones run
//! again under other suffixes.

#[path = "common/cli_seqs.rs"]
mod cli_seqs;
mod common;

use cli_seqs::{parse_seq, protocols_as_1_8_11, run_seq, step, tools, Step, GROUPS};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// How many sequences run at once.
const COUNT: usize = 50;

/// The longest chain name iptables takes (`XT_EXTENSION_MAXNAMELEN` less its NUL).
const CHAIN_NAME_MAX: usize = 28;

/// The built-in chains of every table (whichever table a command names).
const BUILTIN_CHAINS: &[&str] = &["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"];

/// The standard verdicts, which are no chain names.
const VERDICTS: &[&str] = &["ACCEPT", "DROP", "RETURN", "QUEUE"];

/// Where a name stands in a command line: `args[token][start..]`.
#[derive(Clone, Copy, Debug)]
struct Slot {
    token: usize,
    start: usize,
}

impl Slot {
    fn name<'a>(&self, args: &'a [String]) -> &'a str {
        &args[self.token][self.start..]
    }
}

/// The names of one command line, as iptables' option parser reads them.
#[derive(Default, Debug)]
struct Names {
    /// The commands given (`A`, `L`, …, `h` and `V` included).
    commands: Vec<char>,
    /// Chain names given to the commands (`-A CHAIN`, `-E OLD NEW`, `-LCHAIN`, …).
    chains: Vec<Slot>,
    /// The targets of `-j`/`-g`.
    jumps: Vec<Slot>,
}

/// The long command options and their short letters.
const LONG_COMMANDS: &[(&str, char)] = &[
    ("--append", 'A'),
    ("--check", 'C'),
    ("--delete", 'D'),
    ("--replace", 'R'),
    ("--insert", 'I'),
    ("--new-chain", 'N'),
    ("--rename-chain", 'E'),
    ("--policy", 'P'),
    ("--list", 'L'),
    ("--list-rules", 'S'),
    ("--flush", 'F'),
    ("--zero", 'Z'),
    ("--delete-chain", 'X'),
    ("--help", 'h'),
    ("--version", 'V'),
];

/// Short options that take a value (attached or the next word), besides the commands.
const SHORT_WITH_VALUE: &str = "tmiopsdcMwWjg";

/// Short options without a value.
const SHORT_FLAGS: &str = "nvxfb46";

/// Reads a command line as iptables' getopt loop does: a word that starts with `-` is an
/// option (a value that starts with `-`, such as `--comment -V`, is read as an option too,
/// which can only add commands, so at worst a sequence is left out); the commands' chain
/// arguments, attached or the next word, and `-j`/`-g` targets are noted. An abbreviated
/// long command option is refused (not read).
fn names(args: &[String]) -> Result<Names, String> {
    let mut n = Names::default();
    // The word after `i`, when it is no option.
    let next_word = |i: usize| {
        args.get(i + 1)
            .filter(|w| !w.starts_with('-'))
            .map(|_| Slot {
                token: i + 1,
                start: 0,
            })
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if let Some(long) = a.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, inline) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            let name = format!("--{name}");
            let value = if inline {
                Some(Slot {
                    token: i,
                    start: name.len() + 1,
                })
            } else {
                None
            };
            if let Some(&(_, c)) = LONG_COMMANDS.iter().find(|(l, _)| *l == name) {
                n.commands.push(c);
                i += command_args(c, value, i, args, &mut n, next_word);
            } else if name == "--jump" || name == "--goto" {
                if let Some(s) = value.or_else(|| next_word(i)) {
                    n.jumps.push(s);
                }
            } else if LONG_COMMANDS.iter().any(|(l, _)| l.starts_with(&name)) {
                return Err(format!("abbreviated command option {a:?}"));
            }
        } else if a.len() > 1 && a.starts_with('-') {
            for (pos, c) in a.char_indices().skip(1) {
                let rest = pos + c.len_utf8();
                let attached = (rest < a.len()).then_some(Slot {
                    token: i,
                    start: rest,
                });
                if "ACDRINEPLSFZXhV".contains(c) {
                    n.commands.push(c);
                    i += command_args(c, attached, i, args, &mut n, next_word);
                    break;
                }
                if c == 'j' || c == 'g' {
                    if let Some(s) = attached.or_else(|| next_word(i)) {
                        n.jumps.push(s);
                    }
                    break;
                }
                if SHORT_WITH_VALUE.contains(c) {
                    break;
                }
                if !SHORT_FLAGS.contains(c) {
                    // An unknown option: iptables refuses the line.
                    break;
                }
            }
        }
        i += 1;
    }
    Ok(n)
}

/// Notes the chain arguments of command `c` (given attached, or as the next words) and
/// returns how many words they took after word `i`.
fn command_args(
    c: char,
    attached: Option<Slot>,
    i: usize,
    args: &[String],
    n: &mut Names,
    next_word: impl Fn(usize) -> Option<Slot>,
) -> usize {
    let mut took = 0;
    let chain = match c {
        'h' | 'V' => return 0,
        // Required: the next word whatever it is.
        'A' | 'C' | 'D' | 'R' | 'I' | 'N' | 'E' | 'P' => attached.or_else(|| {
            (i + 1 < args.len()).then(|| {
                took = 1;
                Slot {
                    token: i + 1,
                    start: 0,
                }
            })
        }),
        // Optional: attached, or the next word unless it is an option.
        _ => attached.or_else(|| next_word(i).inspect(|_| took = 1)),
    };
    if let Some(s) = chain {
        n.chains.push(s);
        if c == 'E' {
            if let Some(s) = next_word(i + took) {
                n.chains.push(s);
                took += 1;
            }
        }
    }
    took
}

/// A sequence made safe to run beside others in one namespace: its lines with every chain
/// it names renamed with `suffix`.
fn isolate(seq: &str, setup: &[&[&str]], suffix: &str) -> Result<Vec<Vec<String>>, String> {
    if !setup.is_empty() {
        return Err("needs setup commands (sets), which every sequence would share".into());
    }
    if let Some(why) = common::unmapped_owner_ids(seq) {
        return Err(why);
    }
    let mut lines = parse_seq(seq);
    let parsed: Vec<Names> = lines.iter().map(|l| names(l)).collect::<Result<_, _>>()?;
    let mut chains: Vec<String> = Vec::new();
    for (line, n) in lines.iter().zip(&parsed) {
        let on_chain = n.commands.iter().any(|c| !matches!(c, 'h' | 'V'));
        if on_chain && n.chains.is_empty() {
            return Err(format!(
                "{line:?} has a command without a chain (on a whole table)"
            ));
        }
        for s in &n.chains {
            let name = s.name(line);
            if BUILTIN_CHAINS.contains(&name) {
                return Err(format!("{line:?} names the built-in chain {name}"));
            }
            if VERDICTS.contains(&name) {
                return Err(format!("{line:?} takes the verdict {name} for a chain"));
            }
            if name.len() <= CHAIN_NAME_MAX && name.len() + suffix.len() > CHAIN_NAME_MAX {
                return Err(format!(
                    "{name}{suffix} would pass iptables' {CHAIN_NAME_MAX}-character limit"
                ));
            }
            if !chains.iter().any(|c| c == name) {
                chains.push(name.to_owned());
            }
        }
    }
    for (line, n) in lines.iter_mut().zip(&parsed) {
        // Each word holds one name at most, at its end.
        for s in n.chains.iter().chain(&n.jumps) {
            if chains.iter().any(|c| c == s.name(line)) {
                line[s.token].push_str(suffix);
            }
        }
    }
    Ok(lines)
}

/// A sequence of the suite, renamed for its place in the run.
struct Selected {
    group: &'static str,
    index: usize,
    v6: bool,
    seq: &'static str,
    lines: Vec<Vec<String>>,
}

/// The first [`COUNT`] qualifying sequences, in the order of [`GROUPS`], each with the
/// suffix `_s<place>`; when fewer qualify, they are taken again (under new suffixes) until
/// there are [`COUNT`]. Prints what was left out, and why.
fn select() -> Vec<Selected> {
    let mut qualifying = Vec::new();
    let (mut all, mut left_out) = (0, 0);
    for g in GROUPS {
        for (index, seq) in g.seqs.iter().enumerate() {
            all += 1;
            match isolate(seq, g.setup, "_s00") {
                Ok(_) => qualifying.push((g, index, *seq)),
                Err(why) => {
                    left_out += 1;
                    eprintln!("left out {}[{index}] {seq:?}: {why}", g.name);
                }
            }
        }
    }
    eprintln!(
        "{} of {all} sequences qualify ({left_out} left out)",
        qualifying.len()
    );
    assert!(!qualifying.is_empty(), "no sequence qualifies");
    (0..COUNT)
        .map(|place| {
            let (g, index, seq) = qualifying[place % qualifying.len()];
            let lines = isolate(seq, g.setup, &format!("_s{place:02}"))
                .expect("a qualifying sequence qualifies under every suffix of its length");
            eprintln!("runs {}[{index}] as {lines:?}", g.name);
            Selected {
                group: g.name,
                index,
                v6: g.v6,
                seq,
                lines,
            }
        })
        .collect()
}

/// The commit figures of the server's stats line, summed over the families:
/// (commits, operations, callers grouped).
fn commit_figures(line: &str) -> (u64, u64, u64) {
    let figure = |part: &str, word: &str| -> u64 {
        part.split(", ")
            .find_map(|f| f.trim().strip_prefix(word))
            .and_then(|v| v.split_whitespace().next())
            .map_or(0, |v| v.parse().unwrap())
    };
    line.split("; ").skip(1).fold((0, 0, 0), |(c, o, g), part| {
        let part = part.split_once(": ").map_or(part, |(_, p)| p);
        (
            c + figure(part, "commits "),
            o + figure(part, "operations "),
            g + figure(part, "callers grouped "),
        )
    })
}

#[test]
fn fifty_sequences_served_at_once_match_iptables_nft_alone() {
    if !common::have("iptables-nft") || !common::have("ip6tables-nft") {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    let t0 = std::time::Instant::now();
    let selected = select();
    // The oracle: each sequence alone, in a fresh namespace of its own.
    let want: Vec<Vec<Step>> = selected
        .iter()
        .map(|s| {
            let oracle = if s.v6 {
                "ip6tables-nft"
            } else {
                "iptables-nft"
            };
            let mut steps = run_seq(oracle, &[], &s.lines, false);
            for w in &mut steps {
                w.0 = protocols_as_1_8_11(&w.0);
            }
            steps
        })
        .collect();
    let t_oracle = t0.elapsed();
    let tools = tools();
    let total: usize = selected.iter().map(|s| s.lines.len()).sum();
    let t1 = std::time::Instant::now();
    let (got, stats) = common::in_netns(|| {
        let netns = std::fs::read_link("/proc/thread-self/ns/net").unwrap();
        let server = common::Server::start(BIN);
        let start = std::sync::Barrier::new(selected.len());
        let got: Vec<Vec<Step>> = std::thread::scope(|scope| {
            let workers: Vec<_> = selected
                .iter()
                .map(|s| {
                    let tool = tools.path(if s.v6 { "ip6tables" } else { "iptables" });
                    let (start, netns) = (&start, &netns);
                    scope.spawn(move || {
                        // Never the host's namespace: the one the server runs in.
                        let here = std::fs::read_link("/proc/thread-self/ns/net").unwrap();
                        assert_eq!(&here, netns, "a worker left the test's namespace");
                        start.wait();
                        s.lines
                            .iter()
                            .map(|args| {
                                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                                step(&common::run_status(&tool, &a, None))
                            })
                            .collect::<Vec<Step>>()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let log = server.wait_log("(exit ", total);
        let served = log.lines().filter(|l| l.contains("(exit ")).count();
        assert_eq!(served, total, "not every command was served:\n{log}");
        server.signal("USR1");
        let log = server.wait_log("iptnl serve: stats: ", 1);
        let stats = log
            .lines()
            .find(|l| l.contains("iptnl serve: stats: "))
            .unwrap_or_else(|| panic!("no stats line:\n{log}"))
            .to_owned();
        (got, stats)
    });
    let t_served = t1.elapsed();
    let mut diffs = Vec::new();
    for ((s, want), got) in selected.iter().zip(&want).zip(&got) {
        for (i, (w, g)) in want.iter().zip(got).enumerate() {
            if w != g {
                diffs.push(format!(
                    "{}[{}] {:?}\n  as run: {:?}\n  step {}: {:?}\n  oracle alone: rc={} out={:?} err={:?}\n  served:       rc={} out={:?} err={:?}",
                    s.group, s.index, s.seq, s.lines, i + 1, s.lines[i], w.2, w.0, w.1, g.2, g.0, g.1
                ));
                break;
            }
        }
    }
    eprintln!(
        "{} sequences, {total} commands: oracle {:.2} s, served at once {:.2} s\n{stats}",
        selected.len(),
        t_oracle.as_secs_f64(),
        t_served.as_secs_f64()
    );
    assert!(
        diffs.is_empty(),
        "{} of {} sequences differ:\n{}",
        diffs.len(),
        selected.len(),
        diffs.join("\n")
    );
    let (commits, operations, grouped) = commit_figures(&stats);
    assert!(
        grouped > 0 && commits < operations,
        "no commit was shared: {stats}"
    );
}

/// The filter reads iptables' options as its getopt loop does.
#[test]
fn isolate_renames_chains_and_refuses_shared_state() {
    let one = |seq: &str| isolate(seq, &[], "_s7");
    let words = |l: &[&str]| l.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        one("-N X\n-A X -j X\n-nLX\n-E X Y\n-vS Y 1\n--append=Y -g Y\n-AY -jLOG").unwrap(),
        vec![
            words(&["-N", "X_s7"]),
            words(&["-A", "X_s7", "-j", "X_s7"]),
            words(&["-nLX_s7"]),
            words(&["-E", "X_s7", "Y_s7"]),
            words(&["-vS", "Y_s7", "1"]),
            words(&["--append=Y_s7", "-g", "Y_s7"]),
            words(&["-AY_s7", "-jLOG"]),
        ]
    );
    // A jump to a chain the sequence never names is left alone; so are option values.
    assert_eq!(
        one("-A NOPE -j OTHER -m comment --comment NOPE").unwrap(),
        vec![words(&[
            "-A",
            "NOPE_s7",
            "-j",
            "OTHER",
            "-m",
            "comment",
            "--comment",
            "NOPE"
        ])]
    );
    // `-L X -Z`: one chain for both commands, as in iptables.
    assert!(one("-N X\n-L X -Z -v").is_ok());
    assert!(one("-V\n-h\n''\n--bogus").is_ok());
    for refused in [
        "-N X\n-S",
        "-N X\n-v -F",
        "-nvL",
        "-S -w 3",
        "-A INPUT -j ACCEPT",
        "-N X\n-A X -j ACCEPT\n-L -Z",
        "-t nat -S POSTROUTING",
        "-N X\n-E X FORWARD",
        "-N ACCEPT",
        "-P INPUT DROP",
        "-A",
        "--list-r X",
        "-N ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ] {
        assert!(one(refused).is_err(), "{refused:?} qualified");
    }
    assert!(isolate("-N X", &[&["ipset", "create", "a", "hash:ip"]], "_s7").is_err());
}

#[test]
fn commit_figures_read_the_stats_line() {
    let line = "iptnl serve: stats: requests 9, clients declined 0, in flight 0; iptables: \
                commits 3, operations 7 (2.3 per commit), callers grouped 4, conflicts retried 0, \
                refusals split off 0, commit latency ms p50 1.0 p90 1.0 p99 1.0 max 1.0; \
                ip6tables: commits 1, operations 1 (1.0 per commit), callers grouped 0, \
                conflicts retried 0, refusals split off 0, commit latency ms p50 1.0 p90 1.0 \
                p99 1.0 max 1.0";
    assert_eq!(commit_figures(line), (4, 8, 4));
}
