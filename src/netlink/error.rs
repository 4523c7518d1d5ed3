//! Errors of the netlink layer.

use std::io;

/// A message could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// An attribute or nest is longer than the 65,535 bytes its 16-bit length can say.
    #[error("attribute type {ty} would be {len} bytes, more than the 65,535 a netlink attribute can hold")]
    AttributeTooLarge {
        /// The attribute type.
        ty: u16,
        /// The length it would have had.
        len: usize,
    },
    /// A message is longer than 4 GiB.
    #[error("message of {len} bytes is too large for netlink")]
    MessageTooLarge {
        /// The length it would have had.
        len: usize,
    },
    /// A value cannot be represented on the wire.
    #[error("{what}: {why}")]
    Invalid {
        /// What was being encoded.
        what: &'static str,
        /// Why it cannot be.
        why: String,
    },
}

/// Bytes received from the kernel could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The buffer ends before the structure it should hold.
    #[error("truncated {what}: need {need} bytes, have {have}")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// An attribute has the wrong size for its type.
    #[error("attribute {attr} has {got} bytes, expected {expected}")]
    BadLength {
        /// The attribute type.
        attr: u16,
        /// Size expected.
        expected: usize,
        /// Size found.
        got: usize,
    },
    /// A string attribute has no terminating NUL, or bytes after it.
    #[error("string attribute {attr} is not NUL-terminated or has bytes after its NUL")]
    NotNulTerminated {
        /// The attribute type.
        attr: u16,
    },
    /// A string attribute is not UTF-8.
    #[error("string attribute {attr} is not valid UTF-8")]
    BadUtf8 {
        /// The attribute type.
        attr: u16,
    },
    /// A required attribute is missing.
    #[error("missing {what}")]
    Missing {
        /// What is missing.
        what: &'static str,
    },
    /// A value is out of the range this field allows.
    #[error("{what}: unexpected value {value}")]
    BadValue {
        /// The field.
        what: &'static str,
        /// The value found.
        value: i64,
    },
    /// A message of an unexpected type arrived.
    #[error("unexpected message type {ty:#06x} while {during}")]
    UnexpectedMessage {
        /// The message type.
        ty: u16,
        /// What was being done.
        during: &'static str,
    },
}

/// An I/O error in `strerror`'s words, without the ` (os error N)` Rust's errors add: what
/// iptables prints.
///
/// ```
/// let e = std::io::Error::from_raw_os_error(libc::ENOENT);
/// assert_eq!(iptnl::netlink::strerror(&e), "No such file or directory");
/// ```
pub fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// One message of a batch that the kernel refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsgFailure {
    /// Index of the message among the batch's operations (0 = the first after BATCH_BEGIN).
    pub index: usize,
    /// The positive errno.
    pub errno: i32,
    /// The kernel's extended-ACK text, if it sent one.
    pub ext_msg: Option<String>,
    /// The offset of the offending attribute in the refused message, if the kernel said.
    pub ext_offset: Option<u32>,
}

impl MsgFailure {
    /// The errno as an [`io::Error`], for its text.
    pub fn io_error(&self) -> io::Error {
        io::Error::from_raw_os_error(self.errno)
    }
}

/// Errors of the socket, batch and dump machinery.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A system call on the netlink socket failed.
    #[error("{op}: {source}")]
    Io {
        /// What was being done.
        op: &'static str,
        /// The system error.
        #[source]
        source: io::Error,
    },
    /// The caller lacks CAP_NET_ADMIN in the network namespace.
    #[error("{op}: permission denied (CAP_NET_ADMIN is needed in this network namespace; run as root or under `unshare -rn`)")]
    Permission {
        /// What was being done.
        op: &'static str,
    },
    /// The send buffer could not be raised to hold the batch. A batch is sent in one
    /// message (the kernel aborts a batch split over several), so it cannot be sent.
    #[error("{}", send_buffer_words(*need, *got, *wmem_max))]
    SendBuffer {
        /// Bytes needed: the length of the batch.
        need: usize,
        /// The send buffer obtained, in bytes, as the kernel reports it (`SO_SNDBUF`).
        got: usize,
        /// `net.core.wmem_max` when the error was seen, if it could be read.
        wmem_max: Option<usize>,
    },
    /// A message could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// A reply could not be decoded.
    #[error("decoding the kernel's reply: {0}")]
    Decode(#[from] DecodeError),
    /// The batch carried a generation id and the ruleset had changed since.
    #[error("the ruleset changed since generation {genid} was read; nothing was applied")]
    Conflict {
        /// The generation the batch was based on.
        genid: u32,
    },
    /// The kernel refused one or more messages of a batch; nothing was applied.
    #[error("the kernel refused {} message(s) of the batch; nothing was applied (first: message {}: {})", failures.len(), failures[0].index, failures[0].io_error())]
    Rejected {
        /// Every refused message, in the order the kernel reported them (never empty).
        failures: Vec<MsgFailure>,
    },
    /// The kernel refused the batch as a whole (for example while committing).
    #[error("the kernel refused the batch: {}{}", std::io::Error::from_raw_os_error(*errno), ext_msg.as_deref().map(|m| format!(" ({m})")).unwrap_or_default())]
    BatchRefused {
        /// The positive errno.
        errno: i32,
        /// The extended-ACK text.
        ext_msg: Option<String>,
    },
    /// A request (not a batch) was refused.
    #[error("{op}: {}{}", std::io::Error::from_raw_os_error(*errno), ext_msg.as_deref().map(|m| format!(" ({m})")).unwrap_or_default())]
    Request {
        /// What was asked.
        op: &'static str,
        /// The positive errno.
        errno: i32,
        /// The extended-ACK text.
        ext_msg: Option<String>,
    },
    /// A dump kept being interrupted by concurrent changes.
    #[error("{op}: the ruleset kept changing during the dump ({tries} tries in the time allowed)")]
    DumpInterrupted {
        /// What was being dumped.
        op: &'static str,
        /// How many times it was tried.
        tries: u32,
    },
    /// An nf_tables other than the kernel's (the in-memory ruleset of [`crate::memory`]) was
    /// asked for something it does not model; nothing was applied. It says so instead of
    /// guessing what the kernel would have done.
    #[error("the in-memory ruleset does not model {what}; nothing was applied")]
    Unsupported {
        /// What it was asked for.
        what: String,
    },
    /// Messages were lost because the receive buffer overflowed; the outcome of the batch is
    /// unknown to this socket.
    #[error("{op}: replies were lost (receive buffer overflow); the outcome is unknown")]
    Overrun {
        /// What was being done.
        op: &'static str,
    },
}

/// The smallest `net.core.wmem_max` that lets a process without CAP_NET_ADMIN in the
/// initial user namespace send a message of `len` bytes on a netlink socket, rounded up to
/// a whole MiB: `SO_SNDBUF` is capped at that value, the kernel doubles it, and
/// `netlink_sendmsg` refuses a message longer than the buffer less 32 bytes.
pub fn wmem_max_needed(len: usize) -> usize {
    const MIB: usize = 1 << 20;
    len.saturating_add(32)
        .div_ceil(2)
        .div_ceil(MIB)
        .saturating_mul(MIB)
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn send_buffer_words(need: usize, got: usize, wmem_max: Option<usize>) -> String {
    let now = wmem_max.map(|w| format!(" (now {w})")).unwrap_or_default();
    format!(
        "the batch is {need} bytes ({}) but the socket send buffer could only be raised to \
         {got} bytes ({}), and a batch must reach the kernel in one message: a send buffer \
         larger than twice net.core.wmem_max{now} needs CAP_NET_ADMIN in the initial user \
         namespace (root in a user namespace is not enough); run as root, or have root run \
         `sysctl -w net.core.wmem_max={}`",
        mib(need),
        mib(got),
        wmem_max_needed(need)
    )
}

impl Error {
    /// Builds an [`Error::Io`] or, for EPERM/EACCES, an [`Error::Permission`].
    pub fn io(op: &'static str, source: io::Error) -> Error {
        match source.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => Error::Permission { op },
            _ => Error::Io { op, source },
        }
    }

    /// The errno behind this error, if there is one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Io { source, .. } => source.raw_os_error(),
            Error::Permission { .. } => Some(libc::EPERM),
            Error::Rejected { failures } => failures.first().map(|f| f.errno),
            Error::BatchRefused { errno, .. } | Error::Request { errno, .. } => Some(*errno),
            Error::Conflict { .. } => Some(libc::ERESTART),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_buffer_error_names_the_sysctl_and_the_size() {
        let need = 64_938_972;
        let n = wmem_max_needed(need);
        // SO_SNDBUF is capped at wmem_max and doubled; netlink keeps 32 bytes.
        assert!(2 * n - 32 >= need);
        assert_eq!(n % (1 << 20), 0);
        assert!(2 * (n - (1 << 20)) - 32 < need);
        let e = Error::SendBuffer {
            need,
            got: 8_388_608,
            wmem_max: Some(4_194_304),
        };
        let text = e.to_string();
        assert!(text.contains("64938972 bytes (61.9 MiB)"), "{text}");
        assert!(text.contains("8388608 bytes (8.0 MiB)"), "{text}");
        assert!(text.contains("(now 4194304)"), "{text}");
        assert!(
            text.contains(&format!("`sysctl -w net.core.wmem_max={n}`")),
            "{text}"
        );
        assert_eq!(wmem_max_needed(usize::MAX) % (1 << 20), 0);
    }
}
