//! The reader floor: the oldest iptables-nft release that must read the rules iptnl writes
//! exactly as they were meant.
//!
//! iptables-nft has changed how it lays a rule out in nf_tables over its releases, and an
//! older release silently misreads the newer forms: 1.8.8 started writing tcp and udp ports
//! and flags, `-m mark` and `-j NFLOG` with native expressions, which 1.8.7 drops (it reads
//! `-m mark --mark 0x8000/0x8000 -j DROP` as `-j DROP`, and a save and restore by it widens the
//! rule for good). So iptnl writes, for a floor, exactly what that release's iptables-nft
//! writes wherever every later release reads it too:
//!
//! | floor | forms written | as iptables-nft |
//! |---|---|---|
//! | 1.8.7 | x_tables `tcp`, `udp`, `mark` matches and `NFLOG` target; `SECMARK` revision 0; `-i`, `-o`, `-p` (`meta l4proto`), `-s`, `-d` | 1.8.7 |
//! | 1.8.9 | native ports, tcp flags, mark and `log`; the same order | 1.8.8, 1.8.9 |
//! | 1.8.11, 1.8.13 | native; `-s`, `-d`, `-i`, `-o`, then `-p` (IPv4: `ip protocol` payload) | 1.8.10 to 1.8.13 |
//!
//! At every floor the rule means exactly what was asked: the writers' known mistakes are
//! not copied (`-i +` is written as no test at all, `! -i +` as a test no interface passes,
//! `! --sport 1 ! --dport 2` as two tests, `! --sport :` kept). A floor never refuses a
//! rule: one that has no form of the floor's release (`! -p tcp -m tcp --dport 1`, which
//! the kernel refuses in the x_tables form; an NFLOG prefix longer than 63 bytes) is
//! written as the next release writes it, and `iptnl check-readers` names it.
//!
//! A release between two floors reads what the floor below it reads, so `1.8.8` is taken as
//! 1.8.7, `1.8.10` as 1.8.9 and `1.8.12` as 1.8.11 (the safe side); a release after 1.8.13 as
//! 1.8.13. Releases before 1.8.7 are refused.

use std::fmt;
use std::str::FromStr;

/// The oldest iptables-nft release that must read iptnl's rules exactly (see the module
/// documentation for what each one writes).
///
/// ```
/// use iptnl::ipt::ReaderFloor;
/// let f: ReaderFloor = "1.8.10".parse().unwrap();
/// assert_eq!(f, ReaderFloor::V1_8_9);
/// assert_eq!(f.to_string(), "1.8.9");
/// assert!(ReaderFloor::V1_8_7 < ReaderFloor::V1_8_13);
/// assert!("1.8.6".parse::<ReaderFloor>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReaderFloor {
    /// iptables-nft 1.8.7 (Debian 11, Ubuntu 22.04, RHEL 9.0) and 1.8.8.
    V1_8_7,
    /// iptables-nft 1.8.9 (Debian 12) and 1.8.10 (Ubuntu 24.04).
    V1_8_9,
    /// iptables-nft 1.8.11 (Debian 13) and 1.8.12.
    V1_8_11,
    /// iptables-nft 1.8.13 and later.
    V1_8_13,
}

impl ReaderFloor {
    /// Every floor, oldest first.
    pub const ALL: [ReaderFloor; 4] = [
        ReaderFloor::V1_8_7,
        ReaderFloor::V1_8_9,
        ReaderFloor::V1_8_11,
        ReaderFloor::V1_8_13,
    ];

    /// The floors whose writers lay rules out differently, oldest first (1.8.13 writes what
    /// 1.8.11 writes).
    pub const LAYOUTS: [ReaderFloor; 3] = [
        ReaderFloor::V1_8_7,
        ReaderFloor::V1_8_9,
        ReaderFloor::V1_8_11,
    ];

    /// The floor of the encoding functions that take none ([`crate::ipt::encode_rule`] and
    /// the like): iptables-nft 1.8.9's forms. An [`IpTables`](crate::iptables::IpTables)
    /// handle writes at its own floor instead.
    pub const UNPINNED: ReaderFloor = ReaderFloor::V1_8_9;

    /// The environment variable the commands and `iptnl serve` read the floor from when no
    /// `--reader-floor` option is given.
    pub const ENV: &'static str = "IPTNL_READER_FLOOR";

    /// Whether tcp and udp ports and flags, `-m mark` and `-j NFLOG` are written natively
    /// (otherwise as the x_tables extensions).
    ///
    /// ```
    /// use iptnl::ipt::ReaderFloor;
    /// assert!(!ReaderFloor::V1_8_7.native_matches());
    /// assert!(ReaderFloor::V1_8_9.native_matches());
    /// ```
    pub fn native_matches(self) -> bool {
        self >= ReaderFloor::V1_8_9
    }

    /// Whether addresses come first and the IPv4 protocol is an `ip protocol` payload test
    /// (iptables-nft 1.8.10 and later), instead of `-i`, `-o`, `meta l4proto` first.
    ///
    /// ```
    /// use iptnl::ipt::ReaderFloor;
    /// assert!(!ReaderFloor::V1_8_9.addresses_first());
    /// assert!(ReaderFloor::V1_8_11.addresses_first());
    /// ```
    pub fn addresses_first(self) -> bool {
        self >= ReaderFloor::V1_8_11
    }

    /// The floor's layout: floors that write alike share one (1.8.13 has 1.8.11's).
    ///
    /// ```
    /// use iptnl::ipt::ReaderFloor;
    /// assert_eq!(ReaderFloor::V1_8_13.layout(), ReaderFloor::V1_8_11);
    /// ```
    pub fn layout(self) -> ReaderFloor {
        match self {
            ReaderFloor::V1_8_13 => ReaderFloor::V1_8_11,
            f => f,
        }
    }

    /// The floor's name, `1.8.7`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReaderFloor::V1_8_7 => "1.8.7",
            ReaderFloor::V1_8_9 => "1.8.9",
            ReaderFloor::V1_8_11 => "1.8.11",
            ReaderFloor::V1_8_13 => "1.8.13",
        }
    }

    /// The floor set in the environment ([`Self::ENV`]): `None` when unset or empty, an
    /// error in words when it names no floor.
    ///
    /// ```
    /// assert_eq!(iptnl::ipt::ReaderFloor::from_env(), Ok(None));
    /// ```
    pub fn from_env() -> Result<Option<ReaderFloor>, FloorError> {
        match std::env::var(Self::ENV) {
            Ok(v) if !v.trim().is_empty() => v.parse().map(Some),
            _ => Ok(None),
        }
    }
}

impl fmt::Display for ReaderFloor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that names no reader floor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("reader floor `{0}': {1}")]
pub struct FloorError(pub String, pub &'static str);

impl FromStr for ReaderFloor {
    type Err = FloorError;

    /// `1.8.7` to `1.8.13` (or later), with or without a leading `v`.
    fn from_str(s: &str) -> Result<ReaderFloor, FloorError> {
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let bad = || FloorError(s.to_owned(), "give an iptables release, 1.8.7 or later");
        let mut parts = t.split('.');
        let mut num = || -> Result<u32, FloorError> {
            let p = parts.next().ok_or_else(bad)?;
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.len() > 4 {
                return Err(bad());
            }
            p.parse().map_err(|_| bad())
        };
        let v = (num()?, num()?, num()?);
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(match v {
            (1, 8, n) if n < 7 => {
                return Err(FloorError(
                    s.to_owned(),
                    "iptables-nft releases before 1.8.7 are not supported",
                ))
            }
            (1, 8, 7 | 8) => ReaderFloor::V1_8_7,
            (1, 8, 9 | 10) => ReaderFloor::V1_8_9,
            (1, 8, 11 | 12) => ReaderFloor::V1_8_11,
            (1, 8, _) => ReaderFloor::V1_8_13,
            (a, b, _) if (a, b) < (1, 8) => {
                return Err(FloorError(
                    s.to_owned(),
                    "iptables-nft releases before 1.8.7 are not supported",
                ))
            }
            _ => ReaderFloor::V1_8_13,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::ext::NoSets;
    use crate::ipt::{decode_rule_exact, encode_rule_for, parse_rule_str, IpFamily};
    use crate::nft::Expr;

    /// Each floor's rules read back as the same spec, exactly (no note, no raw form), and
    /// in the forms of that floor.
    #[test]
    fn every_floor_reads_back_exactly() {
        for (family, text) in [
            (
                IpFamily::V4,
                "-s 10.0.0.0/8 -i eth0 -p tcp -m tcp --dport 22 -j ACCEPT",
            ),
            (
                IpFamily::V4,
                "-p tcp -m tcp ! --sport 1 ! --dport 2 --tcp-flags SYN,ACK SYN",
            ),
            (IpFamily::V4, "-p udp -m udp ! --sport 0:65535 -j DROP"),
            (IpFamily::V4, "-m mark --mark 0x8000/0x8000 -j DROP"),
            (
                IpFamily::V4,
                "! -i + -j NFLOG --nflog-prefix x --nflog-group 3",
            ),
            (
                IpFamily::V6,
                "-d ::1/128 -o lo -p udp -m udp --dport 53 -j ACCEPT",
            ),
            (IpFamily::V4, "-p icmp -f -j DROP"),
        ] {
            let spec = &parse_rule_str(family, text).unwrap()[0];
            for floor in ReaderFloor::ALL {
                let r = encode_rule_for(spec, family, "filter", "INPUT", &NoSets, floor).unwrap();
                let back = decode_rule_exact(&r, family)
                    .unwrap_or_else(|e| panic!("{text} at {floor}: {e}"));
                assert_eq!(back.to_save_args(), text, "at {floor}");
                let xt = r.exprs.iter().any(|e| match e {
                    Expr::Match(m) => matches!(&*m.name, "tcp" | "udp" | "mark"),
                    Expr::Target(t) => t.name == "NFLOG",
                    _ => false,
                });
                let native = text.contains("-m mark")
                    || text.contains("--dport")
                    || text.contains("--sport")
                    || text.contains("NFLOG");
                assert_eq!(xt, native && !floor.native_matches(), "{text} at {floor}");
            }
        }
    }

    #[test]
    fn the_order_and_the_protocol_test_follow_the_release() {
        let spec = &parse_rule_str(IpFamily::V4, "-s 1.2.3.4 -i lo -p tcp").unwrap()[0];
        let names = |floor| {
            let r = encode_rule_for(spec, IpFamily::V4, "filter", "INPUT", &NoSets, floor).unwrap();
            r.exprs
                .iter()
                .map(|e| e.name().to_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            names(ReaderFloor::V1_8_7),
            "meta cmp meta cmp payload cmp counter"
        );
        assert_eq!(
            names(ReaderFloor::V1_8_9),
            "meta cmp meta cmp payload cmp counter"
        );
        assert_eq!(
            names(ReaderFloor::V1_8_11),
            "payload cmp meta cmp payload cmp counter"
        );
        assert_eq!(names(ReaderFloor::V1_8_13), names(ReaderFloor::V1_8_11));
        // `-i +` tests nothing, at every floor.
        let any = &parse_rule_str(IpFamily::V4, "-i + -s 1.2.3.4").unwrap()[0];
        for floor in ReaderFloor::ALL {
            let r = encode_rule_for(any, IpFamily::V4, "filter", "INPUT", &NoSets, floor).unwrap();
            assert_eq!(r.exprs.len(), 3, "{floor}");
        }
    }

    #[test]
    fn a_rule_without_a_1_8_7_form_is_written_as_1_8_9_writes_it() {
        let p = "p".repeat(64);
        for text in [
            format!("-j NFLOG --nflog-prefix {p}"),
            "! -p tcp -m tcp --dport 1 -j DROP".to_owned(),
        ] {
            let spec = &parse_rule_str(IpFamily::V4, &text).unwrap()[0];
            let at =
                |f| encode_rule_for(spec, IpFamily::V4, "filter", "INPUT", &NoSets, f).unwrap();
            assert_eq!(
                at(ReaderFloor::V1_8_7).exprs,
                at(ReaderFloor::V1_8_9).exprs,
                "{text}"
            );
        }
    }

    #[test]
    fn releases_map_to_the_floor_below() {
        for (s, f) in [
            ("1.8.7", ReaderFloor::V1_8_7),
            ("v1.8.8", ReaderFloor::V1_8_7),
            ("1.8.9", ReaderFloor::V1_8_9),
            ("1.8.10", ReaderFloor::V1_8_9),
            ("1.8.11", ReaderFloor::V1_8_11),
            ("1.8.12", ReaderFloor::V1_8_11),
            ("1.8.13", ReaderFloor::V1_8_13),
            ("1.8.20", ReaderFloor::V1_8_13),
            ("1.9.0", ReaderFloor::V1_8_13),
        ] {
            assert_eq!(s.parse::<ReaderFloor>(), Ok(f), "{s}");
        }
        for s in [
            "1.8.6", "1.4.21", "", "1.8", "1.8.x", "1.8.7.1", "-1.8.7", "1..7",
        ] {
            assert!(s.parse::<ReaderFloor>().is_err(), "{s}");
        }
        let e = "1.8.6".parse::<ReaderFloor>().unwrap_err().to_string();
        assert_eq!(
            e,
            "reader floor `1.8.6': iptables-nft releases before 1.8.7 are not supported"
        );
        for f in ReaderFloor::ALL {
            assert_eq!(f.to_string().parse::<ReaderFloor>(), Ok(f));
        }
    }
}
