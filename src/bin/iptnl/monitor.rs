//! `xtables-monitor` (and `iptnl monitor`): prints ruleset events, anyone's commits (`-e`),
//! and packet traces (`-t`), as iptables 1.8.11's `xtables-monitor` prints them (see
//! `iptnl::iptables::monitor`), one line at a time, flushed as it is written. SIGTERM and
//! SIGINT end it with status 0.

use std::collections::HashMap;
use std::io::{self, Write};

use iptnl::iptables::ipset::KernelSets;
use iptnl::iptables::monitor::{event_lines, trace_lines, Filter};
use iptnl::netlink::Conn;
use iptnl::nft::monitor::{Event, Monitor};
use iptnl::nft::trace::Trace;
use iptnl::nft::{Chain, Family, Rule};
use iptnl::sys::nf_tables::{
    NFTA_RULE_CHAIN, NFTA_RULE_HANDLE, NFTA_RULE_TABLE, NFT_MSG_GETRULE, NFT_MSG_NEWRULE,
    NFT_TRACETYPE_RULE,
};
use iptnl::sys::nfnetlink::{nfnl_msg_id, nfnl_msg_type, NFNL_SUBSYS_NFTABLES};

use crate::getopt::{getopt, Arg, Opt};

/// The release whose `xtables-monitor` this one follows.
const VERSION: &str = "1.8.11";

/// The short letter standing for `--table`, which has no short form.
const TABLE: char = '\u{1}';

fn opts(own_name: bool) -> Vec<Opt> {
    let mut v: Vec<Opt> = "ceht46V"
        .chars()
        .zip([
            "counters", "event", "help", "trace", "ipv4", "ipv6", "version",
        ])
        .map(|(short, long)| Opt {
            short,
            long,
            arg: Arg::No,
        })
        .collect();
    if own_name {
        v.push(Opt {
            short: TABLE,
            long: "table",
            arg: Arg::Required,
        });
    }
    v
}

fn usage(prog: &str, own_name: bool) -> String {
    let mut s = format!(
        "{prog} {VERSION} (nf_tables)\n\
         Usage: {prog} [ -t | -e ]\n\
         \x20       --trace    -t    trace ruleset traversal of packets tagged via -j TRACE rule\n\
         \x20       --event    -e    show events that modify the ruleset\n\
         Optional arguments:\n\
         \x20       --ipv4     -4    only monitor IPv4\n\
         \x20       --ipv6     -6    only monitor IPv6\n\
         \t--counters -c    show counters in rules\n"
    );
    if own_name {
        s.push_str(
            "\t--table NAME     only events of the tables called NAME (iptnl monitor only)\n\
             \n\
             Prints every change committed to the ruleset of this network namespace, by any\n\
             program, as iptables 1.8.11's xtables-monitor prints it: tables and base chains\n\
             as `nft: NEW table: …' and `nft: NEW chain: …', user chains and rules as the\n\
             iptables command (-N, -X, -A, -D) that makes them, and `NEWGEN:' for each\n\
             commit. Rules without an iptables form print as `-m nft --nft-rule HEX'.\n\
             With -t, packets marked by -j TRACE print a PACKET: line and a TRACE: line\n\
             for each rule, return and policy they meet.\n\
             SIGTERM or SIGINT ends it (status 0).\n",
        );
    }
    s
}

fn bad_argument(prog: &str) -> i32 {
    eprintln!("{prog} {VERSION}: Bad argument.");
    eprintln!("Try `{prog} -h' for more information.");
    2
}

/// `xtables-monitor [-e] [-t] [-4|-6] [-c]`; `prog` is the name it was called by
/// (`monitor` for `iptnl monitor`, which also takes `--table NAME`).
pub fn main(prog: &str, args: &[String]) -> i32 {
    let own_name = prog == "monitor";
    let shown = if own_name { "iptnl monitor" } else { prog };
    let parsed = match getopt(args, &opts(own_name)) {
        Ok(p) => p,
        Err(_) => return bad_argument(shown),
    };
    let mut filter = Filter::default();
    let (mut events, mut trace) = (false, false);
    for (c, v) in parsed.opts {
        match c {
            'c' => filter.counters = true,
            't' => trace = true,
            'e' => events = true,
            'h' => {
                print!("{}", usage(shown, own_name));
                return 1;
            }
            '4' => filter.family = Some(Family::Ipv4),
            '6' => filter.family = Some(Family::Ipv6),
            'V' => {
                println!("{shown} {VERSION} (iptnl {})", env!("CARGO_PKG_VERSION"));
                return 0;
            }
            TABLE => filter.table = v,
            _ => return bad_argument(shown),
        }
    }
    if !events && !trace {
        print!("{}", usage(shown, own_name));
        return 1;
    }
    // Blocked before any thread starts, and taken by a thread of their own: the last line
    // written is whole and flushed when the program ends.
    let signals = [libc::SIGTERM, libc::SIGINT];
    if let Err(e) = iptnl::netlink::block_signals(&signals) {
        eprintln!("{shown}: cannot block signals: {e}");
        return 1;
    }
    std::thread::spawn(move || {
        let _ = iptnl::netlink::wait_signal(&signals, None);
        let mut out = io::stdout().lock();
        let _ = out.flush();
        std::process::exit(0);
    });
    let mut mon = match Monitor::open_with(events, trace) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{shown}: cannot bind to nfnetlink socket: {e}");
            return 1;
        }
    };
    let mut conn = None;
    let mut bases = BaseChains::read(events);
    loop {
        let ev = match mon.next(None) {
            Ok(Some(ev)) => ev,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("{shown}: cannot receive from nfnetlink socket: {e}");
                return 1;
            }
        };
        let lines = match &ev {
            Event::Trace(t) if filter.trace_ok(t) => {
                let rule = traced_rule(&mut conn, t);
                trace_lines(t, &filter, rule.as_ref(), &KernelSets)
            }
            Event::Trace(_) => continue,
            ev => event_lines(&bases.complete(ev), &filter, &KernelSets),
        };
        if lines.is_empty() {
            continue;
        }
        let mut out = io::stdout().lock();
        let written = lines
            .iter()
            .try_for_each(|l| writeln!(out, "{l}"))
            .and_then(|()| out.flush());
        if written.is_err() {
            // The reader went away (a closed pipe): nothing more can be shown.
            return 0;
        }
    }
}

/// The rule a rule trace names, read from the kernel (`None` when it is gone or cannot be
/// read). The connection is opened on first use.
fn traced_rule(conn: &mut Option<Conn>, t: &Trace) -> Option<Rule> {
    let (NFT_TRACETYPE_RULE, Some(handle), Some(table), Some(chain)) =
        (t.kind, t.rule_handle, &t.table, &t.chain)
    else {
        return None;
    };
    if conn.is_none() {
        *conn = Conn::open().ok();
    }
    let c = conn.as_mut()?;
    let mut rule = None;
    let got = c.request(
        "reading the traced rule",
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_GETRULE),
        t.family,
        |w| {
            w.put_str(NFTA_RULE_TABLE, table);
            w.put_str(NFTA_RULE_CHAIN, chain);
            w.put_be64(NFTA_RULE_HANDLE, handle);
        },
        |m| {
            if nfnl_msg_id(m.msg_type()) == NFT_MSG_NEWRULE {
                rule = Some(Rule::decode(m)?);
            }
            Ok(())
        },
    );
    got.ok().and(rule)
}

/// The base chains seen (read at the start, then from the events): a recent kernel
/// announces the deletion of a chain by its name only, and `xtables-monitor` prints a deleted
/// base chain with its hook, type, priority and policy.
struct BaseChains(HashMap<(Family, String, String), Chain>);

impl BaseChains {
    /// The base chains in the kernel now (none when events are not shown, or the dump
    /// fails).
    fn read(events: bool) -> BaseChains {
        let mut m = HashMap::new();
        if events {
            if let Ok(mut c) = Conn::open() {
                if let Ok((chains, _)) = iptnl::nft::list_chains(&mut c, None, None) {
                    for ch in chains.into_iter().filter(|c| c.hook.is_some()) {
                        m.insert((ch.family, ch.table.clone(), ch.name.clone()), ch);
                    }
                }
            }
        }
        BaseChains(m)
    }

    /// The event to print: a deleted base chain announced by name gets what was last known
    /// of it (no rules use it any more).
    fn complete(&mut self, ev: &Event) -> Event {
        match ev {
            Event::NewChain(c) if c.hook.is_some() => {
                self.0
                    .insert((c.family, c.table.clone(), c.name.clone()), c.clone());
            }
            Event::DelChain(c) => {
                let known = self.0.remove(&(c.family, c.table.clone(), c.name.clone()));
                if let (None, Some(mut k)) = (&c.hook, known) {
                    k.use_count = Some(0);
                    return Event::DelChain(k);
                }
            }
            Event::DelTable(t) => self.0.retain(|k, _| !(k.0 == t.family && k.1 == t.name)),
            _ => {}
        }
        ev.clone()
    }
}
