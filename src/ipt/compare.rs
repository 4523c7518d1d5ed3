//! Canonical comparison of rules, for check and delete by spec.
//!
//! Two rules are the same when they mean the same thing, however either was encoded: each is
//! brought to iptnl's own encoding of its decoded form (so a udata comment equals a comment
//! match at the same place, a 1.8.10 `-p` payload equals 1.8.9's meta l4proto, `gt 1023`
//! equals `1024:65535`), counters aside. The order of matches counts, as in iptables.

use super::decode::decode_rule;
use super::encode::encode_exprs;
use super::ext::EncodeError;
use super::spec::RuleSpec;
use super::IpFamily;
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
    let first = encode_exprs(spec, spec.family, table, chain)?;
    let mut r = Rule::new(spec.family.nft(), table, chain);
    r.exprs = first;
    match decode_rule(&r, spec.family) {
        Ok(d) => Ok(strip_counters(encode_exprs(&d, spec.family, table, chain)?)),
        Err(_) => Ok(strip_counters(r.exprs)),
    }
}

/// The canonical expressions of a rule read from the kernel, or `None` for a foreign rule
/// (which never equals any rule spec).
pub fn canonical_of_rule(rule: &Rule, family: IpFamily) -> Option<Vec<Expr>> {
    let d = decode_rule(rule, family).ok()?;
    canonical_exprs(&d, &rule.table, &rule.chain).ok()
}

/// Whether a rule read from the kernel is the rule `spec` describes.
pub fn rule_matches_spec(rule: &Rule, spec: &RuleSpec) -> bool {
    match (
        canonical_of_rule(rule, spec.family),
        canonical_exprs(spec, &rule.table, &rule.chain),
    ) {
        (Some(a), Ok(b)) => a == b,
        _ => false,
    }
}
