//! The netlink layer: socket, message and attribute encoding and decoding, batches, acks,
//! dumps and generation-id checks. It knows nfnetlink framing but nothing of tables, chains
//! or rules (that is [`crate::nft`]).
//!
//! - [`MsgWriter`] builds messages into one contiguous buffer (no allocation per attribute);
//! - [`Attrs`] / [`Messages`] read them back zero-copy with bounds checks on every length;
//! - [`Batch`] frames nf_tables messages for one atomic commit;
//! - [`Conn`] sends batches in one `sendmsg`, maps errors back to operations, runs dumps and
//!   reads the generation id;
//! - [`Socket`] is the system-call layer, the only `unsafe` code of the crate;
//! - [`Transport`] is what a [`Conn`] talks through: a [`Socket`], or another nf_tables that
//!   answers the same bytes (the in-memory ruleset of [`crate::memory`]).

mod attr;
mod batch;
mod conn;
mod error;
mod message;
mod prefault;
mod socket;
mod transport;
mod writer;

pub use attr::{Attr, AttrTable, Attrs};
pub use batch::{Batch, OpIndex};
pub use conn::{Committed, Conn, DumpRetry, DumpStatus, KernelTime};
pub use error::{strerror, wmem_max_needed, DecodeError, EncodeError, Error, MsgFailure};
pub use message::{ErrorMessage, Message, Messages, NfMessage};
pub use prefault::{Prefault, PrefaultCursor, AHEAD as PREFAULT_AHEAD};
pub use socket::{
    block_signals, connect_abstract, effective_uid, inherited_unix_listener, input_ready,
    interface_name, ip_set_sockopt, memfd, peer_credentials, recv_with_fds, release_free_memory,
    seal_contents, send_signal, send_with_fd, set_accept_timeout, splice, splice_at, wait_signal,
    PeerCredentials,
};
pub use socket::{enter_net_namespace, unshare_net_namespace, Socket, RECV_BUF_SIZE};
pub use transport::Transport;
pub use writer::{MsgStart, MsgWriter, Nest, NFNL_HDRLEN, NLA_MAX_LEN};
