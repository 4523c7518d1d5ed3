//! The tables and built-in chains of iptables, as iptables-nft creates them
//! (`nft.c: xtables_ipv4[]`, shared by IPv6): hooks, priorities, chain types.

use super::IpFamily;
use crate::nft::{Chain, ChainType, Hook, Policy};

/// A built-in chain of an iptables table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinChain {
    /// Its name (`INPUT` …).
    pub name: &'static str,
    /// Netfilter hook number.
    pub hook: u32,
    /// Priority.
    pub priority: i32,
    /// `filter`, `nat` or `route`.
    pub chain_type: &'static str,
}

/// An iptables table and its built-in chains, in the order iptables-nft-save prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IptTable {
    /// Its name.
    pub name: &'static str,
    /// Its built-in chains.
    pub chains: &'static [BuiltinChain],
}

const fn bc(
    name: &'static str,
    hook: u32,
    priority: i32,
    chain_type: &'static str,
) -> BuiltinChain {
    BuiltinChain {
        name,
        hook,
        priority,
        chain_type,
    }
}

/// The iptables tables, in the order iptables-nft-save prints them.
///
/// ```
/// use iptnl::ipt::tables::{find_table, TABLES};
/// assert_eq!(TABLES.iter().map(|t| t.name).collect::<Vec<_>>(), ["mangle", "security", "raw", "filter", "nat"]);
/// assert_eq!(find_table("nat").unwrap().chains[0].priority, -100);
/// ```
pub const TABLES: &[IptTable] = &[
    IptTable {
        name: "mangle",
        chains: &[
            bc("PREROUTING", 0, -150, "filter"),
            bc("INPUT", 1, -150, "filter"),
            bc("FORWARD", 2, -150, "filter"),
            bc("OUTPUT", 3, -150, "route"),
            bc("POSTROUTING", 4, -150, "filter"),
        ],
    },
    IptTable {
        name: "security",
        chains: &[
            bc("INPUT", 1, 150, "filter"),
            bc("FORWARD", 2, 150, "filter"),
            bc("OUTPUT", 3, 150, "filter"),
        ],
    },
    IptTable {
        name: "raw",
        chains: &[
            bc("PREROUTING", 0, -300, "filter"),
            bc("OUTPUT", 3, -300, "filter"),
        ],
    },
    IptTable {
        name: "filter",
        chains: &[
            bc("INPUT", 1, 0, "filter"),
            bc("FORWARD", 2, 0, "filter"),
            bc("OUTPUT", 3, 0, "filter"),
        ],
    },
    IptTable {
        name: "nat",
        chains: &[
            bc("PREROUTING", 0, -100, "nat"),
            bc("INPUT", 1, 100, "nat"),
            bc("OUTPUT", 3, -100, "nat"),
            bc("POSTROUTING", 4, 100, "nat"),
        ],
    },
];

/// The iptables table of that name.
pub fn find_table(name: &str) -> Option<&'static IptTable> {
    TABLES.iter().find(|t| t.name == name)
}

impl IptTable {
    /// The built-in chain of that name.
    pub fn builtin(&self, name: &str) -> Option<&'static BuiltinChain> {
        self.chains.iter().find(|c| c.name == name)
    }
}

impl BuiltinChain {
    /// The nf_tables base chain iptables-nft creates for it (policy ACCEPT unless given, and,
    /// as iptables-nft 1.8.10 and later do, with counters).
    pub fn to_chain(
        &self,
        family: IpFamily,
        table: &str,
        policy: Policy,
        counters: Option<(u64, u64)>,
    ) -> Chain {
        let mut c = Chain::base(
            family.nft(),
            table,
            self.name,
            Hook {
                num: self.hook,
                priority: self.priority,
                chain_type: ChainType::from_name(self.chain_type),
                policy: Some(policy),
                devices: Vec::new(),
            },
        );
        c.counters = counters;
        c
    }

    /// Whether a chain read from the kernel is this built-in chain as iptables-nft made it
    /// (same hook, priority and type); otherwise iptables-nft calls the table incompatible.
    pub fn matches(&self, c: &Chain) -> bool {
        c.hook.as_ref().is_some_and(|h| {
            h.num == self.hook
                && h.priority == self.priority
                && h.chain_type.name() == self.chain_type
        })
    }
}

/// Whether `c`, a chain of iptables table `table` read from the kernel, is a base chain that
/// iptables cannot express: it has a hook, but is not one of the table's built-in chains as
/// iptables-nft makes them (name, hook, priority and type). iptables-nft calls such a table
/// incompatible; iptnl lists its other chains and leaves that one as it is.
///
/// ```
/// use iptnl::ipt::tables::is_foreign_base_chain;
/// use iptnl::nft::{Chain, Family};
/// assert!(!is_foreign_base_chain("filter", &Chain::user(Family::Ipv4, "filter", "MINE")));
/// ```
pub fn is_foreign_base_chain(table: &str, c: &Chain) -> bool {
    c.hook.is_some()
        && !find_table(table)
            .and_then(|t| t.builtin(&c.name))
            .is_some_and(|b| b.matches(c))
}

/// The name of an ip/ip6 netfilter hook (`NF_INET_*`): `input` for 1; other numbers as
/// digits.
///
/// ```
/// assert_eq!(iptnl::ipt::tables::hook_name(4), "postrouting");
/// ```
pub fn hook_name(num: u32) -> String {
    match num {
        0 => "prerouting".to_owned(),
        1 => "input".to_owned(),
        2 => "forward".to_owned(),
        3 => "output".to_owned(),
        4 => "postrouting".to_owned(),
        n => n.to_string(),
    }
}
