//! Reader floors against the iptables-nft releases themselves: iptables 1.8.7 (Debian 11),
//! 1.8.9 (the system's), 1.8.11 (Debian 13) and 1.8.13 (Debian unstable), installed beside
//! the system's iptables by `scripts/oracles.sh` (in `$IPTNL_ORACLES`, by default
//! `/var/cache/iptnl-oracles`; a release that is not there is skipped, and says so).
//!
//! The interop matrix: every rule of iptables' own tests (`extensions/*.t` of its sources:
//! `$IPTABLES_SRC`, or the `aosp-mirror+platform_external_iptables` snapshot the conformance
//! runners use, in `$MIRRORS` or a `.mirror` folder above this checkout; the test is skipped
//! without them, and says so) that iptnl accepts, written by iptnl at each floor and by each
//! release, and read by each release and by iptnl. A reader reads a rule back exactly when
//! it shows it as it shows its own write of the same rule; iptnl's reading is its own
//! reading of its own write, and its `-C` finds the rule and `-D` deletes it. Each floor's
//! rules must be read exactly by every release from the floor on, and
//! `ipt::readers::read_as` must say exactly which other rules a release misreads.
//!
//! `IPTNL_MATRIX_REPORT=FILE` writes the matrix (writer × reader, rules read back
//! exactly) as a Markdown table to FILE.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use iptnl::ipt::ext::NoSets;
use iptnl::ipt::readers::{read_as, Reading};
use iptnl::ipt::{decode_rule_or_raw, IpFamily, ReaderFloor};
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::netlink::Conn;
use iptnl::nft::{list_chains_and_rules, Rule};

/// Where `scripts/oracles.sh` installs the releases.
fn oracles_dir() -> PathBuf {
    std::env::var_os("IPTNL_ORACLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/cache/iptnl-oracles"))
}

/// An iptables-nft release that reads and writes.
#[derive(Clone)]
struct Release {
    version: &'static str,
    floor: ReaderFloor,
    /// Its `iptables` (or `ip6tables`) directory, or `None` for the system's.
    dir: Option<PathBuf>,
}

impl Release {
    fn tool(&self, f: IpFamily, what: &str) -> String {
        let base = match f {
            IpFamily::V4 => "iptables",
            IpFamily::V6 => "ip6tables",
        };
        match &self.dir {
            Some(d) => d
                .join(format!("{base}{what}"))
                .to_string_lossy()
                .into_owned(),
            None => format!("{base}-nft{what}"),
        }
    }
}

/// The releases installed here (and the reason each missing one is skipped).
fn releases() -> Vec<Release> {
    let mut out = Vec::new();
    for (version, floor) in [
        ("1.8.7", ReaderFloor::V1_8_7),
        ("1.8.9", ReaderFloor::V1_8_9),
        ("1.8.11", ReaderFloor::V1_8_11),
        ("1.8.13", ReaderFloor::V1_8_13),
    ] {
        let r = if version == "1.8.9" {
            Release {
                version,
                floor,
                dir: None,
            }
        } else {
            Release {
                version,
                floor,
                dir: Some(oracles_dir().join(version).join("bin")),
            }
        };
        let ok = Command::new(r.tool(IpFamily::V4, ""))
            .arg("-V")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(&format!("v{version}")));
        if ok {
            out.push(r);
        } else {
            eprintln!(
                "skipping iptables {version}: not installed (scripts/oracles.sh installs it into {})",
                oracles_dir().display()
            );
        }
    }
    out
}

/// iptables' sources holding `extensions/*.t`: a git snapshot (a bare repository) or an
/// unpacked release tree.
#[derive(Clone, Debug)]
enum Sources {
    Git(PathBuf),
    Tree(PathBuf),
}

impl Sources {
    fn at(path: PathBuf) -> Option<Sources> {
        if path.join("extensions").is_dir() {
            Some(Sources::Tree(path))
        } else if path.join("HEAD").exists() {
            Some(Sources::Git(path))
        } else {
            None
        }
    }

    fn display(&self) -> String {
        match self {
            Sources::Git(p) | Sources::Tree(p) => p.display().to_string(),
        }
    }

    /// The names of the `.t` files under `extensions/`.
    fn t_files(&self) -> Vec<String> {
        match self {
            Sources::Git(g) => git(g, &["ls-tree", "--name-only", "HEAD", "extensions/"])
                .unwrap_or_default()
                .lines()
                .filter_map(|n| n.strip_prefix("extensions/"))
                .filter(|n| n.ends_with(".t"))
                .map(str::to_owned)
                .collect(),
            Sources::Tree(t) => {
                let mut v: Vec<String> = std::fs::read_dir(t.join("extensions"))
                    .map(|d| {
                        d.flatten()
                            .filter_map(|e| e.file_name().into_string().ok())
                            .filter(|n| n.ends_with(".t"))
                            .collect()
                    })
                    .unwrap_or_default();
                v.sort();
                v
            }
        }
    }

    fn read(&self, name: &str) -> String {
        match self {
            Sources::Git(g) => {
                git(g, &["show", &format!("HEAD:extensions/{name}")]).unwrap_or_default()
            }
            Sources::Tree(t) => {
                std::fs::read_to_string(t.join("extensions").join(name)).unwrap_or_default()
            }
        }
    }
}

/// Where iptables' sources are: `$IPTABLES_SRC` (a git snapshot or an unpacked tree), a
/// mirror of them, or the 1.8.11 release tree `scripts/oracles.sh` unpacks beside the
/// releases (`$IPTNL_ORACLES/src/iptables-1.8.11`, as `.ci/run` does).
fn sources() -> Option<Sources> {
    if let Some(s) = std::env::var_os("IPTABLES_SRC") {
        return Sources::at(PathBuf::from(s));
    }
    if let Some(m) = std::env::var_os("MIRRORS") {
        let c = Path::new(&m).join("aosp-mirror+platform_external_iptables/repo");
        if let Some(s) = Sources::at(c) {
            return Some(s);
        }
    }
    let mut dir = Some(Path::new(env!("CARGO_MANIFEST_DIR")));
    while let Some(d) = dir {
        let c = d.join(".mirror/aosp-mirror+platform_external_iptables/repo");
        if let Some(s) = Sources::at(c) {
            return Some(s);
        }
        dir = d.parent();
    }
    Sources::at(oracles_dir().join("src/iptables-1.8.11"))
}

fn git(src: &Path, args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .arg("--git-dir")
        .arg(src)
        .args(args)
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
}

/// One rule of a `.t` file that iptables-nft takes.
#[derive(Clone, Debug)]
struct Case {
    table: String,
    chain: String,
    rule: String,
}

/// The rules the nft variant of iptables-test.py expects to be taken (`OK`), per family.
fn cases(src: &Sources, family: IpFamily) -> Vec<Case> {
    let mut out = Vec::new();
    for base in src.t_files() {
        let fits = match family {
            IpFamily::V4 => base.starts_with("libxt_") || base.starts_with("libipt_"),
            IpFamily::V6 => base.starts_with("libxt_") || base.starts_with("libip6t_"),
        };
        if !fits {
            continue;
        }
        let text = src.read(&base);
        // Files that need commands run first (ipsets, interfaces) are left out.
        if text
            .lines()
            .any(|l| l.starts_with('@') || l.starts_with('%'))
        {
            continue;
        }
        let (mut table, mut chain) = ("filter".to_owned(), String::new());
        for line in text.lines() {
            if let Some(t) = line.strip_prefix('*') {
                table = t.trim().to_owned();
                continue;
            }
            if let Some(c) = line.strip_prefix(':') {
                chain = c.split(',').next().unwrap_or("").trim().to_owned();
                continue;
            }
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let parts: Vec<&str> = line.split(';').collect();
            if parts.len() < 3 {
                continue;
            }
            let res = match (parts.get(3), parts[2]) {
                (Some(v), r) if v.eq_ignore_ascii_case("NFT") => r,
                (Some(_), r) => match parts.get(4) {
                    Some(alt) => alt,
                    None => match r {
                        "OK" => "FAIL",
                        "FAIL" => "OK",
                        "NOMATCH" => "OK",
                        x => x,
                    },
                },
                (None, r) => r,
            };
            if res == "OK" && !chain.is_empty() {
                out.push(Case {
                    table: table.clone(),
                    chain: chain.clone(),
                    rule: parts[0].trim().to_owned(),
                });
            }
        }
    }
    out
}

/// A writer: iptnl at a floor, or a release.
#[derive(Clone)]
enum Writer {
    Iptnl(ReaderFloor),
    Release(Release),
}

impl Writer {
    fn name(&self) -> String {
        match self {
            Writer::Iptnl(f) => format!("iptnl at floor {f}"),
            Writer::Release(r) => format!("iptables {}", r.version),
        }
    }
}

/// The restore input of `ids` (of `cases`), one table after the other.
fn input(cases: &[Case], ids: &[usize]) -> String {
    let mut by_table: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in ids {
        by_table.entry(&cases[i].table).or_default().push(i);
    }
    let mut s = String::new();
    for (t, v) in by_table {
        s.push_str(&format!("*{t}\n"));
        for i in v {
            s.push_str(&format!("-A {} {}\n", cases[i].chain, cases[i].rule));
        }
        s.push_str("COMMIT\n");
    }
    s
}

/// The input line a restore error names (`line N`, `Error occurred at line: N`).
fn failed_line(err: &str) -> Option<usize> {
    for pat in ["Error occurred at line: ", "line "] {
        for (i, _) in err.match_indices(pat) {
            let rest = &err[i + pat.len()..];
            let n: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(n) = n.parse() {
                return Some(n);
            }
        }
    }
    None
}

/// Writes `ids` with `w` into the current namespace, leaving out the rules it refuses (a
/// rule its release does not know, or the kernel lacks); returns those written, in order.
fn write(w: &Writer, family: IpFamily, cases: &[Case], ids: &[usize]) -> Vec<usize> {
    let mut ids = ids.to_vec();
    loop {
        // Table order as in the input: line numbers map back to ids.
        let mut order: Vec<usize> = ids.clone();
        order.sort_by_key(|&i| cases[i].table.clone());
        let Err(err) = restore_as(w, family, &input(cases, &order)) else {
            return order;
        };
        // Map the line back to its rule: lines are `*table`, rules, `COMMIT` per table.
        let line = failed_line(&err);
        let mut n = 0;
        let mut culprit = None;
        let mut last_table = None;
        for &i in &order {
            if last_table != Some(&cases[i].table) {
                if last_table.is_some() {
                    n += 1; // COMMIT
                }
                n += 1; // *table
                last_table = Some(&cases[i].table);
            }
            n += 1;
            if Some(n) == line {
                culprit = Some(i);
            }
        }
        match culprit {
            Some(i) => ids.retain(|&x| x != i),
            None => {
                // No rule named (a refusal at COMMIT): one rule at a time.
                let mut ok = Vec::new();
                for &i in &order {
                    if write_one(w, family, &cases[i]) {
                        ok.push(i);
                    }
                }
                return ok;
            }
        }
    }
}

fn write_one(w: &Writer, family: IpFamily, c: &Case) -> bool {
    let text = format!("*{}\n-A {} {}\nCOMMIT\n", c.table, c.chain, c.rule);
    restore_as(w, family, &text).is_ok()
}

/// `iptables-restore --noflush` of `text` by the writer, or its error.
fn restore_as(w: &Writer, family: IpFamily, text: &str) -> Result<(), String> {
    match w {
        Writer::Iptnl(floor) => {
            let mut conn = Conn::open().unwrap();
            let opts = RestoreOptions {
                noflush: true,
                floor: Some(*floor),
                ..RestoreOptions::default()
            };
            restore(&mut conn, family, text, &opts)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        Writer::Release(r) => {
            let o = common::run_status(&r.tool(family, "-restore"), &["--noflush"], Some(text));
            if o.status.success() {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&o.stderr).into_owned())
            }
        }
    }
}

/// What a release's save shows, per table: the `-A` lines of each chain in order, or
/// `None` for a table it does not show (incompatible, or a failed save).
type Shown = BTreeMap<(String, String), Vec<String>>;

fn save_of(r: &Release, family: IpFamily) -> (Shown, Vec<String>) {
    let o = common::run_status(&r.tool(family, "-save"), &[], None);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut shown = Shown::new();
    let mut refused = Vec::new();
    let mut table = String::new();
    let mut complete = false;
    for l in text.lines() {
        if let Some(t) = l.strip_prefix('*') {
            table = t.to_owned();
            complete = false;
        } else if l == "COMMIT" {
            complete = true;
        } else if let Some(rest) = l.strip_prefix("-A ") {
            let chain = rest.split(' ').next().unwrap_or("").to_owned();
            // iptables 1.8.7 ends its rule lines with a blank.
            shown
                .entry((table.clone(), chain))
                .or_default()
                .push(l.trim_end().to_owned());
        } else if l.starts_with("# Table `") && l.contains("incompatible") {
            let t = l.trim_start_matches("# Table `");
            refused.push(t.split('\'').next().unwrap_or("").to_owned());
        }
    }
    if !complete && !table.is_empty() {
        refused.push(table);
    }
    (shown, refused)
}

/// The kernel's rules, per table and chain, in order.
fn kernel_rules(family: IpFamily) -> BTreeMap<(String, String), Vec<Rule>> {
    let mut conn = Conn::open().unwrap();
    let (_, rules, _) = list_chains_and_rules(&mut conn, Some(family.nft()), None).unwrap();
    let mut out: BTreeMap<(String, String), Vec<Rule>> = BTreeMap::new();
    for r in rules {
        out.entry((r.table.clone(), r.chain.clone()))
            .or_default()
            .push(r);
    }
    out
}

/// For each written id: (table, chain, index in chain).
fn places(cases: &[Case], written: &[usize]) -> BTreeMap<usize, (String, String, usize)> {
    let mut count: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for &i in written {
        let k = (cases[i].table.clone(), cases[i].chain.clone());
        let n = count.entry(k.clone()).or_default();
        out.insert(i, (k.0, k.1, *n));
        *n += 1;
    }
    out
}

/// What one writer's namespace shows.
struct Written {
    ids: Vec<usize>,
    /// Per release version: each written id's line (None: not shown).
    lines: BTreeMap<&'static str, BTreeMap<usize, Option<String>>>,
    /// iptnl's line of each id, and whether its -C found and its -D deleted the rule.
    iptnl: BTreeMap<usize, (String, bool)>,
    /// Per release version: each id's line as `read_as` predicts it (None: cannot tell).
    predicted: BTreeMap<&'static str, BTreeMap<usize, Option<String>>>,
    /// Per release version: the tables it refused to show.
    refused: BTreeMap<&'static str, Vec<String>>,
}

fn run_writer(
    w: &Writer,
    rels: &[Release],
    family: IpFamily,
    cases: &[Case],
    ids: &[usize],
) -> Written {
    common::in_netns(|| {
        let written = write(w, family, cases, ids);
        let at = places(cases, &written);
        let kernel = kernel_rules(family);
        let mut lines = BTreeMap::new();
        let mut predicted = BTreeMap::new();
        let mut refusals = BTreeMap::new();
        for r in rels {
            let (shown, refused) = save_of(r, family);
            let mut m = BTreeMap::new();
            let mut p = BTreeMap::new();
            for (&i, (t, c, n)) in &at {
                let line = if refused.contains(t) {
                    None
                } else {
                    shown
                        .get(&(t.clone(), c.clone()))
                        .and_then(|v| v.get(*n))
                        .cloned()
                };
                m.insert(i, line);
                let rule = kernel.get(&(t.clone(), c.clone())).and_then(|v| v.get(*n));
                let guess = rule.and_then(|k| match read_as(k, family, r.floor, &NoSets) {
                    Reading::Rule(s) => Some(Some(s.to_save_line(c, false))),
                    Reading::Incompatible { .. } | Reading::Unreadable(_) => Some(None),
                    Reading::Unknown => None,
                });
                p.insert(i, guess.flatten());
            }
            lines.insert(r.version, m);
            predicted.insert(r.version, p);
            refusals.insert(r.version, refused);
        }
        // iptnl reads, checks and deletes.
        let ipt = iptnl::IpTables::from_conn(family, Conn::open().unwrap());
        let mut mine = BTreeMap::new();
        for (&i, (t, c, n)) in &at {
            let rule = kernel.get(&(t.clone(), c.clone())).and_then(|v| v.get(*n));
            let text = rule.map(|k| {
                let s = decode_rule_or_raw(k, family);
                s.view.as_deref().unwrap_or(&s).to_save_line(c, false)
            });
            let found = ipt.exists(t, c, cases[i].rule.as_str()).unwrap_or(false);
            mine.insert(i, (text.unwrap_or_default(), found));
        }
        for (&i, (t, c, _)) in at.iter().rev() {
            let deleted = ipt.delete(t, c, cases[i].rule.as_str()).is_ok();
            if let Some(e) = mine.get_mut(&i) {
                e.1 &= deleted;
            }
        }
        Written {
            ids: written,
            lines,
            iptnl: mine,
            predicted,
            refused: refusals,
        }
    })
}

#[test]
fn every_floor_is_read_exactly_by_its_readers() {
    let Some(src) = sources() else {
        eprintln!("skipping the interop matrix: no iptables sources (set IPTABLES_SRC to a git snapshot of them)");
        return;
    };
    let rels = releases();
    if rels.is_empty() {
        return;
    }
    // The referee of what a rule means: the newest release here.
    let referee = rels.last().unwrap().version;
    let mut report = format!(
        "| writer \\ reader | family | rules | {} | iptnl (-S, -C, -D) |\n|---|---|---|{}\n",
        rels.iter()
            .map(|r| format!("iptables {}", r.version))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(rels.len() + 1)
    );
    let mut failures = Vec::new();
    let mut no_form = Vec::new();
    let mut mistakes = Vec::new();
    for family in [IpFamily::V4, IpFamily::V6] {
        let fam = if family == IpFamily::V4 {
            "IPv4"
        } else {
            "IPv6"
        };
        let cases = cases(&src, family);
        assert!(!cases.is_empty(), "no .t rules in {}", src.display());
        let all: Vec<usize> = (0..cases.len()).collect();
        // The rules iptnl takes here (the kernel lacks a few extensions).
        let base = run_writer(
            &Writer::Iptnl(ReaderFloor::V1_8_9),
            &rels,
            family,
            &cases,
            &all,
        );
        let mut writers: Vec<(Writer, Written)> = Vec::new();
        for f in ReaderFloor::ALL {
            let w = Writer::Iptnl(f);
            let got = run_writer(&w, &rels, family, &cases, &base.ids);
            writers.push((w, got));
        }
        for r in &rels {
            let w = Writer::Release(r.clone());
            let got = run_writer(&w, &rels, family, &cases, &base.ids);
            writers.push((w, got));
        }
        let own: BTreeMap<&str, &Written> = writers
            .iter()
            .filter_map(|(w, got)| match w {
                Writer::Release(r) => Some((r.version, got)),
                Writer::Iptnl(_) => None,
            })
            .collect();
        let reference = &writers[ReaderFloor::ALL.len() - 1].1; // iptnl at 1.8.13
        for (w, got) in &writers {
            // What the writer wrote means what was asked when the newest release reads it
            // as it reads iptnl's newest write.
            let right = |i: usize| {
                got.lines[referee].get(&i).cloned().flatten()
                    == reference.lines[referee].get(&i).cloned().flatten()
            };
            let mut row = format!("| {} | {fam} | {} |", w.name(), got.ids.len());
            for r in &rels {
                let (mut exact, mut known) = (0, 0);
                for &i in &got.ids {
                    // Rules the reader itself writes: those it knows.
                    let Some(Some(own_line)) = own[r.version].lines[r.version].get(&i) else {
                        continue;
                    };
                    if !right(i) {
                        continue;
                    }
                    known += 1;
                    let seen = got.lines[r.version].get(&i).cloned().flatten();
                    let held = &got.iptnl[&i].0;
                    // Its own write counts as read exactly only where the release reads
                    // its own write exactly (1.8.7 and 1.8.9 misread `! --sport :` even so).
                    let mine = own[r.version];
                    let own_exact =
                        mine.predicted[r.version][&i].as_deref() == Some(mine.iptnl[&i].0.as_str());
                    let same = (own_exact && seen.as_deref() == Some(own_line.as_str()))
                        || seen.as_deref() == Some(held.as_str());
                    if same {
                        exact += 1;
                    }
                    let guess = &got.predicted[r.version][&i];
                    let says_exact = guess.as_deref() == Some(held.as_str());
                    // A table the release refuses to show is blamed on the rules the
                    // model names for it, not on the others there.
                    let table_refused =
                        seen.is_none() && got.refused[r.version].contains(&cases[i].table);
                    if says_exact != same && !(says_exact && table_refused) {
                        failures.push(format!(
                            "read_as({}) is wrong for `{}' written by {} ({fam}): it says {guess:?}, iptables {} shows {seen:?} (its own write: {own_line:?}); iptnl shows {held:?}",
                            r.version, cases[i].rule, w.name(), r.version
                        ));
                    }
                    if let Writer::Iptnl(f) = w {
                        if r.floor >= *f && !same {
                            if says_exact {
                                failures.push(format!(
                                    "iptables {} misreads `{}' written at floor {f} ({fam}): {seen:?} instead of {own_line:?}",
                                    r.version, cases[i].rule
                                ));
                            } else if *f == r.floor {
                                no_form.push(format!(
                                    "iptables {} ({fam}): `{}' (reads {:?}; the kernel holds {held:?})",
                                    r.version,
                                    cases[i].rule,
                                    seen.unwrap_or_default()
                                ));
                            }
                        }
                    }
                }
                row.push_str(&format!(" {exact}/{known} |"));
            }
            // iptnl reads as the newest release does; its -C finds and -D deletes each
            // rule that was written as asked.
            let (mut exact, mut n) = (0, 0);
            for &i in &got.ids {
                n += 1;
                let (text, checked) = &got.iptnl[&i];
                let referee_line = got.lines[referee].get(&i).cloned().flatten();
                let reads = referee_line.as_deref() == Some(text.as_str());
                if !right(i) {
                    if let Writer::Release(r) = w {
                        mistakes.push(format!(
                            "iptables {} ({fam}) writes `{}' as {:?}",
                            r.version, cases[i].rule, text
                        ));
                    }
                }
                if reads && (*checked || !right(i)) {
                    exact += 1;
                } else {
                    failures.push(format!(
                        "iptnl reads `{}' written by {} ({fam}) as {text:?} (iptables {referee}: {referee_line:?}); -C and -D {}",
                        cases[i].rule,
                        w.name(),
                        if *checked { "work" } else { "fail" }
                    ));
                }
            }
            row.push_str(&format!(" {exact}/{n} |\n"));
            report.push_str(&row);
        }
    }
    mistakes.sort();
    mistakes.dedup();
    no_form.sort();
    no_form.dedup();
    let text = format!(
        "{report}\nRules a release misreads in every form (check-readers names them):\n{}\n\nRules a release writes otherwise than asked:\n{}\n",
        no_form.join("\n"),
        mistakes.join("\n")
    );
    eprintln!("{text}");
    if let Some(f) = std::env::var_os("IPTNL_MATRIX_REPORT") {
        std::fs::write(f, &text).unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// kubernetes#112477: kubelet's `KUBE-FIREWALL` rule, which iptables 1.8.7 (in older
/// kube-proxy images) reads as a plain `-j DROP` when it was written natively, and then
/// writes back so on its next save and restore, dropping every packet. At floor 1.8.7,
/// iptables 1.8.7 reads it exactly; at floor 1.8.9, `check-readers --floor 1.8.7` names it.
#[test]
fn kubernetes_112477_kube_firewall_mark_rule() {
    const RULE: &[&str] = &[
        "-A",
        "KUBE-FIREWALL",
        "-m",
        "comment",
        "--comment",
        "kubernetes firewall for dropping marked packets",
        "-m",
        "mark",
        "--mark",
        "0x8000/0x8000",
        "-j",
        "DROP",
    ];
    const HELD: &str = "-A KUBE-FIREWALL -m comment --comment \"kubernetes firewall for dropping marked packets\" -m mark --mark 0x8000/0x8000 -j DROP";
    const MISREAD: &str = "-A KUBE-FIREWALL -m comment --comment \"kubernetes firewall for dropping marked packets\" -j DROP";
    let bin = env!("CARGO_BIN_EXE_iptnl");
    let old = releases().into_iter().find(|r| r.version == "1.8.7");
    let write = |floor: &str| {
        for args in [&["-N", "KUBE-FIREWALL"][..], RULE] {
            let mut a = vec!["iptables", "--reader-floor", floor];
            a.extend_from_slice(args);
            let o = common::run_status(bin, &a, None);
            assert!(o.status.success(), "{a:?}: {o:?}");
        }
    };
    let rules_of = |tool: &str| {
        common::run(tool, &["-S", "KUBE-FIREWALL"])
            .lines()
            .filter(|l| l.starts_with("-A"))
            .map(|l| l.trim_end().to_owned())
            .collect::<Vec<_>>()
    };
    common::in_netns(|| {
        write("1.8.7");
        if let Some(r) = &old {
            assert_eq!(rules_of(&r.tool(IpFamily::V4, "")), [HELD]);
            // A save and restore by 1.8.7 gives the rule back as it was.
            let saved = common::run(&r.tool(IpFamily::V4, "-save"), &[]);
            let o = common::run_status(&r.tool(IpFamily::V4, "-restore"), &[], Some(&saved));
            assert!(o.status.success(), "{o:?}");
            assert_eq!(rules_of(&r.tool(IpFamily::V4, "")), [HELD]);
        }
        let o = common::run_status(bin, &["check-readers", "--floor", "1.8.7", "-4"], None);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
    });
    common::in_netns(|| {
        write("1.8.9");
        if let Some(r) = &old {
            assert_eq!(rules_of(&r.tool(IpFamily::V4, "")), [MISREAD]);
        }
        let o = common::run_status(bin, &["check-readers", "--floor", "1.8.7", "-4"], None);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains(&format!(
                "ip filter KUBE-FIREWALL rule 1: iptables 1.8.7 reads `{MISREAD}'; the kernel holds `{HELD}'"
            )),
            "{out}"
        );
        let o = common::run_status(bin, &["check-readers", "--floor", "1.8.9", "-4"], None);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
    });
}
