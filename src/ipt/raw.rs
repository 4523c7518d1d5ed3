//! Rules that have no iptables form, carried whole.
//!
//! A rule in an iptables table may hold expressions no iptables rule spec can say (written by
//! `nft`, or by iptables-nft with an extension iptnl does not model). iptnl never hides or
//! drops such a rule: it is listed at its kernel position and saved as
//!
//! ```text
//! -A INPUT -m nft --nft-rule 2c000180…
//! ```
//!
//! The hexadecimal word is the rule's content as netlink attributes (its expressions, each in
//! the form the kernel accepts on input, and its user data; see [`Rule::content`]), with the
//! counters' values left out: they travel as the rule's counters (`[p:b]` in a save with
//! `-c`, `-c P B` on a command line) like any other rule's, and go to its first `counter`
//! expression. Restoring the line writes back exactly the rule that was saved. No other
//! option may stand beside `-m nft --nft-rule` but `-c`; `iptables-nft-restore` refuses the
//! line (there is no `nft` match), so such a file is never loaded as something else.

use std::fmt::Write;

use super::compat::compat_of;
use super::error::ParseError;
use super::IpFamily;
use crate::nft::expr::{Counter, Expr};
use crate::nft::rule::BoundSet;
use crate::nft::{Data, Rule, RuleCompat, Verdict};

/// The pseudo-match name of a rule without an iptables form (`-m nft`).
pub const RAW_MATCH: &str = "nft";
/// Its one option (`--nft-rule HEX`).
pub const RAW_OPTION: &str = "--nft-rule";
/// What the options column of `iptables -L` starts with for such a rule (its expressions
/// follow in words).
pub const RAW_LIST_MARK: &str = "[rule without an iptables form]";

/// A rule's expressions and user data, kept as read from the kernel.
///
/// ```
/// use iptnl::ipt::raw::RawRule;
/// use iptnl::nft::expr::{Counter, Immediate};
/// use iptnl::nft::{Family, Rule, Verdict};
/// let mut r = Rule::new(Family::Ipv4, "filter", "INPUT");
/// r.exprs = vec![Counter { packets: 3, bytes: 180 }.into(), Immediate::verdict(Verdict::Drop).into()];
/// let raw = RawRule::of(&r);
/// assert_eq!(raw.counters(), Some((3, 180)));
/// let back = RawRule::from_hex(&raw.to_hex()).unwrap();
/// assert_eq!(back.exprs_with_counters(Some((3, 180))), r.exprs);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawRule {
    /// The expressions, counter values zeroed.
    pub exprs: Vec<Expr>,
    /// The rule's user data, as read.
    pub userdata: Option<Vec<u8>>,
    /// The anonymous sets it looks up, with their elements.
    pub bound_sets: Vec<BoundSet>,
    /// The counters of the first `counter` expression, when the rule has one.
    counters: Option<(u64, u64)>,
}

impl RawRule {
    /// The content of `rule` (its counters kept apart, see [`counters`](Self::counters)).
    pub fn of(rule: &Rule) -> RawRule {
        let mut counters = None;
        let exprs = rule
            .exprs
            .iter()
            .map(|e| match e {
                Expr::Counter(c) => {
                    counters.get_or_insert((c.packets, c.bytes));
                    Expr::Counter(Counter::default())
                }
                e => e.clone(),
            })
            .collect();
        RawRule {
            exprs,
            userdata: rule.userdata.clone(),
            bound_sets: rule.bound_sets.clone(),
            counters,
        }
    }

    /// Reads the word after `--nft-rule`.
    pub fn from_hex(hex: &str) -> Result<RawRule, ParseError> {
        let bad = |why: &str| {
            ParseError::bad(
                RAW_OPTION,
                format!("`{}' is not a rule's content ({why})", shorten(hex)),
            )
        };
        let bytes = unhex(hex).ok_or_else(|| bad("not pairs of hexadecimal digits"))?;
        // A rule may have no expression at all (the kernel takes one, and `nft` writes one):
        // its content is then an empty expression list, but never nothing.
        if bytes.is_empty() {
            return Err(bad("no content"));
        }
        let mut r = Rule::new(crate::nft::Family::Ipv4, "", "");
        r.set_content(&bytes).map_err(|e| bad(&e.to_string()))?;
        Ok(RawRule::of(&r))
    }

    /// The rule it carries, of `family`, in no table or chain (counter values zero).
    ///
    /// ```
    /// use iptnl::ipt::raw::RawRule;
    /// use iptnl::nft::expr::Immediate;
    /// use iptnl::nft::{Family, Rule, Verdict};
    /// let mut r = Rule::new(Family::Ipv6, "filter", "INPUT");
    /// r.exprs = vec![Immediate::verdict(Verdict::Drop).into()];
    /// assert_eq!(RawRule::of(&r).to_rule(Family::Ipv6).exprs, r.exprs);
    /// ```
    pub fn to_rule(&self, family: crate::nft::Family) -> Rule {
        let mut r = Rule::new(family, "", "");
        r.exprs.clone_from(&self.exprs);
        r.userdata.clone_from(&self.userdata);
        r.bound_sets.clone_from(&self.bound_sets);
        r
    }

    /// The word after `--nft-rule`: lowercase hexadecimal, without counter values.
    pub fn to_hex(&self) -> String {
        let bytes = self.to_rule(crate::nft::Family::Ipv4).content();
        let mut s = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            let _ = write!(s, "{b:02x}");
        }
        s
    }

    /// The counters of the rule's first `counter` expression as read (`None` without one, or
    /// when parsed from text: text carries no counter values in the word).
    pub fn counters(&self) -> Option<(u64, u64)> {
        self.counters
    }

    /// The expressions to write: the first `counter` expression gets `counters`, the others
    /// start from zero.
    pub fn exprs_with_counters(&self, counters: Option<(u64, u64)>) -> Vec<Expr> {
        let mut out = self.exprs.clone();
        if let Some((packets, bytes)) = counters {
            if let Some(Expr::Counter(c)) = out.iter_mut().find(|e| matches!(e, Expr::Counter(_))) {
                *c = Counter { packets, bytes };
            }
        }
        out
    }

    /// The verdict that ends the rule, when its last expression is one.
    pub fn verdict(&self) -> Option<&Verdict> {
        match self.exprs.last() {
            Some(Expr::Immediate(i)) => match &i.data {
                Data::Verdict(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    /// The `NFTA_RULE_COMPAT` to send with the rule: x_tables matches and targets see the
    /// rule's layer-4 protocol there (the kernel keeps it but never dumps it), so it is
    /// rebuilt from the rule's first protocol test ([`compat_of`]), as iptables-nft does;
    /// `None` for a rule without x_tables expressions.
    pub fn compat(&self, family: IpFamily) -> Option<RuleCompat> {
        if !self
            .exprs
            .iter()
            .any(|e| matches!(e, Expr::Match(_) | Expr::Target(_)))
        {
            return None;
        }
        Some(compat_of(&self.exprs, family).unwrap_or(RuleCompat { proto: 0, flags: 0 }))
    }

    /// The expressions in words, as `nft --debug=netlink` prints them, on one line and
    /// without the counters' values: `[ meta load l4proto => reg 1 ] [ cmp eq reg 1 0x84 ] …`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for e in &self.exprs {
            if !s.is_empty() {
                s.push(' ');
            }
            match e {
                Expr::Counter(_) => s.push_str("[ counter ]"),
                e => {
                    let _ = write!(s, "{e}");
                }
            }
        }
        if let Some(u) = &self.userdata {
            let _ = write!(s, " userdata {} bytes", u.len());
        }
        s
    }
}

fn shorten(s: &str) -> String {
    if s.len() <= 40 {
        return s.to_owned();
    }
    let mut end = 40;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.chunks_exact(2)
        .map(|p| Some((digit(p[0])? << 4) | digit(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_words_are_refused_in_words() {
        for w in ["", "0", "zz", "0800010000000000", "ffff"] {
            let e = RawRule::from_hex(w).unwrap_err().to_string();
            assert!(e.contains("--nft-rule"), "{w}: {e}");
        }
    }
}
