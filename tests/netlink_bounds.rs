//! Bounds checks of the decoders: arbitrary bytes, and valid messages truncated or with bytes
//! flipped, never make a decoder panic, loop forever or read out of bounds; valid encoded
//! rules, chains and tables always decode back equal.

use iptnl::netlink::{Attrs, Message, Messages, MsgWriter};
use iptnl::nft::expr::{
    Cmp, CmpOp, Counter, Expr, Immediate, Match, Payload, PayloadBase, PayloadCsum, PayloadOp,
    RawExpr, Target,
};
use iptnl::nft::{
    Chain, ChainType, Data, Family, Hook, Policy, Rule, RuleCompat, Table, Value, Verdict,
};
use iptnl::sys::netlink::{NLMSG_ERROR, NLM_F_ACK_TLVS, NLM_F_CAPPED};
use iptnl::sys::nf_tables::*;
use iptnl::sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Exercising every decoder on a buffer

/// Calls every accessor and decoder on each attribute of `buf` and descends into every
/// attribute as if it were a nest, level after level (with an explicit stack, so that a
/// thousand-deep nest does not exhaust the test thread's stack). Returns the number of
/// attributes seen in all.
fn walk_attrs(buf: &[u8]) -> usize {
    let mut total = 0;
    let mut pending = vec![buf];
    while let Some(buf) = pending.pop() {
        let mut n = 0;
        let mut it = Attrs::new(buf);
        let mut failed = false;
        for a in it.by_ref() {
            n += 1;
            // Each attribute takes at least 4 bytes, and nothing follows an error.
            assert!(n <= buf.len() / 4 + 1, "more attributes than bytes allow");
            assert!(!failed, "an attribute after an error");
            match a {
                Ok(a) => {
                    let _ = (a.kind(), a.raw_type(), a.has_nested_flag());
                    let _ = (
                        a.u8(),
                        a.be16(),
                        a.be32(),
                        a.be32_signed(),
                        a.be64(),
                        a.ne32(),
                    );
                    let _ = a.str().map_err(|e| e.to_string());
                    let _ = Value::decode(a);
                    let _ = Data::decode(a);
                    let _ = Verdict::decode_inner(a);
                    let _ = Expr::decode(a).map(|e| e.to_string());
                    let _ = Expr::decode_list(a);
                    let _ = a.nested().table::<8>();
                    let _ = a.nested().table::<64>();
                    assert!(a.data().len() + 4 <= buf.len());
                    pending.push(a.data());
                }
                Err(e) => {
                    let _ = e.to_string();
                    failed = true;
                }
            }
        }
        assert!(it.next().is_none(), "the iterator restarted after its end");
        total += n;
    }
    total
}

fn poke_message(m: &Message<'_>) {
    let _ = (m.msg_type(), m.flags(), m.seq(), m.pid(), m.bytes().len());
    assert!(m.bytes().len() >= 16);
    let _ = m.payload().len();
    if let Ok(e) = m.error() {
        let _ = (e.errno, e.orig_type, e.orig_seq, e.ext_msg, e.ext_offset);
    }
    let _ = Rule::decode(m).map(|r| r.to_string());
    let _ = Chain::decode(m);
    let _ = Table::decode(m);
    if let Ok(nf) = m.nfgen() {
        let _ = (nf.family, nf.version, nf.res_id);
        walk_attrs(nf.attr_bytes());
        let _ = nf.attrs().table::<{ NFTA_RULE_CHAIN_ID as usize + 8 }>();
    }
}

/// Feeds `buf` to the message iterator and everything below it.
fn poke_buffer(buf: &[u8]) {
    let mut n = 0;
    let mut it = Messages::new(buf);
    let mut failed = false;
    for m in it.by_ref() {
        n += 1;
        assert!(n <= buf.len() / 16 + 1, "more messages than bytes allow");
        assert!(!failed, "a message after an error");
        match m {
            Ok(m) => poke_message(&m),
            Err(e) => {
                let _ = e.to_string();
                failed = true;
            }
        }
    }
    assert!(it.next().is_none());
}

/// A well-formed `nlmsghdr` + `nfgenmsg` around arbitrary attribute bytes.
fn wrap(ty: u16, flags: u16, family: u8, attrs: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(20 + attrs.len());
    v.extend_from_slice(&((20 + attrs.len()) as u32).to_ne_bytes());
    v.extend_from_slice(&ty.to_ne_bytes());
    v.extend_from_slice(&flags.to_ne_bytes());
    v.extend_from_slice(&7u32.to_ne_bytes());
    v.extend_from_slice(&0u32.to_ne_bytes());
    v.extend_from_slice(&[family, 0, 0, 0]);
    v.extend_from_slice(attrs);
    v
}

/// An attribute of type `ty` around arbitrary bytes, padded to 4 bytes; `len` overrides the
/// length in its header (to make it lie).
fn attr(ty: u16, len: Option<u16>, payload: &[u8]) -> Vec<u8> {
    let l = len.unwrap_or((4 + payload.len()) as u16);
    let mut v = Vec::new();
    v.extend_from_slice(&l.to_ne_bytes());
    v.extend_from_slice(&ty.to_ne_bytes());
    v.extend_from_slice(payload);
    v.resize((v.len() + 3) & !3, 0);
    v
}

// ---------------------------------------------------------------------------------------------
// Strategies for valid objects

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.-]{0,32}"
}

fn value() -> impl Strategy<Value = Value> {
    prop::collection::vec(any::<u8>(), 0..=64).prop_map(|v| Value::new(&v).unwrap())
}

fn verdict() -> impl Strategy<Value = Verdict> {
    prop_oneof![
        Just(Verdict::Accept),
        Just(Verdict::Drop),
        Just(Verdict::Queue),
        Just(Verdict::Stolen),
        Just(Verdict::Continue),
        Just(Verdict::Break),
        Just(Verdict::Return),
        name().prop_map(Verdict::Jump),
        name().prop_map(Verdict::Goto),
        any::<u32>().prop_map(Verdict::JumpId),
        any::<u32>().prop_map(Verdict::GotoId),
        // Codes that are not one of the named verdicts.
        any::<i32>()
            .prop_filter("named verdict", |c| !(-5..=3).contains(c))
            .prop_map(Verdict::Other),
    ]
}

fn payload_base() -> impl Strategy<Value = PayloadBase> {
    prop_oneof![
        Just(PayloadBase::LinkLayer),
        Just(PayloadBase::Network),
        Just(PayloadBase::Transport),
        Just(PayloadBase::Inner),
        (4u32..).prop_map(PayloadBase::Other),
    ]
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Neq),
        Just(CmpOp::Lt),
        Just(CmpOp::Lte),
        Just(CmpOp::Gt),
        Just(CmpOp::Gte),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let csum = (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(csum_type, offset, flags)| {
        PayloadCsum {
            csum_type,
            offset,
            flags,
        }
    });
    let payload_op = prop_oneof![
        any::<u32>().prop_map(|dreg| PayloadOp::Load { dreg }),
        (any::<u32>(), prop::option::of(csum))
            .prop_map(|(sreg, csum)| PayloadOp::Set { sreg, csum }),
    ];
    prop_oneof![
        (payload_base(), any::<u32>(), any::<u32>(), payload_op).prop_map(
            |(base, offset, len, op)| Payload {
                base,
                offset,
                len,
                op
            }
            .into()
        ),
        (any::<u32>(), cmp_op(), value())
            .prop_map(|(sreg, op, data)| Cmp { sreg, op, data }.into()),
        (any::<u64>(), any::<u64>()).prop_map(|(packets, bytes)| Counter { packets, bytes }.into()),
        (any::<u32>(), value()).prop_map(|(dreg, v)| Immediate {
            dreg,
            data: Data::Value(v)
        }
        .into()),
        verdict().prop_map(|v| Immediate::verdict(v).into()),
        (
            name(),
            any::<u32>(),
            prop::collection::vec(any::<u8>(), 0..300)
        )
            .prop_map(|(name, rev, info)| Match {
                name: name.into(),
                rev,
                info
            }
            .into()),
        (
            name(),
            any::<u32>(),
            prop::collection::vec(any::<u8>(), 0..300)
        )
            .prop_map(|(name, rev, info)| Target {
                name: name.into(),
                rev,
                info
            }
            .into()),
        // Names no expression type of iptnl uses, so they stay raw.
        (
            "zz[a-z]{0,10}",
            prop::option::of(prop::collection::vec(any::<u8>(), 0..100))
        )
            .prop_map(|(name, data)| Expr::Raw(RawExpr { name, data })),
    ]
}

fn family() -> impl Strategy<Value = Family> {
    prop::sample::select(Family::ALL.to_vec())
}

fn rule() -> impl Strategy<Value = Rule> {
    (
        family(),
        name(),
        name(),
        prop::option::of(any::<u64>()),
        prop::collection::vec(expr(), 0..8),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..200)),
        prop::option::of((any::<u32>(), any::<u32>())),
        prop::option::of(any::<u64>()),
    )
        .prop_map(
            |(family, table, chain, handle, exprs, userdata, compat, position)| Rule {
                family,
                table,
                chain,
                handle,
                exprs,
                userdata,
                compat: compat.map(|(proto, flags)| RuleCompat { proto, flags }),
                position,
                bound_sets: Vec::new(),
            },
        )
}

fn chain() -> impl Strategy<Value = Chain> {
    let chain_type = prop_oneof![
        Just(ChainType::Filter),
        Just(ChainType::Nat),
        Just(ChainType::Route),
        "x[a-z]{0,8}".prop_map(ChainType::Other),
    ];
    let hook = (
        any::<u32>(),
        any::<i32>(),
        chain_type,
        prop::option::of(prop_oneof![Just(Policy::Accept), Just(Policy::Drop)]),
        prop::collection::vec("[a-z0-9]{0,15}", 0..4),
    )
        .prop_map(|(num, priority, chain_type, policy, devices)| Hook {
            num,
            priority,
            chain_type,
            policy,
            devices,
        });
    (
        family(),
        name(),
        name(),
        prop::option::of(any::<u64>()),
        prop::option::of(hook),
        prop::option::of((any::<u64>(), any::<u64>())),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..100)),
    )
        .prop_map(
            |(family, table, name, handle, hook, counters, userdata)| Chain {
                handle,
                hook,
                counters,
                userdata,
                ..Chain::user(family, table, name)
            },
        )
}

fn table() -> impl Strategy<Value = Table> {
    (
        family(),
        name(),
        any::<u32>(),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..100)),
    )
        .prop_map(|(family, name, flags, userdata)| Table {
            flags,
            userdata,
            ..Table::new(family, name)
        })
}

fn encode_msg(msg: u16, family: Family, body: impl FnOnce(&mut MsgWriter)) -> Vec<u8> {
    let mut w = MsgWriter::new();
    let m = w.begin(
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, msg),
        0,
        1,
        family.raw(),
        0,
    );
    body(&mut w);
    w.finish(m).expect("small objects fit");
    w.into_bytes()
}

fn encode_rule(r: &Rule) -> Vec<u8> {
    encode_msg(NFT_MSG_NEWRULE, r.family, |w| {
        r.encode(w, r.handle, r.position, None, None)
    })
}

fn only_message(buf: &[u8]) -> Message<'_> {
    let mut it = Messages::new(buf);
    let m = it.next().expect("one message").expect("well formed");
    assert!(it.next().is_none());
    m
}

/// Applies byte flips, then a truncation; with `fix_len` the message length is patched to the
/// truncated size so that the damage reaches the attribute decoders.
fn mutate(mut bytes: Vec<u8>, flips: &[(usize, u8)], cut: usize, fix_len: bool) -> Vec<u8> {
    if bytes.is_empty() {
        return bytes;
    }
    for &(i, x) in flips {
        let i = i % bytes.len();
        bytes[i] ^= x.max(1);
    }
    bytes.truncate(cut % (bytes.len() + 1));
    if fix_len && bytes.len() >= 4 {
        let l = bytes.len() as u32;
        bytes[..4].copy_from_slice(&l.to_ne_bytes());
    }
    bytes
}

proptest! {
    // 256 cases each by default; PROPTEST_CASES=100000 for a longer run.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        poke_buffer(&bytes);
        walk_attrs(&bytes);
    }

    #[test]
    fn arbitrary_attributes_in_a_valid_header_never_panic(
        ty in prop_oneof![
            Just(nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE)),
            Just(nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWCHAIN)),
            Just(nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWTABLE)),
            Just(NLMSG_ERROR),
            any::<u16>(),
        ],
        flags in prop_oneof![Just(0u16), Just(NLM_F_CAPPED), Just(NLM_F_ACK_TLVS), Just(NLM_F_CAPPED | NLM_F_ACK_TLVS), any::<u16>()],
        family in any::<u8>(),
        attrs in prop::collection::vec(any::<u8>(), 0..2048),
    ) {
        poke_buffer(&wrap(ty, flags, family, &attrs));
        // The same bytes as the payload of one attribute, for the expression list decoder.
        let a = attr(NFTA_RULE_EXPRESSIONS, None, &attrs[..attrs.len().min(60_000)]);
        if let Some(Ok(a)) = Attrs::new(&a).next() {
            let _ = Expr::decode_list(a);
            let _ = Expr::decode(a);
        }
    }

    #[test]
    fn valid_rules_decode_back_equal(r in rule()) {
        let bytes = encode_rule(&r);
        let got = Rule::decode(&only_message(&bytes)).expect("a valid rule decodes");
        let mut want = r.clone();
        // NFTA_RULE_COMPAT is write-only: the kernel never dumps it.
        want.compat = None;
        prop_assert_eq!(got, want);
    }

    #[test]
    fn valid_chains_decode_back_equal(c in chain()) {
        let bytes = encode_msg(NFT_MSG_NEWCHAIN, c.family, |w| c.encode(w));
        let got = Chain::decode(&only_message(&bytes)).expect("a valid chain decodes");
        // A hook's devices are written as NFTA_HOOK_DEV (one) or NFTA_HOOK_DEVS (several)
        // and read back as one list either way.
        prop_assert_eq!(got, c);
    }

    #[test]
    fn valid_tables_decode_back_equal(t in table()) {
        let bytes = encode_msg(NFT_MSG_NEWTABLE, t.family, |w| t.encode(w));
        let got = Table::decode(&only_message(&bytes)).expect("a valid table decodes");
        prop_assert_eq!(got, t);
    }

    #[test]
    fn damaged_rules_never_panic(
        r in rule(),
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        cut in any::<usize>(),
        fix_len in any::<bool>(),
    ) {
        let bytes = mutate(encode_rule(&r), &flips, cut, fix_len);
        poke_buffer(&bytes);
        walk_attrs(&bytes);
        // Two copies back to back: damage in the first must not derail reading the second
        // out of bounds.
        let mut two = bytes.clone();
        two.extend_from_slice(&encode_rule(&r));
        poke_buffer(&two);
    }

    #[test]
    fn damaged_chains_and_tables_never_panic(
        c in chain(),
        t in table(),
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        cut in any::<usize>(),
        fix_len in any::<bool>(),
    ) {
        let cb = encode_msg(NFT_MSG_NEWCHAIN, c.family, |w| c.encode(w));
        poke_buffer(&mutate(cb, &flips, cut, fix_len));
        let tb = encode_msg(NFT_MSG_NEWTABLE, t.family, |w| t.encode(w));
        poke_buffer(&mutate(tb, &flips, cut, fix_len));
    }

    #[test]
    fn damaged_expression_lists_never_panic(
        exprs in prop::collection::vec(expr(), 1..6),
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        let mut w = MsgWriter::new();
        Expr::encode_list(&exprs, &mut w, NFTA_RULE_EXPRESSIONS);
        let mut bytes = w.into_bytes();
        // Keep the outer header intact so the damage lands inside the list.
        let body = bytes.split_off(4);
        let body = mutate(body, &flips, cut, false);
        let outer = attr(NFTA_RULE_EXPRESSIONS, None, &body);
        if let Some(Ok(a)) = Attrs::new(&outer).next() {
            if let Ok(list) = Expr::decode_list(a) {
                for e in &list {
                    let _ = e.to_string();
                    // Whatever decoded re-encodes without panicking.
                    e.encode(&mut MsgWriter::new());
                }
            }
        }
        walk_attrs(&outer);
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-made nasty cases

#[test]
fn attribute_lengths_below_the_header_stop_iteration() {
    for len in 0u16..4 {
        for trailing in 0..12 {
            let mut buf = attr(1, Some(len), &[]);
            buf.resize(buf.len() + trailing, 0xAA);
            let items: Vec<_> = Attrs::new(&buf).collect();
            assert_eq!(items.len(), 1, "nla_len {len}");
            assert!(items[0].is_err(), "nla_len {len} accepted");
            walk_attrs(&buf);
            poke_buffer(&wrap(
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE),
                0,
                2,
                &buf,
            ));
        }
    }
    // A good attribute then a zero-length one: the first is read, then one error, then end.
    let mut buf = attr(1, None, &[1, 2, 3, 4]);
    buf.extend(attr(2, Some(0), &[0; 8]));
    let items: Vec<_> = Attrs::new(&buf).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().data(), &[1, 2, 3, 4]);
    assert!(items[1].is_err());
}

#[test]
fn attribute_lengths_beyond_the_buffer_are_errors() {
    for extra in [1u16, 3, 4, 100, 65_535 - 12] {
        let buf = attr(3, Some(12 + extra), &[0; 8]);
        let items: Vec<_> = Attrs::new(&buf).collect();
        assert_eq!(items.len(), 1);
        assert!(items[0].is_err(), "nla_len {} in 12 bytes", 12 + extra);
    }
    // A last attribute whose padding is missing is fine (the kernel omits nothing, but the
    // reader must not step past the end).
    let buf = [5u8, 0, 3, 0, 9];
    let items: Vec<_> = Attrs::new(&buf).collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap().data(), &[9]);
    // Header cut in the middle.
    for n in 1..4 {
        let items: Vec<_> = Attrs::new(&[8u8, 0, 1, 0][..n]).collect();
        assert_eq!(items.len(), 1);
        assert!(items[0].is_err());
    }
}

#[test]
fn message_lengths_below_the_header_or_beyond_the_buffer_are_errors() {
    for len in 0u32..16 {
        let mut buf = wrap(0x0a06, 0, 2, &[0; 16]);
        buf[..4].copy_from_slice(&len.to_ne_bytes());
        let items: Vec<_> = Messages::new(&buf).collect();
        assert_eq!(items.len(), 1, "nlmsg_len {len}");
        assert!(items[0].is_err(), "nlmsg_len {len} accepted");
    }
    for len in [37u32, 64, 65_536, u32::MAX] {
        let mut buf = wrap(0x0a06, 0, 2, &[0; 16]);
        buf[..4].copy_from_slice(&len.to_ne_bytes());
        let items: Vec<_> = Messages::new(&buf).collect();
        assert_eq!(items.len(), 1, "nlmsg_len {len}");
        assert!(items[0].is_err(), "nlmsg_len {len} in 36 bytes accepted");
    }
    // Buffers shorter than a header.
    for n in 0..16 {
        let buf = vec![0xFFu8; n];
        let items: Vec<_> = Messages::new(&buf).collect();
        assert_eq!(items.len(), usize::from(n > 0));
        poke_buffer(&buf);
    }
    // A header-only message: no nfgenmsg, no nlmsgerr.
    let mut buf = wrap(0x0a06, 0, 2, &[]);
    buf.truncate(16);
    buf[..4].copy_from_slice(&16u32.to_ne_bytes());
    let m = only_message(&buf);
    assert!(m.nfgen().is_err());
    assert!(m.error().is_err());
    assert!(Rule::decode(&m).is_err());
    assert!(Chain::decode(&m).is_err());
    assert!(Table::decode(&m).is_err());
    // Unaligned length of the last message.
    let mut buf = wrap(0x0a06, 0, 2, &[8, 0, 1, 0, 0, 0, 0, 1, 7]);
    assert_eq!(buf.len(), 29);
    poke_buffer(&buf);
    buf.extend_from_slice(&[0; 3]);
    poke_buffer(&buf);
}

#[test]
fn error_messages_with_lying_lengths_are_read_safely() {
    for flags in [
        0,
        NLM_F_CAPPED,
        NLM_F_ACK_TLVS,
        NLM_F_CAPPED | NLM_F_ACK_TLVS,
    ] {
        for (orig_len, errno) in [0u32, 15, 16, 17, 20, 1000, u32::MAX]
            .into_iter()
            .flat_map(|l| [(l, -22i32), (l, i32::MIN), (l, i32::MAX), (l, 0)])
        {
            let mut p = Vec::new();
            p.extend_from_slice(&errno.to_ne_bytes());
            p.extend_from_slice(&orig_len.to_ne_bytes());
            p.extend_from_slice(&[0x06, 0x0a, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
            // Some TLVs, one of them lying about its length.
            p.extend(attr(1, None, b"bad rule\0"));
            p.extend(attr(2, None, &4u32.to_ne_bytes()));
            p.extend(attr(3, Some(200), &[0; 4]));
            let mut buf = Vec::new();
            buf.extend_from_slice(&((16 + p.len()) as u32).to_ne_bytes());
            buf.extend_from_slice(&NLMSG_ERROR.to_ne_bytes());
            buf.extend_from_slice(&flags.to_ne_bytes());
            buf.extend_from_slice(&[0; 8]);
            buf.extend_from_slice(&p);
            let m = only_message(&buf);
            let e = m.error().expect("header is complete");
            // Any errno value, even one no kernel sends, reads without overflow.
            assert_eq!(e.errno, errno.saturating_neg());
            assert_eq!(e.orig_seq, 9);
            if flags == NLM_F_CAPPED | NLM_F_ACK_TLVS && errno != 0 {
                assert_eq!(e.ext_msg, Some("bad rule"));
                assert_eq!(e.ext_offset, Some(4));
            }
            poke_buffer(&buf);
            for cut in 16..buf.len() {
                let mut b = buf[..cut].to_vec();
                b[..4].copy_from_slice(&(cut as u32).to_ne_bytes());
                poke_buffer(&b);
            }
        }
    }
}

/// `depth` nests of type `ty`, one inside the other, around `core`.
fn deep_nest(depth: usize, ty: u16, core: &[u8]) -> Vec<u8> {
    let mut w = MsgWriter::new();
    let nests: Vec<_> = (0..depth).map(|_| w.nest(ty)).collect();
    w.put(ty, core);
    for n in nests.into_iter().rev() {
        w.end_nest(n);
    }
    w.into_bytes()
}

#[test]
fn nests_a_thousand_deep_are_walked_and_refused_safely() {
    for ty in [
        NFTA_LIST_ELEM,
        NFTA_RULE_EXPRESSIONS,
        NFTA_EXPR_DATA,
        NFTA_DATA_VERDICT,
    ] {
        let deep = deep_nest(1000, ty, b"x\0");
        assert_eq!(deep.len(), 1000 * 4 + 8);
        // Recursing into each level finds exactly one attribute per level.
        fn levels(buf: &[u8]) -> usize {
            match Attrs::new(buf).next() {
                Some(Ok(a)) if a.data().len() >= 4 => 1 + levels(a.data()),
                Some(Ok(_)) => 1,
                _ => 0,
            }
        }
        assert_eq!(levels(&deep), 1001);
        // 1001 attributes, plus one error for the 2-byte core read as a nest.
        assert_eq!(walk_attrs(&deep), 1002);
        let a = Attrs::new(&deep).next().unwrap().unwrap();
        let _ = Expr::decode_list(a);
        let _ = Expr::decode(a);
        let _ = Data::decode(a);
        let _ = Verdict::decode_inner(a);
        // As the expression list, table, chain or hook of a message.
        for top in [
            NFTA_RULE_EXPRESSIONS,
            NFTA_RULE_TABLE,
            NFTA_CHAIN_HOOK,
            NFTA_CHAIN_COUNTERS,
        ] {
            let mut w = MsgWriter::new();
            w.put_str(NFTA_RULE_TABLE, "t");
            w.put_str(NFTA_RULE_CHAIN, "c");
            w.put(top, &deep);
            let msg = wrap(
                nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE),
                0,
                2,
                w.as_bytes(),
            );
            poke_buffer(&msg);
        }
    }
    // The deepest nest that fits in a 16-bit length.
    let deepest = deep_nest((65_535 - 8) / 4, NFTA_LIST_ELEM, b"x\0");
    assert!(deepest.len() <= 65_535);
    let a = Attrs::new(&deepest).next().unwrap().unwrap();
    assert!(Expr::decode_list(a).is_err());
    let _ = Expr::decode(a);
}

#[test]
fn a_valid_rule_survives_every_truncation_point() {
    let mut r = Rule::new(Family::Ipv4, "nat", "KUBE-SERVICES");
    r.exprs = vec![
        Payload::load(PayloadBase::Network, 16, 4, 1).into(),
        Cmp {
            sreg: 1,
            op: CmpOp::Eq,
            data: Value::new(&[10, 96, 0, 1]).unwrap(),
        }
        .into(),
        Match {
            name: "comment".into(),
            rev: 0,
            info: vec![b'x'; 256],
        }
        .into(),
        Counter::default().into(),
        Immediate::verdict(Verdict::Jump("KUBE-SVC-ABC".into())).into(),
    ];
    // A multiple of 4 bytes, so that the message ends without padding and any cut loses data.
    r.userdata = Some(vec![0, 6, b'h', b'e', b'l', b'l', b'o', 0]);
    let full = encode_rule(&r);
    assert_eq!(Rule::decode(&only_message(&full)).unwrap(), r);
    for cut in 0..full.len() {
        for fix_len in [false, true] {
            let b = mutate(full.clone(), &[], cut, fix_len);
            poke_buffer(&b);
            if fix_len && cut >= 20 {
                // A cut rule either fails to decode or decodes to something shorter.
                if let Ok(got) = Rule::decode(&only_message(&b)) {
                    assert_ne!(got, r, "a rule cut at {cut} decoded whole");
                }
            }
        }
    }
    // Every single-byte change of every byte.
    for i in 0..full.len() {
        for x in [0x01u8, 0x80, 0xFF] {
            poke_buffer(&mutate(full.clone(), &[(i, x)], usize::MAX, false));
        }
    }
}
