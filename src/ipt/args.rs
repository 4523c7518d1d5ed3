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
        while i < b.len() && CLASS[b[i] as usize] == PLAIN {
            i += 1;
        }
        if i == b.len() || is_blank(b[i]) {
            out.push(Cow::Borrowed(&s[start..i]));
            continue;
        }
        if i == start && b[i] != b'\\' {
            let q = b[i];
            if let Some(close) = b[i + 1..].iter().position(|&c| c == q) {
                let inner = &b[i + 1..i + 1 + close];
                let after = i + close + 2;
                if (q == b'\'' || !inner.contains(&b'\\'))
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
            s in "[ a-c\"'\\\t\u{a0}é]{0,24}"
        ) {
            let fast = split_args(&s).map_err(|e| e.to_string());
            let slow = reference(&s).map_err(|e| e.to_string());
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
