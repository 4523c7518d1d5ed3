//! Listing formats: `iptables -S` lines (with `-v`: counters as `-c packets bytes`) and the
//! columns of `iptables -L -n -v -x`.

use std::net::IpAddr;

use crate::ipt::{AddrMask, IpFamily, RuleSpec};
use crate::nft::{Chain, Policy};

/// `-P CHAIN POLICY` (built-in) or `-N CHAIN` (user), as `iptables -S` prints the head of a
/// chain; with counters, `-P` gets ` -c packets bytes`.
pub(crate) fn chain_line(
    name: &str,
    builtin: bool,
    chain: Option<&Chain>,
    counters: bool,
) -> String {
    if !builtin {
        return format!("-N {name}");
    }
    let policy = chain
        .and_then(|c| c.hook.as_ref())
        .and_then(|h| h.policy)
        .unwrap_or(Policy::Accept);
    if counters {
        let (p, b) = chain.and_then(|c| c.counters).unwrap_or((0, 0));
        format!("-P {name} {policy} -c {p} {b}")
    } else {
        format!("-P {name} {policy}")
    }
}

/// `-A CHAIN args`, with `-c packets bytes` before the target when `counters` (as
/// `iptables -v -S` prints it).
pub(crate) fn rule_line(spec: &RuleSpec, chain: &str, counters: bool) -> String {
    if !counters {
        return spec.to_save_line(chain, false);
    }
    let full = spec.to_save_args();
    let mut head_spec = spec.clone();
    head_spec.target = None;
    let head = head_spec.to_save_args();
    let tail = full
        .strip_prefix(head.as_str())
        .map(str::trim_start)
        .unwrap_or("");
    let (p, b) = spec.counters.unwrap_or((0, 0));
    let mut out = format!("-A {chain}");
    for part in [head.as_str(), &format!("-c {p} {b}"), tail] {
        if !part.is_empty() {
            out.push(' ');
            out.push_str(part);
        }
    }
    out
}

fn show_addr(a: &AddrMask) -> String {
    let full = match a.addr {
        IpAddr::V4(_) => 32,
        IpAddr::V6(_) => 128,
    };
    match a.prefix_len() {
        Some(l) if l == full => {
            let s = a.to_string();
            s.rsplit_once('/').map(|(x, _)| x.to_owned()).unwrap_or(s)
        }
        _ => a.to_string(),
    }
}

/// The ten fields go-iptables' `Stats` returns for one rule: pkts, bytes, target, prot, opt,
/// in, out, source, destination, options.
pub(crate) fn stats_row(spec: &RuleSpec) -> Vec<String> {
    let (p, b) = spec.counters.unwrap_or((0, 0));
    let target = spec.target_column();
    let prot = match spec.proto {
        None => "0".to_owned(),
        Some(pm) if pm.inv => format!("!{}", pm.num),
        Some(pm) => pm.num.to_string(),
    };
    // IPv6 has no fragment flag: ip6tables prints `--`.
    let opt = match (spec.family, spec.frag) {
        (IpFamily::V6, _) | (_, None) => "--".to_owned(),
        (_, Some(true)) => "-f".to_owned(),
        (_, Some(false)) => "!f".to_owned(),
    };
    let iface = |i: &Option<crate::ipt::IfaceMatch>| match i {
        None => "*".to_owned(),
        Some(m) => format!("{}{}", if m.inv { "!" } else { "" }, m.name),
    };
    let any = match spec.family {
        IpFamily::V4 => "0.0.0.0/0",
        IpFamily::V6 => "::/0",
    };
    let addr = |a: &Option<crate::ipt::AddrMatch>| match a {
        None => any.to_owned(),
        Some(m) => format!("{}{}", if m.inv { "!" } else { "" }, show_addr(&m.addr)),
    };
    // The options column as `iptables -L -n -v -x` prints it (`[goto]`, then each match's
    // and the target's `-L` words), split on blanks and joined with one space as
    // go-iptables does.
    let mut options = String::new();
    if spec.is_goto() {
        options.push_str("[goto] ");
    }
    options.push_str(&crate::ipt::ext::list_options(spec, true));
    let options = options.split_whitespace().collect::<Vec<_>>().join(" ");
    vec![
        p.to_string(),
        b.to_string(),
        target,
        prot,
        opt,
        iface(&spec.in_iface),
        iface(&spec.out_iface),
        addr(&spec.src),
        addr(&spec.dst),
        options,
    ]
}
