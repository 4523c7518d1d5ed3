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
