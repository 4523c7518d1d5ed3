//! A kube-proxy-like sync with iptnl's `IpTables` transactions: the nat chains
//! KUBE-SERVICES, KUBE-SVC-* and KUBE-SEP-* for N services, built in one transaction, then a
//! second sync in which some services changed endpoints, some were removed and some added,
//! applied as ONE transaction holding only the delta (kube-proxy's iptables mode rewrites the
//! whole table with `iptables-restore` on every sync instead).
//!
//! Runs in a fresh, throwaway network namespace (as root, or under `unshare -rn`):
//!
//! ```sh
//! cargo run --release --example kube_services -- --services 2000 --endpoints 5
//! ```
//!
//! Options (defaults in brackets):
//! - `--services N` services with endpoints in the first sync [500];
//! - `--endpoints E` endpoints per service [3];
//! - `--changed N` services whose endpoints change in the second sync [services/10];
//! - `--removed N` services removed [services/20];
//! - `--added N` services added [services/20];
//! - `--current-netns` work in the caller's network namespace instead of a fresh one (this
//!   changes the nat table there: only for a namespace made for it).
//!
//! Per service with `E` endpoints the rules are kube-proxy's: a jump from KUBE-SERVICES on
//! the cluster IP and port, a KUBE-SVC chain (masquerade mark for off-cluster sources, then
//! one `statistic` jump per endpoint) and per endpoint a KUBE-SEP chain (hairpin mark, DNAT):
//! `2 + 3E` rules. Chain names hash the service (and endpoint) as kube-proxy's do. Timings
//! are printed with the kernel's share (`sendmsg`, where the kernel commits a batch) apart.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::{Error, IpTables};

/// The mark kube-proxy uses for traffic to masquerade.
const MASQ_MARK: &str = "0x4000/0x4000";
const CLUSTER_CIDR: &str = "10.244.0.0/16";
const NODEPORTS_RULE: &str = r#"-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS"#;

/// Command-line options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Services in the first sync.
    pub services: usize,
    /// Endpoints per service.
    pub endpoints: usize,
    /// Services whose endpoints change in the second sync.
    pub changed: usize,
    /// Services removed in the second sync.
    pub removed: usize,
    /// Services added in the second sync.
    pub added: usize,
    /// Work in the caller's network namespace.
    pub current_netns: bool,
}

impl Options {
    /// Parses the options (without the program name).
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut services = 500;
        let (mut endpoints, mut changed, mut removed, mut added) = (3, None, None, None);
        let mut current_netns = false;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut num = |name: &str| -> Result<usize, String> {
                it.next()
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| format!("{name} needs a number"))
            };
            match a.as_str() {
                "--services" => services = num(a)?,
                "--endpoints" => endpoints = num(a)?.max(1),
                "--changed" => changed = Some(num(a)?),
                "--removed" => removed = Some(num(a)?),
                "--added" => added = Some(num(a)?),
                "--current-netns" => current_netns = true,
                "-h" | "--help" => return Err("usage: kube_services [--services N] [--endpoints E] [--changed N] [--removed N] [--added N] [--current-netns]".into()),
                other => return Err(format!("unknown option {other}")),
            }
        }
        let removed = removed.unwrap_or(services / 20).min(services);
        let changed = changed.unwrap_or(services / 10).min(services - removed);
        Ok(Options {
            services,
            endpoints,
            changed,
            removed,
            added: added.unwrap_or(services / 20),
            current_netns,
        })
    }
}

/// One service port and its endpoints, as kube-proxy sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// `namespace/name:port`.
    pub name: String,
    /// The cluster IP.
    pub cluster_ip: String,
    /// The service port (TCP).
    pub port: u16,
    /// The endpoints (pod IP and target port).
    pub endpoints: Vec<(String, u16)>,
}

/// kube-proxy names chains with the first 16 characters of base32(sha256(...)); any stable
/// hash does here (FNV-1a, two rounds, in base32).
fn h16(s: &str) -> String {
    const ALPHA: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let fnv = |seed: u64| {
        s.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let bits = (u128::from(fnv(0xcbf2_9ce4_8422_2325)) << 64) | u128::from(fnv(0x8422_2325));
    (0..16)
        .map(|i| ALPHA[((bits >> (5 * i)) & 31) as usize] as char)
        .collect()
}

impl Service {
    fn svc_chain(&self) -> String {
        format!("KUBE-SVC-{}", h16(&format!("{}tcp", self.name)))
    }

    fn sep_chain(&self, ep: &(String, u16)) -> String {
        format!(
            "KUBE-SEP-{}",
            h16(&format!("{}tcp{}:{}", self.name, ep.0, ep.1))
        )
    }

    /// The KUBE-SERVICES rule that leads to this service.
    fn services_rule(&self) -> String {
        format!(
            r#"-d {}/32 -p tcp -m comment --comment "{} cluster IP" -m tcp --dport {} -j {}"#,
            self.cluster_ip,
            self.name,
            self.port,
            self.svc_chain()
        )
    }

    /// The rules of the KUBE-SVC chain.
    fn svc_rules(&self) -> Vec<String> {
        let mut out = vec![format!(
            r#"! -s {CLUSTER_CIDR} -d {}/32 -p tcp -m comment --comment "{} cluster IP" -m tcp --dport {} -j KUBE-MARK-MASQ"#,
            self.cluster_ip, self.name, self.port
        )];
        let n = self.endpoints.len();
        for (i, ep) in self.endpoints.iter().enumerate() {
            let sep = self.sep_chain(ep);
            let comment = format!("{} -> {}:{}", self.name, ep.0, ep.1);
            out.push(if i + 1 < n {
                format!(
                    r#"-m comment --comment "{comment}" -m statistic --mode random --probability {:.10} -j {sep}"#,
                    1.0 / (n - i) as f64
                )
            } else {
                format!(r#"-m comment --comment "{comment}" -j {sep}"#)
            });
        }
        out
    }

    /// The rules of an endpoint's KUBE-SEP chain.
    fn sep_rules(&self, ep: &(String, u16)) -> [String; 2] {
        [
            format!(
                r#"-s {}/32 -m comment --comment "{}" -j KUBE-MARK-MASQ"#,
                ep.0, self.name
            ),
            format!(
                r#"-p tcp -m comment --comment "{}" -m tcp -j DNAT --to-destination {}:{}"#,
                self.name, ep.0, ep.1
            ),
        ]
    }
}

fn pod_ip(n: usize) -> String {
    format!("10.244.{}.{}", (n / 250) % 250, n % 250 + 2)
}

fn service(i: usize, endpoints: usize, ep_base: usize) -> Service {
    Service {
        name: format!("ns{}/svc-{i}:http", i % 7),
        cluster_ip: format!("10.96.{}.{}", (i / 250) % 250, i % 250 + 1),
        port: 80 + (i % 3) as u16,
        endpoints: (0..endpoints)
            .map(|e| (pod_ip(ep_base + i * endpoints + e), 8080))
            .collect(),
    }
}

/// The desired services of the first sync and of the second (removed ones dropped, changed
/// ones with their first endpoint replaced by a new pod, new ones added).
pub fn desired(o: &Options) -> (Vec<Service>, Vec<Service>) {
    let first: Vec<Service> = (0..o.services)
        .map(|i| service(i, o.endpoints, 0))
        .collect();
    let fresh = (o.services + o.added + 1) * o.endpoints;
    let mut second = Vec::with_capacity(o.services + o.added);
    for (i, s) in first.iter().enumerate() {
        if i < o.removed {
            continue;
        }
        let mut s = s.clone();
        if i < o.removed + o.changed {
            s.endpoints[0] = (pod_ip(fresh + i), 8080);
        }
        second.push(s);
    }
    for i in o.services..o.services + o.added {
        second.push(service(i, o.endpoints, 0));
    }
    (first, second)
}

/// What a sync did and how long it took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Operations in the transaction.
    pub ops: usize,
    /// Wall time of building and committing the transaction.
    pub wall: Duration,
    /// Time spent inside `sendmsg` (the kernel's commit).
    pub kernel: Duration,
}

/// Runs `build` on a new transaction of `ipt`, commits it and times it.
fn timed_tx(
    ipt: &IpTables,
    build: impl FnOnce(&mut iptnl::iptables::Transaction<'_>),
) -> Result<SyncStats, Error> {
    let k0 = ipt.kernel_time();
    let t = Instant::now();
    let mut tx = ipt.transaction();
    build(&mut tx);
    let ops = tx.len();
    tx.commit()?;
    Ok(SyncStats {
        ops,
        wall: t.elapsed(),
        kernel: ipt.kernel_time().since(&k0).sendmsg,
    })
}

/// The first sync: kube-proxy's fixed chains and jumps, then every service, in one
/// transaction. Chains are created with `clear_chain` (created, or emptied when present) as
/// `iptables-restore` with `:CHAIN - [0:0]` lines does.
pub fn full_sync(ipt: &IpTables, services: &[Service]) -> Result<SyncStats, Error> {
    timed_tx(ipt, |tx| {
        for c in [
            "KUBE-SERVICES",
            "KUBE-NODEPORTS",
            "KUBE-MARK-MASQ",
            "KUBE-POSTROUTING",
        ] {
            tx.clear_chain("nat", c);
        }
        let portals = r#"-m comment --comment "kubernetes service portals" -j KUBE-SERVICES"#;
        tx.append_unique("nat", "PREROUTING", portals)
            .append_unique("nat", "OUTPUT", portals)
            .append_unique(
                "nat",
                "POSTROUTING",
                r#"-m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING"#,
            )
            .append(
                "nat",
                "KUBE-MARK-MASQ",
                format!("-j MARK --set-xmark {MASQ_MARK}"),
            )
            .append(
                "nat",
                "KUBE-POSTROUTING",
                format!("-m mark ! --mark {MASQ_MARK} -j RETURN"),
            )
            .append("nat", "KUBE-POSTROUTING", "-j MARK --set-xmark 0x4000/0x0")
            .append(
                "nat",
                "KUBE-POSTROUTING",
                r#"-m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully"#,
            );
        for s in services {
            add_service_chains(tx, s);
            tx.append("nat", "KUBE-SERVICES", s.services_rule());
        }
        tx.append("nat", "KUBE-SERVICES", NODEPORTS_RULE);
    })
}

/// A service's KUBE-SEP chains and its KUBE-SVC chain (not the KUBE-SERVICES jump).
fn add_service_chains(tx: &mut iptnl::iptables::Transaction<'_>, s: &Service) {
    for ep in &s.endpoints {
        add_sep(tx, s, ep);
    }
    let svc = s.svc_chain();
    tx.clear_chain("nat", &svc);
    for r in s.svc_rules() {
        tx.append("nat", &svc, r);
    }
}

fn add_sep(tx: &mut iptnl::iptables::Transaction<'_>, s: &Service, ep: &(String, u16)) {
    let sep = s.sep_chain(ep);
    tx.clear_chain("nat", &sep);
    for r in s.sep_rules(ep) {
        tx.append("nat", &sep, r);
    }
}

/// The second sync: only what changed from `old` to `new`, in one transaction. New endpoint
/// chains first, then rewritten or new KUBE-SVC chains, then the KUBE-SERVICES jumps (new
/// ones inserted at the top, so the nodeports rule stays last; removed ones deleted by
/// spec, which makes the transaction carry the generation it read), then the chains nothing
/// jumps to any more.
pub fn delta_sync(ipt: &IpTables, old: &[Service], new: &[Service]) -> Result<SyncStats, Error> {
    let old_by: BTreeMap<&str, &Service> = old.iter().map(|s| (s.name.as_str(), s)).collect();
    let new_by: BTreeMap<&str, &Service> = new.iter().map(|s| (s.name.as_str(), s)).collect();
    timed_tx(ipt, |tx| {
        let mut dead_chains = Vec::new();
        for s in new {
            match old_by.get(s.name.as_str()) {
                None => {
                    add_service_chains(tx, s);
                    tx.insert("nat", "KUBE-SERVICES", 1, s.services_rule());
                }
                Some(o) if *o != s => {
                    let before: BTreeSet<&(String, u16)> = o.endpoints.iter().collect();
                    let after: BTreeSet<&(String, u16)> = s.endpoints.iter().collect();
                    for ep in after.difference(&before) {
                        add_sep(tx, s, ep);
                    }
                    let svc = s.svc_chain();
                    tx.clear_chain("nat", &svc);
                    for r in s.svc_rules() {
                        tx.append("nat", &svc, r);
                    }
                    if o.services_rule() != s.services_rule() {
                        tx.delete("nat", "KUBE-SERVICES", o.services_rule()).insert(
                            "nat",
                            "KUBE-SERVICES",
                            1,
                            s.services_rule(),
                        );
                    }
                    dead_chains.extend(before.difference(&after).map(|ep| o.sep_chain(ep)));
                }
                Some(_) => {}
            }
        }
        for o in old {
            if !new_by.contains_key(o.name.as_str()) {
                tx.delete("nat", "KUBE-SERVICES", o.services_rule());
                dead_chains.push(o.svc_chain());
                dead_chains.extend(o.endpoints.iter().map(|ep| o.sep_chain(ep)));
            }
        }
        // Jumping chains go first: KUBE-SVC before the KUBE-SEP chains it jumps to.
        dead_chains.sort_by_key(|c| !c.starts_with("KUBE-SVC-"));
        for c in dead_chains {
            tx.clear_and_delete_chain("nat", &c);
        }
    })
}

/// Rules a full sync of `services` writes (the fixed ones included).
pub fn rule_count(services: &[Service]) -> usize {
    8 + services
        .iter()
        .map(|s| 2 + 3 * s.endpoints.len())
        .sum::<usize>()
}

/// Both syncs on `ipt`, printing what they did.
pub fn run(ipt: &IpTables, o: &Options) -> Result<(SyncStats, SyncStats), Error> {
    let (first, second) = desired(o);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let s1 = full_sync(ipt, &first)?;
    println!(
        "sync 1: {} services, {} rules: {} operations in one transaction, {:.1} ms (kernel {:.1} ms, iptnl {:.1} ms)",
        first.len(),
        rule_count(&first),
        s1.ops,
        ms(s1.wall),
        ms(s1.kernel),
        ms(s1.wall.saturating_sub(s1.kernel))
    );
    let s2 = delta_sync(ipt, &first, &second)?;
    println!(
        "sync 2: {} changed, {} removed, {} added: {} operations in one transaction, {:.1} ms (kernel {:.1} ms, iptnl {:.1} ms); a full sync would write {} rules",
        o.changed,
        o.removed,
        o.added,
        s2.ops,
        ms(s2.wall),
        ms(s2.kernel),
        ms(s2.wall.saturating_sub(s2.kernel)),
        rule_count(&second)
    );
    let jumps = ipt.list("nat", "KUBE-SERVICES")?.len().saturating_sub(2);
    println!(
        "KUBE-SERVICES now holds {jumps} service jumps (expected {})",
        second.len()
    );
    Ok((s1, s2))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = Options::parse(&args)?;
    if o.current_netns {
        run(&IpTables::new(IpFamily::V4)?, &o)?;
    } else {
        iptnl::netns::run_in_fresh_netns(|| run(&IpTables::new(IpFamily::V4)?, &o))??;
    }
    Ok(())
}
