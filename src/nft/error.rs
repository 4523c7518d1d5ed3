//! Errors of the nftables layer, with sentences that say which operation failed and why.

use std::fmt;

use iptnl_sys::nf_tables::*;
use iptnl_sys::nfnetlink::nfnl_msg_id;

use super::Family;
use crate::netlink::{self, Attrs, Messages, MsgFailure, NFNL_HDRLEN};

/// One operation of a batch that the kernel refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpError {
    /// Index of the operation in the batch, from 0.
    pub index: usize,
    /// What the operation was, e.g. "add rule to chain KUBE-SERVICES in table ip nat".
    pub op: String,
    /// Why it failed, in words.
    pub reason: String,
    /// The positive errno.
    pub errno: i32,
    /// For a rule refused because a chain it jumps or goes to does not exist: that chain.
    pub jump_target: Option<String>,
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "operation {} of the batch ({}): {}",
            group_thousands(self.index as u64 + 1),
            self.op,
            self.reason
        )
    }
}

/// How a refusal of a rule handle that is gone begins (a delete, a replace or an insert
/// before it): the layers above tell a missing rule from a missing chain by it.
pub(crate) const NO_RULE_WITH_HANDLE: &str = "no rule with that handle";

/// Formats `n` with commas between thousands (`4812` → `4,812`).
pub fn group_thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Errors of the nftables layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The kernel refused operations of a batch; nothing was applied.
    #[error("{}{}; nothing was applied", failures[0], if failures.len() > 1 { format!(" (and {} more refused operation(s))", failures.len() - 1) } else { String::new() })]
    Rejected {
        /// Every refused operation (never empty).
        failures: Vec<OpError>,
    },
    /// The ruleset changed since the generation the batch was based on; nothing was applied.
    #[error("the ruleset changed since generation {genid} was read; nothing was applied")]
    Conflict {
        /// The generation the batch was based on.
        genid: u32,
    },
    /// An object could not be encoded (e.g. a nest over 64 KiB).
    #[error("{what}: {source}")]
    Encode {
        /// What was being encoded.
        what: String,
        /// Why it could not be.
        #[source]
        source: netlink::EncodeError,
    },
    /// Any other netlink failure.
    #[error(transparent)]
    Netlink(#[from] netlink::Error),
}

impl Error {
    /// The errno behind the error, if any.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Rejected { failures } => failures.first().map(|f| f.errno),
            Error::Conflict { .. } => Some(libc::ERESTART),
            Error::Netlink(e) => e.errno(),
            Error::Encode { .. } => None,
        }
    }
}

/// What a message of a batch was about, decoded from its bytes.
#[derive(Debug, Default)]
struct Subject<'a> {
    family: Option<Family>,
    table: Option<&'a str>,
    chain: Option<&'a str>,
    name: Option<&'a str>,
    set: Option<&'a str>,
    handle: Option<u64>,
}

fn subject(msg_type: u16, family: u8, attrs: &[u8]) -> Subject<'_> {
    let mut s = Subject {
        family: Family::from_raw(family),
        ..Subject::default()
    };
    for a in Attrs::new(attrs).flatten() {
        let (k, str_val) = (a.kind(), a.str().ok());
        match (msg_type, k) {
            (NFT_MSG_NEWTABLE | NFT_MSG_DELTABLE, NFTA_TABLE_NAME) => s.table = str_val,
            (NFT_MSG_NEWCHAIN | NFT_MSG_DELCHAIN, NFTA_CHAIN_TABLE) => s.table = str_val,
            (NFT_MSG_NEWCHAIN | NFT_MSG_DELCHAIN, NFTA_CHAIN_NAME) => s.name = str_val,
            (NFT_MSG_NEWCHAIN | NFT_MSG_DELCHAIN, NFTA_CHAIN_HANDLE) => s.handle = a.be64().ok(),
            (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, NFTA_RULE_TABLE) => s.table = str_val,
            (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, NFTA_RULE_CHAIN) => s.chain = str_val,
            (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, NFTA_RULE_HANDLE) => s.handle = a.be64().ok(),
            (NFT_MSG_NEWSET | NFT_MSG_DELSET, NFTA_SET_TABLE) => s.table = str_val,
            (NFT_MSG_NEWSET | NFT_MSG_DELSET, NFTA_SET_NAME) => s.set = str_val,
            (NFT_MSG_NEWSETELEM | NFT_MSG_DELSETELEM, NFTA_SET_ELEM_LIST_TABLE) => {
                s.table = str_val
            }
            (NFT_MSG_NEWSETELEM | NFT_MSG_DELSETELEM, NFTA_SET_ELEM_LIST_SET) => s.set = str_val,
            _ => {}
        }
    }
    s
}

fn in_table(s: &Subject<'_>) -> String {
    match (s.family, s.table) {
        (Some(f), Some(t)) => format!("table {f} {t}"),
        (None, Some(t)) => format!("table {t}"),
        _ => "an unnamed table".to_owned(),
    }
}

fn describe_op(msg_type: u16, flags: u16, s: &Subject<'_>) -> String {
    use iptnl_sys::netlink::{NLM_F_APPEND, NLM_F_REPLACE};
    let chain = s.chain.unwrap_or("?");
    match msg_type {
        NFT_MSG_NEWTABLE => format!("add {}", in_table(s)),
        NFT_MSG_DELTABLE => format!("delete {}", in_table(s)),
        NFT_MSG_NEWCHAIN if s.handle.is_some() && s.name.is_some() => format!(
            "rename chain with handle {} to {} in {}",
            s.handle.unwrap_or(0),
            s.name.unwrap_or("?"),
            in_table(s)
        ),
        NFT_MSG_NEWCHAIN => format!("add chain {} to {}", s.name.unwrap_or("?"), in_table(s)),
        NFT_MSG_DELCHAIN => format!(
            "delete chain {} from {}",
            s.name.unwrap_or("?"),
            in_table(s)
        ),
        NFT_MSG_NEWRULE if flags & NLM_F_REPLACE != 0 => format!(
            "replace rule handle {} in chain {chain} of {}",
            s.handle.unwrap_or(0),
            in_table(s)
        ),
        NFT_MSG_NEWRULE if flags & NLM_F_APPEND != 0 => {
            format!("append rule to chain {chain} in {}", in_table(s))
        }
        NFT_MSG_NEWRULE => format!("insert rule into chain {chain} in {}", in_table(s)),
        NFT_MSG_DELRULE => match (s.chain, s.handle) {
            (Some(c), Some(h)) => {
                format!("delete rule handle {h} from chain {c} in {}", in_table(s))
            }
            (Some(c), None) => format!("flush chain {c} in {}", in_table(s)),
            _ => format!("flush {}", in_table(s)),
        },
        NFT_MSG_NEWSET => format!("add set {} to {}", s.set.unwrap_or("?"), in_table(s)),
        NFT_MSG_DELSET => format!("delete set {} from {}", s.set.unwrap_or("?"), in_table(s)),
        NFT_MSG_NEWSETELEM => format!(
            "add elements to set {} in {}",
            s.set.unwrap_or("?"),
            in_table(s)
        ),
        NFT_MSG_DELSETELEM => format!(
            "delete elements from set {} in {}",
            s.set.unwrap_or("?"),
            in_table(s)
        ),
        other => format!("message type {other}"),
    }
}

/// Finds the top-level attribute (and, inside the expression list, the expression) an extended
/// ACK offset points at.
/// The expression an extended ACK offset points into.
struct ExprAt {
    /// Its index in the rule, from 0.
    index: usize,
    /// Its name.
    name: String,
    /// For `immediate`: the chain it jumps to.
    jump: Option<String>,
    /// For `match`/`target`: the x_tables extension name and revision.
    xt: Option<(String, u32)>,
}

fn locate(attrs: &[u8], offset: usize) -> (Option<u16>, Option<ExprAt>) {
    let mut pos = NFNL_HDRLEN;
    for a in Attrs::new(attrs).flatten() {
        let total = 4 + a.data().len();
        if offset >= pos && offset < pos + total.max(4) {
            if a.kind() == NFTA_RULE_EXPRESSIONS {
                let mut epos = pos + 4;
                for (i, e) in a.nested().flatten().enumerate() {
                    let etotal = 4 + e.data().len();
                    if offset >= epos && offset < epos + etotal {
                        let mut name = String::new();
                        let mut jump = None;
                        let mut xt = None;
                        for ea in e.nested().flatten() {
                            if ea.kind() == NFTA_EXPR_NAME {
                                name = ea.str().unwrap_or("?").to_owned();
                            }
                            if ea.kind() == NFTA_EXPR_DATA {
                                let mut xname = None;
                                let mut xrev = 0;
                                for x in ea.nested().flatten() {
                                    match x.kind() {
                                        iptnl_sys::nft_compat::NFTA_MATCH_NAME => {
                                            xname = x.str().ok().map(str::to_owned)
                                        }
                                        iptnl_sys::nft_compat::NFTA_MATCH_REV => {
                                            xrev = x.be32().unwrap_or(0)
                                        }
                                        _ => {}
                                    }
                                }
                                xt = xname.map(|n| (n, xrev));
                            }
                        }
                        if name == "immediate" {
                            jump = find_chain_name(e.data());
                        }
                        return (
                            Some(a.kind()),
                            Some(ExprAt {
                                index: i,
                                xt: xt.filter(|_| name == "match" || name == "target"),
                                name,
                                jump,
                            }),
                        );
                    }
                    epos += iptnl_sys::netlink::nla_align(etotal);
                }
            }
            return (Some(a.kind()), None);
        }
        pos += iptnl_sys::netlink::nla_align(total);
    }
    (None, None)
}

/// The chain name of an `immediate` expression's verdict: the path `NFTA_EXPR_DATA` →
/// `NFTA_IMMEDIATE_DATA` → `NFTA_DATA_VERDICT` → `NFTA_VERDICT_CHAIN`, followed exactly (these
/// attributes all have type 2, so a loose search would take the wrong one for a string).
fn find_chain_name(elem: &[u8]) -> Option<String> {
    use iptnl_sys::nf_tables::{
        NFTA_DATA_VERDICT, NFTA_EXPR_DATA, NFTA_IMMEDIATE_DATA, NFTA_VERDICT_CHAIN,
    };
    fn child(buf: &[u8], ty: u16) -> Option<crate::netlink::Attr<'_>> {
        Attrs::new(buf).flatten().find(|a| a.kind() == ty)
    }
    let data = child(elem, NFTA_EXPR_DATA)?;
    let imm = child(data.data(), NFTA_IMMEDIATE_DATA)?;
    let verdict = child(imm.data(), NFTA_DATA_VERDICT)?;
    let name = child(verdict.data(), NFTA_VERDICT_CHAIN)?;
    let s = name.str().ok()?;
    (!s.is_empty() && s.chars().all(|c| !c.is_control())).then(|| s.to_owned())
}

/// Why the kernel refused an operation, in words, and the chain a refused rule jumps to
/// when that chain is what was missing.
fn reason(
    msg_type: u16,
    s: &Subject<'_>,
    f: &MsgFailure,
    attrs: &[u8],
) -> (String, Option<String>) {
    let (attr, expr) = match f.ext_offset {
        Some(off) => locate(attrs, off as usize),
        None => (None, None),
    };
    let table = in_table(s);
    let xt = expr.as_ref().and_then(|e| e.xt.clone());
    let expr = expr.map(|e| (e.index, e.name, e.jump));
    let jump_target = match (msg_type, f.errno, &expr) {
        (NFT_MSG_NEWRULE, libc::ENOENT, Some((_, name, Some(target)))) if name == "immediate" => {
            Some(target.clone())
        }
        _ => None,
    };
    let base = match (msg_type, f.errno, attr, &expr) {
        (NFT_MSG_NEWRULE, libc::ENOENT, _, Some((i, name, Some(target)))) if name == "immediate" => {
            format!("expression {} (immediate): jump target chain {target} does not exist in {table}", i + 1)
        }
        (NFT_MSG_NEWRULE, libc::ENOENT, _, Some((i, name, _))) if name == "match" || name == "target" => match &xt {
            Some((x, rev)) => format!(
                "expression {} ({name}): the kernel does not offer the x_tables {name} `{x}' revision {rev} (module missing or too old)",
                i + 1
            ),
            None => format!("expression {} ({name}): this x_tables extension or revision is not available in the kernel", i + 1),
        },
        (NFT_MSG_NEWRULE, libc::ENOENT, _, Some((i, name, _))) => {
            format!("expression {} ({name}): a set, object or expression type it refers to does not exist", i + 1)
        }
        (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, libc::ENOENT, Some(NFTA_RULE_TABLE), _) => format!("{table} does not exist"),
        (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, libc::ENOENT, Some(NFTA_RULE_HANDLE | NFTA_RULE_POSITION), _) => {
            format!("{NO_RULE_WITH_HANDLE} in chain {} of {table}", s.chain.unwrap_or("?"))
        }
        (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, libc::ENOENT, _, _) => {
            format!("chain {} does not exist in {table}", s.chain.unwrap_or("?"))
        }
        (_, libc::ENOENT, _, _) => format!("the object (or its {table}) does not exist"),
        (_, libc::EEXIST, _, _) => "it already exists".to_owned(),
        (NFT_MSG_DELCHAIN, libc::EBUSY, _, _) => "the chain is not empty or other rules jump to it".to_owned(),
        (NFT_MSG_DELTABLE, libc::EBUSY, _, _) => "the table is still in use".to_owned(),
        (_, libc::EBUSY, _, _) => "it is in use".to_owned(),
        (_, libc::ELOOP, _, _) => "the jump would create a loop between chains".to_owned(),
        (_, libc::EMLINK, _, _) => "too many levels of jumps between chains".to_owned(),
        (_, libc::EOPNOTSUPP, _, Some((i, name, _))) => format!("expression {} ({name}) is not supported in this chain or kernel", i + 1),
        (_, libc::EOPNOTSUPP, _, _) => "the operation is not supported by this kernel or in this chain".to_owned(),
        (_, libc::EINVAL, _, Some((i, name, _))) if name == "match" || name == "target" => format!(
            "expression {} ({name}) was refused as invalid: this x_tables extension does not accept these option values, or not in this table, chain or for this protocol",
            i + 1
        ),
        (_, libc::EINVAL, _, Some((i, name, _))) => format!("expression {} ({name}) was refused as invalid", i + 1),
        (_, libc::EINVAL, _, _) => "the kernel refused it as invalid".to_owned(),
        (_, libc::EPERM, _, _) => "permission denied (CAP_NET_ADMIN is needed in this network namespace)".to_owned(),
        (_, libc::ENOSPC | libc::E2BIG, _, _) => "a kernel limit was reached".to_owned(),
        (_, libc::ENOMEM, _, _) => "the kernel ran out of memory".to_owned(),
        _ => "the kernel refused it".to_owned(),
    };
    let mut out = format!("{base} ({})", netlink::strerror(&f.io_error()));
    if let Some(m) = &f.ext_msg {
        out.push_str(&format!(" [{m}]"));
    }
    (out, jump_target)
}

/// Turns a netlink commit error into an nftables error that names each failed operation.
pub(crate) fn map_commit_error(batch: &netlink::Batch, e: netlink::Error) -> Error {
    match e {
        netlink::Error::Conflict { genid } => Error::Conflict { genid },
        netlink::Error::Rejected { failures } => {
            let failures = failures
                .iter()
                .map(|f| {
                    let bytes = batch.op_bytes(f.index).unwrap_or(&[]);
                    let (msg_type, flags, family, attrs) = match Messages::new(bytes).next() {
                        Some(Ok(m)) => {
                            let nf = m.nfgen().ok();
                            (
                                nfnl_msg_id(m.msg_type()),
                                m.flags(),
                                nf.map(|n| n.family).unwrap_or(0),
                                nf.map(|n| n.attr_bytes()).unwrap_or(&[]),
                            )
                        }
                        _ => (u16::MAX, 0, 0, &[][..]),
                    };
                    let s = subject(msg_type, family, attrs);
                    let (reason, jump_target) = reason(msg_type, &s, f, attrs);
                    OpError {
                        index: f.index,
                        op: describe_op(msg_type, flags, &s),
                        reason,
                        errno: f.errno,
                        jump_target,
                    }
                })
                .collect();
            Error::Rejected { failures }
        }
        other => Error::Netlink(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(4812), "4,812");
        assert_eq!(group_thousands(1_000_000), "1,000,000");
    }
}
