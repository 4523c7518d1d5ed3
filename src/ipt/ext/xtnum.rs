//! Number and address syntax shared by the tier 2 matches, as libxtables reads and prints it:
//! `xtables_strtoul` (leading blanks, `+`, base 0), `strtod`, the dotted-quad forms of
//! `xtables_numeric_to_ipaddr` and `inet_aton`, and glibc's `inet_ntop` for IPv6.

use std::net::Ipv6Addr;

use crate::ipt::IpFamily;

pub use super::libxt::{strtoul_full, strtoul_prefix};

/// `strtod` over the whole string (leading whitespace allowed, nothing after the number):
/// decimal forms as Rust reads them (correctly rounded, like glibc) and C99 hex floats with
/// up to 13 significant hex digits (exact). NaN is refused.
pub fn strtod_full(s: &str) -> Option<f64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        parse_hex_float(hex)?
    } else {
        if !body
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == b'.' || c == b'i' || c == b'I')
        {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    if v.is_nan() {
        return None;
    }
    Some(if neg { -v } else { v })
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.find(['p', 'P']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = match mant.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int
        .bytes()
        .chain(frac.bytes())
        .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let digits: String = int.chars().chain(frac.chars()).collect();
    let sig = digits.trim_start_matches('0');
    let sig = sig.trim_end_matches('0');
    if sig.len() > 13 {
        return None;
    }
    let mut m: u64 = 0;
    for c in digits.chars() {
        m = m.checked_mul(16)?.checked_add(c.to_digit(16)? as u64)?;
        if m > (1 << 60) {
            return None;
        }
    }
    let e: i32 = match exp {
        None => 0,
        Some(e) => {
            let (neg, d) = match e.as_bytes().first() {
                Some(b'-') => (true, &e[1..]),
                Some(b'+') => (false, &e[1..]),
                _ => (false, e),
            };
            if d.is_empty() || !d.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let v: i32 = d.parse().ok()?;
            if neg {
                -v
            } else {
                v
            }
        }
    };
    let e = e.checked_sub(4 * frac.len() as i32)?;
    Some(m as f64 * 2f64.powi(e))
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

/// An IPv4 address as `inet_aton` (and so `getaddrinfo`) reads it: `a.b.c.d`, `a.b.c`
/// (c is 16 bits), `a.b` (b is 24 bits) or `a` (32 bits), each number decimal, `0x` hex or
/// `0` octal.
pub fn parse_ipv4_aton(s: &str) -> Option<[u8; 4]> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut vals = Vec::with_capacity(4);
    for p in &parts {
        let b = p.as_bytes();
        if b.is_empty() || !b[0].is_ascii_digit() {
            return None;
        }
        let (v, rest) = strtoul_prefix(p)?;
        if !rest.is_empty() {
            return None;
        }
        vals.push(v);
    }
    let n = vals.len();
    let (head, last) = vals.split_at(n - 1);
    if head.iter().any(|&v| v > 255) {
        return None;
    }
    let last_bits = 8 * (5 - n) as u32;
    if last_bits < 64 && last[0] >= 1u64 << last_bits {
        return None;
    }
    let mut v: u32 = 0;
    for (i, &h) in head.iter().enumerate() {
        v |= (h as u32) << (24 - 8 * i);
    }
    v |= last[0] as u32;
    Some(v.to_be_bytes())
}

/// An IPv6 address as `inet_pton` reads it.
pub fn parse_ipv6(s: &str) -> Option<[u8; 16]> {
    s.parse::<Ipv6Addr>().ok().map(|a| a.octets())
}

/// An IPv6 address as glibc's `inet_ntop` prints it (see [`super::libxt::ntop6`]).
pub fn fmt_ipv6(o: &[u8; 16]) -> String {
    super::libxt::ntop6(o)
}

/// An address of `family` from the first 4 or all 16 bytes of an `nf_inet_addr`, printed as
/// `xtables_ipaddr_to_numeric` / `xtables_ip6addr_to_numeric` do.
pub fn fmt_inet(family: IpFamily, a: &[u8; 16]) -> String {
    match family {
        IpFamily::V4 => format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]),
        IpFamily::V6 => fmt_ipv6(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_examples() {
        assert_eq!(strtoul_full(" 0x10", 0, 255), Some(16));
        assert_eq!(strtoul_full("010", 0, 255), Some(8));
        assert_eq!(strtoul_full("-1", 0, 255), None);
        assert_eq!(strtoul_full("5x", 0, 255), None);
        assert_eq!(parse_ipv4_xtables("10.1"), Some([10, 1, 0, 0]));
        assert_eq!(parse_ipv4_xtables("010.0.0.1"), Some([8, 0, 0, 1]));
        assert_eq!(parse_ipv4_xtables("1.2.3.4.5"), None);
        assert_eq!(parse_ipv4_aton("255.255"), Some([255, 0, 0, 255]));
        assert_eq!(parse_ipv4_aton("255.255.255.0"), Some([255, 255, 255, 0]));
        assert_eq!(parse_ipv4_aton("1.2.3.4.5"), None);
        let p = |s: &str| fmt_ipv6(&s.parse::<std::net::Ipv6Addr>().unwrap().octets());
        assert_eq!(p("::1.2.3.4"), "::1.2.3.4");
        assert_eq!(p("::1"), "::1");
        assert_eq!(p("1:0:0:1:0:0:0:1"), "1:0:0:1::1");
        assert_eq!(p("ffff:ffff::"), "ffff:ffff::");
    }

    #[test]
    fn strtod_forms() {
        assert_eq!(strtod_full("0.5"), Some(0.5));
        assert_eq!(strtod_full(" .5"), Some(0.5));
        assert_eq!(strtod_full("+5e-1"), Some(0.5));
        assert_eq!(strtod_full("0x0.8"), Some(0.5));
        assert_eq!(strtod_full("0x1p-1"), Some(0.5));
        assert_eq!(strtod_full("0x.8p0"), Some(0.5));
        assert_eq!(strtod_full("inf"), Some(f64::INFINITY));
        assert_eq!(strtod_full("nan"), None);
        assert_eq!(strtod_full("0.5 "), None);
        assert_eq!(strtod_full(""), None);
        assert_eq!(strtod_full("."), None);
        assert_eq!(strtod_full("0x"), None);
    }

    #[test]
    fn ipv6_print_matches_glibc() {
        let p = |s: &str| fmt_ipv6(&s.parse::<Ipv6Addr>().unwrap().octets());
        assert_eq!(p("::"), "::");
        assert_eq!(p("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        assert_eq!(p("2001:db8::1"), "2001:db8::1");
        assert_eq!(p("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_eq!(p("1:0:0:2:0:0:3:4"), "1::2:0:0:3:4");
        assert_eq!(p("1:2:3:4:5:6:7:0"), "1:2:3:4:5:6:7:0");
        assert_eq!(
            p("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
        );
        assert_eq!(p("::100"), "::100");
    }

    #[test]
    fn aton_forms() {
        assert_eq!(parse_ipv4_aton("1"), Some([0, 0, 0, 1]));
        assert_eq!(parse_ipv4_aton("1.2.3"), Some([1, 2, 0, 3]));
        assert_eq!(parse_ipv4_aton("0x7f.1"), Some([127, 0, 0, 1]));
        assert_eq!(parse_ipv4_aton("256.1.1.1"), None);
        assert_eq!(parse_ipv4_aton("1..1"), None);
        assert_eq!(parse_ipv4_aton(""), None);
    }
}
