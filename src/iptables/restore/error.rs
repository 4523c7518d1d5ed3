//! Why a restore failed.

use crate::ipt::restore_input::InputError;
use crate::nft;

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
