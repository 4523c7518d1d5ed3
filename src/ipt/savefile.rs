//! The iptables-save format, as `iptables-nft-save` prints it: tables in iptables' order,
//! built-in chains with policy and counters (shown as `ACCEPT [0:0]` when they do not exist
//! yet), user chains sorted by name, then the rules chain by chain. This formats chains and
//! rules given as data; reading them from the kernel is the agent layer's
//! (`iptnl::iptables::save`).
//! A rule iptables cannot express is saved whole (`-m nft --nft-rule HEX`, see
//! [`super::raw`]) after a comment line that says what it does, so that restoring the save
//! gives it back exactly (iptables-nft-save 1.8.9 drops the whole table instead).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use super::decode::{decode_rule_exact_at, viewed_raw_spec};
use super::ext::{NoSets, SetIndex};
use super::floor::ReaderFloor;
use super::tables::{find_table, hook_name};
use super::IpFamily;
use crate::nft::{BoundSet, Chain, Policy, Rule};

/// The start of the comment line a save puts before each rule that has no iptables form
/// (the rule itself follows as `-A CHAIN -m nft --nft-rule HEX`, see [`super::raw`]).
pub const RAW_NOTE: &str = "# The next rule has no iptables form";

/// The comment line a save puts before a rule that iptables shows as an iptables rule but
/// that is not laid out as iptnl writes it at the save's reader floor (`nft` wrote it, or
/// an iptables-nft release of another layout; see [`RuleSpec::view`](super::RuleSpec::view)),
/// followed by the rule's content as `--nft-rule` takes it (see [`super::raw`]). The line
/// after it is that iptables form, which `iptables-nft-restore` reads (it skips comments);
/// iptnl's restore writes the rule back exactly as it was when that line is still the rule's
/// iptables form (an edited line is restored as edited).
pub const NATIVE_NOTE: &str =
    "# The next rule is not laid out as iptnl writes it; iptnl restores it exactly: ";

/// The same note as written by earlier iptnl releases (still read by a restore).
pub const OLD_NATIVE_NOTE: &str = "# The next rule was written by nft; iptnl restores it exactly: ";

/// Whether a save's text holds rules without an iptables form (for the warning the tools
/// print on standard error).
///
/// ```
/// assert!(!iptnl::ipt::savefile::has_raw_rules("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n"));
/// ```
pub fn has_raw_rules(text: &str) -> bool {
    text.contains(RAW_NOTE)
}

/// Options of a save.
#[derive(Debug, Clone, Default)]
pub struct SaveOptions {
    /// `-c`: print rule counters as `[packets:bytes]`.
    pub counters: bool,
    /// `-t`: only this table.
    pub table: Option<String>,
    /// The reader floor the save is for ([`ReaderFloor`]): a rule not laid out as iptnl
    /// writes it at that floor is saved with its bytes ([`NATIVE_NOTE`]), so that a restore
    /// at the floor gives it back exactly. `None`: the default of the running kernel.
    pub floor: Option<ReaderFloor>,
}

/// The tool name in the header: `iptables-nft-save` or `ip6tables-nft-save`.
fn tool(family: IpFamily) -> &'static str {
    match family {
        IpFamily::V4 => "iptables-nft-save",
        IpFamily::V6 => "ip6tables-nft-save",
    }
}

/// The version iptnl's save says it is: the iptables release whose behaviour it follows.
pub const SAVE_VERSION: &str = "v1.8.11";

/// A date as `ctime` prints it (`Mon Nov 30 08:37:22 2026`), in UTC.
pub fn ctime(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(m - 1) as usize],
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        y
    )
}

/// `text` on one line: names and expressions read from the kernel may hold line breaks
/// (`nft` takes any bytes), which would end a comment line of the save and start a line a
/// restore reads.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\n', '\r']) {
        text.replace(['\n', '\r'], " ").into()
    } else {
        text.into()
    }
}

/// Formats one table from its chains and rules (as read from the kernel). A rule that names
/// an ipset is saved whole here (see [`NoSets`]): [`TableFormat`] resolves set indexes.
///
/// ```
/// use iptnl::ipt::savefile::format_table;
/// use iptnl::ipt::IpFamily;
/// let text = format_table(IpFamily::V4, "filter", &[], &[], false, "DATE");
/// assert!(text.contains(":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n"));
/// ```
pub fn format_table(
    family: IpFamily,
    table: &str,
    chains: &[Chain],
    rules: &[Rule],
    counters: bool,
    date: &str,
) -> String {
    TableFormat {
        family,
        counters,
        date,
        sets: &NoSets,
        floor: ReaderFloor::UNPINNED,
    }
    .table(table, chains, rules)
}

/// The anonymous sets of a table, by the name the kernel gave them (rules without an
/// iptables form that use them are saved with their elements).
pub type AnonSets = HashMap<String, BoundSet>;

/// How tables are saved: the family, whether rule counters are shown, the date of the
/// header and footer lines, and the ipsets rules may name. [`table`](Self::table) formats a
/// whole table given as data; the pieces (head, the rules of a chain, tail) let a caller
/// format a table chain by chain as it reads it.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::savefile::TableFormat;
/// use iptnl::ipt::IpFamily;
/// let f = TableFormat { family: IpFamily::V4, counters: false, date: "DATE", sets: &NoSets, floor: iptnl::ipt::ReaderFloor::V1_8_9 };
/// let mut out = String::new();
/// let (order, foreign) = f.head("nat", &[], &mut out);
/// assert_eq!(order, ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"]);
/// assert!(foreign.is_empty());
/// f.tail(&mut out);
/// assert!(out.ends_with("*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n# Completed on DATE\n"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TableFormat<'a> {
    /// The family.
    pub family: IpFamily,
    /// `-c`: print rule counters as `[packets:bytes]`.
    pub counters: bool,
    /// The date shown in the header and footer lines (see [`ctime`]).
    pub date: &'a str,
    /// The ipsets rules may name.
    pub sets: &'a dyn SetIndex,
    /// The reader floor: a rule laid out otherwise is saved with its bytes ([`NATIVE_NOTE`]).
    pub floor: ReaderFloor,
}

impl TableFormat<'_> {
    /// Formats one table from its chains and rules.
    pub fn table(&self, table: &str, chains: &[Chain], rules: &[Rule]) -> String {
        let mut out = String::with_capacity(64 + rules.len() * 96);
        let (order, foreign) = self.head(table, chains, &mut out);
        // Rules come chain by chain: group them by runs (one map entry per chain, not per rule).
        let mut by_chain: HashMap<&str, Vec<&Rule>> = HashMap::with_capacity(chains.len());
        let mut i = 0;
        while i < rules.len() {
            let name = rules[i].chain.as_str();
            let run = rules[i..].iter().take_while(|r| r.chain == name).count();
            by_chain.entry(name).or_default().extend(&rules[i..i + run]);
            i += run;
        }
        let rules_of = |name: &str| by_chain.get(name).map(Vec::as_slice).unwrap_or(&[]);
        for name in order {
            let rules = rules_of(name);
            self.rules(&mut out, name, rules.iter().copied(), &HashMap::new());
        }
        for c in foreign {
            self.foreign_chain(&mut out, c, rules_of(&c.name).iter().copied());
        }
        self.tail(&mut out);
        out
    }

    /// Appends the head of a table's save (comment lines, `*table`, the chain lines) to `out`,
    /// and returns the names of the chains whose rules follow, in order (built-in chains, then
    /// user chains by name), and the base chains iptables cannot express, by name, shown after
    /// them (see [`foreign_chain`](Self::foreign_chain)).
    pub fn head<'c>(
        &self,
        table: &str,
        chains: &'c [Chain],
        out: &mut String,
    ) -> (Vec<&'c str>, Vec<&'c Chain>) {
        let spec = find_table(table);
        let mut base: BTreeMap<&str, &Chain> = BTreeMap::new();
        let mut user: Vec<&Chain> = Vec::new();
        let mut foreign: Vec<&Chain> = Vec::new();
        for c in chains {
            match (&c.hook, spec.and_then(|t| t.builtin(&c.name))) {
                (Some(_), Some(b)) if b.matches(c) => {
                    base.insert(c.name.as_str(), c);
                }
                (Some(_), _) => foreign.push(c),
                (None, _) => user.push(c),
            }
        }
        user.sort_by(|a, b| a.name.cmp(&b.name));
        foreign.sort_by(|a, b| a.name.cmp(&b.name));
        if !foreign.is_empty() {
            let _ = writeln!(
                out,
                "# Table `{table}' contains incompatible base-chains, use 'nft' tool to list them."
            );
        }
        let _ = writeln!(
            out,
            "# Generated by {} {SAVE_VERSION} (nf_tables) on {}",
            tool(self.family),
            self.date
        );
        let _ = writeln!(out, "*{table}");
        let builtin_names: Vec<&str> = spec
            .map(|t| t.chains.iter().map(|c| c.name).collect())
            .unwrap_or_default();
        for name in &builtin_names {
            let (policy, (p, b)) = match base.get(name) {
                Some(c) => (
                    c.hook
                        .as_ref()
                        .and_then(|h| h.policy)
                        .unwrap_or(Policy::Accept),
                    c.counters.unwrap_or((0, 0)),
                ),
                None => (Policy::Accept, (0, 0)),
            };
            let _ = writeln!(out, ":{name} {policy} [{p}:{b}]");
        }
        for c in &user {
            let _ = writeln!(out, ":{} - [0:0]", c.name);
        }
        let order = builtin_names
            .iter()
            .copied()
            .chain(user.iter().map(|c| c.name.as_str()))
            .collect();
        (order, foreign)
    }

    /// Appends what a save shows of a base chain iptables cannot express: comment lines (a
    /// restore keeps such a chain and its rules as they are, and reads none of this).
    pub fn foreign_chain<'r>(
        &self,
        out: &mut String,
        chain: &Chain,
        rules: impl IntoIterator<Item = &'r Rule>,
    ) {
        let mut text = String::new();
        self.rules(&mut text, &chain.name, rules, &HashMap::new());
        let hook = chain.hook.as_ref();
        let _ = writeln!(
            out,
            "# Chain {} is a base chain iptables cannot express (hook {}, priority {}, type {}, policy {}); iptables-restore keeps it and its rules as they are:",
            one_line(&chain.name),
            hook_name(hook.map_or(u32::MAX, |h| h.num)),
            hook.map_or(0, |h| h.priority),
            hook.map_or("?", |h| h.chain_type.name()),
            hook.and_then(|h| h.policy).unwrap_or(Policy::Accept),
        );
        for line in text.lines() {
            let _ = writeln!(out, "#   {line}");
        }
    }

    /// Appends the save lines of the rules of chain `name`; `anon` holds the table's
    /// anonymous sets, for the rules without an iptables form that use them.
    pub fn rules<'r>(
        &self,
        out: &mut String,
        name: &str,
        rules: impl IntoIterator<Item = &'r Rule>,
        anon: &AnonSets,
    ) {
        let family = self.family;
        for r in rules {
            let spec = match decode_rule_exact_at(r, family, self.sets, self.floor) {
                Ok(spec) => spec,
                Err(f) => {
                    let raw = if r.uses_anonymous_sets() {
                        let mut with = r.clone();
                        with.bind_sets(anon);
                        viewed_raw_spec(&with, family, self.sets)
                    } else {
                        viewed_raw_spec(r, family, self.sets)
                    };
                    match (&raw.raw, &raw.view) {
                        (Some(x), Some(_)) => {
                            let _ = writeln!(out, "{NATIVE_NOTE}{}", x.to_hex());
                        }
                        (Some(x), None) => {
                            let _ = writeln!(
                                out,
                                "{RAW_NOTE} ({}), carried whole: {}",
                                one_line(&f.reason),
                                one_line(&x.describe())
                            );
                        }
                        _ => {}
                    }
                    raw
                }
            };
            out.push_str(&spec.to_save_line(name, self.counters));
            out.push('\n');
        }
    }

    /// Appends the end of a table's save.
    pub fn tail(&self, out: &mut String) {
        out.push_str("COMMIT\n");
        let _ = writeln!(out, "# Completed on {}", self.date);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_formats_like_libc() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_027_842);
        assert_eq!(ctime(t), "Mon Nov 30 08:37:22 2026");
        assert_eq!(ctime(std::time::UNIX_EPOCH), "Thu Jan  1 00:00:00 1970");
        let leap = std::time::UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(ctime(leap), "Tue Feb 29 00:00:00 2000");
    }
}
