//! The handle's cache of chains it has read: its index of canonical rule forms follows the
//! handle's own writes (added and deleted rules, duplicates) and is dropped when another
//! writer moves the generation. `iptables-nft -C` is the oracle.

mod common;

use common::{in_netns, run, run_status};
use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;

/// `iptables-nft -C` on chain C of the filter table.
fn oracle_has(rule: &[&str]) -> bool {
    let mut args = vec!["-t", "filter", "-C", "C"];
    args.extend_from_slice(rule);
    run_status("iptables-nft", &args, None).status.success()
}

#[test]
fn cached_index_follows_own_writes_and_others() {
    in_netns(|| {
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.new_chain("filter", "C").unwrap();
        for i in 0..50 {
            ipt.append("filter", "C", format!("-s 10.0.0.{i} -j ACCEPT"))
                .unwrap();
        }
        let drop9 = ["-s", "10.9.9.9", "-j", "DROP"];
        let acc3 = ["-s", "10.0.0.3", "-j", "ACCEPT"];
        // Reads the chain and builds its index.
        assert!(ipt.exists("filter", "C", acc3).unwrap());
        assert!(!ipt.exists("filter", "C", drop9).unwrap());
        // Read-dependent writes keep the cache: the index must follow them.
        assert!(ipt.append_unique("filter", "C", drop9).unwrap());
        assert!(ipt.exists("filter", "C", drop9).unwrap());
        assert!(!ipt.append_unique("filter", "C", drop9).unwrap());
        ipt.insert("filter", "C", 3, drop9).unwrap();
        assert_eq!(
            run("iptables-nft", &["-t", "filter", "-S", "C"])
                .lines()
                .filter(|l| l.contains("10.9.9.9"))
                .count(),
            2
        );
        ipt.delete("filter", "C", drop9).unwrap();
        assert!(ipt.exists("filter", "C", drop9).unwrap());
        assert!(oracle_has(&drop9));
        ipt.delete("filter", "C", drop9).unwrap();
        assert!(!ipt.exists("filter", "C", drop9).unwrap());
        assert!(!oracle_has(&drop9));
        ipt.delete("filter", "C", acc3).unwrap();
        assert!(!ipt.exists("filter", "C", acc3).unwrap());
        assert!(!oracle_has(&acc3));
        assert!(ipt.exists("filter", "C", "-s 10.0.0.4 -j ACCEPT").unwrap());
        // Another writer: the generation moved, the chain is read again.
        run(
            "iptables-nft",
            &["-t", "filter", "-A", "C", "-s", "10.7.7.7", "-j", "DROP"],
        );
        assert!(ipt.exists("filter", "C", "-s 10.7.7.7 -j DROP").unwrap());
        run(
            "iptables-nft",
            &["-t", "filter", "-D", "C", "-s", "10.0.0.4", "-j", "ACCEPT"],
        );
        assert!(!ipt.exists("filter", "C", "-s 10.0.0.4 -j ACCEPT").unwrap());
        // Replace and zero rewrite rules in place: nf_tables keeps the handle of a replaced rule.
        ipt.replace("filter", "C", 1, "-s 10.8.8.8 -j DROP")
            .unwrap();
        assert!(!ipt.exists("filter", "C", "-s 10.0.0.0 -j ACCEPT").unwrap());
        assert!(ipt.exists("filter", "C", "-s 10.8.8.8 -j DROP").unwrap());
        ipt.zero("filter", "C", None).unwrap();
        assert!(ipt.exists("filter", "C", "-s 10.8.8.8 -j DROP").unwrap());
        assert!(ipt.exists("filter", "C", "-s 10.0.0.49 -j ACCEPT").unwrap());
        assert!(!oracle_has(&["-s", "10.0.0.0", "-j", "ACCEPT"]));
    });
}
