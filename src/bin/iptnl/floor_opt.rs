//! `--reader-floor VERSION` and `IPTNL_READER_FLOOR`: the oldest iptables-nft that must read
//! the rules a command writes (see `iptnl::ipt::ReaderFloor`), for `iptables`, `ip6tables`,
//! their restore tools and `iptnl serve`.
//!
//! The option is iptnl's own, taken out of the command line before iptables' parser sees it
//! (anywhere an option may stand, never as the value of another option); the environment
//! variable applies when the option is not given. A command handed to `iptnl serve` carries
//! the floor it was given as the option, first on its line, so that the server runs it at
//! that floor (a restore) or declines it when its own floor differs (a command, which the
//! client then runs itself).

use iptnl::ipt::ReaderFloor;

/// The option's name.
pub const OPTION: &str = "--reader-floor";

/// Takes `--reader-floor VERSION` (or `--reader-floor=VERSION`) out of `args`, where it
/// stands as an option (`value_of` says whether an argument takes the next one as its
/// value). The floor given (the last, if several), or an error in words.
pub fn take(
    args: &[String],
    value_of: impl Fn(&str) -> bool,
) -> Result<(Vec<String>, Option<ReaderFloor>), String> {
    let mut out = Vec::with_capacity(args.len());
    let mut floor = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let after_value = i > 0 && value_of(&args[i - 1]) && !out.is_empty();
        if !after_value {
            if let Some(v) = a.strip_prefix(OPTION) {
                let text = if let Some(v) = v.strip_prefix('=') {
                    i += 1;
                    v.to_owned()
                } else if v.is_empty() {
                    match args.get(i + 1) {
                        Some(v) => {
                            i += 2;
                            v.clone()
                        }
                        None => return Err(format!("option `{OPTION}' requires an argument")),
                    }
                } else {
                    out.push(a.clone());
                    i += 1;
                    continue;
                };
                floor = Some(text.parse::<ReaderFloor>().map_err(|e| e.to_string())?);
                continue;
            }
        }
        out.push(a.clone());
        i += 1;
    }
    Ok((out, floor))
}

/// `args` with the floor of the environment ([`ReaderFloor::ENV`]) put first as the option
/// when the line gives none, so that a server handed the line sees it; an error in words
/// when the variable names no floor.
pub fn with_env(args: &[String]) -> Result<Vec<String>, String> {
    let given = args
        .iter()
        .any(|a| a == OPTION || a.starts_with(&format!("{OPTION}=")));
    match ReaderFloor::from_env().map_err(|e| format!("{}: {e}", ReaderFloor::ENV))? {
        Some(f) if !given => {
            let mut v = Vec::with_capacity(args.len() + 1);
            v.push(format!("{OPTION}={f}"));
            v.extend_from_slice(args);
            Ok(v)
        }
        _ => Ok(args.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn the_option_is_taken_out_where_it_is_an_option() {
        let value_of = |a: &str| a == "--comment";
        let (rest, f) = take(
            &s(&["-A", "X", "--reader-floor", "1.8.7", "-j", "DROP"]),
            value_of,
        )
        .unwrap();
        assert_eq!(
            (rest, f),
            (s(&["-A", "X", "-j", "DROP"]), Some(ReaderFloor::V1_8_7))
        );
        let (rest, f) = take(&s(&["--reader-floor=1.8.11", "-S"]), value_of).unwrap();
        assert_eq!((rest, f), (s(&["-S"]), Some(ReaderFloor::V1_8_11)));
        // As a comment it stays.
        let line = s(&[
            "-m",
            "comment",
            "--comment",
            "--reader-floor",
            "-j",
            "ACCEPT",
        ]);
        assert_eq!(take(&line, value_of).unwrap(), (line.clone(), None));
        assert!(take(&s(&["--reader-floor"]), value_of)
            .unwrap_err()
            .contains("requires an argument"));
        assert!(take(&s(&["--reader-floor", "1.8.6"]), value_of)
            .unwrap_err()
            .contains("before 1.8.7"));
        // Another option that starts alike is not it.
        let other = s(&["--reader-floors", "x"]);
        assert_eq!(take(&other, value_of).unwrap(), (other.clone(), None));
    }
}
