//! The shape of the source tree: no source file over 1,000 lines, and no import cycle
//! between files (a file that names an item of another file's module, through `use` or a
//! `crate::`/`super::` path, depends on it; a module and the modules inside it are one
//! family and are not counted against each other).
//!
//! In `src/ipt/ext/` the extensions stand on a floor of their own, `ext/base/`: an
//! extension names nothing of `ext` but the floor (never another extension, nor the
//! registry in `ext/mod.rs`), and the floor names no extension.
//!
//! The files and cycles this was first measured with are listed below; the lists may only
//! shrink: an entry that no longer offends must be removed, and nothing may be added.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 1000;

/// Files over the limit when the check was written, to be split.
const LONG_FILES: &[&str] = &[];

/// Import cycles when the check was written, each as its set of files, to be broken.
const CYCLES: &[&[&str]] = &[];

/// The crates of the repository: the directory their module tree starts in, and the root
/// file.
const CRATES: &[(&str, &str)] = &[
    ("src", "src/lib.rs"),
    ("src/bin/iptnl", "src/bin/iptnl/main.rs"),
    ("sys/src", "sys/src/lib.rs"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every source file of the crates, relative to the repository.
fn sources() -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("sys/src"), &mut files);
    let mut v: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn no_source_file_is_over_1000_lines() {
    let mut long = BTreeMap::new();
    for f in sources() {
        let n = std::fs::read_to_string(root().join(&f))
            .unwrap()
            .lines()
            .count();
        if n > MAX_LINES {
            long.insert(f, n);
        }
    }
    let new: Vec<_> = long
        .iter()
        .filter(|(f, _)| !LONG_FILES.contains(&f.as_str()))
        .collect();
    assert!(
        new.is_empty(),
        "files over {MAX_LINES} lines (split them by what they hold): {new:?}"
    );
    let stale: Vec<_> = LONG_FILES
        .iter()
        .filter(|f| !long.contains_key(**f))
        .collect();
    assert!(
        stale.is_empty(),
        "no longer over {MAX_LINES} lines: remove them from LONG_FILES: {stale:?}"
    );
    eprintln!("files over {MAX_LINES} lines, still to split: {long:?}");
}

/// The crate a file belongs to (its directory and root), and its module path.
fn module_of(file: &str) -> Option<(usize, Vec<String>)> {
    let (k, (dir, rootfile)) = CRATES
        .iter()
        .enumerate()
        .filter(|(_, (d, _))| file.starts_with(&format!("{d}/")))
        .max_by_key(|(_, (d, _))| d.len())?;
    if file == *rootfile {
        return Some((k, Vec::new()));
    }
    let rel = file[dir.len() + 1..].strip_suffix(".rs")?;
    let mut path: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    Some((k, path))
}

/// The text of a file without comments, strings' insides and its inline test module.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod "))
        {
            break;
        }
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        // Drop string literals' contents (paths written in messages are not imports).
        let mut in_str = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' && prev != '\'' {
                in_str = !in_str;
                out.push(c);
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_owned()];
    };
    let prefix = tree[..open].trim();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(p).into_iter().map(move |e| format!("{prefix}{e}")))
        .collect()
}

/// The paths a file names: every `use` path, and every `crate::`/`super::` path in code.
fn paths_of(code: &str) -> Vec<(bool, Vec<String>)> {
    let mut out = Vec::new();
    let words: Vec<&str> = code.split_inclusive(';').collect();
    for stmt in words {
        let s = stmt.trim();
        // `use` statements, possibly after attributes or `pub`.
        if let Some(i) = s.find("use ") {
            let before = &s[..i];
            if before.trim().is_empty()
                || before.trim_end().ends_with("pub")
                || before.trim_end().ends_with(')')
                || before.trim_end().ends_with(']')
            {
                let tree = s[i + 4..].trim_end_matches(';');
                for p in expand(tree) {
                    let p = p.split(" as ").next().unwrap_or("").trim().to_owned();
                    out.push((true, p.split("::").map(str::to_owned).collect()));
                }
            }
        }
    }
    // Inline paths.
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start) {
            let at = from + i;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            let segs: Vec<String> = code[at..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            out.push((false, segs));
        }
    }
    out
}

/// The file-level import graph: for each file, the files of other module families it
/// names.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let files = sources();
    let mut by_module: BTreeMap<(usize, Vec<String>), String> = BTreeMap::new();
    for f in &files {
        if let Some(m) = module_of(f) {
            by_module.insert(m, f.clone());
        }
    }
    let mut graph = BTreeMap::new();
    for f in &files {
        let Some((krate, me)) = module_of(f) else {
            continue;
        };
        let code = code_of(&std::fs::read_to_string(root().join(f)).unwrap());
        let mut deps = BTreeSet::new();
        for (is_use, segs) in paths_of(&code) {
            let Some((full, base)) = resolve_from(&me, is_use, &segs) else {
                continue;
            };
            if is_use
                && !matches!(segs[0].as_str(), "crate" | "super" | "self")
                && !by_module.contains_key(&(krate, full[..me.len() + 1].to_vec()))
            {
                continue; // another crate
            }
            // The deepest module the path names.
            let target = (base..=full.len())
                .rev()
                .find_map(|n| by_module.get(&(krate, full[..n].to_vec())));
            let Some(target) = target else { continue };
            let (_, tm) = module_of(target).unwrap();
            // A module and its own submodules are one family.
            if tm.starts_with(&me) || me.starts_with(&tm) {
                continue;
            }
            deps.insert(target.clone());
        }
        graph.insert(f.clone(), deps);
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct St<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(st: &mut St<'a>, v: &'a str) {
        let i = st.index.len();
        st.index.insert(v, i);
        st.low.insert(v, i);
        st.stack.push(v);
        st.on.insert(v);
        let g = st.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !st.index.contains_key(w) {
                visit(st, w);
                let l = st.low[v].min(st.low[w]);
                st.low.insert(v, l);
            } else if st.on.contains(w) {
                let l = st.low[v].min(st.index[w]);
                st.low.insert(v, l);
            }
        }
        if st.low[v] == st.index[v] {
            let mut scc = BTreeSet::new();
            while let Some(w) = st.stack.pop() {
                st.on.remove(w);
                scc.insert(w.to_owned());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                st.out.push(scc);
            }
        }
    }
    let mut st = St {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !st.index.contains_key(v.as_str()) {
            visit(&mut st, v);
        }
    }
    st.out
}

#[test]
fn no_import_cycle_between_files() {
    let found = cycles(&import_graph());
    let allowed: Vec<BTreeSet<String>> = CYCLES
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let new: Vec<_> = found
        .iter()
        .filter(|c| !allowed.iter().any(|a| c.is_subset(a)))
        .collect();
    assert!(new.is_empty(), "import cycles between files: {new:?}");
    let stale: Vec<_> = allowed
        .iter()
        .filter(|a| !found.iter().any(|c| c.is_subset(a) && c.len() == a.len()))
        .collect();
    assert!(
        stale.is_empty(),
        "cycles broken or shrunk: update CYCLES to what remains: {stale:?} (found {found:?})"
    );
    eprintln!("import cycles still to break: {found:?}");
}

/// Where a path named in file `me` (a module path) leads, as an absolute module path of the
/// same crate; `None` for another crate or a path relative to an item in scope.
fn resolve(me: &[String], is_use: bool, segs: &[String]) -> Option<Vec<String>> {
    resolve_from(me, is_use, segs).map(|(full, _)| full)
}

/// [`resolve`], with how many of the leading segments of the result are the module the
/// path starts from (the crate root, an ancestor of `me`, or `me`).
fn resolve_from(me: &[String], is_use: bool, segs: &[String]) -> Option<(Vec<String>, usize)> {
    let mut base = me.to_vec();
    let mut rest = segs;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("super") | Some("self") => {
            while let Some(s) = rest.first() {
                match s.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        // `use name::...` names a child module of this file's, if there is one.
        Some(_) if is_use => {}
        _ => return None,
    }
    let from = base.len();
    base.extend(rest.iter().cloned());
    Some((base, from))
}

/// Where `src/ipt/ext/` files reach past the floor: each `(file, path named)` where an
/// extension names something of `ext` other than the floor, or the floor names something
/// of `ext` other than itself. Test files (`tests.rs`) and inline test modules may use the
/// registry.
fn ext_layer_faults() -> Vec<(String, String)> {
    const EXT: &str = "src/ipt/ext/";
    let files = sources();
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .filter_map(|f| module_of(f))
        .filter(|(k, _)| *k == 0)
        .map(|(_, m)| m)
        .collect();
    let ext = ["ipt".to_owned(), "ext".to_owned()];
    let mut faults = Vec::new();
    for f in files.iter().filter(|f| f.starts_with(EXT)) {
        let Some((0, me)) = module_of(f) else {
            continue;
        };
        if me.len() < 3 || me.last().is_some_and(|l| l == "tests") {
            continue; // the registry itself, or a test file
        }
        let in_floor = me[2] == "base";
        let code = code_of(&std::fs::read_to_string(root().join(f)).unwrap());
        for (is_use, segs) in paths_of(&code) {
            let Some(full) = resolve(&me, is_use, &segs) else {
                continue;
            };
            if is_use
                && !matches!(segs[0].as_str(), "crate" | "super" | "self")
                && !modules.contains(&full[..me.len() + 1])
            {
                continue; // another crate
            }
            if !full.starts_with(&ext) || full.len() < 3 {
                continue;
            }
            let ok = full[2] == "base" || (!in_floor && full[2] == me[2]);
            if !ok {
                faults.push((f.clone(), segs.join("::")));
            }
        }
    }
    faults
}

#[test]
fn extensions_stand_on_the_floor_only() {
    let faults = ext_layer_faults();
    assert!(
        faults.is_empty(),
        "in src/ipt/ext/ an extension may import only from ext/base/ (move what two \
         extensions share into the floor), and the floor no extension: {faults:#?}"
    );
}

/// The floor check sees an extension naming another one, or the registry, and the floor
/// naming an extension; and lets an extension name the floor and itself.
#[test]
fn the_floor_check_sees_faults() {
    let m = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    let ext_mark = m("ipt::ext::mark");
    assert_eq!(
        resolve(&ext_mark, true, &m("super::mac::parse_mac")),
        Some(m("ipt::ext::mac::parse_mac"))
    );
    assert_eq!(
        resolve(
            &m("ipt::ext::base::opts::value"),
            false,
            &m("super::super::api::X")
        ),
        Some(m("ipt::ext::base::api::X"))
    );
    assert_eq!(resolve(&ext_mark, false, &m("Foo::bar")), None);
    // Every extension names the floor today: the check reads their imports.
    let code = code_of(&std::fs::read_to_string(root().join("src/ipt/ext/mark.rs")).unwrap());
    assert!(paths_of(&code)
        .iter()
        .filter_map(|(u, p)| resolve(&ext_mark, *u, p))
        .any(|p| p.starts_with(&m("ipt::ext::base::api"))));
}

/// The check itself finds a cycle, and none within a module family.
#[test]
fn the_cycle_check_sees_cycles() {
    let mut g = BTreeMap::new();
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    g.insert("a".to_owned(), e(&["b"]));
    g.insert("b".to_owned(), e(&["c"]));
    g.insert("c".to_owned(), e(&["a"]));
    g.insert("d".to_owned(), e(&["a"]));
    assert_eq!(cycles(&g), vec![e(&["a", "b", "c"])]);
    assert_eq!(
        expand("super::{a, b::{c, d as e}}"),
        ["super::a", "super::b::c", "super::b::d as e"]
    );
    assert_eq!(
        module_of("src/iptables/restore/mod.rs"),
        Some((0, vec!["iptables".into(), "restore".into()]))
    );
    assert_eq!(
        module_of("src/bin/iptnl/serve/activation.rs"),
        Some((1, vec!["serve".into(), "activation".into()]))
    );
}
