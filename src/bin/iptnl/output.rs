//! What a command prints, kept in order: the chunks it wrote to standard output and to
//! standard error, and its exit code. A command run in this process prints them when it
//! ends; one run by `iptnl serve` sends them to the client, which prints them the same way.

use std::io::Write;

/// Which stream a chunk goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Out,
    /// Standard error.
    Err,
}

/// A command's printed text (in the order it was written) and exit code.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Output {
    /// The chunks, consecutive writes to the same stream merged.
    pub chunks: Vec<(Stream, Vec<u8>)>,
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
            Some((s, buf)) if *s == stream => buf.extend_from_slice(text),
            _ => self.chunks.push((stream, text.to_vec())),
        }
    }

    /// Appends `text` to standard output, taking it over when it starts a new chunk (a
    /// listing of a big table is not copied).
    pub fn out_owned(&mut self, text: String) {
        match self.chunks.last_mut() {
            _ if text.is_empty() => {}
            Some((Stream::Out, buf)) => buf.extend_from_slice(text.as_bytes()),
            _ => self.chunks.push((Stream::Out, text.into_bytes())),
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
                s.extend_from_slice(b);
            }
        }
        String::from_utf8_lossy(&s).into_owned()
    }

    /// Prints the chunks on this process's standard output and error, in order, and
    /// returns the exit code. A closed stream (`iptables -S | head`) is not an error.
    pub fn print(&self) -> i32 {
        let (mut o, mut e) = (std::io::stdout().lock(), std::io::stderr().lock());
        for (stream, text) in &self.chunks {
            let _ = match stream {
                Stream::Out => o.write_all(text).and_then(|()| o.flush()),
                Stream::Err => e.write_all(text).and_then(|()| e.flush()),
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
        o.out_owned(String::new());
        o.out_owned("x".into());
        o.out_owned("y".into());
        assert_eq!(
            o.chunks,
            vec![
                (Stream::Err, b"warn\n".to_vec()),
                (Stream::Out, b"ab\n".to_vec()),
                (Stream::Err, b"fail\n".to_vec()),
                (Stream::Out, b"xy".to_vec()),
            ]
        );
        assert_eq!(o.text(Stream::Err), "warn\nfail\n");
    }
}
