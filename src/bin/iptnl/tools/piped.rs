//! A restore read from a pipe (or a terminal) whose writer pauses: what is complete when
//! the input would block is committed, as iptables-restore commits at each `COMMIT` it
//! reaches; input that is all there when it is read stays one batch.

use std::io::Read;
use std::time::Duration;

use iptnl::iptables::restore::{input_text, restore_part};
use iptnl::netlink::{strerror, Conn};

use super::{
    missing_module_warnings, report_restore_error, verbose_text, Ended, RestoreCmd, RestoreInput,
};
use crate::output::Output;

/// How long the input may stay quiet after a `COMMIT` line before what came so far is
/// committed: a writer that sends its text in several writes is not cut between them.
const PAUSE: Duration = Duration::from_millis(50);

/// What [`read_to_pause`] read.
pub enum FromPipe {
    /// The whole input (its writer closed it).
    Whole(Vec<u8>),
    /// The input up to its last `COMMIT` line so far (its writer paused there), and the
    /// pipe with what was read after that line.
    Paused(Vec<u8>, Pipe),
}

/// A pipe being read, and what was read of it past the part handed on.
pub struct Pipe {
    file: std::fs::File,
    buf: Vec<u8>,
    /// Bytes of `buf` whose lines were looked at.
    scanned: usize,
    /// The end of the last `COMMIT` line in `buf`.
    commit_end: Option<usize>,
}

/// Whether a line is a `COMMIT` line, as the restore parser reads one.
fn is_commit(line: &[u8]) -> bool {
    let l = line.strip_suffix(b"\r").unwrap_or(line);
    let start = l
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(l.len());
    &l[start..] == b"COMMIT"
}

/// Reads `file` to its end, or until its writer pauses right after a `COMMIT` line.
pub fn read_to_pause(file: std::fs::File) -> std::io::Result<FromPipe> {
    let mut p = Pipe {
        file,
        buf: Vec::new(),
        scanned: 0,
        commit_end: None,
    };
    Ok(match p.next_part()? {
        (part, true) => FromPipe::Whole(part),
        (part, false) => FromPipe::Paused(part, p),
    })
}

impl Pipe {
    /// The next part: the text up to and including the last `COMMIT` line read when the
    /// writer paused (`false`), or everything to the end of the input (`true`).
    pub fn next_part(&mut self) -> std::io::Result<(Vec<u8>, bool)> {
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            while let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
                let end = self.scanned + i + 1;
                if is_commit(&self.buf[self.scanned..end - 1]) {
                    self.commit_end = Some(end);
                }
                self.scanned = end;
            }
            if let Some(end) = self.commit_end {
                if !iptnl::netlink::input_ready(&self.file, PAUSE)? {
                    let rest = self.buf.split_off(end);
                    let part = std::mem::replace(&mut self.buf, rest);
                    self.scanned -= end;
                    self.commit_end = None;
                    return Ok((part, false));
                }
            }
            match self.file.read(&mut chunk) {
                Ok(0) => return Ok((std::mem::take(&mut self.buf), true)),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Restores a pipe's input part by part: `first`, then each part [`Pipe`] reads
/// until the input ends, each committed (with `--test`, checked) before the next is read.
/// The first part is handed to `iptnl serve` when one runs (its lines are numbered from the
/// input's first); the others run here, their lines numbered in the whole input. After a
/// failed part the input is not read on.
pub(super) fn run_piped(
    prog: &str,
    args: &[String],
    cmd: &RestoreCmd,
    first: Vec<u8>,
    mut pipe: Pipe,
    out: &mut Output,
) -> Ended {
    let family = cmd.family;
    let lines_of = |b: &[u8]| memchr::memchr_iter(b'\n', b).count();
    let mut before = lines_of(&first);
    let mut pending = match RestoreInput::Text(first).forward(prog, args) {
        Ok(0) => None,
        Ok(code) => return Ended::Served(code),
        Err(input) => {
            before = 0;
            Some(input.into_bytes())
        }
    };
    let mut conn = match Conn::open() {
        Ok(c) => c,
        Err(e) => {
            out.err(&format!("{prog}: {e}\n"));
            return Ended::Here(1);
        }
    };
    loop {
        let (part, end) = match pending.take() {
            Some(p) => (p, false),
            None => match pipe.next_part() {
                Ok(p) => p,
                Err(e) => {
                    out.err(&format!(
                        "{prog}: reading standard input: {}\n",
                        strerror(&e)
                    ));
                    return Ended::Here(1);
                }
            },
        };
        let text = input_text(&part);
        // A writer that closes its pipe right after a pause leaves nothing more.
        if !text.trim().is_empty() {
            match restore_part(&mut conn, family, &text, before, &cmd.opts) {
                Ok(r) => {
                    // What -v prints of this part, now.
                    let mut now = Output::default();
                    now.out(&verbose_text(family, &r.verbose));
                    now.print();
                }
                Err(e) => {
                    missing_module_warnings(family, &e, out);
                    // The error quotes its line: numbered in the whole input.
                    let whole = "\n".repeat(before) + &text;
                    return Ended::Here(report_restore_error(prog, &whole, &e, out));
                }
            }
        }
        if end {
            return Ended::Here(0);
        }
        before += lines_of(&part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn commit_lines() {
        assert!(is_commit(b"COMMIT"));
        assert!(is_commit(b"  COMMIT\r"));
        assert!(!is_commit(b"COMMIT "));
        assert!(!is_commit(b"# COMMIT"));
    }

    /// All there at once: one part. A pause after a COMMIT: the part up to it, then the
    /// rest (with the open table's lines) when the input ends.
    #[test]
    fn parts_end_at_pauses_after_commit() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"*filter\nCOMMIT\n*nat\nCOMMIT\n").unwrap();
        drop(w);
        let FromPipe::Whole(all) = read_to_pause(std::os::fd::OwnedFd::from(r).into()).unwrap()
        else {
            panic!("cut")
        };
        assert_eq!(all, b"*filter\nCOMMIT\n*nat\nCOMMIT\n");

        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"*filter\n:foo - [0:0]\nCOMMIT\n*filter\n:foo")
            .unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            w.write_all(b" [0:0]\nCOMMIT\n").unwrap();
        });
        let FromPipe::Paused(first, mut pipe) =
            read_to_pause(std::os::fd::OwnedFd::from(r).into()).unwrap()
        else {
            panic!("not cut")
        };
        assert_eq!(first, b"*filter\n:foo - [0:0]\nCOMMIT\n");
        writer.join().unwrap();
        assert_eq!(
            pipe.next_part().unwrap(),
            (b"*filter\n:foo [0:0]\nCOMMIT\n".to_vec(), true)
        );
    }
}
