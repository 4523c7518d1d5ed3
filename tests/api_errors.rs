//! Errors name what is wrong in the caller's terms: the chain that is missing (the rule's
//! jump target when that is what the kernel did not find), and, for a transaction, which of
//! its operations was refused, by number and as the iptables command; never the numbering
//! of the batch the operations became. Nothing is applied on any error.

mod common;

use common::in_netns;
use iptnl::ipt::IpFamily;
use iptnl::iptables::{Error, IpTables, What};

fn save() -> String {
    common::run("iptables-nft-save", &[])
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_missing_jump_target_is_named_as_the_missing_chain() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.append("nat", "POSTROUTING", "-j RETURN").unwrap();
        let before = save();
        let e = ipt
            .append("nat", "POSTROUTING", "-j CNI-MISSING")
            .unwrap_err();
        match &e {
            Error::NotFound {
                what: What::Chain,
                table,
                chain,
                message,
            } => {
                assert_eq!(
                    (table.as_str(), chain.as_str()),
                    ("nat", "CNI-MISSING"),
                    "{e}"
                );
                assert!(message.contains("chain CNI-MISSING does not exist"), "{e}");
            }
            e => panic!("{e:?}"),
        }
        assert!(!e.to_string().contains("of the batch"), "{e}");
        assert!(e.is_not_found());
        // The chain the rule goes into, when that is what is missing.
        let e = ipt.append("nat", "NOPE", "-j RETURN").unwrap_err();
        assert!(
            matches!(&e, Error::NotFound { what: What::Chain, chain, .. } if chain == "NOPE"),
            "{e:?}"
        );
        assert!(!e.to_string().contains("of the batch"), "{e}");
        assert_eq!(save(), before);
    });
}

#[test]
fn a_refused_transaction_says_which_of_its_operations_and_applies_nothing() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.new_chain("filter", "EXISTS").unwrap();
        let before = save();
        // Refused by the kernel: operation 2 jumps to a chain that does not exist.
        let mut tx = ipt.transaction();
        tx.append("filter", "INPUT", "-s 10.0.0.1 -j ACCEPT")
            .append("filter", "INPUT", "-s 10.0.0.2 -j MISSING")
            .append("filter", "INPUT", "-s 10.0.0.3 -j DROP");
        let e = tx.commit().unwrap_err();
        match &e {
            Error::InTransaction {
                index, operation, ..
            } => {
                assert_eq!(*index, 2, "{e}");
                assert_eq!(operation, "-t filter -A INPUT -s 10.0.0.2/32 -j MISSING");
            }
            e => panic!("{e:?}"),
        }
        assert!(
            matches!(e.root(), Error::NotFound { what: What::Chain, chain, .. } if chain == "MISSING"),
            "{e:?}"
        );
        assert!(e.is_not_found() && e.errno() == Some(libc::ENOENT));
        assert!(!e.to_string().contains("of the batch"), "{e}");
        assert_eq!(save(), before);
        // Refused by the planner before anything is sent: operation 3 creates a chain that
        // exists.
        let mut tx = ipt.transaction();
        tx.new_chain("filter", "NEW1")
            .append("filter", "NEW1", "-j RETURN")
            .new_chain("filter", "EXISTS");
        let e = tx.commit().unwrap_err();
        assert!(
            matches!(&e, Error::InTransaction { index: 3, operation, .. } if operation == "-t filter -N EXISTS"),
            "{e:?}"
        );
        assert!(e.is_exists(), "{e:?}");
        assert_eq!(save(), before);
        // A rule to delete that is not there: operation 1.
        let mut tx = ipt.transaction();
        tx.delete("filter", "INPUT", "-j REJECT")
            .append("filter", "INPUT", "-j ACCEPT");
        let e = tx.commit().unwrap_err();
        assert!(matches!(&e, Error::InTransaction { index: 1, .. }), "{e:?}");
        assert!(
            matches!(
                e.root(),
                Error::NotFound {
                    what: What::Rule,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(save(), before);
    });
}
