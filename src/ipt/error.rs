//! Errors of the iptables rule model.

/// A rule spec could not be parsed or is not valid, with the option and value at fault.
///
/// ```
/// use iptnl::ipt::{parse_rule, IpFamily};
/// let err = parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "99999"]).unwrap_err();
/// assert_eq!(err.to_string(), "--dport: invalid port/service `99999' specified");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// An option iptables does not know (or no loaded extension offers).
    #[error("unknown option \"{option}\"")]
    UnknownOption {
        /// The option as given.
        option: String,
    },
    /// An option is an abbreviation of several options.
    #[error("option \"{option}\" is ambiguous")]
    AmbiguousOption {
        /// The option as given.
        option: String,
    },
    /// An option needs a value and none was given.
    #[error("option \"{option}\" requires an argument")]
    MissingValue {
        /// The option.
        option: String,
    },
    /// A value is not valid for its option.
    #[error("{option}: {reason}")]
    BadValue {
        /// The option (e.g. `--dport`).
        option: String,
        /// Why, in iptables' words where it has some.
        reason: String,
    },
    /// An option may not be given twice.
    #[error("{option}: option may only be specified once")]
    Duplicate {
        /// The option.
        option: String,
    },
    /// `!` before an option that cannot be inverted.
    #[error("{option}: option does not support inversion (\"!\")")]
    NotInvertible {
        /// The option.
        option: String,
    },
    /// A match or target extension that iptnl does not have.
    #[error("Couldn't load {kind} `{name}': No such file or directory")]
    UnknownExtension {
        /// "match" or "target".
        kind: &'static str,
        /// Its name.
        name: String,
    },
    /// Options that may not be combined, or a missing mandatory option.
    #[error("{0}")]
    Invalid(String),
    /// Unbalanced quotes in a rule string.
    #[error("unterminated quote in rule")]
    UnterminatedQuote,
    /// A word of a restore line longer than iptables-restore takes (1,023 bytes).
    #[error("Parameter too long!")]
    ParameterTooLong,
}

impl ParseError {
    /// The message as iptables words it: a bad value without the option in front of the
    /// reason (`invalid port/service `99999' specified`).
    ///
    /// ```
    /// use iptnl::ipt::{parse_rule, IpFamily};
    /// let err = parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "99999"]).unwrap_err();
    /// assert_eq!(err.iptables_words(), "invalid port/service `99999' specified");
    /// ```
    pub fn iptables_words(&self) -> String {
        match self {
            ParseError::BadValue { reason, .. } => reason.clone(),
            e => e.to_string(),
        }
    }

    /// A [`ParseError::BadValue`].
    pub fn bad(option: impl Into<String>, reason: impl Into<String>) -> ParseError {
        ParseError::BadValue {
            option: option.into(),
            reason: reason.into(),
        }
    }
}

/// Whether iptables ends this message (a parameter problem in iptables' words, as
/// [`ParseError::iptables_words`] gives it) with a newline of its own, so that it is followed
/// by an empty line before `Try …` on the command line and before `Error occurred at line:`
/// in a restore. These are libxtables' option checks (`xtoptions.c`, `xtables.c`), its
/// `XTTYPE_HOST` resolver, and the set match's checks of its sets, whose format strings end
/// in `\n`.
///
/// ```
/// use iptnl::ipt::error::ends_with_newline;
/// assert!(ends_with_newline("Set foo doesn't exist."));
/// assert!(ends_with_newline("getaddrinfo: Name or service not known"));
/// assert!(ends_with_newline("limit: option \"--limit-burst\" can only be used once."));
/// assert!(!ends_with_newline("invalid port/service `99999' specified"));
/// ```
pub fn ends_with_newline(msg: &str) -> bool {
    let quoted_end = msg.ends_with("\".");
    msg.ends_with("must be specified")
        || msg.ends_with("doesn't exist.")
        || msg.ends_with(", which is not applicable.")
        || msg.ends_with("\" can only be used once.")
        || msg.ends_with("\" cannot be inverted.")
        || msg.ends_with("\" requires an argument.")
        || (quoted_end
            && (msg.contains("\" also requires \"--")
                || msg.contains("\" cannot be used together with \"--")
                || msg.contains("\" has unexpected characters near \"")
                || msg.contains(": trailing garbage after value for option \"--")
                || msg.contains(" to an integer value for option \"--")))
        || msg.ends_with(" is negative.")
        || msg.ends_with(" does not resolve to anything.")
        || (msg.starts_with("Argument must have a ") && msg.ends_with(" characters"))
        || (msg.starts_with("log level \"") && msg.ends_with("\" unknown"))
        || msg.starts_with("getaddrinfo: ")
        || msg.ends_with(" resolves to more than one address")
        || (msg.ends_with(").")
            && (msg.contains(", or out of range (") || msg.contains("nor valid CIDR (")))
        || msg.ends_with("\", or out of range.")
        || (msg.contains("Too many components for option") && msg.ends_with(')'))
        || (msg.starts_with("Couldn't find ") && msg.ends_with('\''))
        || (msg.starts_with("The -t option cannot be used in ") && msg.ends_with('.'))
        || msg == "--wait-interval only makes sense with --wait"
}
