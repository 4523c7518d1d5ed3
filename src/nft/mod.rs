//! The nftables object model: tables, chains, rules, expressions and sets, their wire form,
//! typed batches and dumps. Everything here speaks nf_tables as the kernel sees it; the
//! iptables view lives above.

pub mod batch;
pub mod chain;
pub mod compat;
pub mod data;
pub mod dump;
pub mod error;
pub mod expr;
pub mod family;
pub mod monitor;
pub mod rule;
pub mod set;
pub mod table;
pub mod trace;

pub use batch::{Batch, Committed, Placement};
pub use chain::{Chain, ChainType, Hook, Policy};
pub use data::{Data, Value, Verdict};
pub use dump::{
    anonymous_sets, chain_positions, dump_rules_by_chain, get_chain, list_chains,
    list_chains_and_rules, list_rules, list_tables, table_objects,
};
pub use error::{Error, OpError};
pub use expr::Expr;
pub use family::Family;
pub use rule::{BoundSet, Rule, RuleCompat};
pub use set::{list_set_elems, list_sets, Set, SetDesc, SetElem, SetElems, SetRef};
pub use table::Table;
