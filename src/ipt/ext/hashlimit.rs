//! `hashlimit`: token-bucket rate limits kept per address/port group in a named hash table
//! (`--hashlimit-upto`, `--hashlimit-above`, `--hashlimit-burst`, `--hashlimit-mode`,
//! `--hashlimit-srcmask`, `--hashlimit-dstmask`, `--hashlimit-name`,
//! `--hashlimit-htable-size/-max/-expire/-gcinterval`, `--hashlimit-rate-match`,
//! `--hashlimit-rate-interval`; rates in packets (`100/sec`) or bytes (`512kb/s`)).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `hashlimit` rev 3 (`xt_hashlimit_mtinfo3`, avg in
//! 1/1000000 s). Revisions 1 (`xt_hashlimit_mtinfo1`, avg in 1/10000 s, 16-byte name) and 2
//! are decoded too, printed as iptables prints them and re-encoded at their revision.
//!
//! Conversions are iptables' own: a packet rate `N/unit` is `avg = 1000000 * unit_seconds / N`
//! (truncated), printed back with the largest unit that keeps it exact; a byte rate is a cost
//! `u32::MAX / ((bytes >> 4) + 1)`, so `100b/s` prints as `96b/s`.
//!
//! The options are declared as libxt_hashlimit's revision 3 table declares them: each once
//! only, `--hashlimit` another name of `--hashlimit-upto`, the masks prefix lengths, the
//! table sizes and times 32-bit numbers, `--hashlimit-name` mandatory and at least one byte.

use iptnl_sys::xt::{
    xt_hashlimit_mtinfo1, xt_hashlimit_mtinfo2, xt_hashlimit_mtinfo3, XT_HASHLIMIT_SCALE_v2,
    XT_HASHLIMIT_BYTES, XT_HASHLIMIT_BYTE_SHIFT, XT_HASHLIMIT_HASH_DIP, XT_HASHLIMIT_HASH_DPT,
    XT_HASHLIMIT_HASH_SIP, XT_HASHLIMIT_HASH_SPT, XT_HASHLIMIT_INVERT, XT_HASHLIMIT_RATE_MATCH,
    XT_HASHLIMIT_SCALE,
};

use super::base::libxt::strtoul_prefix;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Ty,
    Val,
};
use crate::ipt::ext::base::opts::U32;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// Default burst.
const BURST_DEFAULT: u64 = 5;
/// Largest packet burst (rev 2 and 3).
const BURST_MAX: u64 = 1_000_000;
/// Default expiry multiplier (seconds) of a byte rate.
const BYTE_EXPIRE: u32 = 15;
/// Expiry (seconds) of a byte rate with a burst.
const BYTE_EXPIRE_BURST: u32 = 60;
/// Default garbage collection interval, ms.
const GC_INTERVAL: u32 = 1000;

/// The `hashlimit` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "hashlimit",
    kind: ExtKind::Match,
    family: None,
    // libxt_hashlimit's revision 3 table: iptnl writes revision 3 (revisions 1 and 2 are
    // only decoded), whose table is revision 2's with the rate-match options added.
    options: &super::base::opts::table([
        Opt::custom("hashlimit-upto")
            .inv()
            .excl(&["hashlimit-above"]),
        Opt::custom("hashlimit-above")
            .inv()
            .excl(&["hashlimit-upto"]),
        // The old name of `--hashlimit-upto`.
        Opt::custom("hashlimit")
            .inv()
            .excl(&["hashlimit-above"])
            .alias("hashlimit-upto"),
        Opt::new("hashlimit-srcmask", Ty::Plen),
        Opt::new("hashlimit-dstmask", Ty::Plen),
        Opt::custom("hashlimit-burst"),
        Opt::new("hashlimit-htable-size", U32),
        Opt::new("hashlimit-htable-max", U32),
        Opt::new("hashlimit-htable-gcinterval", U32),
        Opt::new("hashlimit-htable-expire", U32),
        Opt::custom("hashlimit-mode"),
        Opt::new("hashlimit-name", Ty::Str { min: 1, max: 0 }).mand(),
        Opt::flag("hashlimit-rate-match"),
        Opt::custom("hashlimit-rate-interval"),
    ]),
    new: |f| Box::new(Hashlimit::new(f)),
    xt_names: &["hashlimit"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// What parsing remembers until the options are checked as a whole (iptables' `udata` and
/// option flags); never part of equality.
#[derive(Debug, Clone, Copy, Default)]
struct ParseState {
    /// Seconds per rate unit (`udata->mult`): 1, 60, 3600, 86400, or 15 for a byte rate.
    mult: u32,
}

impl PartialEq for ParseState {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// `-m hashlimit`: the name and `struct hashlimit_cfg3` (rev 1 and 2 values widened).
#[derive(Debug, Clone, PartialEq)]
pub struct Hashlimit {
    /// Revision: 3, or 1/2 for a rule an older iptables or kernel wrote.
    pub rev: u32,
    /// The family (the default masks are 32 or 128).
    pub family: IpFamily,
    /// Hash table name.
    pub name: String,
    /// Interval between packets in 1/1000000 s (1/10000 s in rev 1), or the byte cost.
    pub avg: u64,
    /// Bucket size (packets, or byte-cost units in byte mode).
    pub burst: u64,
    /// `XT_HASHLIMIT_*` bits.
    pub mode: u32,
    /// Hash buckets (0 = kernel default).
    pub size: u32,
    /// Most entries (0 = kernel default).
    pub max: u32,
    /// Garbage collection interval, ms.
    pub gc_interval: u32,
    /// Idle entry lifetime, ms.
    pub expire: u32,
    /// Rate-match measuring interval, s (rev 3).
    pub interval: u32,
    /// Source prefix length grouped on.
    pub srcmask: u8,
    /// Destination prefix length grouped on.
    pub dstmask: u8,
    st: ParseState,
}

fn full_mask(f: IpFamily) -> u8 {
    match f {
        IpFamily::V4 => 32,
        IpFamily::V6 => 128,
    }
}

/// The byte count a cost stands for (`cost_to_bytes`).
fn cost_to_bytes(cost: u64) -> u64 {
    let r = (u32::MAX as u64)
        .checked_div(cost)
        .unwrap_or(u32::MAX as u64);
    r.wrapping_sub(1) << XT_HASHLIMIT_BYTE_SHIFT
}

/// The cost of a byte count (`bytes_to_cost`); `None` where iptables would divide by zero.
fn bytes_to_cost(bytes: u64) -> Option<u64> {
    let r = (bytes >> XT_HASHLIMIT_BYTE_SHIFT) as u32;
    Some((u32::MAX / r.checked_add(1)?) as u64)
}

fn factor(c: Option<char>) -> u64 {
    match c {
        Some('m') => 1024 * 1024,
        Some('k') => 1024,
        _ => 1,
    }
}

/// `atoll`: leading blanks, an optional sign, digits; 0 when there are none.
fn atoll(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for c in t.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add((c - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

impl Hashlimit {
    fn new(family: IpFamily) -> Hashlimit {
        Hashlimit {
            rev: 3,
            family,
            name: String::new(),
            avg: 0,
            burst: BURST_DEFAULT,
            mode: 0,
            size: 0,
            max: 0,
            gc_interval: GC_INTERVAL,
            expire: 0,
            interval: 0,
            srcmask: full_mask(family),
            dstmask: full_mask(family),
            st: ParseState::default(),
        }
    }

    /// `parse_bytes`: a `…b/s` rate; `Ok(false)` when it is not one.
    fn parse_bytes(&mut self, option: &str, rate: &str) -> Result<bool, ParseError> {
        let Some(pos) = rate.find("b/s") else {
            return Ok(false);
        };
        if pos == 0 {
            return Ok(false);
        }
        let r = atoll(rate);
        if r == 0 {
            return Ok(false);
        }
        let f = factor(rate[..pos].chars().last());
        let bytes = (r as u64)
            .checked_mul(f)
            .ok_or_else(|| ParseError::bad(option, format!("Rate value too large \"{rate}\"")))?;
        let cost = bytes_to_cost(bytes)
            .filter(|c| *c != 0)
            .ok_or_else(|| ParseError::bad(option, format!("Rate too high \"{rate}\"")))?;
        self.st.mult = BYTE_EXPIRE;
        self.avg = cost;
        Ok(true)
    }

    /// `parse_rate`: `N[/second|minute|hour|day]` (any prefix of the unit).
    fn parse_rate(&mut self, option: &str, rate: &str) -> Result<(), ParseError> {
        let bad = || {
            ParseError::bad(
                option,
                format!("hashlimit: Bad value for \"{option}\" option: \"{rate}\""),
            )
        };
        let mut mult = 1u64;
        if let Some(pos) = rate.find('/') {
            let unit = &rate[pos + 1..];
            if unit.is_empty() {
                return Err(bad());
            }
            let is = |full: &str| {
                unit.len() <= full.len()
                    && full.as_bytes()[..unit.len()].eq_ignore_ascii_case(unit.as_bytes())
            };
            mult = if is("second") {
                1
            } else if is("minute") {
                60
            } else if is("hour") {
                3600
            } else if is("day") {
                86400
            } else {
                return Err(bad());
            };
        }
        let r = atoll(rate);
        if r == 0 {
            return Err(bad());
        }
        let scale = if self.rev == 1 {
            XT_HASHLIMIT_SCALE as u64
        } else {
            XT_HASHLIMIT_SCALE_v2
        };
        let tmp = (scale * mult) / (r as u64);
        if tmp == 0 {
            return Err(ParseError::bad(option, format!("Rate too fast \"{rate}\"")));
        }
        self.st.mult = mult as u32;
        self.avg = tmp;
        Ok(())
    }

    /// `parse_burst`: a number up to 1000000, or with a `k`/`m` factor (for byte rates).
    fn parse_burst(&self, s: &str) -> Result<u64, ParseError> {
        let err = || {
            ParseError::bad(
                "--hashlimit-burst",
                format!("bad value `{s}', or out of range (1-{BURST_MAX})"),
            )
        };
        let (v, rest) = strtoul_prefix(s).filter(|(v, _)| *v >= 1).ok_or_else(err)?;
        if rest.is_empty() && v > BURST_MAX {
            return Err(err());
        }
        v.checked_mul(factor(rest.chars().next())).ok_or_else(|| {
            ParseError::bad(
                "--hashlimit-burst",
                format!("value \"{s}\" too large (max {}mb)", u64::MAX / 1024 / 1024),
            )
        })
    }

    fn parse_mode(&mut self, s: &str) -> Result<(), ParseError> {
        for tok in s.split([',', '|']).filter(|t| !t.is_empty()) {
            self.mode |= match tok {
                "dstip" => XT_HASHLIMIT_HASH_DIP,
                "srcip" => XT_HASHLIMIT_HASH_SIP,
                "srcport" => XT_HASHLIMIT_HASH_SPT,
                "dstport" => XT_HASHLIMIT_HASH_DPT,
                _ => {
                    return Err(ParseError::bad(
                        "--hashlimit-mode",
                        format!("hashlimit: Bad value for \"--hashlimit-mode\" option: \"{s}\""),
                    ))
                }
            };
        }
        Ok(())
    }

    /// The info struct of this revision (3 for any but 1 and 2).
    fn to_xt(&self) -> Vec<u8> {
        HASHLIMIT
            .get(self.rev)
            .unwrap_or(&HASHLIMIT_V3)
            .encode(self)
    }
}

/// A field of the `cfg` struct inside info struct `$c`, read and written as `$kind`.
macro_rules! cfg_field {
    ($c:ty, $f:ident: $kind:ident => $p:ident) => {
        Field {
            name: concat!("cfg.", stringify!($f)),
            at: std::mem::offset_of!($c, cfg.$f),
            kind: Kind::$kind(|s| s.$p, |s, v| s.$p = v),
        }
    };
}

/// `struct xt_hashlimit_mtinfo1`: a 16-byte name, the rate and burst in 32 bits.
static HASHLIMIT_V1: XtStruct<Hashlimit> = XtStruct::new(
    "xt_hashlimit_mtinfo1",
    std::mem::size_of::<xt_hashlimit_mtinfo1>(),
    1,
    &[
        crate::xt_field!(xt_hashlimit_mtinfo1, name: Str(16) => name),
        cfg_field!(xt_hashlimit_mtinfo1, mode: U32 => mode),
        Field {
            name: "cfg.avg",
            at: std::mem::offset_of!(xt_hashlimit_mtinfo1, cfg.avg),
            kind: Kind::U32(|s| s.avg as u32, |s, v| s.avg = v.into()),
        },
        Field {
            name: "cfg.burst",
            at: std::mem::offset_of!(xt_hashlimit_mtinfo1, cfg.burst),
            kind: Kind::U32(|s| s.burst as u32, |s, v| s.burst = v.into()),
        },
        cfg_field!(xt_hashlimit_mtinfo1, size: U32 => size),
        cfg_field!(xt_hashlimit_mtinfo1, max: U32 => max),
        cfg_field!(xt_hashlimit_mtinfo1, gc_interval: U32 => gc_interval),
        cfg_field!(xt_hashlimit_mtinfo1, expire: U32 => expire),
        cfg_field!(xt_hashlimit_mtinfo1, srcmask: U8 => srcmask),
        cfg_field!(xt_hashlimit_mtinfo1, dstmask: U8 => dstmask),
        crate::xt_field!(xt_hashlimit_mtinfo1, hinfo: Kernel),
    ],
);

/// `struct xt_hashlimit_mtinfo2`: a 255-byte name, the rate and burst in 64 bits.
static HASHLIMIT_V2: XtStruct<Hashlimit> = XtStruct::new(
    "xt_hashlimit_mtinfo2",
    std::mem::size_of::<xt_hashlimit_mtinfo2>(),
    2,
    &[
        crate::xt_field!(xt_hashlimit_mtinfo2, name: Str(255) => name),
        cfg_field!(xt_hashlimit_mtinfo2, avg: U64 => avg),
        cfg_field!(xt_hashlimit_mtinfo2, burst: U64 => burst),
        cfg_field!(xt_hashlimit_mtinfo2, mode: U32 => mode),
        cfg_field!(xt_hashlimit_mtinfo2, size: U32 => size),
        cfg_field!(xt_hashlimit_mtinfo2, max: U32 => max),
        cfg_field!(xt_hashlimit_mtinfo2, gc_interval: U32 => gc_interval),
        cfg_field!(xt_hashlimit_mtinfo2, expire: U32 => expire),
        cfg_field!(xt_hashlimit_mtinfo2, srcmask: U8 => srcmask),
        cfg_field!(xt_hashlimit_mtinfo2, dstmask: U8 => dstmask),
        crate::xt_field!(xt_hashlimit_mtinfo2, hinfo: Kernel),
    ],
);

/// `struct xt_hashlimit_mtinfo3`: revision 2's with the rate-match interval.
static HASHLIMIT_V3: XtStruct<Hashlimit> = XtStruct::new(
    "xt_hashlimit_mtinfo3",
    std::mem::size_of::<xt_hashlimit_mtinfo3>(),
    3,
    &[
        crate::xt_field!(xt_hashlimit_mtinfo3, name: Str(255) => name),
        cfg_field!(xt_hashlimit_mtinfo3, avg: U64 => avg),
        cfg_field!(xt_hashlimit_mtinfo3, burst: U64 => burst),
        cfg_field!(xt_hashlimit_mtinfo3, mode: U32 => mode),
        cfg_field!(xt_hashlimit_mtinfo3, size: U32 => size),
        cfg_field!(xt_hashlimit_mtinfo3, max: U32 => max),
        cfg_field!(xt_hashlimit_mtinfo3, gc_interval: U32 => gc_interval),
        cfg_field!(xt_hashlimit_mtinfo3, expire: U32 => expire),
        cfg_field!(xt_hashlimit_mtinfo3, interval: U32 => interval),
        cfg_field!(xt_hashlimit_mtinfo3, srcmask: U8 => srcmask),
        cfg_field!(xt_hashlimit_mtinfo3, dstmask: U8 => dstmask),
        crate::xt_field!(xt_hashlimit_mtinfo3, hinfo: Kernel),
    ],
);

/// The tables of the revisions decoded; 3 is the one written.
static HASHLIMIT: XtRevs<Hashlimit> = XtRevs(&[&HASHLIMIT_V1, &HASHLIMIT_V2, &HASHLIMIT_V3]);

impl Hashlimit {
    /// The `--hashlimit-mode` names of the hashed fields, in iptables' order.
    fn mode_names(&self) -> Vec<&'static str> {
        [
            (XT_HASHLIMIT_HASH_SIP, "srcip"),
            (XT_HASHLIMIT_HASH_SPT, "srcport"),
            (XT_HASHLIMIT_HASH_DIP, "dstip"),
            (XT_HASHLIMIT_HASH_DPT, "dstport"),
        ]
        .into_iter()
        .filter(|(bit, _)| self.mode & bit != 0)
        .map(|(_, name)| name)
        .collect()
    }

    /// The table options after the mode, with prefix `p` (`--hashlimit-` to save, empty for
    /// -L); `quantum` is the default expiry the rate printer returned.
    fn dump_htable(&self, p: &str, quantum: u64, out: &mut String) {
        if self.size != 0 {
            out.push_str(&format!(" {p}htable-size {}", self.size));
        }
        if self.max != 0 {
            out.push_str(&format!(" {p}htable-max {}", self.max));
        }
        if self.gc_interval != GC_INTERVAL {
            out.push_str(&format!(" {p}htable-gcinterval {}", self.gc_interval));
        }
        if self.expire as u64 != quantum {
            out.push_str(&format!(" {p}htable-expire {}", self.expire));
        }
        let dmask = full_mask(self.family);
        if self.srcmask != dmask {
            out.push_str(&format!(" {p}srcmask {}", self.srcmask));
        }
        if self.dstmask != dmask {
            out.push_str(&format!(" {p}dstmask {}", self.dstmask));
        }
        if self.rev == 3 && self.mode & XT_HASHLIMIT_RATE_MATCH != 0 {
            out.push_str(&format!(" {p}rate-match"));
            if self.interval != 1 {
                out.push_str(&format!(" {p}rate-interval {}", self.interval));
            }
        }
    }
}

impl Extension for Hashlimit {
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
        // The old name `--hashlimit` is `--hashlimit-upto`.
        let id = opt.canonical();
        let v = val.text();
        match id {
            "hashlimit-upto" | "hashlimit-above" => {
                if (id == "hashlimit-above") != inv {
                    self.mode |= XT_HASHLIMIT_INVERT;
                }
                // iptables names `--hashlimit-upto` in the error for the old name too.
                let named = format!("--{id}");
                if self.parse_bytes(&named, v)? {
                    self.mode |= XT_HASHLIMIT_BYTES;
                } else {
                    self.parse_rate(&named, v)?;
                }
            }
            "hashlimit-srcmask" | "hashlimit-dstmask" => {
                let len = match val {
                    Val::Plen(Some(len), _) => len,
                    // A mask in address form that is not a prefix: the kernel takes lengths
                    // only.
                    Val::Plen(None, mask) => {
                        let shown = match ctx.family {
                            IpFamily::V4 => {
                                std::net::Ipv4Addr::new(mask[0], mask[1], mask[2], mask[3])
                                    .to_string()
                            }
                            IpFamily::V6 => std::net::Ipv6Addr::from(mask).to_string(),
                        };
                        return Err(ParseError::bad(
                            &opt.shown(),
                            format!("hashlimit: `{shown}' is not a prefix length"),
                        ));
                    }
                    _ => return Ok(()),
                };
                if id == "hashlimit-srcmask" {
                    self.srcmask = len;
                } else {
                    self.dstmask = len;
                }
            }
            "hashlimit-burst" => self.burst = self.parse_burst(v)?,
            "hashlimit-htable-size" => self.size = val.uint() as u32,
            "hashlimit-htable-max" => self.max = val.uint() as u32,
            "hashlimit-htable-gcinterval" => self.gc_interval = val.uint() as u32,
            "hashlimit-htable-expire" => self.expire = val.uint() as u32,
            "hashlimit-mode" => self.parse_mode(v)?,
            "hashlimit-name" => {
                // xtopt_parse_string keeps at most sizeof(name) - 1 bytes.
                let mut end = v.len().min(254);
                while !v.is_char_boundary(end) {
                    end -= 1;
                }
                self.name = v[..end].to_owned();
            }
            "hashlimit-rate-match" => self.mode |= XT_HASHLIMIT_RATE_MATCH,
            _ => {
                let r = atoll(v);
                if r <= 0 || r > i32::MAX as i64 {
                    return Err(ParseError::bad(
                        &opt.shown(),
                        format!("hashlimit: Bad value for \"--hashlimit-rate-interval\" option: \"{v}\""),
                    ));
                }
                self.interval = r as u32;
            }
        }
        Ok(())
    }

    /// libxt_hashlimit's final check; the option table's (`--hashlimit-name` given,
    /// `--hashlimit-upto` and `--hashlimit-above` not both) follow it.
    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        let has = |n| ctx.given.has(n);
        if !has("hashlimit-upto") && !has("hashlimit-above") {
            return Err(ParseError::Invalid(
                "You have to specify --hashlimit".into(),
            ));
        }
        let expire_given = has("hashlimit-htable-expire");
        if !expire_given {
            self.expire = self.st.mult * 1000;
        }
        if self.mode & XT_HASHLIMIT_BYTES != 0 {
            let mut burst: u32 = 0;
            if has("hashlimit-burst") {
                let unit = cost_to_bytes(self.avg);
                if unit == 0 {
                    // iptables divides by zero here.
                    return Err(ParseError::bad(
                        "--hashlimit-burst",
                        "the byte rate is too low to take a burst",
                    ));
                }
                if self.burst < unit {
                    return Err(ParseError::bad(
                        "--hashlimit-burst",
                        format!("burst cannot be smaller than {unit}b"),
                    ));
                }
                burst = ((self.burst as u32) as u64 / unit) as u32;
                if self.burst % unit != 0 {
                    burst = burst.wrapping_add(1);
                }
                if !expire_given {
                    self.expire = BYTE_EXPIRE_BURST * 1000;
                }
            }
            self.burst = burst as u64;
        } else if self.burst > BURST_MAX {
            return Err(ParseError::bad(
                "--hashlimit-burst",
                format!("bad value, or out of range (1-{BURST_MAX})"),
            ));
        }
        if self.mode & XT_HASHLIMIT_RATE_MATCH != 0 {
            if self.mode & XT_HASHLIMIT_BYTES == 0 {
                self.avg /= self.st.mult.max(1) as u64;
            }
            if self.interval == 0 {
                self.interval = if self.mode & XT_HASHLIMIT_BYTES != 0 {
                    1
                } else {
                    self.st.mult
                };
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("hashlimit", self.rev, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.mode & XT_HASHLIMIT_INVERT != 0 {
            out.push_str(" --hashlimit-above");
        } else {
            out.push_str(" --hashlimit-upto");
        }
        let quantum = if self.mode & XT_HASHLIMIT_BYTES != 0 {
            print_bytes(out, self.avg, self.burst, "--hashlimit-")
        } else {
            let q = print_rate(out, self.avg, self.rev);
            out.push_str(&format!(" --hashlimit-burst {}", self.burst));
            q
        };
        let parts = self.mode_names();
        if !parts.is_empty() {
            out.push_str(" --hashlimit-mode ");
            out.push_str(&parts.join(","));
        }
        out.push_str(&format!(" --hashlimit-name {}", self.name));
        self.dump_htable("--hashlimit-", quantum, out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        if self.mode & XT_HASHLIMIT_INVERT != 0 {
            out.push_str(" limit: above");
        } else {
            out.push_str(" limit: up to");
        }
        let quantum = if self.mode & XT_HASHLIMIT_BYTES != 0 {
            print_bytes(out, self.avg, self.burst, "")
        } else {
            let period = if self.rev == 3 && self.interval != 0 {
                self.avg.wrapping_mul(self.interval as u64)
            } else {
                self.avg
            };
            let q = print_rate(out, period, self.rev);
            out.push_str(&format!(" burst {}", self.burst));
            q
        };
        let parts = self.mode_names();
        if !parts.is_empty() {
            out.push_str(" mode ");
            out.push_str(&parts.join("-"));
        }
        self.dump_htable("", quantum, out);
    }

    crate::ext_boilerplate!();
}

/// `print_rate`: appends ` N/unit` and returns the unit in ms (the default expiry).
fn print_rate(out: &mut String, period: u64, rev: u32) -> u64 {
    let scale = if rev == 1 {
        XT_HASHLIMIT_SCALE as u64
    } else {
        XT_HASHLIMIT_SCALE_v2
    };
    let rates = [
        ("day", scale * 24 * 60 * 60),
        ("hour", scale * 60 * 60),
        ("min", scale * 60),
        ("sec", scale),
    ];
    if period == 0 {
        out.push_str(" inf");
        return 0;
    }
    let mut i = 1;
    while i < rates.len() {
        let m = rates[i].1;
        if period > m || m / period < m % period {
            break;
        }
        i += 1;
    }
    let (name, m) = rates[i - 1];
    out.push_str(&format!(" {}/{}", m / period, name));
    m / scale * 1000
}

/// `print_bytes`: appends the byte rate (and burst) and returns the default expiry in ms.
fn print_bytes(out: &mut String, avg: u64, burst: u64, prefix: &str) -> u64 {
    const UNITS: [(&str, u64); 3] = [("m", 1024 * 1024), ("k", 1024), ("", 1)];
    let r = cost_to_bytes(avg);
    let mut i = 0;
    while i < UNITS.len() - 1 {
        let t = UNITS[i].1;
        // The mask is a 32-bit `~(thresh - 1)`: it clears the upper half of `r` too.
        if r >= t && bytes_to_cost(r & (!(t as u32 - 1)) as u64) == Some(avg) {
            break;
        }
        i += 1;
    }
    out.push_str(&format!(" {}{}b/s", r / UNITS[i].1, UNITS[i].0));
    if burst == 0 {
        return BYTE_EXPIRE as u64 * 1000;
    }
    let r = r.wrapping_mul(burst);
    out.push_str(&format!(" {prefix}"));
    let mut i = 0;
    while i < UNITS.len() - 1 {
        if r >= UNITS[i].1 {
            break;
        }
        i += 1;
    }
    out.push_str(&format!("burst {}{}b", r / UNITS[i].1, UNITS[i].0));
    BYTE_EXPIRE_BURST as u64 * 1000
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = HASHLIMIT.get(rev)?;
    let v = t.view(rev, info)?;
    // A field the revision lacks (the interval before revision 3) keeps a new match's
    // value; the match is what the table reads, without a comparison of its re-encoding.
    let mut h = Hashlimit::new(ctx.family);
    h.rev = rev;
    t.read(&v, &mut h)?;
    Some(Box::new(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::parse_rule_str;

    fn save(spec: &str) -> String {
        let r = parse_rule_str(IpFamily::V4, spec).unwrap();
        r[0].to_save_args()
    }

    #[test]
    fn rates_convert_and_print_as_iptables() {
        assert_eq!(
            save("-m hashlimit --hashlimit-upto 59/m --hashlimit-name a"),
            "-m hashlimit --hashlimit-upto 59/min --hashlimit-burst 5 --hashlimit-name a"
        );
        assert_eq!(
            save("-m hashlimit --hashlimit-upto 100b/s --hashlimit-name a"),
            "-m hashlimit --hashlimit-upto 96b/s --hashlimit-name a"
        );
        assert_eq!(
            save("-m hashlimit --hashlimit-upto 1kb/s --hashlimit-burst 2000 --hashlimit-name a"),
            "-m hashlimit --hashlimit-upto 1kb/s --hashlimit-burst 2kb --hashlimit-name a"
        );
        assert_eq!(
            save("-m hashlimit --hashlimit-upto 3/min --hashlimit-rate-match --hashlimit-name a"),
            "-m hashlimit --hashlimit-upto 3/sec --hashlimit-burst 5 --hashlimit-name a --hashlimit-htable-expire 60000 --hashlimit-rate-match --hashlimit-rate-interval 60"
        );
        assert!(parse_rule_str(
            IpFamily::V4,
            "-m hashlimit --hashlimit-upto 1000001/sec --hashlimit-name a"
        )
        .is_err());
        assert!(parse_rule_str(
            IpFamily::V4,
            "-m hashlimit --hashlimit-upto 2kb/s --hashlimit-burst 2000 --hashlimit-name a"
        )
        .is_err());
        assert!(parse_rule_str(IpFamily::V4, "-m hashlimit --hashlimit-upto 5").is_err());
    }

    /// Repeats, `!`, the mandatory name and the exclusive rates are checked as
    /// libxt_hashlimit's table says, with libxtables' messages.
    #[test]
    fn options_are_checked_as_their_table_says() {
        let err = |spec| parse_rule_str(IpFamily::V4, spec).unwrap_err().to_string();
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s --hashlimit 2/s --hashlimit-name a"),
            "--hashlimit-upto: hashlimit: option \"--hashlimit-upto\" can only be used once."
        );
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s ! --hashlimit-burst 2 --hashlimit-name a"),
            "--hashlimit-burst: hashlimit: option \"--hashlimit-burst\" cannot be inverted."
        );
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s"),
            "hashlimit: option \"--hashlimit-name\" must be specified"
        );
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s --hashlimit-above 2/s --hashlimit-name a"),
            "hashlimit: option \"--hashlimit-upto\" cannot be used together with \"--hashlimit-above\"."
        );
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s --hashlimit-name a --hashlimit-srcmask 33"),
            "--hashlimit-srcmask: hashlimit: `0.0.0.33' is not a prefix length"
        );
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s --hashlimit-name a --hashlimit-htable-max x"),
            "--hashlimit-htable-max: hashlimit: bad value for option \"--hashlimit-htable-max\", or out of range (0-4294967295)."
        );
        assert_eq!(
            err("-m hashlimit --hashlimit-upto 1/s --hashlimit-name="),
            "--hashlimit-name: Argument must have a minimum length of 1 characters"
        );
        assert_eq!(
            save("-m hashlimit --hashlimit 1/s --hashlimit-name a --hashlimit-dstmask 255.255.0.0"),
            "-m hashlimit --hashlimit-upto 1/sec --hashlimit-burst 5 --hashlimit-name a --hashlimit-dstmask 16"
        );
        assert_eq!(
            save("-m hashlimit ! --hashlimit-above 1/s --hashlimit-name a"),
            "-m hashlimit --hashlimit-upto 1/sec --hashlimit-burst 5 --hashlimit-name a"
        );
    }
}
