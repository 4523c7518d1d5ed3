//! Splitting rule strings into arguments, shell-like.

use super::error::ParseError;

/// Splits a rule written as one string into arguments the way a POSIX shell would for
/// iptables: whitespace separates, single quotes keep everything literally, double quotes keep
/// spaces and allow `\"` and `\\`, a backslash outside quotes escapes the next character.
///
/// ```
/// use iptnl::ipt::split_args;
/// let a = split_args(r#"-m comment --comment "ns/svc:http cluster IP" -j ACCEPT"#).unwrap();
/// assert_eq!(a, vec!["-m", "comment", "--comment", "ns/svc:http cluster IP", "-j", "ACCEPT"]);
/// ```
pub fn split_args(s: &str) -> Result<Vec<String>, ParseError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(ParseError::UnterminatedQuote),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(ParseError::UnterminatedQuote),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(ParseError::UnterminatedQuote),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
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
    }
}
