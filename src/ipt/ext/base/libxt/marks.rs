//! Marks and value/mask pairs: `--set-xmark` and its words, `mark/mask` as saved and printed,
//! and the name maps of `/etc/iproute2` files (realms, groups).

use super::num::strtoul_prefix;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::opts::Val;

/// Appends ` 0xMARK` or ` 0xMARK/0xMASK` as libxt_mark and libxt_connmark print it (the
/// mask only when it is not `0xffffffff`).
pub fn save_mark_mask(out: &mut String, mark: u32, mask: u32) {
    if mask == u32::MAX {
        out.push_str(&format!(" 0x{mark:x}"));
    } else {
        out.push_str(&format!(" 0x{mark:x}/0x{mask:x}"));
    }
}

/// Appends ` [!] --mark 0xMARK[/0xMASK]` as libxt_mark and libxt_connmark save their match.
pub fn save_mark_test(out: &mut String, invert: bool, mark: u32, mask: u32) {
    if invert {
        out.push_str(" !");
    }
    out.push_str(" --mark");
    save_mark_mask(out, mark, mask);
}

/// The `(value, mask)` pair (`mark = (mark & !mask) ^ value`) of the operations libxt_MARK
/// and libxt_CONNMARK share, from the option and its value: `--set-xmark V/M`, `--set-mark
/// V/M` (the value's bits cleared too), `--and-mark`, `--or-mark`, `--xor-mark`; `None` for
/// another option.
pub fn xmark_op(option: &str, val: Val<'_>) -> Option<(u32, u32)> {
    let bits = val.uint() as u32;
    Some(match option {
        "set-xmark" => val.mark_mask(),
        "set-mark" => {
            let (mark, mask) = val.mark_mask();
            (mark, mark | mask)
        }
        "and-mark" => (0, !bits),
        "or-mark" => (bits, bits),
        "xor-mark" => (bits, 0),
        _ => return None,
    })
}

/// ` NAME and|or|xor|set|xset ...`: how libxt_MARK and libxt_CONNMARK list a
/// `(value, mask)` pair (`mark = (mark & !mask) ^ value`).
pub fn xmark_words(name: &str, mark: u32, mask: u32) -> String {
    if mark == 0 {
        format!(" {name} and 0x{:x}", !mask)
    } else if mark == mask {
        format!(" {name} or 0x{mark:x}")
    } else if mask == 0 {
        format!(" {name} xor 0x{mark:x}")
    } else if mask == u32::MAX {
        format!(" {name} set 0x{mark:x}")
    } else {
        format!(" {name} xset 0x{mark:x}/0x{mask:x}")
    }
}

/// The `id name` pairs of an iproute2 map file (`/etc/iproute2/group`, `rt_realms`) as
/// `xtables_lmap_init` reads them: blank lines and `#` comments skipped, the id decimal or
/// `0x` hex within 0–255, the name the next word. `None` when there is none (iptables then
/// takes no names).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::lmap_parse;
/// let m = lmap_parse("# groups\n0\tdefault\n0x10 web # comment\n300 big\n").unwrap();
/// assert_eq!(m, vec![(0, "default".to_owned()), (16, "web".to_owned())]);
/// assert_eq!(lmap_parse("#1 none\n"), None);
/// ```
pub fn lmap_parse(text: &str) -> Option<Vec<(u32, String)>> {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r');
    let mut out = Vec::new();
    for line in text.lines() {
        let cur = line.trim_start_matches(is_space);
        if cur.is_empty() || cur.starts_with('#') {
            continue;
        }
        let (digits, radix) = match cur.strip_prefix("0x") {
            Some(h) => (h, 16),
            None => (cur.strip_prefix('+').unwrap_or(cur), 10),
        };
        let end = digits
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(digits.len());
        let Ok(id) = u32::from_str_radix(&digits[..end], radix) else {
            continue;
        };
        let rest = &digits[end..];
        if id > 255 || !rest.starts_with(is_space) {
            continue;
        }
        let name = rest.trim_start_matches(is_space);
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        let name = name.split(is_space).next().unwrap_or(name);
        out.push((id, name.to_owned()));
    }
    (!out.is_empty()).then_some(out)
}

/// The name map of an iproute2 database (see [`lmap_parse`]), read once through
/// [`crate::ipt::sysdb`]; `None` when it has no entry.
pub fn lmap(
    cell: &'static std::sync::OnceLock<Vec<(u32, String)>>,
    db: crate::ipt::sysdb::Db,
) -> Option<&'static [(u32, String)]> {
    let m = crate::ipt::sysdb::table(cell, db, |t| lmap_parse(t).unwrap_or_default());
    (!m.is_empty()).then_some(m)
}

/// `value[/mask]` as `xtables_parse_val_mask` reads it with a name map: a number, a
/// number and mask, or (when `lmap` has names) a name of the map; the mask is `0xffffffff`
/// when not given.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::parse_val_mask;
/// let map = vec![(5, "web".to_owned())];
/// assert_eq!(parse_val_mask("devgroup", "src-group", "web", Some(&map)), Ok((5, u32::MAX)));
/// assert_eq!(parse_val_mask("devgroup", "src-group", "0x1/0xf", None), Ok((1, 15)));
/// assert!(parse_val_mask("devgroup", "src-group", "db", Some(&map)).is_err());
/// ```
pub fn parse_val_mask(
    ext: &str,
    name: &str,
    s: &str,
    lmap: Option<&[(u32, String)]>,
) -> Result<(u32, u32), ParseError> {
    let Some(map) = lmap else {
        return crate::ipt::ext::base::opts::parse_mark_mask(ext, name, s);
    };
    let max = u64::from(u32::MAX);
    let by_name = || {
        map.iter()
            .find(|(_, n)| n == s)
            .map(|(id, _)| (*id, u32::MAX))
            .ok_or_else(|| {
                ParseError::bad(
                    format!("--{name}"),
                    format!(
                        "{ext}: could not map name {s} to an integer value for option \"--{name}\"."
                    ),
                )
            })
    };
    match strtoul_prefix(s).filter(|(v, _)| *v <= max) {
        Some((v, "")) => Ok((v as u32, u32::MAX)),
        Some((_, rest)) if rest.starts_with('/') => {
            crate::ipt::ext::base::opts::parse_mark_mask(ext, name, s)
        }
        _ => by_name(),
    }
}

/// Appends ` value` as `xtables_print_val_mask` prints it: ` 0xV/0xM` with a mask, else the
/// value's name in `lmap`, else ` 0xV`.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::print_val_mask;
/// let map = vec![(0, "default".to_owned())];
/// let mut s = String::new();
/// print_val_mask(&mut s, 0, u32::MAX, Some(&map));
/// print_val_mask(&mut s, 1, u32::MAX, Some(&map));
/// print_val_mask(&mut s, 0, 0xf, Some(&map));
/// assert_eq!(s, " default 0x1 0x0/0xf");
/// ```
pub fn print_val_mask(out: &mut String, val: u32, mask: u32, lmap: Option<&[(u32, String)]>) {
    use std::fmt::Write;
    if mask != u32::MAX {
        let _ = write!(out, " {val:#x}/{mask:#x}");
        return;
    }
    if let Some((_, n)) = lmap.and_then(|m| m.iter().find(|(id, _)| *id == val)) {
        out.push(' ');
        out.push_str(n);
        return;
    }
    let _ = write!(out, " {val:#x}");
}
