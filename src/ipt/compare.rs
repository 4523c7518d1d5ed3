//! Canonical comparison of rules, for check and delete by spec.
//!
//! Two rules are the same when they mean the same thing, however either was encoded: each is
//! brought to iptnl's own encoding of its decoded form (so a udata comment equals a comment
//! match at the same place, a 1.8.10 `-p` payload equals 1.8.9's meta l4proto, `gt 1023`
//! equals `1024:65535`), counters aside. The order of matches counts, as in iptables.

use super::decode::decode_rule_with;
use super::encode::encode_exprs_with;
use super::ext::{EncodeError, NoSets, SetIndex};
use super::spec::RuleSpec;
use super::IpFamily;
use crate::nft::expr::RawExpr;
use crate::nft::{Expr, Rule};

fn strip_counters(mut v: Vec<Expr>) -> Vec<Expr> {
    v.retain(|e| !matches!(e, Expr::Counter(_)));
    v
}

/// The canonical expressions of a rule spec.
///
/// ```
/// use iptnl::ipt::{canonical_exprs, parse_rule, IpFamily};
/// let a = &parse_rule(IpFamily::V4, &["-p", "tcp", "!", "--dport", ":1023"]).unwrap()[0];
/// let b = &parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "1024:65535"]).unwrap()[0];
/// assert_eq!(canonical_exprs(a, "filter", "INPUT").unwrap(), canonical_exprs(b, "filter", "INPUT").unwrap());
/// ```
pub fn canonical_exprs(
    spec: &RuleSpec,
    table: &str,
    chain: &str,
) -> Result<Vec<Expr>, EncodeError> {
    canonical_exprs_with(spec, table, chain, &NoSets)
}

/// [`canonical_exprs`] with the ipset names resolved by `sets`.
pub fn canonical_exprs_with(
    spec: &RuleSpec,
    table: &str,
    chain: &str,
    sets: &dyn SetIndex,
) -> Result<Vec<Expr>, EncodeError> {
    let first = encode_exprs_with(spec, spec.family, table, chain, sets)?;
    let mut r = Rule::new(spec.family.nft(), table, chain);
    r.exprs = first;
    if let Some(raw) = &spec.raw {
        r.userdata.clone_from(&raw.userdata);
    }
    Ok(canonical_of_read(&r, spec.family, sets))
}

/// The canonical expressions of a rule read from the kernel. A rule without an iptables
/// form is its own canonical form (its expressions as written, and its user data): only the
/// same rule carried whole (`-m nft --nft-rule`) equals it, never a rule spec.
pub fn canonical_of_rule(rule: &Rule, family: IpFamily) -> Option<Vec<Expr>> {
    canonical_of_rule_with(rule, family, &NoSets)
}

/// [`canonical_of_rule`] with the ipset indexes and names resolved by `sets`.
pub fn canonical_of_rule_with(
    rule: &Rule,
    family: IpFamily,
    sets: &dyn SetIndex,
) -> Option<Vec<Expr>> {
    Some(canonical_of_read(rule, family, sets))
}

fn canonical_of_read(rule: &Rule, family: IpFamily, sets: &dyn SetIndex) -> Vec<Expr> {
    if let Ok(d) = decode_rule_with(rule, family, sets) {
        if let Ok(e) = encode_exprs_with(&d, family, &rule.table, &rule.chain, sets) {
            return strip_counters(e);
        }
    }
    let mut v: Vec<Expr> = rule
        .exprs
        .iter()
        .filter(|e| !matches!(e, Expr::Counter(_)))
        .map(|e| e.input_form().unwrap_or_else(|| e.clone()))
        .collect();
    if let Some(u) = &rule.userdata {
        // Not an expression: a marker no kernel expression can be (its name has a blank).
        v.push(Expr::Raw(RawExpr {
            name: "rule userdata".into(),
            data: Some(u.clone()),
        }));
    }
    v
}

/// Whether a rule read from the kernel is the rule `spec` describes.
pub fn rule_matches_spec(rule: &Rule, spec: &RuleSpec) -> bool {
    rule_matches_spec_with(rule, spec, &NoSets)
}

/// [`rule_matches_spec`] with the ipset indexes and names resolved by `sets`.
pub fn rule_matches_spec_with(rule: &Rule, spec: &RuleSpec, sets: &dyn SetIndex) -> bool {
    match (
        canonical_of_rule_with(rule, spec.family, sets),
        canonical_exprs_with(spec, &rule.table, &rule.chain, sets),
    ) {
        (Some(a), Ok(b)) => a == b,
        _ => false,
    }
}
