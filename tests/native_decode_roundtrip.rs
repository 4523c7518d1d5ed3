//! Every decoder of native expressions (the core fields: addresses, interfaces, protocol,
//! fragments, verdicts and jumps; and each extension's native form: ports, marks, limit, log,
//! REJECT, NAT…) reads only what its printed form says. Rules of the rule corpus
//! (tests/corpus), encoded in each writer's layout, have their native expressions changed
//! near their valid forms: a byte of an expression's attributes set to a boundary value (0,
//! 1, 0x7f, 0x80, 0xff) or flipped, which gives values out of iptables' ranges, other masks,
//! lengths, registers, operators and keys; expressions swapped, dropped or repeated. Then a
//! rule the decoder shows as an iptables rule prints a line that parses back, as a restore
//! reads a save line, and that line encodes to exactly the rule's expressions in the layout
//! the decoder read it in; it is therefore no broader than its bytes. Any other rule is shown
//! raw (`-m nft --nft-rule`), which carries it whole. No kernel needed.

mod common;

use std::sync::OnceLock;

use iptnl::fuzzing::comparable;
use iptnl::ipt::decode::{decode_rule_exact, decode_rule_exact_at, decode_rule_or_raw};
use iptnl::ipt::ext::NoSets;
use iptnl::ipt::{
    encode_rule_for, parse_rule_str, parse_rule_with, split_restore_args, IpFamily, ReaderFloor,
};
use iptnl::netlink::{Attrs, MsgWriter};
use iptnl::nft::expr::Limit;
use iptnl::nft::{Expr, Rule};
use proptest::prelude::*;

/// What is wrong with `rule`, read at `floor` (`None`: every reader) or `None` when nothing is.
fn violation(rule: &Rule, family: IpFamily, floor: Option<ReaderFloor>) -> Option<String> {
    let spec = match floor {
        None => decode_rule_or_raw(rule, family),
        Some(f) => match decode_rule_exact_at(rule, family, &NoSets, f) {
            Ok(s) => s,
            Err(_) => return None,
        },
    };
    if spec.raw.is_some() {
        // Carried whole: its save restores it byte for byte (the raw form's own tests).
        return None;
    }
    let line = spec.to_save_args();
    let words = match split_restore_args(&line) {
        Ok(w) => w,
        Err(e) => return Some(format!("{line:?} does not split back: {e}")),
    };
    let again = match parse_rule_with(family, &words, &NoSets) {
        Ok(mut v) if v.len() == 1 => v.pop().unwrap(),
        Ok(v) => return Some(format!("{line:?} parses back as {} rules", v.len())),
        Err(e) => return Some(format!("{line:?} does not parse back: {e}")),
    };
    let want = comparable(&rule.exprs);
    let floors = match floor {
        Some(f) => vec![f],
        None => ReaderFloor::LAYOUTS.to_vec(),
    };
    let mut why = None;
    for f in floors {
        match encode_rule_for(&again, family, &rule.table, &rule.chain, &NoSets, f) {
            Ok(r) if comparable(&r.exprs) == want => return None,
            Ok(r) => {
                why.get_or_insert_with(|| {
                    format!(
                        "{line:?} is read back at {f} as another rule: {:?}",
                        r.exprs
                    )
                });
            }
            Err(e) => {
                why.get_or_insert_with(|| format!("{line:?} does not encode at {f}: {e}"));
            }
        }
    }
    why
}

/// The corpus's rules, each encoded in each writer's layout, with the family they are of.
fn base_rules() -> &'static [(IpFamily, Rule)] {
    static RULES: OnceLock<Vec<(IpFamily, Rule)>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut out: Vec<(IpFamily, Rule)> = Vec::new();
        for (fam, table, chain, text) in common::corpus_rules() {
            let Ok(specs) = parse_rule_str(fam, &text) else {
                continue;
            };
            for floor in ReaderFloor::LAYOUTS {
                let Ok(mut r) = encode_rule_for(&specs[0], fam, &table, &chain, &NoSets, floor)
                else {
                    continue;
                };
                r.compat = None;
                // Only rules with a native expression to change besides the counter.
                let native = r
                    .exprs
                    .iter()
                    .any(|e| !matches!(e, Expr::Match(_) | Expr::Target(_) | Expr::Counter(_)));
                if native && !out.iter().any(|(f, o)| *f == fam && o.exprs == r.exprs) {
                    out.push((fam, r));
                }
            }
        }
        out
    })
}

/// One change to a rule's expressions; indexes are taken modulo what there is.
#[derive(Debug, Clone)]
enum Change {
    /// A byte of the attributes of the `expr`th native expression set to `value`.
    Byte { expr: usize, at: usize, value: u8 },
    /// A byte of it with bit `bit` flipped.
    Flip { expr: usize, at: usize, bit: u8 },
    /// Two neighbouring expressions swapped.
    Swap(usize),
    /// An expression left out.
    Drop(usize),
    /// An expression repeated.
    Repeat(usize),
}

fn change() -> impl Strategy<Value = Change> {
    let value = prop_oneof![
        Just(0u8),
        Just(1),
        Just(0x7f),
        Just(0x80),
        Just(0xff),
        any::<u8>()
    ];
    prop_oneof![
        4 => (any::<usize>(), any::<usize>(), value)
            .prop_map(|(expr, at, value)| Change::Byte { expr, at, value }),
        3 => (any::<usize>(), any::<usize>(), 0u8..8)
            .prop_map(|(expr, at, bit)| Change::Flip { expr, at, bit }),
        1 => any::<usize>().prop_map(Change::Swap),
        1 => any::<usize>().prop_map(Change::Drop),
        1 => any::<usize>().prop_map(Change::Repeat),
    ]
}

/// The bytes of `e` (one `NFTA_LIST_ELEM`) and where its `NFTA_EXPR_DATA` payload starts.
fn expr_bytes(e: &Expr) -> (Vec<u8>, usize) {
    let mut w = MsgWriter::new();
    e.encode(&mut w);
    let b = w.as_bytes().to_vec();
    // The nest's header, then the name attribute (padded to 4), then the data's header.
    let name_len = usize::from(u16::from_ne_bytes([b[4], b[5]]));
    (b, 4 + name_len.next_multiple_of(4) + 4)
}

fn expr_from(b: &[u8]) -> Option<Expr> {
    let a = Attrs::new(b).next()?.ok()?;
    Expr::decode(a).ok()
}

fn apply(exprs: &mut Vec<Expr>, c: &Change) {
    let natives: Vec<usize> = (0..exprs.len())
        .filter(|&i| !matches!(exprs[i], Expr::Match(_) | Expr::Target(_)))
        .collect();
    if natives.is_empty() {
        return;
    }
    let n = exprs.len();
    match *c {
        Change::Byte { expr, at, value } => {
            let i = natives[expr % natives.len()];
            let (mut b, from) = expr_bytes(&exprs[i]);
            if from < b.len() {
                let at = from + at % (b.len() - from);
                b[at] = value;
                if let Some(e) = expr_from(&b) {
                    exprs[i] = e;
                }
            }
        }
        Change::Flip { expr, at, bit } => {
            let i = natives[expr % natives.len()];
            let (mut b, from) = expr_bytes(&exprs[i]);
            if from < b.len() {
                let at = from + at % (b.len() - from);
                b[at] ^= 1 << bit;
                if let Some(e) = expr_from(&b) {
                    exprs[i] = e;
                }
            }
        }
        Change::Swap(i) if n >= 2 => exprs.swap(i % (n - 1), i % (n - 1) + 1),
        Change::Drop(i) => {
            exprs.remove(i % n);
        }
        Change::Repeat(i) => {
            let e = exprs[i % n].clone();
            exprs.insert(i % n, e);
        }
        Change::Swap(_) => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn a_changed_native_rule_is_shown_as_itself_or_raw(
        pick in any::<usize>(),
        changes in prop::collection::vec(change(), 1..4),
    ) {
        let rules = base_rules();
        prop_assert!(rules.len() > 300, "only {} rules", rules.len());
        let (family, base) = &rules[pick % rules.len()];
        let mut rule = base.clone();
        for c in &changes {
            apply(&mut rule.exprs, c);
        }
        for floor in [None, Some(ReaderFloor::V1_8_7), Some(ReaderFloor::V1_8_9), Some(ReaderFloor::V1_8_11)] {
            if let Some(why) = violation(&rule, *family, floor) {
                prop_assert!(false, "{why}\nrule: {:?}", rule.exprs);
            }
        }
    }
}

/// Every byte of every native expression's attributes of every rule of the corpus, in each
/// layout, set to each boundary value and flipped in its low and high bits, one at a time.
#[test]
fn every_changed_byte_of_a_native_expression_is_shown_as_itself_or_raw() {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (family, base) in base_rules() {
        for (i, e) in base.exprs.iter().enumerate() {
            if matches!(e, Expr::Match(_) | Expr::Target(_)) {
                continue;
            }
            let (bytes, from) = expr_bytes(e);
            for at in from..bytes.len() {
                let old = bytes[at];
                for v in [0u8, 1, 0x7f, 0x80, 0xff, old ^ 1, old ^ 0x80] {
                    if v == old {
                        continue;
                    }
                    let mut b = bytes.clone();
                    b[at] = v;
                    let Some(changed) = expr_from(&b) else {
                        continue;
                    };
                    let mut r = base.clone();
                    r.exprs[i] = changed;
                    checked += 1;
                    if let Some(why) = violation(&r, *family, None) {
                        failures.push(format!("{why}\n  rule: {:?}", r.exprs));
                    }
                }
            }
        }
    }
    assert!(checked > 50_000, "only {checked} changed rules checked");
    let n = failures.len();
    failures.sort();
    failures.dedup_by_key(|f| f.split(" is read back").next().unwrap().to_owned());
    assert!(
        failures.is_empty(),
        "{n} of {checked} changed rules do not read back, e.g.:\n{}",
        failures[..failures.len().min(40)].join("\n")
    );
}

/// No rule of the corpus, unchanged, is refused by the read-back check, in any layout it was
/// written in: the check refuses nothing iptables writes.
#[test]
fn the_corpus_reads_back() {
    let mut shown_raw = Vec::new();
    for (family, r) in base_rules() {
        // (A few corpus rules are carried whole for reasons of their own: an ipset iptnl
        // cannot resolve without a kernel, a port range `nft` would write otherwise.)
        match decode_rule_exact(r, *family) {
            Err(e) if e.reason.contains("read back") => {
                shown_raw.push(format!("{}: {:?}", e.reason, r.exprs))
            }
            _ => {}
        }
    }
    assert!(
        shown_raw.is_empty(),
        "{} rules of the corpus do not read back, e.g.:\n{}",
        shown_raw.len(),
        shown_raw[..shown_raw.len().min(20)].join("\n")
    );
}

/// Native `limit` values iptables cannot write (found by fuzzing the decoder: a burst over
/// 10000) and their neighbours at each end of iptables' ranges.
#[test]
fn limit_values_at_the_edges_of_iptables_ranges() {
    let base = &parse_rule_str(IpFamily::V4, "-m limit --limit 5/sec -j ACCEPT").unwrap()[0];
    let rule = encode_rule_for(
        base,
        IpFamily::V4,
        "filter",
        "INPUT",
        &NoSets,
        ReaderFloor::V1_8_9,
    )
    .unwrap();
    let at = rule
        .exprs
        .iter()
        .position(|e| matches!(e, Expr::Limit(_)))
        .unwrap();
    let Expr::Limit(l) = &rule.exprs[at] else {
        unreachable!()
    };
    let edges = [0u64, 1, 2, 9_999, 10_000, 10_001, u32::MAX as u64, u64::MAX];
    for burst in [0u32, 1, 5, 9_999, 10_000, 10_001, 268_445_456, u32::MAX] {
        for rate in edges {
            for unit in [0u64, 1, 60, 3600, 86400, 86401, u64::MAX] {
                let mut r = rule.clone();
                r.exprs[at] = Expr::Limit(Limit {
                    burst,
                    rate,
                    unit,
                    ..*l
                });
                if let Some(why) = violation(&r, IpFamily::V4, None) {
                    panic!("burst {burst}, rate {rate}, unit {unit}: {why}");
                }
            }
        }
    }
}

/// An interface prefix with a NUL inside (`nft` compares any bytes) cannot be printed: `-i
/// v<NUL>th+` is read back as `-i v`, another rule. Such a rule is carried whole.
#[test]
fn an_interface_prefix_with_a_nul_inside_is_carried_whole() {
    let base = &parse_rule_str(IpFamily::V4, "-i veth+ -j ACCEPT").unwrap()[0];
    for floor in ReaderFloor::LAYOUTS {
        let mut rule =
            encode_rule_for(base, IpFamily::V4, "filter", "INPUT", &NoSets, floor).unwrap();
        for e in &mut rule.exprs {
            if let Expr::Cmp(c) = e {
                if c.data.as_bytes() == b"veth" {
                    c.data = iptnl::nft::Value::new(b"v\0th").unwrap();
                }
            }
        }
        let spec = decode_rule_or_raw(&rule, IpFamily::V4);
        assert!(
            spec.raw.is_some(),
            "shown at {floor} as {:?}",
            spec.to_save_args()
        );
        assert_eq!(violation(&rule, IpFamily::V4, None), None);
    }
}
