//! The netlink reader and the rule decoder: kernel messages as a dump or an event brings
//! them (`NFT_MSG_NEWRULE`, `NEWCHAIN`, `NEWSET`, `NEWSETELEM`, `NEWTABLE`, errors), with
//! nested expression lists and x_tables blobs. Every rule read is checked by
//! `iptnl_fuzz::check_decoded`: shown as an iptables rule only when that encodes back to its
//! own expressions, and decoded from exactly the bytes those encode to; shown raw with all
//! of it otherwise; saved and restored to the same expressions and user data.
//!
//! Input: a flag byte, then
//! - bit 0 clear: netlink messages, as received;
//! - bit 0 set: one x_tables rule in parts: a byte choosing the protocol match (`-p`), a
//!   byte choosing the extension (every match and target iptnl decodes, by its kernel name),
//!   a revision byte, and the rest the extension's info blob; the rule is written as a
//!   NEWRULE message and read back like the others.
//!
//! Bit 1 of the flag byte picks the family the rules are read as when the message does not
//! say (IPv6 when set).
#![no_main]

use iptnl::ipt::ext::ExtKind;
use iptnl::ipt::{encode_rule, parse_rule, IpFamily};
use iptnl::netlink::{Messages, MsgWriter};
use iptnl::nft::expr::{Immediate, Match, Target};
use iptnl::nft::{Chain, Family, Rule, Set, SetElems, Table, Verdict};
use iptnl::sys::nf_tables::*;
use iptnl::sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
use iptnl_fuzz::{check_decoded, family, xt_names, PROTOS};
use libfuzzer_sys::fuzz_target;

fn xt_rule(fam: IpFamily, data: &[u8]) -> Option<Vec<u8>> {
    let [proto, ext, rev, info @ ..] = data else {
        return None;
    };
    let names = xt_names();
    let (kind, name) = names[*ext as usize % names.len()];
    let proto = PROTOS[*proto as usize % PROTOS.len()];
    let mut args: Vec<&str> = proto.split_whitespace().collect();
    if kind == ExtKind::Match {
        args.extend(["-j", "ACCEPT"]);
    }
    let spec = parse_rule(fam, &args).ok()?.pop()?;
    let mut rule = encode_rule(&spec, fam, "filter", "INPUT").ok()?;
    let at = rule
        .exprs
        .len()
        .saturating_sub(usize::from(kind == ExtKind::Match));
    let e = match kind {
        ExtKind::Match => Match {
            name: name.into(),
            rev: u32::from(*rev),
            info: info.to_vec(),
        }
        .into(),
        _ => Target {
            name: name.into(),
            rev: u32::from(*rev),
            info: info.to_vec(),
        }
        .into(),
    };
    rule.exprs.insert(at, e);
    if kind != ExtKind::Match && rule.exprs.is_empty() {
        rule.exprs.push(Immediate::verdict(Verdict::Accept).into());
    }
    let mut w = MsgWriter::new();
    let m = w.begin(
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE),
        0,
        0,
        fam.nft().raw(),
        0,
    );
    rule.encode(&mut w, Some(7), None, None, None);
    w.finish(m).ok()?;
    Some(w.into_bytes())
}

fn read_messages(buf: &[u8], default: IpFamily) {
    for m in Messages::new(buf) {
        let Ok(m) = m else { break };
        let _ = m.error().map(|e| (e.errno, e.ext_msg));
        match nfnl_msg_id(m.msg_type()) {
            NFT_MSG_NEWRULE | NFT_MSG_DELRULE => {
                let Ok(rule) = Rule::decode(&m) else { continue };
                let _ = rule.to_string();
                let fam = match rule.family {
                    Family::Ipv4 => IpFamily::V4,
                    Family::Ipv6 => IpFamily::V6,
                    _ => default,
                };
                let exprs = m.nfgen().ok().and_then(|nf| {
                    nf.attrs()
                        .map_while(Result::ok)
                        .filter(|a| a.kind() == NFTA_RULE_EXPRESSIONS)
                        .last()
                        .map(|a| a.data())
                });
                check_decoded(&rule, fam, exprs);
            }
            NFT_MSG_NEWCHAIN | NFT_MSG_DELCHAIN => {
                if let Ok(c) = Chain::decode(&m) {
                    let fam = if c.family == Family::Ipv6 {
                        IpFamily::V6
                    } else {
                        default
                    };
                    let _ = iptnl::ipt::savefile::format_table(
                        fam,
                        &c.table,
                        std::slice::from_ref(&c),
                        &[],
                        true,
                        "DATE",
                    );
                }
            }
            NFT_MSG_NEWSET | NFT_MSG_DELSET => {
                if let Ok(s) = Set::decode(&m) {
                    let _ = format!("{s:?}");
                    let mut w = MsgWriter::new();
                    s.encode(&mut w);
                }
            }
            NFT_MSG_NEWSETELEM | NFT_MSG_DELSETELEM => {
                if let Ok(e) = SetElems::decode(&m) {
                    let mut w = MsgWriter::new();
                    e.encode(&mut w);
                }
            }
            NFT_MSG_NEWTABLE | NFT_MSG_DELTABLE => {
                let _ = Table::decode(&m);
            }
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    iptnl::fuzzing::no_host_lookups();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let fam = family(flags & 2 != 0);
    if flags & 1 == 0 {
        read_messages(rest, fam);
    } else if let Some(bytes) = xt_rule(fam, rest) {
        read_messages(&bytes, fam);
    }
});
