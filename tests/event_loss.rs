//! Event loss: a burst of foreign changes bigger than the event socket's buffer (a whole
//! kube-proxy-sized ruleset flushed and loaded again by `iptables-nft-restore`) makes the
//! kernel drop events. A handle that follows events, and `iptnl serve`, say so (`lost` in
//! their figures) and read again: the next answer is still a fresh read's.

mod common;

use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;
use iptnl::workload::{kube_proxy, KubeProxyOptions};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// A ruleset whose restore sends more events than the socket holds (several MB of them).
fn burst() -> String {
    kube_proxy(&KubeProxyOptions::sized(60_000)).0
}

#[test]
fn a_burst_bigger_than_the_event_buffer_is_read_again() {
    if !common::have("iptables-nft-restore") {
        common::skip("event loss", "iptables-nft-restore is needed");
        return;
    }
    let text = burst();
    let links = common::ToolLinks::new("iptnl-loss", &["iptables"]);
    let ipt_cmd = links.path("iptables");
    common::in_netns(|| {
        let load = |t: &str| {
            let o = common::run_status("iptables-nft-restore", &[], Some(t));
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        };
        load("*nat\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n");
        let server = common::Server::start(BIN);
        let ipt = IpTables::new(IpFamily::V4).unwrap();
        ipt.set_follow_events(true);
        // Both read the table first, so that both hold it when the burst comes.
        let before = ipt.list_table_text("nat").unwrap();
        assert_eq!(common::run(&ipt_cmd, &["-t", "nat", "-S"]), before);
        load(&text);
        let fresh = IpTables::new(IpFamily::V4)
            .unwrap()
            .list_table_text("nat")
            .unwrap();
        assert_ne!(fresh, before);
        assert_eq!(ipt.list_table_text("nat").unwrap(), fresh);
        assert!(ipt.follow_stats().lost >= 1, "{:?}", ipt.follow_stats());
        // And after a second burst, still.
        load("*nat\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n");
        let fresh2 = IpTables::new(IpFamily::V4)
            .unwrap()
            .list_table_text("nat")
            .unwrap();
        assert_eq!(ipt.list_table_text("nat").unwrap(), fresh2);
        // The server, listing after the same two bursts, says it lost events too.
        assert_eq!(common::run(&ipt_cmd, &["-t", "nat", "-S"]), fresh2);
        server.signal("USR1");
        let log = server.wait_log("events lost", 1);
        let lost = log
            .lines()
            .filter_map(|l| l.split("events lost ").nth(1))
            .filter_map(|n| n.trim().parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        assert!(lost >= 1, "{log}");
    });
}
