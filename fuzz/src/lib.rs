//! What the fuzz targets share: the ipsets they know, and the round-trip oracles.
//!
//! Each oracle panics when a property of the rule model does not hold, which libFuzzer
//! reports as a crash with the input that broke it.

pub use iptnl::fuzzing::comparable;
use iptnl::fuzzing::{plan_restore, MemRuleset};
use iptnl::ipt::decode::{decode_rule_exact_at, decode_rule_or_raw_with};
use iptnl::ipt::raw::RawRule;
use iptnl::ipt::savefile::TableFormat;
use iptnl::ipt::{
    encode_rule_for, parse_rule_with, split_restore_args, IpFamily, ReaderFloor, RuleSpec,
    RuleTarget, SetIndex,
};
use iptnl::iptables::restore::RestoreOptions;
use iptnl::netlink::{Attrs, Messages, MsgWriter};
use iptnl::nft::{Chain, Expr, Rule};
use iptnl::sys::nf_tables::NFT_MSG_NEWRULE;
use iptnl::sys::nfnetlink::nfnl_msg_id;

/// Two ipsets, one of each family, so that `-m set` and `SET` rules parse and decode.
pub struct Sets;

impl SetIndex for Sets {
    fn index(&self, name: &str, family: IpFamily) -> Result<u16, String> {
        match (name, family) {
            ("web", IpFamily::V4) => Ok(3),
            ("web6", IpFamily::V6) => Ok(4),
            ("web", IpFamily::V6) | ("web6", IpFamily::V4) => Err(format!(
                "The protocol family of set {name} is not applicable."
            )),
            _ => Err(format!("Set {name} doesn't exist.")),
        }
    }

    fn name(&self, index: u16) -> Option<String> {
        match index {
            3 => Some("web".into()),
            4 => Some("web6".into()),
            _ => None,
        }
    }
}

/// The protocol matches the structured x_tables rules of `rule_decode` start with.
pub const PROTOS: &[&str] = &[
    "",
    "-p tcp",
    "-p udp",
    "-p icmp",
    "-p ipv6-icmp",
    "-p sctp",
    "-p dccp",
    "-p esp",
    "-p ah",
    "! -p tcp",
    "-p udplite",
    "-p gre",
    "-p all",
];

/// The (kind, kernel name) of every x_tables extension iptnl decodes, in a fixed order (the
/// extension byte of `rule_decode`'s structured rules indexes it).
pub fn xt_names() -> Vec<(iptnl::ipt::ext::ExtKind, &'static str)> {
    use iptnl::ipt::ext::{all, ExtKind};
    let mut v: Vec<(ExtKind, &'static str)> = all()
        .iter()
        .filter(|d| d.decode_xt.is_some())
        .flat_map(|d| d.xt_names.iter().map(move |n| (d.kind, *n)))
        .collect();
    v.sort_by_key(|(k, n)| (matches!(k, ExtKind::Target), *n));
    v.dedup();
    v
}

/// The family of a flag bit.
pub fn family(v6: bool) -> IpFamily {
    if v6 {
        IpFamily::V6
    } else {
        IpFamily::V4
    }
}

/// Whether the save form of `spec` can be read back at all: a chain or interface name with a
/// blank, a line break or a double quote (`-j 'a"b'`, `-o 'a b'`, which iptables
/// accepts too) is printed bare, as iptables-save prints it, and no restore reads such a
/// line back (the save format's limit, not the parser's). The decoder carries such a rule
/// whole instead.
pub fn save_form_readable(spec: &RuleSpec) -> bool {
    let bad = |s: &str| s.chars().any(|c| c.is_whitespace() || c == '"');
    let jump = matches!(&spec.target, Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) if bad(c));
    // (`-i +` is printed as nothing, and is written as nothing: it tests nothing.)
    let iface = [&spec.in_iface, &spec.out_iface]
        .into_iter()
        .flatten()
        .any(|i| bad(&i.name));
    !jump && !iface
}

/// A parsed rule that prints parses back to a rule that prints the same line and encodes the
/// same, at every reader floor; when it does not (iptables' own form of a few rules does not
/// say all they encode, like the twelve bytes of 0xff after an IPv4 `recent` mask, or cannot
/// be read back, like an empty `--physdev-in`), the decoder must carry the rule whole. What
/// a rule encodes to at each floor passes the decoder's checks.
pub fn check_parsed(spec: &RuleSpec, family: IpFamily) {
    let line = spec.to_save_args();
    // Read back as a restore reads a save line.
    let again = split_restore_args(&line)
        .ok()
        .and_then(|w| parse_rule_with(family, &w, &Sets).ok())
        .filter(|v| v.len() == 1 && v[0].to_save_args() == line);
    for floor in ReaderFloor::LAYOUTS {
        let encoded = encode_rule_for(spec, family, "filter", "FUZZ", &Sets, floor);
        let reads_back = save_form_readable(spec)
            && again.as_ref().is_some_and(|again| {
                let twice = encode_rule_for(&again[0], family, "filter", "FUZZ", &Sets, floor);
                match (&encoded, &twice) {
                    (Ok(a), Ok(b)) => comparable(&a.exprs) == comparable(&b.exprs),
                    (Err(_), Err(_)) => true,
                    _ => false,
                }
            });
        if let Ok(rule) = encoded {
            let back = decode_rule_or_raw_with(&rule, family, &Sets);
            // (A rule that reads back may still be shown in other words: `-s 0.0.0.0/0`
            // encodes to nothing, and shows as nothing.)
            if !reads_back {
                assert!(
                    back.raw.is_some(),
                    "{line:?} reads back as another rule at {floor}, and is shown so"
                );
            }
            assert!(
                back.raw.is_some() || decode_rule_exact_at(&rule, family, &Sets, floor).is_ok(),
                "{line:?} written at {floor} is not read as laid out at {floor}"
            );
            check_decoded(&rule, family, None);
        }
    }
}

/// The rule decoder's properties, for a rule read from the kernel (`exprs_attr`: the bytes of
/// its `NFTA_RULE_EXPRESSIONS` nest, when it was read from bytes):
/// - every expression decoded as a typed one encodes back to its own bytes (the decoder
///   drops nothing);
/// - a rule shown as an iptables rule encodes back to its own expressions at one of the
///   reader floors' layouts, and at each floor whose layout it is read in;
/// - what each iptables-nft release would read of it can be told (`check-readers`);
/// - a rule shown raw carries all of it (its hex reads back to the same expressions);
/// - a save of the rule, restored, writes the same expressions and user data.
pub fn check_decoded(rule: &Rule, family: IpFamily, exprs_attr: Option<&[u8]>) {
    let spec = decode_rule_or_raw_with(rule, family, &Sets);
    let line = spec.to_save_line(&rule.chain, true);
    let _ = iptnl::ipt::ext::list_options(&spec, false);
    let _ = iptnl::ipt::ext::list_options(&spec, true);
    let _ = spec.target_column();
    if let Some(bytes) = exprs_attr {
        let elems: Vec<&[u8]> = Attrs::new(bytes)
            .map_while(Result::ok)
            .map(|a| a.data())
            .collect();
        assert_eq!(
            elems.len(),
            rule.exprs.len(),
            "expressions lost in decoding"
        );
        for (e, orig) in rule.exprs.iter().zip(&elems) {
            if matches!(e, Expr::Raw(_)) {
                continue;
            }
            let mut w = MsgWriter::new();
            e.encode(&mut w);
            let again = Attrs::new(w.as_bytes()).next().unwrap().unwrap();
            if spec.raw.is_none() || spec.view.is_some() {
                assert!(
                    same_attrs(again.data(), orig),
                    "expression `{e}' decoded from other bytes than it encodes to, and the rule is shown as {line:?}:\n{:02x?}\n{:02x?}",
                    again.data(),
                    orig
                );
            }
        }
    }
    match &spec.raw {
        None => {
            let at = |floor| {
                let again = encode_rule_for(&spec, family, &rule.table, &rule.chain, &Sets, floor)
                    .unwrap_or_else(|e| panic!("{line:?} shown but cannot be encoded: {e}"));
                comparable(&again.exprs) == comparable(&rule.exprs)
            };
            assert!(
                ReaderFloor::LAYOUTS.into_iter().any(at),
                "{line:?} encodes to other expressions than the rule's at every floor"
            );
            // Its printed form, read back as a restore reads a save line, is the rule again:
            // it encodes to the rule's own expressions at each floor whose layout the rule
            // is read in (and so is no broader than its bytes).
            let args = spec.to_save_args();
            let again = split_restore_args(&args)
                .unwrap_or_else(|e| panic!("{line:?} shown but does not split back: {e}"));
            let again = match parse_rule_with(family, &again, &Sets) {
                Ok(mut v) if v.len() == 1 => v.pop().unwrap(),
                Ok(v) => panic!("{line:?} shown but parses back as {} rules", v.len()),
                Err(e) => panic!("{line:?} shown but does not parse back: {e}"),
            };
            let read = ReaderFloor::LAYOUTS
                .into_iter()
                .filter(|&f| decode_rule_exact_at(rule, family, &Sets, f).is_ok())
                .collect::<Vec<_>>();
            for &floor in &read {
                assert!(
                    at(floor),
                    "{line:?} read as laid out at {floor} encodes otherwise there"
                );
                let twice = encode_rule_for(&again, family, &rule.table, &rule.chain, &Sets, floor)
                    .unwrap_or_else(|e| {
                        panic!("{line:?} read back does not encode at {floor}: {e}")
                    });
                assert_eq!(
                    comparable(&twice.exprs),
                    comparable(&rule.exprs),
                    "{line:?} read back encodes to other expressions at {floor}"
                );
            }
            assert!(
                rule.userdata.is_none(),
                "{line:?} shown without its user data"
            );
        }
        Some(raw) => {
            let back = RawRule::from_hex(&raw.to_hex())
                .unwrap_or_else(|e| panic!("the raw form of a rule does not read back: {e}"));
            assert_eq!(
                comparable(&back.exprs),
                comparable(&rule.exprs),
                "raw form lost expressions"
            );
            assert_eq!(back.userdata, rule.userdata, "raw form lost user data");
        }
    }
    let held = spec.to_save_line(&rule.chain, false);
    let _ =
        iptnl::ipt::readers::misreads(rule, family, &rule.chain, &held, ReaderFloor::V1_8_7, &Sets);
    for floor in ReaderFloor::LAYOUTS {
        check_saved(rule, family, floor);
    }
}

/// A save for the reader floor `floor` of the table holding `rule` (in a user chain),
/// restored at that floor into an empty ruleset, writes the rule's own expressions and user
/// data.
pub fn check_saved(rule: &Rule, family: IpFamily, floor: ReaderFloor) {
    let chain = "FUZZ";
    let mut r = rule.clone();
    r.table = "filter".into();
    r.chain = chain.into();
    let fmt = TableFormat {
        family,
        counters: true,
        date: "DATE",
        sets: &Sets,
        floor,
    };
    // The chains the rule jumps to exist (a restore refuses a jump to a missing chain); a
    // chain no restore can declare (a name `nft` gave) leaves the save untested here.
    let mut chains = vec![Chain::user(family.nft(), "filter", chain)];
    for e in &r.exprs {
        if let Expr::Immediate(i) = e {
            if let iptnl::nft::Data::Verdict(
                iptnl::nft::Verdict::Jump(c) | iptnl::nft::Verdict::Goto(c),
            ) = &i.data
            {
                if iptnl::ipt::command::check_chain_name(c, family).is_err() {
                    return;
                }
                if c != chain {
                    chains.push(Chain::user(family.nft(), "filter", c.clone()));
                }
            }
        }
    }
    let text = fmt.table("filter", &chains, std::slice::from_ref(&r));
    let ruleset = MemRuleset::new(family, 1);
    let opts = RestoreOptions {
        counters: true,
        floor: Some(floor),
        ..RestoreOptions::default()
    };
    let ops = match plan_restore_with_sets(&ruleset, &text, &opts) {
        Ok(ops) => ops,
        Err(e) => panic!("a save for {floor} does not restore: {e}\n{text}"),
    };
    let mut written = Vec::new();
    for op in &ops {
        for m in Messages::new(op) {
            let m = m.expect("a batch message");
            if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                written.push(Rule::decode(&m).expect("a batch rule decodes"));
            }
        }
    }
    assert_eq!(
        written.len(),
        1,
        "a save of one rule restores {} rules\n{text}",
        written.len()
    );
    let w = &written[0];
    assert_eq!(
        comparable(&w.exprs),
        comparable(&r.exprs),
        "a save for {floor} restores other expressions\n{text}"
    );
    assert_eq!(
        w.userdata, r.userdata,
        "a save restores other user data\n{text}"
    );
}

fn plan_restore_with_sets(
    ruleset: &MemRuleset,
    text: &str,
    opts: &RestoreOptions,
) -> Result<Vec<Vec<u8>>, String> {
    plan_restore(ruleset, text, opts, &Sets)
        .map(|(ops, _)| ops)
        .map_err(|e| e.to_string())
}

/// Whether `orig` holds exactly the attributes `canon` does: the same types, nested the
/// same way, with the same payloads, each as often. Attributes of different types may come in
/// another order (netlink gives it no meaning, and each decoder reads by type; a list of one
/// type keeps its order). Flags of attribute types and alignment padding are aside: the
/// kernel's dumps set no flag, and padding carries nothing. This finds an attribute the
/// decoder drops (one of a repeated type, bytes after a string's NUL) or one it makes up.
fn same_attrs(canon: &[u8], orig: &[u8]) -> bool {
    /// The attributes of `b` as (type, payload), or `None` if it is not a whole sequence.
    fn attrs(b: &[u8]) -> Option<Vec<(u16, &[u8])>> {
        let mut at = 0;
        let mut out = Vec::new();
        while at < b.len() {
            if at + 4 > b.len() {
                return None;
            }
            let len = usize::from(u16::from_ne_bytes([b[at], b[at + 1]]));
            if len < 4 || at + len > b.len() {
                return None;
            }
            out.push((
                u16::from_ne_bytes([b[at + 2], b[at + 3]]) & 0x3fff,
                &b[at + 4..at + len],
            ));
            at += (len + 3) & !3;
        }
        Some(out)
    }
    /// (depth, type, payload) of each attribute, by type within a nest, descending into
    /// every payload that is a whole sequence of attributes (its own payload then left out).
    fn tree<'a>(b: &'a [u8], depth: usize, out: &mut Vec<(usize, u16, &'a [u8])>) {
        let Some(mut list) = attrs(b) else {
            out.push((depth, u16::MAX, b));
            return;
        };
        list.sort_by_key(|&(ty, _)| ty);
        for (ty, data) in list {
            if depth < 8 && !data.is_empty() && attrs(data).is_some() {
                out.push((depth, ty, &[]));
                tree(data, depth + 1, out);
            } else {
                out.push((depth, ty, data));
            }
        }
    }
    let (mut c, mut o) = (Vec::new(), Vec::new());
    tree(canon, 0, &mut c);
    tree(orig, 0, &mut o);
    c == o
}
