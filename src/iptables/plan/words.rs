//! An operation in iptables' words, for the errors that name the caller's operation.

use super::{At, DelMode, Op};

impl Op<'_> {
    /// The command line that asks for this operation (`-t nat -A POSTROUTING -j X`); an
    /// operation of several rules (an expanded `-s a,b`) shows its first.
    pub(crate) fn words(&self) -> String {
        let rule = |specs: &[crate::ipt::RuleSpec]| {
            specs
                .first()
                .map(|s| s.to_save_args())
                .filter(|s| !s.is_empty())
                .map(|s| format!(" {s}"))
                .unwrap_or_default()
        };
        match self {
            Op::Add {
                table,
                chain,
                specs,
                at,
                ..
            } => match at {
                At::Append => format!("-t {table} -A {chain}{}", rule(specs)),
                At::Insert(n) => format!("-t {table} -I {chain} {n}{}", rule(specs)),
                At::Anchor { comment, after } => format!(
                    "-t {table} -I {chain} ({} the rule commented `{comment}…'){}",
                    if *after { "after" } else { "before" },
                    rule(specs)
                ),
            },
            Op::Replace {
                table,
                chain,
                pos,
                specs,
            } => format!("-t {table} -R {chain} {pos}{}", rule(specs)),
            Op::Delete {
                table,
                chain,
                specs,
                mode,
            } => {
                let verb = if *mode == DelMode::Check { "-C" } else { "-D" };
                format!("-t {table} {verb} {chain}{}", rule(specs))
            }
            Op::DeleteNumber { table, chain, n } => format!("-t {table} -D {chain} {n}"),
            Op::NewChain { table, chain } => format!("-t {table} -N {chain}"),
            Op::ClearChain { table, chain, .. } => format!("-t {table} -F {chain}"),
            Op::FlushTable { table } => format!("-t {table} -F"),
            Op::DeleteChain {
                table,
                chain,
                flush,
                ..
            } => {
                if *flush {
                    format!("-t {table} -F {chain}; -X {chain}")
                } else {
                    format!("-t {table} -X {chain}")
                }
            }
            Op::DeleteAllChains { table } => format!("-t {table} -X"),
            Op::RenameChain { table, chain, new } => format!("-t {table} -E {chain} {new}"),
            Op::SetPolicy {
                table,
                chain,
                policy,
            } => format!("-t {table} -P {chain} {policy}"),
            Op::Zero { table, chain, rule } => match rule {
                Some(n) => format!("-t {table} -Z {chain} {n}"),
                None => format!("-t {table} -Z {chain}"),
            },
            Op::ZeroTable { table } => format!("-t {table} -Z"),
            Op::DeclareChain {
                table,
                chain,
                policy,
                ..
            } => match policy {
                Some(p) => format!("*{table} :{chain} {p}"),
                None => format!("*{table} :{chain} -"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::{parse_rule, IpFamily};

    #[test]
    fn operations_read_as_the_commands_that_ask_for_them() {
        let specs = parse_rule(IpFamily::V4, &["-s", "10.0.0.1", "-j", "X"]).unwrap();
        let op = Op::Add {
            table: "nat".into(),
            chain: "POSTROUTING".into(),
            specs: specs.into(),
            at: At::Insert(2),
            unique: false,
        };
        assert_eq!(op.words(), "-t nat -I POSTROUTING 2 -s 10.0.0.1/32 -j X");
        assert_eq!(Op::new_chain("filter", "A").words(), "-t filter -N A");
        assert_eq!(
            Op::delete_chain("filter", "A", true).words(),
            "-t filter -F A; -X A"
        );
    }
}
