//! Typed errors of the [`IpTables`](super::IpTables) handle.

use super::restore::error::RestoreError;
use super::save::SaveError;
use crate::ipt::ParseError;
use crate::nft;

/// What was not found, or already exists.
///
/// ```no_run
/// use iptnl::iptables::{Error, What};
/// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
/// match ipt.delete("filter", "INPUT", "-j ACCEPT") {
///     Err(Error::NotFound { what: What::Rule, .. }) => println!("no such rule"),
///     Err(Error::NotFound { what: What::Chain, .. }) => println!("no such chain"),
///     r => r?,
/// }
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum What {
    /// A table.
    Table,
    /// A chain.
    Chain,
    /// A rule (by spec or by number).
    Rule,
}

/// Errors of the [`IpTables`](super::IpTables) handle. After any error the ruleset is as it
/// was: every operation is one atomic batch.
///
/// ```
/// use iptnl::iptables::{Error, What};
/// let e = Error::NotFound { what: What::Chain, table: "filter".into(), chain: "FOO".into(), message: "chain FOO does not exist in table filter".into() };
/// assert!(e.is_not_found());
/// assert!(!e.is_exists());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A table, chain or rule does not exist (go-iptables' `IsNotExist`).
    #[error("{message}")]
    NotFound {
        /// What is missing.
        what: What,
        /// The table.
        table: String,
        /// The chain (empty for a table).
        chain: String,
        /// The sentence.
        message: String,
    },
    /// A chain (or other object) already exists.
    #[error("{message}")]
    AlreadyExists {
        /// What exists.
        what: What,
        /// The table.
        table: String,
        /// The chain.
        chain: String,
        /// The sentence.
        message: String,
    },
    /// A chain cannot be deleted because rules jump to it.
    #[error("chain {chain} in table {table} is in use: other rules jump to it")]
    ChainInUse {
        /// The table.
        table: String,
        /// The chain.
        chain: String,
    },
    /// A chain cannot be deleted because it still holds rules.
    #[error("chain {chain} in table {table} is not empty")]
    NotEmpty {
        /// The table.
        table: String,
        /// The chain.
        chain: String,
    },
    /// A built-in chain was not deleted because its policy is not ACCEPT (deleting it would
    /// lose the policy: the chain comes back with ACCEPT); iptables says `Directory not
    /// empty`.
    #[error("built-in chain {chain} in table {table} is kept: its policy is not ACCEPT")]
    BuiltinKept {
        /// The table.
        table: String,
        /// The chain.
        chain: String,
    },
    /// The rule spec could not be parsed (the error names the option and value).
    #[error("invalid rule spec: {0}")]
    InvalidSpec(#[from] ParseError),
    /// An argument other than a rule spec is not valid (a chain name, a policy, a built-in
    /// chain where a user chain is needed …).
    #[error("{0}")]
    Invalid(String),
    /// The kernel does not offer an x_tables extension (or revision) the rule needs.
    #[error("{0}")]
    ExtensionUnavailable(String),
    /// CAP_NET_ADMIN is missing in the network namespace.
    #[error("permission denied while {op}: CAP_NET_ADMIN is needed in this network namespace")]
    Permission {
        /// What was being done.
        op: String,
    },
    /// The ruleset kept changing under a read-dependent operation; nothing was applied.
    #[error("the ruleset kept changing while the operation was planned ({tries} tries); nothing was applied")]
    Conflict {
        /// Attempts made.
        tries: u32,
    },
    /// Any other refusal by the kernel.
    #[error("{op}: {message} (errno {errno})")]
    Kernel {
        /// The positive errno (0 when there is none).
        errno: i32,
        /// The operation.
        op: String,
        /// Why, in words.
        message: String,
    },
    /// A restore failed.
    #[error(transparent)]
    Restore(RestoreError),
    /// One operation of a transaction of several was refused (the error says why); nothing
    /// was applied. [`root`](Error::root) is that error, and the `is_*` tests look at it.
    #[error("operation {index} of the transaction (`{operation}`): {source}")]
    InTransaction {
        /// Which operation, counted from 1 in the order they were added.
        index: usize,
        /// The operation as the iptables command that asks for it.
        operation: String,
        /// Why it was refused.
        source: Box<Error>,
    },
    /// The in-memory ruleset ([`crate::memory`]) was asked for something it does not model;
    /// nothing was applied.
    #[error("{0}")]
    Unsupported(String),
    /// A rule declared for an owned chain or as a hook ([`sync`](crate::sync)) was refused;
    /// nothing was declared. [`root`](Error::root) is why (a rule that does not parse is
    /// [`InvalidSpec`](Error::InvalidSpec)).
    #[error("{table} {chain}: `{rule}': {source}")]
    InDeclaration {
        /// The table.
        table: String,
        /// The chain the rule was declared in.
        chain: String,
        /// The rule as given.
        rule: String,
        /// Why it was refused.
        source: Box<Error>,
    },
}

impl Error {
    /// The error itself, out of the [`InTransaction`](Error::InTransaction) that says which
    /// operation of a transaction it was refused for.
    ///
    /// ```no_run
    /// use iptnl::iptables::{Error, What};
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.append("filter", "INPUT", "-j ACCEPT").append("filter", "NOPE", "-j ACCEPT");
    /// let e = tx.commit().unwrap_err();
    /// assert!(matches!(e, Error::InTransaction { index: 2, .. }));
    /// assert!(matches!(e.root(), Error::NotFound { what: What::Chain, .. }));
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn root(&self) -> &Error {
        match self {
            Error::InTransaction { source, .. } | Error::InDeclaration { source, .. } => {
                source.root()
            }
            e => e,
        }
    }

    /// [`root`](Error::root), by value.
    ///
    /// ```
    /// use iptnl::iptables::Error;
    /// let e = Error::InTransaction { index: 1, operation: "-t filter -N X".into(), source: Box::new(Error::Invalid("no".into())) };
    /// assert!(matches!(e.into_root(), Error::Invalid(_)));
    /// ```
    pub fn into_root(self) -> Error {
        match self {
            Error::InTransaction { source, .. } | Error::InDeclaration { source, .. } => {
                source.into_root()
            }
            e => e,
        }
    }

    /// Whether a table, chain or rule was missing (go-iptables' `IsNotExist`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.delete("filter", "NOPE", "-j ACCEPT").unwrap_err().is_not_found());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn is_not_found(&self) -> bool {
        matches!(self.root(), Error::NotFound { .. })
    }

    /// Whether the object already existed.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.new_chain("filter", "X")?;
    /// assert!(ipt.new_chain("filter", "X").unwrap_err().is_exists());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn is_exists(&self) -> bool {
        matches!(self.root(), Error::AlreadyExists { .. })
    }

    /// Whether the ruleset kept changing (retries exhausted).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// if let Err(e) = ipt.append_unique("filter", "INPUT", "-j ACCEPT") { if e.is_conflict() { /* try later */ } }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn is_conflict(&self) -> bool {
        matches!(self.root(), Error::Conflict { .. })
    }

    /// Whether a chain could not be deleted because it is referenced or not empty.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// if let Err(e) = ipt.delete_chain("filter", "X") { assert!(e.is_in_use() || e.is_not_found()); }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn is_in_use(&self) -> bool {
        matches!(
            self.root(),
            Error::ChainInUse { .. } | Error::NotEmpty { .. }
        )
    }

    /// Whether the caller lacks CAP_NET_ADMIN.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// if let Err(e) = ipt.list("filter", "INPUT") { if e.is_permission() { eprintln!("run as root"); } }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn is_permission(&self) -> bool {
        matches!(self.root(), Error::Permission { .. })
    }

    /// The errno behind the error, when there is one.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let e = ipt.delete("filter", "NOPE", "-j ACCEPT").unwrap_err();
    /// assert_eq!(e.errno(), Some(2)); // ENOENT
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn errno(&self) -> Option<i32> {
        match self.root() {
            Error::NotFound { .. } => Some(libc::ENOENT),
            Error::AlreadyExists { .. } => Some(libc::EEXIST),
            Error::ChainInUse { .. } | Error::NotEmpty { .. } => Some(libc::EBUSY),
            Error::Permission { .. } => Some(libc::EPERM),
            Error::Conflict { .. } => Some(libc::ERESTART),
            Error::Kernel { errno, .. } if *errno != 0 => Some(*errno),
            _ => None,
        }
    }

    pub(crate) fn chain_missing(table: &str, chain: &str) -> Error {
        Error::NotFound {
            what: What::Chain,
            table: table.to_owned(),
            chain: chain.to_owned(),
            message: format!("chain {chain} does not exist in table {table}"),
        }
    }

    pub(crate) fn rule_missing(table: &str, chain: &str, detail: &str) -> Error {
        Error::NotFound {
            what: What::Rule,
            table: table.to_owned(),
            chain: chain.to_owned(),
            message: format!("{detail} in chain {chain} of table {table}"),
        }
    }

    pub(crate) fn chain_exists(table: &str, chain: &str) -> Error {
        Error::AlreadyExists {
            what: What::Chain,
            table: table.to_owned(),
            chain: chain.to_owned(),
            message: format!("chain {chain} already exists in table {table}"),
        }
    }
}

impl From<SaveError> for Error {
    fn from(e: SaveError) -> Error {
        match e {
            SaveError::NoSuchTable(t) => Error::NotFound {
                what: What::Table,
                message: format!("table {t} does not exist"),
                table: t,
                chain: String::new(),
            },
            SaveError::Kernel(e) => from_nft(e, "reading the ruleset"),
        }
    }
}

impl From<RestoreError> for Error {
    fn from(e: RestoreError) -> Error {
        match e {
            RestoreError::Conflict { tries } => Error::Conflict { tries },
            RestoreError::Nft(e) => from_nft(e, "restoring"),
            e => Error::Restore(e),
        }
    }
}

/// Maps an nftables-layer error outside of a planned batch (reads, single requests).
pub(crate) fn from_nft(e: nft::Error, op: &str) -> Error {
    match e {
        nft::Error::Conflict { .. } => Error::Conflict { tries: 1 },
        nft::Error::Rejected { failures } => {
            let f = &failures[0];
            Error::Kernel {
                errno: f.errno,
                op: f.op.clone(),
                message: f.reason.clone(),
            }
        }
        nft::Error::Encode { what, source } => Error::Invalid(format!("{what}: {source}")),
        nft::Error::Netlink(crate::netlink::Error::Permission { op }) => {
            Error::Permission { op: op.to_owned() }
        }
        nft::Error::Netlink(e @ crate::netlink::Error::Unsupported { .. }) => {
            Error::Unsupported(e.to_string())
        }
        e => Error::Kernel {
            errno: e.errno().unwrap_or(0),
            op: op.to_owned(),
            message: e.to_string(),
        },
    }
}
