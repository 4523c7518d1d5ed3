//! Every x_tables decoder reads only what its printed form says: for each match and target
//! blob of the rule corpus (tests/corpus), and for that blob with each of its bytes changed
//! (to 0, 1, 0x80, 0xff, and with its low bit flipped) and cut short, a rule shown as an
//! iptables rule prints a line that parses back, and that line encodes to the rule's own
//! expressions. A rule that would not is shown raw (`-m nft --nft-rule`), which keeps it
//! whole. Without this a save of such a rule would not restore, or would restore another
//! rule. No kernel needed: the blobs are what the rule model encodes, as iptables-nft does.

mod common;

use iptnl::fuzzing::comparable;
use iptnl::ipt::decode::decode_rule_or_raw_with;
use iptnl::ipt::ext::SetIndex;
use iptnl::ipt::{
    encode_rule_for, encode_rule_with, parse_rule_str_with, parse_rule_with, split_restore_args,
    IpFamily, ReaderFloor, RuleSpec, RuleTarget,
};
use iptnl::nft::{Expr, Rule};

/// Every ipset name exists, with an index of its own, so that `-m set` and `SET` decode.
struct Sets(std::sync::Mutex<Vec<String>>);

impl SetIndex for Sets {
    fn index(&self, name: &str, _family: IpFamily) -> Result<u16, String> {
        let mut v = self.0.lock().unwrap();
        let i = v.iter().position(|n| n == name).unwrap_or_else(|| {
            v.push(name.to_owned());
            v.len() - 1
        });
        Ok(i as u16)
    }

    fn name(&self, index: u16) -> Option<String> {
        self.0.lock().unwrap().get(usize::from(index)).cloned()
    }
}

static SETS: Sets = Sets(std::sync::Mutex::new(Vec::new()));

fn readable(spec: &RuleSpec) -> bool {
    let bad = |s: &str| s.chars().any(|c| c.is_whitespace() || c == '"');
    let jump = matches!(&spec.target, Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) if bad(c));
    let iface = [&spec.in_iface, &spec.out_iface]
        .into_iter()
        .flatten()
        .any(|i| bad(&i.name));
    !jump && !iface
}

/// `None` when the rule holds, else what is wrong.
fn violation(rule: &Rule, family: IpFamily) -> Option<String> {
    let spec = decode_rule_or_raw_with(rule, family, &SETS);
    if spec.raw.is_some() || !readable(&spec) {
        return None;
    }
    let line = spec.to_save_args();
    // Read back as a restore reads a save line.
    let words = match split_restore_args(&line) {
        Ok(w) => w,
        Err(e) => return Some(format!("{line:?} does not split back: {e}")),
    };
    let again = match parse_rule_with(family, &words, &SETS) {
        Ok(mut v) if v.len() == 1 => v.pop().unwrap(),
        Ok(v) => return Some(format!("{line:?} parses back as {} rules", v.len())),
        Err(e) => return Some(format!("{line:?} does not parse back: {e}")),
    };
    // The same bytes in one writer's layout: a blob iptables 1.8.7 writes (x_tables `tcp`
    // with ports) is read back as the rule 1.8.9 writes natively, and is that rule at 1.8.7.
    let want = comparable(&rule.exprs);
    let mut first = None;
    for floor in ReaderFloor::LAYOUTS {
        match encode_rule_for(&again, family, &rule.table, &rule.chain, &SETS, floor) {
            Ok(r) if comparable(&r.exprs) == want => return None,
            Ok(_) => {
                first.get_or_insert_with(|| format!("{line:?} is read back as another rule"));
            }
            Err(e) => {
                first
                    .get_or_insert_with(|| format!("{line:?} does not encode once read back: {e}"));
            }
        }
    }
    first
}

#[test]
fn every_decoded_blob_prints_a_rule_that_reads_back_the_same() {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (fam, table, chain, text) in common::corpus_rules() {
        let Ok(specs) = parse_rule_str_with(fam, &text, &SETS) else {
            continue;
        };
        let Ok(rule) = encode_rule_with(&specs[0], fam, &table, &chain, &SETS) else {
            continue;
        };
        for (i, e) in rule.exprs.iter().enumerate() {
            let info = match e {
                Expr::Match(m) => &m.info,
                Expr::Target(t) => &t.info,
                _ => continue,
            };
            let mut variants: Vec<Vec<u8>> = vec![info.clone()];
            for at in 0..info.len() {
                for v in [0u8, 1, 0x80, 0xff, info[at] ^ 1] {
                    if v != info[at] {
                        let mut b = info.clone();
                        b[at] = v;
                        variants.push(b);
                    }
                }
            }
            if !info.is_empty() {
                variants.push(info[..info.len() - 1].to_vec());
            }
            for blob in variants {
                let mut r = rule.clone();
                match &mut r.exprs[i] {
                    Expr::Match(m) => m.info = blob.clone(),
                    Expr::Target(t) => t.info = blob.clone(),
                    _ => unreachable!(),
                }
                r.compat = None;
                checked += 1;
                if let Some(why) = violation(&r, fam) {
                    failures.push(format!("{text:?} ({fam:?}), blob {blob:02x?}: {why}"));
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} blobs checked");
    let n = failures.len();
    failures.sort();
    failures.dedup_by_key(|f| f.split(" (").next().unwrap().to_owned());
    assert!(
        failures.is_empty(),
        "{n} blobs of {checked} read back otherwise, e.g.:\n{}",
        failures
            .iter()
            .take(5000)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
