//! The input of a restore: text in memory, or a regular file read in pieces for each pass
//! over it, never held whole, and checked for changes between passes.

use std::borrow::Cow;
use std::collections::HashMap;

use super::RestoreError;
use crate::ipt::restore_input::{lines, LineFn, Lines};

/// Bytes of a regular file read at a time (a piece grows only for a longer line).
const PIECE: usize = 1 << 20;

/// The text of restore input: borrowed when the bytes are valid UTF-8, else with each invalid
/// sequence replaced as [`String::from_utf8_lossy`] does. Valid input, the usual case, is
/// checked by the standard library's word-at-a-time validation, many times faster than the
/// byte-by-byte walk `from_utf8_lossy` makes over every byte.
///
/// ```
/// use iptnl::iptables::restore::input_text;
/// assert!(matches!(input_text(b"*filter\n"), std::borrow::Cow::Borrowed("*filter\n")));
/// assert_eq!(input_text(b"-A X \xff\n"), "-A X \u{fffd}\n");
/// ```
pub fn input_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A regular file being restored: read in pieces for each pass over the input, never held
/// whole, and checked for changes between passes.
#[derive(Debug)]
pub(crate) struct InputFile<'a> {
    file: &'a std::fs::File,
    /// Where the input starts and ends in the file.
    start: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl<'a> InputFile<'a> {
    pub(crate) fn new(
        file: &'a std::fs::File,
        start: u64,
        meta: &std::fs::Metadata,
    ) -> InputFile<'a> {
        InputFile {
            file,
            start: start.min(meta.len()),
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// An error unless the file still has the size and modification time it had at first.
    fn unchanged(&self) -> Result<(), RestoreError> {
        let meta = self.file.metadata().map_err(RestoreError::Read)?;
        if meta.len() != self.len || meta.modified().ok() != self.modified {
            return Err(changed());
        }
        Ok(())
    }

    /// Calls `f` with consecutive pieces of the file's text, each ending with a newline (but
    /// the last), invalid UTF-8 replaced as `String::from_utf8_lossy` does.
    fn for_each_piece(
        &self,
        mut f: impl FnMut(&str) -> Result<(), RestoreError>,
    ) -> Result<(), RestoreError> {
        use std::os::unix::fs::FileExt;
        self.unchanged()?;
        let size = usize::try_from(self.len - self.start).unwrap_or(PIECE);
        let mut buf = vec![0u8; PIECE.min(size).max(1)];
        // File offset of buf[0], and how much of buf holds file bytes.
        let mut off = self.start;
        let mut filled = 0usize;
        loop {
            let left = self.len - off - filled as u64;
            if filled == buf.len() && left > 0 {
                // A line longer than the buffer.
                buf.resize(buf.len() * 2, 0);
            }
            let want = (buf.len() - filled).min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = if want == 0 {
                0
            } else {
                match self
                    .file
                    .read_at(&mut buf[filled..filled + want], off + filled as u64)
                {
                    Ok(0) => return Err(changed()),
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(RestoreError::Read(e)),
                }
            };
            filled += n;
            let end = off + filled as u64 == self.len;
            let cut = if end {
                filled
            } else {
                match buf[..filled].iter().rposition(|&b| b == b'\n') {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            f(&input_text(&buf[..cut]))?;
            if end {
                break;
            }
            buf.copy_within(cut..filled, 0);
            off += cut as u64;
            filled -= cut;
        }
        self.unchanged()
    }
}

fn changed() -> RestoreError {
    RestoreError::Read(std::io::Error::other(
        "the file changed while it was being restored",
    ))
}

/// The input of a restore: text in memory, or a regular file read again for each pass.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    Text(&'a str),
    /// Text that is a part of a longer input, from the line after the first number on.
    Part(&'a str, usize),
    File(&'a InputFile<'a>),
}

impl Source<'_> {
    /// Size of the input in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Source::Text(t) | Source::Part(t, _) => t.len(),
            Source::File(f) => usize::try_from(f.len - f.start).unwrap_or(usize::MAX),
        }
    }

    /// The text of lines `wanted` (numbered from 1; a missing line is absent from the map).
    pub(crate) fn lines_text(
        &self,
        wanted: &[usize],
    ) -> Result<HashMap<usize, String>, RestoreError> {
        let mut sorted = wanted.to_vec();
        sorted.sort_unstable();
        let mut out = HashMap::new();
        if sorted.is_empty() {
            return Ok(out);
        }
        self.for_each_line(&mut |n, l| {
            if sorted.binary_search(&n).is_ok() {
                out.insert(n, l.to_owned());
            }
            Ok(())
        })?;
        Ok(out)
    }
}

impl Lines for Source<'_> {
    type Error = RestoreError;

    fn for_each_line(&self, f: &mut LineFn<'_, RestoreError>) -> Result<(), RestoreError> {
        let mut n = match self {
            Source::Part(_, before) => *before,
            _ => 0,
        };
        let mut piece = |text: &str| {
            for l in lines(text) {
                n += 1;
                f(n, l)?;
            }
            Ok(())
        };
        match self {
            Source::Text(t) | Source::Part(t, _) => piece(t),
            Source::File(file) => file.for_each_piece(piece),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `input_text` is `from_utf8_lossy`: the same text for valid and invalid bytes
    /// (truncated sequences, surrogates, overlongs, stray continuation bytes), borrowed when
    /// nothing was replaced.
    #[test]
    fn input_text_is_from_utf8_lossy() {
        let cases: [&[u8]; 9] = [
            b"",
            b"-A INPUT -j ACCEPT\n",
            "-m comment --comment \"caf\u{e9} \u{1f600}\"\n".as_bytes(),
            b"\xff",
            b"abc\xe2\x82",
            b"\xed\xa0\x80 surrogate",
            b"\xc0\xaf overlong",
            b"\x80\x80 continuation\n\xf4\x90\x80\x80",
            b"mixed \xe2\x82\xac ok \xe2\x82 cut",
        ];
        for bytes in cases {
            let want = String::from_utf8_lossy(bytes);
            let got = input_text(bytes);
            assert_eq!(got, want, "{bytes:?}");
            assert_eq!(
                matches!(got, Cow::Borrowed(_)),
                matches!(want, Cow::Borrowed(_)),
                "{bytes:?}"
            );
        }
    }

    /// A file read in pieces gives the lines `str::lines` gives for its whole text: across
    /// piece boundaries, with a line longer than a piece, CRLF, invalid UTF-8, no final
    /// newline, and from a start offset; a change of the file is an error.
    #[test]
    fn file_pieces_give_the_lines_of_the_whole_text() {
        use std::io::Write;
        let mut bytes = Vec::new();
        for i in 0..40_000 {
            bytes
                .extend_from_slice(format!("-A C{i} -j ACCEPT{}\n", "x".repeat(i % 97)).as_bytes());
            if i == 20_000 {
                bytes.extend(std::iter::repeat_n(b'y', PIECE + PIECE / 2));
                bytes.extend_from_slice(b"\r\n\xff\xfe bad\n\n");
            }
        }
        bytes.extend_from_slice(b"last line without newline");
        let path = std::env::temp_dir().join(format!("iptnl-pieces-{}", std::process::id()));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let meta = file.metadata().unwrap();
        for start in [0usize, 7] {
            let text = String::from_utf8_lossy(&bytes[start..]);
            let want: Vec<&str> = text.lines().collect();
            let input = InputFile::new(&file, start as u64, &meta);
            let mut got: Vec<String> = Vec::new();
            Source::File(&input)
                .for_each_line(&mut |n, l| {
                    assert_eq!(n, got.len() + 1);
                    got.push(l.to_owned());
                    Ok(())
                })
                .unwrap();
            assert_eq!(got.len(), want.len());
            assert!(got.iter().zip(&want).all(|(a, b)| a == b));
            let quoted = Source::File(&input).lines_text(&[3, 20_002]).unwrap();
            assert_eq!(quoted[&3], want[2]);
            assert_eq!(quoted[&20_002], want[20_001]);
        }
        let input = InputFile::new(&file, 0, &meta);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"\n-A X\n")
            .unwrap();
        let e = Source::File(&input)
            .for_each_line(&mut |_, _| Ok(()))
            .unwrap_err();
        assert!(e.to_string().contains("the file changed"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }
}
