//! Addresses and masks as glibc and libxtables read and print them: `inet_aton`'s forms,
//! `inet_ntop`'s IPv6 text, prefix lengths and netmasks (`XTTYPE_PLEN`).

use std::net::{Ipv4Addr, Ipv6Addr};

use super::num::{strtoul_full, strtoul_prefix};
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;

/// An IPv6 address as glibc's `inet_ntop` writes it: the first longest run of two or more
/// zero groups shortened to `::`, and the last 32 bits in dotted form for IPv4-compatible
/// (`::a.b.c.d`) and IPv4-mapped (`::ffff:a.b.c.d`) addresses.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::ntop6;
/// let a = |s: &str| s.parse::<std::net::Ipv6Addr>().unwrap().octets();
/// assert_eq!(ntop6(&a("2001:db8:0:0:1:0:0:1")), "2001:db8::1:0:0:1");
/// assert_eq!(ntop6(&a("::1.2.3.4")), "::1.2.3.4");
/// assert_eq!(ntop6(&a("::ffff:1.2.3.4")), "::ffff:1.2.3.4");
/// assert_eq!(ntop6(&a("::")), "::");
/// ```
pub fn ntop6(o: &[u8; 16]) -> String {
    use std::fmt::Write;
    let w: [u16; 8] = std::array::from_fn(|i| u16::from_be_bytes([o[2 * i], o[2 * i + 1]]));
    // The longest run of zero words (the first one on ties), if at least two long.
    let (mut best_base, mut best_len) = (None::<usize>, 0usize);
    let mut i = 0;
    while i < 8 {
        if w[i] == 0 {
            let start = i;
            while i < 8 && w[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best_base = Some(start);
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    if best_len < 2 {
        best_base = None;
    }
    let mut out = String::with_capacity(40);
    let mut i = 0;
    while i < 8 {
        if let Some(base) = best_base {
            if i >= base && i < base + best_len {
                if i == base {
                    out.push(':');
                }
                i += 1;
                continue;
            }
        }
        if i != 0 {
            out.push(':');
        }
        if i == 6 && best_base == Some(0) && (best_len == 6 || (best_len == 5 && w[5] == 0xffff)) {
            let _ = write!(out, "{}.{}.{}.{}", o[12], o[13], o[14], o[15]);
            return out;
        }
        let _ = write!(out, "{:x}", w[i]);
        i += 1;
    }
    if best_base.is_some_and(|base| base + best_len == 8) {
        out.push(':');
    }
    out
}

/// An address of `family` from the first 4 or 16 bytes of an `nf_inet_addr`, printed as
/// `xtables_ipaddr_to_numeric` / `xtables_ip6addr_to_numeric` do (IPv6 by [`ntop6`]); bytes
/// missing from a short slice count as zero.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::ntop;
/// use iptnl::ipt::IpFamily;
/// let mut a = [0u8; 16];
/// a[..4].copy_from_slice(&[10, 0, 0, 1]);
/// assert_eq!(ntop(IpFamily::V4, &a), "10.0.0.1");
/// assert_eq!(ntop(IpFamily::V6, &a), "a00:1::");
/// ```
pub fn ntop(family: IpFamily, b: &[u8]) -> String {
    let mut o = [0u8; 16];
    let n = b.len().min(16);
    o[..n].copy_from_slice(&b[..n]);
    match family {
        IpFamily::V4 => Ipv4Addr::new(o[0], o[1], o[2], o[3]).to_string(),
        IpFamily::V6 => ntop6(&o),
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
            m[..4].copy_from_slice(&a);
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
pub fn inet_aton(s: &str) -> Option<[u8; 4]> {
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
    Some((out as u32).to_be_bytes())
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

/// An IPv4 address as `xtables_numeric_to_ipaddr` reads it: one to four dot-separated
/// numbers (base 0, each 0–255), missing trailing bytes zero (`10.1` is `10.1.0.0`).
pub fn parse_ipv4_xtables(s: &str) -> Option<[u8; 4]> {
    // iptables copies the text into a 20-byte buffer first.
    let s = if s.len() > 19 { s.get(..19)? } else { s };
    let mut out = [0u8; 4];
    let mut rest = s;
    for slot in out.iter_mut().take(3) {
        match rest.split_once('.') {
            None => {
                *slot = strtoul_full(rest, 0, 255)? as u8;
                return Some(out);
            }
            Some((part, tail)) => {
                *slot = strtoul_full(part, 0, 255)? as u8;
                rest = tail;
            }
        }
    }
    out[3] = strtoul_full(rest, 0, 255)? as u8;
    Some(out)
}

/// An IPv6 address as `inet_pton` reads it.
pub fn parse_ipv6(s: &str) -> Option<[u8; 16]> {
    s.parse::<Ipv6Addr>().ok().map(|a| a.octets())
}

/// Parses a MAC address as libxtables' `XTTYPE_ETHERMAC`: six `:`-separated fields of at most
/// two hex digits (an empty field is 0).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::parse_mac;
/// assert_eq!(parse_mac("0:1:2:a:b:cc"), Some([0, 1, 2, 0xa, 0xb, 0xcc]));
/// assert_eq!(parse_mac("0:1:2:3:4"), None);
/// ```
pub fn parse_mac(s: &str) -> Option<[u8; iptnl_sys::xt::ETH_ALEN]> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != iptnl_sys::xt::ETH_ALEN {
        return None;
    }
    let mut out = [0u8; iptnl_sys::xt::ETH_ALEN];
    for (o, p) in out.iter_mut().zip(parts) {
        if p.len() > 2 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        *o = if p.is_empty() {
            0
        } else {
            u8::from_str_radix(p, 16).ok()?
        };
    }
    Some(out)
}
