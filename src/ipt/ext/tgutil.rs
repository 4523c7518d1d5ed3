//! Value parsers and printers shared by the target extensions, reproducing the libxtables
//! helpers iptables uses for them (`xtables_strtoul`, `xtables_service_to_port`,
//! `XTTYPE_MARKMASK32`, `XTTYPE_HOST`, glibc's `inet_ntop`).

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::ipt::addr::AddrMask;
use crate::ipt::error::ParseError;
use crate::ipt::ext::ports::parse_port;
use crate::ipt::IpFamily;

/// A number at the start of `s` within `min..=max` (see [`super::libxt::strtoul_prefix`]),
/// with the rest of the string.
pub fn strtoul_prefix(s: &str, min: u64, max: u64) -> Option<(u64, &str)> {
    super::libxt::strtoul_prefix(s).filter(|(v, _)| (min..=max).contains(v))
}

pub use super::libxt::strtoul_full;

/// The error libxtables gives for a bad `XTTYPE_UINT*` value.
pub fn int_error(ext: &str, option: &str, min: u64, max: u64) -> ParseError {
    ParseError::bad(
        format!("--{option}"),
        format!("{ext}: bad value for option \"--{option}\", or out of range ({min}-{max})."),
    )
}

/// Parses an `XTTYPE_UINT*` option value (`min..=max`, whole string).
pub fn parse_int(ext: &str, option: &str, s: &str, min: u64, max: u64) -> Result<u64, ParseError> {
    strtoul_full(s, min, max).ok_or_else(|| int_error(ext, option, min, max))
}

/// Looks a service name up as `getservbyname(name, NULL)` does (any protocol).
pub fn service_port(name: &str) -> Option<u16> {
    if name.is_empty() || name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    ["tcp", "udp", "sctp", "dccp"]
        .iter()
        .find_map(|p| parse_port(name, p, "").ok())
}

/// Parses `value[/mask]` as `XTTYPE_MARKMASK32` does; the mask defaults to `0xffffffff`.
pub fn parse_markmask(ext: &str, option: &str, s: &str) -> Result<(u32, u32), ParseError> {
    let shown = format!("--{option}");
    let max = u64::from(u32::MAX);
    let (value, rest) = strtoul_prefix(s, 0, max).ok_or_else(|| {
        ParseError::bad(
            &shown,
            format!("{ext}: bad mark value for option \"{shown}\" `{s}', or out of range."),
        )
    })?;
    let (mask, rest) = match rest.strip_prefix('/') {
        Some(m) => strtoul_prefix(m, 0, max).ok_or_else(|| {
            ParseError::bad(
                &shown,
                format!("{ext}: bad mask value for option \"{shown}\" `{s}', or out of range."),
            )
        })?,
        None => (max, rest),
    };
    if !rest.is_empty() {
        return Err(ParseError::bad(
            &shown,
            format!("{ext}: trailing garbage after value for option \"{shown}\" `{s}'."),
        ));
    }
    Ok((value as u32, mask as u32))
}

/// Parses one host for `XTTYPE_HOST`: an address literal of the family, or a name resolved
/// to its first address. Returns the 16 bytes of a `union nf_inet_addr`.
pub fn parse_host(family: IpFamily, s: &str, option: &str) -> Result<[u8; 16], ParseError> {
    let mut out = [0u8; 16];
    let bad = || ParseError::bad(option, format!("host/network `{s}' not found"));
    match family {
        IpFamily::V4 => {
            if let Ok(a) = s.parse::<Ipv4Addr>() {
                out[..4].copy_from_slice(&a.octets());
                return Ok(out);
            }
        }
        IpFamily::V6 => {
            if let Ok(a) = s.parse::<Ipv6Addr>() {
                out.copy_from_slice(&a.octets());
                return Ok(out);
            }
        }
    }
    if s.is_empty() || s.contains(['/', ',']) {
        return Err(bad());
    }
    let list = AddrMask::parse(family, s, option).map_err(|_| bad())?;
    let first = list.first().ok_or_else(bad)?;
    let bytes = first.addr_bytes();
    out[..bytes.len()].copy_from_slice(&bytes);
    Ok(out)
}

/// Formats an IPv4 address held in the first 4 bytes.
pub fn ntop4(b: &[u8]) -> String {
    Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string()
}

/// Formats an IPv6 address exactly as glibc's `inet_ntop` (see [`super::libxt::ntop6`]).
pub fn ntop6(b: &[u8]) -> String {
    let mut o = [0u8; 16];
    o.copy_from_slice(&b[..16]);
    super::libxt::ntop6(&o)
}

/// Formats an address of the family held in a 16-byte `nf_inet_addr`.
pub fn ntop(family: IpFamily, b: &[u8]) -> String {
    match family {
        IpFamily::V4 => ntop4(b),
        IpFamily::V6 => ntop6(b),
    }
}

/// Copies a string into a NUL-terminated field of `cap` bytes as libxtables' string
/// options do (`XTTYPE_STRING` with `XTOPT_PUT`): silently cut to `cap - 1` bytes.
pub fn truncate_bytes(s: &str, cap: usize) -> Vec<u8> {
    let b = s.as_bytes();
    b[..b.len().min(cap.saturating_sub(1))].to_vec()
}

/// Reads a NUL-terminated byte string from a fixed field.
pub fn field_bytes(b: &[u8]) -> Vec<u8> {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    b[..end].to_vec()
}

/// The text of a byte string (lossy for bytes that are not UTF-8).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtoul_like_libc() {
        assert_eq!(strtoul_prefix("  42abc", 0, 100), Some((42, "abc")));
        assert_eq!(strtoul_prefix("0x", 0, 100), Some((0, "x")));
        assert_eq!(strtoul_prefix("077", 0, 100), Some((63, "")));
        assert_eq!(strtoul_prefix("65536", 0, 65535), None);
        assert_eq!(strtoul_prefix("abc", 0, 65535), None);
        assert_eq!(strtoul_prefix("", 0, 65535), None);
        assert_eq!(strtoul_full("7", 0, 7), Some(7));
        assert_eq!(strtoul_full("8", 0, 7), None);
    }

    #[test]
    fn ntop6_like_glibc() {
        let f = |s: &str| ntop6(&s.parse::<Ipv6Addr>().unwrap().octets());
        assert_eq!(f("::"), "::");
        assert_eq!(f("::1"), "::1");
        assert_eq!(f("fd00::1"), "fd00::1");
        assert_eq!(f("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        assert_eq!(f("1:0:2:0:3:0:4:0"), "1:0:2:0:3:0:4:0");
        assert_eq!(f("1::"), "1::");
        assert_eq!(f("1:2:3:4:5:6:7:0"), "1:2:3:4:5:6:7:0");
        assert_eq!(f("0:0:1::"), "0:0:1::");
        assert_eq!(f("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
    }

    #[test]
    fn markmask() {
        assert_eq!(parse_markmask("X", "m", "0x1/0x1").unwrap(), (1, 1));
        assert_eq!(parse_markmask("X", "m", "16").unwrap(), (16, u32::MAX));
        assert!(parse_markmask("X", "m", "1/").is_err());
        assert!(parse_markmask("X", "m", "1x").is_err());
        assert!(parse_markmask("X", "m", "0x100000000").is_err());
    }
}
