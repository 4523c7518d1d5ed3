//! With host lookups turned off (`iptnl::fuzzing::no_host_lookups`, which the fuzz targets
//! call so that no input waits on the network), no option of any extension asks the system's
//! resolver. One test in its own process, as the switch is process-wide.

use iptnl::ipt::{parse_rule, IpFamily};

/// A host name in each kind of place that takes one: `-s`/`-d`, and the extensions that
/// read a host as libxtables' `XTTYPE_HOST`/`XTTYPE_HOSTMASK` do. Each names `localhost`,
/// which the resolver knows as 127.0.0.1 (`/etc/hosts`): an IPv4 rule then parses, and an
/// IPv6 host option fails with the resolver's own answer ("No address associated with
/// hostname"). Once lookups are off, every one fails as an unknown name instead.
const RULES: &[(IpFamily, &[&str])] = &[
    (IpFamily::V4, &["-s", "localhost"]),
    (IpFamily::V4, &["-d", "localhost/24"]),
    (IpFamily::V4, &["-j", "TEE", "--gateway", "localhost"]),
    (IpFamily::V6, &["-j", "TEE", "--gateway", "localhost"]),
    (
        IpFamily::V4,
        &[
            "-p",
            "tcp",
            "-j",
            "TPROXY",
            "--on-port",
            "1",
            "--on-ip",
            "localhost",
        ],
    ),
    (
        IpFamily::V4,
        &[
            "-m",
            "policy",
            "--dir",
            "in",
            "--pol",
            "ipsec",
            "--mode",
            "tunnel",
            "--tunnel-src",
            "localhost",
        ],
    ),
    (
        IpFamily::V4,
        &["-m", "conntrack", "--ctorigsrc", "localhost"],
    ),
    (IpFamily::V6, &["-m", "srh", "--srh-psid", "localhost"]),
    (IpFamily::V6, &["-m", "srh", "--srh-nsid", "localhost/64"]),
    (IpFamily::V6, &["-m", "srh", "--srh-lsid", "localhost"]),
];

fn outcome(family: IpFamily, args: &[&str]) -> String {
    match parse_rule(family, args) {
        Ok(_) => "parsed".into(),
        Err(e) => e.iptables_words(),
    }
}

#[test]
fn no_rule_asks_the_resolver_once_lookups_are_off() {
    if parse_rule(IpFamily::V4, &["-s", "localhost"]).is_err() {
        eprintln!("skipped: the resolver here does not know localhost");
        return;
    }
    let on: Vec<String> = RULES.iter().map(|(f, a)| outcome(*f, a)).collect();
    iptnl::fuzzing::no_host_lookups();
    for ((f, args), on) in RULES.iter().zip(on) {
        let off = outcome(*f, args);
        assert_ne!(
            off, on,
            "{f:?} {args:?}: the same outcome with lookups off, so the resolver was asked"
        );
        assert_ne!(off, "parsed", "{f:?} {args:?}");
    }
    // Numeric addresses are read as before.
    assert!(parse_rule(IpFamily::V4, &["-j", "TEE", "--gateway", "10.0.0.1"]).is_ok());
    assert!(parse_rule(IpFamily::V6, &["-m", "srh", "--srh-psid", "fd00::1/64"]).is_ok());
}
