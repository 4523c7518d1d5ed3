//! What libxtables and glibc do with numbers, addresses, masks and names, written once for
//! every extension: `xtables_strtoul`'s number syntax and the `XTTYPE_*` option parsers built
//! on it (integers, ranges, marks, prefix lengths), `strtod`, `inet_aton`, glibc's
//! `inet_ntop`, the fixed-size string fields of x_tables structs, the DiffServ class names of
//! `dscp_helper.c` and the TOS names of `tos_values.c`.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::opts::{Given, Val};
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;

/// Parses a number at the start of `s` as `strtoumax(s, &end, 0)` does after libxtables'
/// checks (`xtables_strtoul_base`): leading white space and `+` are skipped, a `-` is
/// refused, `0x` means hexadecimal and a leading `0` octal. Returns the value and the rest of
/// the string, or `None` when no digit was read or the value overflows 64 bits.
///
/// ```
/// use iptnl::ipt::ext::libxt::strtoul_prefix;
/// assert_eq!(strtoul_prefix("0x10/0xff"), Some((16, "/0xff")));
/// assert_eq!(strtoul_prefix(" +7k"), Some((7, "k")));
/// assert_eq!(strtoul_prefix("-1"), None);
/// ```
pub fn strtoul_prefix(s: &str) -> Option<(u64, &str)> {
    // Byte by byte: rule sets carry hundreds of thousands of ports and numbers.
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    match b.get(i) {
        Some(b'-') => return None,
        Some(b'+') => i += 1,
        _ => {}
    }
    let radix: u64 = if b.len() >= i + 2 && b[i] == b'0' && (b[i + 1] | 0x20) == b'x' {
        if b.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
            i += 2;
            16
        } else {
            // "0x" without a hex digit: strtoumax reads the "0" and stops at the "x".
            return Some((0, &s[i + 1..]));
        }
    } else if b.get(i) == Some(&b'0') {
        8
    } else {
        10
    };
    let start = i;
    let mut v: u64 = 0;
    while let Some(d) = b.get(i).and_then(|c| (*c as char).to_digit(radix as u32)) {
        v = v.checked_mul(radix)?.checked_add(u64::from(d))?;
        i += 1;
    }
    if i == start {
        return None;
    }
    Some((v, &s[i..]))
}

/// Reads a number at the start of `b` as C's `sscanf(b, "%llu")` does: white space, an
/// optional sign, decimal digits up to the first other byte; a minus wraps, and an overflow
/// gives the largest value whatever the sign, as `strtoull` does. Returns the value and the
/// rest, or `None` when no digit follows.
///
/// ```
/// use iptnl::ipt::ext::libxt::scan_llu_prefix;
/// assert_eq!(scan_llu_prefix(b" +7:3"), Some((7, &b":3"[..])));
/// assert_eq!(scan_llu_prefix(b"-1"), Some((u64::MAX, &b""[..])));
/// assert_eq!(scan_llu_prefix(b"99999999999999999999x"), Some((u64::MAX, &b"x"[..])));
/// assert_eq!(scan_llu_prefix(b"x"), None);
/// ```
pub fn scan_llu_prefix(b: &[u8]) -> Option<(u64, &[u8])> {
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let neg = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let start = i;
    let mut v = Some(0u64);
    while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
        v = v
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(u64::from(d - b'0')));
        i += 1;
    }
    if i == start {
        return None;
    }
    let v = match v {
        None => u64::MAX,
        Some(v) if neg => v.wrapping_neg(),
        Some(v) => v,
    };
    Some((v, &b[i..]))
}

/// `strncasecmp(word, name, len(word)) == 0` with a non-empty word: `word` is a
/// case-insensitive prefix of `name`, as iptables' name-list parsers take abbreviations.
///
/// ```
/// use iptnl::ipt::ext::libxt::abbrev_of;
/// assert!(abbrev_of("est", "ESTABLISHED"));
/// assert!(!abbrev_of("", "ESTABLISHED"));
/// ```
pub fn abbrev_of(word: &str, name: &str) -> bool {
    !word.is_empty()
        && word.len() <= name.len()
        && name.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
}

/// Calls `each` with every word of the comma-separated list `s` and the list from that word
/// on (which iptables quotes when a word is bad); the first error stops the walk.
///
/// ```
/// use iptnl::ipt::ext::libxt::for_each_listed;
/// let mut seen = Vec::new();
/// for_each_listed("a,b,c", |w, rest| -> Result<(), ()> {
///     seen.push((w.to_owned(), rest.to_owned()));
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!(seen[1], ("b".to_owned(), "b,c".to_owned()));
/// ```
pub fn for_each_listed<E>(
    s: &str,
    mut each: impl FnMut(&str, &str) -> Result<(), E>,
) -> Result<(), E> {
    let mut rest = s;
    loop {
        match rest.split_once(',') {
            Some((word, next)) => {
                each(word, rest)?;
                rest = next;
            }
            None => return each(rest, rest),
        }
    }
}

/// A whole string as one number within `min..=max` (`xtables_strtoul` without an end
/// pointer, as the `XTTYPE_UINT*` option types use it).
///
/// ```
/// use iptnl::ipt::ext::libxt::strtoul_full;
/// assert_eq!(strtoul_full("010", 0, 255), Some(8));
/// assert_eq!(strtoul_full("256", 0, 255), None);
/// assert_eq!(strtoul_full("5x", 0, 255), None);
/// ```
pub fn strtoul_full(s: &str, min: u64, max: u64) -> Option<u64> {
    let (v, rest) = strtoul_prefix(s)?;
    (rest.is_empty() && (min..=max).contains(&v)).then_some(v)
}

/// An IPv6 address as glibc's `inet_ntop` writes it: the first longest run of two or more
/// zero groups shortened to `::`, and the last 32 bits in dotted form for IPv4-compatible
/// (`::a.b.c.d`) and IPv4-mapped (`::ffff:a.b.c.d`) addresses.
///
/// ```
/// use iptnl::ipt::ext::libxt::ntop6;
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

/// A number at the start of `s` within `min..=max` (see [`strtoul_prefix`]), with the rest of
/// the string.
///
/// ```
/// use iptnl::ipt::ext::libxt::strtoul_prefix_in;
/// assert_eq!(strtoul_prefix_in("  42abc", 0, 100), Some((42, "abc")));
/// assert_eq!(strtoul_prefix_in("65536", 0, 65535), None);
/// ```
pub fn strtoul_prefix_in(s: &str, min: u64, max: u64) -> Option<(u64, &str)> {
    strtoul_prefix(s).filter(|(v, _)| (min..=max).contains(v))
}

/// An address of `family` from the first 4 or 16 bytes of an `nf_inet_addr`, printed as
/// `xtables_ipaddr_to_numeric` / `xtables_ip6addr_to_numeric` do (IPv6 by [`ntop6`]); bytes
/// missing from a short slice count as zero.
///
/// ```
/// use iptnl::ipt::ext::libxt::ntop;
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
/// use iptnl::ipt::ext::libxt::save_u32_range;
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

/// `bit` when `on`, else no bit: what a negated option adds to a match's invert flags
/// (`invflags |= bit_if(inv, XT_TCP_INV_SRCPT)`).
///
/// ```
/// use iptnl::ipt::ext::libxt::bit_if;
/// assert_eq!(bit_if(true, 0x04u8), 0x04);
/// assert_eq!(bit_if(false, 0x04u8), 0);
/// ```
pub fn bit_if<T: Default>(on: bool, bit: T) -> T {
    if on {
        bit
    } else {
        T::default()
    }
}

/// Appends ` Unknown invflags: 0xN` when `invflags` has bits outside `known`, as the print
/// functions of tcp, udp, icmp and the IPv6 header matches end.
///
/// ```
/// use iptnl::ipt::ext::libxt::print_unknown_invflags;
/// let mut s = String::new();
/// print_unknown_invflags(&mut s, 0x13, 0x03);
/// assert_eq!(s, " Unknown invflags: 0x10");
/// ```
pub fn print_unknown_invflags(out: &mut String, invflags: u8, known: u8) {
    let unknown = invflags & !known;
    if unknown != 0 {
        out.push_str(&format!(" Unknown invflags: 0x{unknown:X}"));
    }
}

/// The bit of the flag option `name` in a table of (option, bit), 0 when it is not there.
///
/// ```
/// use iptnl::ipt::ext::libxt::flag_bit;
/// const FLAGS: &[(&str, u8)] = &[("loose", 1), ("invert", 8)];
/// assert_eq!(flag_bit(FLAGS, "invert"), 8);
/// assert_eq!(flag_bit(FLAGS, "strict"), 0);
/// ```
pub fn flag_bit(names: &[(&str, u8)], name: &str) -> u8 {
    names
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, b)| *b)
}

/// Appends `{lead}{option}` for each (option, bit) of `names` set in `flags`, in table order:
/// how flag options are saved (`lead` ` --`) and listed (`lead` ` `).
///
/// ```
/// use iptnl::ipt::ext::libxt::push_flags;
/// const FLAGS: &[(&str, u8)] = &[("loose", 1), ("validmark", 2), ("invert", 8)];
/// let mut s = String::new();
/// push_flags(&mut s, FLAGS, 9, " --");
/// assert_eq!(s, " --loose --invert");
/// ```
pub fn push_flags(out: &mut String, names: &[(&str, u8)], flags: u8, lead: &str) {
    for (name, bit) in names {
        if flags & bit != 0 {
            out.push_str(lead);
            out.push_str(name);
        }
    }
}

/// The prefix of `--log-prefix` / `--nflog-prefix` as libxt_LOG and libxt_NFLOG take it:
/// refused when it holds a newline, otherwise cut to `cap - 1` bytes.
pub fn parse_log_prefix(option: &str, s: &str, cap: usize) -> Result<Vec<u8>, ParseError> {
    if s.contains('\n') {
        return Err(ParseError::bad(
            format!("--{option}"),
            format!("Newlines not allowed in --{option}"),
        ));
    }
    Ok(truncate_bytes(s, cap))
}

/// The check of a target's `final_check` that some option was given: `Err(msg)` when none
/// was.
pub fn require_option(given: Given, msg: &str) -> Result<(), ParseError> {
    if given.is_empty() {
        return Err(ParseError::Invalid(msg.into()));
    }
    Ok(())
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

/// An IPv6 address as `inet_pton` reads it.
pub fn parse_ipv6(s: &str) -> Option<[u8; 16]> {
    s.parse::<Ipv6Addr>().ok().map(|a| a.octets())
}

/// Parses an unsigned number as libxtables' `xtables_strtoui` does (`strtoul` with base 0:
/// optional leading blanks and `+`, `0x` hex, leading-`0` octal, decimal; no `-`), within
/// `0..=max`.
pub fn parse_c_uint(s: &str, max: u64) -> Option<u64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.starts_with(['+', '-']) {
        return None;
    }
    strtoul_full(t, 0, max)
}

/// Appends ` 0xMARK` or ` 0xMARK/0xMASK` as libxt_mark and libxt_connmark print it (the
/// mask only when it is not `0xffffffff`).
pub fn save_mark_mask(out: &mut String, mark: u32, mask: u32) {
    if mask == u32::MAX {
        out.push_str(&format!(" 0x{mark:x}"));
    } else {
        out.push_str(&format!(" 0x{mark:x}/0x{mask:x}"));
    }
}

/// Appends ` [!] --mark 0xMARK[/0xMASK]` as libxt_mark and libxt_connmark save their match.
pub fn save_mark_test(out: &mut String, invert: bool, mark: u32, mask: u32) {
    if invert {
        out.push_str(" !");
    }
    out.push_str(" --mark");
    save_mark_mask(out, mark, mask);
}

/// The `(value, mask)` pair (`mark = (mark & !mask) ^ value`) of the operations libxt_MARK
/// and libxt_CONNMARK share, from the option and its value: `--set-xmark V/M`, `--set-mark
/// V/M` (the value's bits cleared too), `--and-mark`, `--or-mark`, `--xor-mark`; `None` for
/// another option.
pub fn xmark_op(option: &str, val: Val<'_>) -> Option<(u32, u32)> {
    let bits = val.uint() as u32;
    Some(match option {
        "set-xmark" => val.mark_mask(),
        "set-mark" => {
            let (mark, mask) = val.mark_mask();
            (mark, mark | mask)
        }
        "and-mark" => (0, !bits),
        "or-mark" => (bits, bits),
        "xor-mark" => (bits, 0),
        _ => return None,
    })
}

/// ` NAME and|or|xor|set|xset ...`: how libxt_MARK and libxt_CONNMARK list a
/// `(value, mask)` pair (`mark = (mark & !mask) ^ value`).
pub fn xmark_words(name: &str, mark: u32, mask: u32) -> String {
    if mark == 0 {
        format!(" {name} and 0x{:x}", !mask)
    } else if mark == mask {
        format!(" {name} or 0x{mark:x}")
    } else if mask == 0 {
        format!(" {name} xor 0x{mark:x}")
    } else if mask == u32::MAX {
        format!(" {name} set 0x{mark:x}")
    } else {
        format!(" {name} xset 0x{mark:x}/0x{mask:x}")
    }
}

/// DiffServ class names (`dscp_helper.c`), in iptables' order.
pub const DSCP_CLASSES: &[(&str, u8)] = &[
    ("CS0", 0x00),
    ("CS1", 0x08),
    ("CS2", 0x10),
    ("CS3", 0x18),
    ("CS4", 0x20),
    ("CS5", 0x28),
    ("CS6", 0x30),
    ("CS7", 0x38),
    ("BE", 0x00),
    ("AF11", 0x0a),
    ("AF12", 0x0c),
    ("AF13", 0x0e),
    ("AF21", 0x12),
    ("AF22", 0x14),
    ("AF23", 0x16),
    ("AF31", 0x1a),
    ("AF32", 0x1c),
    ("AF33", 0x1e),
    ("AF41", 0x22),
    ("AF42", 0x24),
    ("AF43", 0x26),
    ("EF", 0x2e),
];

/// A DiffServ class name to its DSCP, as iptables' `class_to_dscp`: the name is compared
/// case-insensitively over the length of the class name (so `af41x` is `AF41`).
pub fn class_to_dscp(name: &str) -> Option<u8> {
    DSCP_CLASSES
        .iter()
        .find(|(c, _)| {
            name.len() >= c.len() && name.as_bytes()[..c.len()].eq_ignore_ascii_case(c.as_bytes())
        })
        .map(|(_, v)| *v)
}

/// TOS names (`tos_values.c`), matched case-insensitively.
pub const TOS_NAMES: &[(&str, u8)] = &[
    ("Minimize-Delay", 0x10),
    ("Maximize-Throughput", 0x08),
    ("Maximize-Reliability", 0x04),
    ("Minimize-Cost", 0x02),
    ("Normal-Service", 0x00),
];

/// `tos_try_print_symbolic`: the TOS name of a value when the mask is 0x3f.
pub fn tos_symbol(value: u8, mask: u8) -> Option<&'static str> {
    if mask != 0x3f {
        return None;
    }
    TOS_NAMES.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
}

/// The `id name` pairs of an iproute2 map file (`/etc/iproute2/group`, `rt_realms`) as
/// `xtables_lmap_init` reads them: blank lines and `#` comments skipped, the id decimal or
/// `0x` hex within 0–255, the name the next word. `None` when there is none (iptables then
/// takes no names).
///
/// ```
/// use iptnl::ipt::ext::libxt::lmap_parse;
/// let m = lmap_parse("# groups\n0\tdefault\n0x10 web # comment\n300 big\n").unwrap();
/// assert_eq!(m, vec![(0, "default".to_owned()), (16, "web".to_owned())]);
/// assert_eq!(lmap_parse("#1 none\n"), None);
/// ```
pub fn lmap_parse(text: &str) -> Option<Vec<(u32, String)>> {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r');
    let mut out = Vec::new();
    for line in text.lines() {
        let cur = line.trim_start_matches(is_space);
        if cur.is_empty() || cur.starts_with('#') {
            continue;
        }
        let (digits, radix) = match cur.strip_prefix("0x") {
            Some(h) => (h, 16),
            None => (cur.strip_prefix('+').unwrap_or(cur), 10),
        };
        let end = digits
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(digits.len());
        let Ok(id) = u32::from_str_radix(&digits[..end], radix) else {
            continue;
        };
        let rest = &digits[end..];
        if id > 255 || !rest.starts_with(is_space) {
            continue;
        }
        let name = rest.trim_start_matches(is_space);
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        let name = name.split(is_space).next().unwrap_or(name);
        out.push((id, name.to_owned()));
    }
    (!out.is_empty()).then_some(out)
}

/// The name map of an iproute2 database (see [`lmap_parse`]), read once through
/// [`crate::ipt::sysdb`]; `None` when it has no entry.
pub fn lmap(
    cell: &'static std::sync::OnceLock<Vec<(u32, String)>>,
    db: crate::ipt::sysdb::Db,
) -> Option<&'static [(u32, String)]> {
    let m = crate::ipt::sysdb::table(cell, db, |t| lmap_parse(t).unwrap_or_default());
    (!m.is_empty()).then_some(m)
}

/// `value[/mask]` as `xtables_parse_val_mask` reads it with a name map: a number, a
/// number and mask, or (when `lmap` has names) a name of the map; the mask is `0xffffffff`
/// when not given.
///
/// ```
/// use iptnl::ipt::ext::libxt::parse_val_mask;
/// let map = vec![(5, "web".to_owned())];
/// assert_eq!(parse_val_mask("devgroup", "src-group", "web", Some(&map)), Ok((5, u32::MAX)));
/// assert_eq!(parse_val_mask("devgroup", "src-group", "0x1/0xf", None), Ok((1, 15)));
/// assert!(parse_val_mask("devgroup", "src-group", "db", Some(&map)).is_err());
/// ```
pub fn parse_val_mask(
    ext: &str,
    name: &str,
    s: &str,
    lmap: Option<&[(u32, String)]>,
) -> Result<(u32, u32), ParseError> {
    let Some(map) = lmap else {
        return super::opts::parse_mark_mask(ext, name, s);
    };
    let max = u64::from(u32::MAX);
    let by_name = || {
        map.iter()
            .find(|(_, n)| n == s)
            .map(|(id, _)| (*id, u32::MAX))
            .ok_or_else(|| {
                ParseError::bad(
                    format!("--{name}"),
                    format!(
                        "{ext}: could not map name {s} to an integer value for option \"--{name}\"."
                    ),
                )
            })
    };
    match strtoul_prefix(s).filter(|(v, _)| *v <= max) {
        Some((v, "")) => Ok((v as u32, u32::MAX)),
        Some((_, rest)) if rest.starts_with('/') => super::opts::parse_mark_mask(ext, name, s),
        _ => by_name(),
    }
}

/// Appends ` value` as `xtables_print_val_mask` prints it: ` 0xV/0xM` with a mask, else the
/// value's name in `lmap`, else ` 0xV`.
///
/// ```
/// use iptnl::ipt::ext::libxt::print_val_mask;
/// let map = vec![(0, "default".to_owned())];
/// let mut s = String::new();
/// print_val_mask(&mut s, 0, u32::MAX, Some(&map));
/// print_val_mask(&mut s, 1, u32::MAX, Some(&map));
/// print_val_mask(&mut s, 0, 0xf, Some(&map));
/// assert_eq!(s, " default 0x1 0x0/0xf");
/// ```
pub fn print_val_mask(out: &mut String, val: u32, mask: u32, lmap: Option<&[(u32, String)]>) {
    use std::fmt::Write;
    if mask != u32::MAX {
        let _ = write!(out, " {val:#x}/{mask:#x}");
        return;
    }
    if let Some((_, n)) = lmap.and_then(|m| m.iter().find(|(id, _)| *id == val)) {
        out.push(' ');
        out.push_str(n);
        return;
    }
    let _ = write!(out, " {val:#x}");
}

/// A value of libxtables' `XTTYPE_HOSTMASK`: `host[/mask]`, the host an address or a name of
/// the family, the mask a prefix length or a mask in address form (all ones without one).
/// Returns the address (not masked), `hlen` (the prefix length, 255 for a mask that is no
/// prefix, as libxtables' `(uint8_t)-1`) and the mask, 16 bytes each (IPv4 in the first 4).
///
/// ```
/// use iptnl::ipt::ext::libxt::parse_hostmask;
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
    let addr = super::names::parse_host(family, host, &format!("--{option}"))?;
    let full = match family {
        IpFamily::V4 => 32,
        IpFamily::V6 => 128,
    };
    Ok(match mask {
        None => (addr, full, [0xff; 16]),
        Some(m) => match super::opts::parse_plen(ext, option, m, family)? {
            (Some(len), _) => (addr, len, prefix_mask(len)),
            (None, odd) => (addr, u8::MAX, odd),
        },
    })
}

/// `strtod(s, &end)`: the longest prefix of `s` that [`strtod_full`] reads (so the same
/// forms), with the rest of the string; `None` when no number starts `s`. Only the first
/// 512 bytes are looked at.
///
/// ```
/// use iptnl::ipt::ext::libxt::strtod_prefix;
/// assert_eq!(strtod_prefix("250.0ms"), Some((250.0, "ms")));
/// assert_eq!(strtod_prefix("1e"), Some((1.0, "e")));
/// assert_eq!(strtod_prefix("ms"), None);
/// ```
pub fn strtod_prefix(s: &str) -> Option<(f64, &str)> {
    let plausible = s
        .bytes()
        .take(512)
        .take_while(|b| b.is_ascii_alphanumeric() || b" \t\n\r+-.".contains(b))
        .count();
    (1..=plausible)
        .rev()
        .find_map(|n| strtod_full(&s[..n]).map(|v| (v, &s[n..])))
}

/// A `double` converted to `unsigned int` as gcc does it on x86-64 (through a 64-bit
/// signed conversion, keeping the low 32 bits): what `unsigned x = d;` stores for the
/// values C leaves undefined (negative or too large; 0 for NaN and infinities).
///
/// ```
/// use iptnl::ipt::ext::libxt::double_to_uint;
/// assert_eq!(double_to_uint(250000.9), 250000);
/// assert_eq!(double_to_uint(-1.0), u32::MAX);
/// ```
pub fn double_to_uint(d: f64) -> u32 {
    if d.is_finite() && d.abs() < 9.2e18 {
        d.trunc() as i64 as u32
    } else {
        0
    }
}

/// A string value put into a C buffer of `cap` bytes (`XTOPT_PUT` of `XTTYPE_STRING`): the
/// value up to its first NUL, as a C argument ends there. libxtables cuts a longer value to
/// `cap - 1` bytes, which names another object; it is refused instead, in the words of its
/// length check.
///
/// ```
/// use iptnl::ipt::ext::libxt::c_buffer_arg;
/// assert_eq!(c_buffer_arg("--genre", "linux\0x", 32), Ok("linux"));
/// assert!(c_buffer_arg("--genre", &"a".repeat(32), 32).is_err());
/// ```
pub fn c_buffer_arg<'a>(option: &str, value: &'a str, cap: usize) -> Result<&'a str, ParseError> {
    let v = value.split('\0').next().unwrap_or_default();
    if v.len() >= cap {
        return Err(ParseError::bad(
            option,
            format!(
                "Argument must have a maximum length of {} characters",
                cap.saturating_sub(1)
            ),
        ));
    }
    Ok(v)
}

/// `port[:port]` as libxtables' `XTTYPE_PORTRC` (`xtopt_parse_mport`) reads it: an empty
/// component keeps its end (0 or 65535), one port is `[p, p]`, and a port below the one
/// before is refused ("Port range 4-3 is negative.", as 1.8.11). `port` looks a component
/// up (with the extension's own messages); `too_many` is the error for a third component;
/// `shown` is the option as given, for the range message.
///
/// ```
/// use iptnl::ipt::error::ParseError;
/// use iptnl::ipt::ext::libxt::parse_port_rc;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `strtoumax` as the standard library's parsers read it, to check the byte loop against.
    fn strtoul_reference(s: &str) -> Option<(u64, &str)> {
        let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
        if t.starts_with('-') {
            return None;
        }
        let t = t.strip_prefix('+').unwrap_or(t);
        let b = t.as_bytes();
        let (radix, start) = if b.len() >= 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
            if b.get(2).is_some_and(|c| c.is_ascii_hexdigit()) {
                (16, 2)
            } else {
                return Some((0, &t[1..]));
            }
        } else if b.first() == Some(&b'0') {
            (8, 0)
        } else {
            (10, 0)
        };
        let digits = b[start..]
            .iter()
            .take_while(|c| (**c as char).is_digit(radix))
            .count();
        if digits == 0 {
            return None;
        }
        let v = u64::from_str_radix(&t[start..start + digits], radix).ok()?;
        Some((v, &t[start + digits..]))
    }

    proptest::proptest! {
        #[test]
        fn strtoul_prefix_reads_as_strtoumax(s in "[ +\\-]{0,2}(0[xX]?)?[0-9a-fA-Fx:/ ]{0,24}") {
            proptest::prop_assert_eq!(strtoul_prefix(&s), strtoul_reference(&s));
        }
    }

    #[test]
    fn strtoul_like_libc() {
        assert_eq!(strtoul_prefix_in("  42abc", 0, 100), Some((42, "abc")));
        assert_eq!(strtoul_prefix_in("0x", 0, 100), Some((0, "x")));
        assert_eq!(strtoul_prefix_in("077", 0, 100), Some((63, "")));
        assert_eq!(strtoul_prefix_in("65536", 0, 65535), None);
        assert_eq!(strtoul_prefix_in("abc", 0, 65535), None);
        assert_eq!(strtoul_prefix_in("", 0, 65535), None);
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
        assert_eq!(inet_aton("1.2.3"), Some([1, 2, 0, 3]));
        assert_eq!(inet_aton("0xff.0377.0.1"), Some([255, 255, 0, 1]));
        assert_eq!(inet_aton("1.65536"), Some([1, 1, 0, 0]));
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
        let f = |s: &str| ntop6(&s.parse::<Ipv6Addr>().unwrap().octets());
        assert_eq!(f("::"), "::");
        assert_eq!(f("::1"), "::1");
        assert_eq!(f("2001:db8::1"), "2001:db8::1");
        assert_eq!(f("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        assert_eq!(f("::1.2.3.4"), "::1.2.3.4");
        assert_eq!(f("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_eq!(f("1:0:2:3:4:5:6:7"), "1:0:2:3:4:5:6:7");
        assert_eq!(f("fe80::"), "fe80::");
    }

    #[test]
    fn doc_examples() {
        assert_eq!(strtoul_full(" 0x10", 0, 255), Some(16));
        assert_eq!(strtoul_full("010", 0, 255), Some(8));
        assert_eq!(strtoul_full("-1", 0, 255), None);
        assert_eq!(strtoul_full("5x", 0, 255), None);
        assert_eq!(parse_ipv4_xtables("10.1"), Some([10, 1, 0, 0]));
        assert_eq!(parse_ipv4_xtables("010.0.0.1"), Some([8, 0, 0, 1]));
        assert_eq!(parse_ipv4_xtables("1.2.3.4.5"), None);
        assert_eq!(inet_aton("255.255"), Some([255, 0, 0, 255]));
        assert_eq!(inet_aton("255.255.255.0"), Some([255, 255, 255, 0]));
        assert_eq!(inet_aton("1.2.3.4.5"), None);
        let p = |s: &str| ntop6(&s.parse::<std::net::Ipv6Addr>().unwrap().octets());
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
        let p = |s: &str| ntop6(&s.parse::<Ipv6Addr>().unwrap().octets());
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
        assert_eq!(inet_aton("1"), Some([0, 0, 0, 1]));
        assert_eq!(inet_aton("1.2.3"), Some([1, 2, 0, 3]));
        assert_eq!(inet_aton("0x7f.1"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("256.1.1.1"), None);
        assert_eq!(inet_aton("1..1"), None);
        assert_eq!(inet_aton(""), None);
    }

    #[test]
    fn numbers_parse_like_strtoul() {
        assert_eq!(parse_c_uint("010", 100), Some(8));
        assert_eq!(parse_c_uint("+5", 100), Some(5));
        assert_eq!(parse_c_uint("0x10", 100), Some(16));
        assert_eq!(parse_c_uint("-1", 100), None);
        assert_eq!(parse_c_uint("08", 100), None);
        assert_eq!(parse_c_uint("", 100), None);
    }
}
