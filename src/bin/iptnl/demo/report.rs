//! The demo's report: what each column is, the table, what could not be had here and why,
//! and a verdict that goes through every row of the table.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use iptnl::nft::error::group_thousands;
use iptnl::workload::KubeProxyStats;

use super::measure::{fmt_dur, fmt_mem, ROUNDS};
use super::model::{Cell, Column, How, Kind, Lowered, OP_CHAIN};

pub(super) struct Report<'a> {
    pub(super) ipv6: bool,
    pub(super) stats: &'a KubeProxyStats,
    pub(super) lowered: Option<&'a Lowered>,
    pub(super) columns: &'a [Column],
    pub(super) skipped: &'a [String],
    pub(super) batch: Option<&'a str>,
    pub(super) excerpt: Option<&'a str>,
}

/// The rows of the table: a label and each column's cell.
const ROWS: [&str; 8] = [
    "load (restore FILE)",
    "  the kernel's commit alone",
    "peak memory (VmHWM)",
    "append 1 rule (-A)",
    "check 1 rule (-C)",
    "delete 1 rule (-D)",
    "save whole ruleset",
    "rules in the save",
];

fn cell_of(c: &Column, row: usize) -> &Cell {
    match row {
        0 => &c.load,
        1 => &c.floor,
        2 => &c.mem,
        3..=5 => &c.ops[row - 3],
        6 => &c.save,
        _ => &c.saved_rules,
    }
}

fn how_words(c: &Column) -> &'static str {
    match c.how {
        How::Process => "process",
        How::Served => "served",
    }
}

/// The tool a column is headed with.
fn title(c: &Column) -> String {
    match c.kind {
        Kind::Iptnl => "iptnl".to_owned(),
        _ => c.tool.clone(),
    }
}

/// The footnotes of the cells that hold no figure: each distinct reason once.
#[derive(Default)]
struct Notes(Vec<(String, String)>);

impl Notes {
    fn mark(&mut self, kind: &str, text: &str) -> usize {
        if let Some(i) = self.0.iter().position(|(k, t)| k == kind && t == text) {
            return i + 1;
        }
        self.0.push((kind.to_owned(), text.to_owned()));
        self.0.len()
    }
}

fn render(cell: &Cell, notes: &mut Notes) -> String {
    match cell {
        Cell::Time(d) => fmt_dur(*d),
        Cell::Mem(k) => fmt_mem(*k),
        Cell::Count(n) => group_thousands(*n as u64),
        Cell::NotAvailable(w) => format!("not available ({})", notes.mark("not available", w)),
        Cell::Failed(e) => format!("failed ({})", notes.mark("failed", e)),
        Cell::Blank => "-".into(),
    }
}

pub(super) fn print(r: &Report) {
    let mut s = String::new();
    let g = |n: usize| group_thousands(n as u64);
    let st = r.stats;
    let _ = writeln!(
        s,
        "\nkube-proxy-style ruleset ({}): {} rules in {} chains — {} services × {} endpoints, {} NodePorts, {} services without endpoints",
        if r.ipv6 { "IPv6" } else { "IPv4" },
        g(st.rules),
        g(st.chains),
        g(st.services_with_eps),
        st.endpoints.checked_div(st.services_with_eps).unwrap_or(0),
        g(st.nodeports),
        g(st.services_noep),
    );
    if let Some(low) = r.lowered {
        let _ = writeln!(
            s,
            "lowered from {} rules: {}; for the full size, run as root or have root run `sysctl -w net.core.wmem_max={}`",
            g(low.asked),
            low.words(),
            iptnl::netlink::wmem_max_needed(low.bytes)
        );
    }
    let _ = writeln!(
        s,
        "each tool ran in its own fresh network namespace; the single commands work on nat {OP_CHAIN} ({} rules) after the load, median of {ROUNDS}\n",
        g(st.kube_services_nat_rules)
    );
    let _ = writeln!(
        s,
        "every figure is a whole process, a fork and exec of the command as a user runs it, e.g. `iptables-nft -t nat -A {OP_CHAIN} …`:\n\
         - process: the command run by itself, cold. iptnl's load is its restore of FILE (`iptnl __demo-load FILE`, iptables-restore's code), its commands the `iptables` name of this binary with IPTNL_DIRECT=1, its save `iptables-save`;\n\
         - served: the same `iptables` commands handed to an `iptnl serve` the demo started in that namespace (its start and one first listing of the chain are not timed);\n\
         - the kernel's commit alone: a process that sends iptnl's batch, planned beforehand, in one sendmsg and reads the kernel's answers: what any nf_tables load of this ruleset costs at least\n"
    );

    let mut notes = Notes::default();
    let cells: Vec<Vec<String>> = (0..ROWS.len())
        .map(|row| {
            r.columns
                .iter()
                .map(|c| render(cell_of(c, row), &mut notes))
                .collect()
        })
        .collect();
    let w0 = ROWS.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = r
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .chain([title(c).len(), how_words(c).len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    for head in [&|c: &Column| title(c), &|c: &Column| {
        how_words(c).to_owned() as String
    }] as [&dyn Fn(&Column) -> String; 2]
    {
        let mut line = format!("{:w0$}", "");
        for (c, w) in r.columns.iter().zip(&widths) {
            let _ = write!(line, "   {:>w$}", head(c), w = *w);
        }
        let _ = writeln!(s, "{}", line.trim_end());
    }
    for (label, row) in ROWS.iter().zip(&cells) {
        let mut line = format!("{label:w0$}");
        for (cell, w) in row.iter().zip(&widths) {
            let _ = write!(line, "   {cell:>w$}");
        }
        let _ = writeln!(s, "{line}");
    }
    for (i, (kind, text)) in notes.0.iter().enumerate() {
        let _ = writeln!(s, "({}) {kind}: {text}", i + 1);
    }
    for c in r.columns {
        if let Some(n) = &c.note {
            let _ = writeln!(s, "{} ({}): {n}", title(c), how_words(c));
        }
    }
    if let Some(b) = r.batch {
        let _ = writeln!(s, "\niptnl: {b}");
    }
    for sk in r.skipped {
        let _ = writeln!(s, "skipped {sk}");
    }
    if let Some(ex) = r.excerpt {
        let _ = writeln!(
            s,
            "\nthe nat table as iptnl saves it (first 15 lines):\n{ex}\n…"
        );
    }
    s.push('\n');
    verdict(&mut s, r);
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

/// "1.9× faster than", "1.6× slower than" or "even with": `ours` against `theirs`.
fn speed(ours: Duration, theirs: Duration) -> (String, bool) {
    let r = theirs.as_secs_f64() / ours.as_secs_f64().max(1e-9);
    let x = |v: f64| {
        if v < 2.0 {
            format!("{v:.2}×")
        } else {
            format!("{v:.1}×")
        }
    };
    if r >= 1.03 {
        (format!("{} faster than", x(r)), false)
    } else if r <= 1.0 / 1.03 {
        (format!("{} slower than", x(1.0 / r)), true)
    } else {
        ("even (within 3%) with".to_owned(), false)
    }
}

/// The verdict: one line per row of the table, then where iptnl is slower.
fn verdict(s: &mut String, r: &Report) {
    let cols = r.columns;
    let Some(ours) = cols
        .iter()
        .find(|c| c.kind == Kind::Iptnl && c.how == How::Process)
    else {
        return;
    };
    let served = cols
        .iter()
        .find(|c| c.kind == Kind::Iptnl && c.how == How::Served);
    let others: Vec<&Column> = cols.iter().filter(|c| c.kind != Kind::Iptnl).collect();
    let Some(our_load) = ours.load.time() else {
        let _ = writeln!(s, "iptnl could not load the ruleset (see above)");
        return;
    };
    let mut slower: Vec<String> = Vec::new();
    let mut not_compared: Vec<String> = Vec::new();
    let _ = writeln!(
        s,
        "verdict, row by row (lower is better; a single run of each load, so differences of a few percent are noise):"
    );

    // Load.
    let mut parts = Vec::new();
    for o in &others {
        match o.load.time() {
            Some(t) => {
                let (w, slow) = speed(our_load, t);
                if slow {
                    slower.push(format!("the load, against {}", o.restore));
                }
                parts.push(format!("{w} {} ({})", o.restore, fmt_dur(t)));
            }
            None => not_compared.push(format!("{}'s load", o.restore)),
        }
    }
    let mut line = format!(
        "- load: iptnl {} rules in {}",
        group_thousands(r.stats.rules as u64),
        fmt_dur(our_load)
    );
    if !parts.is_empty() {
        let _ = write!(line, ": {}", parts.join("; "));
    }
    line.push('.');
    if let Some(floor) = ours.floor.time() {
        let ratio = our_load.as_secs_f64() / floor.as_secs_f64().max(1e-9);
        let legacy = others
            .iter()
            .find(|o| o.kind == Kind::Legacy)
            .and_then(|o| o.load.time().map(|t| (o, t)));
        match legacy {
            Some((o, t)) if t < floor => {
                let _ = write!(
                    line,
                    " {} {} is faster than any nf_tables load: the kernel alone takes {} to commit this batch (x_tables replaces a table as one blob; nf_tables checks every rule and chain of the batch), and iptnl {} is {ratio:.2}× that floor.",
                    o.restore,
                    fmt_dur(t),
                    fmt_dur(floor),
                    fmt_dur(our_load)
                );
            }
            Some((o, t)) if t < our_load => {
                let _ = write!(
                    line,
                    " The kernel alone takes {} to commit this batch, less than {} {}: iptnl {} is {ratio:.2}× that floor, and its own part (starting, reading, parsing, planning, encoding) is where it loses.",
                    fmt_dur(floor),
                    o.restore,
                    fmt_dur(t),
                    fmt_dur(our_load)
                );
            }
            _ => {
                let _ = write!(
                    line,
                    " The kernel alone takes {} to commit this batch: iptnl is {ratio:.2}× that floor.",
                    fmt_dur(floor)
                );
            }
        }
    }
    let _ = writeln!(s, "{line}");

    // Memory.
    if let Cell::Mem(our) = ours.mem {
        let mut parts = Vec::new();
        for o in &others {
            match o.mem {
                Cell::Mem(k) if k > 0 => {
                    let pct = our as f64 * 100.0 / k as f64;
                    if pct > 103.0 {
                        slower.push(format!("peak memory of the load, against {}", o.restore));
                        parts.push(format!(
                            "{:.2}× as much as {} ({})",
                            pct / 100.0,
                            o.restore,
                            fmt_mem(k)
                        ));
                    } else {
                        parts.push(format!("{pct:.0}% of {}'s ({})", o.restore, fmt_mem(k)));
                    }
                }
                _ => not_compared.push(format!("{}'s memory", o.restore)),
            }
        }
        let mut line = format!("- peak memory of the load: iptnl {}", fmt_mem(our));
        if !parts.is_empty() {
            let _ = write!(line, ", {}", parts.join("; "));
        }
        if let Some(Cell::Mem(k)) = served.map(|c| &c.mem) {
            let _ = write!(
                line,
                "; the server, which keeps the table it read, peaked at {}",
                fmt_mem(*k)
            );
        }
        let _ = writeln!(s, "{line}.");
    }

    // Single commands.
    for (i, name) in ["append", "check", "delete"].iter().enumerate() {
        let mut ways = Vec::new();
        for c in [Some(ours), served].into_iter().flatten() {
            let Some(t) = c.ops[i].time() else {
                not_compared.push(format!("iptnl's {name} {}", how_words(c)));
                continue;
            };
            let mut parts = Vec::new();
            for o in &others {
                if let Some(u) = o.ops[i].time() {
                    let (w, slow) = speed(t, u);
                    if slow {
                        let way = if c.how == How::Served {
                            "served"
                        } else {
                            "as a process"
                        };
                        slower.push(format!("{name} {way}, against {}", o.tool));
                    }
                    parts.push(format!("{w} {} ({})", o.tool, fmt_dur(u)));
                }
            }
            let mut w = format!(
                "{} {}",
                if c.how == How::Served {
                    "served"
                } else {
                    "as a process"
                },
                fmt_dur(t)
            );
            if !parts.is_empty() {
                let _ = write!(w, ", {}", parts.join(", "));
            }
            ways.push(w);
        }
        for o in &others {
            if o.ops[i].time().is_none() {
                not_compared.push(format!("{}'s {name}", o.tool));
            }
        }
        if !ways.is_empty() {
            let _ = writeln!(s, "- {name} 1 rule: iptnl {}.", ways.join("; "));
        }
    }

    // Save.
    if let Some(t) = ours.save.time() {
        let mut parts = Vec::new();
        for o in &others {
            match o.save.time() {
                Some(u) => {
                    let (w, slow) = speed(t, u);
                    if slow {
                        slower.push(format!("the save, against {}", o.save_name));
                    }
                    parts.push(format!("{w} {} ({})", o.save_name, fmt_dur(u)));
                }
                None => not_compared.push(o.save_name.clone()),
            }
        }
        let mut line = format!("- save: {} {}", ours.save_name, fmt_dur(t));
        if !parts.is_empty() {
            let _ = write!(line, ", {}", parts.join(", "));
        }
        let _ = writeln!(s, "{line}.");
    }

    // Rules in the save.
    let counted: Vec<(&str, usize)> = [ours]
        .into_iter()
        .chain(others.iter().copied())
        .filter_map(|c| match c.saved_rules {
            Cell::Count(n) => Some((c.save_name.as_str(), n)),
            _ => None,
        })
        .collect();
    if !counted.is_empty() {
        let want = r.stats.rules;
        let off: Vec<String> = counted
            .iter()
            .filter(|(_, n)| *n != want)
            .map(|(name, n)| format!("{name} {}", group_thousands(*n as u64)))
            .collect();
        let names: Vec<&str> = counted.iter().map(|(n, _)| *n).collect();
        let _ = if off.is_empty() {
            writeln!(
                s,
                "- rules in the save: {} each saved all {} rules.",
                names.join(", "),
                group_thousands(want as u64)
            )
        } else {
            writeln!(
                s,
                "- rules in the save: {} rules were loaded, but saved: {}.",
                group_thousands(want as u64),
                off.join(", ")
            )
        };
    }

    if others.is_empty() {
        let _ = writeln!(
            s,
            "nothing to compare with: {}",
            if r.skipped.is_empty() {
                "no other tool ran".to_owned()
            } else {
                r.skipped.join("; ")
            }
        );
    } else if slower.is_empty() {
        let _ = writeln!(
            s,
            "iptnl is slower or bigger in no row that could be compared here."
        );
    } else {
        let _ = writeln!(
            s,
            "iptnl is slower or bigger here in: {}.",
            slower.join("; ")
        );
    }
    if !not_compared.is_empty() {
        let _ = writeln!(
            s,
            "not compared (not available here, see the notes under the table): {}.",
            not_compared.join(", ")
        );
    }
}
