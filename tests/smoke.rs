mod common;

use iptnl::netlink::Conn;
use iptnl::nft::expr::{Cmp, CmpOp, Counter, Immediate, Payload, PayloadBase};
use iptnl::nft::*;

#[test]
fn table_chain_rule_round_trip() {
    common::in_netns(|| {
        let mut conn = Conn::open().unwrap();
        let mut b = Batch::new();
        b.add_table(&Table::new(Family::Ipv4, "filter")).unwrap();
        b.add_chain(&Chain::user(Family::Ipv4, "filter", "c1"), true)
            .unwrap();
        let mut r = Rule::new(Family::Ipv4, "filter", "c1");
        r.exprs = vec![
            Payload::load(PayloadBase::Network, 12, 4, 1).into(),
            Cmp {
                sreg: 1,
                op: CmpOp::Eq,
                data: Value::new(&[10, 0, 0, 1]).unwrap(),
            }
            .into(),
            Counter::default().into(),
            Immediate::verdict(Verdict::Accept).into(),
        ];
        let op = b.add_rule(&r, Placement::Append, true).unwrap();
        let done = b.commit(&mut conn).unwrap();
        let h = done.handle(op).expect("echoed handle");
        let (rules, _) =
            list_rules(&mut conn, Some(Family::Ipv4), Some("filter"), Some("c1")).unwrap();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].handle, Some(h));
        assert_eq!(rules[0].exprs, r.exprs);
        let listing = common::nft_list();
        assert!(
            listing.contains("ip saddr 10.0.0.1 counter packets 0 bytes 0 accept"),
            "{listing}"
        );
    });
}
