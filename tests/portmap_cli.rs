//! A scripted CNI `portmap` run through the `iptables` name: ADD then DEL for N containers,
//! one process per iptables command exactly as the plugin runs them (it uses go-iptables:
//! `iptables -t nat -S` to list chains, `-C` before every `-A`/`-I`, `-N`/`-F`/`-X`, `-S
//! CHAIN` parsed with go-shellwords on teardown, `--wait` appended to everything), once with
//! iptables-nft and once with iptnl, each in its own fresh network namespace, the two runs
//! taking turns container by container so that load from elsewhere hits both alike, and a third
//! run hands the same commands to an `iptnl serve` in its namespace. The final rulesets (read
//! with the oracle's `iptables-nft-save`) must be equal; the times of the three runs are
//! printed.
//!
//! The plugin logic is ported from containernetworking/plugins
//! `plugins/meta/portmap/portmap_iptables.go` (`forwardPorts`, `unforwardPorts`,
//! `fillDnatRules`, `genSetMarkChain`, `genMarkMasqChain`, `genToplevelDnatChain`),
//! `plugins/meta/portmap/chain.go` (`setup`, `teardown`) and `pkg/utils/iptables.go`
//! (`EnsureChain`, `ChainExists`, `ClearChain`, `DeleteRule`, `DeleteChain`, `InsertUnique`).
//!
//! 20 containers by default (a few seconds); set `IPTNL_PORTMAP_CONTAINERS=200` for the full
//! run, and `IPTNL_BIN=target/release/iptnl` to time a release build instead of the test
//! build, and `IPTNL_PORTMAP_PROFILE=1` for the time per command. The times and the ratio
//! are printed (`cargo test --test portmap_cli -- --nocapture`).

mod common;
#[path = "drivers/mod.rs"]
mod drivers;

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use drivers::{shellwords, GoError, GoIptables, Impl, Tools};

const DNAT: &str = "CNI-HOSTPORT-DNAT";
const SETMARK: &str = "CNI-HOSTPORT-SETMARK";
const MASQ: &str = "CNI-HOSTPORT-MASQ";
const OLD_SNAT: &str = "CNI-HOSTPORT-SNAT";
const NETWORK: &str = "cbr0";
/// `MarkMasqBit` default 13: `0x2000/0x2000`.
const MARK: &str = "0x2000/0x2000";

/// plugins/meta/portmap/chain.go `chain`.
struct Chain {
    table: &'static str,
    name: String,
    entry_chains: Vec<String>,
    entry_rules: Vec<Vec<String>>,
    rules: Vec<Vec<String>>,
    prepend_entry: bool,
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

type R = Result<(), String>;

fn e(err: GoError) -> String {
    format!(
        "running {:?}: exit status {}: {}",
        err.args, err.status, err.msg
    )
}

/// utils.ChainExists: `ListChains` and a search.
fn chain_exists(ipt: &GoIptables, table: &str, chain: &str) -> Result<bool, String> {
    Ok(ipt
        .list_chains(table)
        .map_err(e)?
        .iter()
        .any(|c| c == chain))
}

/// utils.EnsureChain.
fn ensure_chain(ipt: &GoIptables, table: &str, chain: &str) -> R {
    if !chain_exists(ipt, table, chain)? {
        match ipt.new_chain(table, chain) {
            Err(err) if err.status != 1 => return Err(e(err)),
            _ => {}
        }
    }
    Ok(())
}

/// utils.InsertUnique.
fn insert_unique(ipt: &GoIptables, table: &str, chain: &str, prepend: bool, rule: &[&str]) -> R {
    if ipt.exists(table, chain, rule).map_err(e)? {
        return Ok(());
    }
    if prepend {
        ipt.insert(table, chain, 1, rule).map_err(e)
    } else {
        ipt.append(table, chain, rule).map_err(e)
    }
}

/// utils.ClearChain.
fn clear_chain(ipt: &GoIptables, table: &str, chain: &str) -> R {
    match ipt.clear_chain(table, chain) {
        Err(err) if err.is_not_exist() => ensure_chain(ipt, table, chain),
        r => r.map_err(e),
    }
}

/// utils.DeleteRule.
fn delete_rule(ipt: &GoIptables, table: &str, chain: &str, rule: &[&str]) -> R {
    match ipt.delete(table, chain, rule) {
        Err(err) if err.is_not_exist() || err.status == 2 => Ok(()),
        r => r.map_err(e),
    }
}

/// utils.DeleteChain.
fn delete_chain(ipt: &GoIptables, table: &str, chain: &str) -> R {
    match ipt.delete_chain(table, chain) {
        Err(err) if err.is_not_exist() => Ok(()),
        r => r.map_err(e),
    }
}

impl Chain {
    /// chain.setup.
    fn setup(&self, ipt: &GoIptables) -> R {
        ensure_chain(ipt, self.table, &self.name)?;
        for rule in &self.rules {
            insert_unique(ipt, self.table, &self.name, false, &refs(rule))?;
        }
        for entry in &self.entry_chains {
            for rule in &self.entry_rules {
                let mut r = rule.clone();
                r.extend(strs(&["-j", &self.name]));
                insert_unique(ipt, self.table, entry, self.prepend_entry, &refs(&r))?;
            }
        }
        Ok(())
    }

    /// chain.teardown.
    fn teardown(&self, ipt: &GoIptables) -> R {
        clear_chain(ipt, self.table, &self.name)?;
        for entry in &self.entry_chains {
            let rules = match ipt.list(self.table, entry) {
                Ok(r) if !r.is_empty() => r,
                _ => continue,
            };
            for r in &rules[1..] {
                if r.ends_with(&format!("-j {}", self.name)) {
                    let parts = shellwords(r).map_err(|x| format!("parsing {r}: {x}"))?;
                    delete_rule(ipt, self.table, entry, &refs(&parts[2..]))?;
                }
            }
        }
        delete_chain(ipt, self.table, &self.name)
    }
}

/// utils.MustFormatChainNameWithPrefix: `CNI-` + prefix + hash, 28 characters (the plugin
/// hashes with SHA-512; any stable hash gives the same shape).
fn chain_name(prefix: &str, container_id: &str) -> String {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in NETWORK.bytes().chain(container_id.bytes()) {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    let s = format!("CNI-{prefix}{h:032x}");
    s[..28].to_owned()
}

/// One container: id, IP, and its port mappings (protocol, host port, container port).
struct Container {
    id: String,
    ip: String,
    ports: Vec<(&'static str, u16, u16)>,
}

fn container(i: usize) -> Container {
    Container {
        id: format!("{i:08x}c0ffee{i:04}"),
        ip: format!("10.88.{}.{}", i / 250, i % 250 + 2),
        ports: vec![("tcp", 10000 + i as u16, 80), ("udp", 20000 + i as u16, 53)],
    }
}

/// genSetMarkChain.
fn set_mark_chain() -> Chain {
    Chain {
        table: "nat",
        name: SETMARK.into(),
        entry_chains: vec![],
        entry_rules: vec![],
        rules: vec![strs(&[
            "-m",
            "comment",
            "--comment",
            "CNI portfwd masquerade mark",
            "-j",
            "MARK",
            "--set-xmark",
            MARK,
        ])],
        prepend_entry: false,
    }
}

/// genMarkMasqChain.
fn mark_masq_chain() -> Chain {
    Chain {
        table: "nat",
        name: MASQ.into(),
        entry_chains: vec!["POSTROUTING".into()],
        entry_rules: vec![strs(&[
            "-m",
            "comment",
            "--comment",
            "CNI portfwd requiring masquerade",
        ])],
        rules: vec![strs(&["-m", "mark", "--mark", MARK, "-j", "MASQUERADE"])],
        prepend_entry: true,
    }
}

/// genToplevelDnatChain.
fn toplevel_dnat_chain() -> Chain {
    Chain {
        table: "nat",
        name: DNAT.into(),
        entry_chains: vec!["PREROUTING".into(), "OUTPUT".into()],
        entry_rules: vec![strs(&["-m", "addrtype", "--dst-type", "LOCAL"])],
        rules: vec![],
        prepend_entry: false,
    }
}

/// genDnatChain (+ fillDnatRules when `c` is given, with SNAT on, no MasqAll).
fn dnat_chain(id: &str, c: Option<&Container>) -> Chain {
    let mut ch = Chain {
        table: "nat",
        name: chain_name("DN-", id),
        entry_chains: vec![DNAT.into()],
        entry_rules: vec![],
        rules: vec![],
        prepend_entry: true,
    };
    let Some(c) = c else { return ch };
    let comment = format!("dnat name: \"{NETWORK}\" id: \"{}\"", c.id);
    let mut protos: Vec<&str> = c.ports.iter().map(|p| p.0).collect();
    protos.sort();
    protos.dedup();
    for proto in protos {
        let ports: Vec<String> = c
            .ports
            .iter()
            .filter(|p| p.0 == proto)
            .map(|p| p.1.to_string())
            .collect();
        ch.entry_rules.push(strs(&[
            "-m",
            "comment",
            "--comment",
            &comment,
            "-m",
            "multiport",
            "-p",
            proto,
            "--destination-ports",
            &ports.join(","),
        ]));
    }
    let container_net = format!("{}/16", c.ip);
    for &(proto, host, cport) in &c.ports {
        let base = strs(&["-p", proto, "--dport", &host.to_string()]);
        let mut hp = base.clone();
        hp.extend(strs(&["-s", &container_net, "-j", SETMARK]));
        ch.rules.push(hp);
        let mut local = base.clone();
        local.extend(strs(&["-s", "127.0.0.1", "-j", SETMARK]));
        ch.rules.push(local);
        let mut dnat = base;
        dnat.extend(strs(&[
            "-j",
            "DNAT",
            "--to-destination",
            &format!("{}:{cport}", c.ip),
        ]));
        ch.rules.push(dnat);
    }
    ch
}

/// Per command: count and total time, summed over a run.
type Profile = BTreeMap<String, (usize, Duration)>;

fn merge(into: &mut Profile, ipt: &GoIptables) {
    for (k, (n, d)) in ipt.profile.borrow().iter() {
        let e = into.entry(k.clone()).or_default();
        e.0 += n;
        e.1 += *d;
    }
}

/// CNI ADD: forwardPorts. Returns the number of iptables processes run.
fn add(t: &Tools, c: &Container, prof: &mut Profile) -> Result<usize, String> {
    let ipt = GoIptables::new(t, false, 0)?;
    set_mark_chain().setup(&ipt)?;
    mark_masq_chain().setup(&ipt)?;
    toplevel_dnat_chain().setup(&ipt)?;
    dnat_chain(&c.id, Some(c)).setup(&ipt)?;
    merge(prof, &ipt);
    Ok(1 + ipt.runs.get())
}

/// maybeGetIptables: `New` and `List("nat", "OUTPUT")`.
fn maybe_get(t: &Tools, v6: bool) -> Option<GoIptables<'_>> {
    let ipt = GoIptables::new(t, v6, 0).ok()?;
    ipt.list("nat", "OUTPUT").ok()?;
    Some(ipt)
}

/// CNI DEL: unforwardPorts (IPv4 and IPv6). Returns the number of iptables processes run.
fn del(t: &Tools, id: &str, prof: &mut Profile) -> Result<usize, String> {
    let dn = dnat_chain(id, None);
    let old_snat = Chain {
        table: "nat",
        name: chain_name("SN-", id),
        entry_chains: vec![OLD_SNAT.into()],
        entry_rules: vec![],
        rules: vec![],
        prepend_entry: false,
    };
    let ip4 = maybe_get(t, false);
    let ip6 = maybe_get(t, true);
    let mut runs = 2;
    for ipt in [&ip4, &ip6].into_iter().flatten() {
        dn.teardown(ipt)?;
        let _ = old_snat.teardown(ipt);
        runs += ipt.runs.get();
        merge(prof, ipt);
    }
    if ip4.is_none() && ip6.is_none() {
        return Err("neither iptables nor ip6tables is usable".into());
    }
    Ok(runs)
}

/// The nat tables as the oracle's save prints them (comment lines dropped).
fn snapshot() -> String {
    let mut s = String::new();
    for bin in ["iptables-nft-save", "ip6tables-nft-save"] {
        let out = common::run(bin, &["-t", "nat"]);
        for l in out.lines().filter(|l| !l.starts_with('#')) {
            s.push_str(l);
            s.push('\n');
        }
    }
    s
}

struct RunResult {
    add: Duration,
    del: Duration,
    processes: usize,
    after_add: String,
    after_del: String,
    add_profile: Profile,
    del_profile: Profile,
}

/// Takes turns with the other side's thread, so load from elsewhere on the machine falls on
/// both sides alike: wait for the turn, do one container, pass the turn.
struct Turn {
    wait: mpsc::Receiver<()>,
    pass: mpsc::Sender<()>,
}

impl Turn {
    fn take<T>(&self, f: impl FnOnce() -> T) -> T {
        self.wait
            .recv()
            .expect("the other side of the run failed (see its panic)");
        let r = f();
        let _ = self.pass.send(());
        r
    }
}

/// One side of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// iptables-nft.
    Oracle,
    /// iptnl, each command run by itself.
    Iptnl,
    /// iptnl, each command handed to an `iptnl serve` in the side's namespace.
    Served,
}

impl Side {
    /// The tool names this side runs.
    fn tools(self) -> Tools {
        Tools::new(if self == Side::Oracle {
            Impl::Oracle
        } else {
            Impl::Iptnl
        })
    }

    /// The `iptnl serve` this side hands its commands to, started in the calling thread's
    /// namespace (`IPTNL_SERVER_BIN`, else `IPTNL_BIN`, picks the binary: the commands and
    /// the server may come from different builds, e.g. a musl build for the commands).
    fn server(self) -> Option<common::Server> {
        (self == Side::Served).then(|| {
            common::Server::start(
                &std::env::var("IPTNL_SERVER_BIN")
                    .or_else(|_| std::env::var("IPTNL_BIN"))
                    .unwrap_or_else(|_| env!("CARGO_BIN_EXE_iptnl").to_owned()),
            )
        })
    }
}

/// ADD for every container, then DEL for every container, in a fresh namespace, one
/// container per turn.
fn scripted_run(side: Side, n: usize, background: usize, turn: Turn) -> RunResult {
    let tools = side.tools();
    common::in_netns(move || {
        let _server = side.server();
        load_background(background);
        let containers: Vec<Container> = (0..n).map(container).collect();
        let mut processes = 0;
        let (mut add_profile, mut del_profile) = (Profile::new(), Profile::new());
        let mut add_time = Duration::ZERO;
        for c in &containers {
            let (d, runs) = turn.take(|| {
                let t0 = Instant::now();
                let runs = add(&tools, c, &mut add_profile)
                    .unwrap_or_else(|x| panic!("{side:?} ADD {}: {x}", c.id));
                (t0.elapsed(), runs)
            });
            add_time += d;
            processes += runs;
        }
        let after_add = snapshot();
        let mut del_time = Duration::ZERO;
        for c in &containers {
            let (d, runs) = turn.take(|| {
                let t0 = Instant::now();
                let runs = del(&tools, &c.id, &mut del_profile)
                    .unwrap_or_else(|x| panic!("{side:?} DEL {}: {x}", c.id));
                (t0.elapsed(), runs)
            });
            del_time += d;
            processes += runs;
        }
        // Let the other side finish its last turn.
        let _ = turn.wait.recv();
        RunResult {
            add: add_time,
            del: del_time,
            processes,
            after_add,
            after_del: snapshot(),
            add_profile,
            del_profile,
        }
    })
}

/// A node's kube-proxy rules (about `rules` of them, nat and filter), loaded untimed before
/// the run, identical on both sides: on a Kubernetes node portmap never runs alone.
fn load_background(rules: usize) {
    if rules == 0 {
        return;
    }
    let (text, _) = iptnl::workload::kube_proxy(&iptnl::workload::KubeProxyOptions {
        rules: Some(rules),
        ..Default::default()
    });
    let mut conn = iptnl::netlink::Conn::open().unwrap();
    iptnl::iptables::restore::restore(
        &mut conn,
        iptnl::ipt::IpFamily::V4,
        &text,
        &iptnl::iptables::restore::RestoreOptions::default(),
    )
    .unwrap();
}

/// The runs of all sides, interleaved container by container (in the order given, in each
/// round).
fn all_sides(sides: &[Side], n: usize, background: usize) -> Vec<RunResult> {
    let (txs, rxs): (Vec<_>, Vec<_>) = sides.iter().map(|_| mpsc::channel()).unzip();
    txs[0].send(()).unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = sides
            .iter()
            .zip(rxs)
            .enumerate()
            .map(|(i, (&side, wait))| {
                let pass = txs[(i + 1) % sides.len()].clone();
                s.spawn(move || scripted_run(side, n, background, Turn { wait, pass }))
            })
            .collect();
        drop(txs);
        let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[test]
fn portmap_add_del_iptnl_vs_iptables_nft() {
    if !Tools::have_oracle() || !common::have("iptables-nft-save") {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    let n: usize = std::env::var("IPTNL_PORTMAP_CONTAINERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let background: usize = std::env::var("IPTNL_PORTMAP_BACKGROUND")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000);
    let runs = all_sides(&[Side::Oracle, Side::Iptnl, Side::Served], n, background);
    let [oracle, direct, served] = &runs[..] else {
        unreachable!("three sides")
    };

    // The same commands ran, and they left the same rulesets.
    for (ours, who) in [(direct, "iptnl"), (served, "iptnl served")] {
        assert_eq!(oracle.processes, ours.processes, "{who}: process count");
        assert_eq!(
            oracle.after_add, ours.after_add,
            "{who}: nat tables after ADD"
        );
        assert_eq!(
            oracle.after_del, ours.after_del,
            "{who}: nat tables after DEL"
        );
    }
    // And the rulesets are what portmap means: one CNI-DN chain, 2 entry rules and 6 rules
    // per container after ADD; none after DEL.
    let dn = |s: &str| s.lines().filter(|l| l.starts_with(":CNI-DN-")).count();
    assert_eq!(dn(&oracle.after_add), n);
    assert_eq!(
        oracle
            .after_add
            .lines()
            .filter(|l| l.starts_with("-A CNI-HOSTPORT-DNAT "))
            .count(),
        2 * n
    );
    assert_eq!(
        oracle
            .after_add
            .lines()
            .filter(|l| l.starts_with("-A CNI-DN-"))
            .count(),
        6 * n
    );
    assert_eq!(dn(&oracle.after_del), 0);
    assert!(!oracle.after_del.contains("-A CNI-HOSTPORT-DNAT "));

    let total = |r: &RunResult| (r.add + r.del).as_secs_f64();
    let o = total(oracle);
    let line = |who: &str, r: &RunResult| {
        format!(
            "  {who:<22} ADD {:6.2} s, DEL {:6.2} s, total {:6.2} s, iptables-nft / this = {:.2}\n",
            r.add.as_secs_f64(),
            r.del.as_secs_f64(),
            total(r),
            o / total(r)
        )
    };
    eprintln!(
        "portmap, {n} containers, {} iptables processes each, beside {background} kube-proxy rules:\n{}{}{}",
        oracle.processes,
        line("iptables-nft", oracle),
        line("iptnl", direct),
        line("iptnl with iptnl serve", served),
    );
    if std::env::var_os("IPTNL_PORTMAP_PROFILE").is_some() {
        for (phase, pick) in [
            (
                "ADD",
                (|r: &RunResult| r.add_profile.clone()) as fn(&RunResult) -> Profile,
            ),
            ("DEL", |r: &RunResult| r.del_profile.clone()),
        ] {
            let (a, b, c) = (pick(oracle), pick(direct), pick(served));
            for (k, (n, t)) in &a {
                let of = |p: &Profile| p.get(k).map_or(0.0, |x| x.1.as_secs_f64());
                eprintln!(
                    "  {phase} {k:>12}: {n:5} runs, iptables-nft {:.2} s, iptnl {:.2} s, served {:.2} s",
                    t.as_secs_f64(),
                    of(&b),
                    of(&c)
                );
            }
        }
    }
    // The times are printed, not asserted: a test on a shared machine is no clock (the
    // comparison is the `portmap` benchmark's job). Run by itself, each iptables process costs
    // about what an iptables-nft process costs (exec, a netlink round trip or one batch, and
    // the kernel's RCU grace period when its netlink socket closes after a commit that freed
    // something, which dominates DEL); through `iptnl serve` no client closes a netlink socket.
}

/// The chain names have the plugin's shape, and differ per container.
#[test]
fn chain_names() {
    let a = chain_name("DN-", "a");
    assert_eq!(a.len(), 28);
    assert!(a.starts_with("CNI-DN-"));
    assert_ne!(a, chain_name("DN-", "b"));
}

/// What one side of a storm run saw.
struct StormResult {
    /// Wall time of all ADD sequences, started at once.
    add: Duration,
    /// The slowest ADD sequence.
    add_slowest: Duration,
    /// The ADD sequences that failed, with why.
    add_failed: Vec<String>,
    del: Duration,
    del_slowest: Duration,
    del_failed: Vec<String>,
    /// The nat tables after ADD and after DEL, as sets of lines.
    after_add: std::collections::BTreeSet<String>,
    after_del: std::collections::BTreeSet<String>,
    /// `iptables -t nat -S` after ADD, as the plugin last read it.
    listing: String,
    /// The server's stats lines (served side only): before ADD, after ADD, after DEL.
    server_stats: Vec<String>,
    /// The commands the server answered with a non-zero exit code (served side only), each
    /// with how many times (a container's own chain names generalized).
    server_failed: Vec<(usize, String)>,
    /// kube-proxy-style resyncs run during ADD (`IPTNL_STORM_RESYNC_MS`), and the failed
    /// ones, with why.
    resyncs: (usize, Vec<String>),
}

/// The commands of a `iptnl serve --verbose` log that exited non-zero, most frequent first,
/// each with its count: the plugin's races (two containers creating a shared chain at once)
/// show up here.
fn failed_commands(log: &str) -> Vec<(usize, String)> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for l in log.lines() {
        let Some(rest) = l.strip_prefix("iptnl serve: ") else {
            continue;
        };
        let Some((cmd, status)) = rest.rsplit_once(" (") else {
            continue;
        };
        if !status.starts_with("exit ") || status.starts_with("exit 0") {
            continue;
        }
        let code = status.split(',').next().unwrap_or(status);
        // The tool, the table, the command and its chain; a container's own chain
        // generalized, the rule left out.
        let words: Vec<&str> = cmd.split(' ').collect();
        let verb = words
            .iter()
            .position(|w| w.len() == 2 && w.starts_with('-') && *w != "-t")
            .unwrap_or(words.len());
        let mut general: Vec<&str> = words
            .iter()
            .take(verb + 2)
            .map(|w| {
                if w.starts_with("CNI-DN-") {
                    "CNI-DN-…"
                } else {
                    w
                }
            })
            .collect();
        if words.len() > verb + 2 {
            general.push("…");
        }
        *seen
            .entry(format!("{} ({code})", general.join(" ")))
            .or_default() += 1;
    }
    let mut v: Vec<(usize, String)> = seen.into_iter().map(|(k, n)| (n, k)).collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v
}

/// The chains of the resyncs run beside a storm.
const RESYNC_CHAIN: &str = "STORMRESYNC";

/// With `IPTNL_STORM_RESYNC_MS=M`, runs a kube-proxy-style partial resync (`iptables-restore
/// --noflush` of two service chains, with an endpoint that changes each time) through the
/// side's `iptables-restore` every M ms while `running` holds, as kube-proxy does beside the
/// CNI plugins after a node reboot: how many ran, and the failures.
fn resync_while(tools: &Tools, running: &std::sync::atomic::AtomicBool) -> (usize, Vec<String>) {
    let every = env_or("IPTNL_STORM_RESYNC_MS", 0);
    let (mut count, mut failed) = (0, Vec::new());
    if every == 0 {
        return (count, failed);
    }
    while running.load(std::sync::atomic::Ordering::Relaxed) {
        let input = format!(
            "*nat\n:KUBE-SVC-{RESYNC_CHAIN} - [0:0]\n:KUBE-SEP-{RESYNC_CHAIN} - [0:0]\n\
             -A KUBE-SVC-{RESYNC_CHAIN} -j KUBE-SEP-{RESYNC_CHAIN}\n\
             -A KUBE-SEP-{RESYNC_CHAIN} -p tcp -j DNAT --to-destination 10.250.{}.{}:8080\n\
             COMMIT\n",
            count / 256 % 256,
            count % 256
        );
        let o = tools
            .command("iptables-restore")
            .arg("--noflush")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().map(|mut i| i.write_all(input.as_bytes()));
                c.wait_with_output()
            });
        match o {
            Ok(o) if o.status.success() => {}
            Ok(o) => failed.push(format!(
                "resync {count}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => failed.push(format!("resync {count}: {e}")),
        }
        count += 1;
        std::thread::sleep(Duration::from_millis(every as u64));
    }
    (count, failed)
}

/// The least any `iptables` can make a storm of `n` ADD sequences take: `n` processes at
/// once, each reading `listing` four times (the plugin's `ListChains` calls, each
/// `iptables -t nat -S`) from `cat` and parsing it as go-iptables does, with no other
/// command. The plugin's own reading grows with the table, whatever answers it.
fn listing_floor(n: usize, listing: &str) -> Duration {
    let path = std::env::temp_dir().join(format!("iptnl-storm-listing-{}", std::process::id()));
    std::fs::write(&path, listing).unwrap();
    let (wall, _, failed) = at_once(n, Duration::MAX, |_| {
        for _ in 0..4 {
            let o = std::process::Command::new("cat")
                .arg(&path)
                .output()
                .map_err(|e| e.to_string())?;
            let text = String::from_utf8(o.stdout).map_err(|e| e.to_string())?;
            std::hint::black_box(drivers::chains_of_listing(&text));
        }
        Ok(())
    });
    let _ = std::fs::remove_file(&path);
    assert!(failed.is_empty(), "{failed:?}");
    wall
}

/// Runs `f` for every container at once (one thread each, released together), each as a
/// CNI plugin call with kubelet's budget: returns the wall time, the slowest call and the
/// failures (an error, or a call over `budget`).
fn at_once(
    n: usize,
    budget: Duration,
    f: impl Fn(usize) -> Result<(), String> + Sync,
) -> (Duration, Duration, Vec<String>) {
    let gate = std::sync::Barrier::new(n + 1);
    let (gate, f) = (&gate, &f);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                s.spawn(move || {
                    gate.wait();
                    let t = Instant::now();
                    let r = f(i);
                    (t.elapsed(), r)
                })
            })
            .collect();
        gate.wait();
        let t0 = Instant::now();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let wall = t0.elapsed();
        let slowest = results.iter().map(|r| r.0).max().unwrap_or_default();
        let failed = results
            .into_iter()
            .enumerate()
            .filter_map(|(i, (d, r))| match r {
                Err(why) => Some(format!("container {i}: {why}")),
                Ok(()) if d > budget => Some(format!("container {i}: took {d:?}")),
                Ok(()) => None,
            })
            .collect();
        (wall, slowest, failed)
    })
}

/// `/run/xtables.lock` held by a `flock` process (bounded to ten minutes, so that not even a
/// test killed from outside leaves it held for long) until dropped.
struct XtablesLock(Option<std::process::Child>);

impl XtablesLock {
    fn hold() -> XtablesLock {
        XtablesLock(
            std::process::Command::new("flock")
                .args(["--no-fork", "/run/xtables.lock", "sleep", "600"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .ok(),
        )
    }
}

impl Drop for XtablesLock {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A storm: `n` portmap ADD sequences started at once through the `iptables` name (as after
/// a node reboot), then `n` DEL sequences, in a fresh namespace holding `background`
/// kube-proxy rules, with `/run/xtables.lock` held by another process all along.
fn storm_run(side: Side, n: usize, background: usize) -> StormResult {
    let tools = side.tools();
    common::in_netns(move || {
        let server = side.server();
        // The server's figures so far (commits, operations per commit, latencies), asked
        // for with SIGUSR1: the `k`th line of them.
        let stats = |k: usize| {
            server.as_ref().map(|s| {
                s.signal("USR1");
                let log = s.wait_log("stats:", k);
                let line = log.lines().filter(|l| l.contains("stats:")).nth(k - 1);
                line.unwrap_or_default().to_owned()
            })
        };
        load_background(background);
        // Nobody here takes the xtables lock (iptables-nft ignores it too): holding it
        // must change nothing.
        let _lock = XtablesLock::hold();
        let budget = Duration::from_secs(120);
        let containers: Vec<Container> = (0..n).map(container).collect();
        // The resyncs' own chains are left out: their last version depends on timing.
        let sets = || -> std::collections::BTreeSet<String> {
            snapshot()
                .lines()
                .filter(|l| !l.contains(RESYNC_CHAIN))
                .map(str::to_owned)
                .collect()
        };
        let before = stats(1);
        let adding = std::sync::atomic::AtomicBool::new(true);
        let ((add, add_slowest, add_failed), resyncs) = std::thread::scope(|s| {
            let resyncs = s.spawn(|| resync_while(&tools, &adding));
            let r = at_once(n, budget, |i| {
                add(&tools, &containers[i], &mut Profile::new()).map(|_| ())
            });
            adding.store(false, std::sync::atomic::Ordering::Relaxed);
            (r, resyncs.join().unwrap())
        });
        let after_add_stats = stats(2);
        let after_add = sets();
        let listing = common::run("iptables-nft", &["-t", "nat", "-S"]);
        let (del, del_slowest, del_failed) = at_once(n, budget, |i| {
            del(&tools, &containers[i].id, &mut Profile::new()).map(|_| ())
        });
        let server_stats = [before, after_add_stats, stats(3)]
            .into_iter()
            .flatten()
            .collect();
        let server_failed = server.as_ref().map(|s| failed_commands(&s.log()));
        StormResult {
            server_stats,
            server_failed: server_failed.unwrap_or_default(),
            resyncs,
            add,
            add_slowest,
            add_failed,
            del,
            del_slowest,
            del_failed,
            after_add,
            after_del: sets(),
            listing,
        }
    })
}

fn storm(n: usize, background: usize, sides: &[Side]) {
    let mut lines = String::new();
    let mut results = Vec::new();
    for &side in sides {
        let r = storm_run(side, n, background);
        lines.push_str(&format!(
            "  {side:<7?} ADD {:7.2} s (slowest {:7.2} s, {} failed), DEL {:7.2} s (slowest {:7.2} s, {} failed)\n",
            r.add.as_secs_f64(),
            r.add_slowest.as_secs_f64(),
            r.add_failed.len(),
            r.del.as_secs_f64(),
            r.del_slowest.as_secs_f64(),
            r.del_failed.len(),
        ));
        // Each side's line as soon as it is known (a full-size run takes minutes per side).
        eprint!(
            "{}",
            lines
                .lines()
                .last()
                .map(|l| format!("{l}\n"))
                .unwrap_or_default()
        );
        if r.resyncs.0 > 0 {
            let l = format!(
                "          {} resyncs during ADD, {} failed\n",
                r.resyncs.0,
                r.resyncs.1.len()
            );
            eprint!("{l}");
            lines.push_str(&l);
        }
        for (count, cmd) in &r.server_failed {
            eprintln!("    server answered {count}× {cmd}");
        }
        for (when, l) in ["before ADD", "after ADD", "after DEL"]
            .iter()
            .zip(&r.server_stats)
        {
            eprintln!(
                "    server {when}: {}",
                l.trim_start_matches("iptnl serve: stats: ")
            );
        }
        results.push((side, r));
    }
    if let Some((_, r)) = results.first() {
        lines.push_str(&format!(
            "  Floor   ADD {:7.2} s (the plugin's {} reads of `iptables -t nat -S`, {} bytes each, from `cat`)\n",
            listing_floor(n, &r.listing).as_secs_f64(),
            4 * n,
            r.listing.len(),
        ));
    }
    eprintln!(
        "portmap storm, {n} containers at once, beside {background} kube-proxy rules:\n{lines}"
    );
    for (side, r) in &results {
        if *side == Side::Oracle {
            continue;
        }
        // iptnl: every plugin call succeeds within kubelet's budget.
        assert!(r.add_failed.is_empty(), "{side:?} ADD: {:#?}", r.add_failed);
        assert!(r.del_failed.is_empty(), "{side:?} DEL: {:#?}", r.del_failed);
        assert!(
            r.resyncs.1.is_empty(),
            "{side:?} resyncs: {:#?}",
            r.resyncs.1
        );
        // The rules portmap means, whatever the interleaving (compared as sets: the
        // plugin's own check-then-append may duplicate a shared rule under concurrency).
        let dn = |s: &std::collections::BTreeSet<String>, p: &str| {
            s.iter().filter(|l| l.starts_with(p)).count()
        };
        assert_eq!(dn(&r.after_add, ":CNI-DN-"), n, "{side:?}");
        assert_eq!(dn(&r.after_add, "-A CNI-HOSTPORT-DNAT "), 2 * n, "{side:?}");
        assert_eq!(dn(&r.after_add, "-A CNI-DN-"), 6 * n, "{side:?}");
        assert_eq!(dn(&r.after_del, ":CNI-DN-"), 0, "{side:?}");
        assert_eq!(dn(&r.after_del, "-A CNI-HOSTPORT-DNAT "), 0, "{side:?}");
    }
    // The sides that all succeeded left the same rules.
    let clean: Vec<_> = results
        .iter()
        .filter(|(_, r)| r.add_failed.is_empty() && r.del_failed.is_empty())
        .collect();
    for w in clean.windows(2) {
        assert_eq!(
            w[0].1.after_add, w[1].1.after_add,
            "{:?} vs {:?}",
            w[0].0, w[1].0
        );
        assert_eq!(
            w[0].1.after_del, w[1].1.after_del,
            "{:?} vs {:?}",
            w[0].0, w[1].0
        );
    }
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A small storm: 16 containers at once beside 2,000 rules, for iptables-nft, iptnl by
/// itself and iptnl through `iptnl serve`.
#[test]
fn portmap_storm_small() {
    if !Tools::have_oracle() || !common::have("iptables-nft-save") {
        eprintln!("iptables-nft is not installed: skipped");
        return;
    }
    storm(
        env_or("IPTNL_STORM_CONTAINERS", 16),
        env_or("IPTNL_STORM_BACKGROUND", 2_000),
        &[Side::Oracle, Side::Iptnl, Side::Served],
    );
}

/// The field case: 300 containers at once on a node with 200,000 kube-proxy rules, through
/// `iptnl serve` (`IPTNL_STORM_CONTAINERS`, `IPTNL_STORM_BACKGROUND` change the size;
/// `IPTNL_STORM_ALL=1` also runs iptables-nft and iptnl by itself, and
/// `IPTNL_STORM_SIDES=iptables-nft,direct,served` picks the sides; `IPTNL_STORM_RESYNC_MS=M`
/// runs a kube-proxy-style partial resync every M ms during ADD). Minutes: run it with
/// `cargo test --release --test portmap_cli portmap_storm_field -- --ignored --nocapture`.
#[test]
#[ignore]
fn portmap_storm_field() {
    let picked: Vec<Side> = std::env::var("IPTNL_STORM_SIDES")
        .map(|v| {
            v.split(',')
                .map(|w| match w.trim() {
                    "iptables-nft" | "oracle" => Side::Oracle,
                    "direct" | "iptnl" => Side::Iptnl,
                    "served" => Side::Served,
                    other => panic!("IPTNL_STORM_SIDES: unknown side `{other}'"),
                })
                .collect()
        })
        .unwrap_or_default();
    let sides: &[Side] = if !picked.is_empty() {
        &picked
    } else if std::env::var_os("IPTNL_STORM_ALL").is_some() {
        &[Side::Oracle, Side::Iptnl, Side::Served]
    } else {
        &[Side::Served]
    };
    storm(
        env_or("IPTNL_STORM_CONTAINERS", 300),
        env_or("IPTNL_STORM_BACKGROUND", 200_000),
        sides,
    );
}
