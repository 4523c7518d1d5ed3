//! Typed batches: tables, chains, rules and sets added, changed and deleted in one atomic
//! commit.

use iptnl_sys::netlink::{NLM_F_APPEND, NLM_F_CREATE, NLM_F_EXCL, NLM_F_NONREC, NLM_F_REPLACE};
use iptnl_sys::nf_tables::*;

use super::error::{map_commit_error, Error};
use super::{Chain, Family, Policy, Rule, Table};
use crate::netlink::{self, Conn, Messages, MsgWriter, OpIndex};

/// Where a new rule goes in its chain, by the kernel's handles: the nf_tables placement of
/// one rule message. (The iptables layer's positions, rule numbers and comment anchors, are
/// planned into these.)
///
/// ```
/// use iptnl::nft::Placement;
/// assert_ne!(Placement::Before(7), Placement::After(7));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// At the end of the chain.
    Append,
    /// At the start of the chain.
    Prepend,
    /// Right after the rule with this handle.
    After(u64),
    /// Right before the rule with this handle.
    Before(u64),
    /// Right after a rule added earlier in the same batch, by its batch-local id.
    AfterId(u32),
    /// Right before a rule added earlier in the same batch, by its batch-local id.
    BeforeId(u32),
    /// In place of the rule with this handle.
    Replace(u64),
}

/// A batch of nftables changes, committed atomically by [`Batch::commit`].
///
/// ```no_run
/// use iptnl::netlink::Conn;
/// use iptnl::nft::{Batch, Family, Placement, Rule, Table, Verdict};
/// use iptnl::nft::expr::{Counter, Immediate};
/// let mut conn = Conn::open()?;
/// let mut b = Batch::new();
/// b.add_table(&Table::new(Family::Ipv4, "demo"))?;
/// b.add_chain(&iptnl::nft::Chain::user(Family::Ipv4, "demo", "c"), true)?;
/// let mut r = Rule::new(Family::Ipv4, "demo", "c");
/// r.exprs = vec![Counter::default().into(), Immediate::verdict(Verdict::Accept).into()];
/// let op = b.add_rule(&r, Placement::Append, true)?;
/// let done = b.commit(&mut conn)?;
/// println!("new rule handle {:?}", done.handle(op));
/// # Ok::<(), iptnl::nft::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Batch {
    inner: netlink::Batch,
    next_id: u32,
}

/// What a committed batch reports back.
#[derive(Debug, Clone, Default)]
pub struct Committed {
    handles: Vec<(OpIndex, u64)>,
    /// Whether the kernel confirmed the commit with an ACK of BATCH_END (kernel 6.10+).
    pub end_acked: bool,
}

impl Committed {
    /// The handle of the object created by operation `op`, when it asked for an echo.
    pub fn handle(&self, op: OpIndex) -> Option<u64> {
        self.handles
            .binary_search_by_key(&op, |&(i, _)| i)
            .ok()
            .map(|i| self.handles[i].1)
    }
}

fn enc(what: impl FnOnce() -> String) -> impl FnOnce(netlink::EncodeError) -> Error {
    move |source| Error::Encode {
        what: what(),
        source,
    }
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// An empty batch with room for `bytes` of messages.
    pub fn with_capacity(bytes: usize) -> Batch {
        Batch {
            inner: netlink::Batch::with_capacity(bytes),
            next_id: 0,
        }
    }

    /// Empties the batch, keeping its buffer for the next one (an agent that syncs
    /// repeatedly saves the page faults of a fresh buffer).
    pub fn clear(&mut self) {
        self.inner.clear();
        self.next_id = 0;
    }

    /// Makes the whole batch conditional on the ruleset generation still being `genid`.
    pub fn set_genid(&mut self, genid: Option<u32>) {
        self.inner.set_genid(genid);
    }

    /// The generation id the batch is committed against ([`set_genid`](Self::set_genid)).
    ///
    /// ```
    /// let mut b = iptnl::nft::Batch::new();
    /// b.set_genid(Some(7));
    /// assert_eq!(b.genid(), Some(7));
    /// ```
    pub fn genid(&self) -> Option<u32> {
        self.inner.genid()
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether there is no operation.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Size of the batch on the wire, in bytes.
    pub fn wire_len(&self) -> usize {
        self.inner.wire_len()
    }

    /// The underlying netlink batch.
    pub fn as_netlink(&self) -> &netlink::Batch {
        &self.inner
    }

    /// The batch exactly as [`commit`](Self::commit) would send it (see
    /// [`netlink::Batch::to_wire`]).
    ///
    /// ```
    /// let mut b = iptnl::nft::Batch::new();
    /// assert_eq!(b.to_wire(1).len(), b.wire_len());
    /// ```
    pub fn to_wire(&mut self, seq_base: u32) -> Vec<u8> {
        self.inner.to_wire(seq_base)
    }

    /// Tells `ahead` where this batch is written, so that another thread can fault its next
    /// pages in (see [`netlink::Prefault`]).
    pub fn publish_to(&mut self, ahead: &netlink::Prefault) {
        ahead.publish(&mut self.inner);
    }

    /// Calls `f` with the table and chain that each operation from `from` on changes: the
    /// chain is `None` for an operation on a whole table (a table added or deleted, all its
    /// rules flushed, all its chains deleted). Operations on sets, their elements and other
    /// objects (what a rule's anonymous sets need) are not reported: the rule that uses them
    /// is.
    ///
    /// ```
    /// use iptnl::nft::{Batch, Chain, Family};
    /// let mut b = Batch::new();
    /// b.add_chain(&Chain::user(Family::Ipv4, "nat", "X"), false).unwrap();
    /// b.flush_table(Family::Ipv4, "filter").unwrap();
    /// let mut seen = Vec::new();
    /// b.each_target(0, &mut |t, c| seen.push((t.to_owned(), c.map(str::to_owned))));
    /// assert_eq!(seen, [("nat".into(), Some("X".into())), ("filter".into(), None)]);
    /// ```
    pub fn each_target(&self, from: usize, f: &mut dyn FnMut(&str, Option<&str>)) {
        for i in from..self.len() {
            let Some(m) = self
                .inner
                .op_bytes(i)
                .and_then(|b| Messages::new(b).next()?.ok())
            else {
                continue;
            };
            let (table, chain) = match m.msg_type() & 0xff {
                NFT_MSG_NEWTABLE | NFT_MSG_DELTABLE => (NFTA_TABLE_NAME, None),
                NFT_MSG_NEWCHAIN | NFT_MSG_DELCHAIN => (NFTA_CHAIN_TABLE, Some(NFTA_CHAIN_NAME)),
                NFT_MSG_NEWRULE | NFT_MSG_DELRULE => (NFTA_RULE_TABLE, Some(NFTA_RULE_CHAIN)),
                _ => continue,
            };
            let Ok(nf) = m.nfgen() else { continue };
            let (mut t, mut c) = (None, None);
            for a in nf.attrs().flatten() {
                if a.kind() == table {
                    t = a.str().ok();
                } else if Some(a.kind()) == chain {
                    c = a.str().ok();
                }
                if t.is_some() && c.is_some() {
                    break;
                }
            }
            if let Some(t) = t {
                f(t, c);
            }
        }
    }

    /// A new batch-local id, for [`Placement::AfterId`] or chain ids.
    pub fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn push(
        &mut self,
        msg: u16,
        flags: u16,
        family: Family,
        echo: bool,
        attrs: impl FnOnce(&mut MsgWriter),
        what: impl FnOnce() -> String,
    ) -> Result<OpIndex, Error> {
        self.inner
            .push(msg, flags, family.raw(), echo, attrs)
            .map_err(enc(what))
    }

    /// Creates a table, or does nothing if it exists (`NLM_F_CREATE`, as iptables-nft).
    pub fn add_table(&mut self, t: &Table) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_NEWTABLE,
            NLM_F_CREATE,
            t.family,
            false,
            |w| t.encode(w),
            || format!("table {}", t.name),
        )
    }

    /// Deletes a table with everything in it.
    pub fn del_table(&mut self, family: Family, name: &str) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_DELTABLE,
            0,
            family,
            false,
            |w| w.put_str(NFTA_TABLE_NAME, name),
            || format!("table {name}"),
        )
    }

    /// Creates a chain. With `exclusive` it fails if the chain exists (`-N`); without, an
    /// existing chain is updated (base chains, policy).
    pub fn add_chain(&mut self, c: &Chain, exclusive: bool) -> Result<OpIndex, Error> {
        let flags = if exclusive {
            NLM_F_CREATE | NLM_F_EXCL
        } else {
            NLM_F_CREATE
        };
        self.push(
            NFT_MSG_NEWCHAIN,
            flags,
            c.family,
            false,
            |w| c.encode(w),
            || format!("chain {}", c.name),
        )
    }

    /// Sets the policy of an existing base chain.
    pub fn set_policy(
        &mut self,
        family: Family,
        table: &str,
        chain: &str,
        policy: Policy,
    ) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_NEWCHAIN,
            0,
            family,
            false,
            |w| {
                w.put_str(NFTA_CHAIN_TABLE, table);
                w.put_str(NFTA_CHAIN_NAME, chain);
                w.put_be32(NFTA_CHAIN_POLICY, policy.raw());
            },
            || format!("chain {chain}"),
        )
    }

    /// Renames the chain with `handle` to `new_name`.
    pub fn rename_chain(
        &mut self,
        family: Family,
        table: &str,
        handle: u64,
        new_name: &str,
    ) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_NEWCHAIN,
            0,
            family,
            false,
            |w| {
                w.put_str(NFTA_CHAIN_TABLE, table);
                w.put_be64(NFTA_CHAIN_HANDLE, handle);
                w.put_str(NFTA_CHAIN_NAME, new_name);
            },
            || format!("chain {new_name}"),
        )
    }

    /// Deletes a chain; it must be empty and unreferenced (`NLM_F_NONREC`).
    pub fn del_chain(&mut self, family: Family, table: &str, name: &str) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_DELCHAIN,
            NLM_F_NONREC,
            family,
            false,
            |w| {
                w.put_str(NFTA_CHAIN_TABLE, table);
                w.put_str(NFTA_CHAIN_NAME, name);
            },
            || format!("chain {name}"),
        )
    }

    /// Deletes every rule of a chain.
    pub fn flush_chain(
        &mut self,
        family: Family,
        table: &str,
        chain: &str,
    ) -> Result<OpIndex, Error> {
        self.push_del_rules(family, table, chain, |_| {}, || format!("chain {chain}"))
    }

    /// Deletes the rules of `chain` that the attributes `key` writes select (all of them
    /// when it writes none).
    fn push_del_rules(
        &mut self,
        family: Family,
        table: &str,
        chain: &str,
        key: impl FnOnce(&mut MsgWriter),
        what: impl FnOnce() -> String,
    ) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_DELRULE,
            0,
            family,
            false,
            |w| {
                w.put_str(NFTA_RULE_TABLE, table);
                w.put_str(NFTA_RULE_CHAIN, chain);
                key(w);
            },
            what,
        )
    }

    /// Deletes every rule of every chain of a table.
    pub fn flush_table(&mut self, family: Family, table: &str) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_DELRULE,
            0,
            family,
            false,
            |w| w.put_str(NFTA_RULE_TABLE, table),
            || format!("table {table}"),
        )
    }

    /// Adds a rule at `pos`. With `echo`, the kernel reports the new rule's handle, read with
    /// [`Committed::handle`].
    pub fn add_rule(&mut self, r: &Rule, pos: Placement, echo: bool) -> Result<OpIndex, Error> {
        self.add_rule_with_id(r, pos, echo, None)
    }

    /// Adds a rule with a batch-local `id` (from [`new_id`](Self::new_id)) so that later
    /// operations of the same batch can place rules relative to it.
    pub fn add_rule_with_id(
        &mut self,
        r: &Rule,
        pos: Placement,
        echo: bool,
        id: Option<u32>,
    ) -> Result<OpIndex, Error> {
        if !r.bound_sets.is_empty() {
            let r = self.add_bound_sets(r)?;
            return self.add_rule_with_id(&r, pos, echo, id);
        }
        let (flags, handle, position, position_id) = match pos {
            Placement::Append => (NLM_F_CREATE | NLM_F_APPEND, None, None, None),
            Placement::Prepend => (NLM_F_CREATE, None, None, None),
            Placement::After(h) => (NLM_F_CREATE | NLM_F_APPEND, None, Some(h), None),
            Placement::Before(h) => (NLM_F_CREATE, None, Some(h), None),
            Placement::AfterId(i) => (NLM_F_CREATE | NLM_F_APPEND, None, None, Some(i)),
            Placement::BeforeId(i) => (NLM_F_CREATE, None, None, Some(i)),
            Placement::Replace(h) => (NLM_F_CREATE | NLM_F_REPLACE, Some(h), None, None),
        };
        self.push(
            NFT_MSG_NEWRULE,
            flags,
            r.family,
            echo,
            |w| r.encode(w, handle, position, id, position_id),
            || format!("rule in chain {}", r.chain),
        )
    }

    /// Creates the anonymous sets a rule is bound to (with their elements) and returns the
    /// rule with its lookups pointed at them by batch-local id.
    fn add_bound_sets(&mut self, r: &Rule) -> Result<Rule, Error> {
        let mut out = r.clone();
        out.bound_sets.clear();
        for b in &r.bound_sets {
            let id = self.new_id();
            let mut set = b.set.clone();
            set.family = r.family;
            set.table.clone_from(&r.table);
            set.name = "__set%d".into();
            set.handle = None;
            set.id = Some(id);
            set.unknown.clear();
            self.add_set(&set)?;
            self.add_set_elems(r.family, &r.table, super::SetRef::Id(id), &b.elems)?;
            for e in &mut out.exprs {
                if let super::Expr::Lookup(l) = e {
                    if l.set == b.set.name && l.set_id.is_none() {
                        l.set.clone_from(&set.name);
                        l.set_id = Some(id);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Deletes a rule added earlier in the same batch, by its batch-local id.
    pub fn del_rule_by_id(
        &mut self,
        family: Family,
        table: &str,
        chain: &str,
        id: u32,
    ) -> Result<OpIndex, Error> {
        self.push_del_rules(
            family,
            table,
            chain,
            |w| w.put_be32(NFTA_RULE_ID, id),
            || format!("rule in chain {chain}"),
        )
    }

    /// Deletes the rule with `handle`.
    pub fn del_rule(
        &mut self,
        family: Family,
        table: &str,
        chain: &str,
        handle: u64,
    ) -> Result<OpIndex, Error> {
        self.push_del_rules(
            family,
            table,
            chain,
            |w| w.put_be64(NFTA_RULE_HANDLE, handle),
            || format!("rule in chain {chain}"),
        )
    }

    /// Appends any nf_tables message (escape hatch for objects this module does not model).
    pub fn push_raw(
        &mut self,
        msg: u16,
        flags: u16,
        family: Family,
        echo: bool,
        attrs: impl FnOnce(&mut MsgWriter),
    ) -> Result<OpIndex, Error> {
        self.push(msg, flags, family, echo, attrs, || {
            format!("message type {msg}")
        })
    }

    /// Sends the batch in one `sendmsg`. On error nothing was applied and the error names
    /// each refused operation and why.
    pub fn commit(&mut self, conn: &mut Conn) -> Result<Committed, Error> {
        let done = conn
            .commit(&mut self.inner)
            .map_err(|e| map_commit_error(&self.inner, e))?;
        let mut handles = Vec::new();
        for (op, bytes) in &done.echoes {
            if let Some(Ok(m)) = Messages::new(bytes).next() {
                if let Ok(nf) = m.nfgen() {
                    let h = nf
                        .attrs()
                        .flatten()
                        .find(|a| a.kind() == NFTA_RULE_HANDLE)
                        .and_then(|a| a.be64().ok());
                    if let Some(h) = h {
                        handles.push((*op, h));
                    }
                }
            }
        }
        handles.sort_unstable();
        Ok(Committed {
            handles,
            end_acked: done.end_acked,
        })
    }

    /// Creates a set or map (`NLM_F_CREATE`: an identical existing set is left as it is).
    /// Give it an [`id`](super::Set::id) from [`new_id`](Self::new_id) to add elements or
    /// bind rules to it in the same batch before it exists (anonymous sets need that); a set
    /// without one gets a fresh id, as the kernel requires one.
    pub fn add_set(&mut self, s: &super::Set) -> Result<OpIndex, Error> {
        // The kernel requires NFTA_SET_ID even when nothing refers to it.
        let id = match s.id {
            Some(id) => id,
            None => self.new_id(),
        };
        self.push(
            NFT_MSG_NEWSET,
            NLM_F_CREATE,
            s.family,
            false,
            |w| s.encode_with_id(w, id),
            || format!("set {}", s.name),
        )
    }

    /// Deletes a set with its elements; it must not be used by any rule.
    pub fn del_set(&mut self, family: Family, table: &str, name: &str) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_DELSET,
            0,
            family,
            false,
            |w| {
                w.put_str(NFTA_SET_TABLE, table);
                w.put_str(NFTA_SET_NAME, name);
            },
            || format!("set {name}"),
        )
    }

    fn push_set_elems(
        &mut self,
        msg: u16,
        family: Family,
        table: &str,
        set: super::SetRef<'_>,
        elems: &[super::SetElem],
    ) -> Result<std::ops::Range<OpIndex>, Error> {
        let what = move || match set {
            super::SetRef::Name(n) => format!("elements of set {n}"),
            super::SetRef::Id(id) => format!("elements of set id {id}"),
        };
        let encoded =
            super::set::EncodedElems::new(elems, msg == NFT_MSG_DELSETELEM).map_err(enc(what))?;
        let first = self.len();
        for i in 0..encoded.groups.len() {
            self.push(
                msg,
                if msg == NFT_MSG_NEWSETELEM {
                    NLM_F_CREATE
                } else {
                    0
                },
                family,
                false,
                |w| {
                    w.put_str(NFTA_SET_ELEM_LIST_TABLE, table);
                    set.encode(w);
                    encoded.write_group(w, i);
                },
                what,
            )?;
        }
        Ok(first..self.len())
    }

    /// Adds elements to a set (by name, or by the id of a set created earlier in the
    /// batch). Elements that exist already are left as they are (`NLM_F_CREATE`). The list
    /// is split over as many messages as needed for each element nest to stay under 64 KiB;
    /// the range of their operation indexes is returned (empty for no element).
    pub fn add_set_elems<'a>(
        &mut self,
        family: Family,
        table: &str,
        set: impl Into<super::SetRef<'a>>,
        elems: &[super::SetElem],
    ) -> Result<std::ops::Range<OpIndex>, Error> {
        self.push_set_elems(NFT_MSG_NEWSETELEM, family, table, set.into(), elems)
    }

    /// Deletes elements of a set, identified by their keys (and key ends and interval-end
    /// flags); data, timeouts and expressions are not sent. Split like
    /// [`add_set_elems`](Self::add_set_elems); an empty list sends nothing (use
    /// [`flush_set`](Self::flush_set) to remove every element).
    pub fn del_set_elems<'a>(
        &mut self,
        family: Family,
        table: &str,
        set: impl Into<super::SetRef<'a>>,
        elems: &[super::SetElem],
    ) -> Result<std::ops::Range<OpIndex>, Error> {
        self.push_set_elems(NFT_MSG_DELSETELEM, family, table, set.into(), elems)
    }

    /// Deletes every element of a set.
    pub fn flush_set(&mut self, family: Family, table: &str, set: &str) -> Result<OpIndex, Error> {
        self.push(
            NFT_MSG_DELSETELEM,
            0,
            family,
            false,
            |w| {
                w.put_str(NFTA_SET_ELEM_LIST_TABLE, table);
                w.put_str(NFTA_SET_ELEM_LIST_SET, set);
            },
            || format!("elements of set {set}"),
        )
    }
}
