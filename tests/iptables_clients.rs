//! What real clients of iptables depend on (Docker's `-d 0/0`, firewalld's reload, Shorewall's
//! chain probe, fail2ban's set rules, a writer that keeps its pipe to iptables-restore open),
//! compared with iptables-nft 1.8.9: the same shell script runs in two fresh network
//! namespaces, once with iptables-nft's tools on `PATH` under the plain names and once with
//! iptnl's, and must print the same (program versions aside), exit the same way at each step
//! and leave the same ruleset (`iptables-nft-save -c` of both families, and the chains `nft`
//! lists). Where iptables 1.8.11 behaves otherwise than 1.8.9, the test says so and follows
//! 1.8.11: those scripts also run with iptables-nft 1.8.11 as `scripts/oracles.sh` installs it
//! (in `$IPTNL_ORACLES`, by default `/var/cache/iptnl-oracles`; skipped when it is not there).

#[path = "common/cli_seqs.rs"]
mod cli_seqs;
mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{plan_restore, RestoreError, RestoreOptions};

/// The tool names a script uses.
const NAMES: &[&str] = &[
    "iptables",
    "ip6tables",
    "iptables-restore",
    "ip6tables-restore",
    "iptables-save",
    "ip6tables-save",
];

/// The directory of iptables-nft 1.8.11's tools, if it is installed.
fn release_1_8_11() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("IPTNL_ORACLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/var/cache/iptnl-oracles".into())
        .join("1.8.11/bin");
    dir.join("iptables").exists().then_some(dir)
}

/// Links under the plain tool names to iptables-nft 1.8.11's tools.
fn links_1_8_11(dir: &std::path::Path) -> common::ToolLinks {
    let t = common::ToolLinks::new("iptnl-oracle-1.8.11", &[]);
    for n in NAMES {
        std::os::unix::fs::symlink(dir.join(n), t.dir.join(n)).unwrap();
    }
    t
}

/// A directory of links under the plain tool names, to iptables-nft's multi-call binary
/// (`oracle`) or to iptnl's.
fn links(oracle: bool) -> common::ToolLinks {
    let t = common::ToolLinks::new(if oracle { "iptnl-oracle" } else { "iptnl-ours" }, &[]);
    let target = if oracle {
        std::fs::canonicalize("/usr/sbin/xtables-nft-multi")
            .unwrap_or_else(|_| "/usr/sbin/xtables-nft-multi".into())
    } else {
        env!("CARGO_BIN_EXE_iptnl").into()
    };
    for n in NAMES {
        std::os::unix::fs::symlink(&target, t.dir.join(n)).unwrap();
    }
    t
}

/// What a script printed and the ruleset it left.
#[derive(Debug, PartialEq)]
struct Outcome {
    printed: String,
    ruleset: String,
}

/// Runs `script` with bash in a fresh namespace, the tools of `links` first on `PATH`.
fn run_script(links: &common::ToolLinks, script: &str) -> Outcome {
    common::in_netns(|| {
        let path = format!(
            "{}:{}",
            links.dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let o = Command::new("bash")
            .args(["-c", script])
            .env("PATH", &path)
            .env("IPTNL_DIRECT", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let mut printed = String::from_utf8_lossy(&o.stdout).into_owned();
        printed.push_str(&String::from_utf8_lossy(&o.stderr));
        let mut ruleset = String::new();
        for save in ["iptables-nft-save", "ip6tables-nft-save"] {
            let s = common::run(save, &["-c"]);
            ruleset.extend(
                s.lines()
                    .filter(|l| !l.starts_with('#'))
                    .map(|l| format!("{l}\n")),
            );
        }
        // The chains the kernel holds (iptables-save lists missing built-in chains too).
        let mut chains: Vec<String> = common::run("nft", &["list", "chains"])
            .lines()
            .map(|l| l.trim().to_owned())
            .filter(|l| l.starts_with("table ") || l.starts_with("chain "))
            .collect();
        chains.sort();
        ruleset.push_str(&chains.join("\n"));
        Outcome {
            printed: normalize(&printed),
            ruleset,
        }
    })
}

fn normalize(s: &str) -> String {
    cli_seqs::protocols_as_1_8_11(&cli_seqs::normalize(s))
}

/// Runs `script` with iptables-nft and with iptnl; `fix` maps the oracle's output to what
/// iptables 1.8.11 prints where it differs from 1.8.9.
fn compare_with(script: &str, fix: impl Fn(String) -> String) {
    if !common::have("iptables-nft") {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    let (oracle, ours) = (links(true), links(false));
    let mut want = run_script(&oracle, script);
    want.printed = fix(want.printed);
    let got = run_script(&ours, script);
    assert_eq!(
        want.printed, got.printed,
        "printed output differs for script:\n{script}"
    );
    assert_eq!(
        want.ruleset, got.ruleset,
        "ruleset differs for script:\n{script}"
    );
}

fn compare(script: &str) {
    compare_with(script, |s| s)
}

/// Runs `script` with iptables-nft 1.8.11 (when installed) and with iptnl.
fn compare_1_8_11(script: &str) {
    let Some(dir) = release_1_8_11() else {
        common::skip(
            "the comparison with iptables 1.8.11",
            "it is not installed (scripts/oracles.sh)",
        );
        return;
    };
    let want = run_script(&links_1_8_11(&dir), script);
    let got = run_script(&links(false), script);
    assert_eq!(
        want.printed, got.printed,
        "printed output differs from 1.8.11's for script:\n{script}"
    );
    assert_eq!(
        want.ruleset, got.ruleset,
        "ruleset differs from 1.8.11's for script:\n{script}"
    );
}

/// A step of a script: the command, then its exit code on a line of its own.
fn step(cmd: &str) -> String {
    format!(
        "{cmd}; echo \"rc=$? <- {}\"\n",
        cmd.replace(['"', '$', '`', '\\'], "'")
    )
}

/// A `/0` mask makes libxtables (1.8.9 and 1.8.11) ignore the address: it is never parsed or
/// resolved. Every option that takes a host or network (`-s`, `-d` and their long names),
/// in both families, in every command that takes a rule, and in restore lines.
#[test]
fn a_zero_mask_ignores_the_address() {
    let v4 = [
        "0/0",
        "0.0.0.0/0",
        "::/0",
        "any/0",
        "nosuch.invalid/0",
        "1/0",
        "1.2.3.4/8/0",
        "0/0,10.0.0.1",
        "10.0.0.1,any/0",
        "300.1.1.1/0.0.0.0",
    ];
    let v6 = [
        "0/0",
        "0.0.0.0/0",
        "::/0",
        "any/0",
        "nosuch.invalid/0",
        "1/0",
        "0/::",
        "0/0,fd00::1",
        "fd00::1/64/0",
    ];
    for (tool, values) in [("iptables", &v4[..]), ("ip6tables", &v6[..])] {
        let mut script = String::new();
        for v in values {
            for (add, opt) in [("-A INPUT", "-s"), ("-I INPUT 1", "--dst")] {
                script += &step(&format!(
                    "{tool} {add} {opt} '{v}' -p tcp --dport 81 -j ACCEPT"
                ));
            }
            // -R with two addresses: see a_replacement_takes_the_first_addresses.
            let replace = (!v.contains(',')).then_some(("-R INPUT 1", "--destination"));
            for (cmd, opt) in [("-C INPUT", "--source")]
                .into_iter()
                .chain(replace)
                .chain([("-D INPUT", "--src"), ("-D INPUT", "-d")])
            {
                script += &step(&format!(
                    "{tool} {cmd} {opt} '{v}' -p tcp --dport 81 -j ACCEPT"
                ));
            }
            // Docker's published port.
            script += &step(&format!(
                "{tool} -t nat -N DOCKER 2>/dev/null; {tool} -t nat -A DOCKER ! -i docker0 -p tcp -d '{v}' --dport 80 -j RETURN"
            ));
            script += &step(&format!(
                "printf '*filter\\n-A FORWARD -s %s -j ACCEPT\\n-C FORWARD -s %s -j ACCEPT\\n-A FORWARD -d %s -j ACCEPT\\n-D FORWARD -d %s -j ACCEPT\\nCOMMIT\\n' '{v}' '{v}' '{v}' '{v}' | {tool}-restore -n"
            ));
        }
        script += &step(&format!("{tool} -S; {tool} -t nat -S"));
        compare(&script);
    }
}

/// `-R` with more than one source or destination address replaces the rule with the first
/// of each (iptables 1.8.10 on; 1.8.9 refused with "Replacement rule does not specify a
/// unique address"), on the command line and in a restore, with a `/0` among them too.
#[test]
fn a_replacement_takes_the_first_addresses() {
    let mut script = String::new();
    for (tool, values) in [
        (
            "iptables",
            ["10.0.0.1,10.0.0.2", "0/0,10.0.0.1", "10.0.0.3/8,any/0"],
        ),
        (
            "ip6tables",
            ["fd00::1,fd00::2", "0/0,fd00::1", "fd00::3/64,::/0"],
        ),
    ] {
        for v in values {
            script += &step(&format!("{tool} -A INPUT -j ACCEPT"));
            script += &step(&format!("{tool} -R INPUT 1 -s '{v}' -d '{v}' -j ACCEPT"));
            // (1.8.11's restore crashes on -R of a rule its own input appended.)
            script += &step(&format!("{tool} -A FORWARD -j ACCEPT"));
            script += &step(&format!(
                "printf '*filter\\n-R FORWARD 1 -d %s -j DROP\\nCOMMIT\\n' '{v}' | {tool}-restore -n"
            ));
        }
        script += &step(&format!("{tool} -R INPUT 9 -s 10.0.0.1,10.0.0.2 -j ACCEPT"));
        script += &step(&format!("{tool} -S"));
    }
    compare_1_8_11(&script);
}

/// Short IPv4 addresses in target and match options are read as libxtables reads a host
/// (`XTTYPE_HOST` and `XTTYPE_HOSTMASK`, through getaddrinfo: `127.1` is 127.0.0.1, `10` is
/// 0.0.0.10), not as `-s` reads a network; a zero mask does not make them ignored there.
#[test]
fn hosts_in_options_are_read_as_getaddrinfo_reads_them() {
    let mut script = String::new();
    for cmd in [
        "iptables -t mangle -A PREROUTING -j TEE --gateway 127.1",
        "iptables -t mangle -A PREROUTING -j TEE --gateway 10",
        "iptables -t mangle -A PREROUTING -j TEE --gateway 0x7f.1",
        "iptables -t mangle -A PREROUTING -j TEE --gateway 4294967295",
        "iptables -t mangle -A PREROUTING -j TEE --gateway 1.2.3.4.5",
        "iptables -t mangle -A PREROUTING -j TEE --gateway ::1",
        "iptables -t mangle -A PREROUTING -p tcp -j TPROXY --on-ip 127.1 --on-port 1",
        "iptables -A INPUT -m conntrack --ctorigsrc 10/8 --ctorigdst 127.1 --ctreplsrc 0/0 --ctrepldst 0",
        "iptables -A INPUT -m conntrack --ctorigsrc 1.2.3.4/8/0",
        "iptables -A INPUT -m conntrack --ctorigsrc ''",
        "iptables -A INPUT -m policy --dir in --pol ipsec --mode tunnel --tunnel-src 127.1 --tunnel-dst 10/8",
        "iptables -t nat -A PREROUTING -j NETMAP --to 10/8",
        "iptables -A INPUT -m recent --mask 255.255.0 --set",
        "ip6tables -t mangle -A PREROUTING -j TEE --gateway 1.2.3.4",
        "ip6tables -A INPUT -m conntrack --ctorigsrc 10.0.0.1",
        "ip6tables -A INPUT -m conntrack --ctorigsrc ::1/64/0",
    ] {
        script += &step(cmd);
    }
    script += &step(
        "printf '*filter\\n-A OUTPUT -m conntrack --ctorigsrc 127.1 -j ACCEPT\\nCOMMIT\\n' | iptables-restore -n",
    );
    compare(&script);
}

/// Messages that end in a newline of their own (libxtables' option checks, its resolver,
/// the set match's checks of its set) are followed by an empty line on the command line and
/// in a restore; a batch the kernel refuses is reported as iptables-nft-restore reports it
/// (`line N: RULE_APPEND failed (…)`, exit 4), a chain the line works on that is missing as
/// the failed line (`No chain/target/match by that name.`, exit 1).
#[test]
fn error_layouts_match_iptables_nft() {
    let mut script = String::new();
    for cmd in [
        "iptables -A INPUT -m limit --limit-burst 1 --limit-burst 2",
        "iptables -A INPUT -m conntrack --ctorigsrc 1.2.3.4.5",
        "iptables -A INPUT -p tcp --dport 1:2:3",
        "printf '*filter\\n-A INPUT -m limit --limit-burst 1 --limit-burst 2\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-A INPUT -j LOG --log-level foo\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-A INPUT -j TEE\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-A INPUT -m conntrack --ctorigsrc 1.2.3.4.5\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-A INPUT -m set --match-set nosuch src\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-A INPUT -m hashlimit\\nCOMMIT\\n' | iptables-restore",
        "printf '*nat\\n-A PREROUTING -j DROP\\nCOMMIT\\n' | iptables-restore",
        "printf '*nat\\n-P PREROUTING DROP\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-t filter -A INPUT\\nCOMMIT\\n' | iptables-restore",
        // Refused by the kernel.
        "printf '*mangle\\n-A PREROUTING -j TCPMSS --set-mss 100\\nCOMMIT\\n' | iptables-restore",
        "iptables -N X; iptables -A INPUT -j X; printf '*filter\\n-X X\\nCOMMIT\\n' | iptables-restore -n",
        // A missing chain found before anything is sent.
        "printf '*filter\\n-A NOSUCH -j ACCEPT\\nCOMMIT\\n' | iptables-restore -n",
        "printf '*filter\\n-F NOSUCH\\nCOMMIT\\n' | iptables-restore -n",
        "printf '*filter\\n-X NOSUCH\\nCOMMIT\\n' | iptables-restore -n",
        "printf '*filter\\n-N A\\n-N A\\nCOMMIT\\n' | iptables-restore -n",
        "printf '*filter\\n-I INPUT 9 -j ACCEPT\\nCOMMIT\\n' | iptables-restore -n",
        "printf '*filter\\n-D INPUT -j ACCEPT\\nCOMMIT\\n' | iptables-restore -n",
        // A jump target checked at the table's COMMIT line, in the input's order.
        "printf '*filter\\n-A INPUT -j NOSUCH\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n-A INPUT -j X2\\n:X2 - [0:0]\\nCOMMIT\\n' | iptables-restore",
        "printf '*filter\\n:X3 - [0:0]\\n-X X3\\n-A INPUT -j X3\\nCOMMIT\\n' | iptables-restore",
    ] {
        script += &step(cmd);
    }
    compare(&script);
    if common::have("ipset") {
        // fail2ban's iptables-ipset-proto4 action on an IPv4 set from ip6tables.
        compare(&format!(
            "ipset create f2b hash:ip\n{}{}ipset destroy f2b\n",
            step("ip6tables -A INPUT -m set --match-set f2b src -j REJECT"),
            step("printf '*filter\\n-A INPUT -m set --match-set f2b src\\nCOMMIT\\n' | ip6tables-restore"),
        ));
    }
}

/// Reading or restoring the ruleset without CAP_NET_ADMIN: iptables' words, exit 4.
#[test]
fn no_privileges_is_reported_as_iptables_reports_it() {
    if !common::have("runuser") || !common::uid_mapped(65534) {
        common::skip(
            "the unprivileged cases",
            "no runuser, or uid 65534 is not mapped",
        );
        return;
    }
    let mut script = String::new();
    for cmd in [
        "runuser -u nobody -- \"$(command -v iptables-save)\"",
        "runuser -u nobody -- \"$(command -v ip6tables-save)\" -t nat",
        "printf '*filter\\nCOMMIT\\n' | runuser -u nobody -- \"$(command -v iptables-restore)\"",
        "runuser -u nobody -- \"$(command -v iptables)\" -S",
    ] {
        script += &step(cmd);
    }
    compare(&script);
}

/// A restore without `--noflush` deletes a table each time it is named (iptables-nft
/// deletes it and makes it again): what the input said of it before goes too, and a second
/// block without chain lines works on the table as it stands.
#[test]
fn a_table_named_twice_is_deleted_again() {
    let mut script = String::new();
    for (setup, input) in [
        ("", "*filter\\n:INPUT ACCEPT [0:0]\\n:FOO - [0:0]\\n-A INPUT -j ACCEPT\\nCOMMIT\\n*filter\\n-A INPUT -j DROP\\nCOMMIT\\n"),
        ("", "*filter\\n:INPUT DROP [0:0]\\n:FOO - [0:0]\\n-A INPUT -j FOO\\nCOMMIT\\n*filter\\n-A FORWARD -j DROP\\nCOMMIT\\n"),
        ("iptables -A INPUT -j ACCEPT", "*filter\\n:INPUT ACCEPT [0:0]\\n-A INPUT -j ACCEPT\\nCOMMIT\\n*filter\\n-A INPUT -j DROP\\nCOMMIT\\n"),
        ("iptables -A INPUT -j ACCEPT", "*filter\\n-A INPUT -j ACCEPT\\nCOMMIT\\n*filter\\n-A INPUT -j DROP\\nCOMMIT\\n"),
        ("iptables -N X; iptables -A INPUT -j X", "*filter\\n:X - [0:0]\\n-A INPUT -j X\\nCOMMIT\\n*nat\\n:Y - [0:0]\\nCOMMIT\\n*filter\\n:Z - [0:0]\\n-A INPUT -j Z\\nCOMMIT\\n"),
        ("iptables -N X", "*filter\\n-A INPUT -j X\\nCOMMIT\\n*filter\\n-A INPUT -j X\\nCOMMIT\\n"),
    ] {
        script += &format!(
            "nft flush ruleset\n{setup}\n{}{}",
            step(&format!("printf '{input}' | iptables-restore")),
            step("iptables -S"),
        );
    }
    compare(&script);
}

/// `-t` given twice: the last one counts (iptables 1.8.9 and 1.8.11), as Shorewall's chain
/// probe `iptables -t filter -L UPnP -t nat -n` expects. 1.8.9 calls a missing chain
/// "incompatible" there; 1.8.11 says it does not exist (`nft_is_table_compatible` takes a
/// missing chain for a compatible one), as iptnl does.
#[test]
fn the_last_table_option_counts() {
    let mut script = String::new();
    for cmd in [
        "iptables -t filter -L UPnP -t nat -n",
        "iptables -t nat -N UPnP",
        "iptables -t nat -A UPnP -p tcp --dport 5000 -j DNAT --to-destination 10.0.0.2",
        "iptables -t filter -L UPnP -t nat -n",
        "iptables -t filter -t nat -S",
        "iptables -t nat -t filter -A INPUT -j ACCEPT",
        "ip6tables -t raw -t filter -A INPUT -j ACCEPT",
        "iptables -S",
    ] {
        script += &step(cmd);
    }
    compare_with(&script, |s| {
        s.replace(
            "iptables VERSION: chain `UPnP' in table `nat' is incompatible, use 'nft' tool.",
            "iptables: No chain/target/match by that name.",
        )
    });
    compare_1_8_11(&script);
}

/// The rules firewall daemons load, which have counted packets.
fn daemon_rules(tool: &str, lo: &str) -> String {
    format!(
        "ip link set lo up\n\
         {tool} -N IN_public\n\
         {tool} -N IN_public_allow\n\
         {tool} -A INPUT -j IN_public\n\
         {tool} -A IN_public -j IN_public_allow\n\
         {tool} -A IN_public_allow -p tcp --dport 22 -j ACCEPT\n\
         {tool} -A OUTPUT -d {lo} -j ACCEPT\n\
         {tool} -t nat -N POST_public\n\
         {tool} -t nat -A POSTROUTING -j POST_public\n\
         {tool} -t mangle -A PREROUTING -j MARK --set-mark 1\n\
         {tool} -t raw -A PREROUTING -j ACCEPT\n\
         {tool} -P FORWARD DROP\n"
    )
}

/// A firewall daemon's reload (firewalld with its iptables backend): `iptables-restore -n`
/// with `-F`, `-X`, `-Z` for each table, after the rules have counted packets; then its
/// rules again. As iptables 1.8.11 (and 1.8.9): `-Z` after `-F` zeroes what is left, `-X`
/// deletes the user chains and the emptied built-in chains whose policy is ACCEPT (never
/// FORWARD's DROP), and the tables stay.
#[test]
fn a_firewall_daemons_reload_matches_iptables_nft() {
    for (tool, lo, ping) in [
        ("iptables", "127.0.0.1", "ping -q -c 2 127.0.0.1 >/dev/null"),
        ("ip6tables", "::1", "ping -6 -q -c 2 ::1 >/dev/null 2>&1"),
    ] {
        let mut flush = String::new();
        for t in ["raw", "mangle", "nat", "filter"] {
            flush += &format!("*{t}\\n-F\\n-X\\n-Z\\nCOMMIT\\n");
        }
        let script = format!(
            "{}{ping}\n{}{}{}{ping}\n{}",
            daemon_rules(tool, lo),
            step(&format!("printf '{flush}' | {tool}-restore -w -n")),
            step(&format!("{tool}-save -c | grep -v '^#'")),
            // The chains made again by -P first: iptables-nft 1.8.9 makes the ones a rule
            // makes without counters (1.8.11 and iptnl with them).
            daemon_rules(tool, lo).replace(
                "ip link set lo up\n",
                &format!(
                    "{tool} -P INPUT ACCEPT\n{tool} -P OUTPUT ACCEPT\n{tool} -t nat -P POSTROUTING ACCEPT\n\
                     {tool} -t mangle -P PREROUTING ACCEPT\n{tool} -t raw -P PREROUTING ACCEPT\n"
                )
            ),
            step(&format!("{tool} -S -v")),
        );
        compare(&script);
    }
}

/// `-X` deletes the built-in chains it finds empty with policy ACCEPT, also in a restore
/// after `-F` (iptables 1.8.11, and 1.8.9 alike): never one with a DROP policy or with rules
/// left. A restore without `--noflush` that only flushes and deletes leaves no
/// table (iptables-nft deletes it and makes nothing again).
#[test]
fn emptied_builtin_chains_go_as_1_8_11_deletes_them() {
    let setup = "iptables -t nat -A POSTROUTING -j ACCEPT; iptables -t nat -N FOO; iptables -P INPUT DROP; iptables -A FORWARD -j ACCEPT; iptables -A OUTPUT -j ACCEPT";
    let mut script = String::new();
    for input in [
        "*nat\\n-F\\n-X\\nCOMMIT\\n",
        "*filter\\n-F\\n-X\\nCOMMIT\\n",
        "*filter\\n-F FORWARD\\n-X\\n-A FORWARD -j ACCEPT\\nCOMMIT\\n",
        "*filter\\n-F OUTPUT\\n-X\\nCOMMIT\\n",
    ] {
        for flag in ["-n", ""] {
            script += &format!(
                "nft flush ruleset\n{setup}\n{}{}",
                step(&format!("printf '{input}' | iptables-restore {flag}")),
                step("nft list chains | grep -c chain"),
            );
        }
    }
    compare(&script);
}

/// A target iptables knows and the kernel lacks (`ULOG`, gone since Linux 3.17): the
/// extension's options are read, and the kernel's refusal is reported as iptables reports
/// it (its warning, `RULE_APPEND failed (No such file or directory)`, exit 4). ip6tables has
/// no ULOG: a chain of that name is looked for.
#[test]
fn a_target_the_kernel_lacks_is_refused_by_the_kernel() {
    let mut script = String::new();
    for cmd in [
        "iptables -A INPUT -j ULOG",
        "iptables -A INPUT -j ULOG --ulog-nlgroup 2 --ulog-prefix fw --ulog-qthreshold 10",
        "iptables -A INPUT -j ULOG --ulog-nlgroup 33",
        "printf '*filter\\n-A INPUT -j ULOG --ulog-cprange 64\\nCOMMIT\\n' | iptables-restore",
        "ip6tables -A INPUT -j ULOG",
    ] {
        script += &step(cmd);
    }
    // iptables warns when it loads the extension, also before an option error.
    compare(&script);
    compare_1_8_11(&script);
}

/// Built-in chains are made with counters, so that their policy's packets are counted
/// (iptables-nft makes them so when `-P` or a restore's chain line makes them; 1.8.11 for
/// every built-in chain, as upstream's shell test `chain/0007counters` checks).
#[test]
fn policy_packets_are_counted() {
    let ping = "ping -q -c 1 127.0.0.1 >/dev/null";
    let script = format!(
        "ip link set lo up\n{}{ping}\n{}{}{}{}{ping}\n{}",
        step("iptables -P OUTPUT ACCEPT"),
        step("iptables -L OUTPUT -v -n | head -1"),
        step("iptables -S -v"),
        step("iptables-save -c | grep -v '^#'"),
        step("printf '*filter\\n:INPUT ACCEPT [0:0]\\nCOMMIT\\n' | iptables-restore -n"),
        step("iptables -L INPUT -v -n | head -1"),
    );
    compare(&script);
    // As 1.8.11 (1.8.9 makes no counters here): a chain made for a rule counts too.
    let made_for_a_rule = format!(
        "ip link set lo up\n{}{ping}\n{}{}",
        step("iptables -A OUTPUT -d 1.1.1.1"),
        step("iptables -L OUTPUT -v -n | head -1"),
        step("iptables-save -c | grep -v '^#'"),
    );
    compare_1_8_11(&made_for_a_rule);
    let got = run_script(&links(false), &made_for_a_rule);
    assert!(
        got.printed
            .contains("\nChain OUTPUT (policy ACCEPT 2 packets, 168 bytes)\n"),
        "{}",
        got.printed
    );
}

/// A large input whose last line the rule model or the planner can refuse is refused while
/// it is planned: nothing is sent (the error is the input's, not the kernel's).
#[test]
fn a_bad_last_line_is_refused_before_anything_is_sent() {
    let (input, _) = iptnl::workload::kube_proxy(&iptnl::workload::KubeProxyOptions {
        rules: Some(20_000),
        ..Default::default()
    });
    let end = input.trim_end().rfind("COMMIT").unwrap();
    for (bad, want) in [
        (
            "-A KUBE-SERVICES -j KUBE-NO-SUCH-CHAIN",
            "Chain 'KUBE-NO-SUCH-CHAIN' does not exist",
        ),
        ("-A KUBE-SERVICES -j DROP", "is not intended for filtering"),
        (
            "-A KUBE-SERVICES -p tcp --dport 99999 -j ACCEPT",
            "invalid port/service",
        ),
    ] {
        let text = format!("{}{bad}\n{}", &input[..end], &input[end..]);
        let bad_line = text.lines().position(|l| l == bad).unwrap() + 1;
        common::in_netns(|| {
            let mut conn = iptnl::netlink::Conn::open().unwrap();
            let before = conn.genid().unwrap();
            let e = plan_restore(&mut conn, IpFamily::V4, &text, &RestoreOptions::default())
                .err()
                .unwrap_or_else(|| panic!("{bad}: planned"));
            match &e {
                RestoreError::Input { line, msg } => {
                    assert_eq!(*line, bad_line, "{bad}");
                    assert!(msg.contains(want), "{bad}: {msg}");
                }
                e => panic!("{bad}: {e:?}"),
            }
            assert_eq!(conn.genid().unwrap(), before);
        });
    }
}

/// Waits until `iptables-nft-save` shows `what` (at most 10 s).
fn wait_for(what: &str) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(10) {
        if common::run("iptables-nft-save", &[]).contains(what) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// A writer that keeps its pipe to iptables-restore open after a COMMIT (upstream's
/// `nft-only/0007-mid-restore-flush`): what is complete is committed when the input would
/// block, by iptnl as by iptables-nft. Input that is all there is one batch: the kernel's
/// generation moves by one for a whole multi-table input, from a pipe or a file.
#[test]
fn a_pausing_writer_gets_each_commit_applied() {
    let ours = links(false);
    let mut tools = vec![links(false)];
    if common::have("iptables-nft") {
        tools.push(links(true));
    }
    for l in &tools {
        common::in_netns(|| {
            let mut child = Command::new(l.dir.join("iptables-restore"))
                .arg("--noflush")
                .env("IPTNL_DIRECT", "1")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut w = child.stdin.take().unwrap();
            w.write_all(b"*filter\n:foo - [0:0]\nCOMMIT\n*filter\n:bar - [0:0]\n")
                .unwrap();
            w.flush().unwrap();
            assert!(
                wait_for(":foo"),
                "{}: the first COMMIT was not applied",
                l.dir.display()
            );
            assert!(!common::run("iptables-nft-save", &[]).contains(":bar"));
            assert!(
                child.try_wait().unwrap().is_none(),
                "the restore ended early"
            );
            // The rest fails: its error names the line as numbered in the whole input.
            w.write_all(b"-A bar -j NOSUCH\nCOMMIT\n").unwrap();
            drop(w);
            let o = child.wait_with_output().unwrap();
            assert_eq!(o.status.code(), Some(2));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("Chain 'NOSUCH' does not exist\nError occurred at line: 7\n"),
                "{err}"
            );
            let saved = common::run("iptables-nft-save", &[]);
            assert!(saved.contains(":foo") && !saved.contains(":bar"), "{saved}");
        });
    }
    // All there: one batch. (Under 64 KiB, the size of a pipe's buffer: the whole input is
    // in the pipe, its writer gone, before the restore starts.)
    let (kube, _) = iptnl::workload::kube_proxy(&iptnl::workload::KubeProxyOptions {
        rules: Some(200),
        ..Default::default()
    });
    assert!(kube.matches("COMMIT").count() >= 2 && kube.len() < 60_000);
    let file = ours.file("kube.rules", &kube);
    for from_file in [false, true] {
        common::in_netns(|| {
            let mut conn = iptnl::netlink::Conn::open().unwrap();
            let before = conn.genid().unwrap();
            let o = if from_file {
                Command::new(ours.dir.join("iptables-restore"))
                    .arg(&file)
                    .env("IPTNL_DIRECT", "1")
                    .output()
                    .unwrap()
            } else {
                let (r, mut w) = std::io::pipe().unwrap();
                w.write_all(kube.as_bytes()).unwrap();
                drop(w);
                Command::new(ours.dir.join("iptables-restore"))
                    .env("IPTNL_DIRECT", "1")
                    .stdin(r)
                    .output()
                    .unwrap()
            };
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(
                conn.genid().unwrap(),
                before.wrapping_add(1),
                "file: {from_file}"
            );
        });
    }
}
