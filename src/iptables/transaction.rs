//! Several write operations committed as one batch.

use super::plan::{At, DelMode, Op};
use super::{Error, IpTables, OpResult, Position, RuleArgs};
use crate::nft::Policy;

/// Write operations collected and committed as ONE atomic batch by
/// [`commit`](Transaction::commit): all apply or none. Operations that depend on chain
/// contents see the effect of the operations before them in the same transaction; when the
/// ruleset changes under the reads, the whole transaction is planned again.
///
/// Builder methods record the operation (a spec that does not parse is reported by
/// `commit`); results come back in the order the operations were added.
///
/// The builder methods chain, so a transaction fits in one expression:
///
/// ```no_run
/// use iptnl::{IpFamily, IpTables};
/// let ipt = IpTables::new(IpFamily::V4)?;
/// ipt.transaction()
///     .append("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT")
///     .delete("filter", "INPUT", "-p tcp --dport 23 -j ACCEPT")
///     .commit()?;
/// # Ok::<(), iptnl::Error>(())
/// ```
///
/// or be filled step by step:
///
/// ```no_run
/// use iptnl::iptables::{IpTables, OpResult};
/// let ipt = IpTables::new(iptnl::ipt::IpFamily::V4)?;
/// let mut tx = ipt.transaction();
/// tx.clear_chain("nat", "CNI-DN-1")
///     .append("nat", "CNI-DN-1", "-p tcp --dport 8080 -j DNAT --to-destination 10.1.0.5:80")
///     .append_unique("nat", "CNI-HOSTPORT-DNAT", "-p tcp --dport 8080 -j CNI-DN-1");
/// let results: Vec<OpResult> = tx.commit()?;
/// println!("{:?}", results[1].handle());
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug)]
pub struct Transaction<'a> {
    ipt: &'a IpTables,
    ops: Vec<Op<'static>>,
    error: Option<Error>,
}

impl<'a> Transaction<'a> {
    pub(crate) fn new(ipt: &'a IpTables) -> Transaction<'a> {
        Transaction {
            ipt,
            ops: Vec::new(),
            error: None,
        }
    }

    /// Number of operations recorded.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// assert_eq!(tx.len(), 0);
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether no operation was recorded.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// assert!(tx.is_empty());
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    fn rule_op(
        &mut self,
        spec: impl RuleArgs,
        make: impl FnOnce(Vec<crate::ipt::RuleSpec>) -> Op<'static>,
    ) -> &mut Self {
        match spec.parse_rules(self.ipt.family) {
            Ok(specs) => self.ops.push(make(specs)),
            Err(e) => {
                self.error.get_or_insert(Error::InvalidSpec(e));
            }
        }
        self
    }

    /// Queues adding the rules of `spec` to `chain` at `at`.
    fn add_op(
        &mut self,
        table: &str,
        chain: &str,
        spec: impl RuleArgs,
        at: At,
        unique: bool,
    ) -> &mut Self {
        self.rule_op(spec, |specs| Op::Add {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            at,
            unique,
        })
    }

    /// Queues inserting the rules of `spec` into `chain` at `pos`.
    fn insert_op(
        &mut self,
        table: &str,
        chain: &str,
        pos: Position,
        spec: impl RuleArgs,
        unique: bool,
    ) -> &mut Self {
        match pos.at() {
            Ok(at) => self.add_op(table, chain, spec, at, unique),
            Err(e) => {
                self.error.get_or_insert(e);
                self
            }
        }
    }

    /// Queues deleting the rules of `spec` from `chain` as `mode` says.
    fn delete_op(
        &mut self,
        table: &str,
        chain: &str,
        spec: impl RuleArgs,
        mode: DelMode,
    ) -> &mut Self {
        self.rule_op(spec, |specs| Op::Delete {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            mode,
        })
    }

    fn pos_ok(&mut self, n: u32) -> bool {
        if n == 0 {
            self.error
                .get_or_insert(Error::Invalid("rule numbers start at 1".into()));
        }
        n > 0
    }

    /// Appends a rule ([`IpTables::append`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.append("filter", "INPUT", &["-j", "ACCEPT"]);
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn append(&mut self, table: &str, chain: &str, spec: impl RuleArgs) -> &mut Self {
        self.add_op(table, chain, spec, At::Append, false)
    }

    /// Appends a rule unless present ([`IpTables::append_unique`]); its result is
    /// [`OpResult::AlreadyPresent`] when it was.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.append_unique("filter", "INPUT", "-i lo -j ACCEPT");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn append_unique(&mut self, table: &str, chain: &str, spec: impl RuleArgs) -> &mut Self {
        self.add_op(table, chain, spec, At::Append, true)
    }

    /// Inserts a rule at `pos`, a rule number or a [`Position`] ([`IpTables::insert`]); a
    /// comment anchor sees the rules the transaction added before it.
    ///
    /// ```no_run
    /// use iptnl::{IpFamily, IpTables, Position};
    /// let ipt = IpTables::new(IpFamily::V4)?;
    /// ipt.transaction()
    ///     .insert("filter", "INPUT", 1, "-i lo -m comment --comment loopback -j ACCEPT")
    ///     .insert("filter", "INPUT", Position::After("loopback".into()), "-p icmp -j ACCEPT")
    ///     .commit()?;
    /// # Ok::<(), iptnl::Error>(())
    /// ```
    pub fn insert(
        &mut self,
        table: &str,
        chain: &str,
        pos: impl Into<Position>,
        spec: impl RuleArgs,
    ) -> &mut Self {
        self.insert_op(table, chain, pos.into(), spec, false)
    }

    /// Inserts a rule at `pos` unless present ([`IpTables::insert_unique`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.insert_unique("filter", "INPUT", 1, "-i lo -j ACCEPT");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn insert_unique(
        &mut self,
        table: &str,
        chain: &str,
        pos: impl Into<Position>,
        spec: impl RuleArgs,
    ) -> &mut Self {
        self.insert_op(table, chain, pos.into(), spec, true)
    }

    /// Replaces rule number `pos` ([`IpTables::replace`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.replace("filter", "INPUT", 1, "-j DROP");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn replace(
        &mut self,
        table: &str,
        chain: &str,
        pos: u32,
        spec: impl RuleArgs,
    ) -> &mut Self {
        if !self.pos_ok(pos) {
            return self;
        }
        self.rule_op(spec, |specs| Op::Replace {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            pos,
            specs: specs.into(),
        })
    }

    /// Deletes the first rule equal to the spec; none fails the transaction
    /// ([`IpTables::delete`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.delete("filter", "INPUT", "-j DROP");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete(&mut self, table: &str, chain: &str, spec: impl RuleArgs) -> &mut Self {
        self.delete_op(table, chain, spec, DelMode::First)
    }

    /// Deletes the first rule equal to the spec if there is one.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.delete_if_exists("filter", "INPUT", "-j DROP");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_if_exists(&mut self, table: &str, chain: &str, spec: impl RuleArgs) -> &mut Self {
        self.delete_op(table, chain, spec, DelMode::IfExists)
    }

    /// Deletes every rule equal to the spec.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.delete_all("filter", "INPUT", "-j DROP");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_all(&mut self, table: &str, chain: &str, spec: impl RuleArgs) -> &mut Self {
        self.delete_op(table, chain, spec, DelMode::All)
    }

    /// Deletes rule number `n` (numbered as the chain is at this point of the transaction).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.delete_by_number("filter", "INPUT", 1);
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_by_number(&mut self, table: &str, chain: &str, n: u32) -> &mut Self {
        if self.pos_ok(n) {
            self.ops.push(Op::DeleteNumber {
                table: table.to_owned().into(),
                chain: chain.to_owned().into(),
                n,
            });
        }
        self
    }

    /// Creates a user chain ([`IpTables::new_chain`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.new_chain("filter", "MYCHAIN");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn new_chain(&mut self, table: &str, chain: &str) -> &mut Self {
        self.ops.push(Op::new_chain(table, chain));
        self
    }

    /// Empties a chain, creating a missing user chain ([`IpTables::clear_chain`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.clear_chain("filter", "MYCHAIN");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn clear_chain(&mut self, table: &str, chain: &str) -> &mut Self {
        self.ops.push(Op::clear_chain(table, chain));
        self
    }

    /// Deletes an empty, unreferenced user chain ([`IpTables::delete_chain`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.delete_chain("filter", "MYCHAIN");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_chain(&mut self, table: &str, chain: &str) -> &mut Self {
        self.ops.push(Op::delete_chain(table, chain, false));
        self
    }

    /// Flushes and deletes a user chain if it exists ([`IpTables::clear_and_delete_chain`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.clear_and_delete_chain("filter", "MYCHAIN");
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn clear_and_delete_chain(&mut self, table: &str, chain: &str) -> &mut Self {
        self.ops.push(Op::delete_chain(table, chain, true));
        self
    }

    /// Sets the policy of a built-in chain ([`IpTables::set_policy`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.set_policy("filter", "FORWARD", iptnl::nft::Policy::Drop);
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_policy(&mut self, table: &str, chain: &str, policy: Policy) -> &mut Self {
        self.ops.push(Op::set_policy(table, chain, policy));
        self
    }

    /// Zeroes counters ([`IpTables::zero`]).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.zero("filter", "INPUT", None);
    /// tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn zero(&mut self, table: &str, chain: &str, rule: Option<u32>) -> &mut Self {
        if rule.is_none_or(|n| self.pos_ok(n)) {
            self.ops.push(Op::zero(table, chain, rule));
        }
        self
    }

    /// Commits every operation as one batch; one result per operation, in order. On any
    /// error nothing was applied. The transaction is empty afterwards (and may be filled
    /// and committed again); taking `&mut self` lets a chain of builder calls end in
    /// `.commit()`.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.append("filter", "INPUT", "-j ACCEPT");
    /// let results = tx.commit()?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn commit(&mut self) -> Result<Vec<OpResult>, Error> {
        let ops = std::mem::take(&mut self.ops);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if ops.is_empty() {
            return Ok(Vec::new());
        }
        self.ipt.run(&ops)
    }
}
