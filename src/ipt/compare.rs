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
    let first = encode_exprs(spec, spec.family, table, chain)?;
    let mut r = Rule::new(spec.family.nft(), table, chain);
    r.exprs = first;
    if let Some(raw) = &spec.raw {
        r.userdata.clone_from(&raw.userdata);
    }
    Ok(canonical_of_read(&r, spec.family))
}

/// The canonical expressions of a rule read from the kernel. A rule without an iptables
/// form is its own canonical form (its expressions as written, and its user data): only the
/// same rule carried whole (`-m nft --nft-rule`) equals it, never a rule spec.
pub fn canonical_of_rule(rule: &Rule, family: IpFamily) -> Option<Vec<Expr>> {
    Some(canonical_of_read(rule, family))
}

fn canonical_of_read(rule: &Rule, family: IpFamily) -> Vec<Expr> {
    if let Ok(d) = decode_rule(rule, family) {
        if let Ok(e) = encode_exprs(&d, family, &rule.table, &rule.chain) {
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
    match (
        canonical_of_rule(rule, spec.family),
        canonical_exprs(spec, &rule.table, &rule.chain),
    ) {
        (Some(a), Ok(b)) => a == b,
        _ => false,
    }
}
