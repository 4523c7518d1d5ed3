//! Option values parsed as their table entry's type says, with libxtables' number, range,
//! mark/mask, string and prefix-length parsers and their messages.

use super::table::*;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::libxt::inet::{inet_aton, prefix_mask};
use crate::ipt::ext::base::libxt::num::{strtod_full, strtoul_full, strtoul_prefix};
use crate::ipt::IpFamily;

/// `EXT: bad value for option "--NAME", or out of range (MIN-MAX).` (`XTTYPE_UINT*`).
pub fn uint_error(ext: &str, name: &str, min: u64, max: u64) -> ParseError {
    ParseError::bad(
        format!("--{name}"),
        format!("{ext}: bad value for option \"--{name}\", or out of range ({min}-{max})."),
    )
}

/// A number as `XTTYPE_UINT*` reads it: the whole string in `strtoul`'s syntax, within
/// `min..=max`.
///
/// ```
/// use iptnl::ipt::ext::base::opts::parse_uint;
/// assert_eq!(parse_uint("ttl", "ttl-eq", "0x10", 0, 255), Ok(16));
/// assert_eq!(
///     parse_uint("ttl", "ttl-eq", "256", 0, 255).unwrap_err().to_string(),
///     "--ttl-eq: ttl: bad value for option \"--ttl-eq\", or out of range (0-255)."
/// );
/// ```
pub fn parse_uint(ext: &str, name: &str, s: &str, min: u64, max: u64) -> Result<u64, ParseError> {
    strtoul_full(s, min, max).ok_or_else(|| uint_error(ext, name, min, max))
}

/// A number as `XTTYPE_DOUBLE` reads it: the whole string in `strtod`'s syntax, within
/// `min..=max` unless both are 0.
///
/// ```
/// use iptnl::ipt::ext::base::opts::parse_double;
/// assert_eq!(parse_double("statistic", "probability", "0.5", 0, 1), Ok(0.5));
/// assert!(parse_double("statistic", "probability", "2", 0, 1).is_err());
/// ```
pub fn parse_double(ext: &str, name: &str, s: &str, min: u32, max: u32) -> Result<f64, ParseError> {
    strtod_full(s)
        .filter(|v| min == max || (f64::from(min)..=f64::from(max)).contains(v))
        .ok_or_else(|| {
            ParseError::bad(
                format!("--{name}"),
                format!("{ext}: bad value for option \"--{name}\", or out of range ({min}-{max})."),
            )
        })
}

/// `a[:b]` as `XTTYPE_UINT*RC` reads it (at most two components): each number within
/// `min..=max` (and, when `ordered`, not below the one before), an empty first component
/// `min` and an empty second `max`. Returns both ends (equal for one number) and how many
/// components were given.
///
/// ```
/// use iptnl::ipt::ext::base::opts::parse_range;
/// assert_eq!(parse_range("length", "length", "5:", 0, 65535, true), Ok(([5, 65535], 2)));
/// assert_eq!(parse_range("length", "length", "7", 0, 65535, true), Ok(([7, 7], 1)));
/// assert!(parse_range("frag", "fragid", "7:5", 0, 65535, true).is_err());
/// assert_eq!(parse_range("length", "length", "7:5", 0, 65535, false), Ok(([7, 5], 2)));
/// ```
pub fn parse_range(
    ext: &str,
    name: &str,
    arg: &str,
    min: u64,
    max: u64,
    ordered: bool,
) -> Result<([u64; 2], u8), ParseError> {
    let shown = format!("--{name}");
    let mut lmin = min;
    let mut out = [0u64; 2];
    let mut nvals = 0usize;
    let mut rest = arg;
    loop {
        if nvals == 2 {
            return Err(ParseError::bad(
                &shown,
                format!("{ext}: Too many components for option \"{shown}\" (max: 2)"),
            ));
        }
        let (value, after) = if rest.is_empty() || rest.starts_with(':') {
            (if nvals == 1 { max } else { lmin }, rest)
        } else {
            let (v, after) = strtoul_prefix(rest)
                .filter(|(v, _)| (lmin..=max).contains(v))
                .ok_or_else(|| {
                    ParseError::bad(
                        &shown,
                        format!(
                            "{ext}: bad value for option \"{shown}\" near \"{rest}\", or out of range ({lmin}-{max})."
                        ),
                    )
                })?;
            if !after.is_empty() && !after.starts_with(':') {
                return Err(ParseError::bad(
                    &shown,
                    format!(
                        "{ext}: Argument to \"{shown}\" has unexpected characters near \"{after}\"."
                    ),
                ));
            }
            if ordered {
                lmin = v;
            }
            (v, after)
        };
        out[nvals] = value;
        nvals += 1;
        match after.strip_prefix(':') {
            Some(next) => rest = next,
            None => break,
        }
    }
    if nvals == 1 {
        out[1] = out[0];
    }
    Ok((out, nvals as u8))
}

/// `value[/mask]` as `XTTYPE_MARKMASK32` reads it (`xtables_parse_val_mask`), 32 bits each;
/// the mask is `0xffffffff` when not given.
///
/// ```
/// use iptnl::ipt::ext::base::opts::parse_mark_mask;
/// assert_eq!(parse_mark_mask("mark", "mark", "0x1/0xff"), Ok((1, 0xff)));
/// assert_eq!(parse_mark_mask("mark", "mark", "7"), Ok((7, u32::MAX)));
/// assert_eq!(
///     parse_mark_mask("mark", "mark", "7x").unwrap_err().to_string(),
///     "--mark: mark: trailing garbage after value for option \"--mark\"."
/// );
/// ```
pub fn parse_mark_mask(ext: &str, name: &str, s: &str) -> Result<(u32, u32), ParseError> {
    let bad = || {
        ParseError::bad(
            format!("--{name}"),
            format!("{ext}: bad integer value for option \"--{name}\", or out of range."),
        )
    };
    let garbage = || {
        ParseError::bad(
            format!("--{name}"),
            format!("{ext}: trailing garbage after value for option \"--{name}\"."),
        )
    };
    let max = u64::from(u32::MAX);
    let (value, rest) = strtoul_prefix(s)
        .filter(|(v, _)| *v <= max)
        .ok_or_else(bad)?;
    if rest.is_empty() {
        return Ok((value as u32, u32::MAX));
    }
    let Some(m) = rest.strip_prefix('/') else {
        return Err(garbage());
    };
    let (mask, rest) = strtoul_prefix(m)
        .filter(|(v, _)| *v <= max)
        .ok_or_else(bad)?;
    if !rest.is_empty() {
        return Err(garbage());
    }
    Ok((value as u32, mask as u32))
}

/// A string as `XTTYPE_STRING` checks it: at least `min` and at most `max` bytes (0 for no
/// limit).
#[inline]
pub fn check_str(name: &str, s: &str, min: usize, max: usize) -> Result<(), ParseError> {
    if min != 0 && s.len() < min {
        return Err(ParseError::bad(
            format!("--{name}"),
            format!("Argument must have a minimum length of {min} characters"),
        ));
    }
    if max != 0 && s.len() > max {
        return Err(ParseError::bad(
            format!("--{name}"),
            format!("Argument must have a maximum length of {max} characters"),
        ));
    }
    Ok(())
}

/// A prefix length or network mask as `XTTYPE_PLEN`/`XTTYPE_PLENMASK` read it: a number
/// 0–32 (IPv4) or 0–128 (IPv6), or a mask written as an address. Returns the length
/// (`None` for a mask that is not a prefix) and the mask.
///
/// ```
/// use iptnl::ipt::ext::base::opts::parse_plen;
/// use iptnl::ipt::IpFamily;
/// let (len, mask) = parse_plen("recent", "mask", "255.255.0.0", IpFamily::V4).unwrap();
/// assert_eq!((len, &mask[..4]), (Some(16), &[255, 255, 0, 0][..]));
/// assert_eq!(parse_plen("x", "m", "24", IpFamily::V4).unwrap().0, Some(24));
/// ```
pub fn parse_plen(
    ext: &str,
    name: &str,
    s: &str,
    family: IpFamily,
) -> Result<(Option<u8>, [u8; 16]), ParseError> {
    let bits: u8 = match family {
        IpFamily::V4 => 32,
        IpFamily::V6 => 128,
    };
    let mut mask = [0u8; 16];
    if let Some(len) = strtoul_full(s, 0, u64::from(bits)) {
        return Ok((Some(len as u8), prefix_mask(len as u8)));
    }
    let parsed = match family {
        // A mask in any form getaddrinfo takes with AI_NUMERICHOST (inet_aton's).
        IpFamily::V4 => inet_aton(s).map(|a| {
            mask[..4].copy_from_slice(&a);
        }),
        IpFamily::V6 => s.parse::<std::net::Ipv6Addr>().ok().map(|a| {
            mask.copy_from_slice(&a.octets());
        }),
    };
    if parsed.is_none() {
        return Err(ParseError::bad(
            format!("--{name}"),
            format!(
                "{ext}: bad value for option \"--{name}\", neither a valid network mask nor valid CIDR (0-{bits})."
            ),
        ));
    }
    let used = &mask[..usize::from(bits / 8)];
    let ones: u32 = used.iter().map(|b| b.count_ones()).sum();
    let prefix = used
        .iter()
        .flat_map(|b| (0..8).rev().map(move |k| b >> k & 1))
        .take(ones as usize)
        .all(|bit| bit == 1);
    Ok((prefix.then_some(ones as u8), mask))
}

/// Parses one option's value as its type says. `values` holds the option's 0, 1 or 2 texts.
pub fn parse_value<'a>(
    ext: &str,
    opt: &Opt,
    values: &[&'a str],
    family: IpFamily,
) -> Result<Val<'a>, ParseError> {
    let first = values.first().copied().unwrap_or("");
    let name = opt.canonical();
    Ok(match opt.ty {
        Ty::Flag => Val::None,
        Ty::Uint { min, max } => Val::Uint(parse_uint(ext, name, first, min, max)?),
        Ty::Range { min, max, ordered } => {
            let (r, n) = parse_range(ext, name, first, min, max, ordered)?;
            Val::Range(r, n)
        }
        Ty::Double { min, max } => Val::Double(parse_double(ext, name, first, min, max)?),
        Ty::Str { min, max } => {
            check_str(name, first, min, max)?;
            Val::Str(first)
        }
        Ty::MarkMask => {
            let (v, m) = parse_mark_mask(ext, name, first)?;
            Val::MarkMask(v, m)
        }
        Ty::Plen => {
            let (len, mask) = parse_plen(ext, name, first, family)?;
            Val::Plen(len, mask)
        }
        Ty::OneOf { names, nocase, err } => {
            let found = names.iter().position(|n| {
                if nocase {
                    n.eq_ignore_ascii_case(first)
                } else {
                    *n == first
                }
            });
            match found {
                Some(i) => Val::Name(i),
                None => {
                    return Err(ParseError::bad(
                        format!("--{name}"),
                        err.replacen("%s", first, 1),
                    ))
                }
            }
        }
        Ty::Custom => Val::Raw(first),
        Ty::Custom2 => Val::Raw2(first, values.get(1).copied().unwrap_or("")),
        Ty::OptRaw if values.is_empty() => Val::None,
        Ty::OptRaw => Val::Raw(first),
    })
}

/// Hands one option to an extension as the rule parser does (value parsed as its entry
/// says), for the extensions' unit tests.
#[cfg(test)]
pub(crate) fn feed(
    ext: &mut dyn crate::ipt::ext::base::api::Extension,
    family: IpFamily,
    proto: Option<crate::ipt::ProtoMatch>,
    name: &str,
    value: &str,
) -> Result<(), ParseError> {
    let desc = ext.desc();
    let opt = desc
        .options
        .iter()
        .find(|o| o.name == name)
        .copied()
        .ok_or_else(|| ParseError::UnknownOption {
            option: format!("--{name}"),
        })?;
    let values = [value];
    let val = parse_value(desc.name, &opt, &values[..opt.arity().min(1)], family)?;
    let ctx = crate::ipt::ext::base::api::ParseCtx {
        family,
        proto,
        sets: &crate::ipt::ext::base::api::NoSets,
        given: Given::new(desc.options),
    };
    ext.parse(&opt, false, val, &ctx)
}
