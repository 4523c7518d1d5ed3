//! Ruleset events as iptables 1.8.11's `xtables-monitor -e` prints them: tables and base
//! chains in libnftnl's words (`nft: NEW table: …`, `nft: NEW chain: …`), user chains as the
//! `-N`/`-X` command that made them, rules as the `-A`/`-D` command with the rule in its
//! iptables-save form, and each commit as a `NEWGEN:` line; and packet traces as
//! `xtables-monitor -t` prints them (`PACKET:` and ` TRACE:` lines, see [`trace_lines`]).
//!
//! The functions here only format: [`crate::nft::monitor::Monitor`] delivers the events.
//!
//! ```no_run
//! use iptnl::iptables::ipset::KernelSets;
//! use iptnl::iptables::monitor::{event_lines, Filter};
//! use iptnl::nft::monitor::Monitor;
//! let mut m = Monitor::open()?;
//! while let Some(ev) = m.next(None)? {
//!     for line in event_lines(&ev, &Filter::default(), &KernelSets) {
//!         println!("{line}");
//!     }
//! }
//! # Ok::<(), iptnl::nft::Error>(())
//! ```

use std::fmt::Write;

use iptnl_sys::netfilter::{NF_ACCEPT, NF_DROP, NF_INET_INGRESS, NF_QUEUE, NF_STOLEN};
use iptnl_sys::nf_tables::*;

use crate::ipt::decode::{decode_rule_or_raw_with, raw_spec};
use crate::ipt::ext::SetIndex;
use crate::ipt::IpFamily;
use crate::nft::monitor::Event;
use crate::nft::trace::Trace;
use crate::nft::{Chain, Family, Rule, Table};

/// `ARPHRD_ETHER`.
const ARPHRD_ETHER: u16 = 1;
/// `ARPHRD_LOOPBACK`.
const ARPHRD_LOOPBACK: u16 = 772;

/// Which events to print and how, as `xtables-monitor`'s options say.
///
/// ```
/// use iptnl::iptables::monitor::Filter;
/// use iptnl::nft::Family;
/// let f = Filter { family: Some(Family::Ipv6), ..Filter::default() };
/// assert!(f.family_ok(Family::Ipv6));
/// assert!(!f.family_ok(Family::Ipv4));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this family (`-4`, `-6`); `None`: all.
    pub family: Option<Family>,
    /// Only this table (by name, in any family); `None`: all.
    pub table: Option<String>,
    /// Print each rule's packet and byte counters (`-c`): `[PACKETS:BYTES]` before `-A`.
    pub counters: bool,
}

impl Filter {
    /// Whether events of `family` are printed.
    ///
    /// ```
    /// use iptnl::iptables::monitor::Filter;
    /// use iptnl::nft::Family;
    /// assert!(Filter::default().family_ok(Family::Inet));
    /// ```
    pub fn family_ok(&self, family: Family) -> bool {
        self.family.is_none_or(|f| f == family)
    }

    /// Whether events of table `name` in `family` are printed.
    ///
    /// ```
    /// use iptnl::iptables::monitor::Filter;
    /// use iptnl::nft::Family;
    /// let f = Filter { table: Some("nat".into()), ..Filter::default() };
    /// assert!(f.table_ok(Family::Ipv4, "nat"));
    /// assert!(!f.table_ok(Family::Ipv4, "filter"));
    /// ```
    pub fn table_ok(&self, family: Family, name: &str) -> bool {
        self.family_ok(family) && self.table.as_deref().is_none_or(|t| t == name)
    }

    /// Whether a trace message is printed (its family and table).
    ///
    /// ```
    /// use iptnl::iptables::monitor::Filter;
    /// use iptnl::nft::trace::Trace;
    /// use iptnl::nft::Family;
    /// let f = Filter { family: Some(Family::Ipv6), ..Filter::default() };
    /// assert!(!f.trace_ok(&Trace { family: 2, ..Trace::default() }));
    /// assert!(f.trace_ok(&Trace { family: 10, ..Trace::default() }));
    /// ```
    pub fn trace_ok(&self, t: &Trace) -> bool {
        self.family.is_none_or(|f| f.raw() == t.family)
            && self
                .table
                .as_deref()
                .is_none_or(|n| t.table.as_deref() == Some(n))
    }
}

/// The command name `xtables-monitor` gives a family's rules and user chains (`None`: inet
/// and netdev, whose rules it does not print and whose chains it prints in libnftnl's words).
///
/// ```
/// use iptnl::iptables::monitor::family_cmd;
/// use iptnl::nft::Family;
/// assert_eq!(family_cmd(Family::Ipv6), Some("ip6tables"));
/// assert_eq!(family_cmd(Family::Inet), None);
/// ```
pub fn family_cmd(family: Family) -> Option<&'static str> {
    match family {
        Family::Ipv4 => Some("iptables"),
        Family::Ipv6 => Some("ip6tables"),
        Family::Arp => Some("arptables"),
        Family::Bridge => Some("ebtables"),
        Family::Inet | Family::Netdev => None,
    }
}

fn new_del(new: bool) -> &'static str {
    if new {
        "NEW"
    } else {
        "DEL"
    }
}

/// A table event: ` EVENT: nft: NEW table: table NAME FAMILY flags F use N handle H`
/// (libnftnl's `nftnl_table_snprintf`; flags in hex, `use` the count of chains, sets and
/// objects in it, both from the event's `NFTA_TABLE_FLAGS` and `NFTA_TABLE_USE`, 0 when
/// absent).
///
/// ```
/// use iptnl::iptables::monitor::table_line;
/// use iptnl::nft::{Family, Table};
/// let mut t = Table::new(Family::Ipv4, "filter");
/// t.use_count = Some(1);
/// t.handle = Some(7);
/// assert_eq!(
///     table_line(&t, true),
///     " EVENT: nft: NEW table: table filter ip flags 0 use 1 handle 7"
/// );
/// ```
pub fn table_line(t: &Table, new: bool) -> String {
    format!(
        " EVENT: nft: {} table: table {} {} flags {:x} use {} handle {}",
        new_del(new),
        t.name,
        t.family.name(),
        t.flags,
        t.use_count.unwrap_or(0),
        t.handle.unwrap_or(0)
    )
}

/// A hook's name as libnftnl's `nftnl_hooknum2str` gives it.
fn hook_name(family: Family, num: u32) -> &'static str {
    match family {
        Family::Ipv4 | Family::Ipv6 | Family::Inet | Family::Bridge => match num {
            0 => "prerouting",
            1 => "input",
            2 => "forward",
            3 => "output",
            4 => "postrouting",
            _ => "unknown",
        },
        Family::Arp => match num {
            0 => "input",
            1 => "output",
            2 => "forward",
            _ => "unknown",
        },
        Family::Netdev => match num {
            0 => "ingress",
            _ => "unknown",
        },
    }
}

/// A chain event. A user chain of an iptables family is the command:
/// ` EVENT: iptables -t TABLE -N NAME` (`-X` when deleted); a base chain, or any chain of
/// inet or netdev, is libnftnl's `nftnl_chain_snprintf`:
/// ` EVENT: nft: NEW chain: FAMILY TABLE NAME use N type T hook H prio P policy V packets X
/// bytes Y flags F` (`use` is `NFTA_CHAIN_USE`, the rules in it and the jumps to it; `flags`
/// is `NFTA_CHAIN_FLAGS`, 1 for a base chain, printed only when the kernel sends it).
///
/// ```
/// use iptnl::iptables::monitor::chain_line;
/// use iptnl::nft::{Chain, ChainType, Family, Hook, Policy};
/// let c = Chain::user(Family::Ipv4, "filter", "foo");
/// assert_eq!(chain_line(&c, true), " EVENT: iptables -t filter -N foo");
/// let mut b = Chain::base(Family::Ipv6, "filter", "FORWARD", Hook {
///     num: 2, priority: 0, chain_type: ChainType::Filter,
///     policy: Some(Policy::Accept), devices: vec![],
/// });
/// b.flags = Some(1);
/// assert_eq!(
///     chain_line(&b, false),
///     " EVENT: nft: DEL chain: ip6 filter FORWARD use 0 type filter hook forward prio 0 \
///      policy accept packets 0 bytes 0 flags 1"
/// );
/// ```
pub fn chain_line(c: &Chain, new: bool) -> String {
    let cmd = family_cmd(c.family);
    if let (None, Some(cmd)) = (&c.hook, cmd) {
        return format!(
            " EVENT: {cmd} -t {} -{} {}",
            c.table,
            if new { 'N' } else { 'X' },
            c.name
        );
    }
    let mut s = format!(
        " EVENT: nft: {} chain: {} {} {} use {}",
        new_del(new),
        c.family.name(),
        c.table,
        c.name,
        c.use_count.unwrap_or(0)
    );
    if let Some(h) = &c.hook {
        let _ = write!(
            s,
            " type {} hook {} prio {}",
            h.chain_type.name(),
            hook_name(c.family, h.num),
            h.priority
        );
        if let Some(p) = h.policy {
            let _ = write!(s, " policy {}", p.to_string().to_ascii_lowercase());
        }
        let (packets, bytes) = c.counters.unwrap_or((0, 0));
        let _ = write!(s, " packets {packets} bytes {bytes}");
        // The kernel sends the devices of a netdev or inet ingress chain as a list
        // (NFTA_HOOK_DEVS), and the one device also alone (NFTA_HOOK_DEV) when there is one;
        // libnftnl prints both.
        if c.family == Family::Netdev || (c.family == Family::Inet && h.num == NF_INET_INGRESS) {
            if let [one] = h.devices.as_slice() {
                let _ = write!(s, " dev {one} ");
            }
            s.push_str(" dev { ");
            for d in &h.devices {
                let _ = write!(s, " {d} ");
            }
            s.push_str(" } ");
        }
        if let Some(f) = c.flags {
            let _ = write!(s, " flags {f:x}");
        }
    }
    s
}

/// A rule event: ` EVENT: iptables -t TABLE -A CHAIN RULE` (`-D` when deleted), the rule as
/// iptables-save prints it (a rule without an iptables form as `-m nft --nft-rule HEX`); with
/// `counters`, `[PACKETS:BYTES] ` comes before `-A`. `None` for inet and netdev rules, which
/// `xtables-monitor` does not print. Rules of arp and bridge tables are always carried whole.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::{encode_rule, parse_rule, IpFamily};
/// use iptnl::iptables::monitor::rule_line;
/// let spec = &parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "22", "-j", "ACCEPT"]).unwrap()[0];
/// let rule = encode_rule(spec, IpFamily::V4, "filter", "FORWARD").unwrap();
/// assert_eq!(
///     rule_line(&rule, false, false, &NoSets).as_deref(),
///     Some(" EVENT: iptables -t filter -D FORWARD -p tcp -m tcp --dport 22 -j ACCEPT")
/// );
/// assert_eq!(
///     rule_line(&rule, true, true, &NoSets).as_deref(),
///     Some(" EVENT: iptables -t filter [0:0] -A FORWARD -p tcp -m tcp --dport 22 -j ACCEPT")
/// );
/// ```
pub fn rule_line(r: &Rule, new: bool, counters: bool, sets: &dyn SetIndex) -> Option<String> {
    rule_text(r, new, counters, sets).map(|t| format!(" EVENT: {t}"))
}

/// [`rule_line`] without its ` EVENT: ` prefix, as a trace prints the rule a packet met.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::{encode_rule, parse_rule, IpFamily};
/// use iptnl::iptables::monitor::rule_text;
/// let spec = &parse_rule(IpFamily::V6, &["-j", "DROP"]).unwrap()[0];
/// let rule = encode_rule(spec, IpFamily::V6, "filter", "INPUT").unwrap();
/// assert_eq!(
///     rule_text(&rule, true, false, &NoSets).as_deref(),
///     Some("ip6tables -t filter -A INPUT -j DROP")
/// );
/// ```
pub fn rule_text(r: &Rule, new: bool, counters: bool, sets: &dyn SetIndex) -> Option<String> {
    let cmd = family_cmd(r.family)?;
    let spec = match r.family {
        Family::Ipv4 => decode_rule_or_raw_with(r, IpFamily::V4, sets),
        Family::Ipv6 => decode_rule_or_raw_with(r, IpFamily::V6, sets),
        _ => raw_spec(r, IpFamily::V4),
    };
    let mut s = format!("{cmd} -t {} ", r.table);
    if counters {
        let (p, b) = spec.counters.unwrap_or((0, 0));
        let _ = write!(s, "[{p}:{b}] ");
    }
    let _ = write!(s, "-{} {}", if new { 'A' } else { 'D' }, r.chain);
    let args = spec.to_save_args();
    if !args.is_empty() {
        s.push(' ');
        s.push_str(&args);
    }
    Some(s)
}

/// The lines one event prints (none, or one), with `filter` applied.
///
/// A commit prints `NEWGEN: GENID=N PID=P NAME=COMM` when the kernel names the committing
/// process; lost events print `# events were lost …`; an event iptnl cannot read prints
/// `# unreadable event …`; sets, elements and other objects print nothing, as in
/// `xtables-monitor`. Traces print nothing here: [`trace_lines`] prints them.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::iptables::monitor::{event_lines, Filter};
/// use iptnl::nft::monitor::Event;
/// let ev = Event::NewGen { genid: 5, pid: Some(42), name: Some("iptables".into()) };
/// assert_eq!(event_lines(&ev, &Filter::default(), &NoSets), ["NEWGEN: GENID=5 PID=42 NAME=iptables"]);
/// ```
pub fn event_lines(ev: &Event, filter: &Filter, sets: &dyn SetIndex) -> Vec<String> {
    let line = match ev {
        Event::NewTable(t) | Event::DelTable(t) => filter
            .table_ok(t.family, &t.name)
            .then(|| table_line(t, matches!(ev, Event::NewTable(_)))),
        Event::NewChain(c) | Event::DelChain(c) => filter
            .table_ok(c.family, &c.table)
            .then(|| chain_line(c, matches!(ev, Event::NewChain(_)))),
        Event::NewRule(r) | Event::DelRule(r) => filter
            .table_ok(r.family, &r.table)
            .then(|| rule_line(r, matches!(ev, Event::NewRule(_)), filter.counters, sets))
            .flatten(),
        Event::NewGen { genid, pid, name } => name
            .as_ref()
            .map(|n| format!("NEWGEN: GENID={genid} PID={} NAME={n}", pid.unwrap_or(0))),
        Event::Lost => Some(
            "# events were lost: the receive buffer overflowed; the ruleset may have changed \
             in ways not shown"
                .to_owned(),
        ),
        Event::Unreadable { msg_type, error } => Some(format!(
            "# unreadable event ({}): {error}",
            msg_name(*msg_type)
        )),
        // A trace needs the rule it names read from the kernel: see `trace_lines`.
        Event::Trace(_) | Event::Other(_) => None,
    };
    line.into_iter().collect()
}

fn msg_name(t: u16) -> String {
    match t {
        NFT_MSG_NEWTABLE => "NEWTABLE".into(),
        NFT_MSG_DELTABLE => "DELTABLE".into(),
        NFT_MSG_NEWCHAIN => "NEWCHAIN".into(),
        NFT_MSG_DELCHAIN => "DELCHAIN".into(),
        NFT_MSG_NEWRULE => "NEWRULE".into(),
        NFT_MSG_DELRULE => "DELRULE".into(),
        NFT_MSG_NEWGEN => "NEWGEN".into(),
        other => format!("message type {other}"),
    }
}

/// A verdict as `xtables-monitor` prints it, with the space after it.
fn verdict_text(code: i32, target: Option<&str>) -> String {
    let mut s = match code {
        NF_ACCEPT => "ACCEPT".to_owned(),
        NF_DROP => "DROP".to_owned(),
        NF_QUEUE => "QUEUE".to_owned(),
        NF_STOLEN => "STOLEN".to_owned(),
        NFT_BREAK => "BREAK".to_owned(),
        NFT_CONTINUE => "CONTINUE".to_owned(),
        NFT_GOTO | NFT_JUMP => {
            let mut s = if code == NFT_GOTO { "GOTO" } else { "JUMP" }.to_owned();
            if let Some(c) = target {
                let _ = write!(s, ":{c}");
            }
            s
        }
        other => format!("0x{:x}", other as u32),
    };
    s.push(' ');
    s
}

/// Bytes in hex as C's `printf("%02x", (char)b)` prints them: a byte from 0x80 on is
/// sign-extended (`ffffff80`), as in `xtables-monitor`.
fn c_char_hex(out: &mut String, bytes: &[u8], upper: bool) {
    for &b in bytes {
        let v = b as i8 as i32 as u32;
        let _ = if upper {
            write!(out, "{v:02X}")
        } else {
            write!(out, "{v:02x}")
        };
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn ipv4_text(out: &mut String, h: &[u8]) -> u8 {
    if h.len() < 20 {
        return 0;
    }
    let addr = |at: usize| std::net::Ipv4Addr::new(h[at], h[at + 1], h[at + 2], h[at + 3]);
    let _ = write!(
        out,
        "SRC={} DST={} LEN={} TOS=0x{:x} TTL={} ID={} ",
        addr(12),
        addr(16),
        be16(h, 2),
        h[1],
        h[8],
        be16(h, 4)
    );
    let frag = be16(h, 6);
    for (bit, name) in [(0x8000, "CE "), (0x4000, "DF "), (0x2000, "MF ")] {
        if frag & bit != 0 {
            out.push_str(name);
        }
    }
    if frag & 0x1fff != 0 {
        let _ = write!(out, "FRAG:{} ", frag & 0x1fff);
    }
    let ihl = usize::from(h[0] & 0xf) * 4;
    if ihl > 20 {
        out.push_str("OPT (");
        c_char_hex(out, &h[20..ihl.min(h.len())], true);
        out.push_str(") ");
    }
    h[9]
}

fn ipv6_text(out: &mut String, h: &[u8]) -> u8 {
    if h.len() < 40 {
        return 0;
    }
    let flow = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
    let addr = |at: usize| {
        let mut a = [0u8; 16];
        a.copy_from_slice(&h[at..at + 16]);
        std::net::Ipv6Addr::from(a)
    };
    // LEN adds the size of an IPv4 header to the payload length, as xtables-monitor does.
    let _ = write!(
        out,
        "SRC={} DST={} LEN={} TC={} HOPLIMIT={} FLOWLBL={} ",
        addr(8),
        addr(24),
        usize::from(be16(h, 4)) + 20,
        (flow & 0x0ff0_0000) >> 20,
        h[7],
        flow & 0x000f_ffff
    );
    h[6]
}

/// The `PACKET:` line a trace's first message about a packet prints: interfaces, link,
/// network and transport headers, mark (as `xtables-monitor -t`).
///
/// ```
/// use iptnl::iptables::monitor::packet_line;
/// use iptnl::nft::trace::Trace;
/// let mut t = Trace { family: 2, id: 0xabc, ..Trace::default() };
/// t.network_header = Some(vec![
///     0x45, 0, 0, 84, 0x12, 0x34, 0x40, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
/// ]);
/// assert_eq!(
///     packet_line(&t),
///     "PACKET: 2 00000abc SRC=127.0.0.1 DST=127.0.0.1 LEN=84 TOS=0x0 TTL=64 ID=4660 DF "
/// );
/// ```
pub fn packet_line(t: &Trace) -> String {
    let mut s = format!("PACKET: {} {:08x} ", t.family, t.id);
    let ifname = |i: u32| crate::netlink::interface_name(i).unwrap_or_else(|| "(null)".into());
    if let Some(i) = t.iif {
        let _ = write!(s, "IN={} ", ifname(i));
    }
    if let Some(o) = t.oif {
        let _ = write!(s, "OUT={} ", ifname(o));
    }
    let mut nfproto = u32::from(t.family);
    if let Some(p) = t.nfproto {
        nfproto = p;
        if p != u32::from(t.family) {
            let _ = write!(s, "NFPROTO={p} ");
        }
    }
    if let Some(ll) = &t.ll_header {
        match t.iif_type.unwrap_or(0) {
            ARPHRD_ETHER => {
                if ll.len() >= 14 {
                    let mac = |m: &[u8]| {
                        m.iter()
                            .map(|b| format!("{b:x}"))
                            .collect::<Vec<_>>()
                            .join(":")
                    };
                    let _ = write!(
                        s,
                        "MACSRC={} MACDST={} MACPROTO={:04x} ",
                        mac(&ll[6..12]),
                        mac(&ll[0..6]),
                        be16(ll, 12)
                    );
                }
            }
            ARPHRD_LOOPBACK => s.push_str("LOOPBACK "),
            other => {
                let _ = write!(s, "LL=0x{other:x} ");
                c_char_hex(&mut s, ll, false);
                s.push(' ');
            }
        }
    }
    let mut l4 = 0;
    if let Some(nh) = &t.network_header {
        match nfproto {
            p if p == u32::from(Family::Ipv4.raw()) => l4 = ipv4_text(&mut s, nh),
            p if p == u32::from(Family::Ipv6.raw()) => l4 = ipv6_text(&mut s, nh),
            _ => {
                s.push_str("NH=");
                c_char_hex(&mut s, nh, false);
                s.push(' ');
            }
        }
    }
    if let Some(th) = &t.transport_header {
        match l4 {
            // DCCP, SCTP, UDP-Lite, UDP.
            33 | 132 | 136 | 17 if th.len() >= 4 => {
                let _ = write!(s, "SPORT={} DPORT={} ", be16(th, 0), be16(th, 2));
            }
            6 if th.len() >= 20 => {
                let _ = write!(s, "SPORT={} DPORT={} ", be16(th, 0), be16(th, 2));
                for (bit, name) in [
                    (0x02, "SYN "),
                    (0x10, "ACK "),
                    (0x01, "FIN "),
                    (0x04, "RST "),
                    (0x08, "PSH "),
                    (0x20, "URG "),
                ] {
                    if th[13] & bit != 0 {
                        s.push_str(name);
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(m) = t.mark.filter(|&m| m != 0) {
        let _ = write!(s, "MARK=0x{m:x} ");
    }
    s
}

/// The lines a trace message prints, as `xtables-monitor -t` prints them: a `PACKET:` line
/// first when the message carries the packet's headers, then ` TRACE: FAMILY ID
/// TABLE:CHAIN:rule:0xHANDLE:VERDICT  RULE` for a rule (`rule` is that rule, read from the
/// kernel by the caller; `None` when it is gone), `…:return:CHAIN` for a return and
/// `…:policy:VERDICT ` for a chain's policy.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::iptables::monitor::{trace_lines, Filter};
/// use iptnl::nft::trace::Trace;
/// let t = Trace {
///     family: 2, id: 0x1f, kind: 1, policy: Some(1),
///     table: Some("filter".into()), chain: Some("INPUT".into()),
///     ..Trace::default()
/// };
/// assert_eq!(
///     trace_lines(&t, &Filter::default(), None, &NoSets),
///     [" TRACE: 2 0000001f filter:INPUT:policy:ACCEPT "]
/// );
/// ```
pub fn trace_lines(
    t: &Trace,
    filter: &Filter,
    rule: Option<&Rule>,
    sets: &dyn SetIndex,
) -> Vec<String> {
    if !filter.trace_ok(t) {
        return Vec::new();
    }
    let header = format!(
        " TRACE: {} {:08x} {}:{}",
        t.family,
        t.id,
        t.table.as_deref().unwrap_or("(null)"),
        t.chain.as_deref().unwrap_or("(null)")
    );
    let (code, target) = match &t.verdict {
        Some((c, target)) => (*c, target.as_deref()),
        None => (0, None),
    };
    let mut out = Vec::new();
    match t.kind {
        NFT_TRACETYPE_RULE => {
            if t.ll_header.is_some() || t.network_header.is_some() {
                out.push(packet_line(t));
            }
            if let Some(h) = t.rule_handle {
                let mut s = format!("{header}:rule:0x{h:x}:{} ", verdict_text(code, target));
                match rule {
                    Some(r) => {
                        if let Some(text) = rule_text(r, true, filter.counters, sets) {
                            s.push_str(&text);
                        }
                    }
                    None => s.push_str("# the rule is no longer in the ruleset"),
                }
                out.push(s);
            }
        }
        NFT_TRACETYPE_POLICY => out.push(format!(
            "{header}:policy:{}",
            verdict_text(t.policy.unwrap_or(0) as i32, target)
        )),
        NFT_TRACETYPE_RETURN => out.push(format!("{header}:return:{}", target.unwrap_or(""))),
        _ => {}
    }
    out
}
