//! `-h`, `-V` and the help texts of extensions.

use iptnl::ipt::{IpFamily, ParseError};

use super::*;

pub(super) const HELP: &str = include_str!("../iptables_help.txt");

/// The help text, as `iptables -h` prints it.
pub(super) fn help(family: IpFamily) -> String {
    let mut out = format!("{}\n", prefix(family));
    for line in HELP.lines() {
        let line = match family {
            IpFamily::V4 => line.to_owned(),
            IpFamily::V6 => {
                if line.contains("--fragment") {
                    continue;
                }
                if line.starts_with("Usage: iptables") || line.starts_with("       iptables") {
                    line.replacen("iptables", "ip6tables", 1)
                } else if line.starts_with("    --ipv4") {
                    line.replace("Nothing", "Error")
                } else if line.starts_with("    --ipv6") {
                    line.replace("Error", "Nothing")
                } else {
                    line.to_owned()
                }
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether an option takes the next argument as its value (long options other than the
/// flags, and iptables' short options with a value).
pub(super) fn takes_value(opt: &str) -> bool {
    const FLAGS: &[&str] = &[
        "--verbose",
        "--numeric",
        "--exact",
        "--line-numbers",
        "--wait",
        "--ipv4",
        "--ipv6",
        "--fragment",
        "--syn",
        "--help",
        "--version",
        "--list",
        "--list-rules",
        "--flush",
        "--zero",
        "--delete-chain",
    ];
    if let Some(long) = opt.strip_prefix("--") {
        return !long.contains('=') && !FLAGS.contains(&opt);
    }
    matches!(
        opt,
        "-s" | "-d"
            | "-p"
            | "-i"
            | "-o"
            | "-j"
            | "-g"
            | "-m"
            | "-t"
            | "-A"
            | "-C"
            | "-D"
            | "-I"
            | "-R"
            | "-N"
            | "-E"
            | "-P"
            | "-c"
            | "-W"
            | "-M"
    )
}

/// The option sections iptables prints after its help for the extensions named before
/// `-h`: the `-j` target's first, then each `-m` match in order (or, with no `-m`, the
/// match of the `-p` protocol name), each after a blank line.
pub(super) fn extension_helps(family: IpFamily, before: &[String]) -> Result<String, Fail> {
    use iptnl::ipt::ext::base::help;
    use iptnl::ipt::ext::{self, ExtKind};
    let mut matches = Vec::new();
    let mut target = None;
    let mut proto = None;
    let mut i = 0;
    while i < before.len() {
        let a = before[i].as_str();
        let value = |long: &str, short: &str| -> Option<(String, usize)> {
            if a == long || a == short {
                before.get(i + 1).map(|v| (v.clone(), 2))
            } else if let Some(v) = a.strip_prefix(&format!("{long}=")) {
                Some((v.to_owned(), 1))
            } else {
                a.strip_prefix(short)
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
                    .map(|v| (v.to_owned(), 1))
            }
        };
        if let Some((v, n)) = value("--match", "-m") {
            matches.push(v);
            i += n;
        } else if let Some((v, n)) = value("--jump", "-j") {
            target = Some(v);
            i += n;
        } else if let Some((v, n)) = value("--protocol", "-p") {
            proto = Some(v.to_ascii_lowercase());
            i += n;
        } else {
            i += if takes_value(a) { 2 } else { 1 };
        }
    }
    let mut out = String::new();
    match target.as_deref() {
        Some("ACCEPT" | "DROP" | "RETURN") => {
            out.push('\n');
            out.push_str(help::STANDARD);
        }
        Some(t) => {
            if let Some(h) = help::help(ExtKind::Target, t, family) {
                out.push('\n');
                out.push_str(h);
            }
        }
        None => {}
    }
    if matches.is_empty() {
        // libxtables loads the ICMPv6 match under any of its protocol's names.
        let proto = match proto.as_deref() {
            Some("ipv6-icmp" | "icmpv6") if family == IpFamily::V6 => Some("icmp6".to_owned()),
            _ => proto,
        };
        if let Some(h) = proto.and_then(|p| help::help(ExtKind::Match, &p, family)) {
            out.push('\n');
            out.push_str(h);
        }
    }
    for m in &matches {
        if ext::find(ExtKind::Match, m, family).is_none() {
            return Err(usage_err(
                family,
                parse_msg(&ParseError::UnknownExtension {
                    kind: "match",
                    name: m.clone(),
                }),
            ));
        }
        if let Some(h) = help::help(ExtKind::Match, m, family) {
            out.push('\n');
            out.push_str(h);
        }
    }
    Ok(out)
}

/// `iptables v1.8.11 (nf_tables) (iptnl X.Y.Z)`: go-iptables reads the version with
/// `v([0-9]+)\.([0-9]+)\.([0-9]+)` and the mode from `(nf_tables)`.
pub(super) fn version(family: IpFamily) -> String {
    format!("{} (iptnl {})\n", prefix(family), env!("CARGO_PKG_VERSION"))
}
