//! Revision probing through NFNL_SUBSYS_NFT_COMPAT against the real kernel.

mod common;

use iptnl::netlink::Conn;
use iptnl::nft::compat::{xt_revision, XtKind};
use iptnl::nft::Family;

#[test]
fn kernel_reports_extension_revisions() {
    common::in_netns(|| {
        let mut c = Conn::open().unwrap();
        assert!(
            xt_revision(&mut c, Family::Ipv4, "comment", 0, XtKind::Match)
                .unwrap()
                .is_some()
        );
        assert!(
            xt_revision(&mut c, Family::Ipv4, "conntrack", 3, XtKind::Match)
                .unwrap()
                .is_some()
        );
        assert!(
            xt_revision(&mut c, Family::Ipv6, "MASQUERADE", 0, XtKind::Target)
                .unwrap()
                .is_some()
        );
        assert!(xt_revision(&mut c, Family::Ipv4, "DNAT", 2, XtKind::Target)
            .unwrap()
            .is_some());
        assert_eq!(
            xt_revision(&mut c, Family::Ipv4, "nosuchmatch", 0, XtKind::Match).unwrap(),
            None
        );
        assert_eq!(
            xt_revision(&mut c, Family::Ipv4, "comment", 200, XtKind::Match).unwrap(),
            None
        );
        // A match name asked for as a target does not exist.
        assert_eq!(
            xt_revision(&mut c, Family::Ipv4, "comment", 0, XtKind::Target).unwrap(),
            None
        );
    });
}
