//! The iptables rule model: rule specs parsed as iptables parses them, encoded into nf_tables
//! rules exactly as iptables-nft encodes them, decoded back from whatever iptables-nft wrote,
//! and printed as iptables-nft-save prints them.
//!
//! ```
//! use iptnl::ipt::{decode_rule, encode_rule, parse_rule_str, IpFamily};
//! let spec = &parse_rule_str(IpFamily::V4, r#"-s 10.0.0.0/8 -p tcp -m comment --comment "web" --dport 80 -j ACCEPT"#).unwrap()[0];
//! let rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
//! let back = decode_rule(&rule, IpFamily::V4).unwrap();
//! assert_eq!(back.to_save_line("INPUT", false), "-A INPUT -s 10.0.0.0/8 -p tcp -m comment --comment web -m tcp --dport 80 -j ACCEPT");
//! ```

pub mod addr;
pub mod args;
mod cmdline;
pub mod command;
pub mod compare;
pub mod compat;
pub mod decode;
pub mod encode;
pub mod error;
pub mod ext;
pub mod floor;
pub mod parse;
pub mod proto;
pub mod raw;
mod readback;
mod readback_native;
pub mod readers;
pub(crate) mod restore_input;
pub mod save;
pub mod savefile;
pub mod spec;
pub mod sysdb;
pub mod tables;
pub mod xml;

pub use addr::AddrMask;
pub use args::{split_args, split_restore_args};
pub use command::{parse_command, parse_command_with, Command, CommandLine};
pub use compare::{
    canonical_exprs, canonical_exprs_with, canonical_of_rule, canonical_of_rule_with,
    rule_matches_spec, rule_matches_spec_with,
};
pub use decode::{
    decode_rule, decode_rule_exact, decode_rule_exact_with, decode_rule_or_raw,
    decode_rule_or_raw_with, decode_rule_with, Foreign,
};
pub use encode::{
    encode_exprs, encode_exprs_for, encode_exprs_with, encode_rule, encode_rule_for,
    encode_rule_into, encode_rule_into_for, encode_rule_into_with, encode_rule_with,
};
pub use error::ParseError;
pub use ext::{NoSets, SetIndex};
pub use floor::ReaderFloor;
pub use parse::{parse_rule, parse_rule_str, parse_rule_str_with, parse_rule_with};
pub use proto::{proto_list_name, proto_name, proto_number};
pub use spec::{AddrMatch, IfaceMatch, ProtoMatch, RuleSpec, RuleTarget};

/// The family of an iptables rule: `iptables` (IPv4) or `ip6tables` (IPv6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IpFamily {
    /// IPv4 (`iptables`).
    #[default]
    V4,
    /// IPv6 (`ip6tables`).
    V6,
}
