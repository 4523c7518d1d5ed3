//! A small GNU `getopt_long` work-alike: short options may be bundled (`-cn`), a short
//! option's value may be attached (`-Tfilter`) or separate, long options may be abbreviated to
//! any unique prefix and take `--name=value` or `--name value`, operands may come anywhere
//! (GNU permutation) and `--` ends the options. Error texts are glibc's.

/// Whether an option takes a value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A flag.
    No,
    /// A required value.
    Required,
    /// An optional value, as iptables takes `-w`: attached (`-w5`, `--wait=5`), or else the
    /// next argument when it does not start with `-` or `!`.
    Optional,
}

/// One option: its short letter (which identifies it), long name and argument kind.
pub struct Opt {
    pub short: char,
    pub long: &'static str,
    pub arg: Arg,
}

/// A parsed command line: options in order (letter, value), then the operands.
pub struct Parsed {
    pub opts: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
}

/// Parses `args` (without the program name); on error returns glibc's message (without the
/// program-name prefix).
pub fn getopt(args: &[String], spec: &[Opt]) -> Result<Parsed, String> {
    let mut p = Parsed {
        opts: Vec::new(),
        operands: Vec::new(),
    };
    let next_is_value = |i: usize| {
        args.get(i)
            .is_some_and(|a| !a.starts_with('-') && !a.starts_with('!'))
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let exact = spec.iter().find(|o| o.long == name);
            let cands: Vec<&Opt> = spec.iter().filter(|o| o.long.starts_with(name)).collect();
            let o = match (exact, cands.as_slice()) {
                (Some(o), _) => o,
                (None, [o]) => *o,
                (None, []) => return Err(format!("unrecognized option '--{name}'")),
                (None, c) => {
                    let list: Vec<String> = c.iter().map(|o| format!("'--{}'", o.long)).collect();
                    return Err(format!(
                        "option '--{name}' is ambiguous; possibilities: {}",
                        list.join(" ")
                    ));
                }
            };
            let v = match (o.arg, inline) {
                (Arg::No, Some(_)) => {
                    return Err(format!("option '--{}' doesn't allow an argument", o.long))
                }
                (Arg::No, None) => None,
                (Arg::Optional, Some(v)) => Some(v),
                (Arg::Optional, None) if next_is_value(i) => {
                    i += 1;
                    Some(args[i - 1].clone())
                }
                (Arg::Optional, None) => None,
                (Arg::Required, Some(v)) => Some(v),
                (Arg::Required, None) => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        Some(v.clone())
                    }
                    None => return Err(format!("option '--{}' requires an argument", o.long)),
                },
            };
            p.opts.push((o.short, v));
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut k = 0;
            while k < chars.len() {
                let c = chars[k];
                k += 1;
                let Some(o) = spec.iter().find(|o| o.short == c) else {
                    return Err(format!("invalid option -- '{c}'"));
                };
                let rest: String = chars[k..].iter().collect();
                let v = match o.arg {
                    Arg::No => None,
                    Arg::Optional => {
                        k = chars.len();
                        if !rest.is_empty() {
                            Some(rest)
                        } else if next_is_value(i) {
                            i += 1;
                            Some(args[i - 1].clone())
                        } else {
                            None
                        }
                    }
                    Arg::Required => {
                        k = chars.len();
                        if !rest.is_empty() {
                            Some(rest)
                        } else if let Some(v) = args.get(i) {
                            i += 1;
                            Some(v.clone())
                        } else {
                            return Err(format!("option requires an argument -- '{c}'"));
                        }
                    }
                };
                p.opts.push((o.short, v));
            }
            continue;
        }
        p.operands.push(a.clone());
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    const SPEC: &[Opt] = &[
        Opt {
            short: 'n',
            long: "noflush",
            arg: Arg::No,
        },
        Opt {
            short: 'T',
            long: "table",
            arg: Arg::Required,
        },
        Opt {
            short: 'w',
            long: "wait",
            arg: Arg::Optional,
        },
        Opt {
            short: 'W',
            long: "wait-interval",
            arg: Arg::Optional,
        },
    ];

    #[test]
    fn gnu_forms() {
        let p = getopt(
            &s(&[
                "f",
                "-nTnat",
                "--tab=raw",
                "--noflu",
                "--wait=3",
                "--",
                "-x",
            ]),
            SPEC,
        )
        .unwrap();
        assert_eq!(p.operands, s(&["f", "-x"]));
        let o: Vec<_> = p.opts.iter().map(|(c, v)| (*c, v.clone())).collect();
        assert_eq!(
            o,
            vec![
                ('n', None),
                ('T', Some("nat".into())),
                ('T', Some("raw".into())),
                ('n', None),
                ('w', Some("3".into()))
            ]
        );
        assert_eq!(
            getopt(&s(&["-x"]), SPEC).err().unwrap(),
            "invalid option -- 'x'"
        );
        assert_eq!(
            getopt(&s(&["--wai"]), SPEC).err().unwrap(),
            "option '--wai' is ambiguous; possibilities: '--wait' '--wait-interval'"
        );
        let p = getopt(&s(&["-w", "5", "-W", "-n", "f"]), SPEC).unwrap();
        assert_eq!(p.operands, s(&["f"]));
        assert_eq!(p.opts[0], ('w', Some("5".into())));
        assert_eq!(p.opts[1], ('W', None));
        assert_eq!(
            getopt(&s(&["-T"]), SPEC).err().unwrap(),
            "option requires an argument -- 'T'"
        );
    }
}
