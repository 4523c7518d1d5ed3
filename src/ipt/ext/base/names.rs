//! Names `iptables -L` prints without `-n`: host names (`/etc/hosts`, as glibc's
//! `getnameinfo` finds them with the `files` source), network names (`/etc/networks`, as
//! `getnetbyaddr`), service names (`/etc/services`, as `getservbyport`), and the
//! `xtables_ipaddr_to_anyname` / `xtables_ipmask_to_numeric` forms built from them. DNS is
//! not asked: in a network namespace without a resolver, iptables falls back to numbers too.
//! The other way, it looks service names up (`getservbyname`) and resolves hosts for
//! `XTTYPE_HOST` options. The databases come through [`crate::ipt::sysdb`]: the rule model
//! reads no file.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

use crate::ipt::error::ParseError;
use crate::ipt::sysdb::{self, Db};
use crate::ipt::{AddrMask, IpFamily};

fn hosts() -> &'static [(IpAddr, String)] {
    static CACHE: OnceLock<Vec<(IpAddr, String)>> = OnceLock::new();
    sysdb::table(&CACHE, Db::Hosts, |text| {
        text.lines()
            .filter_map(|line| {
                let mut f = line.split('#').next().unwrap_or("").split_whitespace();
                let addr = f.next()?.parse::<IpAddr>().ok()?;
                Some((addr, f.next()?.to_owned()))
            })
            .collect()
    })
}

/// `inet_network`: dotted parts of 8 bits each, `127.0.0.0` = 0x7f000000, `10` = 10.
fn inet_network(s: &str) -> Option<u32> {
    let mut v: u32 = 0;
    for part in s.split('.') {
        let n: u32 = if let Some(h) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            u32::from_str_radix(h, 16).ok()?
        } else {
            part.parse().ok()?
        };
        if n > 255 {
            return None;
        }
        v = v.checked_shl(8)? | n;
    }
    Some(v)
}

fn networks() -> &'static [(u32, String)] {
    static CACHE: OnceLock<Vec<(u32, String)>> = OnceLock::new();
    sysdb::table(&CACHE, Db::Networks, |text| {
        text.lines()
            .filter_map(|line| {
                let mut f = line.split('#').next().unwrap_or("").split_whitespace();
                let name = f.next()?;
                Some((inet_network(f.next()?)?, name.to_owned()))
            })
            .collect()
    })
}

/// The host name of an address in `/etc/hosts` (the first name of the first line with it).
pub fn host_name(addr: IpAddr) -> Option<&'static str> {
    hosts()
        .iter()
        .find(|(a, _)| *a == addr)
        .map(|(_, n)| n.as_str())
}

/// The network name of an IPv4 address in `/etc/networks`.
pub fn net_name(addr: Ipv4Addr) -> Option<&'static str> {
    let n = u32::from(addr);
    networks()
        .iter()
        .find(|(a, _)| *a == n)
        .map(|(_, name)| name.as_str())
}

fn etc_services() -> &'static [(String, String, u16)] {
    static CACHE: std::sync::OnceLock<Vec<(String, String, u16)>> = std::sync::OnceLock::new();
    sysdb::table(&CACHE, Db::Services, |text| {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            let mut f = line.split_whitespace();
            let (Some(name), Some(pp)) = (f.next(), f.next()) else {
                continue;
            };
            let Some((port, proto)) = pp.split_once('/') else {
                continue;
            };
            let Ok(port) = port.parse::<u16>() else {
                continue;
            };
            out.push((name.to_owned(), proto.to_owned(), port));
            for alias in f {
                out.push((alias.to_owned(), proto.to_owned(), port));
            }
        }
        out
    })
}

/// The first service name of a port for a protocol (`tcp`, `udp`, ...) in `/etc/services`
/// (`getservbyport`).
pub fn port_name(port: u16, proto: &str) -> Option<&'static str> {
    etc_services()
        .iter()
        .find(|(_, p, n)| *n == port && p == proto)
        .map(|(name, _, _)| name.as_str())
}

/// The port of a service name for a protocol in `/etc/services` (`getservbyname`).
pub fn service_port_for(name: &str, proto: &str) -> Option<u16> {
    etc_services()
        .iter()
        .find(|(n, p, _)| n == name && p == proto)
        .map(|(_, _, port)| *port)
}

/// Looks a service name up as `getservbyname(name, NULL)` does (any protocol).
pub fn service_port(name: &str) -> Option<u16> {
    if name.is_empty() || name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    ["tcp", "udp", "sctp", "dccp"]
        .iter()
        .find_map(|p| service_port_for(name, p))
}

/// Parses one host as libxtables' `XTTYPE_HOST` does, through `getaddrinfo` for the rule's
/// family: an IPv4 address in `inet_aton`'s forms (`127.1` is 127.0.0.1, `10` is 0.0.0.10,
/// `0x7f.1` is 127.0.0.1: a host, unlike `-s`, which reads `127.1` as the network
/// 127.1.0.0), an IPv6 address, or a name that resolves to exactly one address of the
/// family. Returns the 16 bytes of a `union nf_inet_addr`. Errors are libxtables' (each ends
/// with a newline there: see [`ends_with_newline`](crate::ipt::error::ends_with_newline)).
///
/// ```
/// use iptnl::ipt::ext::base::names::parse_host;
/// use iptnl::ipt::IpFamily;
/// assert_eq!(parse_host(IpFamily::V4, "127.1", "--gateway").unwrap()[..4], [127, 0, 0, 1]);
/// assert_eq!(parse_host(IpFamily::V4, "10", "--gateway").unwrap()[..4], [0, 0, 0, 10]);
/// let e = parse_host(IpFamily::V6, "10.0.0.1", "--gateway").unwrap_err();
/// assert_eq!(e.iptables_words(), "getaddrinfo: Address family for hostname not supported");
/// ```
pub fn parse_host(family: IpFamily, s: &str, option: &str) -> Result<[u8; 16], ParseError> {
    let mut out = [0u8; 16];
    let gai = |why: &str| ParseError::bad(option, format!("getaddrinfo: {why}"));
    let v4 = super::libxt::inet_aton(s);
    let v6 = s.parse::<Ipv6Addr>().ok();
    match (family, v4, v6) {
        (IpFamily::V4, Some(a), _) => {
            out[..4].copy_from_slice(&a);
            return Ok(out);
        }
        (IpFamily::V6, _, Some(a)) => {
            out.copy_from_slice(&a.octets());
            return Ok(out);
        }
        // An address of the other family: getaddrinfo's EAI_ADDRFAMILY.
        (_, Some(_), _) | (_, _, Some(_)) => {
            return Err(gai("Address family for hostname not supported"))
        }
        _ => {}
    }
    // What getaddrinfo takes for neither a number nor a name (EAI_NONAME, without asking
    // a resolver): nothing, blanks, or only digits and dots.
    if s.is_empty()
        || s.contains(|c: char| c.is_whitespace() || c == '\0')
        || s.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        return Err(gai("Name or service not known"));
    }
    let found = crate::ipt::addr::lookup_host(s).map_err(|why| gai(&why))?;
    let mut addrs: Vec<IpAddr> = Vec::new();
    for a in found {
        let ours = matches!(
            (family, a),
            (IpFamily::V4, IpAddr::V4(_)) | (IpFamily::V6, IpAddr::V6(_))
        );
        if ours && !addrs.contains(&a) {
            addrs.push(a);
        }
    }
    match addrs.as_slice() {
        [] => Err(gai("No address associated with hostname")),
        [IpAddr::V4(a)] => {
            out[..4].copy_from_slice(&a.octets());
            Ok(out)
        }
        [IpAddr::V6(a)] => {
            out.copy_from_slice(&a.octets());
            Ok(out)
        }
        _ => Err(ParseError::bad(
            option,
            format!("{s} resolves to more than one address"),
        )),
    }
}

/// `(id, name)` of a colon-separated database (`/etc/passwd`, `/etc/group`: name in field
/// 0, id in field 2), in file order.
fn id_db(text: &str) -> Vec<(u32, String)> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            let id = f.get(2)?.parse::<u32>().ok()?;
            (!f[0].is_empty()).then(|| (id, f[0].to_owned()))
        })
        .collect()
}

/// The user name of a uid (`/etc/passwd`, as `getpwuid` finds it in files).
pub fn user_name(uid: u32) -> Option<&'static str> {
    static CACHE: OnceLock<Vec<(u32, String)>> = OnceLock::new();
    let db = sysdb::table(&CACHE, Db::Passwd, id_db);
    db.iter().find(|(i, _)| *i == uid).map(|(_, n)| n.as_str())
}

/// The group name of a gid (`/etc/group`, as `getgrgid` finds it in files).
pub fn group_name(gid: u32) -> Option<&'static str> {
    static CACHE: OnceLock<Vec<(u32, String)>> = OnceLock::new();
    let db = sysdb::table(&CACHE, Db::Group, id_db);
    db.iter().find(|(i, _)| *i == gid).map(|(_, n)| n.as_str())
}

/// The address as iptables prints it: numeric (glibc's forms).
pub fn numeric(addr: IpAddr) -> String {
    match addr {
        IpAddr::V4(a) => a.to_string(),
        IpAddr::V6(a) => super::libxt::inet::ntop6(&a.octets()),
    }
}

/// `xtables_ipaddr_to_anyname` / `xtables_ip6addr_to_anyname`: the host name, else (IPv4)
/// the network name, else the number.
pub fn anyname(addr: IpAddr) -> String {
    if let Some(h) = host_name(addr) {
        return h.to_owned();
    }
    if let IpAddr::V4(a) = addr {
        if let Some(n) = net_name(a) {
            return n.to_owned();
        }
    }
    numeric(addr)
}

/// `xtables_ipmask_to_numeric` / `xtables_ip6mask_to_numeric`: empty for a host mask,
/// `/LEN` for a prefix, `/MASK` otherwise.
pub fn mask_suffix(mask: IpAddr) -> String {
    let am = AddrMask { addr: mask, mask };
    let full = match mask {
        IpAddr::V4(_) => 32,
        IpAddr::V6(_) => 128,
    };
    match am.prefix_len() {
        Some(l) if l == full => String::new(),
        Some(l) => format!("/{l}"),
        None => format!("/{}", numeric(mask)),
    }
}

/// An address and mask: `NAME/MASK` (or numeric with `numeric`), without the `anywhere`
/// rule (callers decide when that applies).
pub fn addr_mask(addr: IpAddr, mask: IpAddr, numeric_only: bool) -> String {
    let a = if numeric_only {
        numeric(addr)
    } else {
        anyname(addr)
    };
    a + &mask_suffix(mask)
}

/// Appends a port or its service name, as the `print_port` of tcp, udp and multiport.
pub fn push_port(out: &mut String, port: u16, proto: Option<&str>, numeric_only: bool) {
    use std::fmt::Write;
    match proto
        .filter(|_| !numeric_only)
        .and_then(|p| port_name(port, p))
    {
        Some(n) => out.push_str(n),
        None => {
            let _ = write!(out, "{port}");
        }
    }
}

/// The protocol name iptables uses to look up services (`proto_to_name` of multiport).
pub fn service_proto(proto: u8) -> Option<&'static str> {
    match proto {
        6 => Some("tcp"),
        17 => Some("udp"),
        136 => Some("udplite"),
        132 => Some("sctp"),
        33 => Some("dccp"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_numbers() {
        assert_eq!(inet_network("127.0.0.0"), Some(0x7f00_0000));
        assert_eq!(inet_network("10"), Some(10));
        assert_eq!(inet_network("300"), None);
    }

    #[test]
    fn masks() {
        let v4 = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(mask_suffix(v4("255.255.255.255")), "");
        assert_eq!(mask_suffix(v4("255.255.0.0")), "/16");
        assert_eq!(mask_suffix(v4("255.0.255.0")), "/255.0.255.0");
        assert_eq!(mask_suffix(v4("ffff:ffff::")), "/32");
        assert_eq!(
            addr_mask(v4("10.0.0.0"), v4("255.0.0.0"), true),
            "10.0.0.0/8"
        );
    }
}
