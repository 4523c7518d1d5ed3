//! Protocol names and numbers, as iptables knows them.

use super::IpFamily;

/// The names iptables 1.8.11 knows without `/etc/protocols`, in its order: the first name of
/// a number is the one it prints.
const BUILTIN: &[(&str, u8)] = &[
    ("tcp", 6),
    ("sctp", 132),
    ("udp", 17),
    ("udplite", 136),
    ("icmp", 1),
    ("ipv6-icmp", 58),
    ("icmpv6", 58),
    ("esp", 50),
    ("ah", 51),
    ("mobility-header", 135),
    ("ipv6-mh", 135),
    ("mh", 135),
    ("dccp", 33),
    ("ipcomp", 108),
    ("all", 0),
];

/// The built-in name of a protocol number, if iptables has one.
fn builtin_name(n: u8) -> Option<&'static str> {
    BUILTIN
        .iter()
        .find(|(_, num)| *num == n)
        .map(|(name, _)| *name)
}

/// One entry of `/etc/protocols`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoEntry {
    /// Official name.
    pub name: String,
    /// Aliases.
    pub aliases: Vec<String>,
    /// Number.
    pub num: u8,
}

/// The entries of `/etc/protocols` (read once; empty when the file is missing).
pub fn etc_protocols() -> &'static [ProtoEntry] {
    static CACHE: std::sync::OnceLock<Vec<ProtoEntry>> = std::sync::OnceLock::new();
    crate::ipt::sysdb::table(&CACHE, crate::ipt::sysdb::Db::Protocols, |text| {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            let mut f = line.split_whitespace();
            let (Some(name), Some(num)) = (f.next(), f.next()) else {
                continue;
            };
            let Ok(num) = num.parse::<u8>() else {
                continue;
            };
            out.push(ProtoEntry {
                name: name.to_owned(),
                aliases: f.map(str::to_owned).collect(),
                num,
            });
        }
        out
    })
}

/// `getprotobyname` over `/etc/protocols` (official names and aliases, case-sensitive).
pub fn getprotobyname(s: &str) -> Option<u8> {
    etc_protocols()
        .iter()
        .find(|e| e.name == s || e.aliases.iter().any(|a| a == s))
        .map(|e| e.num)
}

/// `getprotobynumber` over `/etc/protocols`: the official name.
pub fn getprotobynumber(n: u8) -> Option<&'static str> {
    etc_protocols()
        .iter()
        .find(|e| e.num == n)
        .map(|e| e.name.as_str())
}

/// Parses a `-p` value: a number 0–255, a known name (case-insensitive), or a name from
/// `/etc/protocols`.
///
/// ```
/// use iptnl::ipt::proto_number;
/// assert_eq!(proto_number("TCP"), Some(6));
/// assert_eq!(proto_number("17"), Some(17));
/// assert_eq!(proto_number("all"), Some(0));
/// assert_eq!(proto_number("bogus"), None);
/// ```
pub fn proto_number(s: &str) -> Option<u8> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u8>().ok();
    }
    if let Some(&(_, n)) = BUILTIN
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(s))
    {
        return Some(n);
    }
    getprotobyname(&s.to_ascii_lowercase())
}

/// The name iptables-save and `-S` print for a protocol number: iptables' built-in name
/// (`ipv6-icmp` for 58, `mobility-header` for 135), or `None` when they print the number.
/// `/etc/protocols` is never read.
///
/// ```
/// use iptnl::ipt::{proto_name, IpFamily};
/// assert_eq!(proto_name(58, IpFamily::V6).as_deref(), Some("ipv6-icmp"));
/// assert_eq!(proto_name(47, IpFamily::V4), None);
/// ```
pub fn proto_name(n: u8, family: IpFamily) -> Option<String> {
    let _ = family;
    builtin_name(n).map(str::to_owned)
}

/// The protocol column of `-L`: the built-in name (`all` for 0), then, without `-n`, the
/// official name in `/etc/protocols`, else the number.
///
/// ```
/// use iptnl::ipt::proto_list_name;
/// assert_eq!(proto_list_name(0, true), "all");
/// assert_eq!(proto_list_name(6, true), "tcp");
/// assert_eq!(proto_list_name(47, true), "47");
/// ```
pub fn proto_list_name(n: u8, numeric: bool) -> String {
    if let Some(name) = builtin_name(n) {
        return name.to_owned();
    }
    if !numeric {
        if let Some(name) = getprotobynumber(n) {
            return name.to_owned();
        }
    }
    n.to_string()
}

/// The match extension iptables loads implicitly for `-p NAME` when an option is unknown.
pub fn implicit_match(n: u8, family: IpFamily) -> Option<&'static str> {
    Some(match (n, family) {
        (6, _) => "tcp",
        (17, _) => "udp",
        (132, _) => "sctp",
        (33, _) => "dccp",
        (1, IpFamily::V4) => "icmp",
        (58, IpFamily::V6) => "icmp6",
        (50, _) => "esp",
        (51, _) => "ah",
        (135, IpFamily::V6) => "mh",
        (136, _) => "udplite",
        _ => return None,
    })
}
