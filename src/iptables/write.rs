//! The writing calls of [`IpTables`]: rules (append, insert, replace, delete, by spec or by
//! number), chains (new, clear, rename, delete), policies and counters, and transactions.

use super::*;

impl IpTables {
    /// Starts a transaction: write operations collected and committed as one batch.
    ///
    /// ```no_run
    /// use iptnl::iptables::IpTables;
    /// let ipt = IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let mut tx = ipt.transaction();
    /// tx.new_chain("filter", "WEB").append("filter", "WEB", &["-p", "tcp", "--dport", "80", "-j", "ACCEPT"]).append("filter", "INPUT", &["-j", "WEB"]);
    /// let results = tx.commit()?;
    /// println!("rule handle {:?}", results[1].handle());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn transaction(&self) -> Transaction<'_> {
        Transaction::new(self)
    }

    /// Appends the rule (`-A`). A built-in chain is created if needed; a missing user chain
    /// is [`Error::NotFound`].
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let r = ipt.append("filter", "INPUT", &["-s", "10.0.0.0/8", "-j", "ACCEPT"])?;
    /// println!("handle {:?}", r.handle());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn append(&self, table: &str, chain: &str, spec: impl RuleArgs) -> Result<OpResult, Error> {
        let specs = self.specs(&spec)?;
        self.run1(Op::Add {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            at: At::Append,
            unique: false,
        })
    }

    /// Same as [`append`](Self::append) with the spec as one string.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.append_str("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn append_str(&self, table: &str, chain: &str, spec: &str) -> Result<OpResult, Error> {
        self.append(table, chain, spec)
    }

    /// Appends the rule unless it is in the chain already; `Ok(true)` when it was added.
    /// The check and the append are one atomic step (the append is refused by the kernel
    /// and planned again if the chain changed in between).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// assert!(ipt.append_unique("filter", "INPUT", &["-j", "ACCEPT"])? || true);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn append_unique(
        &self,
        table: &str,
        chain: &str,
        spec: impl RuleArgs,
    ) -> Result<bool, Error> {
        let specs = self.specs(&spec)?;
        let r = self.run1(Op::Add {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            at: At::Append,
            unique: true,
        })?;
        Ok(r != OpResult::AlreadyPresent)
    }

    /// Inserts the rule at `pos`: a 1-based rule number (`-I chain pos`) or a [`Position`].
    /// Position 1 ([`Position::First`]) is a blind write; a later number reads the chain,
    /// and so does a comment anchor. One past the last rule appends; further is
    /// [`Error::NotFound`] (`Index of insertion too big`); `0` is [`Error::Invalid`]. A
    /// comment anchor is looked up in the generation the insert commits to: if the chain
    /// changes meanwhile, it is looked up again.
    ///
    /// ```no_run
    /// use iptnl::{IpFamily, IpTables, Position};
    /// let ipt = IpTables::new(IpFamily::V4)?;
    /// ipt.insert("filter", "INPUT", 1, &["-i", "lo", "-j", "ACCEPT"])?;
    /// ipt.insert("filter", "INPUT", Position::After("allow ssh".into()), "-p tcp --dport 80 -j ACCEPT")?;
    /// # Ok::<(), iptnl::Error>(())
    /// ```
    pub fn insert(
        &self,
        table: &str,
        chain: &str,
        pos: impl Into<Position>,
        spec: impl RuleArgs,
    ) -> Result<OpResult, Error> {
        let at = pos.into().at()?;
        let specs = self.specs(&spec)?;
        self.run1(Op::Add {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            at,
            unique: false,
        })
    }

    /// Inserts the rule at `pos` (as [`insert`](Self::insert)) unless it is in the chain
    /// already; `Ok(true)` when added.
    ///
    /// ```no_run
    /// let ipt = iptnl::IpTables::new(iptnl::IpFamily::V4)?;
    /// ipt.insert_unique("filter", "INPUT", 1, "-i lo -j ACCEPT")?;
    /// # Ok::<(), iptnl::Error>(())
    /// ```
    pub fn insert_unique(
        &self,
        table: &str,
        chain: &str,
        pos: impl Into<Position>,
        spec: impl RuleArgs,
    ) -> Result<bool, Error> {
        let at = pos.into().at()?;
        let specs = self.specs(&spec)?;
        let r = self.run1(Op::Add {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            at,
            unique: true,
        })?;
        Ok(r != OpResult::AlreadyPresent)
    }

    /// Replaces rule number `pos` (`-R`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.replace("filter", "INPUT", 1, &["-j", "DROP"])?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn replace(
        &self,
        table: &str,
        chain: &str,
        pos: u32,
        spec: impl RuleArgs,
    ) -> Result<OpResult, Error> {
        check_rulenum(pos)?;
        let specs = self.specs(&spec)?;
        self.run1(Op::Replace {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            pos,
            specs: specs.into(),
        })
    }

    /// Deletes the first rule equal to the spec (`-D chain rule`); none is
    /// [`Error::NotFound`].
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// match ipt.delete("filter", "INPUT", &["-j", "ACCEPT"]) {
    ///     Err(e) if e.is_not_found() => println!("was not there"),
    ///     r => r?,
    /// }
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete(&self, table: &str, chain: &str, spec: impl RuleArgs) -> Result<(), Error> {
        let specs = self.specs(&spec)?;
        self.run1(Op::Delete {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            mode: DelMode::First,
        })
        .map(|_| ())
    }

    /// Deletes the first rule equal to the spec if there is one (a missing chain too is
    /// fine); `Ok(true)` when a rule was deleted.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.delete_if_exists("filter", "INPUT", "-j ACCEPT")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_if_exists(
        &self,
        table: &str,
        chain: &str,
        spec: impl RuleArgs,
    ) -> Result<bool, Error> {
        let specs = self.specs(&spec)?;
        let r = self.run1(Op::Delete {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            mode: DelMode::IfExists,
        })?;
        Ok(r.changed())
    }

    /// Deletes every rule equal to the spec, in one batch; returns how many.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// let n = ipt.delete_all("filter", "INPUT", &["-j", "ACCEPT"])?;
    /// println!("{n} deleted");
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_all(
        &self,
        table: &str,
        chain: &str,
        spec: impl RuleArgs,
    ) -> Result<usize, Error> {
        let specs = self.specs(&spec)?;
        match self.run1(Op::Delete {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            specs: specs.into(),
            mode: DelMode::All,
        })? {
            OpResult::Deleted { count } => Ok(count),
            _ => Ok(0),
        }
    }

    /// Deletes rule number `n` (`-D chain n`, go-iptables' `DeleteById`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.delete_by_number("filter", "INPUT", 1)?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_by_number(&self, table: &str, chain: &str, n: u32) -> Result<(), Error> {
        check_rulenum(n)?;
        self.run1(Op::DeleteNumber {
            table: table.to_owned().into(),
            chain: chain.to_owned().into(),
            n,
        })
        .map(|_| ())
    }

    /// Creates a user chain (`-N`), and its table if needed; an existing chain is
    /// [`Error::AlreadyExists`].
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.new_chain("filter", "MYCHAIN")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn new_chain(&self, table: &str, chain: &str) -> Result<(), Error> {
        self.run1(Op::new_chain(table, chain)).map(|_| ())
    }

    /// Empties a chain (`-F chain`), creating it first when it is a missing user chain
    /// (go-iptables' `ClearChain`). One blind batch.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.clear_chain("nat", "CNI-HOSTPORT-DNAT")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn clear_chain(&self, table: &str, chain: &str) -> Result<(), Error> {
        self.run1(Op::clear_chain(table, chain)).map(|_| ())
    }

    /// Renames a user chain (`-E`); rules jumping to it follow.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.rename_chain("filter", "OLD", "NEW")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn rename_chain(&self, table: &str, old: &str, new: &str) -> Result<(), Error> {
        self.run1(Op::RenameChain {
            table: table.into(),
            chain: old.into(),
            new: new.into(),
        })
        .map(|_| ())
    }

    /// Deletes a chain (`-X chain`). It must be empty ([`Error::NotEmpty`]) and no rule
    /// may jump to it ([`Error::ChainInUse`]); a missing chain is [`Error::NotFound`]. A
    /// built-in chain is deleted as iptables-nft deletes it: only when its policy is ACCEPT
    /// ([`Error::BuiltinKept`] otherwise), so that no DROP policy is lost.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.delete_chain("filter", "MYCHAIN")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_chain(&self, table: &str, chain: &str) -> Result<(), Error> {
        self.run1(Op::delete_chain(table, chain, false)).map(|_| ())
    }

    /// Flushes and deletes a user chain in one batch; a missing chain is fine
    /// (go-iptables' `ClearAndDeleteChain`). A built-in chain is not flushed: it is deleted
    /// only as [`delete_chain`](Self::delete_chain) deletes one (empty, policy ACCEPT).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.clear_and_delete_chain("nat", "CNI-DN-1234")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn clear_and_delete_chain(&self, table: &str, chain: &str) -> Result<(), Error> {
        self.run1(Op::delete_chain(table, chain, true)).map(|_| ())
    }

    /// Empties every chain of the table (`-F`); a table that does not exist is fine.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.clear_all("filter")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn clear_all(&self, table: &str) -> Result<(), Error> {
        self.run1(Op::FlushTable {
            table: table.into(),
        })
        .map(|_| ())
    }

    /// Deletes every user chain of the table (`-X`) in one batch: all or none (a chain
    /// still jumped to, or not empty, refuses the whole batch). Built-in chains that are
    /// empty with policy ACCEPT go too, as with iptables-nft 1.8.11; the others stay.
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.clear_all("filter")?;
    /// ipt.delete_all_chains("filter")?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn delete_all_chains(&self, table: &str) -> Result<(), Error> {
        self.run1(Op::DeleteAllChains {
            table: table.into(),
        })
        .map(|_| ())
    }

    /// Sets the policy of a built-in chain (`-P`, go-iptables' `ChangePolicy`), creating the
    /// chain if needed.
    ///
    /// ```no_run
    /// use iptnl::nft::Policy;
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_policy("filter", "FORWARD", Policy::Drop)?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_policy(&self, table: &str, chain: &str, policy: Policy) -> Result<(), Error> {
        self.run1(Op::set_policy(table, chain, policy)).map(|_| ())
    }

    /// Zeroes the counters of a chain's rules (and of a built-in chain itself), or of rule
    /// number `rule` only (`-Z chain [n]`).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.zero("filter", "INPUT", None)?;
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn zero(&self, table: &str, chain: &str, rule: Option<u32>) -> Result<(), Error> {
        if let Some(n) = rule {
            check_rulenum(n)?;
        }
        self.run1(Op::zero(table, chain, rule)).map(|_| ())
    }
}
