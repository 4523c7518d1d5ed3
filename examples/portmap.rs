//! What the CNI `portmap` plugin does when a container with published ports is added and
//! deleted, with iptnl's `IpTables` handle instead of forking `iptables`, in a throwaway
//! network namespace (run as root, or under `unshare -rn`):
//!
//! ```sh
//! cargo run --example portmap
//! ```
//!
//! Add: the shared chains CNI-HOSTPORT-DNAT, CNI-HOSTPORT-SETMARK and CNI-HOSTPORT-MASQ with
//! their entry rules (created once, idempotently), then one chain CNI-DN-<hash> per
//! container holding its DNAT rules, and a jump to it from CNI-HOSTPORT-DNAT — the
//! per-container part as ONE transaction. Del: the jump and the container's chain, again in
//! one transaction.

use iptnl::ipt::{IpFamily, RuleTarget};
use iptnl::iptables::{Error, IpTables};

const DNAT: &str = "CNI-HOSTPORT-DNAT";
const SETMARK: &str = "CNI-HOSTPORT-SETMARK";
const MASQ: &str = "CNI-HOSTPORT-MASQ";
const MARK: &str = "0x2000/0x2000";

/// A port published by a container.
pub struct PortMapping {
    /// The port on the host.
    pub host_port: u16,
    /// The port in the container.
    pub container_port: u16,
    /// `tcp` or `udp`.
    pub protocol: &'static str,
}

/// The per-container chain name: CNI-DN- and a hash of network name and container id
/// (portmap uses the first characters of a SHA-512; any stable hash does for the demo).
pub fn dn_chain(network: &str, container_id: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in network.bytes().chain([0]).chain(container_id.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("CNI-DN-{h:016x}")
}

/// Creates a chain unless it exists (never flushing it: other containers' rules live there).
fn ensure_chain(ipt: &IpTables, table: &str, chain: &str) -> Result<(), Error> {
    match ipt.new_chain(table, chain) {
        Err(e) if e.is_exists() => Ok(()),
        r => r,
    }
}

/// The shared chains and the rules that lead into them, as portmap sets them up.
pub fn setup_shared(ipt: &IpTables) -> Result<(), Error> {
    for c in [DNAT, SETMARK, MASQ] {
        ensure_chain(ipt, "nat", c)?;
    }
    let mark_rule =
        format!("-m comment --comment \"CNI portfwd masquerade mark\" -j MARK --set-xmark {MARK}");
    ipt.append_unique("nat", SETMARK, mark_rule.as_str())?;
    let masq_rule = format!("-m mark --mark {MARK} -j MASQUERADE");
    ipt.append_unique("nat", MASQ, masq_rule.as_str())?;
    let to_dnat = format!("-m addrtype --dst-type LOCAL -j {DNAT}");
    ipt.append_unique("nat", "PREROUTING", to_dnat.as_str())?;
    ipt.append_unique("nat", "OUTPUT", to_dnat.as_str())?;
    let to_masq = format!("-m comment --comment \"CNI portfwd requiring masquerade\" -j {MASQ}");
    ipt.append_unique("nat", "POSTROUTING", to_masq.as_str())?;
    Ok(())
}

/// CNI ADD: the container's chain and the jump to it, in one batch.
pub fn add(
    ipt: &IpTables,
    network: &str,
    container_id: &str,
    container_ip: &str,
    ports: &[PortMapping],
) -> Result<(), Error> {
    setup_shared(ipt)?;
    let chain = dn_chain(network, container_id);
    let comment = format!("dnat name: \\\"{network}\\\" id: \\\"{container_id}\\\"");
    let mut tx = ipt.transaction();
    tx.clear_chain("nat", &chain);
    for p in ports {
        let (hp, cp, proto) = (p.host_port, p.container_port, p.protocol);
        tx.append(
            "nat",
            &chain,
            format!("-s {container_ip}/32 -p {proto} --dport {hp} -j {SETMARK}"),
        )
        .append(
            "nat",
            &chain,
            format!("-s 127.0.0.1/32 -p {proto} --dport {hp} -j {SETMARK}"),
        )
        .append(
            "nat",
            &chain,
            format!("-p {proto} --dport {hp} -j DNAT --to-destination {container_ip}:{cp}"),
        );
    }
    for proto in ["tcp", "udp"] {
        let dports: Vec<String> = ports
            .iter()
            .filter(|p| p.protocol == proto)
            .map(|p| p.host_port.to_string())
            .collect();
        if !dports.is_empty() {
            tx.append_unique(
                "nat",
                DNAT,
                format!(
                    "-p {proto} -m comment --comment \"{comment}\" -m multiport --dports {} -j {chain}",
                    dports.join(",")
                ),
            );
        }
    }
    let results = tx.commit()?;
    println!(
        "ADD {container_id}: {} operations in one batch, first DNAT rule handle {:?}",
        results.len(),
        results.get(3).and_then(|r| r.handle())
    );
    Ok(())
}

/// CNI DEL: the jumps to the container's chain and the chain itself, in one batch.
pub fn del(ipt: &IpTables, network: &str, container_id: &str) -> Result<(), Error> {
    let chain = dn_chain(network, container_id);
    let mut tx = ipt.transaction();
    for rule in ipt.rules("nat", DNAT)? {
        if matches!(&rule.target, Some(RuleTarget::Jump(c)) if *c == chain) {
            tx.delete_if_exists("nat", DNAT, rule);
        }
    }
    tx.clear_and_delete_chain("nat", &chain);
    tx.commit()?;
    println!("DEL {container_id}: done");
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    iptnl::netns::run_in_fresh_netns(|| -> Result<(), Error> {
        let ipt = IpTables::new(IpFamily::V4)?;
        let ports = [
            PortMapping {
                host_port: 8080,
                container_port: 80,
                protocol: "tcp",
            },
            PortMapping {
                host_port: 5353,
                container_port: 53,
                protocol: "udp",
            },
        ];
        add(&ipt, "podman", "c0ffee", "10.88.0.5", &ports)?;
        add(&ipt, "podman", "beef42", "10.88.0.6", &ports[..1])?;
        print!("{}", ipt.save(Some("nat"), false)?);
        del(&ipt, "podman", "c0ffee")?;
        del(&ipt, "podman", "beef42")?;
        print!("{}", ipt.save(Some("nat"), false)?);
        Ok(())
    })??;
    Ok(())
}
