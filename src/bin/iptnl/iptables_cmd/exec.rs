//! One parsed command carried out on an `IpTables` handle.

use iptnl::ipt::tables::find_table;
use iptnl::ipt::{Command, CommandLine, IpFamily, RuleSpec, RuleTarget};
use iptnl::iptables::{Error, IpTables, What};
use iptnl::nft::Policy;

use super::*;
use crate::output::Text;

pub(super) fn is_builtin(table: &str, chain: &str) -> bool {
    find_table(table).is_some_and(|t| t.builtin(chain).is_some())
}

/// Whether the chain is in the kernel (a built-in chain is created on first use).
pub(super) fn in_kernel(
    family: IpFamily,
    ipt: &IpTables,
    table: &str,
    chain: &str,
) -> Result<bool, Fail> {
    ipt.with_conn(|conn| iptnl::nft::get_chain(conn, family.nft(), table, chain))
        .map(|c| c.is_some())
        .map_err(|e| nft_fail(family, &e))
}

/// The names of the table's chains in the kernel.
pub(super) fn kernel_chains(
    family: IpFamily,
    ipt: &IpTables,
    table: &str,
) -> Result<Vec<String>, Fail> {
    ipt.with_conn(|conn| iptnl::nft::list_chains(conn, Some(family.nft()), Some(table)))
        .map(|(v, _)| v.into_iter().map(|c| c.name).collect())
        .map_err(|e| nft_fail(family, &e))
}

/// iptables checks that a jump target exists before it talks to the kernel.
pub(super) fn check_targets(
    family: IpFamily,
    ipt: &IpTables,
    table: &str,
    rules: &[RuleSpec],
) -> Result<(), Fail> {
    for r in rules {
        if let Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) = &r.target {
            if is_builtin(table, c) {
                continue;
            }
            if !ipt
                .chain_exists(table, c)
                .map_err(|e| kernel_err(family, &e))?
            {
                return Err(usage_err(family, format!("Chain '{c}' does not exist")));
            }
        }
    }
    Ok(())
}

pub(super) fn exec(
    family: IpFamily,
    ipt: &IpTables,
    cmd: &CommandLine,
    c: &Command,
) -> Result<Text, Fail> {
    let t = cmd.table.as_str();
    let kerr = |e: Error| kernel_err(family, &e);
    match c {
        Command::Append { chain } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            let mut tx = ipt.transaction();
            for r in &cmd.rules {
                tx.append(t, chain, r.clone());
            }
            tx.commit()
                .map(|_| Text::default())
                .map_err(|e| rule_err(family, ipt, "RULE_APPEND", chain, e.into_root()))
        }
        Command::Insert { chain, rulenum } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            let mut tx = ipt.transaction();
            for r in &cmd.rules {
                // Each address pair at the same position, as iptables does (the last ends
                // up first).
                tx.insert(t, chain, *rulenum, r.clone());
            }
            tx.commit()
                .map(|_| Text::default())
                .map_err(|e| match e.into_root() {
                    Error::NotFound {
                        what: What::Rule, ..
                    } => op_err(family, "Index of insertion too big."),
                    e => rule_err(family, ipt, "RULE_INSERT", chain, e),
                })
        }
        Command::Replace { chain, rulenum } => {
            // Of an expanded `-s a,b`, the first source and the first destination, as
            // iptables 1.8.10 on replaces (1.8.9 refused the line).
            let Some(r) = cmd.rules.first() else {
                return Err(usage_err(family, "-R needs a rule"));
            };
            check_targets(family, ipt, t, std::slice::from_ref(r))?;
            ipt.replace(t, chain, *rulenum, r.clone())
                .map(|_| Text::default())
                .map_err(|e| match e {
                    Error::NotFound {
                        what: What::Rule, ..
                    } => op_err(family, "Index of replacement too big."),
                    e => rule_err(family, ipt, "RULE_REPLACE", chain, e),
                })
        }
        Command::Check { chain } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            for r in &cmd.rules {
                if !ipt.exists(t, chain, r.clone()).map_err(kerr)? {
                    return Err(op_err(family, BAD_RULE));
                }
            }
            Ok(Text::default())
        }
        Command::Delete {
            chain,
            rulenum: None,
        } => {
            check_targets(family, ipt, t, &cmd.rules)?;
            let mut tx = ipt.transaction();
            for r in &cmd.rules {
                tx.delete(t, chain, r.clone());
            }
            tx.commit()
                .map(|_| Text::default())
                .map_err(|e| match e.into_root() {
                    Error::NotFound { .. } => op_err(family, BAD_RULE),
                    e => kerr(e),
                })
        }
        Command::Delete {
            chain,
            rulenum: Some(n),
        } => {
            if is_builtin(t, chain) && !in_kernel(family, ipt, t, chain)? {
                return Err(op_err(family, NO_CHAIN));
            }
            ipt.delete_by_number(t, chain, *n)
                .map_err(|e| match e {
                    Error::NotFound {
                        what: What::Rule, ..
                    } => op_err(family, "Index of deletion too big."),
                    e => kerr(e),
                })
                .map(|_| Text::default())
        }
        Command::ListRules { chain, rulenum } => {
            list_rules(family, ipt, t, chain.as_deref(), *rulenum, cmd.verbose > 0)
        }
        Command::List { chain, rulenum } => {
            list(family, ipt, cmd, chain.as_deref(), *rulenum).map(Text::from)
        }
        Command::Flush { chain: None } => {
            let mut out = String::new();
            if cmd.verbose > 0 {
                for ch in ipt.list_chains(t).map_err(kerr)? {
                    out.push_str(&format!("Flushing chain `{ch}'\n"));
                }
            }
            ipt.clear_all(t).map(|_| out.into()).map_err(kerr)
        }
        Command::Flush { chain: Some(chain) } => {
            if !ipt.chain_exists(t, chain).map_err(kerr)? {
                return Err(op_err(family, NO_CHAIN));
            }
            let out = if cmd.verbose > 0 {
                format!("Flushing chain `{chain}'\n")
            } else {
                String::new()
            };
            ipt.clear_chain(t, chain).map(|_| out.into()).map_err(kerr)
        }
        Command::Zero {
            chain: None,
            rulenum: _,
        } => {
            let present: std::collections::HashSet<String> =
                kernel_chains(family, ipt, t)?.into_iter().collect();
            // Every chain of the table, the built-in ones that are not in the kernel too
            // (iptables' fake built-in chains: named, with nothing to zero).
            let mut out = String::new();
            let mut zero = Vec::new();
            for ch in ipt.list_chains(t).map_err(kerr)? {
                let here = present.contains(&ch);
                if !here && !is_builtin(t, &ch) {
                    continue;
                }
                if cmd.verbose > 0 {
                    out.push_str(&format!("Zeroing chain `{ch}'\n"));
                }
                if here {
                    zero.push(ch);
                }
            }
            // Every chain in one batch; a chain deleted meanwhile leaves the others to be
            // zeroed one by one.
            let mut tx = ipt.transaction();
            for ch in &zero {
                tx.zero(t, ch, None);
            }
            match tx.commit().map_err(Error::into_root) {
                Ok(_) => {}
                Err(Error::NotFound { .. }) => {
                    for ch in &zero {
                        match ipt.zero(t, ch, None) {
                            Ok(()) | Err(Error::NotFound { .. }) => {}
                            Err(e) => return Err(kerr(e)),
                        }
                    }
                }
                Err(e) => return Err(kerr(e)),
            }
            Ok(out.into())
        }
        Command::Zero {
            chain: Some(chain),
            rulenum,
        } => {
            // A built-in chain that is not in the kernel has nothing to zero (iptables
            // zeroes a fake one).
            let (present, builtin) = if is_builtin(t, chain) {
                (in_kernel(family, ipt, t, chain)?, true)
            } else {
                (ipt.chain_exists(t, chain).map_err(kerr)?, false)
            };
            // One rule (`-Z CHAIN N`): no "Zeroing chain" line; a missing chain or rule is
            // a bad rule, as iptables 1.8.11 reports it.
            if let Some(n) = rulenum {
                if !present {
                    return Err(op_err(family, BAD_RULE));
                }
                return match ipt.zero(t, chain, Some(*n)) {
                    Ok(()) => Ok(Text::default()),
                    Err(Error::NotFound { .. }) => Err(op_err(family, BAD_RULE)),
                    Err(e) => Err(kerr(e)),
                };
            }
            if !present && !builtin {
                return Err(op_err(family, NO_CHAIN));
            }
            let out = if cmd.verbose > 0 {
                format!("Zeroing chain `{chain}'\n")
            } else {
                String::new()
            };
            if !present {
                return Ok(out.into());
            }
            match ipt.zero(t, chain, None) {
                Ok(()) | Err(Error::NotFound { .. }) => Ok(out.into()),
                Err(e) => Err(kerr(e)),
            }
        }
        Command::NewChain { chain } => {
            // Refused here, as iptables-nft refuses it from its cache: a batch the kernel
            // rejects costs an RCU grace period (the abort path), which is what
            // go-iptables' ClearChain (`-N`, then `-F` on exit 1) would pay on every call.
            if in_kernel(family, ipt, t, chain)? {
                return Err(op_err(family, "Chain already exists."));
            }
            ipt.new_chain(t, chain)
                .map(|_| Text::default())
                .map_err(kerr)
        }
        Command::DeleteChain { chain: None } => {
            let mut out = String::new();
            if cmd.verbose > 0 {
                for ch in ipt.list_chains(t).map_err(kerr)? {
                    if !is_builtin(t, &ch) {
                        out.push_str(&format!("Deleting chain `{ch}'\n"));
                    }
                }
            }
            ipt.delete_all_chains(t).map(|_| out.into()).map_err(kerr)
        }
        Command::DeleteChain { chain: Some(chain) } => {
            if is_builtin(t, chain) {
                if !in_kernel(family, ipt, t, chain)? {
                    return Err(op_err(family, NO_CHAIN));
                }
                // iptables-nft deletes an empty built-in chain with policy ACCEPT (it is
                // created again on next use); one with rules is busy, one with another
                // policy stays ("Directory not empty").
                return ipt
                    .delete_chain(t, chain)
                    .map(|()| Text::default())
                    .map_err(|e| match e {
                        Error::BuiltinKept { .. } => op_err(family, "Directory not empty."),
                        e => kerr(e),
                    });
            }
            let out = if cmd.verbose > 0 {
                format!("Deleting chain `{chain}'\n")
            } else {
                String::new()
            };
            ipt.delete_chain(t, chain).map(|_| out.into()).map_err(kerr)
        }
        Command::RenameChain { old, new } => {
            if is_builtin(t, old) {
                return Err(op_err(family, NO_CHAIN));
            }
            ipt.rename_chain(t, old, new)
                .map(|_| Text::default())
                .map_err(|e| match e {
                    Error::AlreadyExists { .. } => op_err(family, "File exists."),
                    Error::Invalid(m) => usage_err(family, m),
                    e => kerr(e),
                })
        }
        Command::Policy { chain, policy } => {
            if !is_builtin(t, chain) {
                return Err(op_err(family, "Bad built-in chain name."));
            }
            let p = match policy.as_str() {
                "ACCEPT" => Policy::Accept,
                "DROP" => Policy::Drop,
                _ => {
                    return Err(op_err(
                        family,
                        "Bad policy name. Run `dmesg' for more information.",
                    ))
                }
            };
            ipt.set_policy(t, chain, p)
                .map(|_| Text::default())
                .map_err(kerr)
        }
        Command::Version | Command::Help => Ok(Text::default()),
    }
}
