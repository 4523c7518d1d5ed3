//! The restore input parser and the planner, without a kernel: the input is parsed and
//! planned against a small ruleset held in memory (`iptnl::fuzzing::MemRuleset`: filter and
//! nat with built-in chains, two user chains with rules), as `iptables-restore` would plan it.
//! A plan either fails with an error that names a line of the input, or gives a batch whose
//! every message reads back, whose every rule decodes exactly (iptnl never writes a rule it
//! would show raw, unless the input carried it raw or its iptables form does not read back,
//! when it is shown in that form), and whose every rule passes the decoder's
//! checks (`iptnl_fuzz::check_decoded`).
//!
//! Input: a flag byte (bit 0: IPv6; bit 1: `--noflush`; bit 2: `--counters`; bit 3: `--test`;
//! bits 4-5: `--table` none, `filter`, `nat`, `mangle`; bits 6-7: the reader floor, 1.8.7,
//! 1.8.9, 1.8.11 or 1.8.13), then the restore text.
#![no_main]

use iptnl::fuzzing::{plan_restore, MemRuleset};
use iptnl::ipt::decode::{decode_rule_or_raw_with, decode_rule_with};
use iptnl::ipt::tables::find_table;
use iptnl::ipt::{encode_rule_with, parse_rule_str_with, IpFamily, ReaderFloor};
use iptnl::iptables::restore::{RestoreError, RestoreOptions};
use iptnl::netlink::Messages;
use iptnl::nft::{Chain, Expr, Policy, Rule};
use iptnl::sys::nf_tables::NFT_MSG_NEWRULE;
use iptnl::sys::nfnetlink::nfnl_msg_id;
use iptnl_fuzz::{check_decoded, family, Sets};
use libfuzzer_sys::fuzz_target;

fn ruleset(fam: IpFamily) -> MemRuleset {
    let mut m = MemRuleset::new(fam, 41);
    for (table, user) in [("filter", "KUBE-SERVICES"), ("nat", "KUBE-POSTROUTING")] {
        let t = find_table(table).expect("a table iptables knows");
        for b in t.chains {
            m.add_chain(b.to_chain(fam, table, Policy::Accept, Some((3, 180))));
        }
        m.add_chain(Chain::user(fam.nft(), table, user));
    }
    let addr = if fam == IpFamily::V4 {
        "10.0.0.1"
    } else {
        "fd00::1"
    };
    let rules = [
        ("filter", "INPUT", "-j KUBE-SERVICES".to_owned()),
        ("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT".to_owned()),
        (
            "filter",
            "KUBE-SERVICES",
            format!("-d {addr} -p tcp -m comment --comment \"svc a\" -m tcp --dport 80 -j REJECT"),
        ),
        (
            "filter",
            "KUBE-SERVICES",
            "-m conntrack --ctstate INVALID -j DROP".to_owned(),
        ),
        (
            "filter",
            "KUBE-SERVICES",
            "-m set --match-set web src -j RETURN"
                .replace("web", if fam == IpFamily::V4 { "web" } else { "web6" }),
        ),
        ("nat", "POSTROUTING", "-j KUBE-POSTROUTING".to_owned()),
        (
            "nat",
            "KUBE-POSTROUTING",
            "-m mark --mark 0x4000/0x4000 -j MASQUERADE".to_owned(),
        ),
    ];
    for (table, chain, text) in rules {
        let spec = &parse_rule_str_with(fam, &text, &Sets).expect("a seed rule parses")[0];
        let rule: Rule = encode_rule_with(spec, fam, table, chain, &Sets).expect("encodes");
        m.add_rule(rule);
    }
    m
}

fuzz_target!(|data: &[u8]| {
    iptnl::fuzzing::no_host_lookups();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(input) = std::str::from_utf8(rest) else {
        return;
    };
    let fam = family(flags & 1 != 0);
    let opts = RestoreOptions {
        noflush: flags & 2 != 0,
        counters: flags & 4 != 0,
        test: flags & 8 != 0,
        table: [None, Some("filter"), Some("nat"), Some("mangle")][usize::from(flags >> 4 & 3)]
            .map(str::to_owned),
        verbose: false,
        floor: Some(ReaderFloor::ALL[usize::from(flags >> 6)]),
    };
    let lines = input.split('\n').count().max(1);
    match plan_restore(&ruleset(fam), input, &opts, &Sets) {
        Ok((ops, _report)) => {
            for op in &ops {
                let mut n = 0;
                for m in Messages::new(op) {
                    let m = m.expect("a batch message reads back");
                    n += 1;
                    if nfnl_msg_id(m.msg_type()) != NFT_MSG_NEWRULE {
                        continue;
                    }
                    let rule = Rule::decode(&m).expect("a batch rule reads back");
                    let spec = decode_rule_or_raw_with(&rule, fam, &Sets);
                    // Carried whole only when the input carried it so, or when its
                    // iptables form would not read back (it is then shown in that form).
                    // (A form with a line break or a carriage return, which iptables takes
                    // in a log prefix or a comment, is not shown: a save line could not
                    // hold it.)
                    let unshowable = || {
                        let broken = |b: &[u8]| b.contains(&b'\n') || b.contains(&b'\r');
                        rule.exprs.iter().any(|e| match e {
                            Expr::Match(m) => broken(&m.info),
                            Expr::Target(t) => broken(&t.info),
                            _ => false,
                        }) || decode_rule_with(&rule, fam, &Sets)
                            .is_ok_and(|s| s.to_save_args().contains(['\n', '\r']))
                    };
                    assert!(
                        spec.raw.is_none()
                            || spec.view.is_some()
                            || input.contains("--nft-rule")
                            || unshowable(),
                        "a rule written from the input is shown raw: {rule}"
                    );
                    check_decoded(&rule, fam, None);
                }
                assert_eq!(n, 1, "one message per operation");
            }
        }
        Err(RestoreError::Input { line, msg }) => {
            assert!(line >= 1 && line <= lines, "line {line} of {lines}: {msg}");
            assert!(!msg.is_empty());
        }
        Err(e) => panic!("a restore planned in memory fails otherwise: {e}"),
    }
});
