//! The checks libxtables makes of the options given to one extension, with its messages:
//! an option given twice or inverted where it cannot be (`xtables_option_parse`), and once the
//! rule is read, mandatory options, exclusions and dependencies (`xtables_options_fcheck`).

use super::table::*;
use crate::ipt::error::ParseError;

/// `EXT: option "--NAME" can only be used once.` (`xtables_option_parse`).
pub fn once_error(ext: &str, name: &str) -> ParseError {
    ParseError::bad(
        format!("--{name}"),
        format!("{ext}: option \"--{name}\" can only be used once."),
    )
}

/// `EXT: option "--NAME" cannot be inverted.` (`xtables_option_parse`).
pub fn invert_error(ext: &str, name: &str) -> ParseError {
    ParseError::bad(
        format!("--{name}"),
        format!("{ext}: option \"--{name}\" cannot be inverted."),
    )
}

/// `EXT: option "--NAME" must be specified` (`xtables_options_fcheck`).
pub fn mandatory_error(ext: &str, name: &str) -> ParseError {
    ParseError::Invalid(format!("{ext}: option \"--{name}\" must be specified"))
}

/// `EXT: option "--A" cannot be used together with "--B".` (`xtables_options_fcheck`).
pub fn excl_error(ext: &str, a: &str, b: &str) -> ParseError {
    ParseError::Invalid(format!(
        "{ext}: option \"--{a}\" cannot be used together with \"--{b}\"."
    ))
}

/// `EXT: option "--A" also requires "--B".` (`xtables_options_fcheck`).
pub fn also_error(ext: &str, a: &str, b: &str) -> ParseError {
    ParseError::Invalid(format!("{ext}: option \"--{a}\" also requires \"--{b}\"."))
}

/// The checks `xtables_option_parse` makes before an option's value is parsed: a second use
/// of a once-only option, and `!` before one that cannot be inverted. `slot` is the entry
/// the option counts as ([`slot_at`]): an alias counts, inverts and parses as the entry it
/// stands for, as libxtables looks an option up by its id.
#[inline]
pub fn precheck(
    ext: &str,
    table: &[Opt],
    given: &Given,
    slot: usize,
    inv: bool,
) -> Result<(), ParseError> {
    let Some(opt) = table.get(slot) else {
        return Ok(());
    };
    let self_excl = if opt.links.linked {
        opt.links.self_excl
    } else {
        opt.excl.contains(&opt.name)
    };
    let once_only = !opt.repeatable() || self_excl;
    if once_only && given.has_slot(slot) {
        return Err(once_error(ext, opt.name));
    }
    if inv && !opt.invertible() {
        return Err(invert_error(ext, opt.name));
    }
    Ok(())
}

/// The checks `xtables_options_fcheck` makes once the rule is read, in its order: each entry
/// in table order, whether it is mandatory and missing, then whether it needs an option not
/// given or was given with one it excludes.
pub fn fcheck(ext: &str, table: &[Opt], given: &Given) -> Result<(), ParseError> {
    if table.first().is_none_or(|e| e.links.linked) {
        return fcheck_linked(ext, table, given.bits);
    }
    for (i, e) in table.iter().enumerate() {
        if e.alias_of.is_some() {
            continue;
        }
        let has = given.has_slot(i);
        if e.mandatory() && !has {
            return Err(mandatory_error(ext, e.name));
        }
        if !has {
            continue;
        }
        for other in table.iter() {
            if other.alias_of.is_some() || other.name == e.name {
                continue;
            }
            if e.also.contains(&other.name) && !given.has(other.name) {
                return Err(also_error(ext, e.name, other.name));
            }
            if e.excl.contains(&other.name) && given.has(other.name) {
                return Err(excl_error(ext, e.name, other.name));
            }
        }
    }
    Ok(())
}

/// [`fcheck`] on a [`table`]: the same checks in the same order, by bit masks.
fn fcheck_linked(ext: &str, table: &[Opt], bits: u64) -> Result<(), ParseError> {
    if let Some(e) = table.first() {
        // What nearly every rule comes to: every mandatory option given, none that excludes
        // or needs another.
        let l = e.links;
        if bits & l.table_mand == l.table_mand && bits & l.table_linked == 0 {
            return Ok(());
        }
    }
    for (i, e) in table.iter().enumerate() {
        if e.alias_of.is_some() {
            continue;
        }
        let has = bits & (1u64 << i) != 0;
        if !has {
            if e.mandatory() {
                return Err(mandatory_error(ext, e.name));
            }
            continue;
        }
        let missing = e.links.also & !bits;
        let clash = e.links.excl & bits;
        if missing | clash == 0 {
            continue;
        }
        // The first offending entry in table order; "needs" before "excludes" at one entry.
        let j = (missing | clash).trailing_zeros() as usize;
        let other = table.get(j).map_or("", |o| o.name);
        return Err(if missing & (1u64 << j) != 0 {
            also_error(ext, e.name, other)
        } else {
            excl_error(ext, e.name, other)
        });
    }
    Ok(())
}
