//! The options of `iptnl serve` and its usage text.

use std::time::Duration;

pub(super) const USAGE: &str =
    "Usage: iptnl serve [--verbose] [--stats SECONDS] [--idle-exit SECONDS]\n\
\x20                  [--reader-floor VERSION] [--memory]\n\
\n\
Runs iptables and ip6tables commands, and iptables-restore and ip6tables-restore inputs,\n\
for the processes started under those names (links to iptnl) in this network namespace:\n\
they hand their command over the abstract unix socket\n\
@iptnl instead of opening netlink sockets of their own, which spares each of them the\n\
kernel's RCU wait when its netlink socket closes after a delete (10-15 ms per command).\n\
Commands run at once share kernel commits: the writes that arrive while a commit is in\n\
flight go into the next one, each command still getting its own result.\n\
Without a server, the commands run by themselves as before; IPTNL_DIRECT=1 makes them do\n\
so even when one listens. Only root and the server's own user are served, and the commands\n\
trust only a server that runs as root or as their own user.\n\
\n\
Started by a service manager with a listening socket on @iptnl (LISTEN_FDS, LISTEN_PID:\n\
systemd's socket activation), the server accepts on that socket instead of binding one.\n\
\n\
SIGTERM or SIGINT: stop accepting, finish the commands started, exit 0.\n\
SIGUSR1: print a line of figures (requests, commits, operations per commit, latencies).\n\
\n\
  -v, --verbose          log every command served, with its exit code and time, on stderr\n\
  -s, --stats SECONDS    print the line of figures every SECONDS seconds on stderr\n\
      --idle-exit SECONDS\n\
                         exit 0 once no command has come for SECONDS and none runs\n\
                         (with socket activation: the service manager starts the\n\
                         server again for the next command)\n\
      --reader-floor VERSION\n\
                         the oldest iptables-nft that must read the rules written\n\
                         exactly (1.8.7, 1.8.9, 1.8.11, 1.8.13; default: IPTNL_READER_FLOOR,\n\
                         or 1.8.7 when the kernel has nft_compat, else 1.8.9); a command\n\
                         given another floor runs by itself\n\
  -m, --memory           serve an in-memory ruleset of the server's own instead of the\n\
                         kernel's (empty at start, lost at exit): the commands get the\n\
                         kernel's answers without root or a kernel, for testing scripts\n";

/// The options of `iptnl serve`.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Options {
    pub(super) verbose: bool,
    pub(super) stats: Option<Duration>,
    pub(super) idle_exit: Option<Duration>,
    pub(super) floor: Option<iptnl::ipt::ReaderFloor>,
    pub(super) memory: bool,
}

/// Reads the options, or says what is wrong.
pub(super) fn parse_options(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (a.as_str(), None),
        };
        match name {
            "-v" | "--verbose" if attached.is_none() => o.verbose = true,
            "-m" | "--memory" if attached.is_none() => o.memory = true,
            "-h" | "--help" if attached.is_none() => return Ok(None),
            "--reader-floor" => {
                let v = match attached.or_else(|| it.next().cloned()) {
                    Some(v) => v,
                    None => return Err(format!("option `{name}' requires a release (1.8.7, …)")),
                };
                o.floor = Some(
                    v.parse()
                        .map_err(|e: iptnl::ipt::floor::FloorError| e.to_string())?,
                );
            }
            "-s" | "--stats" | "--idle-exit" => {
                let v = match attached.or_else(|| it.next().cloned()) {
                    Some(v) => v,
                    None => return Err(format!("option `{name}' requires a number of seconds")),
                };
                match v.parse::<f64>() {
                    Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => {
                        let d = Some(Duration::from_secs_f64(secs));
                        if name == "--idle-exit" {
                            o.idle_exit = d
                        } else {
                            o.stats = d
                        }
                    }
                    _ => {
                        return Err(format!(
                        "`{v}' is not a number of seconds for {name} (more than 0, at most 86400)"
                    ))
                    }
                }
            }
            other => return Err(format!("unknown option `{other}'")),
        }
    }
    Ok(Some(o))
}
