//! Splitting rule strings into arguments, shell-like.

use std::borrow::Cow;

use super::error::ParseError;

/// Splits a rule written as one string into arguments the way a POSIX shell would for
/// iptables: spaces, tabs and newlines separate (the blanks iptables-restore splits its lines
/// on; other whitespace belongs to a word), single quotes keep everything literally, double
/// quotes keep spaces and allow `\"` and `\\`, a backslash outside quotes escapes the next
/// character.
///
/// ```
/// use iptnl::ipt::split_args;
/// let a = split_args(r#"-m comment --comment "ns/svc:http cluster IP" -j ACCEPT"#).unwrap();
/// assert_eq!(a, vec!["-m", "comment", "--comment", "ns/svc:http cluster IP", "-j", "ACCEPT"]);
/// ```
pub fn split_args(s: &str) -> Result<Vec<String>, ParseError> {
    Ok(split_args_cow(s)?
        .into_iter()
        .map(Cow::into_owned)
        .collect())
}

/// The characters that separate words, as iptables-restore splits its lines (a space, a tab
/// or a newline; other whitespace is part of a word).
fn is_blank(b: u8) -> bool {
    CLASS[b as usize] == BLANK
}

const PLAIN: u8 = 0;
const BLANK: u8 = 1;
const QUOTING: u8 = 2;

/// Byte classes for the splitter: one table load per byte instead of six comparisons.
const CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    t[b' ' as usize] = BLANK;
    t[b'\t' as usize] = BLANK;
    t[b'\n' as usize] = BLANK;
    t[b'\'' as usize] = QUOTING;
    t[b'"' as usize] = QUOTING;
    t[b'\\' as usize] = QUOTING;
    t
};

/// [`split_args`] borrowing the words from `s` where it can: a word without quotes or
/// backslashes, or one entirely in quotes without escapes (nearly every word of a restore
/// file), is not copied.
pub(crate) fn split_args_cow(s: &str) -> Result<Vec<Cow<'_, str>>, ParseError> {
    let mut out = Vec::with_capacity(24);
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && is_blank(b[i]) {
            i += 1;
        }
        if i == b.len() {
            return Ok(out);
        }
        // Every delimiter is ASCII, so byte positions found here are char boundaries.
        let start = i;
        i = plain_end(b, i);
        if i == b.len() || is_blank(b[i]) {
            out.push(Cow::Borrowed(&s[start..i]));
            continue;
        }
        if i == start && b[i] != b'\\' {
            let q = b[i];
            if let Some(close) = memchr::memchr(q, &b[i + 1..]) {
                let inner = &b[i + 1..i + 1 + close];
                let after = i + close + 2;
                if (q == b'\'' || memchr::memchr(b'\\', inner).is_none())
                    && (after == b.len() || is_blank(b[after]))
                {
                    out.push(Cow::Borrowed(&s[i + 1..i + 1 + close]));
                    i = after;
                    continue;
                }
            }
        }
        let (word, used) = quoted_word(&s[start..])?;
        out.push(Cow::Owned(word));
        i = start + used;
    }
}

/// The end of the run of [`PLAIN`] bytes that starts at `i`: the index of the first blank,
/// quote or backslash at or after `i`, or `b.len()`. Eight bytes at a time: a word-wide test
/// flags the bytes below `(` (the blanks and quotes, with a few plain ones such as `!`) and
/// backslashes; the lowest flagged byte is exact, so every byte before it is plain.
fn plain_end(b: &[u8], i: usize) -> usize {
    plain_end_in(&CLASS, b, i)
}

/// [`plain_end`] for any class table whose non-plain bytes are all below `(` or a backslash.
fn plain_end_in(class: &[u8; 256], b: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while let Some(w) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let x = u64::from_le_bytes(word);
        let below = x.wrapping_sub(LO * 0x28) & !x & HI;
        let y = x ^ (LO * u64::from(b'\\'));
        let backslash = y.wrapping_sub(LO) & !y & HI;
        let m = below | backslash;
        if m == 0 {
            i += 8;
            continue;
        }
        let j = i + (m.trailing_zeros() / 8) as usize;
        if class[b[j] as usize] != PLAIN {
            return j;
        }
        i = j + 1;
    }
    while i < b.len() && class[b[i] as usize] == PLAIN {
        i += 1;
    }
    i
}

/// One word that has quotes or backslashes, unquoted; and the number of bytes it took.
fn quoted_word(s: &str) -> Result<(String, usize), ParseError> {
    let mut cur = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_ascii() && is_blank(c as u8) => return Ok((cur, i)),
            '\'' => loop {
                match chars.next() {
                    Some((_, '\'')) => break,
                    Some((_, c)) => cur.push(c),
                    None => return Err(ParseError::UnterminatedQuote),
                }
            },
            '"' => loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((_, '\\')) => match chars.next() {
                        Some((_, c @ ('"' | '\\' | '$' | '`'))) => cur.push(c),
                        Some((_, c)) => {
                            cur.push('\\');
                            cur.push(c);
                        }
                        None => return Err(ParseError::UnterminatedQuote),
                    },
                    Some((_, c)) => cur.push(c),
                    None => return Err(ParseError::UnterminatedQuote),
                }
            },
            '\\' => {
                if let Some((_, c)) = chars.next() {
                    cur.push(c);
                }
            }
            c => cur.push(c),
        }
    }
    Ok((cur, s.len()))
}

/// Byte classes of a restore line: only blanks and double quotes are special.
const RESTORE_CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    t[b' ' as usize] = BLANK;
    t[b'\t' as usize] = BLANK;
    t[b'\n' as usize] = BLANK;
    t[b'"' as usize] = QUOTING;
    t
};

/// The longest word iptables-restore takes: its word buffer holds 1,023 bytes.
const RESTORE_WORD_MAX: usize = 1023;

/// Splits one line of `iptables-restore` input into arguments as iptables-restore does,
/// which is not how a shell does it: spaces, tabs and newlines separate; only double quotes
/// quote, and inside them a backslash takes the next character literally; a single quote
/// and a backslash outside double quotes are ordinary characters. A closing quote ends the
/// word (`"a b"c` is two words), `""` is an empty word, and a quote left open at the end of
/// the line closes there. A word longer than 1,023 bytes is refused ("Parameter too long!"),
/// but the value of `--nft-rule` (a rule carried whole, which has no such limit).
///
/// ```
/// use iptnl::ipt::split_restore_args;
/// let a = split_restore_args(r#"-m comment --comment 'dapp_WWW%20Full' --comment "a \"b\"""#).unwrap();
/// assert_eq!(a, vec!["-m", "comment", "--comment", "'dapp_WWW%20Full'", "--comment", "a \"b\""]);
/// ```
pub fn split_restore_args(s: &str) -> Result<Vec<String>, ParseError> {
    Ok(split_restore_cow(s)?
        .into_iter()
        .map(Cow::into_owned)
        .collect())
}

/// [`split_restore_args`] borrowing every word that has no escape in it.
pub(crate) fn split_restore_cow(s: &str) -> Result<Vec<Cow<'_, str>>, ParseError> {
    let mut out = Vec::with_capacity(24);
    split_restore_into(s, &mut out, Cow::Borrowed, |w| Some(Cow::Owned(w)))?;
    Ok(out)
}

/// [`split_restore_args`] when every word is a piece of `s` as it stands (nearly every
/// line: no escape in quotes, no quote inside a word), without a copy of any; `None` when a
/// word has to be put together ([`split_restore_cow`] then splits the line).
pub(crate) fn split_restore_plain(s: &str) -> Result<Option<Vec<&str>>, ParseError> {
    let mut out = Vec::with_capacity(24);
    Ok(split_restore_into(s, &mut out, |w| w, |_| None)?.then_some(out))
}

/// Splits `s` into `out` as [`split_restore_args`] does: `word` makes a word of a piece of
/// `s`, `owned` one that had to be put together, or refuses it (`None`), which stops the
/// split (`false`).
fn split_restore_into<'a, W: AsRef<str>>(
    s: &'a str,
    out: &mut Vec<W>,
    word: impl Fn(&'a str) -> W,
    owned: impl Fn(String) -> Option<W>,
) -> Result<bool, ParseError> {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && RESTORE_CLASS[b[i] as usize] == BLANK {
            i += 1;
        }
        if i == b.len() {
            return Ok(true);
        }
        // Every delimiter is ASCII, so byte positions found here are char boundaries.
        let start = i;
        i = plain_end_in(&RESTORE_CLASS, b, i);
        if i == b.len() || b[i] != b'"' {
            push_restore_word(out, word(&s[start..i]))?;
            continue;
        }
        // A double quote: the word goes on inside it, up to the closing quote, and ends
        // there.
        let inner = i + 1;
        let close = memchr::memchr(b'"', &b[inner..]).map_or(b.len(), |c| inner + c);
        if start == i && close == b.len() && inner == close {
            // A quote opened at the end of the line with nothing after it adds no word.
            return Ok(true);
        }
        if start == i && memchr::memchr(b'\\', &b[inner..close]).is_none() {
            push_restore_word(out, word(&s[inner..close]))?;
            i = (close + 1).min(b.len());
            continue;
        }
        let mut w = s[start..i].to_owned();
        let mut chars = s[inner..].char_indices();
        let mut end = b.len();
        while let Some((k, c)) = chars.next() {
            match c {
                '"' => {
                    end = inner + k + 1;
                    break;
                }
                '\\' => {
                    if let Some((_, c)) = chars.next() {
                        w.push(c);
                    }
                }
                c => w.push(c),
            }
        }
        if end == b.len() && w.is_empty() {
            // A quote opened at the end of the line with nothing after it adds no word.
            return Ok(true);
        }
        let Some(w) = owned(w) else {
            return Ok(false);
        };
        push_restore_word(out, w)?;
        i = end;
    }
}

/// Adds a word, refusing one over [`RESTORE_WORD_MAX`] bytes, but the value of
/// `--nft-rule`: a rule carried whole (see [`super::raw`]) is written by a save as one word
/// of whatever length its content takes, and must restore.
fn push_restore_word<W: AsRef<str>>(out: &mut Vec<W>, w: W) -> Result<(), ParseError> {
    if w.as_ref().len() > RESTORE_WORD_MAX
        && out
            .last()
            .is_none_or(|p| p.as_ref() != super::raw::RAW_OPTION)
    {
        return Err(ParseError::ParameterTooLong);
    }
    out.push(w);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(
            split_args("a 'b c' \"d \\\" e\" f\\ g").unwrap(),
            vec!["a", "b c", "d \" e", "f g"]
        );
        assert_eq!(split_args("''").unwrap(), vec![""]);
        assert!(split_args("'x").is_err());
        assert!(split_args("   ").unwrap().is_empty());
        assert_eq!(
            split_args("x\"a b\"y 'c'd \"e\"f \"g\\\"\"").unwrap(),
            vec!["xa by", "cd", "ef", "g\""]
        );
    }

    #[test]
    fn plain_end_finds_the_first_byte_that_is_not_plain() {
        // Every byte value, at every offset of a 19-byte run of `x` (both the eight-byte
        // steps and the tail), against the byte-by-byte scan.
        for v in 0..=255u8 {
            for at in 0..19 {
                let mut b = vec![b'x'; 19];
                b[at] = v;
                let slow = (0..b.len())
                    .find(|&k| CLASS[b[k] as usize] != PLAIN)
                    .unwrap_or(b.len());
                for from in 0..=at {
                    assert_eq!(plain_end(&b, from), slow, "byte {v:#x} at {at} from {from}");
                }
            }
        }
    }

    /// The splitter as it was before it borrowed: a character state machine over the whole
    /// string, the reference the fast one must agree with.
    fn reference(s: &str) -> Result<Vec<String>, ParseError> {
        let mut out = Vec::new();
        let blank = |c: char| c.is_ascii() && is_blank(c as u8);
        let mut rest = s.trim_start_matches(blank);
        while !rest.is_empty() {
            let (w, used) = quoted_word(rest)?;
            out.push(w);
            rest = rest[used..].trim_start_matches(blank);
        }
        Ok(out)
    }

    proptest::proptest! {
        #[test]
        fn borrowed_split_agrees_with_the_reference(
            s in "[ a-c!#$%&()\x01\"'\\\t\n\u{a0}é/:.-]{0,64}"
        ) {
            let fast = split_args(&s).map_err(|e| e.to_string());
            let slow = reference(&s).map_err(|e| e.to_string());
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn restore_lines_split_as_iptables_restore_splits_them() {
        let sp = |s: &str| split_restore_args(s).unwrap();
        assert_eq!(
            sp("-m comment --comment 'a b'"),
            ["-m", "comment", "--comment", "'a", "b'"]
        );
        assert_eq!(sp(r#"x\ y "a\"b\\c""#), [r"x\", "y", r#"a"b\c"#]);
        assert_eq!(sp(r#"x"a b"y"#), ["xa b", "y"]);
        assert_eq!(sp(r#""" a"#), ["", "a"]);
        assert_eq!(sp(r#"a "b c"#), ["a", "b c"]);
        assert_eq!(sp(r#"a ""#), ["a"]);
        assert_eq!(sp("\u{a0}é \t\n"), ["\u{a0}é"]);
        assert!(sp("   ").is_empty());
        assert_eq!(sp(&"x".repeat(1023)).len(), 1);
        assert!(split_restore_args(&"x".repeat(1024)).is_err());
        assert!(split_restore_args(&format!("\"{}\"", "x".repeat(1024))).is_err());
    }

    /// iptables-restore's own splitting, character by character: the reference the fast
    /// one must agree with.
    fn restore_reference(s: &str) -> Vec<String> {
        let (mut out, mut cur) = (Vec::new(), String::new());
        let (mut open, mut escaped) = (false, false);
        for c in s.chars() {
            if open {
                if escaped {
                    cur.push(c);
                    escaped = false;
                    continue;
                } else if c == '\\' {
                    escaped = true;
                    continue;
                } else if c == '"' {
                    open = false;
                    out.push(std::mem::take(&mut cur));
                    continue;
                }
                cur.push(c);
                continue;
            }
            match c {
                '"' => open = true,
                ' ' | '\t' | '\n' => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                c => cur.push(c),
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn restore_split_agrees_with_the_reference(
            s in "[ a-c!#$%&()\x01\"'\\\t\n\u{a0}é/:.-]{0,64}"
        ) {
            proptest::prop_assert_eq!(split_restore_args(&s).unwrap(), restore_reference(&s));
        }

        /// The split without copies gives the same words, and gives up only on a line with
        /// a word put together from pieces (an escape, or a quote inside a word).
        #[test]
        fn plain_split_agrees_with_the_full_one(
            s in "[ a-c!\"\\\t\0é-]{0,48}",
            long in proptest::option::of(1000usize..1030),
        ) {
            // Words around the length limit, with and without the carried rule before them.
            let s = match long {
                Some(n) => format!("{s} {} x --nft-rule {}", "w".repeat(n), "r".repeat(n)),
                None => s,
            };
            let full = split_restore_cow(&s);
            match split_restore_plain(&s) {
                Ok(Some(words)) => {
                    let full = full.expect("the full split accepts what the plain one does");
                    proptest::prop_assert!(full.iter().all(|w| matches!(w, Cow::Borrowed(_))));
                    proptest::prop_assert_eq!(words, full.iter().map(AsRef::as_ref).collect::<Vec<_>>());
                }
                Ok(None) => {
                    proptest::prop_assert!(full.is_err() || full.unwrap().iter().any(|w| matches!(w, Cow::Owned(_))));
                }
                Err(e) => proptest::prop_assert_eq!(Err(e), full.map(|_| ())),
            }
        }
    }
}
