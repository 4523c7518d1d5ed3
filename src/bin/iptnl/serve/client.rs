//! The client side of `iptnl serve`: the `iptables` and restore names hand their command
//! (or their restore input) to the server of their network namespace, when one listens and
//! may be trusted with it, and print what it answers as if they had run the command
//! themselves (see the server's documentation for the protocol and who trusts whom).

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use iptnl::ipt::IpFamily;
use iptnl::netlink::PeerCredentials;

use super::wire::{
    bad, get_u32, get_u8, read_head, write_request, Request, FROM_FILE, SOCKET_NAME,
};
use crate::iptables_cmd;
#[cfg(test)]
use crate::output::Output;
use crate::output::Stream;

/// The environment variable that makes the `iptables` name run commands itself even when a
/// server listens.
pub(crate) const DIRECT_ENV: &str = "IPTNL_DIRECT";

/// How long a client waits for the server to make room for its connection. A server that
/// lets its backlog stay full (a busy one, or an impostor that never accepts) would
/// otherwise hold the command for good; after this, the client runs the command itself.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// Connects to the socket name, waiting at most [`CONNECT_TIMEOUT`] (then `WouldBlock`).
pub(super) fn connect() -> io::Result<UnixStream> {
    iptnl::netlink::connect_abstract(SOCKET_NAME.as_bytes(), CONNECT_TIMEOUT)
}

/// Where a chunk of output is.
enum Chunk {
    /// The next so many bytes of the reply.
    Inline(usize),
    /// The first so many bytes of a file sent with the reply.
    File(std::fs::File, usize),
}

/// A reply's reader, which may hold descriptors that came with its bytes.
pub(super) trait Descriptors {
    /// The oldest descriptor received and not yet taken.
    fn take_fd(&mut self) -> Option<std::os::fd::OwnedFd>;
}

/// A reply kept in memory (tests) carries no descriptors.
impl Descriptors for &[u8] {
    fn take_fd(&mut self) -> Option<std::os::fd::OwnedFd> {
        None
    }
}

/// The client's end of a connection: every read keeps the descriptors that come with the
/// bytes, in order.
struct FdReader<'a> {
    sock: &'a UnixStream,
    fds: std::collections::VecDeque<std::os::fd::OwnedFd>,
}

impl<'a> FdReader<'a> {
    fn new(sock: &'a UnixStream) -> FdReader<'a> {
        FdReader {
            sock,
            fds: Default::default(),
        }
    }
}

impl Read for FdReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut fds = Vec::new();
        let n = iptnl::netlink::recv_with_fds(self.sock, buf, &mut fds)?;
        self.fds.extend(fds);
        Ok(n)
    }
}

impl Descriptors for BufReader<FdReader<'_>> {
    fn take_fd(&mut self) -> Option<std::os::fd::OwnedFd> {
        self.get_mut().fds.pop_front()
    }
}

/// Reads the rest of a "running" reply: for each chunk of output, `body` is given the reader,
/// the chunk's stream and where its text is; an inline text must be consumed exactly (a
/// listing of a big table is passed on as it arrives, not held whole). Returns the exit code.
fn relay_output<R: Read + Descriptors>(
    r: &mut R,
    body: &mut impl FnMut(&mut R, Stream, Chunk) -> io::Result<()>,
) -> io::Result<i32> {
    let mut code = [0; 4];
    r.read_exact(&mut code)?;
    for _ in 0..get_u32(r)? {
        let stream = get_u8(r)?;
        let len = get_u32(r)? as usize;
        let (stream, chunk) = match stream {
            1 => (Stream::Out, Chunk::Inline(len)),
            2 => (Stream::Err, Chunk::Inline(len)),
            FROM_FILE => {
                let fd = r
                    .take_fd()
                    .ok_or_else(|| bad("a file announced but not received"))?;
                (Stream::Out, Chunk::File(fd.into(), len))
            }
            _ => return Err(bad("an unknown output stream")),
        };
        body(r, stream, chunk)?;
    }
    Ok(i32::from_le_bytes(code))
}

/// Hands bytes `at..len` of `file` to `sink` in pieces of `buf` (read at offsets, so that
/// the file's position, shared with other clients, is neither used nor moved).
fn copy_file_text(
    file: &std::fs::File,
    mut at: usize,
    len: usize,
    buf: &mut [u8],
    mut sink: impl FnMut(&[u8]),
) -> io::Result<()> {
    use std::os::unix::fs::FileExt as _;
    while at < len {
        let want = (len - at).min(buf.len());
        let n = file.read_at(&mut buf[..want], at as u64)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        sink(&buf[..n]);
        at += n;
    }
    Ok(())
}

/// Reads `left` bytes from `r` in pieces of `buf`, handing each to `sink`.
fn copy_text(
    r: &mut impl Read,
    mut left: usize,
    buf: &mut [u8],
    mut sink: impl FnMut(&[u8]),
) -> io::Result<()> {
    while left > 0 {
        let want = left.min(buf.len());
        let n = r.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        sink(&buf[..n]);
        left -= n;
    }
    Ok(())
}

/// Reads the rest of a "running" reply whole.
#[cfg(test)]
pub(super) fn read_output(r: &mut (impl Read + Descriptors)) -> io::Result<Output> {
    let mut out = Output::default();
    let mut buf = vec![0; 1 << 12];
    let code = relay_output(r, &mut |r, stream, chunk| match chunk {
        Chunk::Inline(len) => copy_text(r, len, &mut buf, |t| out.write(stream, t)),
        Chunk::File(f, len) => copy_file_text(&f, 0, len, &mut buf, |t| out.write(stream, t)),
    })?;
    out.code = code;
    Ok(out)
}

/// Prints a reply's output on this process's standard output and error as it arrives, in
/// order, and returns the exit code. Standard output text goes from the socket, or from the
/// file the server sent, to a pipe inside the kernel (`splice`) when standard output is one,
/// so a 30 MB listing is not copied through this process. A closed stream
/// (`iptables -S | head`) is not an error: the rest of its output is read and dropped.
fn print_output(r: &mut BufReader<FdReader<'_>>) -> io::Result<i32> {
    let stdout = io::stdout();
    let (mut o, mut e) = (stdout.lock(), io::stderr().lock());
    let (mut o_ok, mut e_ok, mut can_splice) = (true, true, true);
    let mut buf = vec![0; 1 << 16];
    let code = relay_output(r, &mut |r, stream, chunk| {
        let mut left = match chunk {
            Chunk::Inline(len) => len,
            Chunk::File(_, _) if !o_ok => return Ok(()),
            Chunk::File(f, len) => {
                o_ok = o.flush().is_ok();
                let mut left = len;
                splice_out(&mut left, &mut o_ok, &mut can_splice, |left, want| {
                    iptnl::netlink::splice_at(&f, (len - left) as u64, &stdout, want)
                })?;
                if !o_ok {
                    return Ok(());
                }
                // Not a pipe: the rest by copy.
                return copy_file_text(&f, len - left, len, &mut buf, |t| {
                    o_ok = o_ok && o.write_all(t).is_ok();
                });
            }
        };
        match stream {
            Stream::Out if o_ok && can_splice => {
                // What the reader holds already goes first, by copy.
                let held = r.buffer().len().min(left);
                o_ok = o
                    .write_all(&r.buffer()[..held])
                    .and_then(|()| o.flush())
                    .is_ok();
                r.consume(held);
                left -= held;
                let sock = r.get_ref().sock;
                splice_out(&mut left, &mut o_ok, &mut can_splice, |_, want| {
                    iptnl::netlink::splice(sock, &stdout, want)
                })?;
                copy_text(r, left, &mut buf, |t| {
                    o_ok = o_ok && o.write_all(t).is_ok();
                })
            }
            Stream::Out => copy_text(r, left, &mut buf, |t| {
                o_ok = o_ok && o.write_all(t).is_ok();
            }),
            Stream::Err => {
                // Keep the order of the two streams.
                let _ = o.flush();
                copy_text(r, left, &mut buf, |t| {
                    e_ok = e_ok && e.write_all(t).is_ok();
                })
            }
        }
    });
    let _ = o.flush();
    code
}

/// Moves up to `left` bytes into standard output with `splice` (given how many are left and
/// how many to move at most, it returns how many moved), counting `left` down, until none is left, standard
/// output fails (`o_ok` becomes false: the rest is dropped) or is no pipe (`can_splice`
/// becomes false: the caller copies the rest). Its source ending early is an error.
fn splice_out(
    left: &mut usize,
    o_ok: &mut bool,
    can_splice: &mut bool,
    mut splice: impl FnMut(usize, usize) -> io::Result<usize>,
) -> io::Result<()> {
    while *left > 0 && *o_ok && *can_splice {
        match splice(*left, (*left).min(1 << 20)) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => *left -= n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => *can_splice = false,
            Err(_) => *o_ok = false,
        }
    }
    Ok(())
}

/// Whether a client running as `me` may hand its commands to a server running as `server`:
/// only when the server runs as root or as the client's own user.
pub(super) fn trusted_uid(server: u32, me: u32) -> bool {
    server == 0 || server == me
}

/// A peer's process in words: "pid 123", or why its pid is unknown.
pub(super) fn pid_words(p: &PeerCredentials) -> String {
    if p.pid > 0 {
        format!("pid {}", p.pid)
    } else {
        "pid not visible in this pid namespace".to_owned()
    }
}

/// whether the server at the other end of `stream` is trusted (see
/// [`trusted_uid`]), or why not, in words.
pub(super) fn trusted(stream: &UnixStream) -> Result<(), String> {
    let me = iptnl::netlink::effective_uid();
    match iptnl::netlink::peer_credentials(stream) {
        Ok(p) if trusted_uid(p.uid, me) => Ok(()),
        Ok(p) => Err(format!(
            "it runs as uid {} ({}), not as root{}",
            p.uid,
            pid_words(&p),
            if me == 0 {
                String::new()
            } else {
                format!(" or as you (uid {me})")
            }
        )),
        Err(e) => Err(format!("its user cannot be checked ({e})")),
    }
}

/// runs `iptables`/`ip6tables` (per `family`) with `args` through the server of
/// this network namespace and returns the exit code, after printing what the command printed.
/// `None` when no server listens, [`DIRECT_ENV`] is set, or the server declined: then the
/// caller runs the command itself.
pub fn forward(family: IpFamily, args: &[String]) -> Option<i32> {
    let tool = iptables_cmd::name(family);
    let stream = open_server(tool)?;
    let req = Request {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        tool: tool.to_owned(),
        args: args.to_vec(),
    };
    // A request that did not arrive whole is never run, nor one the server did not start:
    // run those here.
    write_request(&mut BufWriter::new(&stream), &req).ok()?;
    finish(&stream)
}

/// Runs the restore tool `prog` with `args` and `input` (its text, read from the reader up
/// to its end) through the server of this network namespace and returns the exit code,
/// after printing what the restore printed; the server runs it on its own connection, so
/// that it does not conflict with the commands it commits meanwhile. `None` when no server
/// listens, [`DIRECT_ENV`] is set, or the server declined or did not start it: then the
/// caller runs the restore itself (from the start of its input: the reader may have been
/// read from).
pub fn forward_restore(prog: &str, args: &[String], input: &mut dyn Read) -> Option<i32> {
    let stream = open_server(prog)?;
    let req = Request {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        tool: prog.to_owned(),
        args: args.to_vec(),
    };
    let sent = (|| {
        let mut w = BufWriter::with_capacity(1 << 16, &stream);
        write_request(&mut w, &req)?;
        io::copy(input, &mut w)?;
        w.flush()?;
        drop(w);
        // The end of the input.
        stream.shutdown(std::net::Shutdown::Write)
    })();
    sent.ok()?;
    finish(&stream)
}

/// a connection to the server of this network namespace that may be trusted
/// with a command, or `None` (nobody listens, [`DIRECT_ENV`] is set, the server is not
/// trusted or accepts nothing: said on stderr), when the command runs here.
fn open_server(tool: &str) -> Option<UnixStream> {
    if std::env::var_os(DIRECT_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        return None;
    }
    let stream = match connect() {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            eprintln!(
                "{tool}: ignoring the iptnl server on @{SOCKET_NAME}: it accepted no connection \
                 within {} s; running the command directly",
                CONNECT_TIMEOUT.as_secs()
            );
            return None;
        }
        // Nobody listens.
        Err(_) => return None,
    };
    // Anybody in the namespace may have bound the name first: hand nothing to a server that
    // runs as another user, which could answer "done" for a command it never ran.
    if let Err(why) = trusted(&stream) {
        eprintln!(
            "{tool}: ignoring the iptnl server on @{SOCKET_NAME}: {why}; running the command directly"
        );
        return None;
    }
    Some(stream)
}

/// Client side, once the request is sent: `None` when the server declined or did not start
/// the command (it runs here then); else the exit code, after printing its output.
fn finish(stream: &UnixStream) -> Option<i32> {
    let mut r = BufReader::new(FdReader::new(stream));
    if read_head(&mut r).ok()?.is_some() {
        return None;
    }
    match print_output(&mut r) {
        Ok(code) => Some(code),
        Err(e) => {
            eprintln!(
                "iptnl: the server (iptnl serve, @{SOCKET_NAME}) stopped answering ({e}) while \
                 running the command; it may or may not have been applied"
            );
            Some(4)
        }
    }
}
