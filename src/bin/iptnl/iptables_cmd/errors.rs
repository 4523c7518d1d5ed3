//! What a failed command prints: iptables' messages, exit codes and warnings.

use iptnl::ipt::savefile::SAVE_VERSION;
use iptnl::ipt::{IpFamily, ParseError};
use iptnl::iptables::{Error, IpTables};

use super::*;

/// What a failed command prints and returns.
pub(super) struct Fail {
    pub(super) code: i32,
    pub(super) text: String,
}

/// `NAME v1.8.11 (nf_tables)`.
pub(super) fn prefix(family: IpFamily) -> String {
    format!("{} {SAVE_VERSION} (nf_tables)", name(family))
}

/// A parameter problem: exit 2, the message with the version prefix and the `Try` line.
pub(super) fn usage_err(family: IpFamily, msg: impl std::fmt::Display) -> Fail {
    let n = name(family);
    let msg = msg.to_string();
    if msg.starts_with("Bad argument `") {
        // iptables prints this one without the program prefix.
        return Fail {
            code: 2,
            text: format!("{msg}\nTry `{n} -h' or '{n} --help' for more information."),
        };
    }
    // Extension option checks end in a newline of their own.
    let msg = if iptnl::ipt::error::ends_with_newline(&msg) {
        format!("{msg}\n")
    } else {
        msg
    };
    Fail {
        code: 2,
        text: format!(
            "{}: {msg}\nTry `{n} -h' or '{n} --help' for more information.",
            prefix(family)
        ),
    }
}

/// A parse error in iptables' words: values are reported without the option name, and an
/// unknown extension as `Couldn't load match `x':No such file or directory` (and a newline).
pub(super) fn parse_msg(e: &ParseError) -> String {
    match e {
        ParseError::BadValue { reason, .. } => reason.clone(),
        ParseError::UnknownExtension { kind, name } => {
            format!("Couldn't load {kind} `{name}':No such file or directory\n")
        }
        e => e.to_string(),
    }
}

/// A refused operation: exit 1, `NAME: Reason.`.
pub(super) fn op_err(family: IpFamily, msg: &str) -> Fail {
    Fail {
        code: 1,
        text: format!("{}: {msg}", name(family)),
    }
}

pub(super) const NO_CHAIN: &str = "No chain/target/match by that name.";

pub(super) const BAD_RULE: &str = "Bad rule (does a matching rule exist in that chain?).";

/// An error the kernel layer reported, in iptables' words where it has some.
pub(super) fn kernel_err(family: IpFamily, e: &Error) -> Fail {
    match e.root() {
        Error::Permission { .. } => Fail {
            code: 4,
            text: format!(
                "{}: Could not fetch rule set generation id: Permission denied (you must be root)",
                prefix(family)
            ),
        },
        Error::InvalidSpec(p) => usage_err(family, parse_msg(p)),
        Error::ExtensionUnavailable(m) => usage_err(family, m),
        Error::ChainInUse { chain, .. } | Error::NotEmpty { chain, .. } => busy(family, chain),
        Error::NotFound { .. } => op_err(family, NO_CHAIN),
        Error::AlreadyExists { .. } => op_err(family, "Chain already exists."),
        other => nft_fail(family, other),
    }
}

/// A rule the kernel refused as invalid (an x_tables extension's check: a protocol it needs,
/// a table or chain it cannot be in), in iptables-nft's words (` RULE_APPEND failed (Invalid
/// argument): rule in chain INPUT`, exit 4); other errors as [`kernel_err`].
pub(super) fn rule_err(
    family: IpFamily,
    ipt: &IpTables,
    what: &str,
    chain: &str,
    e: Error,
) -> Fail {
    match e {
        Error::Kernel {
            errno: libc::EINVAL,
            ..
        } => Fail {
            code: 4,
            text: format!(
                "{}:  {what} failed (Invalid argument): rule in chain {chain}",
                prefix(family)
            ),
        },
        Error::ExtensionUnavailable(m) => Fail {
            code: 4,
            text: format!(
                "{}{}:  {what} failed (No such file or directory): rule in chain {chain}",
                missing_module_warning(family, ipt, &m),
                prefix(family)
            ),
        },
        e => kernel_err(family, &e),
    }
}

/// iptables-nft's warning for an x_tables extension the kernel has no revision of at all
/// (`Warning: Extension LED revision 0 not supported, missing kernel module?`, on its own
/// line), or nothing when the kernel has the extension and only its check refused the rule
/// (`SECMARK` without SELinux). `reason` is the kernel layer's account of the refusal, which
/// names the extension as ``x_tables target `NAME' ``.
pub(super) fn missing_module_warning(family: IpFamily, ipt: &IpTables, reason: &str) -> String {
    ipt.with_conn(|conn| missing_module_warning_on(family, conn, reason))
}

/// [`missing_module_warning`] asked on `conn`.
pub(crate) fn missing_module_warning_on(
    family: IpFamily,
    conn: &mut iptnl::netlink::Conn,
    reason: &str,
) -> String {
    use iptnl::nft::compat::{xt_revision, XtKind};
    let found = [
        ("x_tables target `", XtKind::Target),
        ("x_tables match `", XtKind::Match),
    ]
    .into_iter()
    .find_map(|(lead, kind)| {
        let rest = &reason[reason.find(lead)? + lead.len()..];
        Some((&rest[..rest.find('\'')?], kind))
    });
    let Some((name, kind)) = found else {
        return String::new();
    };
    match xt_revision(conn, family.nft(), name, 0, kind) {
        Ok(None) => {
            format!("Warning: Extension {name} revision 0 not supported, missing kernel module?\n")
        }
        _ => String::new(),
    }
}

/// The warning iptables prints when it loads an extension the kernel lacks (`ULOG`), before
/// it reads the extension's options: for an option error `NAME: ...` of a target or match
/// named on the line, when the kernel knows no revision of it (empty when it does, or when
/// the kernel cannot be asked).
pub(super) fn load_warning(family: IpFamily, args: &[String], msg: &str) -> String {
    let Some((name, _)) = msg.split_once(": ") else {
        return String::new();
    };
    use iptnl::nft::compat::{xt_known, XtKind};
    let kind = args.windows(2).find_map(|w| match (w[0].as_str(), &w[1]) {
        ("-j" | "--jump", n) if n == name => Some(XtKind::Target),
        ("-m" | "--match", n) if n == name => Some(XtKind::Match),
        _ => None,
    });
    let Some(kind) = kind else {
        return String::new();
    };
    let known = iptnl::netlink::Conn::open()
        .map_err(iptnl::nft::Error::from)
        .and_then(|mut conn| xt_known(&mut conn, family.nft(), name, kind));
    match known {
        Ok(false) => {
            format!("Warning: Extension {name} revision 0 not supported, missing kernel module?\n")
        }
        _ => String::new(),
    }
}

/// `-X` of a chain the kernel keeps (rules in it, or jumps to it).
pub(super) fn busy(family: IpFamily, chain: &str) -> Fail {
    Fail {
        code: 4,
        text: format!(
            "{}:  CHAIN_DEL failed (Device or resource busy): chain {chain}",
            prefix(family)
        ),
    }
}

/// A kernel-side failure without words of iptables' own: exit 4 with the error.
pub(super) fn nft_fail(family: IpFamily, e: &dyn std::fmt::Display) -> Fail {
    Fail {
        code: 4,
        text: format!("{}: {e}", prefix(family)),
    }
}
