//! The state and status names of the `conntrack` and `state` matches (`--ctstate`,
//! `--state`, `--ctstatus`): their bits, how iptables reads a list of them (abbreviations
//! included) and how it saves one.

use std::net::{Ipv4Addr, Ipv6Addr};

use iptnl_sys::xt::{
    IPS_ASSURED, IPS_CONFIRMED, IPS_EXPECTED, IPS_SEEN_REPLY, XT_CONNTRACK_STATE_DNAT,
    XT_CONNTRACK_STATE_ESTABLISHED, XT_CONNTRACK_STATE_INVALID, XT_CONNTRACK_STATE_NEW,
    XT_CONNTRACK_STATE_RELATED, XT_CONNTRACK_STATE_SNAT, XT_CONNTRACK_STATE_UNTRACKED,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::libxt::{abbrev_of, for_each_listed};
use crate::ipt::IpFamily;

/// State names in the order iptables prints them, with their `state_mask` bits. `-m state`
/// knows the first five.
pub const STATES: &[(&str, u16)] = &[
    ("INVALID", XT_CONNTRACK_STATE_INVALID),
    ("NEW", XT_CONNTRACK_STATE_NEW),
    ("RELATED", XT_CONNTRACK_STATE_RELATED),
    ("ESTABLISHED", XT_CONNTRACK_STATE_ESTABLISHED),
    ("UNTRACKED", XT_CONNTRACK_STATE_UNTRACKED),
    ("SNAT", XT_CONNTRACK_STATE_SNAT),
    ("DNAT", XT_CONNTRACK_STATE_DNAT),
];

/// The order in which iptables tries state names against an abbreviation.
pub const STATE_PARSE_ORDER: &[&str] = &[
    "INVALID",
    "NEW",
    "ESTABLISHED",
    "RELATED",
    "UNTRACKED",
    "SNAT",
    "DNAT",
];

/// Status names, in parse and print order (`NONE` is no bit).
pub const STATUSES: &[(&str, u16)] = &[
    ("NONE", 0),
    ("EXPECTED", IPS_EXPECTED),
    ("SEEN_REPLY", IPS_SEEN_REPLY),
    ("ASSURED", IPS_ASSURED),
    ("CONFIRMED", IPS_CONFIRMED),
];

/// Parses a `--ctstate`/`--state` list. `alias` limits the names to those of `-m state`.
///
/// ```
/// use iptnl::ipt::ext::base::conntrack_names::{parse_states, save_states};
/// let m = parse_states("EST,REL", false).unwrap();
/// let mut out = String::new();
/// save_states(&mut out, m);
/// assert_eq!(out, " RELATED,ESTABLISHED");
/// assert!(parse_states("SNAT", true).is_err());
/// ```
pub fn parse_states(s: &str, alias: bool) -> Result<u16, ParseError> {
    let (opt, what) = if alias {
        ("--state", "state")
    } else {
        ("--ctstate", "ctstate")
    };
    if alias && s.ends_with(',') {
        return Err(ParseError::bad(
            opt,
            "\"--state\" requires a list of states with no spaces, e.g. ESTABLISHED,RELATED",
        ));
    }
    let order = if alias {
        &STATE_PARSE_ORDER[..5]
    } else {
        STATE_PARSE_ORDER
    };
    let mut mask = 0;
    for_each_listed(s, |word, rest| {
        let name = order
            .iter()
            .find(|n| abbrev_of(word, n))
            .ok_or_else(|| ParseError::bad(opt, format!("Bad {what} \"{rest}\"")))?;
        mask |= STATES.iter().find(|(n, _)| n == name).map_or(0, |s| s.1);
        Ok(())
    })?;
    Ok(mask)
}

/// Parses a `--ctstatus` list (names may be abbreviated, as iptables reads them).
///
/// ```
/// use iptnl::ipt::ext::base::conntrack_names::{parse_statuses, save_statuses};
/// let m = parse_statuses("ASSURED,CONF").unwrap();
/// let mut out = String::new();
/// save_statuses(&mut out, m);
/// assert_eq!(out, " ASSURED,CONFIRMED");
/// ```
pub fn parse_statuses(s: &str) -> Result<u16, ParseError> {
    let mut mask = 0;
    for_each_listed(s, |word, rest| {
        let (_, bit) = STATUSES
            .iter()
            .find(|(n, _)| abbrev_of(word, n))
            .ok_or_else(|| ParseError::bad("--ctstatus", format!("Bad ctstatus \"{rest}\"")))?;
        mask |= bit;
        Ok(())
    })?;
    Ok(mask)
}

/// Saves a state mask as iptables does: a space, then the names of its bits in
/// [`STATES`] order, separated by commas.
///
/// ```
/// use iptnl::ipt::ext::base::conntrack_names::save_states;
/// let mut out = String::new();
/// save_states(&mut out, 0);
/// assert_eq!(out, "");
/// ```
pub fn save_states(out: &mut String, mask: u16) {
    let mut sep = ' ';
    for (name, bit) in STATES {
        if mask & bit != 0 {
            out.push(sep);
            out.push_str(name);
            sep = ',';
        }
    }
}

/// Saves a status mask as iptables does: a space and the names of its bits, ` NONE` for
/// no bit.
///
/// ```
/// use iptnl::ipt::ext::base::conntrack_names::save_statuses;
/// let mut out = String::new();
/// save_statuses(&mut out, 0);
/// assert_eq!(out, " NONE");
/// ```
pub fn save_statuses(out: &mut String, mask: u16) {
    let mut sep = ' ';
    for (name, bit) in &STATUSES[1..] {
        if mask & bit != 0 {
            out.push(sep);
            out.push_str(name);
            sep = ',';
        }
    }
    if mask == 0 {
        out.push_str(" NONE");
    }
}

/// An address as `conntrack_dump_addr` lists it: `anywhere` for a zero address unless
/// numeric, else the address (or its name) and the mask suffix.
///
/// ```
/// use iptnl::ipt::ext::base::conntrack_names::print_addr;
/// use iptnl::ipt::IpFamily;
/// let mut a = [0u8; 16];
/// a[..4].copy_from_slice(&[10, 0, 0, 1]);
/// let mut m = [0u8; 16];
/// m[..4].copy_from_slice(&[255, 255, 255, 0]);
/// let mut out = String::new();
/// print_addr(&mut out, IpFamily::V4, &(a, m), true);
/// assert_eq!(out, " 10.0.0.1/24");
/// print_addr(&mut out, IpFamily::V4, &([0; 16], [0; 16]), false);
/// assert_eq!(out, " 10.0.0.1/24 anywhere");
/// ```
pub fn print_addr(
    out: &mut String,
    family: IpFamily,
    (addr, mask): &([u8; 16], [u8; 16]),
    numeric: bool,
) {
    let (a, m): (std::net::IpAddr, std::net::IpAddr) = match family {
        IpFamily::V4 => {
            let a: [u8; 4] = addr[..4].try_into().unwrap_or([0; 4]);
            let m: [u8; 4] = mask[..4].try_into().unwrap_or([0; 4]);
            (Ipv4Addr::from(a).into(), Ipv4Addr::from(m).into())
        }
        IpFamily::V6 => (Ipv6Addr::from(*addr).into(), Ipv6Addr::from(*mask).into()),
    };
    if !numeric && a.is_unspecified() {
        out.push_str(" anywhere");
        return;
    }
    out.push(' ');
    out.push_str(&super::names::addr_mask(a, m, numeric));
}
