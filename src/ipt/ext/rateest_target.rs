//! `RATEEST` target: feed a named rate estimator (`--rateest-name`, `--rateest-interval`,
//! `--rateest-ewmalog`), which the `rateest` match then compares.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `RATEEST` target, rev 0,
//! `xt_rateest_target_info` (32 bytes). The interval is stored as the exponent of
//! `250ms << (interval + 2)` (the smallest step not below the given time, 250ms to 8s) and
//! the averaging time as the exponent of `interval << ewma_log`, worked out as libxt_RATEEST
//! does; both print back as those times (`250.0ms`, `1.0s`).

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{xt_rateest_target_info, IFNAMSIZ};

use super::base::libxt::{double_to_uint, strtod_prefix, text, truncate_bytes};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j RATEEST`.
pub static DESC: ExtDesc = ExtDesc {
    name: "RATEEST",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("rateest-name", STR).mand(),
        Opt::new("rateest-interval", STR).mand(),
        Opt::new("rateest-ewmalog", STR).mand(),
    ]),
    new: |_| Box::new(RateEst::default()),
    xt_names: &["RATEEST"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Microseconds in a second (iproute2's `TIME_UNITS_PER_SEC`).
const USEC: u32 = 1_000_000;

/// `-j RATEEST …`, as `struct xt_rateest_target_info`, with the times given while parsing.
#[derive(Debug, Clone, Default)]
pub struct RateEst {
    /// The estimator's name (at most 15 bytes).
    pub name: Vec<u8>,
    /// `250ms << (interval + 2)` is the measurement interval.
    pub interval: i8,
    /// The averaging time is the interval `<< ewma_log`.
    pub ewma_log: u8,
    /// `--rateest-interval` in microseconds, while parsing.
    given_interval: u32,
    /// `--rateest-ewmalog` in microseconds, while parsing.
    given_ewmalog: u32,
}

impl PartialEq for RateEst {
    fn eq(&self, o: &RateEst) -> bool {
        (&self.name, self.interval, self.ewma_log) == (&o.name, o.interval, o.ewma_log)
    }
}

/// `RATEEST_get_time`: a `strtod` number, microseconds unless followed by `s`, `sec`,
/// `secs`, `ms`, `msec`, `msecs`, `us`, `usec` or `usecs` (any case).
pub fn parse_time(s: &str) -> Option<u32> {
    let (t, rest) = strtod_prefix(s)?;
    let unit = match rest.to_ascii_lowercase().as_str() {
        "" => 1.0,
        "s" | "sec" | "secs" => f64::from(USEC),
        "ms" | "msec" | "msecs" => f64::from(USEC / 1000),
        "us" | "usec" | "usecs" => 1.0,
        _ => return None,
    };
    Some(double_to_uint(t * unit))
}

/// `RATEEST_print_time`: ` 1.0s`, ` 250.0ms` or ` 10us`.
fn push_time(out: &mut String, time: u32) {
    let t = f64::from(time);
    if time >= USEC {
        out.push_str(&format!(" {:.1}s", t / f64::from(USEC)));
    } else if time >= USEC / 1000 {
        out.push_str(&format!(" {:.1}ms", t / f64::from(USEC / 1000)));
    } else {
        out.push_str(&format!(" {time}us"));
    }
}

/// `struct xt_rateest_target_info`, field by field: it decodes the options and encodes
/// them. The name is written cut to leave its NUL; the estimator pointer is written as zero and compared,
/// as the kernel dumps it.
static INFO: XtStruct<RateEst> = XtStruct::new(
    "xt_rateest_target_info",
    size_of::<xt_rateest_target_info>(),
    0,
    &[
        Field {
            name: "name",
            at: offset_of!(xt_rateest_target_info, name),
            kind: Kind::CBytes(
                IFNAMSIZ,
                |s| &s.name[..s.name.len().min(IFNAMSIZ - 1)],
                |s, v| s.name = v,
            ),
        },
        Field {
            name: "interval",
            at: offset_of!(xt_rateest_target_info, interval),
            kind: Kind::U8(|s| s.interval as u8, |s, v| s.interval = v as i8),
        },
        xt_field!(xt_rateest_target_info, ewma_log: U8 => ewma_log),
    ],
);

impl RateEst {
    /// `__RATEEST_print` with `prefix` before each word.
    fn show(&self, prefix: &str, out: &mut String) {
        let shift = (i32::from(self.interval) + 2).clamp(0, 31) as u32;
        let interval = (USEC << shift) / 4;
        let ewma = interval.wrapping_mul(1u32.wrapping_shl(u32::from(self.ewma_log)));
        out.push_str(&format!(" {prefix}name {}", text(&self.name)));
        out.push_str(&format!(" {prefix}interval"));
        push_time(out, interval);
        out.push_str(&format!(" {prefix}ewmalog"));
        push_time(out, ewma);
    }
}

impl Extension for RateEst {
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
        match opt.name {
            "rateest-name" => self.name = truncate_bytes(v, IFNAMSIZ),
            "rateest-interval" => {
                self.given_interval = parse_time(v).ok_or_else(|| {
                    ParseError::bad(
                        "--rateest-interval",
                        format!("RATEEST: bad interval value \"{v}\""),
                    )
                })?;
            }
            _ => {
                self.given_ewmalog = parse_time(v).ok_or_else(|| {
                    ParseError::bad(
                        "--rateest-ewmalog",
                        format!("RATEEST: bad ewmalog value \"{v}\""),
                    )
                })?;
            }
        }
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        let step = (0..=5u32)
            .find(|&i| self.given_interval <= (1 << i) * (USEC / 4))
            .ok_or_else(|| ParseError::Invalid("RATEEST: interval value is too large".into()))?;
        self.interval = step as i8 - 2;
        let given = f64::from(self.given_interval);
        let ewma = (1..32u32)
            .find(|&e| {
                let w = 1.0 - 1.0 / f64::from(1i32.wrapping_shl(e));
                given / -w.ln() > f64::from(self.given_ewmalog)
            })
            .unwrap_or(32)
            - 1;
        if ewma == 0 || ewma >= 31 {
            return Err(ParseError::Invalid(
                "RATEEST: ewmalog value is out of range".into(),
            ));
        }
        self.ewma_log = ewma as u8;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("RATEEST", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.show("--rateest-", out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        self.show("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let r = INFO.decode_exact(rev, info)?;
    // What the options can give: 250ms to 8s, an averaging exponent of 1 to 30.
    // The name ends in a NUL within its field.
    let ok =
        (-2..=3).contains(&r.interval) && (1..=30).contains(&r.ewma_log) && r.name.len() < IFNAMSIZ;
    ok.then(|| Box::new(r) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("250.0ms"), Some(250_000));
        assert_eq!(parse_time("1S"), Some(1_000_000));
        assert_eq!(parse_time("10"), Some(10));
        assert_eq!(parse_time("10 us"), None);
        assert_eq!(parse_time("x"), None);
        let t =
            "-j RATEEST --rateest-name RE1 --rateest-interval 250.0ms --rateest-ewmalog 500.0ms";
        assert_eq!(round(t).unwrap(), t);
        assert_eq!(
            round("-j RATEEST --rateest-name a --rateest-interval 1s --rateest-ewmalog 8s")
                .unwrap(),
            "-j RATEEST --rateest-name a --rateest-interval 1.0s --rateest-ewmalog 8.0s"
        );
        assert_eq!(
            round("-j RATEEST --rateest-name a --rateest-interval 9s --rateest-ewmalog 8s")
                .unwrap_err(),
            "RATEEST: interval value is too large"
        );
        assert_eq!(
            round("-j RATEEST --rateest-name a --rateest-interval 1s --rateest-ewmalog 1s")
                .unwrap_err(),
            "RATEEST: ewmalog value is out of range"
        );
        assert_eq!(
            round("-j RATEEST --rateest-name a --rateest-interval 1k --rateest-ewmalog 1s")
                .unwrap_err(),
            "--rateest-interval: RATEEST: bad interval value \"1k\""
        );
        assert!(round("-j RATEEST --rateest-interval 1s --rateest-ewmalog 8s").is_err());
    }
}
