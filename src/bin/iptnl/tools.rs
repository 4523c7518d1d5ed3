//! The restore and save tools: options, messages and exit codes as iptables-nft-restore and
//! iptables-nft-save 1.8.9 have them, around `iptnl::iptables::restore` and `iptnl::iptables::save`;
//! and `iptables-xml` as iptables 1.8.11 has it, around `iptnl::ipt::xml`.

use std::io::{Read, Seek, Write};
use std::os::fd::AsFd;

use iptnl::ipt::error::ends_with_newline;
use iptnl::ipt::savefile::{self, SaveOptions, SAVE_VERSION};
use iptnl::ipt::tables::find_table;
use iptnl::ipt::xml::{self, XmlOptions};
use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{
    input_text, restore, restore_file, RestoreError, RestoreOptions, VerboseLine,
};
use iptnl::iptables::save::{save, SaveError};
use iptnl::netlink::{strerror, Conn};

use crate::getopt::{getopt, Arg, Opt};
use crate::output::{Output, Stream};
use crate::serve::client;

mod piped;

/// `NAME v1.8.11 (nf_tables) (iptnl 0.1.0)`: the prefix tools parse, then iptnl's version.
pub fn version_line(prog: &str) -> String {
    format!(
        "{prog} {SAVE_VERSION} (nf_tables) (iptnl {})",
        env!("CARGO_PKG_VERSION")
    )
}

/// The `v1.8.11 (nf_tables)` prefix of xtables error messages.
fn xt_prefix(prog: &str) -> String {
    format!("{prog} {SAVE_VERSION} (nf_tables)")
}

const RESTORE_OPTS: &[Opt] = &[
    Opt {
        short: 'b',
        long: "binary",
        arg: Arg::No,
    },
    Opt {
        short: 'c',
        long: "counters",
        arg: Arg::No,
    },
    Opt {
        short: 'v',
        long: "verbose",
        arg: Arg::No,
    },
    Opt {
        short: 'V',
        long: "version",
        arg: Arg::No,
    },
    Opt {
        short: 't',
        long: "test",
        arg: Arg::No,
    },
    Opt {
        short: 'h',
        long: "help",
        arg: Arg::No,
    },
    Opt {
        short: 'n',
        long: "noflush",
        arg: Arg::No,
    },
    Opt {
        short: 'M',
        long: "modprobe",
        arg: Arg::Required,
    },
    Opt {
        short: 'T',
        long: "table",
        arg: Arg::Required,
    },
    Opt {
        short: '4',
        long: "ipv4",
        arg: Arg::No,
    },
    Opt {
        short: '6',
        long: "ipv6",
        arg: Arg::No,
    },
    Opt {
        short: 'w',
        long: "wait",
        arg: Arg::Optional,
    },
    Opt {
        short: 'W',
        long: "wait-interval",
        arg: Arg::Optional,
    },
    // iptnl's own, without a letter (no argument holds a NUL).
    Opt {
        short: '\0',
        long: "reader-floor",
        arg: Arg::Required,
    },
];

fn restore_usage(prog: &str) -> String {
    format!(
        "Usage: {prog} [-c] [-v] [-V] [-t] [-h] [-n] [-T table] [-M command] [-4] [-6] [file]\n\
         \t   [ --counters ]\n\
         \t   [ --verbose ]\n\
         \t   [ --version]\n\
         \t   [ --test ]\n\
         \t   [ --help ]\n\
         \t   [ --noflush ]\n\
         \t   [ --table=<TABLE> ]\n\
         \t   [ --modprobe=<command> ]\n\
         \t   [ --ipv4 ]\n\
         \t   [ --ipv6 ]\n"
    )
}

/// Whether a restore input error is one iptables reports as a parameter problem (exit 2,
/// `Error occurred at line: N`) rather than as a failed line (exit 1, `line N failed: …`).
fn is_parameter_problem(msg: &str, line_text: &str) -> bool {
    const FAILED_LINE: &[&str] = &[
        "has no COMMIT",
        "outside of a table",
        "COMMIT without a table",
        "Index of",
        "already exists",
        "No chain/target/match by that name",
        "Directory not empty",
        "CHAIN_DEL failed",
        "is declared twice",
        "does not exist in the chain",
        "no matching rule",
        "Bad rule",
        "-E ",
        "is not empty",
        "is referenced",
        "in use",
    ];
    if let Some(chain) = msg
        .strip_prefix("chain ")
        .and_then(|r| r.split_once(" does not exist in table"))
        .map(|(c, _)| c)
    {
        // The chain a command works on is missing: a failed line (the kernel refuses it in
        // iptables-nft). A missing jump target is a parameter problem.
        let args = iptnl::ipt::split_restore_args(line_text).unwrap_or_default();
        let worked_on = args
            .iter()
            .position(|a| a.starts_with('-') && !a.starts_with("--") && a.len() == 2)
            .and_then(|i| args.get(i + 1));
        return worked_on.map(String::as_str) != Some(chain);
    }
    !FAILED_LINE.iter().any(|p| msg.contains(p))
}

/// What iptables-nft says when it may not read the ruleset (no CAP_NET_ADMIN), exit 4.
const NO_PRIVILEGES: &str =
    "Could not fetch rule set generation id: Permission denied (you must be root)";

/// Whether reading the ruleset was refused for want of CAP_NET_ADMIN.
fn lacks_privileges(e: &iptnl::nft::Error) -> bool {
    matches!(
        e,
        iptnl::nft::Error::Netlink(iptnl::netlink::Error::Permission { .. })
    )
}

/// Whether a restore error is the planner's "Chain 'X' does not exist" of a jump target.
fn is_missing_target(msg: &str) -> bool {
    msg.strip_prefix("Chain '")
        .is_some_and(|r| r.ends_with("' does not exist"))
}

/// The number of the first `COMMIT` line from line `line` on (`line` when there is none).
fn next_commit(input: &str, line: usize) -> usize {
    input
        .lines()
        .enumerate()
        .skip(line.saturating_sub(1))
        .find(|(_, l)| l.trim() == "COMMIT")
        .map_or(line, |(i, _)| i + 1)
}

/// Prints a restore error as iptables-nft-restore does and returns the exit code.
fn report_restore_error(prog: &str, input: &str, e: &RestoreError, out: &mut Output) -> i32 {
    let mut err = Vec::new();
    let code = restore_error_text(prog, input, e, &mut err);
    out.write(Stream::Err, &err);
    code
}

fn restore_error_text(prog: &str, input: &str, e: &RestoreError, err: &mut Vec<u8>) -> i32 {
    match e {
        RestoreError::Input { line, msg } if is_missing_target(msg) => {
            // A rule's jump target is missing: iptables finds it when it prepares the
            // table's batch, at the table's COMMIT line.
            let at = next_commit(input, *line);
            let _ = writeln!(
                err,
                "{}: {msg}\nError occurred at line: {at}\nTry `{prog} -h' or '{prog} --help' for more information.",
                xt_prefix(prog)
            );
            2
        }
        RestoreError::Input { line, msg } => {
            let text = input.lines().nth(line.wrapping_sub(1)).unwrap_or("");
            let text = text.trim();
            let text = match text.split_once("] ") {
                Some((c, rest)) if c.starts_with('[') => rest,
                _ => text,
            };
            if is_parameter_problem(msg, text) {
                // iptables names itself as it was called.
                let msg = match msg.strip_prefix("The -t option cannot be used in ") {
                    Some(_) => format!("The -t option cannot be used in {prog}."),
                    None => msg.clone(),
                };
                // A message that ends in a newline of its own is followed by an empty line.
                let nl = if ends_with_newline(&msg) { "\n" } else { "" };
                let _ = writeln!(
                    err,
                    "{}: {msg}{nl}\nError occurred at line: {line}\nTry `{prog} -h' or '{prog} --help' for more information.",
                    xt_prefix(prog)
                );
                2
            } else {
                let _ = writeln!(err, "{prog}: line {line} failed: {msg}");
                1
            }
        }
        RestoreError::Kernel {
            lines,
            first_line,
            refused,
        } => {
            // iptables checks jump targets before it talks to the kernel: a parameter problem.
            if lines
                .first()
                .is_some_and(|l| l.contains("jump target chain"))
            {
                let first = &lines[0];
                // iptables' own words: "Chain 'X' does not exist", at the line of the table's
                // COMMIT (iptables-nft-restore finds the missing target when it commits).
                let chain = first
                    .split_once("jump target chain ")
                    .and_then(|(_, r)| r.split_once(" does not exist"))
                    .map(|(c, _)| c);
                let what = match chain {
                    Some(c) => format!("Chain '{c}' does not exist"),
                    None => first
                        .strip_prefix("line ")
                        .and_then(|r| r.split_once(": "))
                        .map_or(first.as_str(), |(_, rest)| rest)
                        .to_owned(),
                };
                let at = if chain.is_some() {
                    next_commit(input, *first_line)
                } else {
                    *first_line
                };
                let _ = writeln!(
                    err,
                    "{}: {what}\nError occurred at line: {at}\nTry `{prog} -h' or '{prog} --help' for more information.",
                    xt_prefix(prog)
                );
                return 2;
            }
            // A chain the line works on is missing: iptables finds it before it sends
            // anything, and the line fails.
            if let Some(r) = refused.first().filter(|r| r.missing) {
                let _ = writeln!(
                    err,
                    "{prog}: line {} failed: No chain/target/match by that name.",
                    r.line
                );
                return 1;
            }
            // As iptables-nft-restore reports a refused batch: each refused operation on a
            // line of its own after the program's prefix (at most 1,023 bytes of them),
            // exit 4.
            let mut text = String::new();
            for r in refused {
                text.push('\n');
                text.push_str(&r.to_string());
            }
            if text.is_empty() {
                text = lines.iter().map(|l| format!("\n{l}")).collect();
            }
            let mut end = text.len().min(1023);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let _ = writeln!(err, "{}: {}", xt_prefix(prog), &text[..end]);
            4
        }
        RestoreError::Nft(e) if lacks_privileges(e) => {
            let _ = writeln!(err, "{}: {NO_PRIVILEGES}", xt_prefix(prog));
            4
        }
        other => {
            let _ = writeln!(err, "{prog}: {other}");
            1
        }
    }
}

/// A restore's command line, read.
pub struct RestoreCmd {
    family: IpFamily,
    opts: RestoreOptions,
    /// The file named on the command line (standard input otherwise).
    operand: Option<String>,
}

/// Reads a restore's command line. `Err(code)` when the command is over: `-h`, `-V` or a
/// usage error, whose text is in `out`.
fn parse_restore(
    prog: &str,
    family: IpFamily,
    args: &[String],
    out: &mut Output,
) -> Result<RestoreCmd, i32> {
    let parsed = match getopt(args, RESTORE_OPTS) {
        Ok(p) => p,
        Err(m) => {
            out.err(&format!(
                "{prog}: {m}\nTry `{prog} -h' for more information.\n"
            ));
            return Err(1);
        }
    };
    let mut family = family;
    let mut opts = RestoreOptions::default();
    for (c, v) in parsed.opts {
        match c {
            'b' => out.err("-b/--binary option is not implemented\n"),
            'c' => opts.counters = true,
            'v' => opts.verbose = true,
            'V' => {
                out.out(&format!("{}\n", version_line(prog)));
                return Err(0);
            }
            't' => opts.test = true,
            'h' => {
                // iptables-nft-restore prints its usage on stderr.
                out.err(&restore_usage(prog));
                return Err(0);
            }
            'n' => opts.noflush = true,
            'T' => opts.table = v,
            '4' => family = IpFamily::V4,
            '6' => family = IpFamily::V6,
            '\0' => match v.unwrap_or_default().parse() {
                Ok(f) => opts.floor = Some(f),
                Err(e) => {
                    out.err(&format!("{prog}: {e}\n"));
                    return Err(2);
                }
            },
            // -M, -w, -W: accepted; iptnl loads no modules and takes no lock.
            _ => {}
        }
    }
    let operand = match parsed.operands.as_slice() {
        [] => None,
        [path] => Some(path.clone()),
        _ => {
            out.err("Unknown arguments found on commandline\n");
            return Err(1);
        }
    };
    Ok(RestoreCmd {
        family,
        opts,
        operand,
    })
}

/// What a restore reads.
pub enum RestoreInput {
    /// A regular file (named, or redirected to standard input), from this position on: read
    /// in pieces while the batch is planned (and again on a retry), never whole; the text is
    /// a quarter of the batch's size and would add to the peak.
    File(std::fs::File, u64),
    /// Text read whole (a pipe, a terminal; or handed to the server).
    Text(Vec<u8>),
}

impl RestoreInput {
    /// The input of `operand` (standard input when `None`), or the exit code after the
    /// message iptables-nft-restore prints, in `out`. A pipe or a terminal is read to its
    /// end, or until its writer pauses after a `COMMIT` line: then the input so far, and
    /// the pipe.
    fn open(
        prog: &str,
        operand: Option<&str>,
        out: &mut Output,
    ) -> Result<(RestoreInput, Option<piped::Pipe>), i32> {
        let mut buf = Vec::new();
        let mut paused = None;
        let source = match operand {
            // A closed stdin (no descriptor to clone) reads as empty, as std's stdin does.
            None => match std::io::stdin().as_fd().try_clone_to_owned() {
                Ok(fd) => Ok(Some(std::fs::File::from(fd))),
                Err(_) => std::io::stdin().read_to_end(&mut buf).map(|_| None),
            },
            Some(path) => std::fs::File::open(path).map(Some),
        };
        let read = source.and_then(|f| match f {
            Some(mut f) if f.metadata().is_ok_and(|m| m.is_file() && m.len() > 0) => {
                let start = f.stream_position()?;
                Ok(Some((f, start)))
            }
            Some(f) => match piped::read_to_pause(f)? {
                piped::FromPipe::Whole(text) => {
                    buf = text;
                    Ok(None)
                }
                piped::FromPipe::Paused(text, pipe) => {
                    buf = text;
                    paused = Some(pipe);
                    Ok(None)
                }
            },
            None => Ok(None),
        });
        match read {
            Ok(Some((f, start))) => Ok((RestoreInput::File(f, start), None)),
            Ok(None) => Ok((RestoreInput::Text(buf), paused)),
            Err(e) => {
                out.err(&match operand {
                    Some(path) => format!("Can't open {path}: {}\n", strerror(&e)),
                    None => format!("{prog}: reading standard input: {}\n", strerror(&e)),
                });
                Err(1)
            }
        }
    }

    /// The input's bytes (a file's from its starting position on).
    fn into_bytes(self) -> Vec<u8> {
        match self {
            RestoreInput::Text(t) => t,
            RestoreInput::File(mut f, start) => {
                let mut t = Vec::new();
                let _ = f
                    .seek(std::io::SeekFrom::Start(start))
                    .and_then(|_| f.read_to_end(&mut t));
                t
            }
        }
    }

    /// Puts a file back at its starting position (after it was handed to the server).
    fn rewind(&mut self) -> std::io::Result<()> {
        match self {
            RestoreInput::File(f, start) => f.seek(std::io::SeekFrom::Start(*start)).map(drop),
            RestoreInput::Text(_) => Ok(()),
        }
    }

    /// Runs the restore tool `prog` with `args` on this input through `iptnl serve`, when one
    /// runs in this network namespace and takes it (see [`client::forward_restore`]): the
    /// exit code, after the restore's output is printed. Otherwise the input back, rewound,
    /// to be restored here.
    fn forward(mut self, prog: &str, args: &[String]) -> Result<i32, RestoreInput> {
        let served = match &mut self {
            RestoreInput::File(f, _) => client::forward_restore(prog, args, f),
            RestoreInput::Text(t) => client::forward_restore(prog, args, &mut t.as_slice()),
        };
        match served {
            Some(code) => Ok(code),
            None => match self.rewind() {
                Ok(()) => Err(self),
                Err(e) => {
                    eprintln!("{prog}: reading the input again: {e}");
                    Ok(1)
                }
            },
        }
    }
}

/// iptables-restore / ip6tables-restore: handed to `iptnl serve` when one runs in this
/// network namespace (see [`client::forward_restore`]), else run here.
pub fn restore_main(prog: &str, family: IpFamily, args: &[String]) -> i32 {
    let mut out = Output::default();
    match restore_tool(prog, family, args, &mut out) {
        Ended::Served(code) => code,
        Ended::Here(code) => {
            out.code = code;
            out.print()
        }
    }
}

/// How a restore tool's run ended.
enum Ended {
    /// Through the server, which printed its output: the exit code.
    Served(i32),
    /// Here: the exit code, the output to print.
    Here(i32),
}

fn restore_tool(prog: &str, family: IpFamily, args: &[String], out: &mut Output) -> Ended {
    let cmd = match parse_restore(prog, family, args, out) {
        Ok(c) => c,
        Err(code) => return Ended::Here(code),
    };
    let input = match RestoreInput::open(prog, cmd.operand.as_deref(), out) {
        Ok((RestoreInput::Text(first), Some(pipe))) => {
            // The writer paused after a COMMIT: each part is committed as it comes.
            return piped::run_piped(prog, args, &cmd, first, pipe, out);
        }
        Ok((i, _)) => i,
        Err(code) => return Ended::Here(code),
    };
    let input = match input.forward(prog, args) {
        Ok(code) => return Ended::Served(code),
        Err(input) => input,
    };
    match Conn::open() {
        Ok(mut conn) => Ended::Here(run_restore(prog, &cmd, input, Target::Conn(&mut conn), out)),
        Err(e) => {
            out.err(&format!("{prog}: {e}\n"));
            Ended::Here(1)
        }
    }
}

/// A restore handed to `iptnl serve`: `input` is the text the client read, and the
/// restore runs on the server's handle for the family (so it is never planned against a
/// generation the server's own commits move meanwhile, and the same input again, with
/// nothing changed since, is answered from the handle's memory of its last restore).
pub fn restore_served(
    prog: &str,
    family: IpFamily,
    args: &[String],
    input: Vec<u8>,
    session: &crate::iptables_cmd::Session,
) -> Output {
    let mut out = Output::default();
    let cmd = match parse_restore(prog, family, args, &mut out) {
        Ok(c) => c,
        Err(code) => {
            out.code = code;
            return out;
        }
    };
    out.code = match session.handle(cmd.family) {
        Ok(h) => run_restore(
            prog,
            &cmd,
            RestoreInput::Text(input),
            Target::Handle(&h),
            &mut out,
        ),
        Err(e) => {
            out.err(&format!("{prog}: {e}\n"));
            1
        }
    };
    out
}

/// What iptables-nft-restore -v prints (on standard output) for a restore's verbose lines.
fn verbose_text(family: IpFamily, lines: &[VerboseLine]) -> String {
    let mut text = String::new();
    for l in lines {
        match l {
            VerboseLine::Rule(spec) => {
                text.push_str(&crate::iptables_cmd::print_rule_line(family, spec))
            }
            l => text.push_str(&format!("{l}\n")),
        }
    }
    text
}

/// What runs a restore.
enum Target<'a> {
    /// A connection of this process.
    Conn(&'a mut Conn),
    /// The server's handle, which remembers the last restore it applied (the same input
    /// again, with nothing changed since, is answered without a parse or a read).
    Handle(&'a iptnl::iptables::IpTables),
}

/// Runs a restore on `target` and writes what iptables-nft-restore prints into `out`;
/// returns the exit code.
fn run_restore(
    prog: &str,
    cmd: &RestoreCmd,
    input: RestoreInput,
    target: Target<'_>,
    out: &mut Output,
) -> i32 {
    let family = cmd.family;
    let opts = &cmd.opts;
    let (res, file) = match (input, target) {
        (RestoreInput::File(f, start), Target::Conn(conn)) => {
            (restore_file(conn, family, &f, opts), Ok((f, start)))
        }
        (RestoreInput::File(f, start), Target::Handle(h)) => (
            h.with_conn(|conn| restore_file(conn, family, &f, opts)),
            Ok((f, start)),
        ),
        (RestoreInput::Text(buf), target) => {
            // Taken over, not copied, when it is UTF-8 (tens of megabytes for a resync).
            let text = String::from_utf8(buf)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            let r = match target {
                Target::Conn(conn) => restore(conn, family, &text, opts),
                Target::Handle(h) => h.try_restore(&text, opts),
            };
            (r, Err(text))
        }
    };
    match res {
        Ok(r) => {
            // What iptables-nft-restore -v prints, on standard output.
            out.out(&verbose_text(family, &r.verbose));
            0
        }
        Err(e) => {
            missing_module_warnings(family, &e, out);
            match file {
                // The error quotes input lines: the file is read whole now, the batch is gone.
                Ok((mut f, start)) => {
                    let mut text = Vec::new();
                    let _ = f
                        .seek(std::io::SeekFrom::Start(start))
                        .and_then(|_| f.read_to_end(&mut text));
                    report_restore_error(prog, &input_text(&text), &e, out)
                }
                Err(text) => report_restore_error(prog, &text, &e, out),
            }
        }
    }
}

/// For a batch the kernel refused because it lacks an x_tables extension at all,
/// iptables-nft's warning for each such extension (printed when it loads one), before the
/// error.
fn missing_module_warnings(family: IpFamily, e: &RestoreError, out: &mut Output) {
    let RestoreError::Kernel { lines, .. } = e else {
        return;
    };
    let Ok(mut conn) = Conn::open() else {
        return;
    };
    let mut said = String::new();
    for l in lines {
        let w = crate::iptables_cmd::missing_module_warning_on(family, &mut conn, l);
        if !said.contains(&w) {
            said.push_str(&w);
        }
    }
    out.err(&said);
}

const SAVE_OPTS: &[Opt] = &[
    Opt {
        short: 'b',
        long: "binary",
        arg: Arg::No,
    },
    Opt {
        short: 'c',
        long: "counters",
        arg: Arg::No,
    },
    Opt {
        short: 'V',
        long: "version",
        arg: Arg::No,
    },
    Opt {
        short: 'd',
        long: "dump",
        arg: Arg::No,
    },
    Opt {
        short: 't',
        long: "table",
        arg: Arg::Required,
    },
    Opt {
        short: 'M',
        long: "modprobe",
        arg: Arg::Required,
    },
    Opt {
        short: 'f',
        long: "file",
        arg: Arg::Required,
    },
    Opt {
        short: '4',
        long: "ipv4",
        arg: Arg::No,
    },
    Opt {
        short: '6',
        long: "ipv6",
        arg: Arg::No,
    },
    Opt {
        short: 'h',
        long: "help",
        arg: Arg::No,
    },
    // iptnl's own, without a letter (no argument holds a NUL).
    Opt {
        short: '\0',
        long: "reader-floor",
        arg: Arg::Required,
    },
];

fn save_usage(prog: &str) -> String {
    format!(
        "Usage: {prog} [-c] [-t table] [-M command] [-f file] [-4] [-6] [-V] [-h]\n\
         \t   [ --counters ]\n\
         \t   [ --table=<TABLE> ]\n\
         \t   [ --modprobe=<command> ]\n\
         \t   [ --file=<FILE> ]\n\
         \t   [ --ipv4 ]\n\
         \t   [ --ipv6 ]\n\
         \t   [ --version ]\n\
         \t   [ --help ]\n"
    )
}

/// iptables-save / ip6tables-save.
pub fn save_main(prog: &str, family: IpFamily, args: &[String]) -> i32 {
    let parsed = match getopt(args, SAVE_OPTS) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("{prog}: {m}\nLook at manual page `{prog}.8' for more information.");
            return 1;
        }
    };
    let mut family = family;
    let mut opts = SaveOptions::default();
    let mut file = None;
    for (c, v) in parsed.opts {
        match c {
            'b' => eprintln!("-b/--binary option is not implemented"),
            'c' => opts.counters = true,
            'V' => {
                println!("{}", version_line(prog));
                return 0;
            }
            'h' => {
                print!("{}", save_usage(prog));
                return 0;
            }
            't' => opts.table = v,
            'f' => file = v,
            '\0' => match v.unwrap_or_default().parse() {
                Ok(f) => opts.floor = Some(f),
                Err(e) => {
                    eprintln!("{prog}: {e}");
                    return 2;
                }
            },
            '4' => family = IpFamily::V4,
            '6' => family = IpFamily::V6,
            // -M, -d: accepted and ignored.
            _ => {}
        }
    }
    if !parsed.operands.is_empty() {
        eprintln!("Unknown arguments found on commandline");
        return 1;
    }
    let mut out: Box<dyn Write> = match &file {
        Some(f) => match std::fs::File::create(f) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("Failed to open file, error: {}", strerror(&e));
                return 1;
            }
        },
        None => Box::new(std::io::stdout().lock()),
    };
    let mut conn = match Conn::open() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{prog}: {e}");
            return 1;
        }
    };
    let text = match save(&mut conn, family, &opts) {
        Ok(t) => t,
        // iptables-nft-save shows a known table that does not exist yet as its built-in
        // chains with policy ACCEPT.
        Err(SaveError::NoSuchTable(t)) if find_table(&t).is_some() => savefile::format_table(
            family,
            &t,
            &[],
            &[],
            opts.counters,
            &savefile::ctime(std::time::SystemTime::now()),
        ),
        Err(e @ SaveError::NoSuchTable(_)) => {
            eprintln!("{e}");
            return 1;
        }
        Err(SaveError::Kernel(e)) if lacks_privileges(&e) => {
            eprintln!("{}: {NO_PRIVILEGES}", xt_prefix(prog));
            return 4;
        }
        Err(e) => {
            eprintln!("{prog}: {e}");
            return 1;
        }
    };
    if savefile::has_raw_rules(&text) {
        eprintln!(
            "# Warning: {prog}: the ruleset holds rules that iptables cannot express; they are saved whole as `-m nft --nft-rule HEX' (iptnl restores them exactly, iptables-nft-restore refuses them)."
        );
    }
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("{prog}: writing the output: {}", strerror(&e));
            return 1;
        }
    }
    0
}

/// iptables-xml: options as its `getopt_long("cvh")` reads them (an unknown option is
/// complained about and skipped, `-v` prints `xptables-xml` when read, `-h` prints the usage
/// on stderr and exits 1), then one file or standard input.
pub fn xml_main(args: &[String]) -> i32 {
    const PROG: &str = "iptables-xml";
    let mut opts = XmlOptions::default();
    let mut operands = Vec::new();
    let mut out = std::io::stdout().lock();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        let mut letters = Vec::new();
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let cands: Vec<&str> = ["verbose", "combine", "help"]
                .into_iter()
                .filter(|o| o.starts_with(name))
                .collect();
            match cands.as_slice() {
                [o] if inline => {
                    eprintln!("{PROG}: option '--{o}' doesn't allow an argument");
                }
                [o] => letters.push(if *o == "combine" {
                    'c'
                } else {
                    o.chars().next().unwrap_or('?')
                }),
                [] => eprintln!("{PROG}: unrecognized option '--{name}'"),
                _ => eprintln!("{PROG}: option '--{name}' is ambiguous"),
            }
        } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            for c in short.chars() {
                if "cvh".contains(c) {
                    letters.push(c);
                } else {
                    eprintln!("{PROG}: invalid option -- '{c}'");
                }
            }
        } else {
            operands.push(a.clone());
        }
        for c in letters {
            match c {
                'c' => opts.combine = true,
                'v' => {
                    let _ = writeln!(out, "xptables-xml");
                    opts.verbose = true;
                }
                _ => {
                    let _ = out.flush();
                    eprint!(
                        "Usage: {PROG} [-c] [-v] [-h]\n          [--combine ]\n\t   [ --verbose ]\n\t   [ --help ]\n"
                    );
                    return 1;
                }
            }
        }
    }
    let mut input = Vec::new();
    let read = match operands.as_slice() {
        [] => std::io::stdin().read_to_end(&mut input).map(drop),
        [path] => match std::fs::File::open(path) {
            Ok(mut f) => f.read_to_end(&mut input).map(drop),
            Err(e) => {
                let _ = out.flush();
                eprint!("Can't open {path}: {}", strerror(&e));
                return 1;
            }
        },
        _ => {
            let _ = out.flush();
            eprint!("Unknown arguments found on commandline");
            return 1;
        }
    };
    if let Err(e) = read {
        eprintln!("{PROG}: reading the input: {}", strerror(&e));
        return 1;
    }
    let (text, err) = xml::to_xml(&input, &opts);
    let _ = out.write_all(&text).and_then(|_| out.flush());
    match err {
        Some(e) => {
            eprint!("{}", e.message);
            e.status
        }
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_classes_follow_iptables() {
        // Parameter problems: exit 2.
        assert!(is_parameter_problem(
            "unknown option \"--bogus\"",
            "-A INPUT --bogus"
        ));
        assert!(is_parameter_problem(
            "chain NOPE does not exist in table filter",
            "-A INPUT -j NOPE"
        ));
        // Failed lines: exit 1.
        assert!(!is_parameter_problem(
            "chain FOO does not exist in table filter",
            "-A FOO -j ACCEPT"
        ));
        assert!(!is_parameter_problem("chain FOO already exists", "-N FOO"));
        assert!(!is_parameter_problem(
            "table `filter' (line 1) has no COMMIT line",
            "-A INPUT -j ACCEPT"
        ));
    }
}
