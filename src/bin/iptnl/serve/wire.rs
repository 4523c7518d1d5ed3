//! The wire format of `iptnl serve` (see the server's documentation): requests, and the head
//! of a reply. Only `std`: the fuzz target of the request decoder compiles this file as it is.

use std::io::{self, Read, Write};

/// The abstract socket name (shown as `@iptnl`), one per network namespace.
pub(crate) const SOCKET_NAME: &str = "iptnl";

/// The stream byte of a chunk of standard output sent as a file (see the wire format).
pub(crate) const FROM_FILE: u8 = 3;

/// The protocol tag that starts every request and reply.
pub(crate) const MAGIC: &[u8] = b"IPTNL-SERVE/1";

/// Limits on a request: argument count and total argument bytes.
pub(crate) const MAX_ARGS: u32 = 65_536;
pub(crate) const MAX_REQUEST_BYTES: u64 = 4 << 20;

/// A request: the tool and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    pub(crate) version: String,
    pub(crate) tool: String,
    pub(crate) args: Vec<String>,
}

pub(crate) fn put_bytes(w: &mut impl Write, b: &[u8]) -> io::Result<()> {
    let len = u32::try_from(b.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a field over 4 GiB"))?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(b)
}

pub(crate) fn get_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

pub(crate) fn get_u8(r: &mut impl Read) -> io::Result<u8> {
    let mut b = [0; 1];
    r.read_exact(&mut b)?;
    Ok(b[0])
}

pub(crate) fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// Reads a length-prefixed field of at most `limit` bytes.
pub(crate) fn get_bytes(r: &mut impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let len = u64::from(get_u32(r)?);
    if len > limit {
        return Err(bad("a field longer than the limit"));
    }
    let mut v = Vec::new();
    r.take(len).read_to_end(&mut v)?;
    if v.len() as u64 != len {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(v)
}

pub(crate) fn get_string(r: &mut impl Read, limit: u64) -> io::Result<String> {
    String::from_utf8(get_bytes(r, limit)?).map_err(|_| bad("a field that is not UTF-8"))
}

pub(crate) fn expect_magic(r: &mut impl Read) -> io::Result<()> {
    let mut m = [0; MAGIC.len()];
    r.read_exact(&mut m)?;
    if m != MAGIC {
        return Err(bad("not an iptnl serve message"));
    }
    Ok(())
}

pub(crate) fn write_request(w: &mut impl Write, req: &Request) -> io::Result<()> {
    w.write_all(MAGIC)?;
    put_bytes(w, req.version.as_bytes())?;
    let n = u32::try_from(req.args.len() + 1)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "too many arguments"))?;
    w.write_all(&n.to_le_bytes())?;
    put_bytes(w, req.tool.as_bytes())?;
    for a in &req.args {
        put_bytes(w, a.as_bytes())?;
    }
    w.flush()
}

pub(crate) fn read_request(r: &mut impl Read) -> io::Result<Request> {
    expect_magic(r)?;
    let version = get_string(r, 256)?;
    let n = get_u32(r)?;
    if n == 0 || n > MAX_ARGS {
        return Err(bad("an argument count out of range"));
    }
    let mut left = MAX_REQUEST_BYTES;
    let mut words = Vec::new();
    for _ in 0..n {
        let w = get_string(r, left)?;
        left -= w.len() as u64;
        words.push(w);
    }
    let tool = words.remove(0);
    Ok(Request {
        version,
        tool,
        args: words,
    })
}

/// Writes the head of a reply: "running" or "declined", flushed.
pub(crate) fn write_head(w: &mut impl Write, declined: Option<&str>) -> io::Result<()> {
    w.write_all(MAGIC)?;
    match declined {
        None => w.write_all(&[0])?,
        Some(why) => {
            w.write_all(&[1])?;
            put_bytes(w, why.as_bytes())?;
        }
    }
    w.flush()
}

/// Reads the head of a reply: `Ok(None)` for "running", `Ok(Some(reason))` for "declined".
pub(crate) fn read_head(r: &mut impl Read) -> io::Result<Option<String>> {
    expect_magic(r)?;
    match get_u8(r)? {
        0 => Ok(None),
        1 => Ok(Some(get_string(r, 1 << 16)?)),
        _ => Err(bad("an unknown reply")),
    }
}
