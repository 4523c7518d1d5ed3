//! `iptables -L` and `-S` as iptables-nft prints them, and the one-line form of a rule that
//! `-v` prints after a rule command: columns, counters with their K/M/G/T suffixes, the
//! options column in each extension's own words (see [`iptnl::ipt::ext::list_options`]).

use iptnl::ipt::{CommandLine, IpFamily, RuleSpec};
use iptnl::iptables::{Error, IpTables};

use super::{is_builtin, kernel_err, name, op_err, Fail, NO_CHAIN};
use crate::output::Text;

/// A rule as `iptables -v` prints it after `-A`/`-I`/`-R`/`-C`/`-D`: iptables' one-line
/// form (`ACCEPT  tcp opt -- in * out *  1.2.3.4  -> 0.0.0.0/0   tcp dpt:22`), numeric.
pub(crate) fn print_rule_line(family: IpFamily, r: &RuleSpec) -> String {
    let mut l = String::new();
    let target = r.target_column();
    l.push_str(&format!("{target} "));
    let (pnum, pinv) = r.proto.map_or((0, false), |p| (p.num, p.inv));
    l.push(if pinv { '!' } else { ' ' });
    // Numeric: iptables' own protocol names only.
    let pname = iptnl::ipt::proto_list_name(pnum, true);
    l.push_str(&format!("{pname} "));
    l.push_str("opt ");
    l.push_str(match r.frag {
        None => "-- ",
        Some(true) => "-f ",
        Some(false) => "!f ",
    });
    let iface = |i: &Option<iptnl::ipt::IfaceMatch>| match i {
        Some(m) => format!("{}{}", if m.inv { "!" } else { "" }, m.name),
        None => "*".to_owned(),
    };
    l.push_str(&format!(
        "in {} out {} ",
        iface(&r.in_iface),
        iface(&r.out_iface)
    ));
    let (si, s) = show_addr(family, &r.src, true);
    let (di, d) = show_addr(family, &r.dst, true);
    l.push_str(&format!("{si}{s} {di}-> {d}  "));
    if r.is_goto() {
        l.push_str("[goto] ");
    }
    l.push_str(&options_text(family, r, true));
    l.push('\n');
    l
}

/// Whether a listing shows rules without an iptables form (`-S`: `-m nft --nft-rule`, `-L`:
/// their options column).
pub(super) fn lists_raw(text: &Text) -> bool {
    match text {
        // Known from the cache's blocks, each searched once per version of its chain.
        Text::Table(t) => t.has_raw_rules(),
        // Searched with memchr's SIMD finder (a `-L` of a big table is megabytes).
        Text::Bytes(b) => {
            let has = |needle: &str| memchr::memmem::find(b, needle.as_bytes()).is_some();
            has(" -m nft --nft-rule ") || has(iptnl::ipt::raw::RAW_LIST_MARK)
        }
    }
}

/// What the listing commands say on standard error when a table holds rules that iptables
/// cannot express (iptables-nft refuses to list such a table at all).
pub(super) fn raw_warning(family: IpFamily, table: &str) -> String {
    format!(
        "# Warning: table `{table}' holds rules that {} cannot express; they are listed whole as `-m nft --nft-rule HEX' and are kept as they are.\n",
        name(family)
    )
}

/// An address column: the `!` (or a space) and the address (`anywhere` for a zero mask,
/// host or network names unless numeric).
fn show_addr(family: IpFamily, a: &Option<iptnl::ipt::AddrMatch>, numeric: bool) -> (char, String) {
    let any = match family {
        IpFamily::V4 => "0.0.0.0/0",
        IpFamily::V6 => "::/0",
    };
    match a {
        None if numeric => (' ', any.to_owned()),
        None => (' ', "anywhere".to_owned()),
        Some(m) => {
            let s = match m.addr.prefix_len() {
                Some(0) if !numeric => "anywhere".to_owned(),
                _ => iptnl::ipt::ext::base::names::addr_mask(m.addr.addr, m.addr.mask, numeric),
            };
            (if m.inv { '!' } else { ' ' }, s)
        }
    }
}

/// Matches and target options in iptables' `-L` words (each extension's `print`), each
/// piece with its leading space.
fn options_text(family: IpFamily, r: &RuleSpec, numeric: bool) -> String {
    let _ = family;
    iptnl::ipt::ext::list_options(r, numeric)
}

/// `xtables_print_num`: exact (`-x`, `%8llu `) or with K/M/G/T suffixes (`%5llu `).
fn num(n: u64, exact: bool, table: bool) -> String {
    if exact {
        return if table {
            format!("{n:>8} ")
        } else {
            format!("{n} ")
        };
    }
    if n <= 99999 {
        return if table {
            format!("{n:>5} ")
        } else {
            format!("{n} ")
        };
    }
    let mut n = (n + 500) / 1000;
    for unit in ['K', 'M', 'G'] {
        if n <= 9999 {
            return if table {
                format!("{n:>4}{unit} ")
            } else {
                format!("{n}{unit} ")
            };
        }
        n = (n + 500) / 1000;
    }
    if table {
        format!("{n:>4}T ")
    } else {
        format!("{n}T ")
    }
}

/// The `-L` column header line.
fn list_header(cmd: &CommandLine) -> String {
    let v = cmd.verbose > 0;
    let mut h = String::new();
    if cmd.line_numbers {
        h.push_str(&format!("{:<4} ", "num"));
    }
    if v {
        if cmd.exact {
            h.push_str(&format!("{:>8} {:>10} ", "pkts", "bytes"));
        } else {
            h.push_str(&format!("{:>5} {:>5} ", "pkts", "bytes"));
        }
    }
    h.push_str(&format!("{:<9} ", "target"));
    h.push_str(" prot opt");
    if v {
        h.push_str(&format!(" {:<6} {:<6} ", "in", "out"));
    }
    h.push_str(&format!(" {:<19} ", "source"));
    h.push_str(&format!(" {:<19} ", "destination"));
    h
}

/// One rule as `iptables -L` prints it, options in iptables' `-L` words (`tcp dpt:22`).
fn list_rule(family: IpFamily, cmd: &CommandLine, n: usize, r: &RuleSpec) -> String {
    let numeric = cmd.numeric;
    let mut l = String::new();
    if cmd.line_numbers {
        l.push_str(&format!("{n:<4} "));
    }
    if cmd.verbose > 0 {
        let (p, b) = r.counters.unwrap_or((0, 0));
        l.push_str(&num(p, cmd.exact, true));
        l.push_str(&num(b, cmd.exact, true));
    }
    let target = r.target_column();
    l.push_str(&format!("{target:<9} "));
    let (pnum, pinv) = r.proto.map_or((0, false), |p| (p.num, p.inv));
    l.push(if pinv { '!' } else { ' ' });
    let pname = iptnl::ipt::proto_list_name(pnum, numeric);
    l.push_str(&format!("{pname:<4} "));
    l.push_str(match r.frag {
        None => "-- ",
        Some(true) => "-f ",
        Some(false) => "!f ",
    });
    if cmd.verbose > 0 {
        let iface = |i: &Option<iptnl::ipt::IfaceMatch>| match i {
            Some(m) => format!("{}{}", if m.inv { "!" } else { "" }, m.name),
            None if numeric => "*".to_owned(),
            None => "any".to_owned(),
        };
        l.push_str(&format!(" {:<6} ", iface(&r.in_iface)));
        l.push_str(&format!("{:<6} ", iface(&r.out_iface)));
    }
    for a in [&r.src, &r.dst] {
        let (inv, s) = show_addr(family, a, numeric);
        l.push(inv);
        l.push_str(&format!("{s:<19} "));
    }
    if r.is_goto() {
        l.push_str("[goto] ");
    }
    l.push_str(&options_text(family, r, numeric));
    l
}

/// A chain's column header and its rules, numbered from 1, as `iptables -L` prints them
/// under the chain's title line.
fn chain_rows(family: IpFamily, cmd: &CommandLine, rules: &[RuleSpec]) -> String {
    let mut out = list_header(cmd);
    out.push('\n');
    for (i, r) in rules.iter().enumerate() {
        out.push_str(&list_rule(family, cmd, i + 1, r));
        out.push('\n');
    }
    out
}

/// `-L [chain [rulenum]]` with `-n`, `-v`, `-x`, `--line-numbers`.
pub(super) fn list(
    family: IpFamily,
    ipt: &IpTables,
    cmd: &CommandLine,
    chain: Option<&str>,
    rulenum: Option<u32>,
) -> Result<String, Fail> {
    let t = cmd.table.as_str();
    let kerr = |e: Error| kernel_err(family, &e);
    // A chain listing reads that chain only (the list of chains of a big table is a dump of
    // its own).
    let all = match chain {
        Some(_) => Vec::new(),
        None => ipt.list_chains(t).map_err(kerr)?,
    };
    let names: Vec<String> = match chain {
        Some(c) => vec![c.to_owned()],
        None => all.clone(),
    };
    // The rules of the chains listed: one chain read, or the whole table in one read.
    let rules = match chain {
        Some(c) => {
            let mut m = std::collections::HashMap::new();
            match ipt.rules(t, c) {
                Ok(r) => {
                    m.insert(c.to_owned(), r);
                }
                Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(kerr(e)),
            }
            m
        }
        None => {
            let mut m = ipt.table_rules(t).map_err(kerr)?;
            // Built-in chains not created yet list empty.
            for ch in &all {
                if is_builtin(t, ch) {
                    m.entry(ch.clone()).or_default();
                }
            }
            m
        }
    };
    // References of user chains, as the kernel counts them.
    let refs = if names.iter().all(|c| is_builtin(t, c)) {
        std::collections::HashMap::new()
    } else {
        ipt.chain_references(t, chain).map_err(kerr)?
    };
    let mut out = String::new();
    let mut first = true;
    for ch in &names {
        let Some(rs) = rules.get(ch) else {
            if chain.is_some() {
                // ENOENT, as iptables 1.8.11 (1.8.9 called a missing chain incompatible).
                return Err(op_err(family, NO_CHAIN));
            }
            continue;
        };
        if let Some(n) = rulenum {
            if let Some(r) = rs.get(n as usize - 1) {
                out.push_str(&list_rule(family, cmd, n as usize, r));
                out.push('\n');
            }
            continue;
        }
        if !first {
            out.push('\n');
        }
        first = false;
        if is_builtin(t, ch) {
            // "-P INPUT ACCEPT -c P B"
            let head = ipt
                .list_with_counters(t, ch)
                .map_err(kerr)?
                .into_iter()
                .next()
                .unwrap_or_default();
            let w: Vec<&str> = head.split_whitespace().collect();
            let policy = w.get(2).copied().unwrap_or("ACCEPT");
            out.push_str(&format!("Chain {ch} (policy {policy}"));
            if cmd.verbose > 0 {
                let p = w.get(4).and_then(|x| x.parse().ok()).unwrap_or(0);
                let b = w.get(5).and_then(|x| x.parse().ok()).unwrap_or(0);
                out.push_str(&format!(
                    " {}packets, {}bytes",
                    num(p, cmd.exact, false),
                    num(b, cmd.exact, false)
                ));
            }
            out.push_str(")\n");
        } else {
            // The kernel's `use` of a chain counts its own rules too (iptables subtracts them).
            let refs = refs
                .get(ch.as_str())
                .copied()
                .unwrap_or(0)
                .saturating_sub(u32::try_from(rs.len()).unwrap_or(u32::MAX));
            out.push_str(&format!("Chain {ch} ({refs} references)\n"));
        }
        out.push_str(&chain_rows(family, cmd, rs));
    }
    if chain.is_none() {
        // Base chains iptables cannot express: shown, after the others, never hidden.
        for c in ipt.foreign_base_chains(t).map_err(kerr)? {
            let rs = ipt.rules(t, &c.name).map_err(kerr)?;
            let h = c.hook.as_ref();
            out.push_str(&format!(
                "\nChain {} (base chain iptables cannot express: hook {}, priority {}, policy {})\n",
                c.name,
                iptnl::ipt::tables::hook_name(h.map_or(u32::MAX, |h| h.num)),
                h.map_or(0, |h| h.priority),
                h.and_then(|h| h.policy).unwrap_or(iptnl::nft::Policy::Accept),
            ));
            out.push_str(&chain_rows(family, cmd, &rs));
        }
    }
    Ok(out)
}

/// The lines joined, each ended by a newline, in one allocation of the final size.
fn lines(v: Vec<String>) -> String {
    let mut s = String::with_capacity(v.iter().map(|l| l.len() + 1).sum());
    for l in v {
        s.push_str(&l);
        s.push('\n');
    }
    s
}

/// `-S [chain [rulenum]]`, with `-v` counters. A whole table without counters is the
/// handle's shared text, written out without being joined.
pub(super) fn list_rules(
    family: IpFamily,
    ipt: &IpTables,
    t: &str,
    chain: Option<&str>,
    rulenum: Option<u32>,
    counters: bool,
) -> Result<Text, Fail> {
    let kerr = |e: Error| kernel_err(family, &e);
    let one = |ch: &str| {
        if counters {
            ipt.list_with_counters(t, ch)
        } else {
            ipt.list(t, ch)
        }
    };
    match chain {
        Some(ch) => {
            let l = match one(ch) {
                Ok(l) => l,
                Err(Error::NotFound { .. }) => return Err(op_err(family, NO_CHAIN)),
                Err(e) => return Err(kerr(e)),
            };
            Ok(match rulenum {
                None => lines(l),
                Some(n) => l
                    .get(n as usize)
                    .map(|x| format!("{x}\n"))
                    .unwrap_or_default(),
            }
            .into())
        }
        // One consistent read of the table, not a read per chain.
        None if counters => Ok(lines(ipt.list_table_with_counters(t).map_err(kerr)?).into()),
        None => ipt.list_table_shared(t).map(Text::Table).map_err(kerr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_columns() {
        assert_eq!(num(99999, false, true), "99999 ");
        assert_eq!(num(123456, false, true), " 123K ");
        assert_eq!(num(987654321, false, true), " 988M ");
        assert_eq!(num(5_000_000_000_000_000, false, true), "5000T ");
        assert_eq!(num(987654321, true, true), "987654321 ");
        assert_eq!(num(0, true, true), "       0 ");
        assert_eq!(num(123456, false, false), "123K ");
    }
}
