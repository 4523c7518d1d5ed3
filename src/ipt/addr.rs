//! Addresses with masks, as `-s`/`-d` take and print them.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs};

use super::error::ParseError;
use super::IpFamily;

/// An address and its mask (both of the same family). The address has no bits outside the
/// mask, as iptables stores it.
///
/// ```
/// use iptnl::ipt::{AddrMask, IpFamily};
/// let a = AddrMask::parse(IpFamily::V4, "10.1.2.3/8", "-s").unwrap();
/// assert_eq!(a[0].to_string(), "10.0.0.0/8");
/// let b = AddrMask::parse(IpFamily::V4, "10.1.0.0/255.255.0.255", "-s").unwrap();
/// assert_eq!(b[0].to_string(), "10.1.0.0/255.255.0.255");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AddrMask {
    /// The address (host bits cleared).
    pub addr: IpAddr,
    /// The mask.
    pub mask: IpAddr,
}

impl AddrMask {
    /// The address as bytes (4 or 16).
    pub fn addr_bytes(&self) -> Vec<u8> {
        ip_bytes(self.addr)
    }

    /// The mask as bytes (4 or 16).
    pub fn mask_bytes(&self) -> Vec<u8> {
        ip_bytes(self.mask)
    }

    /// The prefix length when the mask is contiguous.
    pub fn prefix_len(&self) -> Option<u32> {
        let (bits, total) = match self.mask {
            IpAddr::V4(m) => (u32::from(m) as u128, 32),
            IpAddr::V6(m) => (u128::from(m), 128),
        };
        let ones = bits.count_ones();
        let expect = if ones == 0 {
            0
        } else {
            (u128::MAX >> (128 - total)) & !((1u128 << (total - ones)) - 1)
        };
        (bits == expect).then_some(ones)
    }

    /// Builds from address and mask bytes (4 or 16 each); host bits are cleared.
    pub fn from_bytes(addr: &[u8], mask: &[u8]) -> Option<AddrMask> {
        match (addr.len(), mask.len()) {
            (4, 4) => {
                let a = u32::from_be_bytes(addr.try_into().ok()?);
                let m = u32::from_be_bytes(mask.try_into().ok()?);
                Some(AddrMask {
                    addr: IpAddr::V4((a & m).into()),
                    mask: IpAddr::V4(m.into()),
                })
            }
            (16, 16) => {
                let a = u128::from_be_bytes(addr.try_into().ok()?);
                let m = u128::from_be_bytes(mask.try_into().ok()?);
                Some(AddrMask {
                    addr: IpAddr::V6((a & m).into()),
                    mask: IpAddr::V6(m.into()),
                })
            }
            _ => None,
        }
    }

    /// Parses `-s`/`-d` values as libxtables' `xtables_ipparse_multiple` does: a
    /// comma-separated list of `address[/mask]` (blanks before an item are skipped), where the
    /// address may be a host name (all its addresses of the family are taken) and the mask,
    /// after the last `/`, a prefix length or, for IPv4, a dotted mask. With a zero mask the
    /// address is ignored, never parsed or resolved (`any/0`, `0/0`, `::/0` in iptables and
    /// `0.0.0.0/0` in ip6tables all mean every address). `option` names the option in errors.
    ///
    /// ```
    /// use iptnl::ipt::{AddrMask, IpFamily};
    /// let any = AddrMask::parse(IpFamily::V6, "0/0,fd00::1", "-d").unwrap();
    /// assert_eq!(any[0].to_string(), "::/0");
    /// assert_eq!(any[1].to_string(), "fd00::1/128");
    /// ```
    pub fn parse(family: IpFamily, s: &str, option: &str) -> Result<Vec<AddrMask>, ParseError> {
        let mut out = Vec::with_capacity(1);
        for item in s.split(',') {
            let item = item.trim_start_matches(C_BLANKS);
            // iptables copies each item into a 256-byte buffer.
            if item.len() > 255 {
                return Err(ParseError::bad(option, "Hostname too long"));
            }
            let (host, mask) = match item.rsplit_once('/') {
                Some((h, m)) => (h, Some(m)),
                None => (item, None),
            };
            let mask_bytes = match mask {
                None => None,
                Some(m) => Some(parse_mask(family, m).ok_or_else(|| {
                    ParseError::bad(option, format!("invalid mask `{m}' specified"))
                })?),
            };
            // "if a null mask is given, the name is ignored, like in "any/0"" (libxtables).
            let host = match mask_bytes {
                Some(m) if m.is_unspecified() => match family {
                    IpFamily::V4 => "0.0.0.0",
                    IpFamily::V6 => "::",
                },
                _ => host,
            };
            let not_found = || ParseError::bad(option, format!("host/network `{host}' not found"));
            // A numeric address (nearly always) needs no list of resolved addresses.
            if let Some(a) = numeric(family, host) {
                out.push(masked(a, mask_bytes).ok_or_else(not_found)?);
                continue;
            }
            // Each address a name resolves to once (the resolver lists an address once per
            // socket type); items are taken as given, as iptables takes them.
            let first = out.len();
            for a in resolve(family, host).ok_or_else(not_found)? {
                let am = masked(a, mask_bytes).ok_or_else(not_found)?;
                if !out[first..].contains(&am) {
                    out.push(am);
                }
            }
        }
        Ok(out)
    }
}

/// What C's `isspace` takes for a blank.
const C_BLANKS: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

/// Bytes of an address in network order.
pub fn ip_bytes(a: IpAddr) -> Vec<u8> {
    match a {
        IpAddr::V4(a) => a.octets().to_vec(),
        IpAddr::V6(a) => a.octets().to_vec(),
    }
}

/// A mask as iptables reads one: for IPv4 a dotted mask of exactly four parts
/// (`xtables_numeric_to_ipmask`), for IPv6 an address, otherwise a prefix length in
/// `strtoul`'s syntax (`+8`, ` 8`, `0x10` and octal `010` are lengths too).
fn parse_mask(family: IpFamily, m: &str) -> Option<IpAddr> {
    use super::ext::base::libxt::{prefix_mask, strtoul_full};
    match family {
        IpFamily::V4 => {
            if m.matches('.').count() == 3 {
                if let Some(a) = numeric_v4(m) {
                    return Some(IpAddr::V4(a));
                }
            }
            let len = strtoul_full(m, 0, 32)?;
            let b = prefix_mask(len as u8);
            Some(Ipv4Addr::new(b[0], b[1], b[2], b[3]).into())
        }
        IpFamily::V6 => {
            if let Ok(a) = m.parse::<Ipv6Addr>() {
                return Some(IpAddr::V6(a));
            }
            let len = strtoul_full(m, 0, 128)?;
            Some(Ipv6Addr::from(prefix_mask(len as u8)).into())
        }
    }
}

/// `a` under mask `m` (all ones when `None`), host bits cleared.
fn masked(a: IpAddr, m: Option<IpAddr>) -> Option<AddrMask> {
    match (a, m) {
        (IpAddr::V4(a), None) => Some(AddrMask {
            addr: a.into(),
            mask: Ipv4Addr::BROADCAST.into(),
        }),
        (IpAddr::V6(a), None) => Some(AddrMask {
            addr: a.into(),
            mask: Ipv6Addr::from(u128::MAX).into(),
        }),
        (IpAddr::V4(a), Some(IpAddr::V4(m))) => Some(AddrMask {
            addr: Ipv4Addr::from(u32::from(a) & u32::from(m)).into(),
            mask: m.into(),
        }),
        (IpAddr::V6(a), Some(IpAddr::V6(m))) => Some(AddrMask {
            addr: Ipv6Addr::from(u128::from(a) & u128::from(m)).into(),
            mask: m.into(),
        }),
        _ => None,
    }
}

/// A numeric address of the family (no name lookup).
fn numeric(family: IpFamily, host: &str) -> Option<IpAddr> {
    match family {
        IpFamily::V4 => numeric_v4(host).map(IpAddr::V4),
        IpFamily::V6 => host.parse::<Ipv6Addr>().ok().map(IpAddr::V6),
    }
}

/// An IPv4 address as iptables reads one (`xtables_numeric_to_ipaddr`): one to four parts
/// separated by dots, each a number up to 255 in `strtoul`'s syntax (`0x` hexadecimal, a
/// leading `0` octal), missing parts zero: `10` is 10.0.0.0, `127.1` is 127.1.0.0 (not
/// `inet_aton`'s 127.0.0.1). Only the first 19 bytes are read, as iptables' buffer holds.
fn numeric_v4(host: &str) -> Option<Ipv4Addr> {
    // The usual form, four decimal parts without leading zeros, which iptables reads as
    // the standard library does: read by it, without the part-by-part `strtoul` reading.
    if let Ok(a) = host.parse::<Ipv4Addr>() {
        return Some(a);
    }
    numeric_v4_parts(host)
}

/// [`numeric_v4`] part by part, as iptables reads any form.
fn numeric_v4_parts(host: &str) -> Option<Ipv4Addr> {
    let mut end = host.len().min(19);
    while !host.is_char_boundary(end) {
        end -= 1;
    }
    let mut octets = [0u8; 4];
    let mut parts = host[..end].splitn(4, '.');
    for (i, o) in octets.iter_mut().enumerate() {
        match parts.next() {
            Some(p) => *o = super::ext::base::libxt::strtoul_full(p, 0, 255)? as u8,
            None if i > 0 => break,
            None => return None,
        }
    }
    Some(Ipv4Addr::from(octets))
}

/// Whether host names are looked up through the system's resolver (see
/// `crate::fuzzing::no_host_lookups`: a lookup may wait on the network, which a fuzz target
/// must not).
pub(crate) static HOST_LOOKUPS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(true);

/// The addresses the system's resolver gives for `host`, of both families, or why it gave
/// none, in `gai_strerror`'s words ("Name or service not known"). Every host name of a rule
/// is looked up here, so that turning lookups off turns them all off: then nothing is asked
/// and the name is unknown.
pub(crate) fn lookup_host(host: &str) -> Result<Vec<IpAddr>, String> {
    const UNKNOWN: &str = "Name or service not known";
    if !HOST_LOOKUPS.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(UNKNOWN.into());
    }
    match (host, 0u16).to_socket_addrs() {
        Ok(found) => Ok(found.map(|sa| sa.ip()).collect()),
        // std words it "failed to lookup address information: " and gai_strerror's text.
        Err(e) => {
            let text = e.to_string();
            Err(text
                .split_once("information: ")
                .map_or(UNKNOWN, |(_, why)| why)
                .to_owned())
        }
    }
}

fn resolve(family: IpFamily, host: &str) -> Option<Vec<IpAddr>> {
    if host.is_empty() {
        return None;
    }
    match family {
        IpFamily::V4 => {
            if let Some(a) = numeric_v4(host) {
                return Some(vec![IpAddr::V4(a)]);
            }
            if host.parse::<Ipv6Addr>().is_ok()
                || host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            {
                return None;
            }
        }
        IpFamily::V6 => {
            if let Ok(a) = host.parse::<Ipv6Addr>() {
                return Some(vec![IpAddr::V6(a)]);
            }
            if host.parse::<Ipv4Addr>().is_ok() || host.contains(':') {
                return None;
            }
        }
    }
    if !host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
    {
        return None;
    }
    let found: Vec<IpAddr> = lookup_host(host)
        .ok()?
        .into_iter()
        .filter(|ip| {
            matches!(
                (family, ip),
                (IpFamily::V4, IpAddr::V4(_)) | (IpFamily::V6, IpAddr::V6(_))
            )
        })
        .collect();
    (!found.is_empty()).then_some(found)
}

/// Prints as iptables-save does: `addr/len` for contiguous masks, `addr/mask` otherwise.
impl fmt::Display for AddrMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // IPv6 as glibc's inet_ntop prints it (iptables uses it), e.g. `::1.2.3.4`.
        let show = |a: IpAddr| match a {
            IpAddr::V4(a) => a.to_string(),
            IpAddr::V6(a) => super::ext::base::libxt::ntop6(&a.octets()),
        };
        match self.prefix_len() {
            Some(len) => write!(f, "{}/{}", show(self.addr), len),
            None => write!(f, "{}/{}", show(self.addr), show(self.mask)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every host name is looked up through [`lookup_host`], the one place that honours the
    /// switch the fuzz targets turn off (`tests/no_host_lookups.rs` checks each option that
    /// takes a host): no other file of the crate asks the resolver.
    #[test]
    fn the_resolver_is_asked_in_one_place() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries {
                let path = e.unwrap().path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Spelt in pieces, so that this test is not one of the places.
                    let words = [
                        concat!("to_socket", "_addrs("),
                        concat!("getaddr", "info("),
                        concat!("gethost", "byname"),
                    ];
                    for word in words {
                        found.extend(
                            text.lines()
                                .filter(|l| l.contains(word) && !l.trim_start().starts_with("//"))
                                .map(|l| format!("{}: {}", path.display(), l.trim())),
                        );
                    }
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut found = Vec::new();
        walk(&root.join("src"), &mut found);
        walk(&root.join("sys"), &mut found);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].contains("addr.rs"), "{found:#?}");
    }

    proptest::proptest! {
        /// The standard library's reading, tried first, is iptables' wherever it accepts.
        #[test]
        fn a_usual_address_reads_as_iptables_reads_it(
            parts in proptest::collection::vec("0{0,2}[0-9]{1,3}|0x[0-9a-f]{1,2}|", 1..6),
            tail in "|[ +a-z:/]",
        ) {
            let host = format!("{}{tail}", parts.join("."));
            proptest::prop_assert_eq!(numeric_v4(&host), numeric_v4_parts(&host), "{}", host);
        }
    }

    #[test]
    fn v4_forms() {
        let p = |s| {
            AddrMask::parse(IpFamily::V4, s, "-s")
                .map(|v| v.iter().map(|a| a.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(p("1.2.3.4").unwrap(), vec!["1.2.3.4/32"]);
        assert_eq!(p("1.2.3.4/0").unwrap(), vec!["0.0.0.0/0"]);
        assert_eq!(
            p("1.2.3.4,5.6.7.8/24").unwrap(),
            vec!["1.2.3.4/32", "5.6.7.0/24"]
        );
        assert_eq!(p("1.2.3.4/255.255.255.0").unwrap(), vec!["1.2.3.0/24"]);
        assert!(p("1.2.3.4/33").is_err());
        assert!(p("1.2.3.4/").is_err());
        assert!(p("300.1.1.1").is_err());
        assert!(p("::1").is_err());
        // iptables' own short forms: missing parts are zero, parts in strtoul's syntax.
        assert_eq!(p("0/0").unwrap(), vec!["0.0.0.0/0"]);
        assert_eq!(p("10/8").unwrap(), vec!["10.0.0.0/8"]);
        assert_eq!(p("127.1").unwrap(), vec!["127.1.0.0/32"]);
        assert_eq!(p("10.0.0").unwrap(), vec!["10.0.0.0/32"]);
        assert_eq!(p("10.1/16").unwrap(), vec!["10.1.0.0/16"]);
        assert_eq!(p("0x7f.1").unwrap(), vec!["127.1.0.0/32"]);
        assert_eq!(p("010.0.0.1").unwrap(), vec!["8.0.0.1/32"]);
        assert!(p("1..2").is_err());
        assert!(p("1.2.3.4.").is_err());
        assert!(p("08.1.1.1").is_err());
        assert_eq!(p("1.2.3.4/010").unwrap(), vec!["1.0.0.0/8"]);
        assert_eq!(p("1.2.3.4/+8").unwrap(), vec!["1.0.0.0/8"]);
        assert_eq!(p("1.2.3.4/0xff.0.0.0").unwrap(), vec!["1.0.0.0/8"]);
        assert!(p("1.2.3.4/255.0.0").is_err());
        // A zero mask: the address is never read (libxtables' "any/0").
        for any in [
            "any/0",
            "::/0",
            "nosuch.invalid/0",
            "1/0",
            "0/0.0.0.0",
            "300.1.1.1/0",
        ] {
            assert_eq!(p(any).unwrap(), vec!["0.0.0.0/0"], "{any}");
        }
        // The mask is after the last `/`; items keep their order and repeats.
        assert_eq!(p("1.2.3.4/8/0").unwrap(), vec!["0.0.0.0/0"]);
        assert!(p("1.2.3.4/0/8").is_err());
        assert_eq!(
            p(" 1.2.3.4,\t1.2.3.4").unwrap(),
            vec!["1.2.3.4/32", "1.2.3.4/32"]
        );
        assert_eq!(
            p(&"x".repeat(256)).unwrap_err().iptables_words(),
            "Hostname too long"
        );
    }

    #[test]
    fn v6_forms() {
        let p = |s| {
            AddrMask::parse(IpFamily::V6, s, "-s")
                .map(|v| v.iter().map(|a| a.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(p("fe80::1/10").unwrap(), vec!["fe80::/10"]);
        assert_eq!(p("::1").unwrap(), vec!["::1/128"]);
        assert!(p("::1/129").is_err());
        assert!(p("1.2.3.4").is_err());
        for any in ["0/0", "0.0.0.0/0", "any/0", "0/::", "nosuch.invalid/::"] {
            assert_eq!(p(any).unwrap(), vec!["::/0"], "{any}");
        }
        assert_eq!(p("0/0,fd00::1").unwrap(), vec!["::/0", "fd00::1/128"]);
    }
}
