//! `iptnl serve`: a resident iptnl that runs `iptables`/`ip6tables` commands and
//! `iptables-restore`/`ip6tables-restore` inputs for the short-lived processes called by
//! those names.
//!
//! Why: a process that closes a netfilter socket after a commit that deleted anything waits
//! for an RCU grace period in the kernel (the `NETLINK_URELEASE` notifier flushes nf_tables'
//! destroy list with `synchronize_rcu`), 10–15 ms on an idle machine. That is most of the
//! time of an `iptables -D`/`-F`/`-X`, for iptables-nft and for iptnl alike. The server's
//! sockets stay open, so nobody waits for that; its handle also keeps the cache of what it
//! read for the next command (`iptables -S` of a table it holds costs a generation read).
//!
//! How: the server listens on the abstract unix socket `@iptnl` (abstract names belong to
//! the network namespace, so each namespace has its own server and a client reaches only the
//! one of the namespace it runs in). When the `iptables` name starts, it connects there; when
//! nobody listens, or the server declines (another user, another iptnl version), it runs the
//! command itself, exactly as without a server. Each connection is served on a thread of its
//! own, so many commands are in flight at once: they share the server's handles, whose group
//! commit puts the writes that arrive while a commit is in flight into the next batch (one
//! kernel commit, so one re-validation of the table, for all of them), each still getting
//! exactly its own result; reads come from the handles' cache, kept current by the server's
//! own writes and the kernel's ruleset events. A command prints exactly what it prints when
//! run directly (the client writes the server's output chunks to its own stdout and stderr,
//! in order, and exits with the command's code).
//!
//! Stopping: SIGTERM or SIGINT make the server stop accepting (the name is freed, so new
//! commands run by themselves), finish every command it has started, and exit 0. SIGUSR1,
//! and `--stats SECONDS` every so many seconds, print a line of figures on stderr.
//!
//! Who may use it: root and the server's own user (`SO_PEERCRED`). Anybody else is declined as
//! soon as it connects, before its request is read, and runs the command directly, where the
//! kernel decides.
//!
//! Whom the clients trust: the same rule the other way. Abstract socket names have no
//! permissions, so any process in the namespace may bind `@iptnl` before the server does (or
//! after it stops). A client hands its command only to a server that runs as root or as the
//! client's own user (`SO_PEERCRED` of the connection); otherwise it sends nothing, says so on
//! stderr, and runs the command itself. It waits at most a second for a connection (a holder
//! that never accepts fills its backlog), then does the same.
//!
//! The wire format (all integers little-endian):
//! - request: `IPTNL-SERVE/1`, the client's version (u32 length and bytes), the argument
//!   count (u32), each argument (u32 length and bytes); the first argument is the tool
//!   (`iptables`, `ip6tables`, or a restore tool's name; a restore's input follows);
//! - reply: `IPTNL-SERVE/1`, then `0` (u8) for "running", sent as soon as the request is
//!   read and accepted, and once the command ran, its exit code (i32), the number of output
//!   chunks (u32), each as stream (u8: 1 stdout, 2 stderr), length (u32) and bytes, or as
//!   `3` (standard output, from a file) and length (u32), with no bytes: the stream byte
//!   carries a descriptor (`SCM_RIGHTS`) of a sealed in-memory file whose first `length`
//!   bytes are the text; or `1` (u8) for "declined", with a reason (u32 length and bytes).
//!
//! A big listing (`iptables -S` of a table, from the server's cache) goes as a file: the
//! server writes each version of the listing once into a sealed `memfd`, and each client
//! moves its pages into its standard output (`splice`, when that is a pipe), instead of the
//! server copying tens of megabytes into every client's socket.
//!
//! A restore tool (`iptables-restore`, `ip6tables-restore` or another of their names, given
//! as the tool; its options as the arguments) reads its command line and its input itself,
//! and sends the input after the request, up to the end of its writes (`shutdown`); the
//! server reads it whole before it answers "running", and runs the restore on the handle's
//! connection, so it is planned and committed between the group commits of the commands
//! served meanwhile, never against a generation they move. The handle remembers the last
//! restore it ran: the same input and options again, with the ruleset's generation unmoved
//! since, is answered without a parse or a read (see `IpTables::try_restore`).
//!
//! A client that sees the connection end before "running" knows the command did not run
//! (the server was stopping, say) and runs it itself; after "running", it cannot know, and
//! says so (exit 4).

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;

use crate::iptables_cmd::{self, Session};
use crate::output::{Output, Stream, Text};
use client::{connect, pid_words, trusted_uid, CONNECT_TIMEOUT};
use wire::{bad, read_request, write_head, Request, FROM_FILE, SOCKET_NAME};

mod wire;

mod activation;
pub mod client;
mod options;

use accept::{accept_loop, TRIM_AFTER};
use options::{parse_options, Options, USAGE};

/// How long the server waits for a client's request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

fn address() -> io::Result<SocketAddr> {
    SocketAddr::from_abstract_name(SOCKET_NAME.as_bytes())
}

/// A listing at least this long goes to a client as a file rather than as bytes.
const FILE_MIN: usize = 256 << 10;

/// Where a reply goes: a stream that may also carry descriptors.
trait ReplyWriter: Write {
    /// Sends `head`, after everything written before it, with `file` attached; `Ok(false)`
    /// (nothing sent) when this writer carries no descriptors.
    fn send_file(&mut self, head: &[u8], file: &std::fs::File) -> io::Result<bool>;
}

/// A reply kept in memory (tests) carries no descriptors.
impl ReplyWriter for Vec<u8> {
    fn send_file(&mut self, _: &[u8], _: &std::fs::File) -> io::Result<bool> {
        Ok(false)
    }
}

impl ReplyWriter for BufWriter<&UnixStream> {
    fn send_file(&mut self, head: &[u8], file: &std::fs::File) -> io::Result<bool> {
        self.flush()?;
        let n = iptnl::netlink::send_with_fd(self.get_ref(), head, file)?;
        let mut sock: &UnixStream = self.get_ref();
        sock.write_all(&head[n..])?;
        Ok(true)
    }
}

/// Writes the rest of a "running" reply: the command's exit code and output.
fn write_output(w: &mut impl ReplyWriter, out: &Output) -> io::Result<()> {
    w.write_all(&out.code.to_le_bytes())?;
    let n = u32::try_from(out.chunks.len()).map_err(|_| bad("too many chunks"))?;
    w.write_all(&n.to_le_bytes())?;
    for (stream, text) in &out.chunks {
        if let (Stream::Out, Text::Table(t)) = (stream, text) {
            let file = (t.len() >= FILE_MIN).then(|| t.sealed_file()).flatten();
            if let (Some(f), Ok(len)) = (file, u32::try_from(t.len())) {
                let mut head = [FROM_FILE, 0, 0, 0, 0];
                head[1..].copy_from_slice(&len.to_le_bytes());
                if w.send_file(&head, f)? {
                    continue;
                }
            }
        }
        w.write_all(&[match stream {
            Stream::Out => 1,
            Stream::Err => 2,
        }])?;
        let len = u32::try_from(text.len()).map_err(|_| bad("an output over 4 GiB"))?;
        w.write_all(&len.to_le_bytes())?;
        text.write_to(w)?;
    }
    w.flush()
}

/// What the server runs for a request.
#[derive(Debug, Clone, Copy)]
enum Job {
    /// `iptables` / `ip6tables`.
    Iptables(IpFamily),
    /// `iptables` / `ip6tables` at a reader floor other than the server's, served on the
    /// server's in-memory ruleset by handles of its own.
    IptablesAlone(IpFamily),
    /// `iptables-restore` / `ip6tables-restore` (and their other names), with its input.
    Restore(IpFamily),
}

/// The most restore input the server takes.
const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads a restore's input: the rest of the client's writes.
fn read_input(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut v = Vec::new();
    r.take(MAX_INPUT_BYTES + 1).read_to_end(&mut v)?;
    if v.len() as u64 > MAX_INPUT_BYTES {
        return Err(bad("a restore input over 1 GiB"));
    }
    Ok(v)
}

/// The family a tool name stands for (`iptables` or `ip6tables`).
fn tool_family(tool: &str) -> Option<IpFamily> {
    [IpFamily::V4, IpFamily::V6]
        .into_iter()
        .find(|&f| iptables_cmd::name(f) == tool)
}

/// Writes a line of the server's log on stderr. A closed stderr (its reader gone) is no
/// reason for a server thread to panic: the line is dropped.
macro_rules! log {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

// After `log!`, which it uses.
mod accept;

/// The server's shared state.
struct Server {
    session: Session,
    uid: u32,
    verbose: bool,
    /// A stop was asked for: accept no more connections.
    stopping: AtomicBool,
    /// Connections being served, and a signal when one ends.
    active: Mutex<usize>,
    idle: Condvar,
    /// Requests run, and connections declined.
    served: AtomicU64,
    declined: AtomicU64,
}

impl Server {
    /// Whether the peer may be served: root or the server's own user.
    fn allowed(&self, stream: &UnixStream) -> Result<(), String> {
        match iptnl::netlink::peer_credentials(stream) {
            Ok(p) if p.uid == 0 || p.uid == self.uid => Ok(()),
            Ok(p) => Err(format!("user {} is not served", p.uid)),
            Err(e) => Err(format!("unknown peer ({e})")),
        }
    }

    /// Whether to run a request: what it runs, or why not.
    fn accept(&self, req: &Request) -> Result<Job, String> {
        if req.version != env!("CARGO_PKG_VERSION") {
            return Err(format!(
                "client version {} differs from the server's {}",
                req.version,
                env!("CARGO_PKG_VERSION")
            ));
        }
        if let Some(f) = tool_family(&req.tool) {
            // A command runs at the server's reader floor; one that asks for another runs by
            // itself (a restore carries its floor in its options instead).
            if let Ok((_, Some(floor))) = iptables_cmd::floor_of(&req.args) {
                let ours = self
                    .session
                    .handle(f)
                    .map_err(|e| format!("no handle: {e}"))?
                    .reader_floor();
                if floor != ours && self.session.is_memory() {
                    // Declined, it would run on the kernel's ruleset instead of this one.
                    return Ok(Job::IptablesAlone(f));
                }
                if floor != ours {
                    return Err(format!(
                        "the command's reader floor {floor} differs from the server's {ours}"
                    ));
                }
            }
            return Ok(Job::Iptables(f));
        }
        match crate::lookup(&req.tool) {
            Some(crate::Tool::Restore(f)) => Ok(Job::Restore(f)),
            _ => Err(format!("`{}' is not served", req.tool)),
        }
    }

    /// Runs an accepted request (beside any others in flight); `input` is a restore's text.
    fn run(&self, job: Job, req: &Request, input: Vec<u8>) -> Output {
        let args = &req.args;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match job {
            Job::Iptables(family) => iptables_cmd::execute(family, args, &self.session),
            Job::IptablesAlone(family) => {
                iptables_cmd::execute(family, args, &self.session.private_beside())
            }
            Job::Restore(family) => {
                crate::tools::restore_served(&req.tool, family, args, input, &self.session)
            }
        }));
        self.served.fetch_add(1, Ordering::Relaxed);
        run.unwrap_or_else(|_| {
            // Later commands start from fresh handles; the kernel state is whatever was
            // committed.
            self.session.reset();
            let mut out = Output::default();
            out.err(
                "iptnl serve: internal error while running the command (see the server's log)\n",
            );
            out.code = 4;
            out
        })
    }

    /// The figures of `--stats` and SIGUSR1, in one line.
    fn stats_line(&self) -> String {
        let mut line = format!(
            "iptnl serve: stats: requests {}, clients declined {}, in flight {}",
            self.served.load(Ordering::Relaxed),
            self.declined.load(Ordering::Relaxed),
            *lock(&self.active),
        );
        for (family, s, ev) in self.session.commit_stats() {
            let per = if s.commits == 0 {
                0.0
            } else {
                s.operations as f64 / s.commits as f64
            };
            let ms = |p: f64| {
                s.latency_percentile(p)
                    .map_or("-".to_owned(), |d| format!("{:.1}", d.as_secs_f64() * 1e3))
            };
            line.push_str(&format!(
                "; {}: commits {}, operations {} ({per:.1} per commit), callers grouped {}, \
                 conflicts retried {}, refusals split off {}, commit latency ms p50 {} p90 {} \
                 p99 {} max {}",
                iptables_cmd::name(family),
                s.commits,
                s.operations,
                s.grouped,
                s.conflicts,
                s.split_off,
                ms(50.0),
                ms(90.0),
                ms(99.0),
                ms(100.0),
            ));
            line.push_str(&format!(
                "; events: others' commits replayed {}, chains edited {}, chains read again {}, \
                 renames followed {}, in-flight commits waited for {}, events lost {}",
                ev.commits, ev.chains_edited, ev.chains_forgotten, ev.renames, ev.waited, ev.lost,
            ));
        }
        line
    }

    /// Serves one connection: one request, one reply.
    fn serve(&self, stream: UnixStream) {
        let t = Instant::now();
        // Other users are declined before their request is read: they cannot hold up a
        // thread (and run their command themselves).
        if let Err(why) = self.allowed(&stream) {
            self.declined.fetch_add(1, Ordering::Relaxed);
            let sent = write_head(&mut BufWriter::new(&stream), Some(&why));
            if self.verbose {
                let sent = sent.err().map(|e| format!(" (reply lost: {e})"));
                log!("iptnl serve: declined: {why}{}", sent.unwrap_or_default());
            }
            return;
        }
        let _ = stream.set_read_timeout(Some(REQUEST_TIMEOUT));
        let mut r = BufReader::new(&stream);
        // A connection closed before its first byte (another `iptnl serve` finding out who
        // holds the name, say) is not a bad request.
        if r.fill_buf().is_ok_and(|b| b.is_empty()) {
            if self.verbose {
                log!("iptnl serve: a connection closed without a request");
            }
            return;
        }
        let req = match read_request(&mut r) {
            Ok(r) => r,
            Err(e) => {
                if self.verbose {
                    log!("iptnl serve: a bad request: {e}");
                }
                return;
            }
        };
        // Big enough that a listing's many small blocks go out in few writes.
        let mut w = BufWriter::with_capacity(1 << 18, &stream);
        let (what, sent) = match self.accept(&req) {
            Err(why) => {
                self.declined.fetch_add(1, Ordering::Relaxed);
                let sent = write_head(&mut w, Some(&why));
                (format!("declined: {why}"), sent)
            }
            // The client learns that the command runs before it does.
            // A stop asked for while the request was read: not started, so its client runs
            // it itself.
            Ok(_) if self.stopping.load(Ordering::SeqCst) => {
                ("not run: the server is stopping".to_owned(), Ok(()))
            }
            Ok(job) => {
                // A restore's input follows its request, up to the end of the client's writes.
                let input = match job {
                    Job::Iptables(_) | Job::IptablesAlone(_) => Ok(Vec::new()),
                    Job::Restore(_) => read_input(&mut r),
                };
                match input {
                    Err(e) => (
                        format!("not run: its input was not read whole: {e}"),
                        Ok(()),
                    ),
                    Ok(input) => match write_head(&mut w, None) {
                        Err(e) => ("not run".to_owned(), Err(e)),
                        Ok(()) => {
                            let out = self.run(job, &req, input);
                            (format!("exit {}", out.code), write_output(&mut w, &out))
                        }
                    },
                }
            }
        };
        if self.verbose {
            let sent = match sent {
                Ok(()) => String::new(),
                Err(e) => format!(", reply lost: {e}"),
            };
            log!(
                "iptnl serve: {} {} ({what}, {:.3} ms{sent})",
                req.tool,
                req.args.join(" "),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

/// The signals the server takes: stop (SIGTERM, SIGINT) and figures (SIGUSR1).
const SIGNALS: [i32; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGUSR1];

/// `iptnl serve [--verbose] [--stats SECONDS]`.
pub fn main(args: &[String]) -> i32 {
    let opts = match parse_options(args) {
        Ok(Some(mut o)) => {
            if o.floor.is_none() {
                match iptnl::ipt::ReaderFloor::from_env() {
                    Ok(f) => o.floor = f,
                    Err(e) => {
                        log!("iptnl serve: {}: {e}", iptnl::ipt::ReaderFloor::ENV);
                        return 2;
                    }
                }
            }
            o
        }
        Ok(None) => {
            print!("{USAGE}");
            return 0;
        }
        Err(why) => {
            log!("iptnl serve: {why}\n\n{USAGE}");
            return 2;
        }
    };
    // Blocked here, before any thread starts, so that every thread inherits the mask and the
    // signals wait for the signal thread.
    if let Err(e) = iptnl::netlink::block_signals(&SIGNALS) {
        log!("iptnl serve: cannot block signals: {e}");
        return 1;
    }
    let inherited = match activation::take_inherited(SOCKET_NAME) {
        Ok(l) => l,
        Err(why) => {
            log!("iptnl serve: {why}");
            return 1;
        }
    };
    let activated = inherited.is_some();
    let bound = match inherited {
        Some(l) => Ok(l),
        None => address().and_then(|a| UnixListener::bind_addr(&a)),
    };
    let listener = match bound {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
            log!(
                "iptnl serve: the socket name @{SOCKET_NAME} is already taken in this network \
                 namespace ({}); another server, or an impostor, holds it",
                holder_words(iptnl::netlink::effective_uid())
            );
            return 1;
        }
        Err(e) => {
            log!(
                "iptnl serve: cannot listen on the socket name @{SOCKET_NAME} in this network \
                 namespace: {e}"
            );
            return 1;
        }
    };
    let session = if opts.memory {
        Session::memory()
    } else {
        Session::shared()
    };
    session.set_reader_floor(opts.floor);
    let server = Server {
        session,
        uid: iptnl::netlink::effective_uid(),
        verbose: opts.verbose,
        stopping: AtomicBool::new(false),
        active: Mutex::new(0),
        idle: Condvar::new(),
        served: AtomicU64::new(0),
        declined: AtomicU64::new(0),
    };
    let tick = opts.idle_exit.map_or(TRIM_AFTER, |d| d.min(TRIM_AFTER));
    if let Err(e) = iptnl::netlink::set_accept_timeout(&listener, Some(tick)) {
        log!("iptnl serve: cannot time the wait for commands: {e}");
        return 1;
    }
    let how = if activated {
        " (the socket passed by the service manager)"
    } else {
        ""
    };
    let what = if opts.memory {
        " (in-memory ruleset)"
    } else {
        ""
    };
    println!("iptnl serve: listening on @{SOCKET_NAME}{how} in this network namespace{what}");
    let _ = io::stdout().flush();
    std::thread::scope(|scope| {
        let server = &server;
        scope.spawn(move || signal_loop(server, opts.stats));
        let idle = accept_loop(scope, server, listener, opts.idle_exit);
        // No more connections: wait for the commands started to finish.
        let mut n = lock(&server.active);
        while *n > 0 {
            n = server.idle.wait(n).unwrap_or_else(|p| p.into_inner());
        }
        drop(n);
        if idle {
            // Nothing runs, and the signal thread waits for a signal that will not come.
            stopped(server, &opts);
            std::process::exit(0);
        }
    });
    stopped(&server, &opts);
    0
}

/// The server's last lines.
fn stopped(server: &Server, opts: &Options) {
    if opts.stats.is_some() || opts.verbose {
        log!("{}", server.stats_line());
    }
    log!("iptnl serve: stopped");
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Takes the server's signals: prints the figures on SIGUSR1 (and every `stats` interval),
/// and on SIGTERM/SIGINT marks the server stopping and wakes the accepting thread with a
/// connection of its own.
fn signal_loop(server: &Server, stats: Option<Duration>) {
    loop {
        match iptnl::netlink::wait_signal(&SIGNALS, stats) {
            Ok(Some(libc::SIGUSR1)) | Ok(None) => log!("{}", server.stats_line()),
            Ok(Some(sig)) => {
                let name = if sig == libc::SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                log!(
                    "iptnl serve: {name}: no new commands; finishing the {} in flight",
                    *lock(&server.active)
                );
                server.stopping.store(true, Ordering::SeqCst);
                // The accepting thread wakes on this connection and sees the flag.
                let _ = connect();
                return;
            }
            Err(e) => {
                log!("iptnl serve: waiting for signals: {e}");
                return;
            }
        }
    }
}

/// Who holds the socket name, in words, as the `SO_PEERCRED` of a connection to it tells;
/// `me` is this process's user.
fn holder_words(me: u32) -> String {
    match connect().and_then(|s| iptnl::netlink::peer_credentials(&s)) {
        Ok(p) => {
            let mut words = format!("by {}, uid {}", pid_words(&p), p.uid);
            if !trusted_uid(p.uid, 0) {
                words.push_str(
                    ", not root: iptables commands run by root ignore it and run by themselves",
                );
            } else if p.uid != me {
                words.push_str(&format!(", not this server's uid {me}"));
            }
            words
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => format!(
            "its holder could not be identified: it accepted no connection within {} s",
            CONNECT_TIMEOUT.as_secs()
        ),
        Err(e) => format!("its holder could not be identified: {e}"),
    }
}

#[cfg(test)]
mod tests;
