//! `statistic`: match at random (`--mode random --probability p`) or every nth packet
//! (`--mode nth --every n --packet p`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `statistic` match, rev 0, the 24-byte
//! `xt_statistic_info` (its kernel-private `master` pointer sent as zero). The probability is
//! stored as `lround(0x80000000 * p)` and printed back with `%.11f`; `u.nth.count` is
//! `every - packet` (in random mode: the probability word, as iptables computes it).

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_statistic_info, XT_STATISTIC_INVERT, XT_STATISTIC_MODE_NTH, XT_STATISTIC_MODE_RANDOM,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, STR, U32};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `statistic` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "statistic",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("mode", STR).mand(),
        Opt::new("probability", Ty::Double { min: 0, max: 1 })
            .inv()
            .excl(&["every", "packet"]),
        Opt::new(
            "every",
            Ty::Uint {
                min: 1,
                max: u32::MAX as u64,
            },
        )
        .inv()
        .excl(&["probability"])
        .also(&["packet"]),
        Opt::new("packet", U32)
            .excl(&["probability"])
            .also(&["every"]),
    ]),
    new: |_| Box::new(Statistic::default()),
    xt_names: &["statistic"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m statistic`, as in `struct xt_statistic_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statistic {
    /// `XT_STATISTIC_MODE_RANDOM` or `XT_STATISTIC_MODE_NTH`.
    pub mode: u16,
    /// `XT_STATISTIC_INVERT` or 0.
    pub flags: u16,
    /// Random mode: the probability scaled to `0x8000_0000`. Nth mode: `--every` minus one.
    pub u0: u32,
    /// Nth mode: `--packet`.
    pub packet: u32,
}

/// `lround(0x80000000 * p)` for `p` in `0..=1`.
pub fn probability_to_u32(p: f64) -> u32 {
    (2147483648.0 * p).round() as u32
}

/// The probability as iptables prints it (`%.11f` of `u / 0x80000000`).
pub fn probability_text(u: u32) -> String {
    format!("{:.11}", u as f64 / 2147483648.0)
}

/// The offset of word `i` of the union `u` of `xt_statistic_info`.
const fn word(i: usize) -> usize {
    offset_of!(xt_statistic_info, u) + 4 * i
}

/// `struct xt_statistic_info`, field by field: it decodes the options and encodes them.
/// The union `u` is `{ probability }` or `{ every, packet, count }`; the first word is
/// held in `u0` for both modes. The count word and the kernel-private pointer are written
/// and not read: they are not part of what iptables compares.
static INFO: XtStruct<Statistic> = XtStruct::new(
    "xt_statistic_info",
    size_of::<xt_statistic_info>(),
    0,
    &[
        xt_field!(xt_statistic_info, mode: U16 => mode),
        xt_field!(xt_statistic_info, flags: U16 => flags),
        Field {
            name: "u.random.probability, u.nth.every",
            at: word(0),
            kind: Kind::U32(|s| s.u0, |s, v| s.u0 = v),
        },
        Field {
            name: "u.nth.packet",
            at: word(1),
            kind: Kind::U32(|s| s.packet, |s, v| s.packet = v),
        },
        Field {
            name: "u.nth.count",
            at: word(2),
            // iptables' final check: `u.nth.count = u.nth.every - u.nth.packet`, in both
            // modes.
            kind: Kind::Derived(4, |s| s.u0.wrapping_sub(s.packet).to_ne_bytes().to_vec()),
        },
    ],
);

impl Statistic {
    /// iptables' `print_match`: options with `prefix` (`--` to save, none to list; the
    /// list leaves out `packet 0`).
    fn dump(&self, p: &str, out: &mut String) {
        let inv = if self.flags & XT_STATISTIC_INVERT != 0 {
            " !"
        } else {
            ""
        };
        if self.mode == XT_STATISTIC_MODE_RANDOM {
            out.push_str(&format!(
                " {p}mode random{inv} {p}probability {}",
                probability_text(self.u0)
            ));
        } else {
            out.push_str(&format!(
                " {p}mode nth{inv} {p}every {}",
                self.u0.wrapping_add(1)
            ));
            if self.packet != 0 || !p.is_empty() {
                out.push_str(&format!(" {p}packet {}", self.packet));
            }
        }
    }
}

impl Extension for Statistic {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        if inv {
            self.flags |= XT_STATISTIC_INVERT;
        }
        match opt.name {
            "mode" => {
                let v = val.text();
                self.mode = match v {
                    "random" => XT_STATISTIC_MODE_RANDOM,
                    "nth" => XT_STATISTIC_MODE_NTH,
                    _ => return Err(ParseError::bad(&*opt.shown(), format!("Bad mode \"{v}\""))),
                }
            }
            "probability" => self.u0 = probability_to_u32(val.double()),
            "every" => self.u0 = val.uint() as u32 - 1,
            _ => self.packet = val.uint() as u32,
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.mode == XT_STATISTIC_MODE_RANDOM && !ctx.given.has("probability") {
            return Err(ParseError::Invalid(
                "--probability must be specified when using random mode".into(),
            ));
        }
        if self.mode == XT_STATISTIC_MODE_NTH && !ctx.given.has("every") && !ctx.given.has("packet")
        {
            return Err(ParseError::Invalid(
                "--every and --packet must be specified when using nth mode".into(),
            ));
        }
        if self.packet > self.u0 {
            return Err(ParseError::bad(
                "--packet",
                "the --packet p must be 0 <= p <= n-1",
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("statistic", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.dump("--", out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" statistic");
        self.dump("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(_rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Read whatever the revision, as iptables' only one.
    let mut s = Statistic::default();
    INFO.read(&INFO.view(INFO.rev, info)?, &mut s)?;
    // The count word and the kernel-private pointer are not part of what iptables compares.
    if s.mode > XT_STATISTIC_MODE_NTH || s.flags & !XT_STATISTIC_INVERT != 0 {
        return None;
    }
    if s.mode == XT_STATISTIC_MODE_RANDOM && s.packet != 0 {
        return None;
    }
    Some(Box::new(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_examples() {
        assert_eq!(probability_to_u32(0.33333333349), 715827883);
        assert_eq!(probability_to_u32(1.0), 0x8000_0000);
        assert_eq!(probability_text(715827883), "0.33333333349");
        assert_eq!(probability_text(0x4000_0000), "0.50000000000");
    }
    use crate::ipt::{parse_rule, IpFamily};

    fn save(args: &[&str]) -> Result<String, ParseError> {
        parse_rule(IpFamily::V4, args).map(|r| r[0].to_save_args())
    }

    #[test]
    fn kube_proxy_probability() {
        assert_eq!(
            save(&[
                "-m",
                "statistic",
                "--mode",
                "random",
                "--probability",
                "0.33333333349"
            ])
            .unwrap(),
            "-m statistic --mode random --probability 0.33333333349"
        );
        // An exact tie at the 12th digit rounds to even, as glibc's printf does.
        assert_eq!(probability_text(1 << 19), "0.00024414062");
    }

    #[test]
    fn nan_is_refused() {
        // iptables 1.8.9 and 1.8.11 accept `nan` and store lround(NaN); iptnl refuses it.
        assert!(save(&[
            "-m",
            "statistic",
            "--mode",
            "random",
            "--probability",
            "nan"
        ])
        .is_err());
    }

    #[test]
    fn count_word() {
        let mut s = Statistic {
            mode: XT_STATISTIC_MODE_NTH,
            u0: 2,
            packet: 1,
            ..Statistic::default()
        };
        let b = INFO.encode(&s);
        assert_eq!(b.len(), 24);
        assert_eq!(u32::from_ne_bytes(b[12..16].try_into().unwrap()), 1);
        s.mode = XT_STATISTIC_MODE_RANDOM;
        s.packet = 0;
        assert_eq!(
            u32::from_ne_bytes(INFO.encode(&s)[12..16].try_into().unwrap()),
            2
        );
    }
}
