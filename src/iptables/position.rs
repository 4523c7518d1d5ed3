//! Where a rule goes in its chain: one type for [`IpTables::insert`], transactions and the
//! hooks of owned chains ([`Desired::hook`](crate::sync::Desired::hook)).

use std::sync::Arc;

use super::plan::At;
use super::{check_rulenum, Error};

#[cfg(doc)]
use super::IpTables;

/// Where a rule goes in its chain.
///
/// [`IpTables::insert`] and [`Transaction::insert`](super::Transaction::insert) take a
/// `Position` or a 1-based rule number (`1` is [`Position::Number(1)`](Position::Number), as
/// in `iptables -I CHAIN 1`). A hook of owned chains
/// ([`Desired::hook`](crate::sync::Desired::hook)) takes one too: there it is counted among
/// the rules of others only (the owner's own hooks keep their declared order).
///
/// A comment anchor ([`Before`](Position::Before), [`After`](Position::After)) is looked up
/// when the operation is planned, in the generation it commits to: the rule goes next to the
/// first rule whose comment starts with the text, or at the end of the chain while there is
/// none.
///
/// ```no_run
/// use iptnl::{IpFamily, IpTables, Position};
/// let ipt = IpTables::new(IpFamily::V4)?;
/// ipt.insert("filter", "INPUT", 1, "-i lo -j ACCEPT")?;
/// ipt.insert("filter", "INPUT", Position::Last, "-j LOG")?;
/// ipt.insert(
///     "nat",
///     "PREROUTING",
///     Position::Before("kubernetes service portals".into()),
///     "-p tcp --dport 53 -j ACCEPT",
/// )?;
/// # Ok::<(), iptnl::Error>(())
/// ```
///
/// ```
/// use iptnl::Position;
/// assert_eq!(Position::from(1), Position::Number(1));
/// assert_ne!(Position::Before("kube".into()), Position::First);
/// assert_eq!(Position::After("kube".into()).to_string(), "after the rule commented `kube…'");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Position {
    /// At the top of the chain (`-I CHAIN`); hooks declared `First` keep their declared
    /// order.
    First,
    /// At the end of the chain (`-A CHAIN`).
    Last,
    /// At this 1-based rule number (`-I CHAIN N`): the rule that was number `N` and those
    /// after it move down; one past the last rule appends, further is refused
    /// (`Index of insertion too big`). Among the rules of others for a hook, where a number
    /// past their end is the end. `0` is refused.
    Number(u32),
    /// Just before the first rule whose comment starts with this text (the end while there
    /// is none).
    Before(String),
    /// Just after the first rule whose comment starts with this text (the end while there is
    /// none).
    After(String),
}

impl From<u32> for Position {
    /// A 1-based rule number, as `-I CHAIN N` takes it.
    ///
    /// ```
    /// assert_eq!(iptnl::Position::from(3), iptnl::Position::Number(3));
    /// ```
    fn from(n: u32) -> Position {
        Position::Number(n)
    }
}

impl std::fmt::Display for Position {
    /// In words: `first`, `last`, `number 3`, `before the rule commented `text…'`.
    ///
    /// ```
    /// assert_eq!(iptnl::Position::Number(3).to_string(), "number 3");
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::First => f.write_str("first"),
            Position::Last => f.write_str("last"),
            Position::Number(n) => write!(f, "number {n}"),
            Position::Before(t) => write!(f, "before the rule commented `{t}…'"),
            Position::After(t) => write!(f, "after the rule commented `{t}…'"),
        }
    }
}

impl Position {
    /// The planner's place for a rule at this position (`Number(0)` is refused).
    pub(crate) fn at(&self) -> Result<At, Error> {
        Ok(match self {
            Position::First => At::Insert(1),
            Position::Last => At::Append,
            Position::Number(n) => {
                check_rulenum(*n)?;
                At::Insert(*n)
            }
            Position::Before(t) => At::Anchor {
                comment: Arc::from(t.as_str()),
                after: false,
            },
            Position::After(t) => At::Anchor {
                comment: Arc::from(t.as_str()),
                after: true,
            },
        })
    }
}
