//! The declaration: owned chains with their rules, hooks with their positions, each rule
//! parsed and encoded when declared.

use std::collections::BTreeMap;

use super::owner::Owner;
use crate::ipt::ext::comment::Comment;
use crate::ipt::tables::find_table;
use crate::ipt::{encode_rule_for, parse_rule_str_with, IpFamily, ReaderFloor, RuleSpec};
use crate::iptables::ipset::KernelSets;
use crate::iptables::Error;
use crate::iptables::Position;
use crate::nft::expr::Counter;
use crate::nft::{Expr, Rule};

/// What a rule is, for telling equal rules apart: its expressions as written (counter values
/// zeroed) and its user data.
pub(super) type Key = (Vec<Expr>, Option<Vec<u8>>);

pub(super) fn key_of(rule: &Rule) -> Key {
    let exprs = rule
        .exprs
        .iter()
        .map(|e| match e {
            Expr::Counter(_) => Expr::Counter(Counter::default()),
            e => e.input_form().unwrap_or_else(|| e.clone()),
        })
        .collect();
    (exprs, rule.userdata.clone())
}

/// A declared rule: its spec and the key of the rule it encodes to.
#[derive(Debug, Clone)]
pub(super) struct Declared {
    pub(super) spec: RuleSpec,
    pub(super) key: Key,
}

fn declare(
    family: IpFamily,
    floor: ReaderFloor,
    table: &str,
    chain: &str,
    spec: RuleSpec,
) -> Result<Declared, Error> {
    let rule = encode_rule_for(&spec, family, table, chain, &KernelSets, floor)
        .map_err(|e| Error::Invalid(format!("{table} {chain}: `{}': {e}", spec.to_save_args())))?;
    Ok(Declared {
        key: key_of(&rule),
        spec,
    })
}

#[derive(Debug, Clone)]
pub(super) struct OwnedChain {
    pub(super) name: String,
    pub(super) rules: Vec<Declared>,
}

#[derive(Debug, Clone)]
pub(super) struct Hook {
    pub(super) chain: String,
    pub(super) at: Position,
    pub(super) rule: Declared,
}

#[derive(Debug, Clone, Default)]
pub(super) struct TableDecl {
    pub(super) chains: Vec<OwnedChain>,
    pub(super) hooks: Vec<Hook>,
}

/// The state an agent wants: per table, the chains it owns with their rules in order, and
/// its hook rules with their positions. Rules are parsed and encoded when declared, so that
/// a wrong rule is refused here, and a sync compares bytes only.
///
/// ```no_run
/// use iptnl::ipt::IpFamily;
/// use iptnl::sync::{Desired, Owner};
/// use iptnl::Position;
/// let mut d = Desired::new(IpFamily::V4, Owner::new("AGENT-", "agent")?);
/// d.chain("filter", "AGENT-IN", &["-p tcp --dport 22 -j ACCEPT"])?
///     .hook("filter", "INPUT", Position::First, "-j AGENT-IN")?;
/// assert_eq!(d.rule_count(), 2);
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Desired {
    pub(super) family: IpFamily,
    pub(super) owner: Owner,
    pub(super) tables: BTreeMap<String, TableDecl>,
    /// The reader floor the rules are encoded at.
    pub(super) floor: ReaderFloor,
}

/// Whether a sync of `owner`'s declaration `decl` for `table` looks at `chain`: an owned
/// chain, a built-in chain (hooks may stand there) or a chain that a declared hook names.
pub(super) fn chain_watched(
    owner: &Owner,
    table: &str,
    decl: Option<&TableDecl>,
    chain: &str,
) -> bool {
    owner.owns_chain(chain)
        || find_table(table).is_some_and(|t| t.builtin(chain).is_some())
        || decl.is_some_and(|d| d.hooks.iter().any(|h| h.chain == chain))
}

pub(super) fn table_checked(table: &str) -> Result<(), Error> {
    if find_table(table).is_none() {
        return Err(Error::Invalid(format!(
            "table `{table}' does not exist (iptables tables are filter, nat, mangle, raw and security)"
        )));
    }
    Ok(())
}

impl Desired {
    /// Nothing owned yet (a sync of it removes every owned chain and hook of the tables
    /// it names: none).
    ///
    /// ```
    /// use iptnl::sync::{Desired, Owner};
    /// let d = Desired::new(iptnl::ipt::IpFamily::V6, Owner::new("X-", "x").unwrap());
    /// assert_eq!(d.rule_count(), 0);
    /// ```
    pub fn new(family: IpFamily, owner: Owner) -> Desired {
        Desired {
            family,
            owner,
            tables: BTreeMap::new(),
            floor: ReaderFloor::UNPINNED,
        }
    }

    /// Encodes the rules at reader floor `floor` (see
    /// [`IpTables::set_reader_floor`](crate::iptables::IpTables::set_reader_floor)): a sync
    /// writes at its handle's floor, and encodes a declaration made at another floor again
    /// each time, so declare at the handle's floor (rules declared before and after this
    /// call alike).
    ///
    /// ```
    /// use iptnl::ipt::ReaderFloor;
    /// use iptnl::sync::{Desired, Owner};
    /// let mut d = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("X-", "x").unwrap());
    /// d.set_reader_floor(ReaderFloor::V1_8_7).unwrap();
    /// assert_eq!(d.reader_floor(), ReaderFloor::V1_8_7);
    /// ```
    pub fn set_reader_floor(&mut self, floor: ReaderFloor) -> Result<&mut Self, Error> {
        if floor != self.floor {
            *self = self.at_floor(floor)?;
        }
        Ok(self)
    }

    /// The reader floor the rules are encoded at (1.8.9's forms until
    /// [`set_reader_floor`](Self::set_reader_floor)).
    pub fn reader_floor(&self) -> ReaderFloor {
        self.floor
    }

    /// The same declaration with its rules encoded at `floor`.
    pub(super) fn at_floor(&self, floor: ReaderFloor) -> Result<Desired, Error> {
        let mut d = self.clone();
        d.floor = floor;
        let family = self.family;
        for (table, t) in &mut d.tables {
            for c in &mut t.chains {
                for r in &mut c.rules {
                    *r = declare(family, floor, table, &c.name, r.spec.clone())?;
                }
            }
            for h in &mut t.hooks {
                h.rule = declare(family, floor, table, &h.chain, h.rule.spec.clone())?;
            }
        }
        Ok(d)
    }

    /// The family.
    ///
    /// ```
    /// use iptnl::sync::{Desired, Owner};
    /// let d = Desired::new(iptnl::ipt::IpFamily::V6, Owner::new("X-", "x").unwrap());
    /// assert_eq!(d.family(), iptnl::ipt::IpFamily::V6);
    /// ```
    pub fn family(&self) -> IpFamily {
        self.family
    }

    /// The owner.
    ///
    /// ```
    /// use iptnl::sync::{Desired, Owner};
    /// let d = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("X-", "x").unwrap());
    /// assert_eq!(d.owner().prefix(), "X-");
    /// ```
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// The tables named so far (by [`chain`](Self::chain), [`hook`](Self::hook) or
    /// [`table`](Self::table)).
    ///
    /// ```
    /// use iptnl::sync::{Desired, Owner};
    /// let mut d = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("X-", "x").unwrap());
    /// d.table("mangle").unwrap();
    /// assert_eq!(d.tables().collect::<Vec<_>>(), ["mangle"]);
    /// ```
    pub fn tables(&self) -> impl Iterator<Item = &str> {
        self.tables.keys().map(String::as_str)
    }

    /// Whether a change to `chain` of `table` matters to this declaration (see
    /// [`chain_watched`]); nothing outside its tables does.
    pub(super) fn watches(&self, table: &str, chain: &str) -> bool {
        self.tables
            .get(table)
            .is_some_and(|d| chain_watched(&self.owner, table, Some(d), chain))
    }

    /// The number of rules declared (owned chains' rules and hooks).
    ///
    /// ```
    /// use iptnl::sync::{Desired, Owner};
    /// let d = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("X-", "x").unwrap());
    /// assert_eq!(d.rule_count(), 0);
    /// ```
    pub fn rule_count(&self) -> usize {
        self.tables
            .values()
            .map(|t| t.hooks.len() + t.chains.iter().map(|c| c.rules.len()).sum::<usize>())
            .sum()
    }

    /// Names `table` as managed without declaring anything in it: a sync then removes what
    /// is owned there.
    pub fn table(&mut self, table: &str) -> Result<&mut Self, Error> {
        table_checked(table)?;
        self.tables.entry(table.to_owned()).or_default();
        Ok(self)
    }

    /// Declares owned chain `name` of `table` with `rules` in order (each an iptables rule
    /// spec, as after `-A CHAIN`; one that expands, such as `-s a,b`, gives its rules in
    /// order). Declaring a chain again replaces its rules. The name must start with the
    /// owner's prefix.
    pub fn chain<S: AsRef<str>>(
        &mut self,
        table: &str,
        name: &str,
        rules: &[S],
    ) -> Result<&mut Self, Error> {
        let mut specs = Vec::with_capacity(rules.len());
        for r in rules {
            let parsed = parse_rule_str_with(self.family, r.as_ref(), &KernelSets)
                .map_err(|e| declared(table, name, r.as_ref(), e))?;
            specs.extend(parsed);
        }
        self.chain_specs(table, name, specs)
    }

    /// [`chain`](Self::chain) with rules already parsed.
    pub fn chain_specs(
        &mut self,
        table: &str,
        name: &str,
        rules: Vec<RuleSpec>,
    ) -> Result<&mut Self, Error> {
        table_checked(table)?;
        if !self.owner.owns_chain(name) {
            return Err(Error::Invalid(format!(
                "chain `{name}' is not owned: owned chains start with `{}'",
                self.owner.prefix()
            )));
        }
        crate::ipt::command::check_chain_name(name, self.family).map_err(Error::InvalidSpec)?;
        let rules = rules
            .into_iter()
            .map(|s| declare(self.family, self.floor, table, name, s))
            .collect::<Result<Vec<_>, _>>()?;
        let t = self.tables.entry(table.to_owned()).or_default();
        match t.chains.iter_mut().find(|c| c.name == name) {
            Some(c) => c.rules = rules,
            None => t.chains.push(OwnedChain {
                name: name.to_owned(),
                rules,
            }),
        }
        Ok(self)
    }

    /// Declares a hook rule: `rule` (as after `-A CHAIN`, usually `-j OWNED-CHAIN`) in
    /// `chain` of `table` (a built-in chain or a chain of others) at `at`, a [`Position`]
    /// among the rules of others (a number is the rule number among them). It is written
    /// with the owner's comment `MARKER:HASH` after its matches. Hooks of one chain keep the
    /// order they are declared in.
    ///
    /// ```
    /// use iptnl::sync::{Desired, Owner};
    /// use iptnl::{IpFamily, Position};
    /// let mut d = Desired::new(IpFamily::V4, Owner::new("AGENT-", "agent")?);
    /// d.chain("filter", "AGENT-IN", &["-j RETURN"])?;
    /// d.hook("filter", "INPUT", Position::Before("kube".into()), "-j AGENT-IN")?;
    /// d.hook("filter", "FORWARD", 2, "-j AGENT-IN")?;
    /// assert!(d.hook("filter", "OUTPUT", 0, "-j AGENT-IN").is_err());
    /// # Ok::<(), iptnl::Error>(())
    /// ```
    pub fn hook(
        &mut self,
        table: &str,
        chain: &str,
        at: impl Into<Position>,
        rule: &str,
    ) -> Result<&mut Self, Error> {
        let at = at.into();
        table_checked(table)?;
        if at == Position::Number(0) {
            return Err(Error::Invalid(format!(
                "{table} {chain}: `{rule}': rule numbers start at 1"
            )));
        }
        if self.owner.owns_chain(chain) {
            return Err(Error::Invalid(format!(
                "a hook goes into a chain of others; `{chain}' is owned"
            )));
        }
        let mut specs = parse_rule_str_with(self.family, rule, &KernelSets)
            .map_err(|e| declared(table, chain, rule, e))?;
        if specs.len() != 1 {
            return Err(Error::Invalid(format!(
                "{table} {chain}: `{rule}': a hook is one rule (it expands to {})",
                specs.len()
            )));
        }
        let mut spec = specs.remove(0);
        let text = format!("{} {chain} {}", table, spec.to_save_args());
        let mark = format!(
            "{}:{:08x}",
            self.owner.marker(),
            fnv1a(text.as_bytes()) as u32
        );
        // The marker goes after the rule's own matches, before its target.
        spec.matches.push(Box::new(Comment::new(&mark)));
        let rule = declare(self.family, self.floor, table, chain, spec)?;
        self.tables
            .entry(table.to_owned())
            .or_default()
            .hooks
            .push(Hook {
                chain: chain.to_owned(),
                at,
                rule,
            });
        Ok(self)
    }
}

fn fnv1a(b: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A declared rule that does not parse: [`Error::InvalidSpec`], with where it was declared.
fn declared(table: &str, chain: &str, rule: &str, e: crate::ipt::ParseError) -> Error {
    Error::InDeclaration {
        table: table.to_owned(),
        chain: chain.to_owned(),
        rule: rule.to_owned(),
        source: Box::new(Error::InvalidSpec(e)),
    }
}
