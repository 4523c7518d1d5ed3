//! Checks of the readers against the C library's behaviour.

use std::net::Ipv6Addr;

use super::*;
use crate::ipt::IpFamily;

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
