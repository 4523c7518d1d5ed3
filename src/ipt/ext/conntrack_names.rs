//! The state and status names of the `conntrack` and `state` matches (`--ctstate`,
//! `--state`, `--ctstatus`): their bits, how iptables reads a list of them (abbreviations
//! included) and how it saves one.

use iptnl_sys::xt::{
    IPS_ASSURED, IPS_CONFIRMED, IPS_EXPECTED, IPS_SEEN_REPLY, XT_CONNTRACK_STATE_DNAT,
    XT_CONNTRACK_STATE_ESTABLISHED, XT_CONNTRACK_STATE_INVALID, XT_CONNTRACK_STATE_NEW,
    XT_CONNTRACK_STATE_RELATED, XT_CONNTRACK_STATE_SNAT, XT_CONNTRACK_STATE_UNTRACKED,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::libxt::{abbrev_of, for_each_listed};

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
