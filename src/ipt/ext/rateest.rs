//! `rateest`: compare the rates of the estimators that `RATEEST` targets feed, with given
//! rates (`--rateest NAME`) or with each other (`--rateest1 NAME --rateest2 NAME`), in
//! bytes or packets per second (`--rateest-bps[1|2] [RATE]`, `--rateest-pps[1|2] [N]`),
//! optionally as a difference (`--rateest-delta`), by `[!] --rateest-lt|gt|eq`.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `rateest` match, rev 0,
//! `xt_rateest_match_info` (72 bytes); rates are stored in bytes per second, truncated.
//! As in libxt_rateest (an old-style extension), the rate after a `--rateest-bps*` or
//! `--rateest-pps*` option may be left out, and each option has its own messages.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_rateest_match_info, IFNAMSIZ, XT_RATEEST_MATCH_ABS, XT_RATEEST_MATCH_BPS,
    XT_RATEEST_MATCH_DELTA, XT_RATEEST_MATCH_EQ, XT_RATEEST_MATCH_GT, XT_RATEEST_MATCH_INVERT,
    XT_RATEEST_MATCH_LT, XT_RATEEST_MATCH_PPS, XT_RATEEST_MATCH_REL,
};

use super::base::libxt::{double_to_uint, strtod_prefix, strtoul_full, text};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `rateest` match. Every option is repeatable and invertible in the table: the
/// extension gives libxt_rateest's own messages for both.
pub static DESC: ExtDesc = ExtDesc {
    name: "rateest",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::custom("rateest1").inv().multi(),
        Opt::custom("rateest").alias("rateest1"),
        Opt::custom("rateest2").inv().multi(),
        Opt::new("rateest-bps1", Ty::OptRaw).inv().multi(),
        Opt::new("rateest-pps1", Ty::OptRaw).inv().multi(),
        Opt::new("rateest-bps2", Ty::OptRaw).inv().multi(),
        Opt::new("rateest-pps2", Ty::OptRaw).inv().multi(),
        Opt::new("rateest-bps", Ty::OptRaw).alias("rateest-bps2"),
        Opt::new("rateest-pps", Ty::OptRaw).alias("rateest-pps2"),
        Opt::flag("rateest-delta").inv().multi(),
        Opt::flag("rateest-lt").inv().multi(),
        Opt::flag("rateest-gt").inv().multi(),
        Opt::flag("rateest-eq").inv().multi(),
    ]),
    new: |_| Box::new(RateEstMatch::default()),
    xt_names: &["rateest"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Rate units (iproute2's, in bits per second), compared without case, first match wins.
const SUFFIXES: [(&str, f64); 18] = [
    ("bit", 1.),
    ("Kibit", 1024.),
    ("kbit", 1000.),
    ("Mibit", 1024. * 1024.),
    ("mbit", 1_000_000.),
    ("Gibit", 1024. * 1024. * 1024.),
    ("gbit", 1_000_000_000.),
    ("Tibit", 1024. * 1024. * 1024. * 1024.),
    ("tbit", 1_000_000_000_000.),
    ("Bps", 8.),
    ("KiBps", 8. * 1024.),
    ("KBps", 8000.),
    ("MiBps", 8. * 1024. * 1024.),
    ("MBps", 8_000_000.),
    ("GiBps", 8. * 1024. * 1024. * 1024.),
    ("GBps", 8_000_000_000.),
    ("TiBps", 8. * 1024. * 1024. * 1024. * 1024.),
    ("TBps", 8_000_000_000_000.),
];

/// `rateest_get_rate`: a `strtod` number of bytes per second, or of the unit that follows
/// it; in bytes per second.
pub fn parse_rate(s: &str) -> Option<u32> {
    let (v, rest) = strtod_prefix(s)?;
    if rest.is_empty() {
        return Some(double_to_uint(v / 8.));
    }
    SUFFIXES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(rest))
        .map(|(_, scale)| double_to_uint(v * scale / 8.))
}

/// `rateest_print_rate`: ` N` (bytes) when numeric, else ` NMbit`, ` NKbit` or ` Nbit`.
fn push_rate(out: &mut String, rate: u32, numeric: bool) {
    let bits = f64::from(rate) * 8.;
    if numeric {
        out.push_str(&format!(" {rate}"));
    } else if bits >= 1000.0 * 1_000_000.0 {
        out.push_str(&format!(" {:.0}Mbit", bits / 1_000_000.0));
    } else if bits >= 1000.0 * 1000.0 {
        out.push_str(&format!(" {:.0}Kbit", bits / 1000.0));
    } else {
        out.push_str(&format!(" {bits:.0}bit"));
    }
}

/// Options of `-m rateest`, as in `struct xt_rateest_match_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateEstMatch {
    /// The first estimator (at most 15 bytes).
    pub name1: Vec<u8>,
    /// The second estimator (relative mode).
    pub name2: Vec<u8>,
    /// `XT_RATEEST_MATCH_*` flags.
    pub flags: u16,
    /// `XT_RATEEST_MATCH_EQ`, `_LT` or `_GT`.
    pub mode: u16,
    /// First rate, bytes per second.
    pub bps1: u32,
    /// First rate, packets per second.
    pub pps1: u32,
    /// Second rate, bytes per second.
    pub bps2: u32,
    /// Second rate, packets per second.
    pub pps2: u32,
}

/// `struct xt_rateest_match_info`, field by field: it decodes the options and encodes
/// them. Each name is written cut to leave its NUL. The estimator pointers are written as zero and compared, as the kernel dumps them.
static INFO: XtStruct<RateEstMatch> = XtStruct::new(
    "xt_rateest_match_info",
    size_of::<xt_rateest_match_info>(),
    0,
    &[
        Field {
            name: "name1",
            at: offset_of!(xt_rateest_match_info, name1),
            kind: Kind::CBytes(
                IFNAMSIZ,
                |s| &s.name1[..s.name1.len().min(IFNAMSIZ - 1)],
                |s, v| s.name1 = v,
            ),
        },
        Field {
            name: "name2",
            at: offset_of!(xt_rateest_match_info, name2),
            kind: Kind::CBytes(
                IFNAMSIZ,
                |s| &s.name2[..s.name2.len().min(IFNAMSIZ - 1)],
                |s, v| s.name2 = v,
            ),
        },
        xt_field!(xt_rateest_match_info, flags: U16 => flags),
        xt_field!(xt_rateest_match_info, mode: U16 => mode),
        xt_field!(xt_rateest_match_info, bps1: U32 => bps1),
        xt_field!(xt_rateest_match_info, pps1: U32 => pps1),
        xt_field!(xt_rateest_match_info, bps2: U32 => bps2),
        xt_field!(xt_rateest_match_info, pps2: U32 => pps2),
    ],
);

impl RateEstMatch {
    fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    /// `rateest_print_mode`.
    fn push_mode(&self, out: &mut String, prefix: &str) {
        if self.has(XT_RATEEST_MATCH_INVERT) {
            out.push_str(" !");
        }
        let word = match self.mode {
            XT_RATEEST_MATCH_EQ => "eq",
            XT_RATEEST_MATCH_LT => "lt",
            XT_RATEEST_MATCH_GT => "gt",
            _ => return,
        };
        out.push(' ');
        out.push_str(prefix);
        out.push_str(word);
    }

    /// `__rateest_save_rate`.
    fn save_rate(&self, out: &mut String, name: &str, r1: u32, r2: u32, numeric: bool) {
        if self.has(XT_RATEEST_MATCH_DELTA) {
            out.push_str(&format!(" --rateest-{name}1"));
            push_rate(out, r1, numeric);
            self.push_mode(out, "--rateest-");
            out.push_str(&format!(" --rateest-{name}2"));
        } else {
            self.push_mode(out, "--rateest-");
            out.push_str(&format!(" --rateest-{name}"));
        }
        if self.has(XT_RATEEST_MATCH_ABS | XT_RATEEST_MATCH_DELTA) {
            push_rate(out, r2, numeric);
        }
    }

    fn save_rates(&self, out: &mut String) {
        if self.has(XT_RATEEST_MATCH_BPS) {
            self.save_rate(out, "bps", self.bps1, self.bps2, false);
        }
        if self.has(XT_RATEEST_MATCH_PPS) {
            self.save_rate(out, "pps", self.pps1, self.pps2, true);
        }
    }
}

impl Extension for RateEstMatch {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let name = opt.canonical();
        let err = |msg: String| ParseError::bad(format!("--{}", opt.name), msg);
        let twice = ctx.given.has(name);
        let what = match name {
            "rateest1" | "rateest2" => "rateest",
            "rateest-bps1" | "rateest-bps2" => "rateest-bps",
            "rateest-pps1" | "rateest-pps2" => "rateest-pps",
            "rateest-delta" => "rateest-delta",
            _ => "",
        };
        if inv && !what.is_empty() {
            return Err(err(format!("rateest: {what} can't be inverted")));
        }
        if twice {
            return Err(err(if what.is_empty() {
                "rateest: can't specify lt/gt/eq twice".to_owned()
            } else {
                format!("rateest: can't specify --{name} twice")
            }));
        }
        let rate = |v: &str| {
            parse_rate(v).ok_or_else(|| err(format!("rateest: could not parse rate `{v}'")))
        };
        let pps = |v: &str| {
            strtoul_full(v, 0, u32::MAX.into())
                .map(|n| n as u32)
                .ok_or_else(|| err(format!("rateest: could not parse pps `{v}'")))
        };
        let given = matches!(val, Val::Raw(_));
        let v = val.text();
        match name {
            "rateest1" => self.name1 = super::base::libxt::truncate_bytes(v, IFNAMSIZ),
            "rateest2" => {
                self.name2 = super::base::libxt::truncate_bytes(v, IFNAMSIZ);
                self.flags |= XT_RATEEST_MATCH_REL;
            }
            "rateest-bps1" | "rateest-bps2" => {
                self.flags |= XT_RATEEST_MATCH_BPS;
                if given {
                    let r = rate(v)?;
                    if name == "rateest-bps1" {
                        self.bps1 = r;
                    } else {
                        self.bps2 = r;
                    }
                }
            }
            "rateest-pps1" | "rateest-pps2" => {
                self.flags |= XT_RATEEST_MATCH_PPS;
                if given {
                    let r = pps(v)?;
                    if name == "rateest-pps1" {
                        self.pps1 = r;
                    } else {
                        self.pps2 = r;
                    }
                }
            }
            "rateest-delta" => self.flags |= XT_RATEEST_MATCH_DELTA,
            _ => {
                self.mode = match name {
                    "rateest-eq" => XT_RATEEST_MATCH_EQ,
                    "rateest-lt" => XT_RATEEST_MATCH_LT,
                    _ => XT_RATEEST_MATCH_GT,
                };
                if inv {
                    self.flags |= XT_RATEEST_MATCH_INVERT;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if !self.has(XT_RATEEST_MATCH_REL) {
            self.flags |= XT_RATEEST_MATCH_ABS;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("rateest", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.has(XT_RATEEST_MATCH_DELTA) {
            out.push_str(" --rateest-delta");
        }
        if self.has(XT_RATEEST_MATCH_REL) {
            out.push_str(&format!(" --rateest1 {}", text(&self.name1)));
            self.save_rates(out);
            out.push_str(&format!(" --rateest2 {}", text(&self.name2)));
        } else {
            out.push_str(&format!(" --rateest {}", text(&self.name1)));
            self.save_rates(out);
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        let (delta, abs) = (
            self.has(XT_RATEEST_MATCH_DELTA),
            self.has(XT_RATEEST_MATCH_ABS),
        );
        out.push_str(" rateest match ");
        out.push_str(&text(&self.name1));
        if delta {
            out.push_str(" delta");
        }
        if self.has(XT_RATEEST_MATCH_BPS) {
            out.push_str(" bps");
            if delta {
                push_rate(out, self.bps1, ctx.numeric);
            }
            if abs {
                push_rate(out, self.bps2, ctx.numeric);
                self.push_mode(out, "");
            }
        }
        if self.has(XT_RATEEST_MATCH_PPS) {
            out.push_str(" pps");
            if delta {
                out.push_str(&format!(" {}", self.pps1));
            }
            if abs {
                self.push_mode(out, "");
                out.push_str(&format!(" {}", self.pps2));
            }
        }
        if self.has(XT_RATEEST_MATCH_REL) {
            self.push_mode(out, "");
            out.push(' ');
            out.push_str(&text(&self.name2));
            if self.has(XT_RATEEST_MATCH_BPS) {
                out.push_str(" bps");
                if delta {
                    push_rate(out, self.bps2, ctx.numeric);
                }
            }
            if self.has(XT_RATEEST_MATCH_PPS) {
                out.push_str(" pps");
                if delta {
                    out.push_str(&format!(" {}", self.pps2));
                }
            }
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let m = INFO.decode_exact(rev, info)?;
    // What the kernel takes (one of absolute and relative, a rate kind, a comparison) and
    // only what the saved options give back: each rate only where it is saved.
    let (abs, rel) = (m.has(XT_RATEEST_MATCH_ABS), m.has(XT_RATEEST_MATCH_REL));
    let delta = m.has(XT_RATEEST_MATCH_DELTA);
    let (bps, pps) = (m.has(XT_RATEEST_MATCH_BPS), m.has(XT_RATEEST_MATCH_PPS));
    let ok = m.flags & !0x3f == 0
        && abs != rel
        && (bps || pps)
        && (XT_RATEEST_MATCH_EQ..=XT_RATEEST_MATCH_GT).contains(&m.mode)
        && (m.bps1 == 0 || bps && delta)
        && (m.pps1 == 0 || pps && delta)
        && (m.bps2 == 0 || bps && (abs || delta))
        && (m.pps2 == 0 || pps && (abs || delta))
        && (rel || m.name2.is_empty())
        && m.name1.len() < IFNAMSIZ
        && m.name2.len() < IFNAMSIZ
        && !m.name1.contains(&b' ')
        && !m.name2.contains(&b' ');
    ok.then(|| Box::new(m) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
            .map_err(|e| e.split_once(": ").map_or(e.clone(), |(_, m)| m.to_owned()))
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("8bit"), Some(1));
        assert_eq!(parse_rate("5KBIT"), Some(625));
        assert_eq!(parse_rate("16"), Some(2));
        assert_eq!(parse_rate("1KiBps"), Some(1024));
        assert_eq!(parse_rate("1x"), None);
        let mut s = String::new();
        push_rate(&mut s, 625, false);
        push_rate(&mut s, 125_000, false);
        push_rate(&mut s, 187_500_000, false);
        push_rate(&mut s, 7, true);
        assert_eq!(s, " 5000bit 1000Kbit 1500Mbit 7");
    }

    #[test]
    fn upstream_forms() {
        for (given, want) in [
            ("-m rateest --rateest RE1 --rateest-lt --rateest-bps 8bit", None),
            ("-m rateest --rateest RE1 --rateest-eq --rateest-pps 5", None),
            (
                "-m rateest --rateest RE1 --rateest-gt --rateest-bps 5kbit",
                Some("-m rateest --rateest RE1 --rateest-gt --rateest-bps 5000bit"),
            ),
            ("-m rateest --rateest-delta --rateest RE1 --rateest-bps1 8bit --rateest-lt --rateest-bps2 16bit", None),
            ("-m rateest --rateest1 RE1 --rateest-lt --rateest-bps --rateest2 RE2", None),
            ("-m rateest --rateest-delta --rateest1 RE1 --rateest-pps1 0 --rateest-lt --rateest-pps2 42 --rateest2 RE2", None),
            ("-m rateest --rateest RE1 ! --rateest-gt --rateest-pps 9", None),
        ] {
            assert_eq!(round(given).unwrap(), want.unwrap_or(given));
        }
        assert_eq!(
            round("-m rateest --rateest RE1 --rateest RE2").unwrap_err(),
            "rateest: can't specify --rateest1 twice"
        );
        assert_eq!(
            round("-m rateest --rateest RE1 ! --rateest-bps 1").unwrap_err(),
            "rateest: rateest-bps can't be inverted"
        );
        assert_eq!(
            round("-m rateest --rateest RE1 --rateest-lt --rateest-lt --rateest-bps 1")
                .unwrap_err(),
            "rateest: can't specify lt/gt/eq twice"
        );
        assert_eq!(
            round("-m rateest --rateest RE1 --rateest-lt --rateest-pps x").unwrap_err(),
            "rateest: could not parse pps `x'"
        );
    }
}
