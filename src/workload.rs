//! Deterministic kube-proxy-style workloads in the iptables-restore format, for the demo,
//! benches and scale tests.
//!
//! A Rust port of `workloads/gen_kubeproxy.py`: the same rule shapes (what `iptables-save`
//! shows on a node running kube-proxy ≥ 1.27 in iptables mode), the same chain naming scheme
//! (`KUBE-SVC-`/`KUBE-SEP-`/`KUBE-EXT-` followed by the first 16 base32 characters of a
//! SHA-256, as kube-proxy names them) and the same options. The random choices come from a
//! different generator, so the output is not byte-identical to the Python script's, but it has
//! the same shape and proportions: per service with `E` endpoints `2 + 3E` rules (+3 when it
//! has a NodePort), services without endpoints get a filter `REJECT`.
//!
//! ```
//! use iptnl::workload::{kube_proxy, KubeProxyOptions};
//! let (text, stats) = kube_proxy(&KubeProxyOptions { rules: Some(1000), ..Default::default() });
//! assert!(text.starts_with("*mangle\n"));
//! assert!((stats.rules as f64 - 1000.0).abs() < 50.0);
//! ```

use std::collections::HashSet;
use std::fmt::Write;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Options of [`kube_proxy`] (the generator's command-line options).
#[derive(Debug, Clone, PartialEq)]
pub struct KubeProxyOptions {
    /// Services with endpoints (`-S`); when `None`, picked from [`rules`](Self::rules).
    pub services: Option<usize>,
    /// Endpoints per service (`-E`, default 10).
    pub endpoints: usize,
    /// Pick the number of services so that the total rule count is about this (`--rules`).
    pub rules: Option<usize>,
    /// Extra services without endpoints (`--noep`, default services / 100).
    pub noep: Option<usize>,
    /// Fraction of services with a NodePort (`--nodeport-frac`, default 0.10).
    pub nodeport_frac: f64,
    /// Fraction of UDP services (`--udp-frac`, default 0.05).
    pub udp_frac: f64,
    /// Seed of the random choices (`--seed`, default 1).
    pub seed: u64,
    /// The ip6tables variant (`--ipv6`).
    pub ipv6: bool,
}

impl KubeProxyOptions {
    /// About `rules` rules; `0` gives the skeleton alone (kube-proxy's chains and about 20
    /// rules, no service), as benches use for an "empty" node.
    ///
    /// ```
    /// use iptnl::workload::{kube_proxy, KubeProxyOptions};
    /// let (_, empty) = kube_proxy(&KubeProxyOptions::sized(0));
    /// let (_, some) = kube_proxy(&KubeProxyOptions::sized(2_000));
    /// assert!(empty.rules < 100 && some.rules > 1_500);
    /// ```
    pub fn sized(rules: usize) -> KubeProxyOptions {
        if rules == 0 {
            KubeProxyOptions {
                services: Some(0),
                noep: Some(0),
                ..Default::default()
            }
        } else {
            KubeProxyOptions {
                rules: Some(rules),
                ..Default::default()
            }
        }
    }
}

impl Default for KubeProxyOptions {
    fn default() -> Self {
        KubeProxyOptions {
            services: None,
            endpoints: 10,
            rules: None,
            noep: None,
            nodeport_frac: 0.10,
            udp_frac: 0.05,
            seed: 1,
            ipv6: false,
        }
    }
}

/// What [`kube_proxy`] generated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubeProxyStats {
    /// Rules in all tables.
    pub rules: usize,
    /// Rules in the filter table.
    pub filter_rules: usize,
    /// Rules in the nat table.
    pub nat_rules: usize,
    /// Chains in all tables, built-in ones included.
    pub chains: usize,
    /// User chains of the nat table.
    pub nat_user_chains: usize,
    /// Services with endpoints.
    pub services_with_eps: usize,
    /// Services without endpoints.
    pub services_noep: usize,
    /// Services with a NodePort (and endpoints).
    pub nodeports: usize,
    /// Endpoints.
    pub endpoints: usize,
    /// Rules of the nat `KUBE-SERVICES` chain.
    pub kube_services_nat_rules: usize,
}

const MASQ_MARK: &str = "0x4000/0x4000";
const NAMESPACES: [&str; 15] = [
    "default",
    "kube-system",
    "monitoring",
    "ingress-nginx",
    "payments",
    "checkout",
    "catalog",
    "search",
    "auth",
    "logging",
    "istio-system",
    "data",
    "ml",
    "web",
    "api",
];
const WORDS: [&str; 20] = [
    "api", "web", "cart", "user", "order", "pay", "search", "auth", "mail", "cache", "queue", "db",
    "proxy", "img", "feed", "geo", "rank", "log", "stat", "edge",
];
const PORTS: [(&str, u16, u16); 8] = [
    ("http", 80, 8080),
    ("https", 443, 8443),
    ("grpc", 9000, 9000),
    ("metrics", 9090, 9090),
    ("", 8080, 8080),
    ("http", 3000, 3000),
    ("tcp", 5432, 5432),
    ("redis", 6379, 6379),
];

/// Rules per service with `e` endpoints and a NodePort fraction `npf`.
pub fn per_service_rules(e: usize, npf: f64) -> f64 {
    2.0 + 3.0 * e as f64 + 3.0 * npf
}

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn random(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: u128) -> u128 {
        let x = ((self.next() as u128) << 64) | self.next() as u128;
        x % n
    }
    fn choice<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u128) as usize]
    }
}

/// SHA-256 of `data` (FIPS 180-4), for kube-proxy's chain name hashes.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

/// kube-proxy's chain name hash: the first 16 characters of base32(sha256(s)).
fn h16(s: &str) -> String {
    const ALPHA: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let d = sha256(s.as_bytes());
    // 16 characters = 80 bits = the first 10 bytes.
    let mut bits: u128 = 0;
    for b in &d[..10] {
        bits = (bits << 8) | *b as u128;
    }
    (0..16)
        .map(|i| ALPHA[((bits >> (75 - 5 * i)) & 31) as usize] as char)
        .collect()
}

struct Service {
    spn: String,
    proto: &'static str,
    cip: String,
    port: u16,
    tport: u16,
    nodeport: Option<u16>,
    eps: Vec<String>,
}

/// Generates a kube-proxy-style iptables-restore input (tables mangle, filter, nat).
pub fn kube_proxy(opts: &KubeProxyOptions) -> (String, KubeProxyStats) {
    let services = opts.services.unwrap_or_else(|| {
        let per = per_service_rules(opts.endpoints, opts.nodeport_frac) + 0.01;
        let want = opts.rules.unwrap_or(1000) as f64;
        (((want - 20.0) / per).round() as usize).max(1)
    });
    let noep = opts.noep.unwrap_or(services / 100);
    let v6 = opts.ipv6;
    let mut rng = Rng(opts.seed ^ 0x6b75_6265_7072_6f78);
    let (mask, cluster_cidr, reject) = if v6 {
        ("/128", "fd00:10:244::/56", "icmp6-port-unreachable")
    } else {
        ("/32", "10.244.0.0/14", "icmp-port-unreachable")
    };
    let svc_base: u128 = if v6 {
        u128::from(Ipv6Addr::new(0xfd00, 0x10, 0x96, 0, 0, 0, 0, 0))
    } else {
        u32::from(Ipv4Addr::new(10, 96, 0, 0)) as u128
    };
    let (pod_base, pod_n): (u128, u128) = if v6 {
        (
            u128::from(Ipv6Addr::new(0xfd00, 0x10, 0x244, 0, 0, 0, 0, 0)),
            1u128 << 72,
        )
    } else {
        (u32::from(Ipv4Addr::new(10, 244, 0, 0)) as u128, 1u128 << 18)
    };
    let addr = |a: u128| -> String {
        if v6 {
            Ipv6Addr::from(a).to_string()
        } else {
            Ipv4Addr::from(a as u32).to_string()
        }
    };

    // Services.
    let total = services + noep;
    let mut noep_idx = vec![false; total];
    {
        // A partial Fisher-Yates shuffle picks `noep` distinct indexes.
        let mut idx: Vec<usize> = (0..total).collect();
        for k in 0..noep.min(total) {
            let j = k + rng.below((total - k) as u128) as usize;
            idx.swap(k, j);
            noep_idx[idx[k]] = true;
        }
    }
    let mut used_pod: HashSet<u128> = HashSet::new();
    let mut np_next: u16 = 30000;
    let mut svcs = Vec::with_capacity(total);
    for (i, &no_eps) in noep_idx.iter().enumerate() {
        let ns = NAMESPACES[i % NAMESPACES.len()];
        let name = format!("{}-{}-{i}", rng.choice(&WORDS), rng.choice(&WORDS));
        let (pname, port, tport) = *rng.choice(&PORTS);
        let proto = if rng.random() < opts.udp_frac {
            "udp"
        } else {
            "tcp"
        };
        let spn = if pname.is_empty() {
            format!("{ns}/{name}")
        } else {
            format!("{ns}/{name}:{pname}")
        };
        let mut nodeport = None;
        if rng.random() < opts.nodeport_frac {
            nodeport = Some(np_next);
            np_next += 1;
            if np_next > 32767 {
                np_next = 30000;
            }
        }
        let neps = if no_eps { 0 } else { opts.endpoints };
        let mut eps = Vec::with_capacity(neps);
        for _ in 0..neps {
            let off = loop {
                let off = 2 + rng.below(pod_n - 3);
                if !used_pod.contains(&off) && (v6 || !matches!(off % 256, 0 | 255)) {
                    used_pod.insert(off);
                    break off;
                }
            };
            eps.push(addr(pod_base + off));
        }
        svcs.push(Service {
            spn,
            proto,
            cip: addr(svc_base + 10 + i as u128),
            port,
            tport,
            nodeport,
            eps,
        });
    }

    // Rules.
    let f_chains = [
        "KUBE-EXTERNAL-SERVICES",
        "KUBE-FIREWALL",
        "KUBE-FORWARD",
        "KUBE-KUBELET-CANARY",
        "KUBE-NODEPORTS",
        "KUBE-PROXY-CANARY",
        "KUBE-PROXY-FIREWALL",
        "KUBE-SERVICES",
    ];
    let mut f_rules: Vec<String> = [
        r#"-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL"#,
        r#"-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS"#,
        r#"-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES"#,
        r#"-A INPUT -j KUBE-FIREWALL"#,
        r#"-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL"#,
        r#"-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD"#,
        r#"-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES"#,
        r#"-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES"#,
        r#"-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL"#,
        r#"-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES"#,
        r#"-A OUTPUT -j KUBE-FIREWALL"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if !v6 {
        f_rules.push(r#"-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP"#.to_string());
    }
    f_rules.push(r#"-A KUBE-FIREWALL -m comment --comment "kubernetes firewall for dropping marked packets" -m mark --mark 0x8000/0x8000 -j DROP"#.to_string());
    f_rules.push("-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP".to_string());
    f_rules.push(format!(r#"-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark {MASQ_MARK} -j ACCEPT"#));
    f_rules.push(r#"-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"#.to_string());

    let mut n_chains: Vec<String> = [
        "KUBE-KUBELET-CANARY",
        "KUBE-MARK-MASQ",
        "KUBE-NODEPORTS",
        "KUBE-POSTROUTING",
        "KUBE-PROXY-CANARY",
        "KUBE-SERVICES",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut n_rules: Vec<String> = vec![
        r#"-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES"#.to_string(),
        r#"-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES"#.to_string(),
        r#"-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING"#.to_string(),
        format!("-A KUBE-MARK-MASQ -j MARK --set-xmark {MASQ_MARK}"),
        format!("-A KUBE-POSTROUTING -m mark ! --mark {MASQ_MARK} -j RETURN"),
        "-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0".to_string(),
        r#"-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully"#.to_string(),
    ];
    let mut st = KubeProxyStats::default();
    for s in &svcs {
        let p = s.proto;
        let cip = format!("{}{mask}", s.cip);
        let spn = &s.spn;
        if s.eps.is_empty() {
            st.services_noep += 1;
            f_rules.push(format!(
                r#"-A KUBE-SERVICES -d {cip} -p {p} -m comment --comment "{spn} has no endpoints" -m {p} --dport {} -j REJECT --reject-with {reject}"#,
                s.port
            ));
            if let Some(np) = s.nodeport {
                f_rules.push(format!(
                    r#"-A KUBE-EXTERNAL-SERVICES -p {p} -m comment --comment "{spn} has no endpoints" -m addrtype --dst-type LOCAL -m {p} --dport {np} -j REJECT --reject-with {reject}"#
                ));
            }
            continue;
        }
        st.services_with_eps += 1;
        let hash = h16(&format!("{spn}{p}"));
        let svc = format!("KUBE-SVC-{hash}");
        let ext = format!("KUBE-EXT-{hash}");
        n_rules.push(format!(
            r#"-A KUBE-SERVICES -d {cip} -p {p} -m comment --comment "{spn} cluster IP" -m {p} --dport {} -j {svc}"#,
            s.port
        ));
        n_chains.push(svc.clone());
        if let Some(np) = s.nodeport {
            st.nodeports += 1;
            n_rules.push(format!(
                r#"-A KUBE-NODEPORTS -p {p} -m comment --comment "{spn}" -m {p} --dport {np} -j {ext}"#
            ));
            n_rules.push(format!(
                r#"-A {ext} -m comment --comment "masquerade traffic for {spn} external destinations" -j KUBE-MARK-MASQ"#
            ));
            n_rules.push(format!("-A {ext} -j {svc}"));
            n_chains.push(ext);
        }
        n_rules.push(format!(
            r#"-A {svc} ! -s {cluster_cidr} -d {cip} -p {p} -m comment --comment "{spn} cluster IP" -m {p} --dport {} -j KUBE-MARK-MASQ"#,
            s.port
        ));
        let n = s.eps.len();
        let mut sep_rules = Vec::with_capacity(2 * n);
        for (i, ep) in s.eps.iter().enumerate() {
            let hp = if v6 {
                format!("[{ep}]:{}", s.tport)
            } else {
                format!("{ep}:{}", s.tport)
            };
            let sep = format!("KUBE-SEP-{}", h16(&format!("{spn}{p}{hp}")));
            st.endpoints += 1;
            if i < n - 1 {
                n_rules.push(format!(
                    r#"-A {svc} -m comment --comment "{spn} -> {hp}" -m statistic --mode random --probability {:.10} -j {sep}"#,
                    1.0 / (n - i) as f64
                ));
            } else {
                n_rules.push(format!(
                    r#"-A {svc} -m comment --comment "{spn} -> {hp}" -j {sep}"#
                ));
            }
            sep_rules.push(format!(
                r#"-A {sep} -s {ep}{mask} -m comment --comment "{spn}" -j KUBE-MARK-MASQ"#
            ));
            sep_rules.push(format!(
                r#"-A {sep} -p {p} -m comment --comment "{spn}" -m {p} -j DNAT --to-destination {hp}"#
            ));
            n_chains.push(sep);
        }
        n_rules.append(&mut sep_rules);
    }
    n_rules.push(r#"-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS"#.to_string());

    let mut out = String::with_capacity((f_rules.len() + n_rules.len()) * 160 + 4096);
    out.push_str("*mangle\n");
    for c in ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"] {
        let _ = writeln!(out, ":{c} ACCEPT [0:0]");
    }
    out.push_str(":KUBE-KUBELET-CANARY - [0:0]\n:KUBE-PROXY-CANARY - [0:0]\nCOMMIT\n*filter\n");
    for c in ["INPUT", "FORWARD", "OUTPUT"] {
        let _ = writeln!(out, ":{c} ACCEPT [0:0]");
    }
    for c in f_chains {
        let _ = writeln!(out, ":{c} - [0:0]");
    }
    for r in &f_rules {
        out.push_str(r);
        out.push('\n');
    }
    out.push_str("COMMIT\n*nat\n");
    for c in ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"] {
        let _ = writeln!(out, ":{c} ACCEPT [0:0]");
    }
    for c in &n_chains {
        let _ = writeln!(out, ":{c} - [0:0]");
    }
    for r in &n_rules {
        out.push_str(r);
        out.push('\n');
    }
    out.push_str("COMMIT\n");
    st.filter_rules = f_rules.len();
    st.nat_rules = n_rules.len();
    st.rules = st.filter_rules + st.nat_rules;
    st.nat_user_chains = n_chains.len();
    st.kube_services_nat_rules = n_rules
        .iter()
        .filter(|r| r.starts_with("-A KUBE-SERVICES "))
        .count();
    st.chains = f_chains.len() + n_chains.len() + 2 + 12;
    (out, st)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::{parse_command, IpFamily};

    #[test]
    fn sha256_and_h16_match_known_values() {
        let d = sha256(b"abc");
        assert_eq!(d[..4], [0xba, 0x78, 0x16, 0xbf]);
        assert_eq!(d[28..], [0xf2, 0x00, 0x15, 0xad]);
        // Same as gen_kubeproxy.py's h16 (base64.b32encode(sha256(s))[:16]).
        assert_eq!(sha256(b"").len(), 32);
        assert_eq!(h16("abc"), "XJ4BNP4PAHH6UQKB");
    }

    #[test]
    fn rule_count_is_close_to_the_target() {
        for (n, v6) in [
            (1000, false),
            (10_000, false),
            (100_000, false),
            (10_000, true),
        ] {
            let (text, st) = kube_proxy(&KubeProxyOptions {
                rules: Some(n),
                ipv6: v6,
                ..Default::default()
            });
            let off = (st.rules as f64 - n as f64).abs() / n as f64;
            assert!(off < 0.03, "{n}: got {} rules", st.rules);
            let counted = text.lines().filter(|l| l.starts_with("-A ")).count();
            assert_eq!(counted, st.rules);
        }
    }

    #[test]
    fn deterministic_and_seeded() {
        let o = KubeProxyOptions {
            rules: Some(2000),
            ..Default::default()
        };
        assert_eq!(kube_proxy(&o).0, kube_proxy(&o).0);
        let o2 = KubeProxyOptions {
            seed: 2,
            ..o.clone()
        };
        assert_ne!(kube_proxy(&o).0, kube_proxy(&o2).0);
    }

    #[test]
    fn every_rule_line_parses() {
        for v6 in [false, true] {
            let fam = if v6 { IpFamily::V6 } else { IpFamily::V4 };
            let (text, st) = kube_proxy(&KubeProxyOptions {
                services: Some(300),
                noep: Some(20),
                nodeport_frac: 0.3,
                udp_frac: 0.2,
                ipv6: v6,
                ..Default::default()
            });
            assert_eq!(st.services_noep, 20);
            assert!(st.nodeports > 30);
            for l in text.lines().filter(|l| l.starts_with("-A ")) {
                let args = crate::ipt::split_args(l).unwrap();
                parse_command(fam, &args).unwrap_or_else(|e| panic!("{l}: {e}"));
            }
        }
    }
}
