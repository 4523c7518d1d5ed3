//! What the demo's runs give and its report shows: a column per tool and way of running it,
//! its cells, and what the runs are given.

use std::path::PathBuf;
use std::time::Duration;

use iptnl::ipt::IpFamily;
use iptnl::nft::error::group_thousands;

use super::why;

/// The hidden subcommand the demo runs iptnl's load in.
pub const LOAD_SUBCOMMAND: &str = "__demo-load";
/// The hidden subcommand that commits a planned batch alone (the kernel's floor).
pub const COMMIT_SUBCOMMAND: &str = "__demo-commit";
/// The chain the single commands work on.
pub(super) const OP_CHAIN: &str = "KUBE-SERVICES";

/// One figure of the table.
pub(super) enum Cell {
    Time(Duration),
    Mem(u64),
    Count(usize),
    /// The tool cannot do this here (a limit of where the demo runs); the reason in words.
    NotAvailable(String),
    /// The tool failed; its whole message.
    Failed(String),
    /// Does not apply to this column.
    Blank,
}

impl Cell {
    /// A failure of `tool` with message `msg`, told in words when it is a limit of where the
    /// demo runs.
    pub(super) fn failure(tool: &str, msg: &str) -> Cell {
        match why::limit_in_words(tool, msg) {
            Some(w) => Cell::NotAvailable(w),
            None => Cell::Failed(format!("{tool}: {}", msg.trim())),
        }
    }

    pub(super) fn time(&self) -> Option<Duration> {
        match self {
            Cell::Time(d) => Some(*d),
            _ => None,
        }
    }

    pub(super) fn is_figure(&self) -> bool {
        matches!(self, Cell::Time(_) | Cell::Mem(_) | Cell::Count(_))
    }
}

/// How a column's commands ran.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum How {
    /// A fork and exec of the command each, run by itself (cold).
    Process,
    /// The `iptables` command as a process, handed to a running `iptnl serve`.
    Served,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Iptnl,
    Nft,
    Legacy,
}

/// A column of the table: one tool, run one way.
pub(super) struct Column {
    pub(super) kind: Kind,
    pub(super) how: How,
    /// The single-rule command's name (`iptables-nft`; `iptables` for iptnl's link).
    pub(super) tool: String,
    /// The restore command's name.
    pub(super) restore: String,
    /// The save command's name.
    pub(super) save_name: String,
    pub(super) load: Cell,
    /// The kernel's commit of iptnl's batch alone (iptnl's process column only).
    pub(super) floor: Cell,
    pub(super) mem: Cell,
    /// Append, check, delete.
    pub(super) ops: [Cell; 3],
    pub(super) save: Cell,
    pub(super) saved_rules: Cell,
    /// What the reader needs to know about how this column's figures were had.
    pub(super) note: Option<String>,
}

impl Column {
    pub(super) fn new(kind: Kind, how: How, p6: &str, suffix: &str) -> Column {
        Column {
            kind,
            how,
            tool: format!("{p6}tables{suffix}"),
            restore: format!("{p6}tables{suffix}-restore"),
            save_name: format!("{p6}tables{suffix}-save"),
            load: Cell::Blank,
            floor: Cell::Blank,
            mem: Cell::Blank,
            ops: [Cell::Blank, Cell::Blank, Cell::Blank],
            save: Cell::Blank,
            saved_rules: Cell::Blank,
            note: None,
        }
    }

    /// The first failure that is not a limit of where the demo runs.
    pub(super) fn failure(&self) -> Option<&str> {
        [
            &self.load,
            &self.ops[0],
            &self.ops[1],
            &self.ops[2],
            &self.save,
        ]
        .into_iter()
        .find_map(|c| match c {
            Cell::Failed(e) => Some(e.as_str()),
            _ => None,
        })
    }
}

/// Another tool that takes part: its commands.
pub(super) struct Contender {
    pub(super) kind: Kind,
    pub(super) restore: PathBuf,
    pub(super) cmd: Option<PathBuf>,
    pub(super) save: Option<PathBuf>,
}

/// What the demo runs with: this binary, the ruleset file, the family.
pub(super) struct Setup {
    pub(super) exe: PathBuf,
    pub(super) file: PathBuf,
    pub(super) family: IpFamily,
    pub(super) keep_going: bool,
}

impl Setup {
    pub(super) fn p6(&self) -> &'static str {
        if self.family == IpFamily::V6 {
            "ip6"
        } else {
            "ip"
        }
    }
}

/// The requested ruleset did not fit the send buffer this user can get.
pub(super) struct Lowered {
    /// Rules asked for (as generated).
    pub(super) asked: usize,
    /// Its batch, in bytes.
    pub(super) bytes: usize,
    /// The longest batch this user can send.
    pub(super) limit: usize,
}

impl Lowered {
    pub(super) fn words(&self) -> String {
        format!(
            "the batch of {} rules is {} bytes ({:.1} MiB), and this user's netlink send buffer holds at most {} bytes ({:.1} MiB): a batch goes to the kernel in one message, and a buffer bigger than twice net.core.wmem_max needs CAP_NET_ADMIN in the initial user namespace (root in a user namespace is not enough)",
            group_thousands(self.asked as u64),
            group_thousands(self.bytes as u64),
            self.bytes as f64 / (1024.0 * 1024.0),
            group_thousands(self.limit as u64),
            self.limit as f64 / (1024.0 * 1024.0),
        )
    }
}
