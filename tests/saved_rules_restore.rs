//! Whatever a save shows, a restore writes back byte for byte: rules shown in their iptables
//! form, rules carried whole (`-m nft --nft-rule`, of any size), and rules shown in
//! iptables' form with their bytes on a note line (even when that form would not parse).
//! Planned in memory (`iptnl::fuzzing`): no kernel needed.

use iptnl::fuzzing::comparable;
use iptnl::fuzzing::{plan_restore, MemRuleset};
use iptnl::ipt::decode::decode_rule_or_raw_with;
use iptnl::ipt::ext::NoSets;
use iptnl::ipt::savefile::TableFormat;
use iptnl::ipt::{encode_rule, parse_rule, IpFamily, ReaderFloor};
use iptnl::iptables::restore::RestoreOptions;
use iptnl::netlink::Messages;
use iptnl::nft::expr::meta::MetaKey;
use iptnl::nft::expr::{Cmp, Counter, Immediate, Match, Meta, Target};
use iptnl::nft::{Chain, Expr, Family, Rule, Verdict};
use iptnl::sys::nf_tables::NFT_MSG_NEWRULE;
use iptnl::sys::nfnetlink::nfnl_msg_id;

/// Saves `rule` in a user chain of filter for the reader floor `floor`, restores the save
/// at that floor into an empty ruleset, and returns the save and the rules the restore
/// writes.
fn save_and_restore(rule: &Rule, family: IpFamily, floor: ReaderFloor) -> (String, Vec<Rule>) {
    let mut r = rule.clone();
    r.table = "filter".into();
    r.chain = "X".into();
    let fmt = TableFormat {
        family,
        counters: true,
        date: "DATE",
        sets: &NoSets,
        floor,
    };
    // The chains the rule jumps to exist (a restore refuses a jump to a missing chain).
    let mut chains = vec![Chain::user(family.nft(), "filter", "X")];
    for e in &r.exprs {
        if let Expr::Immediate(i) = e {
            if let iptnl::nft::Data::Verdict(Verdict::Jump(c) | Verdict::Goto(c)) = &i.data {
                if c != "X" {
                    chains.push(Chain::user(family.nft(), "filter", c.clone()));
                }
            }
        }
    }
    let text = fmt.table("filter", &chains, &[r]);
    let opts = RestoreOptions {
        counters: true,
        floor: Some(floor),
        ..RestoreOptions::default()
    };
    let (ops, _) = plan_restore(&MemRuleset::new(family, 1), &text, &opts, &NoSets)
        .unwrap_or_else(|e| panic!("the save does not restore: {e}\n{text}"));
    let mut written = Vec::new();
    for op in &ops {
        for m in Messages::new(op) {
            let m = m.unwrap();
            if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                written.push(Rule::decode(&m).unwrap());
            }
        }
    }
    (text, written)
}

/// Saved and restored at every reader floor, `rule` is written back as it was.
fn assert_restores(rule: &Rule, family: IpFamily) {
    for floor in ReaderFloor::ALL {
        let (text, written) = save_and_restore(rule, family, floor);
        assert_eq!(written.len(), 1, "{floor}: {text}");
        assert_eq!(
            comparable(&written[0].exprs),
            comparable(&rule.exprs),
            "{floor}: {text}"
        );
        assert_eq!(written[0].userdata, rule.userdata, "{floor}: {text}");
    }
}

/// A rule `nft` wrote (`meta l4proto`, no counter) with an x_tables target.
fn native(proto: u8, target: Target) -> Rule {
    let mut r = Rule::new(Family::Ipv4, "filter", "X");
    r.exprs = vec![
        Meta::load_reg1(MetaKey::L4proto).into(),
        Cmp::eq(false, &[proto]).into(),
        target.into(),
    ];
    r
}

#[test]
fn a_rule_shown_in_a_form_that_does_not_parse_restores_from_its_note() {
    // CHECKSUM without --checksum-fill: iptables shows `-j CHECKSUM`, which no parser
    // takes; the save's note line carries the rule.
    let r = native(
        50,
        Target {
            name: "CHECKSUM".into(),
            rev: 0,
            info: vec![0; 8],
        },
    );
    let shown = decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets);
    assert!(shown.raw.is_some());
    assert_eq!(shown.to_save_args(), "-p esp -j CHECKSUM");
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn x_tables_blobs_whose_form_reads_back_otherwise_are_carried_whole() {
    // CONNMARK --restore-mark with an nfmask: its printed words say another rule.
    let spec = &parse_rule(
        IpFamily::V4,
        &["-j", "CONNMARK", "--restore-mark", "--nfmask", "0xf"],
    )
    .unwrap()[0];
    let mut r = encode_rule(spec, IpFamily::V4, "filter", "X").unwrap();
    r.compat = None;
    for e in &mut r.exprs {
        if let Expr::Target(t) = e {
            t.info[12] = 0xff; // a mode byte the options do not say
        }
    }
    let shown = decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets);
    assert!(shown.raw.is_some(), "{}", shown.to_save_args());
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn a_rule_carried_whole_restores_whatever_its_size() {
    // A match blob of 3 KiB: its hex is one word of over 6,000 bytes.
    let mut r = Rule::new(Family::Ipv4, "filter", "X");
    r.exprs = vec![
        Match {
            name: "fuzz".into(),
            rev: 0,
            info: (0..3072u32).map(|i| i as u8).collect(),
        }
        .into(),
        Counter::default().into(),
        Immediate::verdict(Verdict::Accept).into(),
    ];
    let shown = decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets);
    assert!(shown.to_save_args().len() > 6000);
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn names_a_save_line_cannot_carry_are_carried_whole() {
    for (family, args) in [
        (IpFamily::V4, &["-o", "a\"b", "-j", "ACCEPT"][..]),
        (IpFamily::V6, &["-i", "a b", "-j", "DROP"]),
        (IpFamily::V4, &["-i", "x\u{3000}", "-j", "ACCEPT"]),
        (IpFamily::V4, &["-j", "a\"b"]),
    ] {
        let spec = &parse_rule(family, args).unwrap()[0];
        let mut r = encode_rule(spec, family, "filter", "X").unwrap();
        r.compat = None;
        let shown = decode_rule_or_raw_with(&r, family, &NoSets);
        assert!(
            shown.raw.is_some(),
            "{args:?} shown as {}",
            shown.to_save_args()
        );
        assert_restores(&r, family);
    }
    // `nft` names chains as it likes.
    let mut r = Rule::new(Family::Ipv4, "filter", "X");
    r.exprs = vec![
        Counter::default().into(),
        Immediate::verdict(Verdict::Goto("c d".into())).into(),
    ];
    assert!(decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets)
        .raw
        .is_some());
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn words_end_at_their_first_nul_byte_as_in_iptables() {
    for (args, want) in [
        (&["-g", "z\0\0"][..], "-g z"),
        (&["-j", "KUBE\0X"], "-j KUBE"),
        (
            &["-m", "comment", "--comment", "a\0b", "-j", "ACCEPT"],
            "-m comment --comment a -j ACCEPT",
        ),
        (&["-o", "eth0\0x"], "-o eth0"),
        (
            &["-j", "LOG", "--log-prefix", "p\0q"],
            "-j LOG --log-prefix p",
        ),
    ] {
        let spec = &parse_rule(IpFamily::V4, args).unwrap()[0];
        assert_eq!(spec.to_save_args(), want, "{args:?}");
        let r = encode_rule(spec, IpFamily::V4, "filter", "X").unwrap();
        assert_restores(&r, IpFamily::V4);
    }
    assert!(parse_rule(IpFamily::V4, &["-j", "\0"]).is_err());
}

#[test]
fn what_iptables_does_not_print_is_carried_whole() {
    // `-i +` tests nothing and is written as nothing; iptables-nft 1.8.9 wrote it as a lone
    // meta load, which iptables-nft-save leaves out.
    for key in [MetaKey::Iifname, MetaKey::Oifname] {
        let mut r = Rule::new(Family::Ipv4, "filter", "X");
        r.exprs = vec![
            Meta::load_reg1(key).into(),
            Counter::default().into(),
            Immediate::verdict(Verdict::Accept).into(),
        ];
        let shown = decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets);
        assert!(shown.raw.is_some(), "shown as {}", shown.to_save_args());
        assert_restores(&r, IpFamily::V4);
    }
    let spec = &parse_rule(IpFamily::V4, &["-i", "+", "-j", "ACCEPT"]).unwrap()[0];
    let r = encode_rule(spec, IpFamily::V4, "filter", "X").unwrap();
    assert!(!r.exprs.iter().any(|e| matches!(e, Expr::Meta(_))));
    assert_restores(&r, IpFamily::V4);
}

/// A shown rule's form, read back as a restore reads it, encodes to the rule's expressions
/// (in one of the writers' layouts); otherwise it is carried whole.
fn assert_shown_form_reads_back(r: &Rule, family: IpFamily) {
    let shown = decode_rule_or_raw_with(r, family, &NoSets);
    if shown.raw.is_none() {
        let line = shown.to_save_args();
        let again = iptnl::ipt::parse_rule_str(family, &line)
            .unwrap_or_else(|e| panic!("{line:?} is shown but does not parse: {e}"));
        let encoded = ReaderFloor::LAYOUTS.iter().any(|&f| {
            iptnl::ipt::encode_rule_for(&again[0], family, &r.table, &r.chain, &NoSets, f)
                .is_ok_and(|e| comparable(&e.exprs) == comparable(&r.exprs))
        });
        assert!(encoded, "{line:?} reads back as another rule");
    }
}

/// [`assert_shown_form_reads_back`], and its save restores it at every floor.
fn assert_shown_reads_back(r: &Rule, family: IpFamily) {
    assert_shown_form_reads_back(r, family);
    assert_restores(r, family);
}

#[test]
fn names_iptables_refuses_or_reads_otherwise_are_carried_whole() {
    // Interface names of every length around IFNAMSIZ, as an exact name or a prefix, in
    // either sense: iptables takes none of 16 bytes or more (with its `+`), nor an empty one.
    for len in 0..=17 {
        for (nul, inv) in [(true, false), (false, false), (true, true), (false, true)] {
            let mut data = vec![b'e'; len];
            if nul {
                data.push(0);
            }
            if data.is_empty() {
                continue;
            }
            let mut r = Rule::new(Family::Ipv4, "filter", "X");
            r.exprs = vec![
                Meta::load_reg1(MetaKey::Oifname).into(),
                Cmp::eq(inv, &data).into(),
                Counter::default().into(),
                Immediate::verdict(Verdict::Accept).into(),
            ];
            assert_shown_reads_back(&r, IpFamily::V4);
        }
    }
    // Chain names `nft` may give: verdicts', target extensions', too long for `-j`.
    let long = |n: usize| "c".repeat(n);
    for name in [
        "ACCEPT".to_owned(),
        "DROP".to_owned(),
        "RETURN".to_owned(),
        "QUEUE".to_owned(),
        "LOG".to_owned(),
        "MASQUERADE".to_owned(),
        "REJECT".to_owned(),
        long(28),
        long(29),
        long(255),
    ] {
        for v in [Verdict::Jump(name.clone()), Verdict::Goto(name.clone())] {
            let mut r = Rule::new(Family::Ipv6, "filter", "X");
            r.exprs = vec![Counter::default().into(), Immediate::verdict(v).into()];
            // (Its save does not restore: a restore declares no chain of such a name.)
            assert_shown_form_reads_back(&r, IpFamily::V6);
        }
    }
}

#[test]
fn a_rule_without_expressions_restores() {
    let r = Rule::new(Family::Ipv4, "filter", "X");
    let shown = decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets);
    assert!(shown.raw.is_some());
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn a_form_with_a_line_break_is_not_shown() {
    // `recent --name` takes any text; carried whole because a line break in it reads back
    // otherwise, the rule cannot be shown in its form either: the save line would break.
    let spec = &parse_rule(
        IpFamily::V4,
        &["-m", "recent", "--rcheck", "--name", "a\nb"],
    )
    .unwrap()[0];
    let mut r = encode_rule(spec, IpFamily::V4, "filter", "X").unwrap();
    r.compat = None;
    let shown = decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets);
    assert!(
        shown.raw.is_some() && shown.view.is_none(),
        "{}",
        shown.to_save_args()
    );
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn line_breaks_read_from_the_kernel_stay_inside_their_lines() {
    // An expression name with a line break (the kernel takes any), in the note before a
    // rule carried whole.
    let mut r = Rule::new(Family::Ipv4, "filter", "X");
    r.exprs = vec![
        Expr::Raw(iptnl::nft::expr::RawExpr {
            name: "coun\nter".into(),
            data: None,
        }),
        Immediate::verdict(Verdict::Accept).into(),
    ];
    assert_restores(&r, IpFamily::V4);
    // A value printed last on its line with a carriage return, which a restore drops.
    let spec = &parse_rule(
        IpFamily::V6,
        &["-j", "SECMARK", "--selctx", "system_u:x\r\r"],
    )
    .unwrap()[0];
    let mut r = encode_rule(spec, IpFamily::V6, "filter", "X").unwrap();
    r.compat = None;
    assert!(decode_rule_or_raw_with(&r, IpFamily::V6, &NoSets)
        .raw
        .is_some());
    assert_restores(&r, IpFamily::V6);
}

#[test]
fn tcp_flags_iptables_cannot_name_are_carried_whole() {
    // Every mask and value of a native `--tcp-flags` test (`nft` may test CWR and ECE, which
    // iptables has no names for), in either sense.
    for mask in 0..=255u8 {
        for cmp in 0..=255u8 {
            let mut r = Rule::new(Family::Ipv6, "filter", "X");
            r.exprs = vec![
                Meta::load_reg1(MetaKey::L4proto).into(),
                Cmp::eq(false, &[6]).into(),
                iptnl::nft::expr::Payload::load_reg1(
                    iptnl::nft::expr::PayloadBase::Transport,
                    13,
                    1,
                )
                .into(),
                iptnl::nft::expr::bitwise::Bitwise::mask(&[mask]).into(),
                Cmp::eq(cmp % 2 == 1 && mask == 0x3f, &[cmp]).into(),
                Counter::default().into(),
                Immediate::verdict(Verdict::Drop).into(),
            ];
            assert_shown_form_reads_back(&r, IpFamily::V6);
        }
    }
    // One of them through a save, at every floor.
    let mut r = Rule::new(Family::Ipv4, "filter", "X");
    r.exprs = vec![
        Meta::load_reg1(MetaKey::L4proto).into(),
        Cmp::eq(false, &[6]).into(),
        iptnl::nft::expr::Payload::load_reg1(iptnl::nft::expr::PayloadBase::Transport, 13, 1)
            .into(),
        iptnl::nft::expr::bitwise::Bitwise::mask(&[0xbf]).into(),
        Cmp::eq(false, &[0]).into(),
        Counter::default().into(),
        Immediate::verdict(Verdict::Drop).into(),
    ];
    assert!(decode_rule_or_raw_with(&r, IpFamily::V4, &NoSets)
        .raw
        .is_some());
    assert_restores(&r, IpFamily::V4);
}

#[test]
fn a_rule_written_at_any_floor_survives_a_save_at_any_floor() {
    // The extensions whose encoding depends on the reader floor, each written as each
    // writer's layout writes it, saved for every floor and restored at it.
    for (family, text) in [
        (IpFamily::V4, "-p tcp -m tcp --dport 22 -j ACCEPT"),
        (IpFamily::V4, "-p tcp --tcp-flags SYN,ACK SYN -j DROP"),
        (IpFamily::V6, "-p udp --sport 53 -j ACCEPT"),
        (IpFamily::V4, "-m mark --mark 0x4000/0x4000 -j MASQUERADE"),
        (IpFamily::V4, "-j NFLOG --nflog-group 3 --nflog-prefix p"),
        (IpFamily::V6, "-j SECMARK --selctx system_u:object_r:x_t:s0"),
        (IpFamily::V4, "-s 10.0.0.0/8 -p tcp -j ACCEPT"),
        (IpFamily::V4, "-i + -o eth0 -j ACCEPT"),
    ] {
        let spec = &iptnl::ipt::parse_rule_str(family, text).unwrap()[0];
        for floor in ReaderFloor::ALL {
            let r =
                iptnl::ipt::encode_rule_for(spec, family, "filter", "X", &NoSets, floor).unwrap();
            assert_shown_form_reads_back(&r, family);
            assert_restores(&r, family);
        }
    }
}
