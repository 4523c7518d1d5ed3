//! Sets, maps and their elements against the real kernel, each test in a fresh network
//! namespace, with `nft` as the oracle.

mod common;

use iptnl::netlink::{Conn, MsgWriter};
use iptnl::nft::expr::{Counter, Immediate, Payload, PayloadBase, RawExpr};
use iptnl::nft::set::key_type;
use iptnl::nft::*;
use iptnl_sys::netlink::NLM_F_CREATE;
use iptnl_sys::nf_tables::*;

const RULESET: &str = r#"
table inet t {
    counter c1 { }
    counter c2 { }
    set s4 { type ipv4_addr; elements = { 10.0.0.1, 10.0.0.2, 192.168.1.1 } }
    set s6 { type ipv6_addr; elements = { 2001:db8::1, ::1 } }
    set ports { type inet_service; size 1024; policy memory; elements = { 22, 80, 443 } }
    set cc { type ipv4_addr . inet_service; elements = { 10.0.0.1 . 22, 10.0.0.2 . 80 } }
    set iv { type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 192.168.1.1-192.168.1.20, 172.16.0.1 } }
    set iv6 { type ipv6_addr; flags interval; auto-merge; elements = { 2001:db8::/32, ::1 } }
    set ccr { type ipv4_addr . inet_service; flags interval; elements = { 10.0.0.0/24 . 80-90, 192.168.0.1 . 443 } }
    set tmo { type ipv4_addr; flags timeout; timeout 1h; gc-interval 30s; elements = { 10.1.1.1, 10.1.1.2 timeout 10m, 10.1.1.3 timeout 2h comment "x" } }
    map nat { type ipv4_addr : ipv4_addr; elements = { 10.0.0.1 : 192.168.0.1, 10.0.0.2 : 192.168.0.2 } }
    map vm { type inet_service : verdict; elements = { 22 : jump ssh, 80 : accept, 23 : drop, 8080 : goto web } }
    map om { type ipv4_addr : counter; elements = { 10.0.0.1 : "c1", 10.0.0.2 : "c2" } }
    map catch { type ipv4_addr : verdict; elements = { 10.0.0.1 : accept, * : drop } }
    set cnt { type ipv4_addr; counter; elements = { 10.2.0.1, 10.2.0.2 } }
    set two { type ipv4_addr; counter; quota 1000 bytes; elements = { 10.2.0.1 } }
    set konst { type ipv4_addr; flags constant; elements = { 10.3.0.1 } }
    set dyn { type ipv4_addr; flags dynamic,timeout; timeout 5m; }
    set cmt { type inet_service; comment "ports"; elements = { 1 comment "one" } }
    chain ssh { }
    chain web { }
    chain input {
        type filter hook input priority 0; policy accept;
        ip saddr @s4 accept
        ip saddr @konst drop
        tcp dport vmap @vm
        ip saddr { 10.9.0.1, 10.9.0.2 } counter accept
        tcp dport { 1000-2000, 3000 } drop
        tcp dport vmap { 5000 : accept, 5001 : drop }
        update @dyn { ip saddr }
        counter name ip saddr map @om
        ip saddr . tcp dport @cc accept
    }
}
"#;

const NAMED: &[&str] = &[
    "s4", "s6", "ports", "cc", "iv", "iv6", "ccr", "tmo", "nat", "vm", "om", "catch", "cnt", "two",
    "konst", "dyn", "cmt",
];

/// Names of the maps among the sets of all tests.
const MAPS: &[&str] = &["nat", "vm", "om", "catch", "m"];

/// Set attributes a 6.18 kernel dumps that iptnl keeps raw (backend and element count).
const KNOWN_RAW_SET_ATTRS: &[u16] = &[19, 20];

/// `nft` output with `expires …` removed (it changes every millisecond) and whitespace
/// collapsed (nft wraps long element lists by width).
fn normalize(s: &str) -> String {
    let mut out = String::new();
    let mut words = s.split_whitespace().peekable();
    while let Some(w) = words.next() {
        if w == "expires" {
            // "expires 59m59s760ms," keeps the comma that may follow the duration
            if let Some(d) = words.next() {
                if d.ends_with(',') {
                    out.pop();
                    out.push_str(", ");
                }
            }
            continue;
        }
        out.push_str(w);
        out.push(' ');
    }
    out
}

/// `nft list set` (or `nft list map`, for maps), normalized.
fn nft_list_set(family: &str, table: &str, set: &str) -> String {
    let kind = if MAPS.contains(&set) { "map" } else { "set" };
    normalize(&common::run("nft", &["list", kind, family, table, set]))
}

fn ip4(a: u8, b: u8, c: u8, d: u8) -> Value {
    Value::new(&[a, b, c, d]).unwrap()
}

/// Everything needed to rebuild table `t` of RULESET elsewhere, plus what nft showed.
#[derive(Debug)]
struct Snapshot {
    table: Table,
    chains: Vec<Chain>,
    sets: Vec<(Set, Vec<SetElem>)>,
    rules: Vec<Rule>,
    listed_sets: Vec<(String, String)>,
    listed_ruleset: String,
}

fn snapshot(conn: &mut Conn) -> Snapshot {
    let (tables, _) = list_tables(conn, Some(Family::Inet)).unwrap();
    let table = tables.into_iter().find(|t| t.name == "t").unwrap();
    let (chains, _) = list_chains(conn, Some(Family::Inet), Some("t")).unwrap();
    let (sets, _) = list_sets(conn, Some(Family::Inet), Some("t")).unwrap();
    let mut with_elems = Vec::new();
    for s in sets {
        let (elems, _) = list_set_elems(conn, Family::Inet, "t", &s.name).unwrap();
        with_elems.push((s, elems));
    }
    let (rules, _) = list_rules(conn, Some(Family::Inet), Some("t"), None).unwrap();
    let listed_sets = NAMED
        .iter()
        .map(|n| (n.to_string(), nft_list_set("inet", "t", n)))
        .collect();
    Snapshot {
        table,
        chains,
        sets: with_elems,
        rules,
        listed_sets,
        listed_ruleset: normalize(&common::nft_list()),
    }
}

fn set<'a>(snap: &'a Snapshot, name: &str) -> &'a (Set, Vec<SetElem>) {
    snap.sets
        .iter()
        .find(|(s, _)| s.name == name)
        .unwrap_or_else(|| panic!("set {name} not dumped"))
}

fn keys(elems: &[SetElem]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = elems
        .iter()
        .filter_map(|e| e.key.as_ref().map(|k| k.as_bytes().to_vec()))
        .collect();
    v.sort();
    v
}

fn check_decoded(snap: &Snapshot) {
    for (s, elems) in &snap.sets {
        assert_eq!(s.family, Family::Inet);
        assert_eq!(s.table, "t");
        assert!(s.handle.is_some(), "{s:?}");
        assert!(
            s.unknown
                .iter()
                .all(|(ty, _)| KNOWN_RAW_SET_ATTRS.contains(ty)),
            "unexpected raw attributes in {s:?}"
        );
        for e in elems {
            assert!(e.unknown.is_empty(), "raw attributes left in {e:?}");
        }
    }

    let (s, e) = set(snap, "s4");
    assert_eq!(
        (s.key_type, s.key_len, s.flags),
        (key_type::IPV4_ADDR, 4, 0)
    );
    assert_eq!(
        keys(e),
        vec![vec![10, 0, 0, 1], vec![10, 0, 0, 2], vec![192, 168, 1, 1]]
    );
    assert!(s.desc.as_ref().unwrap().concat.is_empty());

    let (s, e) = set(snap, "s6");
    assert_eq!((s.key_type, s.key_len), (key_type::IPV6_ADDR, 16));
    let mut lo = [0u8; 16];
    lo[15] = 1;
    assert!(keys(e).contains(&lo.to_vec()));

    let (s, e) = set(snap, "ports");
    assert_eq!((s.key_type, s.key_len), (key_type::INET_SERVICE, 2));
    assert_eq!(s.policy, Some(NFT_SET_POL_MEMORY));
    assert_eq!(s.desc.as_ref().unwrap().size, Some(1024));
    assert_eq!(keys(e), vec![vec![0, 22], vec![0, 80], vec![1, 187]]);

    let (s, e) = set(snap, "cc");
    assert_eq!(
        (s.key_type, s.key_len),
        (
            key_type::concat(&[key_type::IPV4_ADDR, key_type::INET_SERVICE]),
            8
        )
    );
    assert!(keys(e).contains(&vec![10, 0, 0, 1, 0, 22, 0, 0]));

    let (s, e) = set(snap, "iv");
    assert!(s.is_interval() && !s.is_map());
    // three ranges plus the "nothing below" end element at 0.0.0.0
    assert_eq!(e.len(), 7);
    assert_eq!(e.iter().filter(|e| e.is_interval_end()).count(), 4);
    let start = e.iter().find(|e| e.key == Some(ip4(10, 0, 0, 0))).unwrap();
    assert!(!start.is_interval_end());
    let end = e.iter().find(|e| e.key == Some(ip4(11, 0, 0, 0))).unwrap();
    assert!(end.is_interval_end());

    let (s, e) = set(snap, "ccr");
    assert!(s.is_interval() && s.is_concat());
    assert_eq!(s.desc.as_ref().unwrap().concat, vec![4, 2]);
    let r = e
        .iter()
        .find(|e| e.key.as_ref().unwrap().as_bytes() == [10, 0, 0, 0, 0, 80, 0, 0])
        .unwrap();
    assert_eq!(
        r.key_end.as_ref().unwrap().as_bytes(),
        &[10, 0, 0, 255, 0, 90, 0, 0]
    );

    let (s, e) = set(snap, "tmo");
    assert!(s.has_timeout());
    assert_eq!((s.timeout, s.gc_interval), (Some(3_600_000), Some(30_000)));
    let ten = e.iter().find(|e| e.key == Some(ip4(10, 1, 1, 2))).unwrap();
    assert_eq!(ten.timeout, Some(600_000));
    assert!(ten.expiration.unwrap() <= 600_000);
    let commented = e.iter().find(|e| e.key == Some(ip4(10, 1, 1, 3))).unwrap();
    assert!(commented.userdata.is_some());

    let (s, e) = set(snap, "nat");
    assert!(s.is_map());
    assert_eq!(
        (s.data_type, s.data_len),
        (Some(key_type::IPV4_ADDR), Some(4))
    );
    let m = e.iter().find(|e| e.key == Some(ip4(10, 0, 0, 1))).unwrap();
    assert_eq!(m.data, Some(Data::Value(ip4(192, 168, 0, 1))));

    let (s, e) = set(snap, "vm");
    assert!(s.is_map());
    assert_eq!(s.data_type, Some(NFT_DATA_VERDICT));
    let verdict = |port: u16| {
        e.iter()
            .find(|e| e.key == Some(Value::be16(port)))
            .and_then(|e| e.data.clone())
    };
    assert_eq!(
        verdict(22),
        Some(Data::Verdict(Verdict::Jump("ssh".into())))
    );
    assert_eq!(
        verdict(8080),
        Some(Data::Verdict(Verdict::Goto("web".into())))
    );
    assert_eq!(verdict(80), Some(Data::Verdict(Verdict::Accept)));
    assert_eq!(verdict(23), Some(Data::Verdict(Verdict::Drop)));

    let (s, e) = set(snap, "om");
    assert!(s.is_object() && !s.is_map());
    assert_eq!(s.obj_type, Some(NFT_OBJECT_COUNTER));
    let o = e.iter().find(|e| e.key == Some(ip4(10, 0, 0, 2))).unwrap();
    assert_eq!(o.objref.as_deref(), Some("c2"));

    let (_, e) = set(snap, "catch");
    let c = e.iter().find(|e| e.is_catchall()).unwrap();
    assert_eq!(c.key, None);
    assert_eq!(c.data, Some(Data::Verdict(Verdict::Drop)));

    let (s, e) = set(snap, "cnt");
    assert_eq!(s.expressions, vec![Expr::Counter(Counter::default())]);
    assert!(e
        .iter()
        .all(|e| e.expressions == vec![Expr::Counter(Counter::default())]));

    let (s, e) = set(snap, "two");
    assert_eq!(s.expressions.len(), 2);
    assert_eq!(s.expressions[1].name(), "quota");
    assert_eq!(e[0].expressions.len(), 2);

    assert!(set(snap, "konst").0.is_constant());
    let (s, e) = set(snap, "dyn");
    assert!(s.is_eval() && s.has_timeout() && e.is_empty());
    assert_eq!(s.timeout, Some(300_000));
    let (s, _) = set(snap, "cmt");
    let ud = s.userdata.as_ref().unwrap();
    assert!(ud.windows(5).any(|w| w == b"ports"));

    let anon: Vec<_> = snap.sets.iter().filter(|(s, _)| s.is_anonymous()).collect();
    assert_eq!(anon.len(), 3, "two anonymous sets and one anonymous map");
    assert!(anon.iter().all(|(s, _)| s.is_constant()));
    assert!(anon
        .iter()
        .any(|(s, _)| s.is_map() && s.name.starts_with("__map")));
}

fn new_counter_obj(b: &mut Batch, name: &str) {
    b.push_raw(NFT_MSG_NEWOBJ, NLM_F_CREATE, Family::Inet, false, |w| {
        w.put_str(NFTA_OBJ_TABLE, "t");
        w.put_str(NFTA_OBJ_NAME, name);
        w.put_be32(NFTA_OBJ_TYPE, NFT_OBJECT_COUNTER);
        let n = w.nest(NFTA_OBJ_DATA);
        w.end_nest(n);
    })
    .unwrap();
}

/// Rebuilds the snapshot with iptnl alone, in one batch.
fn rebuild(conn: &mut Conn, snap: &Snapshot) {
    let mut b = Batch::new();
    b.add_table(&snap.table).unwrap();
    new_counter_obj(&mut b, "c1");
    new_counter_obj(&mut b, "c2");
    for c in &snap.chains {
        let c = Chain {
            handle: None,
            ..c.clone()
        };
        b.add_chain(&c, true).unwrap();
    }
    // Anonymous sets keep the name the kernel gave them; constant sets get their elements
    // before any rule binds them.
    for (s, elems) in &snap.sets {
        b.add_set(s).unwrap();
        b.add_set_elems(s.family, &s.table, &s.name, elems).unwrap();
    }
    for r in &snap.rules {
        b.add_rule(r, Placement::Append, false).unwrap();
    }
    b.commit(conn).unwrap();
}

fn sorted_debug<T: std::fmt::Debug>(v: impl IntoIterator<Item = T>) -> Vec<String> {
    let mut out: Vec<String> = v.into_iter().map(|x| format!("{x:?}")).collect();
    out.sort();
    out
}

#[test]
fn nft_sets_decode_and_reencode_identically() {
    let original = common::in_netns(|| {
        common::nft_load(RULESET);
        let mut conn = Conn::open().unwrap();
        snapshot(&mut conn)
    });
    check_decoded(&original);

    let rebuilt = common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        rebuild(&mut conn, &original);
        snapshot(&mut conn)
    });

    for ((name, a), (_, b)) in original.listed_sets.iter().zip(&rebuilt.listed_sets) {
        assert_eq!(a, b, "nft list set inet t {name} differs");
    }
    // anonymous sets show through the rules that use them
    assert_eq!(original.listed_ruleset, rebuilt.listed_ruleset);
    assert!(rebuilt
        .listed_ruleset
        .contains("ip saddr { 10.9.0.1, 10.9.0.2 } counter packets 0 bytes 0 accept"));
    assert!(rebuilt
        .listed_ruleset
        .contains("tcp dport vmap { 5000 : accept, 5001 : drop }"));

    // and iptnl reads back the same objects
    assert_eq!(original.sets.len(), rebuilt.sets.len());
    for ((s1, e1), (s2, e2)) in original.sets.iter().zip(&rebuilt.sets) {
        let strip = |s: &Set| Set {
            handle: None,
            unknown: vec![],
            ..s.clone()
        };
        assert_eq!(strip(s1), strip(s2));
        let no_exp = |e: &SetElem| SetElem {
            expiration: None,
            ..e.clone()
        };
        assert_eq!(
            sorted_debug(e1.iter().map(no_exp)),
            sorted_debug(e2.iter().map(no_exp)),
            "elements of {}",
            s1.name
        );
    }
    let exprs = |rs: &[Rule]| rs.iter().map(|r| r.exprs.clone()).collect::<Vec<_>>();
    assert_eq!(exprs(&original.rules), exprs(&rebuilt.rules));
}

/// `lookup` of register 1 in an anonymous set created in the same batch (by id).
fn lookup_by_id(id: u32) -> Expr {
    let mut w = MsgWriter::new();
    w.put_str(NFTA_LOOKUP_SET, "__set%d");
    w.put_be32(NFTA_LOOKUP_SREG, 1);
    w.put_be32(NFTA_LOOKUP_SET_ID, id);
    Expr::Raw(RawExpr {
        name: "lookup".into(),
        data: Some(w.into_bytes()),
    })
}

fn count_tokens_with_prefix(s: &str, prefix: &str) -> usize {
    s.split(|c: char| c.is_whitespace() || c == ',' || c == '{' || c == '}')
        .filter(|t| t.starts_with(prefix))
        .count()
}

#[test]
fn sets_created_by_iptnl_are_listed_by_nft() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let f = Family::Ipv4;
        let mut b = Batch::new();
        b.add_table(&Table::new(f, "t2")).unwrap();
        b.add_chain(&Chain::user(f, "t2", "c"), true).unwrap();

        // 20,000 addresses: far more than one 64 KiB element nest holds
        let big = Set::new(f, "t2", "big", key_type::IPV4_ADDR, 4);
        b.add_set(&big).unwrap();
        let elems: Vec<SetElem> = (0..20_000u32)
            .map(|i| SetElem::new(Value::be32(0x0a00_0000 + i)))
            .collect();
        let ops = b.add_set_elems(f, "t2", "big", &elems).unwrap();
        assert!(
            ops.len() >= 2,
            "20,000 elements in {} message(s)",
            ops.len()
        );
        for i in ops {
            assert!(b.as_netlink().op_bytes(i).unwrap().len() < 70_000);
        }

        let mut nets = Set::new(f, "t2", "nets", key_type::IPV4_ADDR, 4);
        nets.flags = NFT_SET_INTERVAL;
        b.add_set(&nets).unwrap();
        b.add_set_elems(
            f,
            "t2",
            "nets",
            &[
                SetElem::new(ip4(10, 0, 0, 0)),
                SetElem::interval_end(ip4(11, 0, 0, 0)),
                SetElem::new(ip4(192, 168, 1, 1)),
                SetElem::interval_end(ip4(192, 168, 1, 21)),
            ],
        )
        .unwrap();

        let svc_type = key_type::concat(&[key_type::IPV4_ADDR, key_type::INET_SERVICE]);
        b.add_set(&Set::new(f, "t2", "svc", svc_type, 8)).unwrap();
        b.add_set_elems(
            f,
            "t2",
            "svc",
            &[SetElem::new(
                Value::new(&[10, 0, 0, 1, 0, 22, 0, 0]).unwrap(),
            )],
        )
        .unwrap();

        let mut ranges = Set::new(f, "t2", "ranges", svc_type, 8);
        ranges.flags = NFT_SET_INTERVAL | NFT_SET_CONCAT;
        ranges.desc = Some(SetDesc {
            size: None,
            concat: vec![4, 2],
        });
        b.add_set(&ranges).unwrap();
        let mut r = SetElem::new(Value::new(&[10, 0, 0, 0, 0, 80, 0, 0]).unwrap());
        r.key_end = Some(Value::new(&[10, 0, 0, 255, 0, 90, 0, 0]).unwrap());
        b.add_set_elems(f, "t2", "ranges", &[r]).unwrap();

        let mut vm = Set::new(f, "t2", "vm", key_type::INET_SERVICE, 2);
        vm.flags = NFT_SET_MAP;
        vm.data_type = Some(NFT_DATA_VERDICT);
        vm.data_len = Some(0);
        b.add_set(&vm).unwrap();
        let verdict = |port: u16, v: Verdict| SetElem {
            data: Some(Data::Verdict(v)),
            ..SetElem::new(Value::be16(port))
        };
        b.add_set_elems(
            f,
            "t2",
            "vm",
            &[
                verdict(22, Verdict::Jump("c".into())),
                verdict(80, Verdict::Accept),
            ],
        )
        .unwrap();

        let mut nat = Set::new(f, "t2", "nat", key_type::IPV4_ADDR, 4);
        nat.flags = NFT_SET_MAP;
        nat.data_type = Some(key_type::IPV4_ADDR);
        nat.data_len = Some(4);
        b.add_set(&nat).unwrap();
        let mut m = SetElem::new(ip4(10, 0, 0, 1));
        m.data = Some(Data::Value(ip4(192, 168, 0, 1)));
        b.add_set_elems(f, "t2", "nat", &[m]).unwrap();

        let mut tmo = Set::new(f, "t2", "tmo", key_type::IPV4_ADDR, 4);
        tmo.flags = NFT_SET_TIMEOUT;
        tmo.timeout = Some(3_600_000);
        b.add_set(&tmo).unwrap();
        let mut short = SetElem::new(ip4(10, 1, 1, 2));
        short.timeout = Some(600_000);
        b.add_set_elems(f, "t2", "tmo", &[SetElem::new(ip4(10, 1, 1, 1)), short])
            .unwrap();

        // an anonymous set, filled and bound by id in the same batch
        let id = b.new_id();
        let mut anon = Set::new(f, "t2", "__set%d", key_type::IPV4_ADDR, 4);
        anon.flags = NFT_SET_ANONYMOUS | NFT_SET_CONSTANT;
        anon.id = Some(id);
        b.add_set(&anon).unwrap();
        b.add_set_elems(
            f,
            "t2",
            id,
            &[
                SetElem::new(ip4(10, 9, 0, 1)),
                SetElem::new(ip4(10, 9, 0, 2)),
            ],
        )
        .unwrap();
        let mut rule = Rule::new(f, "t2", "c");
        rule.exprs = vec![
            Payload::load(PayloadBase::Network, 12, 4, 1).into(),
            lookup_by_id(id),
            Immediate::verdict(Verdict::Accept).into(),
        ];
        b.add_rule(&rule, Placement::Append, false).unwrap();
        b.commit(&mut conn).unwrap();

        let (elems, _) = list_set_elems(&mut conn, f, "t2", "big").unwrap();
        assert_eq!(elems.len(), 20_000);
        let listed = common::run("nft", &["list", "set", "ip", "t2", "big"]);
        assert_eq!(count_tokens_with_prefix(&listed, "10.0."), 20_000);
        assert!(listed.contains("10.0.78.31"), "{listed}");

        let l = nft_list_set("ip", "t2", "nets");
        assert!(
            l.contains("elements = { 10.0.0.0/8, 192.168.1.1-192.168.1.20 }"),
            "{l}"
        );
        let l = nft_list_set("ip", "t2", "svc");
        assert!(l.contains("type ipv4_addr . inet_service"), "{l}");
        assert!(l.contains("elements = { 10.0.0.1 . 22 }"), "{l}");
        let l = nft_list_set("ip", "t2", "ranges");
        assert!(l.contains("flags interval"), "{l}");
        assert!(l.contains("elements = { 10.0.0.0/24 . 80-90 }"), "{l}");
        let l = nft_list_set("ip", "t2", "vm");
        assert!(l.contains("type inet_service : verdict"), "{l}");
        assert!(l.contains("elements = { 22 : jump c, 80 : accept }"), "{l}");
        let l = nft_list_set("ip", "t2", "nat");
        assert!(l.contains("elements = { 10.0.0.1 : 192.168.0.1 }"), "{l}");
        let l = nft_list_set("ip", "t2", "tmo");
        assert!(l.contains("timeout 1h"), "{l}");
        assert!(l.contains("10.1.1.2 timeout 10m"), "{l}");
        let listing = common::nft_list();
        assert!(
            listing.contains("ip saddr { 10.9.0.1, 10.9.0.2 } accept"),
            "{listing}"
        );

        // the iptnl view agrees
        let (sets, _) = list_sets(&mut conn, Some(f), Some("t2")).unwrap();
        let names: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["big", "nets", "svc", "ranges", "vm", "nat", "tmo", "__set0"]
        );
        let (none, _) = list_sets(&mut conn, Some(f), Some("missing")).unwrap();
        assert!(none.is_empty());
    });
}

#[test]
fn elements_are_deleted_and_sets_flushed_and_deleted() {
    common::in_netns(|| {
        common::nft_load(
            r#"
table ip t {
    set s { type ipv4_addr; elements = { 10.0.0.1, 10.0.0.2, 10.0.0.3, 10.0.0.4 } }
    set iv { type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 192.168.0.0/16 } }
    set cr { type ipv4_addr . inet_service; flags interval; elements = { 10.0.0.0/24 . 80-90, 10.0.1.1 . 22 } }
    map m { type inet_service : verdict; elements = { 22 : accept, 23 : drop } }
    set used { type ipv4_addr; elements = { 10.5.0.1 } }
    chain c { ip saddr @used drop; }
}
"#,
        );
        let f = Family::Ipv4;
        let mut conn = Conn::open().unwrap();

        let mut b = Batch::new();
        b.del_set_elems(
            f,
            "t",
            "s",
            &[
                SetElem::new(ip4(10, 0, 0, 2)),
                SetElem::new(ip4(10, 0, 0, 4)),
            ],
        )
        .unwrap();
        b.del_set_elems(
            f,
            "t",
            "iv",
            &[
                SetElem::new(ip4(192, 168, 0, 0)),
                SetElem::interval_end(ip4(192, 169, 0, 0)),
            ],
        )
        .unwrap();
        let mut r = SetElem::new(Value::new(&[10, 0, 0, 0, 0, 80, 0, 0]).unwrap());
        r.key_end = Some(Value::new(&[10, 0, 0, 255, 0, 90, 0, 0]).unwrap());
        b.del_set_elems(f, "t", "cr", &[r]).unwrap();
        // data is not needed to delete a map element
        b.del_set_elems(f, "t", "m", &[SetElem::new(Value::be16(23))])
            .unwrap();
        assert!(b.del_set_elems(f, "t", "s", &[]).unwrap().is_empty());
        b.commit(&mut conn).unwrap();

        let l = nft_list_set("ip", "t", "s");
        assert!(l.contains("elements = { 10.0.0.1, 10.0.0.3 }"), "{l}");
        let l = nft_list_set("ip", "t", "iv");
        assert!(l.contains("elements = { 10.0.0.0/8 }"), "{l}");
        let l = nft_list_set("ip", "t", "cr");
        assert!(l.contains("elements = { 10.0.1.1 . 22 }"), "{l}");
        let l = nft_list_set("ip", "t", "m");
        assert!(l.contains("elements = { 22 : accept }"), "{l}");

        // deleting an element that is not there refuses the whole batch
        let mut b = Batch::new();
        b.del_set_elems(f, "t", "s", &[SetElem::new(ip4(10, 0, 0, 1))])
            .unwrap();
        b.del_set_elems(f, "t", "s", &[SetElem::new(ip4(10, 0, 0, 9))])
            .unwrap();
        let err = b.commit(&mut conn).unwrap_err();
        assert_eq!(err.errno(), Some(libc::ENOENT), "{err}");
        assert!(nft_list_set("ip", "t", "s").contains("10.0.0.1"));

        // flush, then delete
        let mut b = Batch::new();
        b.flush_set(f, "t", "s").unwrap();
        b.flush_set(f, "t", "m").unwrap();
        b.commit(&mut conn).unwrap();
        let l = nft_list_set("ip", "t", "s");
        assert!(!l.contains("elements"), "{l}");
        let (elems, _) = list_set_elems(&mut conn, f, "t", "m").unwrap();
        assert!(elems.is_empty());

        let mut b = Batch::new();
        b.del_set(f, "t", "s").unwrap();
        b.del_set(f, "t", "m").unwrap();
        b.commit(&mut conn).unwrap();
        let (sets, _) = list_sets(&mut conn, Some(f), Some("t")).unwrap();
        let names: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["iv", "cr", "used"]);
        assert!(!common::nft_list().contains("set s {"));

        // a set a rule uses cannot be deleted, and the error says which
        let mut b = Batch::new();
        b.del_set(f, "t", "used").unwrap();
        let err = b.commit(&mut conn).unwrap_err();
        assert_eq!(err.errno(), Some(libc::EBUSY), "{err}");
        assert!(err.to_string().contains("used"), "{err}");
    });
}

#[test]
fn key_type_constants_are_the_types_nft_names() {
    use key_type::*;
    let types = [
        (NFPROTO, 1, "nf_proto"),
        (IPV4_ADDR, 4, "ipv4_addr"),
        (IPV6_ADDR, 16, "ipv6_addr"),
        (ETHER_ADDR, 6, "ether_addr"),
        (ETHER_TYPE, 2, "ether_type"),
        (INET_PROTO, 1, "inet_proto"),
        (INET_SERVICE, 2, "inet_service"),
        (ICMP_TYPE, 1, "icmp_type"),
        (MARK, 4, "mark"),
        (IFINDEX, 4, "iface_index"),
        (CT_STATE, 4, "ct_state"),
        (ICMPV6_TYPE, 1, "icmpv6_type"),
        (IFNAME, 16, "ifname"),
    ];
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let f = Family::Inet;
        let mut b = Batch::new();
        b.add_table(&Table::new(f, "k")).unwrap();
        for (t, len, name) in types {
            b.add_set(&Set::new(f, "k", format!("s_{name}"), t, len))
                .unwrap();
        }
        b.commit(&mut conn).unwrap();
        for (_, _, name) in types {
            let l = nft_list_set("inet", "k", &format!("s_{name}"));
            assert!(
                l.contains(&format!("set s_{name} {{ type {name} }}")),
                "{l}"
            );
        }
    });
}
