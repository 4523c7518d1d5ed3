//! A table as `iptables -S` prints it, shared rather than copied: blocks of text (the chain
//! lines, then each chain's rules), each rendered once per version of its chain and shared
//! by the cache and every listing made from it. A listing of a 200k-rule table is tens of
//! megabytes; a server answering many `iptables -S` at once writes the shared blocks to each
//! client instead of joining them into a new text per command.

use std::fmt;
use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::sync::{Arc, OnceLock};

/// What a `-S` line of a rule without an iptables form holds (see
/// [`TableText::has_raw_rules`]).
const RAW_RULE: &[u8] = b" -m nft --nft-rule ";

/// A block of listing lines as one text, each line ended by a newline.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Block {
    text: Box<str>,
    lines: usize,
    raw: bool,
}

impl Block {
    /// The block of `lines` (each without its newline).
    pub(crate) fn new(lines: impl IntoIterator<Item = String>) -> Block {
        let lines: Vec<String> = lines.into_iter().collect();
        // Sized exactly: a cache holds tens of thousands of blocks for as long as it lives.
        let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for l in &lines {
            text.push_str(l);
            text.push('\n');
        }
        Block {
            raw: memchr::memmem::find(text.as_bytes(), RAW_RULE).is_some(),
            text: text.into_boxed_str(),
            lines: lines.len(),
        }
    }

    /// Its lines, without their newlines.
    pub(crate) fn text_lines(&self) -> impl Iterator<Item = &str> + '_ {
        self.text.lines()
    }

    /// Whether a line may name chain `name` (as a word: after a space, before a space or the
    /// line's end), or holds a rule carried as bytes, which may name any chain.
    pub(crate) fn mentions(&self, name: &str) -> bool {
        let text = self.text.as_bytes();
        self.raw
            || memchr::memmem::find_iter(text, name.as_bytes()).any(|at| {
                let end = at + name.len();
                at > 0 && text[at - 1] == b' ' && matches!(text.get(end), Some(b' ' | b'\n') | None)
            })
    }

    /// The block of `text`: whole lines, each ended by a newline.
    pub(crate) fn from_text(text: String) -> Block {
        Block {
            lines: memchr::memchr_iter(b'\n', text.as_bytes()).count(),
            raw: memchr::memmem::find(text.as_bytes(), RAW_RULE).is_some(),
            text: text.into_boxed_str(),
        }
    }

    /// How many lines it holds.
    pub(crate) fn lines(&self) -> usize {
        self.lines
    }

    /// The length of its text, newlines included.
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }
}

/// The text of `iptables -S` for a whole table, as shared blocks.
///
/// ```no_run
/// use iptnl::iptables::IpTables;
/// let ipt = IpTables::new(iptnl::ipt::IpFamily::V4)?;
/// let text = ipt.list_table_shared("nat")?;
/// // Written out without being joined first.
/// text.write_to(&mut std::io::stdout().lock())?;
/// eprintln!("{} bytes, {} lines", text.len(), text.lines().count());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct TableText {
    blocks: Arc<Vec<Arc<Block>>>,
    len: usize,
    raw: bool,
    /// The text in a sealed in-memory file, once asked for, shared by every clone (see
    /// [`TableText::sealed_file`]).
    file: Arc<OnceLock<Option<File>>>,
}

impl TableText {
    /// The listing made of `blocks`, in order.
    pub(crate) fn new(blocks: Vec<Arc<Block>>) -> TableText {
        TableText {
            len: blocks.iter().map(|b| b.text.len()).sum(),
            raw: blocks.iter().any(|b| b.raw),
            blocks: Arc::new(blocks),
            file: Arc::default(),
        }
    }

    /// The text in a sealed in-memory file (a `memfd`, which nobody can change), written on
    /// the first call and shared by every clone of this listing: a server hands the same
    /// listing to many clients as a descriptor, each of which moves its pages into its own
    /// output, instead of copying tens of megabytes into each client's socket. `None` when
    /// the file cannot be made (no memory, a system without `memfd_create`).
    ///
    /// ```
    /// use std::os::unix::fs::FileExt;
    /// let t = iptnl::iptables::TableText::default();
    /// if let Some(f) = t.sealed_file() {
    ///     assert_eq!(f.metadata()?.len(), t.len() as u64);
    /// }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn sealed_file(&self) -> Option<&File> {
        self.file
            .get_or_init(|| {
                let mut f = crate::netlink::memfd("iptables-listing").ok()?;
                self.write_to(&mut f).ok()?;
                crate::netlink::seal_contents(&f).ok()?;
                Some(f)
            })
            .as_ref()
    }

    /// Its length in bytes.
    ///
    /// ```
    /// let t = iptnl::iptables::TableText::default();
    /// assert_eq!(t.len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    ///
    /// ```
    /// assert!(iptnl::iptables::TableText::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether it lists a rule without an iptables form (a `-m nft --nft-rule HEX` line),
    /// about which the `iptables` command warns.
    ///
    /// ```
    /// assert!(!iptnl::iptables::TableText::default().has_raw_rules());
    /// ```
    pub fn has_raw_rules(&self) -> bool {
        self.raw
    }

    /// Its lines, without their newlines.
    ///
    /// ```
    /// assert_eq!(iptnl::iptables::TableText::default().lines().count(), 0);
    /// ```
    pub fn lines(&self) -> impl Iterator<Item = &str> + '_ {
        self.blocks.iter().flat_map(|b| b.text.lines())
    }

    /// Writes the text to `w`, many blocks per vectored write, without copying it first.
    ///
    /// ```
    /// let mut out = Vec::new();
    /// iptnl::iptables::TableText::default().write_to(&mut out)?;
    /// assert!(out.is_empty());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        /// Blocks handed to one vectored write (the kernel's `IOV_MAX`).
        const MAX: usize = 1024;
        let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(MAX);
        for chunk in self.blocks.chunks(MAX) {
            slices.clear();
            slices.extend(
                chunk
                    .iter()
                    .filter(|b| !b.text.is_empty())
                    .map(|b| IoSlice::new(b.text.as_bytes())),
            );
            let mut left: &mut [IoSlice<'_>] = &mut slices;
            while !left.is_empty() {
                match w.write_vectored(left) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => IoSlice::advance_slices(&mut left, n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for TableText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.blocks.iter().try_for_each(|b| f.write_str(&b.text))
    }
}

/// Two listings are equal when their texts are.
impl PartialEq for TableText {
    fn eq(&self, other: &TableText) -> bool {
        self.len == other.len
            && self
                .blocks
                .iter()
                .flat_map(|b| b.text.bytes())
                .eq(other.blocks.iter().flat_map(|b| b.text.bytes()))
    }
}

impl Eq for TableText {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_make_one_text() {
        let t = TableText::new(vec![
            Arc::new(Block::new(["-P INPUT ACCEPT".to_owned()])),
            Arc::new(Block::new(Vec::new())),
            Arc::new(Block::new([
                "-A INPUT -j ACCEPT".to_owned(),
                "-A INPUT -m nft --nft-rule 00 -j DROP".to_owned(),
            ])),
        ]);
        let s = "-P INPUT ACCEPT\n-A INPUT -j ACCEPT\n-A INPUT -m nft --nft-rule 00 -j DROP\n";
        assert_eq!(t.to_string(), s);
        assert_eq!(t.len(), s.len());
        assert!(t.has_raw_rules());
        assert_eq!(t.lines().count(), 3);
        let mut w = Vec::new();
        t.write_to(&mut w).unwrap();
        assert_eq!(w, s.as_bytes());
        let f = t.sealed_file().expect("a memfd");
        let mut back = vec![0; s.len()];
        std::os::unix::fs::FileExt::read_exact_at(f, &mut back, 0).unwrap();
        assert_eq!(back, s.as_bytes());
        assert_eq!(f.metadata().unwrap().len(), s.len() as u64);
        // Made once, shared by the clones.
        let c = t.clone();
        assert!(std::ptr::eq(c.sealed_file().unwrap(), f));
        let one = TableText::new(vec![Arc::new(Block::new(s.lines().map(str::to_owned)))]);
        assert_eq!(one, t);
        assert_ne!(one, TableText::default());
        assert!(!TableText::new(vec![Arc::new(Block::new(["-N x".to_owned()]))]).has_raw_rules());
    }
}
