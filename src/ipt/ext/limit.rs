//! `limit`: token-bucket rate limit (`--limit rate[/second|/minute|/hour|/day]`,
//! `--limit-burst n`).
//!
//! Encoding (iptables-nft 1.8.0–1.8.11): the native `limit` expression (packets, flags 0),
//! rate and unit chosen from the x_tables average interval as `add_nft_limit` does. Decoded
//! from that and from the x_tables `limit` match (rev 0, `xt_rateinfo`), both into the average
//! interval `avg = 10000 * unit / rate` that iptables prints from.

use std::mem::size_of;

use iptnl_sys::xt::{xt_rateinfo, XT_LIMIT_SCALE};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, STR};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::limit::{Limit as NftLimit, LimitType};
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `limit` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "limit",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("limit", STR),
        Opt::new(
            "limit-burst",
            Ty::Uint {
                min: 0,
                max: MAX_BURST as u64,
            },
        ),
    ]),
    new: |_| Box::new(RateLimit::default()),
    xt_names: &["limit"],
    decode_xt: Some(decode_xt),
    decode_native: Some(decode_native),
};

/// The default burst.
pub const DEFAULT_BURST: u32 = 5;

/// The largest `--limit-burst` iptables takes (`XT_LIMIT_SCALE`'s 10000).
pub const MAX_BURST: u32 = 10_000;

/// The units iptables prints, with the number of `1/XT_LIMIT_SCALE` seconds in each.
const RATES: [(&str, u32); 4] = [
    ("day", XT_LIMIT_SCALE * 24 * 60 * 60),
    ("hour", XT_LIMIT_SCALE * 60 * 60),
    ("min", XT_LIMIT_SCALE * 60),
    ("sec", XT_LIMIT_SCALE),
];

/// Options of `-m limit`, as in `struct xt_rateinfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimit {
    /// Average interval between packets in 1/10000 s (`--limit 3/hour` is 12000000).
    pub avg: u32,
    /// Bucket size (`--limit-burst`).
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit {
            avg: XT_LIMIT_SCALE * 3600 / 3,
            burst: DEFAULT_BURST,
        }
    }
}

/// `struct xt_rateinfo`, the two fields iptables sets: what an x_tables `limit` match
/// (written by older iptables-nft) decodes from; the rest is the kernel's bucket state and
/// is not read. The match is written natively.
static INFO: XtStruct<RateLimit> = XtStruct::new(
    "xt_rateinfo",
    size_of::<xt_rateinfo>(),
    0,
    &[
        xt_field!(xt_rateinfo, avg: U32 => avg),
        xt_field!(xt_rateinfo, burst: U32 => burst),
    ],
);

/// C `atoi`: leading blanks, a sign, digits; saturating like glibc's `strtol`, then cut to
/// `int`.
fn atoi(s: &str) -> i32 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, d) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for c in d.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add((c - b'0') as i64);
    }
    (if neg { v.saturating_neg() } else { v }) as i32
}

/// Parses `--limit` as `parse_rate`: a number (read with `atoi`), optionally `/` and a
/// case-insensitive prefix of `second`, `minute`, `hour` or `day`. Returns the average
/// interval.
pub fn parse_rate(rate: &str) -> Result<u32, ParseError> {
    let bad = || ParseError::bad("--limit", format!("bad rate \"{rate}\""));
    let mut mult: u32 = 1;
    if let Some((_, unit)) = rate.split_once('/') {
        if unit.is_empty() {
            return Err(bad());
        }
        let u = unit.to_ascii_lowercase();
        mult = [
            ("second", 1),
            ("minute", 60),
            ("hour", 3600),
            ("day", 86400),
        ]
        .iter()
        .find(|(n, _)| n.starts_with(u.as_str()))
        .map(|(_, m)| *m)
        .ok_or_else(bad)?;
    }
    let r = atoi(rate) as u32;
    if r == 0 {
        return Err(bad());
    }
    let avg = XT_LIMIT_SCALE * mult / r;
    if avg == 0 {
        return Err(ParseError::bad(
            "--limit",
            format!("Rate too fast \"{rate}\""),
        ));
    }
    Ok(avg)
}

/// The index after the unit `print_rate`/`add_nft_limit` settle on for `avg` (the largest
/// unit in which the rate is a whole number of packets, roughly).
fn unit_index(avg: u32) -> usize {
    let mut i = 1;
    while i < RATES.len() {
        let m = RATES[i].1;
        if avg > m || m / avg < m % avg {
            break;
        }
        i += 1;
    }
    i
}

/// The rate as iptables prints it (`3/hour`, `5/min`, `inf` for 0).
pub fn rate_text(avg: u32) -> String {
    if avg == 0 {
        return "inf".into();
    }
    let (name, m) = RATES[unit_index(avg) - 1];
    format!("{}/{}", m / avg, name)
}

impl RateLimit {
    /// The native expression iptables-nft emits (`add_nft_limit`).
    pub fn to_nft(&self) -> NftLimit {
        let m = RATES[unit_index(self.avg.max(1)) - 1].1;
        NftLimit {
            rate: (m / self.avg.max(1)) as u64,
            unit: (m / XT_LIMIT_SCALE) as u64,
            burst: self.burst,
            limit_type: LimitType::Packets,
            flags: 0,
        }
    }
}

impl Extension for RateLimit {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let v = val.text();
        if opt.name == "limit" {
            self.avg = parse_rate(v)?;
        } else {
            let b = val.uint() as u32;
            // The kernel's limit expression turns a zero packet burst into the default.
            self.burst = if b == 0 { DEFAULT_BURST } else { b };
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(Expr::Limit(self.to_nft()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --limit ");
        out.push_str(&rate_text(self.avg));
        if self.burst != DEFAULT_BURST {
            out.push_str(&format!(" --limit-burst {}", self.burst));
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" limit: avg ");
        out.push_str(&rate_text(self.avg));
        out.push_str(&format!(" burst {}", self.burst));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let l = INFO.decode(rev, info)?;
    (l.avg != 0 && l.burst != 0).then(|| Box::new(l) as Box<dyn Extension>)
}

fn decode_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let Some(Expr::Limit(l)) = cur.peek(0) else {
        return None;
    };
    // A burst iptables cannot write (nft takes any) has no iptables form: the rule is carried
    // whole, never shown as a line that no restore takes.
    if l.limit_type != LimitType::Packets
        || l.flags != 0
        || l.rate == 0
        || l.burst == 0
        || l.burst > MAX_BURST
    {
        return None;
    }
    let avg = (XT_LIMIT_SCALE as u64).checked_mul(l.unit)? / l.rate;
    if avg == 0 || avg > u32::MAX as u64 {
        return None;
    }
    cur.pos += 1;
    Some(Box::new(RateLimit {
        avg: avg as u32,
        burst: l.burst,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::decode_rule;
    use crate::nft::Rule;

    fn native(rate: u64, unit: u64, burst: u32, flags: u32) -> Option<String> {
        let mut r = Rule::new(IpFamily::V4.nft(), "filter", "INPUT");
        r.exprs = vec![Expr::Limit(NftLimit {
            rate,
            unit,
            burst,
            limit_type: LimitType::Packets,
            flags,
        })];
        decode_rule(&r, IpFamily::V4).ok().map(|d| d.to_save_args())
    }

    #[test]
    fn native_forms() {
        // nft's `limit rate 120/minute` and `limit rate 7/hour burst 9 packets`, as
        // iptables-nft 1.8.9 lists them.
        assert_eq!(native(120, 60, 5, 0).unwrap(), "-m limit --limit 2/sec");
        assert_eq!(
            native(7, 3600, 9, 0).unwrap(),
            "-m limit --limit 7/hour --limit-burst 9"
        );
        // `limit rate over` has no iptables form, nor has a burst over iptables' maximum.
        assert_eq!(native(7, 3600, 9, 1), None);
        assert_eq!(
            native(7, 3600, MAX_BURST, 0).unwrap(),
            "-m limit --limit 7/hour --limit-burst 10000"
        );
        assert_eq!(native(7, 3600, MAX_BURST + 1, 0), None);
        assert_eq!(native(100, 86400, 268_445_456, 0), None);
    }

    #[test]
    fn xt_form() {
        let mut info = vec![0u8; std::mem::size_of::<xt_rateinfo>()];
        info[..4].copy_from_slice(&120000u32.to_ne_bytes());
        info[4..8].copy_from_slice(&3u32.to_ne_bytes());
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let l = decode_xt(0, &info, &ctx).unwrap();
        let mut s = String::new();
        l.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --limit 5/min --limit-burst 3");
    }

    #[test]
    fn doc_examples() {
        assert_eq!(parse_rate("5/min"), Ok(120000));
        assert_eq!(parse_rate("3/hour"), Ok(12000000));
        assert!(parse_rate("10001/s").is_err());
        assert_eq!(rate_text(120000), "5/min");
        assert_eq!(rate_text(9836), "61/min");
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("2x/min").unwrap(), 300000);
        assert_eq!(parse_rate(" 2/MIN").unwrap(), 300000);
        assert!(parse_rate("2/").is_err());
        assert!(parse_rate("0/min").is_err());
        assert!(parse_rate("-2/min").is_err());
        assert!(parse_rate("2/secondx").is_err());
        assert_eq!(rate_text(parse_rate("7/s").unwrap()), "7/sec");
        assert_eq!(rate_text(parse_rate("100/d").unwrap()), "100/day");
        assert_eq!(rate_text(parse_rate("25/hour").unwrap()), "25/hour");
        let l = RateLimit {
            avg: 9836,
            ..RateLimit::default()
        }
        .to_nft();
        assert_eq!((l.rate, l.unit), (61, 60));
        let l = RateLimit::default().to_nft();
        assert_eq!((l.rate, l.unit, l.burst), (3, 3600, 5));
    }
}
