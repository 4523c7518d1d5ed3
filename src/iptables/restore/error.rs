//! Why a restore failed.

use super::input::Source;
use crate::ipt::restore_input::InputError;
use crate::nft::{self, Batch};

/// Why a restore failed. After any error the ruleset is as it was.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The input is wrong at a line.
    #[error("line {}: {msg}", nft::error::group_thousands(*line as u64))]
    Input {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// The kernel refused the batch; each refused operation is named by its input line.
    #[error("{}", lines.join("\n"))]
    Kernel {
        /// One sentence per refused operation, starting with `line N:`.
        lines: Vec<String>,
        /// The first refused line.
        first_line: usize,
        /// The refused operations as iptables-nft-restore names them.
        refused: Vec<RefusedOp>,
    },
    /// The ruleset kept changing under a read-dependent restore.
    #[error("the ruleset kept changing while the restore was planned ({tries} tries); nothing was applied")]
    Conflict {
        /// Attempts made.
        tries: u32,
    },
    /// Reading the ruleset failed.
    #[error(transparent)]
    Nft(#[from] nft::Error),
    /// Reading the input file failed, or the file changed while it was restored (its text is
    /// read again for each attempt; see [`restore_file`](super::restore_file)). Nothing was applied.
    #[error("reading the input: {0}")]
    Read(std::io::Error),
    /// The handle failed to carry out the restore for another reason (its group commit
    /// broke off, see [`IpTables::try_restore`](crate::iptables::IpTables::try_restore)).
    /// Nothing was applied.
    #[error("{0}")]
    Internal(String),
}

impl From<InputError> for RestoreError {
    fn from(e: InputError) -> RestoreError {
        RestoreError::Input {
            line: e.line,
            msg: e.msg,
        }
    }
}

/// An operation of a restore's batch the kernel refused, as iptables-nft-restore reports it
/// (`line 4: RULE_APPEND failed (No such file or directory): rule in chain INPUT`).
///
/// ```
/// use iptnl::iptables::restore::RefusedOp;
/// let r = RefusedOp {
///     line: 4,
///     op: "RULE_APPEND",
///     object: "rule in chain INPUT".into(),
///     errno: 2,
///     missing: false,
/// };
/// assert_eq!(r.to_string(), "line 4: RULE_APPEND failed (No such file or directory): rule in chain INPUT");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedOp {
    /// The input line the operation came from.
    pub line: usize,
    /// iptables' name of the operation: `RULE_APPEND`, `RULE_INSERT`, `RULE_REPLACE`,
    /// `RULE_DELETE`, `RULE_FLUSH`, `CHAIN_ADD`, `CHAIN_USER_ADD`, `CHAIN_UPDATE`,
    /// `CHAIN_DEL`, `CHAIN_RENAME`, `TABLE_ADD`, `TABLE_FLUSH` or `SET_ADD`.
    pub op: &'static str,
    /// What it was on: `rule in chain NAME`, `chain NAME`, `table NAME` or `set NAME`.
    pub object: String,
    /// The kernel's error number (positive).
    pub errno: i32,
    /// The chain (or table) the operation works on does not exist: iptables finds that
    /// before it sends anything, and reports the line as failed (`No chain/target/match by
    /// that name.`).
    pub missing: bool,
}

impl std::fmt::Display for RefusedOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: {} failed ({}): {}",
            self.line,
            self.op,
            crate::netlink::strerror(&std::io::Error::from_raw_os_error(self.errno)),
            self.object
        )
    }
}

/// The kernel's refusal of a restore's batch, each refused operation named by its input
/// line (quoted, shortened to 80 characters).
pub(super) fn kernel_refusal(
    input: Source<'_>,
    batch: &Batch,
    lines: &[u32],
    failures: &[nft::OpError],
) -> RestoreError {
    let line_of = |i: usize| lines.get(i).map_or(0, |&l| l as usize);
    let wanted: Vec<usize> = failures.iter().map(|f| line_of(f.index)).collect();
    // Without the text (the file changed since), the lines are still named.
    let src = input.lines_text(&wanted).unwrap_or_default();
    let out: Vec<String> = failures
        .iter()
        .map(|f| {
            let line = line_of(f.index);
            let text = src.get(&line).map(|s| s.trim()).unwrap_or("");
            let shown: String = if text.chars().count() > 80 {
                text.chars().take(77).chain("...".chars()).collect()
            } else {
                text.to_owned()
            };
            format!(
                "line {}: {shown}: {}",
                nft::error::group_thousands(line as u64),
                f.reason
            )
        })
        .collect();
    let first_line = failures.first().map_or(0, |f| line_of(f.index));
    let refused = failures
        .iter()
        .map(|f| {
            let line = line_of(f.index);
            let text = src.get(&line).map_or("", |s| s.trim());
            let (op, object) = iptables_op(batch, f.index, text);
            RefusedOp {
                line,
                op,
                object,
                errno: f.errno,
                // Not an expression's (an extension, a jump target, a set).
                missing: f.errno == libc::ENOENT && !f.reason.starts_with("expression "),
            }
        })
        .collect();
    RestoreError::Kernel {
        lines: out,
        first_line,
        refused,
    }
}

/// How iptables-nft names the batch operation `index` (from the input line `text`): its
/// kind and what it is on.
fn iptables_op(batch: &Batch, index: usize, text: &str) -> (&'static str, String) {
    use crate::netlink::Messages;
    use iptnl_sys::netlink::NLM_F_REPLACE;
    use iptnl_sys::nf_tables::*;
    use iptnl_sys::nfnetlink::nfnl_msg_id;
    let Some(m) = batch
        .as_netlink()
        .op_bytes(index)
        .and_then(|b| Messages::new(b).next()?.ok())
    else {
        return ("BATCH", String::new());
    };
    let ty = nfnl_msg_id(m.msg_type());
    let (mut name, mut hook, mut handle) = (String::new(), false, false);
    for a in m.nfgen().ok().into_iter().flat_map(|n| n.attrs()).flatten() {
        let s = || a.str().unwrap_or("").to_owned();
        match (ty, a.kind()) {
            (NFT_MSG_NEWTABLE | NFT_MSG_DELTABLE, NFTA_TABLE_NAME)
            | (NFT_MSG_NEWCHAIN | NFT_MSG_DELCHAIN, NFTA_CHAIN_NAME)
            | (NFT_MSG_NEWRULE | NFT_MSG_DELRULE, NFTA_RULE_CHAIN)
            | (NFT_MSG_NEWSET | NFT_MSG_DELSET, NFTA_SET_NAME)
            | (NFT_MSG_NEWSETELEM | NFT_MSG_DELSETELEM, NFTA_SET_ELEM_LIST_SET) => name = s(),
            (NFT_MSG_NEWCHAIN, NFTA_CHAIN_HOOK) => hook = true,
            (NFT_MSG_NEWCHAIN, NFTA_CHAIN_HANDLE) | (NFT_MSG_DELRULE, NFTA_RULE_HANDLE) => {
                handle = true
            }
            _ => {}
        }
    }
    // The command of the line: `-A`, `-I`, `-P`, … (or `:` for a chain line).
    let cmd = if text.starts_with(':') {
        ":"
    } else {
        text.split_whitespace()
            .find(|w| w.len() == 2 && w.starts_with('-'))
            .unwrap_or("")
    };
    let rule = || format!("rule in chain {name}");
    let chain = || format!("chain {name}");
    match ty {
        NFT_MSG_NEWRULE if m.flags() & NLM_F_REPLACE != 0 || cmd == "-R" => {
            ("RULE_REPLACE", rule())
        }
        NFT_MSG_NEWRULE if cmd == "-I" => ("RULE_INSERT", rule()),
        NFT_MSG_NEWRULE => ("RULE_APPEND", rule()),
        NFT_MSG_DELRULE if handle => ("RULE_DELETE", rule()),
        NFT_MSG_DELRULE => ("RULE_FLUSH", rule()),
        NFT_MSG_NEWCHAIN if handle => ("CHAIN_RENAME", chain()),
        NFT_MSG_NEWCHAIN if hook && matches!(cmd, ":" | "-P") => ("CHAIN_UPDATE", chain()),
        NFT_MSG_NEWCHAIN if hook => ("CHAIN_ADD", chain()),
        NFT_MSG_NEWCHAIN => ("CHAIN_USER_ADD", chain()),
        NFT_MSG_DELCHAIN => ("CHAIN_DEL", chain()),
        NFT_MSG_NEWTABLE => ("TABLE_ADD", format!("table {name}")),
        NFT_MSG_DELTABLE => ("TABLE_FLUSH", format!("table {name}")),
        _ => ("SET_ADD", format!("set {name}")),
    }
}
