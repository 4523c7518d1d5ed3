//! An in-memory nf_tables: a ruleset with the kernel's semantics, for testing firewall code
//! without root, a network namespace or a kernel.
//!
//! It sits under the netlink connection: a [`Conn`] talks to it through a [`Transport`] as
//! it talks to the kernel through its socket, with the same bytes. It takes the batches
//! iptnl sends and applies them as the kernel does (all or nothing; later operations of a
//! batch see earlier ones; the same refusal, errno and offending attribute for the same
//! mistake; handles allocated per table as the kernel allocates them; the generation moved
//! once per commit and checked against the batch's); it answers the same requests and
//! dumps, message for message and byte for byte; and it sends the same events to the
//! endpoints that listen. So everything above it works unchanged: the planner, restore,
//! save, transactions, owned chains and their guard, the cache and its event follower.
//! [`IpTables::in_memory`](crate::iptables::IpTables::in_memory) is one call away:
//!
//! ```
//! use iptnl::ipt::IpFamily;
//! use iptnl::iptables::IpTables;
//! let ipt = IpTables::in_memory(IpFamily::V4);
//! ipt.new_chain("filter", "MY-CHAIN")?;
//! ipt.append("filter", "INPUT", "-p tcp --dport 22 -j MY-CHAIN")?;
//! ipt.append("filter", "MY-CHAIN", "-s 10.0.0.0/8 -j ACCEPT")?;
//! assert!(ipt.delete_chain("filter", "MY-CHAIN").is_err()); // EBUSY, as in the kernel
//! let saved = ipt.save(Some("filter"), false)?;
//! assert!(saved.contains("-A INPUT -p tcp -m tcp --dport 22 -j MY-CHAIN"));
//! # Ok::<(), iptnl::iptables::Error>(())
//! ```
//!
//! # What it models
//!
//! Linux 6.18's nf_tables (the kernel the project is tested on; its behaviour for these
//! objects has been stable since 6.2), as iptables-nft 1.8.9–1.8.11 and iptnl use it:
//!
//! - tables of the `ip` and `ip6` families (creation, deletion with everything in them,
//!   table handles per namespace);
//! - base chains (`filter`, `nat`, `route` types; hooks, priorities, policies, counters)
//!   and user chains: creation, update, rename (applied at commit, as the kernel does),
//!   deletion (`EBUSY` for a chain with rules or one still jumped to);
//! - rules: append, insert, at a position by handle or batch id, replace (the replacement
//!   keeps the handle), delete by handle or batch id, flush of a chain or a table; handles
//!   from one counter per table shared by chains and rules, never given back (not even by a
//!   refused batch);
//! - expressions: payload, cmp, bitwise, byteorder, range, meta, counter (counters are
//!   values: they stay as set, as no packet ever passes), immediate (verdicts, jumps and
//!   gotos: `ENOENT`, `EOPNOTSUPP` to a base chain, `ELOOP`, and `EMLINK` past 16 nested
//!   chains), limit, log, exthdr, and the x_tables matches and targets of
//!   [`xt`]'s catalog with the kernel's table, hook and protocol restrictions
//!   (`MASQUERADE` only in nat POSTROUTING, `CT` only in raw, `REJECT` only in filter
//!   INPUT/FORWARD/OUTPUT…), checked when a rule is added and again for every base chain
//!   that reaches it;
//! - the generation: 1 in a fresh ruleset, moved by each commit that changes something;
//!   a batch carrying another generation is refused (`ERESTART`);
//! - events (`NFNLGRP_NFTABLES`) and echoes, with the kernel's messages, flags, positions
//!   and sequence numbers; dumps flagged interrupted when a commit came in between.
//!
//! # What it refuses to model
//!
//! Anything else is answered [`Error::Unsupported`](crate::netlink::Error::Unsupported)
//! (nothing applied) instead of a guess: other families (`inet`, `arp`, `bridge`,
//! `netdev`), sets and maps (so ipset matches, which need the kernel's ipset, too),
//! stateful objects, flowtables, bound chains, table flags, expressions other than those
//! above (native NAT, reject, fib, socket…), x_tables extensions outside the catalog (their
//! kernel checks, and whether the kernel has their module, are not known here), and the
//! `CT` target with a helper or timeout policy. No packet ever passes: counters only
//! change when they are set.
//!
//! It needs nothing of the operating system: it builds and runs anywhere the crate builds
//! (the committing thread's id and name reported in `NEWGEN` come from `/proc` on Linux,
//! and are the process id and `iptnl` elsewhere). The crate itself is Linux-only for its
//! kernel backend.

mod batch;
mod chains;
mod endpoint;
mod exprs;
mod graph;
mod msg;
mod requests;
mod rules;
mod state;
mod tables;
mod txn;
mod wire;
pub mod xt;

use std::sync::Arc;

use crate::netlink::{Conn, Transport};
use endpoint::{Endpoint, Shared};

/// Where the heap of a [`Ruleset`] goes, in bytes (see [`Ruleset::footprint`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Rules held.
    pub rules: usize,
    /// The rule lists of the chains.
    pub rule_lists: usize,
    /// The expression ids of the rules.
    pub rule_ids: usize,
    /// Chains: their slots, names, callers and name index.
    pub chains: usize,
    /// The distinct expressions' bytes.
    pub expression_arena: usize,
    /// The distinct expressions' entries.
    pub expression_entries: usize,
    /// The index of the distinct expressions.
    pub expression_index: usize,
}

/// An in-memory nf_tables ruleset: one network namespace's worth of tables, chains and
/// rules. Cheap to clone (clones share the ruleset); every [`conn`](Self::conn) is a new
/// endpoint on it, as a new socket in the same namespace would be.
///
/// ```
/// use iptnl::ipt::IpFamily;
/// use iptnl::iptables::IpTables;
/// let ruleset = iptnl::memory::Ruleset::new();
/// let a = IpTables::from_conn(IpFamily::V4, ruleset.conn());
/// let b = IpTables::from_conn(IpFamily::V4, ruleset.conn());
/// a.append("filter", "INPUT", "-j ACCEPT")?;
/// assert_eq!(b.list("filter", "INPUT")?, ["-P INPUT ACCEPT", "-A INPUT -j ACCEPT"]);
/// assert_eq!(ruleset.genid(), 2);
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Ruleset {
    shared: Arc<Shared>,
}

impl Default for Ruleset {
    fn default() -> Self {
        Ruleset::new()
    }
}

impl Ruleset {
    /// An empty ruleset, generation 1, as in a fresh network namespace.
    pub fn new() -> Ruleset {
        Ruleset {
            shared: Shared::new(),
        }
    }

    /// A new connection to the ruleset.
    ///
    /// ```
    /// let mut conn = iptnl::memory::Ruleset::new().conn();
    /// assert_eq!(conn.genid()?, 1);
    /// # Ok::<(), iptnl::netlink::Error>(())
    /// ```
    pub fn conn(&self) -> Conn {
        Conn::from_transport(self.transport())
    }

    /// A new endpoint on the ruleset, for [`Conn::from_transport`].
    ///
    /// ```
    /// let t = iptnl::memory::Ruleset::new().transport();
    /// assert!(t.as_socket().is_none());
    /// ```
    pub fn transport(&self) -> Box<dyn Transport> {
        Box::new(Endpoint::new(self.shared.clone()))
    }

    /// The current generation.
    ///
    /// ```
    /// assert_eq!(iptnl::memory::Ruleset::new().genid(), 1);
    /// ```
    pub fn genid(&self) -> u32 {
        self.shared.lock().nft.genid
    }

    /// Where the ruleset's heap goes, in bytes (an estimate from the capacities held).
    ///
    /// ```
    /// let f = iptnl::memory::Ruleset::new().footprint();
    /// assert_eq!(f.rules, 0);
    /// ```
    pub fn footprint(&self) -> Footprint {
        let w = self.shared.lock();
        let nft = &w.nft;
        let (arena, entries, index) = nft.exprs.heap();
        let mut f = Footprint {
            expression_arena: arena,
            expression_entries: entries,
            expression_index: index,
            ..Footprint::default()
        };
        for (_, t) in nft.tables_in_order() {
            f.chains += t.chains.capacity() * std::mem::size_of::<Option<state::Chain>>()
                + t.by_name.heap();
            for (_, c) in t.chains_in_order() {
                f.rules += c.rules.len();
                f.rule_lists += c.rules.capacity() * std::mem::size_of::<state::Rule>();
                f.rule_ids += c
                    .rules
                    .iter()
                    .map(|r| (r.exprs().len() + r.jumps().count()) * 4)
                    .sum::<usize>();
                f.chains += c.name.capacity()
                    + c.callers.heap()
                    + c.base
                        .as_ref()
                        .map_or(0, |_| std::mem::size_of::<state::Base>());
            }
        }
        f
    }

    /// How many distinct expressions the ruleset holds and their bytes (every rule refers to
    /// its expressions, each stored once).
    ///
    /// ```
    /// assert_eq!(iptnl::memory::Ruleset::new().expression_stats(), (0, 0));
    /// ```
    pub fn expression_stats(&self) -> (usize, usize) {
        self.shared.lock().nft.exprs.stats()
    }
}
