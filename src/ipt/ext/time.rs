//! `time`: the arrival time of the packet (`--datestart`, `--datestop` in ISO 8601,
//! `--timestart`, `--timestop` as `hh:mm[:ss]`, `[!] --monthdays`, `[!] --weekdays`,
//! `--kerneltz`, `--contiguous`; `--localtz` and `--utc` as in iptables).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `time` match, rev 0, `xt_time_info`
//! (24 bytes). Dates are read and printed in UTC whatever the local time zone, as
//! libxt_time does (it sets `TZ=UTC` before `mktime`): the kernel applies any offset. The
//! save form always carries `--datestop` (`2038-01-19T03:14:07` by default), as iptables
//! prints it.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_time_info, XT_TIME_ALL_FLAGS, XT_TIME_ALL_MONTHDAYS, XT_TIME_ALL_WEEKDAYS,
    XT_TIME_CONTIGUOUS, XT_TIME_LOCAL_TZ, XT_TIME_MAX_DAYTIME, XT_TIME_MIN_DAYTIME,
};

use super::base::opts::STR;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `time` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "time",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("datestart", STR),
        Opt::new("datestop", STR),
        Opt::new("timestart", STR),
        Opt::new("timestop", STR),
        Opt::flag("contiguous"),
        Opt::new("weekdays", STR).inv(),
        Opt::new("monthdays", STR).inv(),
        Opt::flag("localtz").excl(&["utc"]),
        Opt::flag("utc").excl(&["localtz", "kerneltz"]),
        Opt::flag("kerneltz").excl(&["utc"]),
    ]),
    new: |_| Box::new(Time::default()),
    xt_names: &["time"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

const WEEK_DAYS: [&str; 8] = ["", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// `INT_MAX`, the default `date_stop`.
const NO_STOP: u32 = i32::MAX as u32;

/// Options of `-m time`, as in `struct xt_time_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct Time {
    /// First second matched since the epoch.
    pub date_start: u32,
    /// Last second matched (`INT_MAX` for none).
    pub date_stop: u32,
    /// First second of the day.
    pub daytime_start: u32,
    /// Last second of the day.
    pub daytime_stop: u32,
    /// Bit N for day N of the month.
    pub monthdays: u32,
    /// Bit 1 (Monday) to 7 (Sunday).
    pub weekdays: u8,
    /// `XT_TIME_*` flags.
    pub flags: u8,
}

impl Default for Time {
    fn default() -> Time {
        Time {
            date_start: 0,
            date_stop: NO_STOP,
            daytime_start: XT_TIME_MIN_DAYTIME,
            daytime_stop: XT_TIME_MAX_DAYTIME,
            monthdays: XT_TIME_ALL_MONTHDAYS,
            weekdays: XT_TIME_ALL_WEEKDAYS,
            flags: 0,
        }
    }
}

/// `strtoul(s, &end, base)` with `base` 10 or 0, the result stored in an `unsigned int`:
/// leading white space, a sign (`-` negates), `0x`/`0` prefixes with base 0; no digit
/// leaves the whole string as the rest.
fn c_strtoul(s: &str, base: u32) -> (u32, &str) {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let b = t.as_bytes();
    let (radix, digits) = if base == 0 {
        if b.len() > 2 && (b[..2] == *b"0x" || b[..2] == *b"0X") && b[2].is_ascii_hexdigit() {
            (16, &t[2..])
        } else if b.first() == Some(&b'0') {
            (8, t)
        } else {
            (10, t)
        }
    } else {
        (base, t)
    };
    let n = digits
        .bytes()
        .take_while(|c| (*c as char).is_digit(radix))
        .count();
    if n == 0 {
        return (0, s);
    }
    let mut v: u64 = 0;
    let mut over = false;
    for c in digits[..n].bytes() {
        let d = u64::from((c as char).to_digit(radix).unwrap_or(0));
        match v
            .checked_mul(u64::from(radix))
            .and_then(|x| x.checked_add(d))
        {
            Some(x) => v = x,
            None => over = true,
        }
    }
    let v = if over {
        u64::MAX
    } else if neg {
        v.wrapping_neg()
    } else {
        v
    };
    (v as u32, &digits[n..])
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count from 1970-01-01: (year, month, day).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `time_parse_date`: `YYYY[-MM[-DD[Thh[:mm[:ss]]]]]` in UTC, normalized as `mktime`
/// does (month 0 is December of the year before, day 0 the last of the month before).
pub fn parse_date(opt: &str, os: &str) -> Result<u32, ParseError> {
    let bad = || {
        ParseError::bad(
            opt,
            format!("Invalid date \"{os}\" specified. Should be YYYY[-MM[-DD[Thh[:mm[:ss]]]]]"),
        )
    };
    let mut f = [0u32, 1, 1, 0, 0, 0];
    // (separator after the field, largest value)
    const FIELDS: [(u8, u32); 6] = [
        (b'-', 2038),
        (b'-', 12),
        (b'T', 31),
        (b':', 23),
        (b':', 59),
        (0, 59),
    ];
    let mut s = os;
    for (k, &(sep, max)) in FIELDS.iter().enumerate() {
        let (v, e) = c_strtoul(s, 10);
        let next = e.as_bytes().first().copied();
        if (next.is_some() && (next != Some(sep) || sep == 0)) || v > max {
            return Err(bad());
        }
        if k == 0 && v < 1970 {
            return Err(bad());
        }
        f[k] = v;
        if next.is_none() {
            break;
        }
        s = &e[1..];
    }
    let (mon0, mut year) = (i64::from(f[1]) - 1, i64::from(f[0]));
    year += mon0.div_euclid(12);
    let mon = mon0.rem_euclid(12) + 1;
    let days = days_from_civil(year, mon, 1) + i64::from(f[2]) - 1;
    let t = days * 86_400 + i64::from(f[3]) * 3600 + i64::from(f[4]) * 60 + i64::from(f[5]);
    if t < 0 {
        return Err(ParseError::bad(opt, "mktime returned an error"));
    }
    Ok(t as u32)
}

/// `time_parse_minutes`: `hh:mm[:ss]` as seconds of the day.
pub fn parse_daytime(opt: &str, s: &str) -> Result<u32, ParseError> {
    let bad = |at: &str| {
        ParseError::bad(
            opt,
            format!(
                "invalid time \"{at}\" specified, should be hh:mm[:ss] format and within the boundaries"
            ),
        )
    };
    let (hour, e) = c_strtoul(s, 10);
    if !e.starts_with(':') || hour > 23 {
        return Err(bad(s));
    }
    let s = &e[1..];
    let (minute, e) = c_strtoul(s, 10);
    if (!e.is_empty() && !e.starts_with(':')) || minute > 59 {
        return Err(bad(s));
    }
    if e.is_empty() {
        return Ok(3600 * hour + 60 * minute);
    }
    let s = &e[1..];
    let (second, e) = c_strtoul(s, 10);
    if !e.is_empty() || second > 59 {
        return Err(bad(s));
    }
    Ok(3600 * hour + 60 * minute + second)
}

/// `my_strseg`: the comma-separated pieces of `arg`, each cut to `cap - 1` bytes; an empty
/// string has none, and the walk stops at an empty rest.
fn segments(arg: &str, cap: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = Some(arg);
    while let Some(r) = rest.filter(|r| !r.is_empty()) {
        let (seg, next) = match r.split_once(',') {
            Some((a, b)) => (a, Some(b)),
            None => (r, None),
        };
        let mut n = seg.len().min(cap - 1);
        while !seg.is_char_boundary(n) {
            n -= 1;
        }
        out.push(&seg[..n]);
        rest = next;
    }
    out
}

/// `time_parse_monthdays`.
fn parse_monthdays(arg: &str) -> Result<u32, ParseError> {
    let mut ret = 0u32;
    for day in segments(arg, 3) {
        let (i, e) = c_strtoul(day, 0);
        if (!e.is_empty() && !e.starts_with(',')) || i > 31 {
            return Err(ParseError::bad(
                "--monthdays",
                format!("{day} is not a valid day for --monthdays"),
            ));
        }
        ret |= 1 << i;
    }
    Ok(ret)
}

/// `time_parse_weekdays`: numbers 1–7 or names compared on their first two letters.
fn parse_weekdays(arg: &str) -> Result<u8, ParseError> {
    let mut ret = 0u32;
    for day in segments(arg, 4) {
        let (i, e) = c_strtoul(day, 0);
        if e.is_empty() {
            if i == 0 {
                return Err(ParseError::bad(
                    "--weekdays",
                    "No, the week does NOT begin with Sunday.",
                ));
            }
            ret |= 1u32.wrapping_shl(i);
            continue;
        }
        let mut valid = false;
        for (k, name) in WEEK_DAYS.iter().enumerate().skip(1) {
            // strncmp(day, name, 2): a one-letter day compares its NUL too.
            let d = day.as_bytes();
            let two = |b: &[u8]| {
                [
                    b.first().copied().unwrap_or(0),
                    b.get(1).copied().unwrap_or(0),
                ]
            };
            if two(d) == two(name.as_bytes()) {
                ret |= 1 << k;
                valid = true;
            }
        }
        if !valid {
            return Err(ParseError::bad(
                "--weekdays",
                format!("{day} is not a valid day specifier"),
            ));
        }
    }
    Ok(ret as u8)
}

fn hms(t: u32) -> String {
    format!("{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
}

/// `gmtime` of a date: `YYYY-MM-DD` and `hh:mm:ss`.
fn ymd_hms(t: u32) -> (String, String) {
    let t = i64::from(t);
    let (y, m, d) = civil_from_days(t.div_euclid(86_400));
    (
        format!("{y:04}-{m:02}-{d:02}"),
        hms(t.rem_euclid(86_400) as u32),
    )
}

fn monthdays_list(mask: u32, human: bool) -> String {
    let mut out = Vec::new();
    for i in 1..=31u32 {
        if mask & (1 << i) != 0 {
            let sfx = match (human, i % 10) {
                (false, _) => "",
                (true, 1) => "st",
                (true, 2) => "nd",
                (true, 3) => "rd",
                _ => "th",
            };
            out.push(format!("{i}{sfx}"));
        }
    }
    out.join(",")
}

fn weekdays_list(mask: u8) -> String {
    (1..=7)
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| WEEK_DAYS[i])
        .collect::<Vec<_>>()
        .join(",")
}

/// `struct xt_time_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Time> = XtStruct::new(
    "xt_time_info",
    size_of::<xt_time_info>(),
    0,
    &[
        xt_field!(xt_time_info, date_start: U32 => date_start),
        xt_field!(xt_time_info, date_stop: U32 => date_stop),
        xt_field!(xt_time_info, daytime_start: U32 => daytime_start),
        xt_field!(xt_time_info, daytime_stop: U32 => daytime_stop),
        xt_field!(xt_time_info, monthdays_match: U32 => monthdays),
        xt_field!(xt_time_info, weekdays_match: U8 => weekdays),
        xt_field!(xt_time_info, flags: U8 => flags),
    ],
);

impl Time {
    fn daytime_set(&self) -> bool {
        self.daytime_start != XT_TIME_MIN_DAYTIME || self.daytime_stop != XT_TIME_MAX_DAYTIME
    }
}

impl Extension for Time {
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
        let v = val.text();
        let shown = format!("--{}", opt.name);
        match opt.name {
            "datestart" => self.date_start = parse_date(&shown, v)?,
            "datestop" => self.date_stop = parse_date(&shown, v)?,
            "timestart" => self.daytime_start = parse_daytime(&shown, v)?,
            "timestop" => self.daytime_stop = parse_daytime(&shown, v)?,
            "contiguous" => self.flags |= XT_TIME_CONTIGUOUS,
            "localtz" | "kerneltz" => self.flags |= XT_TIME_LOCAL_TZ,
            "monthdays" => {
                self.monthdays = parse_monthdays(v)?;
                if inv {
                    self.monthdays ^= XT_TIME_ALL_MONTHDAYS;
                }
            }
            "weekdays" => {
                self.weekdays = parse_weekdays(v)?;
                if inv {
                    self.weekdays ^= XT_TIME_ALL_WEEKDAYS;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if ctx.given.has("contiguous") && self.daytime_start < self.daytime_stop {
            return Err(ParseError::Invalid(
                "time: --contiguous only makes sense when stoptime is smaller than starttime"
                    .into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("time", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.daytime_set() {
            out.push_str(" --timestart ");
            out.push_str(&hms(self.daytime_start));
            out.push_str(" --timestop ");
            out.push_str(&hms(self.daytime_stop));
        }
        if self.monthdays != XT_TIME_ALL_MONTHDAYS {
            out.push_str(" --monthdays ");
            out.push_str(&monthdays_list(self.monthdays, false));
        }
        if self.weekdays != XT_TIME_ALL_WEEKDAYS {
            out.push_str(" --weekdays ");
            out.push_str(&weekdays_list(self.weekdays));
        }
        for (opt, date) in [("datestart", self.date_start), ("datestop", self.date_stop)] {
            if date != 0 {
                let (d, t) = ymd_hms(date);
                out.push_str(&format!(" --{opt} {d}T{t}"));
            }
        }
        if self.flags & XT_TIME_LOCAL_TZ != 0 {
            out.push_str(" --kerneltz");
        }
        if self.flags & XT_TIME_CONTIGUOUS != 0 {
            out.push_str(" --contiguous");
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" TIME");
        if self.daytime_set() {
            out.push_str(" from ");
            out.push_str(&hms(self.daytime_start));
            out.push_str(" to ");
            out.push_str(&hms(self.daytime_stop));
        }
        if self.weekdays != XT_TIME_ALL_WEEKDAYS {
            out.push_str(" on ");
            out.push_str(&weekdays_list(self.weekdays));
        }
        if self.monthdays != XT_TIME_ALL_MONTHDAYS {
            out.push_str(" on ");
            out.push_str(&monthdays_list(self.monthdays, true));
        }
        if self.date_start != 0 {
            let (d, t) = ymd_hms(self.date_start);
            out.push_str(&format!(" starting from {d} {t}"));
        }
        if self.date_stop != NO_STOP {
            out.push_str(" until date");
            if self.date_stop != 0 {
                let (d, t) = ymd_hms(self.date_stop);
                out.push_str(&format!(" {d} {t}"));
            }
        }
        if self.flags & XT_TIME_LOCAL_TZ == 0 {
            out.push_str(" UTC");
        }
        if self.flags & XT_TIME_CONTIGUOUS != 0 {
            out.push_str(" contiguous");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = INFO.decode_exact(rev, info)?;
    // What the kernel takes and the save form gives back: days of the month and week
    // without bit 0 and not none, a stop date (the save form leaves out 0).
    let ok = t.daytime_start <= XT_TIME_MAX_DAYTIME
        && t.daytime_stop <= XT_TIME_MAX_DAYTIME
        && t.flags & !XT_TIME_ALL_FLAGS == 0
        && t.monthdays & 1 == 0
        && t.monthdays != 0
        && t.weekdays & 1 == 0
        && t.weekdays != 0
        && t.date_stop != 0;
    ok.then(|| Box::new(t) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("d", "1970"), Ok(0));
        assert_eq!(parse_date("d", "2001-02-03T04:05:06"), Ok(981_173_106));
        assert_eq!(parse_date("d", "2038-01-19T03:14:08"), Ok(1 << 31));
        // mktime's normalization: 2001-02-31 is 2001-03-03, month 0 December before.
        assert_eq!(parse_date("d", "2001-02-31"), parse_date("d", "2001-03-03"));
        assert_eq!(parse_date("d", "2001-00-01"), parse_date("d", "2000-12-01"));
        assert!(parse_date("d", "1970-00").is_err());
        assert!(parse_date("d", "1969").is_err());
        assert!(parse_date("d", "2001-13").is_err());
        assert!(parse_date("d", "2001-01-01 00:00").is_err());
        assert_eq!(
            ymd_hms(981_173_106),
            ("2001-02-03".into(), "04:05:06".into())
        );
        assert_eq!(parse_daytime("t", "01:02"), Ok(3720));
        assert_eq!(parse_daytime("t", "23:59:59"), Ok(86399));
        assert_eq!(
            parse_daytime("t", "01:99").unwrap_err().to_string(),
            "t: invalid time \"99\" specified, should be hh:mm[:ss] format and within the boundaries"
        );
        assert!(parse_daytime("t", "24:00").is_err());
        assert!(parse_daytime("t", "1").is_err());
    }

    #[test]
    fn days() {
        assert_eq!(parse_weekdays("Mon,Fri,Sun").unwrap(), 0b1010_0010);
        assert_eq!(parse_weekdays("1,Tu,7").unwrap(), 0b1000_0110);
        assert_eq!(parse_weekdays("Monday").unwrap(), 0b10);
        assert!(parse_weekdays("0").is_err());
        assert!(parse_weekdays("Xy").is_err());
        assert_eq!(parse_monthdays("1,2,31").unwrap(), 0x8000_0006);
        assert_eq!(parse_monthdays("123").unwrap(), 1 << 12);
        assert!(parse_monthdays("32").is_err());
    }

    #[test]
    fn forms() {
        for r in [
            "-m time --timestart 01:02:03 --timestop 04:05:06 --monthdays 1,2,3,4,5 --weekdays Mon,Fri,Sun --datestart 2001-02-03T04:05:06 --datestop 2012-09-08T09:06:05 --kerneltz",
            "-m time --timestart 02:00:00 --timestop 03:00:00 --datestart 1970-01-01T02:00:00 --datestop 1970-01-01T03:00:00",
            "-m time --timestart 23:00:00 --timestop 01:00:00 --datestop 2038-01-19T03:14:07 --contiguous",
        ] {
            assert_eq!(round(r).unwrap(), r);
        }
        assert_eq!(
            round("-m time --timestart 01:00").unwrap(),
            "-m time --timestart 01:00:00 --timestop 23:59:59 --datestop 2038-01-19T03:14:07"
        );
        assert_eq!(
            round("-m time ! --weekdays Sat,Sun ! --monthdays 31").unwrap(),
            "-m time --monthdays 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30 --weekdays Mon,Tue,Wed,Thu,Fri --datestop 2038-01-19T03:14:07"
        );
        assert!(round("-m time --timestart 01:00 --timestop 02:00 --contiguous").is_err());
        assert!(round("-m time --utc --kerneltz").is_err());
        assert!(round("-m time --utc").is_ok());
    }
}
