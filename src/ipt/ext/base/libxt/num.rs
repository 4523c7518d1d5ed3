//! Numbers as libxtables and libc read them: `xtables_strtoul`'s syntax (`strtoumax` with
//! base 0 and libxtables' checks), `sscanf("%llu")`, `strtod` with its hexadecimal form, and
//! the C conversions of a double.

/// Parses a number at the start of `s` as `strtoumax(s, &end, 0)` does after libxtables'
/// checks (`xtables_strtoul_base`): leading white space and `+` are skipped, a `-` is
/// refused, `0x` means hexadecimal and a leading `0` octal. Returns the value and the rest of
/// the string, or `None` when no digit was read or the value overflows 64 bits.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::strtoul_prefix;
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
/// use iptnl::ipt::ext::base::libxt::scan_llu_prefix;
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

/// A whole string as one number within `min..=max` (`xtables_strtoul` without an end
/// pointer, as the `XTTYPE_UINT*` option types use it).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::strtoul_full;
/// assert_eq!(strtoul_full("010", 0, 255), Some(8));
/// assert_eq!(strtoul_full("256", 0, 255), None);
/// assert_eq!(strtoul_full("5x", 0, 255), None);
/// ```
pub fn strtoul_full(s: &str, min: u64, max: u64) -> Option<u64> {
    let (v, rest) = strtoul_prefix(s)?;
    (rest.is_empty() && (min..=max).contains(&v)).then_some(v)
}

/// A number at the start of `s` within `min..=max` (see [`strtoul_prefix`]), with the rest of
/// the string.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::strtoul_prefix_in;
/// assert_eq!(strtoul_prefix_in("  42abc", 0, 100), Some((42, "abc")));
/// assert_eq!(strtoul_prefix_in("65536", 0, 65535), None);
/// ```
pub fn strtoul_prefix_in(s: &str, min: u64, max: u64) -> Option<(u64, &str)> {
    strtoul_prefix(s).filter(|(v, _)| (min..=max).contains(v))
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

/// `strtod(s, &end)`: the longest prefix of `s` that [`strtod_full`] reads (so the same
/// forms), with the rest of the string; `None` when no number starts `s`. Only the first
/// 512 bytes are looked at.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::strtod_prefix;
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
/// use iptnl::ipt::ext::base::libxt::double_to_uint;
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
