//! The parsed form of one iptables rule.

use super::addr::AddrMask;
use super::ext::Extension;

/// An address test (`-s`/`-d`), possibly inverted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddrMatch {
    /// Address and mask.
    pub addr: AddrMask,
    /// `!` was given.
    pub inv: bool,
}

/// An interface test (`-i`/`-o`), possibly inverted; a name ending in `+` is a prefix.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IfaceMatch {
    /// The name as given (`eth0`, `veth+`).
    pub name: String,
    /// `!` was given.
    pub inv: bool,
}

/// A protocol test (`-p`), possibly inverted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProtoMatch {
    /// Protocol number (0 = all).
    pub num: u8,
    /// `!` was given.
    pub inv: bool,
}

/// What a rule does when it matches.
#[derive(Debug, Clone)]
pub enum RuleTarget {
    /// `-j ACCEPT`.
    Accept,
    /// `-j DROP`.
    Drop,
    /// `-j RETURN`.
    Return,
    /// `-j QUEUE`.
    Queue,
    /// `-j CHAIN`: jump to a user chain.
    Jump(String),
    /// `-g CHAIN`: go to a user chain.
    Goto(String),
    /// `-j EXTENSION …`.
    Ext(Box<dyn Extension>),
}

impl PartialEq for RuleTarget {
    fn eq(&self, other: &Self) -> bool {
        use RuleTarget::*;
        match (self, other) {
            (Accept, Accept) | (Drop, Drop) | (Return, Return) | (Queue, Queue) => true,
            (Jump(a), Jump(b)) | (Goto(a), Goto(b)) => a == b,
            (Ext(a), Ext(b)) => a.eq_dyn(b.as_ref()),
            _ => false,
        }
    }
}

/// One iptables rule: the fields of `ipt_entry` plus its matches and target.
///
/// ```
/// use iptnl::ipt::{parse_rule, IpFamily};
/// let rules = parse_rule(IpFamily::V4, &["-s", "10.0.0.0/8", "-p", "tcp", "--dport", "80", "-j", "ACCEPT"]).unwrap();
/// assert_eq!(rules.len(), 1);
/// assert_eq!(rules[0].to_save_args(), "-s 10.0.0.0/8 -p tcp -m tcp --dport 80 -j ACCEPT");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleSpec {
    /// The family (addresses and some extensions differ).
    pub family: super::IpFamily,
    /// `-s`.
    pub src: Option<AddrMatch>,
    /// `-d`.
    pub dst: Option<AddrMatch>,
    /// `-i`.
    pub in_iface: Option<IfaceMatch>,
    /// `-o`.
    pub out_iface: Option<IfaceMatch>,
    /// `-p`.
    pub proto: Option<ProtoMatch>,
    /// `-f` (`Some(true)`), `! -f` (`Some(false)`); IPv4 only.
    pub frag: Option<bool>,
    /// `-m` matches, in command-line order.
    pub matches: Vec<Box<dyn Extension>>,
    /// `-j`/`-g`, if any.
    pub target: Option<RuleTarget>,
    /// `-c packets bytes`.
    pub counters: Option<(u64, u64)>,
    /// A rule without an iptables form, carried whole (`-m nft --nft-rule HEX`, see
    /// [`super::raw`]); every other field is then empty but `counters`.
    pub raw: Option<Box<super::raw::RawRule>>,
    /// For a rule carried whole that iptables 1.8.11 nevertheless shows as an iptables rule
    /// (one `nft` wrote natively: `tcp dport 67-69` without a counter, `meta iif "lo"`…):
    /// that form. `-S` and a save print it in place of `-m nft --nft-rule` (a save keeps the
    /// rule's bytes on the comment line before it, see [`super::savefile::NATIVE_NOTE`]);
    /// writing the spec still writes `raw`.
    pub view: Option<Box<RuleSpec>>,
}

impl Clone for Box<dyn Extension> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl PartialEq for Box<dyn Extension> {
    fn eq(&self, other: &Self) -> bool {
        self.eq_dyn(other.as_ref())
    }
}

impl RuleSpec {
    /// The user chain the rule jumps or goes to (`-j CHAIN`, `-g CHAIN`), also for a rule
    /// carried whole whose last expression is such a verdict.
    ///
    /// ```
    /// use iptnl::ipt::{parse_rule, IpFamily};
    /// let r = &parse_rule(IpFamily::V4, &["-g", "KUBE-SVC-X"]).unwrap()[0];
    /// assert_eq!(r.jump_target(), Some("KUBE-SVC-X"));
    /// ```
    pub fn jump_target(&self) -> Option<&str> {
        use crate::nft::Verdict;
        match (&self.target, &self.raw) {
            (Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)), _) => Some(c),
            (_, Some(raw)) => match raw.verdict() {
                Some(Verdict::Jump(c) | Verdict::Goto(c)) => Some(c),
                _ => None,
            },
            _ => None,
        }
    }

    /// The target column of `iptables -L`: the target's or chain's name (`-j NOTRACK` as the
    /// kernel's `CT`), for a rule carried whole its verdict's name, empty for none.
    ///
    /// ```
    /// use iptnl::ipt::{parse_rule, IpFamily};
    /// let r = &parse_rule(IpFamily::V4, &["-j", "NOTRACK"]).unwrap()[0];
    /// assert_eq!(r.target_column(), "CT");
    /// ```
    pub fn target_column(&self) -> String {
        use crate::nft::Verdict;
        if let Some(v) = &self.view {
            return v.target_column();
        }
        if let Some(raw) = &self.raw {
            return match raw.verdict() {
                Some(Verdict::Accept) => "ACCEPT".into(),
                Some(Verdict::Drop) => "DROP".into(),
                Some(Verdict::Return) => "RETURN".into(),
                Some(Verdict::Queue) => "QUEUE".into(),
                Some(Verdict::Jump(c) | Verdict::Goto(c)) => c.clone(),
                _ => String::new(),
            };
        }
        match &self.target {
            None => String::new(),
            Some(RuleTarget::Accept) => "ACCEPT".into(),
            Some(RuleTarget::Drop) => "DROP".into(),
            Some(RuleTarget::Return) => "RETURN".into(),
            Some(RuleTarget::Queue) => "QUEUE".into(),
            Some(RuleTarget::Jump(c)) | Some(RuleTarget::Goto(c)) => c.clone(),
            Some(RuleTarget::Ext(t)) if t.save_name() == "NOTRACK" => "CT".into(),
            Some(RuleTarget::Ext(t)) => t.save_name().to_owned(),
        }
    }

    /// Whether the rule goes to a chain (`-g`, or a rule carried whole ending in a goto):
    /// `iptables -L` marks it `[goto]`.
    pub fn is_goto(&self) -> bool {
        use crate::nft::Verdict;
        matches!(self.target, Some(RuleTarget::Goto(_)))
            || self
                .raw
                .as_ref()
                .is_some_and(|r| matches!(r.verdict(), Some(Verdict::Goto(_))))
    }
}
