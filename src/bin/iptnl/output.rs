//! What a command prints, kept in order: the chunks it wrote to standard output and to
//! standard error, and its exit code. A command run in this process prints them when it
//! ends; one run by `iptnl serve` sends them to the client, which prints them the same way.
//! A listing of a whole table is kept as the handle's shared text, not copied (tens of
//! megabytes at kube-proxy sizes, asked for by many commands at once).

use std::io::{self, Write};

use iptnl::iptables::TableText;

/// Which stream a chunk goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Out,
    /// Standard error.
    Err,
}

/// The text of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    /// Bytes written.
    Bytes(Vec<u8>),
    /// A table's listing, shared with the handle that made it.
    Table(TableText),
}

impl Default for Text {
    /// Nothing printed.
    fn default() -> Text {
        Text::Bytes(Vec::new())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::Bytes(s.into_bytes())
    }
}

impl Text {
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Text::Bytes(b) => b.len(),
            Text::Table(t) => t.len(),
        }
    }

    /// Writes it to `w`.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        match self {
            Text::Bytes(b) => w.write_all(b),
            Text::Table(t) => t.write_to(w),
        }
    }
}

/// A command's printed text (in the order it was written) and exit code.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Output {
    /// The chunks, consecutive writes to the same stream merged.
    pub chunks: Vec<(Stream, Text)>,
    /// The exit code.
    pub code: i32,
}

impl Output {
    /// Appends to a stream.
    pub fn write(&mut self, stream: Stream, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        match self.chunks.last_mut() {
            Some((s, Text::Bytes(buf))) if *s == stream => buf.extend_from_slice(text),
            _ => self.chunks.push((stream, Text::Bytes(text.to_vec()))),
        }
    }

    /// Appends `text` to standard output, taking it over when it starts a new chunk (a
    /// listing of a big table is not copied; a table's shared listing is never).
    pub fn out_text(&mut self, text: Text) {
        match (self.chunks.last_mut(), text) {
            (_, text) if text.len() == 0 => {}
            (Some((Stream::Out, Text::Bytes(buf))), Text::Bytes(b)) => buf.extend_from_slice(&b),
            (_, text) => self.chunks.push((Stream::Out, text)),
        }
    }

    /// Appends to standard output.
    pub fn out(&mut self, text: &str) {
        self.write(Stream::Out, text.as_bytes());
    }

    /// Appends to standard error.
    pub fn err(&mut self, text: &str) {
        self.write(Stream::Err, text.as_bytes());
    }

    /// Everything written to one stream.
    #[cfg(test)]
    pub fn text(&self, stream: Stream) -> String {
        let mut s = Vec::new();
        for (st, b) in &self.chunks {
            if *st == stream {
                let _ = b.write_to(&mut s);
            }
        }
        String::from_utf8_lossy(&s).into_owned()
    }

    /// Prints the chunks on this process's standard output and error, in order, and
    /// returns the exit code. A closed stream (`iptables -S | head`) is not an error.
    pub fn print(&self) -> i32 {
        let mut o = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        let mut e = io::stderr().lock();
        for (stream, text) in &self.chunks {
            let _ = match stream {
                Stream::Out => text.write_to(&mut o).and_then(|()| o.flush()),
                Stream::Err => text.write_to(&mut e).and_then(|()| e.flush()),
            };
        }
        self.code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_their_order_and_merge() {
        let mut o = Output::default();
        o.err("warn\n");
        o.out("a");
        o.out("b\n");
        o.out("");
        o.err("fail\n");
        o.out_text(String::new().into());
        o.out_text(String::from("x").into());
        o.out_text(String::from("y").into());
        assert_eq!(
            o.chunks,
            vec![
                (Stream::Err, Text::Bytes(b"warn\n".to_vec())),
                (Stream::Out, Text::Bytes(b"ab\n".to_vec())),
                (Stream::Err, Text::Bytes(b"fail\n".to_vec())),
                (Stream::Out, Text::Bytes(b"xy".to_vec())),
            ]
        );
        assert_eq!(o.text(Stream::Err), "warn\nfail\n");
    }
}
