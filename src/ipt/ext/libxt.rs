//! What libxtables and glibc do with numbers and addresses, in one place for every
//! extension: `xtables_strtoul`'s number syntax and glibc's `inet_ntop` for IPv6.

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
            // "0x" without a hex digit: strtoumax reads the "0" and stops at the "x".
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
