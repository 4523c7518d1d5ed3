//! Testing firewall code without root: the CNI `portmap` logic of `examples/portmap.rs`,
//! unchanged, run against `IpTables::in_memory`. This is the shape of test an agent's own
//! crate can hold (see `docs/memory.md`): the code under test takes an `&IpTables`; the
//! test gives it an in-memory one and asserts on what it left, as `iptables-save` shows it.
//! The in-memory ruleset answers as the kernel does (the differential tests
//! `memory_diff.rs`, `memory_xt.rs` and `memory_cli.rs` check it against the kernel), so a
//! mistake the kernel would refuse is refused here too.

#[allow(dead_code)]
#[path = "../examples/portmap.rs"]
mod portmap;

use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;
use portmap::{add, del, dn_chain, setup_shared, PortMapping};

/// The nat table as `iptables-save -t nat` prints it, without the comment lines.
fn nat(ipt: &IpTables) -> Vec<String> {
    ipt.save(Some("nat"), false)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn web() -> [PortMapping; 1] {
    [PortMapping {
        host_port: 8080,
        container_port: 80,
        protocol: "tcp",
    }]
}

#[test]
fn add_publishes_the_container_ports() {
    let ipt = IpTables::in_memory(IpFamily::V4);
    add(&ipt, "podman", "c0ffee", "10.88.0.5", &web()).unwrap();
    let chain = dn_chain("podman", "c0ffee");
    assert_eq!(
        ipt.list("nat", &chain).unwrap(),
        [
            format!("-N {chain}"),
            format!(
                "-A {chain} -s 10.88.0.5/32 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK"
            ),
            format!(
                "-A {chain} -s 127.0.0.1/32 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK"
            ),
            format!("-A {chain} -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.88.0.5:80"),
        ]
    );
    assert!(ipt
        .exists(
            "nat",
            "PREROUTING",
            "-m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT"
        )
        .unwrap());
    let jump = format!(
        "-p tcp -m comment --comment \"dnat name: \\\"podman\\\" id: \\\"c0ffee\\\"\" -m multiport --dports 8080 -j {chain}"
    );
    assert!(ipt
        .exists("nat", "CNI-HOSTPORT-DNAT", jump.as_str())
        .unwrap());
}

#[test]
fn a_retried_add_changes_nothing() {
    let ipt = IpTables::in_memory(IpFamily::V4);
    add(&ipt, "podman", "c0ffee", "10.88.0.5", &web()).unwrap();
    let once = nat(&ipt);
    add(&ipt, "podman", "c0ffee", "10.88.0.5", &web()).unwrap();
    assert_eq!(nat(&ipt), once);
}

#[test]
fn del_removes_one_container_and_nothing_else() {
    let ipt = IpTables::in_memory(IpFamily::V4);
    add(&ipt, "podman", "c0ffee", "10.88.0.5", &web()).unwrap();
    let first_alone = nat(&ipt);
    add(&ipt, "podman", "beef42", "10.88.0.6", &web()).unwrap();
    del(&ipt, "podman", "beef42").unwrap();
    assert_eq!(nat(&ipt), first_alone);
    del(&ipt, "podman", "c0ffee").unwrap();
    // What is left is what the shared setup alone makes.
    let shared = IpTables::in_memory(IpFamily::V4);
    setup_shared(&shared).unwrap();
    assert_eq!(nat(&ipt), nat(&shared));
}

#[test]
fn the_kernel_refusals_are_there_too() {
    let ipt = IpTables::in_memory(IpFamily::V4);
    add(&ipt, "podman", "c0ffee", "10.88.0.5", &web()).unwrap();
    // The shared chains are jumped to: they cannot go while in use, as in the kernel.
    assert!(ipt
        .delete_chain("nat", "CNI-HOSTPORT-DNAT")
        .unwrap_err()
        .is_in_use());
    // DNAT is refused in POSTROUTING (the kernel allows it in PREROUTING and OUTPUT only).
    let e = ipt
        .append(
            "nat",
            "POSTROUTING",
            "-p tcp -j DNAT --to-destination 10.88.0.5:80",
        )
        .unwrap_err();
    assert_eq!(e.errno(), Some(libc::EINVAL), "{e}");
}
