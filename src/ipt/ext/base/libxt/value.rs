//! Option values built on the option tables: integers with an extension's words, u32 ranges,
//! a target's required option, host/mask pairs and port ranges.

use super::inet::prefix_mask;
use super::num::strtoul_full;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::opts::Given;
use crate::ipt::IpFamily;

/// Parses an integer option value as libxtables' `XTTYPE_UINT*` does, with its error.
pub fn uint_value(ext: &str, option: &str, s: &str, min: u64, max: u64) -> Result<u64, ParseError> {
    strtoul_full(s, min, max).ok_or_else(|| {
        ParseError::bad(
            format!("--{option}"),
            format!("{ext}: bad value `{s}', or out of range ({min}-{max})"),
        )
    })
}

/// Appends `N` or `N:M` as iptables saves a range (the ports of tcp and udp, the ids of
/// ah/esp/frag/rt, the lengths of `length`, the types of `mh`).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::save_u32_range;
/// let mut s = String::new();
/// save_u32_range(&mut s, [1, 1024]);
/// save_u32_range(&mut s, [7, 7]);
/// assert_eq!(s, "1:10247");
/// ```
pub fn save_u32_range(out: &mut String, r: [u32; 2]) {
    if r[0] == r[1] {
        out.push_str(&r[0].to_string());
    } else {
        out.push_str(&format!("{}:{}", r[0], r[1]));
    }
}

/// Appends the `-L` form of a range test (`print_ids`/`print_spis`/`print_nums` of
/// frag/ah/esp/rt): `word:[!]N` or `words:[!]N:M`; nothing for an uninverted full range.
pub fn print_u32_range(out: &mut String, word: &str, inv: bool, r: [u32; 2]) {
    if r == [0, u32::MAX] && !inv {
        return;
    }
    let i = if inv { "!" } else { "" };
    if r[0] == r[1] {
        out.push_str(&format!("{word}:{i}{}", r[0]));
    } else {
        out.push_str(&format!("{word}s:{i}{}:{}", r[0], r[1]));
    }
}

/// The check of a target's `final_check` that some option was given: `Err(msg)` when none
/// was.
pub fn require_option(given: Given, msg: &str) -> Result<(), ParseError> {
    if given.is_empty() {
        return Err(ParseError::Invalid(msg.into()));
    }
    Ok(())
}

/// A value of libxtables' `XTTYPE_HOSTMASK`: `host[/mask]`, the host an address or a name of
/// the family, the mask a prefix length or a mask in address form (all ones without one).
/// Returns the address (not masked), `hlen` (the prefix length, 255 for a mask that is no
/// prefix, as libxtables' `(uint8_t)-1`) and the mask, 16 bytes each (IPv4 in the first 4).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::parse_hostmask;
/// use iptnl::ipt::IpFamily;
/// let (addr, len, mask) = parse_hostmask(IpFamily::V4, "NETMAP", "to", "10.1.2.3/16").unwrap();
/// assert_eq!((&addr[..4], len, &mask[..4]), (&[10, 1, 2, 3][..], 16, &[255, 255, 0, 0][..]));
/// assert_eq!(parse_hostmask(IpFamily::V6, "DNPT", "src-pfx", "dead::1").unwrap().1, 128);
/// assert_eq!(parse_hostmask(IpFamily::V4, "NETMAP", "to", "1.2.3.4/255.0.255.0").unwrap().1, 255);
/// ```
pub fn parse_hostmask(
    family: IpFamily,
    ext: &str,
    option: &str,
    s: &str,
) -> Result<([u8; 16], u8, [u8; 16]), ParseError> {
    let (host, mask) = match s.split_once('/') {
        Some((h, m)) => (h, Some(m)),
        None => (s, None),
    };
    let addr = crate::ipt::ext::base::names::parse_host(family, host, &format!("--{option}"))?;
    let full = match family {
        IpFamily::V4 => 32,
        IpFamily::V6 => 128,
    };
    Ok(match mask {
        None => (addr, full, [0xff; 16]),
        Some(m) => match crate::ipt::ext::base::opts::parse_plen(ext, option, m, family)? {
            (Some(len), _) => (addr, len, prefix_mask(len)),
            (None, odd) => (addr, u8::MAX, odd),
        },
    })
}

/// `port[:port]` as libxtables' `XTTYPE_PORTRC` (`xtopt_parse_mport`) reads it: an empty
/// component keeps its end (0 or 65535), one port is `[p, p]`, and a port below the one
/// before is refused ("Port range 4-3 is negative.", as 1.8.11). `port` looks a component
/// up (with the extension's own messages); `too_many` is the error for a third component;
/// `shown` is the option as given, for the range message.
///
/// ```
/// use iptnl::ipt::error::ParseError;
/// use iptnl::ipt::ext::base::libxt::parse_port_rc;
/// let port = |s: &str| s.parse::<u16>().map_err(|_| ParseError::Invalid(s.into()));
/// let many = || ParseError::Invalid("too many".into());
/// assert_eq!(parse_port_rc("7:", "--dport", many, port), Ok([7, 65535]));
/// assert_eq!(parse_port_rc("80", "--dport", many, port), Ok([80, 80]));
/// assert!(parse_port_rc("4:3", "--dport", many, port).is_err());
/// ```
pub fn parse_port_rc(
    s: &str,
    shown: &str,
    too_many: impl Fn() -> ParseError,
    port: impl Fn(&str) -> Result<u16, ParseError>,
) -> Result<[u16; 2], ParseError> {
    let mut r = [0, u16::MAX];
    let mut n = 0;
    let mut prev = 0;
    for part in s.split(':') {
        if n == 2 {
            return Err(too_many());
        }
        if !part.is_empty() {
            let value = port(part)?;
            // Each port at least the one before (a component left empty does not count).
            if value < prev {
                return Err(ParseError::bad(
                    shown,
                    format!("Port range {prev}-{value} is negative."),
                ));
            }
            prev = value;
            r[n] = value;
        }
        n += 1;
    }
    if n == 1 {
        r[1] = r[0];
    }
    Ok(r)
}
