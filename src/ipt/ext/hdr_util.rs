//! Helpers shared by the header and rate matches: libxtables' number parsing
//! (`xtables_strtoul`, the `XTTYPE_UINT*RC` range parser of iptables 1.8.11), prefix-length
//! masks (`XTTYPE_PLEN`/`XTTYPE_PLENMASK`), `/etc/protocols` and glibc's `inet_ntop` for
//! IPv6 addresses.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;

pub use super::libxt::{strtoul_full, strtoul_prefix};
pub use crate::ipt::proto::{getprotobyname, getprotobynumber};

/// Parses an integer option value as libxtables' `XTTYPE_UINT*` does, with its error.
pub fn uint_value(ext: &str, option: &str, s: &str, min: u64, max: u64) -> Result<u64, ParseError> {
    strtoul_full(s, min, max).ok_or_else(|| {
        ParseError::bad(
            format!("--{option}"),
            format!("{ext}: bad value `{s}', or out of range ({min}-{max})"),
        )
    })
}

/// Parses a `min[:max]` range as libxtables 1.8.11 parses an `XTTYPE_UINT32RC` option: an
/// empty component defaults to 0 (first) or `u32::MAX` (second), the second may not be
/// below the first (1.8.9 accepted reversed ranges), at most two components. Returns the
/// two values and how many components were given (1 for `5`, 2 for `5:`).
pub fn parse_range_u32(
    ext: &str,
    option: &str,
    arg: &str,
) -> Result<([u32; 2], usize), ParseError> {
    let shown = format!("--{option}");
    let lmax = u32::MAX as u64;
    let mut lmin = 0u64;
    let mut out = [0u32, 0u32];
    let mut nvals = 0usize;
    let mut rest = arg;
    loop {
        if nvals == 2 {
            return Err(ParseError::bad(
                &shown,
                format!("{ext}: Too many components in `{arg}' (max: 2)"),
            ));
        }
        let (value, after) = if rest.is_empty() || rest.starts_with(':') {
            (if nvals == 1 { lmax } else { lmin }, rest)
        } else {
            let (v, after) = strtoul_prefix(rest)
                .filter(|(v, _)| (lmin..=lmax).contains(v))
                .ok_or_else(|| {
                    ParseError::bad(
                        &shown,
                        format!(
                            "{ext}: bad value near \"{rest}\", or out of range ({lmin}-{lmax})"
                        ),
                    )
                })?;
            if !after.is_empty() && !after.starts_with(':') {
                return Err(ParseError::bad(
                    &shown,
                    format!("{ext}: Argument has unexpected characters near \"{after}\""),
                ));
            }
            lmin = v;
            (v, after)
        };
        out[nvals] = value as u32;
        nvals += 1;
        match after.strip_prefix(':') {
            Some(next) => rest = next,
            None => break,
        }
    }
    Ok((out, nvals))
}

/// Appends `N` or `N:M` as the range savers of ah/esp/frag/rt print it.
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

/// The prefix length of a contiguous mask, `None` for a non-contiguous one.
fn mask_to_cidr(bytes: &[u8]) -> Option<u8> {
    let mut len = 0u8;
    let mut ended = false;
    for &b in bytes {
        for bit in (0..8).rev() {
            let set = b & (1 << bit) != 0;
            if set {
                if ended {
                    return None;
                }
                len += 1;
            } else {
                ended = true;
            }
        }
    }
    Some(len)
}

/// A parsed `XTTYPE_PLEN` / `XTTYPE_PLENMASK` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlenMask {
    /// A prefix length (a number, or a mask written as an address that converts to one).
    Len(u8),
    /// A mask that is not a prefix (`255.0.255.0`), as 16 bytes (IPv4 in the first 4).
    Odd([u8; 16]),
}

/// Parses a prefix length `0..=32`/`0..=128` or a netmask written as an address, as
/// libxtables' `xtopt_parse_plen` does.
pub fn parse_plen(
    family: IpFamily,
    ext: &str,
    option: &str,
    s: &str,
) -> Result<PlenMask, ParseError> {
    let max = match family {
        IpFamily::V4 => 32,
        IpFamily::V6 => 128,
    };
    if let Some(v) = strtoul_full(s, 0, max) {
        return Ok(PlenMask::Len(v as u8));
    }
    let mut m = [0u8; 16];
    let parsed = match family {
        IpFamily::V4 => inet_aton(s).map(|a| {
            m[..4].copy_from_slice(&a.octets());
            4
        }),
        IpFamily::V6 => s.parse::<Ipv6Addr>().ok().map(|a| {
            m.copy_from_slice(&a.octets());
            16
        }),
    };
    let Some(n) = parsed else {
        return Err(ParseError::bad(
            format!("--{option}"),
            format!(
                "{ext}: bad value `{s}', neither a valid network mask nor valid CIDR (0-{max})"
            ),
        ));
    };
    Ok(match mask_to_cidr(&m[..n]) {
        Some(len) => PlenMask::Len(len),
        None => PlenMask::Odd(m),
    })
}

/// An IPv4 address in any form glibc's `inet_aton` takes (what `getaddrinfo` with
/// `AI_NUMERICHOST` accepts): `a.b.c.d`, `a.b.c` (c is 16 bits), `a.b` (b is 24 bits) or `a`
/// (32 bits), each part decimal, octal (`0…`) or hex (`0x…`).
pub fn inet_aton(s: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut vals = Vec::with_capacity(4);
    for p in &parts {
        if !p.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let (v, rest) = strtoul_prefix(p)?;
        if !rest.is_empty() {
            return None;
        }
        vals.push(v);
    }
    let n = vals.len();
    let last_bits = 8 * (5 - n as u32);
    let mut out: u64 = 0;
    for (i, v) in vals.iter().enumerate() {
        if i + 1 < n {
            if *v > 0xff {
                return None;
            }
            out |= v << (24 - 8 * i as u32);
        } else {
            if last_bits < 64 && *v >= 1u64 << last_bits {
                return None;
            }
            out |= v;
        }
    }
    Some(Ipv4Addr::from(out as u32))
}

/// The 16-byte mask of a prefix length (IPv4 in the first 4 bytes, the rest zero), as
/// libxtables' `xtopt_parse_plenmask` builds it.
pub fn prefix_mask(len: u8) -> [u8; 16] {
    let mut m = [0u8; 16];
    let bits = (len as u32).min(128);
    let v: u128 = if bits == 0 {
        0
    } else {
        u128::MAX << (128 - bits)
    };
    m.copy_from_slice(&v.to_be_bytes());
    m
}

/// An IPv6 address as glibc's `inet_ntop` writes it (see [`super::libxt::ntop6`]).
pub fn inet_ntop6(a: &Ipv6Addr) -> String {
    super::libxt::ntop6(&a.octets())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_like_strtoumax() {
        assert_eq!(strtoul_prefix("0x10/0xff"), Some((16, "/0xff")));
        assert_eq!(strtoul_prefix("010"), Some((8, "")));
        assert_eq!(strtoul_prefix("0"), Some((0, "")));
        assert_eq!(strtoul_prefix("0x"), Some((0, "x")));
        assert_eq!(strtoul_prefix(" +7k"), Some((7, "k")));
        assert_eq!(strtoul_prefix("-1"), None);
        assert_eq!(strtoul_prefix("abc"), None);
        assert_eq!(strtoul_prefix("99999999999999999999999"), None);
        assert_eq!(strtoul_full("255", 0, 255), Some(255));
        assert_eq!(strtoul_full("256", 0, 255), None);
        assert_eq!(strtoul_full("5x", 0, 255), None);
    }

    #[test]
    fn ranges_as_libxtables_1_8_11() {
        let r = |s| parse_range_u32("esp", "espspi", s);
        assert_eq!(r("5").unwrap(), ([5, 0], 1));
        assert_eq!(r("5:").unwrap(), ([5, u32::MAX], 2));
        assert_eq!(r(":5").unwrap(), ([0, 5], 2));
        assert_eq!(r(":").unwrap(), ([0, u32::MAX], 2));
        assert_eq!(r("4:4").unwrap(), ([4, 4], 2));
        assert!(r("4:3").is_err());
        assert!(r("1:2:3").is_err());
        assert!(r("5x").is_err());
        assert!(r("4294967296").is_err());
    }

    #[test]
    fn masks() {
        assert_eq!(prefix_mask(24)[..4], [255, 255, 255, 0]);
        assert_eq!(prefix_mask(0), [0; 16]);
        assert_eq!(prefix_mask(128), [0xff; 16]);
        assert_eq!(
            parse_plen(IpFamily::V4, "x", "m", "255.255.0.0").unwrap(),
            PlenMask::Len(16)
        );
        assert!(matches!(
            parse_plen(IpFamily::V4, "x", "m", "255.0.255.0").unwrap(),
            PlenMask::Odd(_)
        ));
        // As iptables 1.8.11 (getaddrinfo): `33` is the address 0.0.0.33, not a prefix.
        assert!(matches!(
            parse_plen(IpFamily::V4, "x", "m", "33").unwrap(),
            PlenMask::Odd(_)
        ));
        assert_eq!(inet_aton("1.2.3"), Some(Ipv4Addr::new(1, 2, 0, 3)));
        assert_eq!(
            inet_aton("0xff.0377.0.1"),
            Some(Ipv4Addr::new(255, 255, 0, 1))
        );
        assert_eq!(inet_aton("1.65536"), Some(Ipv4Addr::new(1, 1, 0, 0)));
        assert_eq!(inet_aton("1.2.3.256"), None);
        assert_eq!(inet_aton("1.2.3.4.5"), None);
        assert_eq!(inet_aton("1..2"), None);
        assert_eq!(inet_aton(" 1.2.3.4"), None);
        assert_eq!(
            parse_plen(IpFamily::V6, "x", "m", "64").unwrap(),
            PlenMask::Len(64)
        );
    }

    #[test]
    fn ntop_like_glibc() {
        let f = |s: &str| inet_ntop6(&s.parse().unwrap());
        assert_eq!(f("::"), "::");
        assert_eq!(f("::1"), "::1");
        assert_eq!(f("2001:db8::1"), "2001:db8::1");
        assert_eq!(f("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        assert_eq!(f("::1.2.3.4"), "::1.2.3.4");
        assert_eq!(f("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_eq!(f("1:0:2:3:4:5:6:7"), "1:0:2:3:4:5:6:7");
        assert_eq!(f("fe80::"), "fe80::");
    }
}
