//! `iptnl install-links [--force] DIR`: creates the tool names (`iptables`, `ip6tables`,
//! `*-save`, `*-restore`, their `-nft` forms, `iptables-xml`, `xtables-monitor` and
//! `xtables-nft-multi`) in DIR as symlinks to the running binary, so that a DIR placed first
//! on `PATH` makes every caller of those names run iptnl.
//!
//! Entries that already point at this binary are left alone. Any other existing entry is
//! refused (exit 1, nothing is changed) unless `--force` is given, which replaces it
//! atomically (a new link under a temporary name, then `rename` over the old entry).
//! Directories are never replaced. Usage errors exit 2.
//!
//! `--alternatives [--priority N] [--set]` also creates the `-iptnl` names
//! (`iptables-iptnl`, `ip6tables-iptnl-save`, …) and registers them with the alternatives
//! system for the groups `iptables` and `ip6tables`, so that `/usr/sbin/iptables` can point
//! at iptnl; each group's previous mode and choice are recorded in `DIR/.iptnl-alternatives`.
//! `--remove DIR` unregisters them, restores the recorded mode and choice, and removes the
//! links to this binary.

mod alternatives;

use alternatives::{Recorded, Status, ALT_NAMES, STATE_FILE};
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use iptnl::netlink::strerror;

/// The names created, in this order.
pub const NAMES: &[&str] = &[
    "iptables",
    "ip6tables",
    "iptables-save",
    "ip6tables-save",
    "iptables-restore",
    "ip6tables-restore",
    "iptables-nft",
    "ip6tables-nft",
    "iptables-nft-save",
    "ip6tables-nft-save",
    "iptables-nft-restore",
    "ip6tables-nft-restore",
    "iptables-xml",
    "xtables-monitor",
    "xtables-nft-multi",
];

const PROG: &str = "iptnl install-links";

/// The help text of `iptnl install-links`.
pub fn help() -> String {
    let mut s = String::from(
        "Usage: iptnl install-links [--force] DIR\n\
         \x20      iptnl install-links --alternatives [--priority N] [--set] [--force] DIR\n\
         \x20      iptnl install-links --remove [--alternatives] DIR\n\
         \n\
         Creates symlinks to this iptnl binary in DIR under the names\n",
    );
    for chunk in NAMES.chunks(4) {
        s.push_str("  ");
        s.push_str(&chunk.join(" "));
        s.push('\n');
    }
    s.push_str(
        "so that with DIR first on PATH (export PATH=DIR:$PATH) every program that runs\n\
         one of those names runs iptnl instead.\n\
         \n\
         Programs that run /usr/sbin/iptables by its path (ufw, ferm) need the\n\
         distribution's switch instead: --alternatives also creates iptables-iptnl,\n\
         ip6tables-iptnl and their -save and -restore names in DIR and registers them\n\
         with update-alternatives (Debian, Ubuntu) or alternatives (Fedora, RHEL) for\n\
         the groups iptables and ip6tables. Each group's mode and choice are recorded in\n\
         DIR/.iptnl-alternatives first; --remove gives them back.\n\
         \n\
         Options:\n\
         \x20 --force         replace existing entries that are not links to this binary\n\
         \x20                 (without it they are reported and nothing is changed, exit 1)\n\
         \x20 --alternatives  also register iptnl with the alternatives system\n\
         \x20 --priority N    the alternatives' priority (default 5: below the\n\
         \x20                 distribution's iptables-nft and iptables-legacy, so nothing\n\
         \x20                 changes until iptnl is selected)\n\
         \x20 --set           select iptnl for both groups (manual mode)\n\
         \x20 --remove        unregister iptnl, restore each group's previous mode and\n\
         \x20                 choice, and remove the links in DIR that point to this binary\n\
         \x20 -h, --help      print this help\n",
    );
    s
}

/// What to do with one name.
enum Plan {
    /// Nothing there: create the link.
    Create,
    /// Already this binary (a link to it, or the same file).
    Same,
    /// Something else: replace it (only with `--force`).
    Replace,
}

/// Whether `entry` is `exe` itself or a link resolving to it (same device and inode).
fn same_file(entry: &Path, exe: &fs::Metadata) -> bool {
    fs::metadata(entry).is_ok_and(|m| m.dev() == exe.dev() && m.ino() == exe.ino())
}

/// Creates the link `dir/name -> exe`, replacing what is there atomically when `replace`.
/// A binary in `dir` itself is linked by its file name, so that the directory keeps working
/// wherever it is mounted (a host path seen from a container).
fn make_link(exe: &Path, dir: &Path, name: &str, replace: bool) -> io::Result<()> {
    let dest = dir.join(name);
    let canon = |p: &Path| fs::canonicalize(p).ok();
    let local = match (exe.parent().and_then(canon), canon(dir), exe.file_name()) {
        (Some(a), Some(b), Some(f)) if a == b => Some(PathBuf::from(f)),
        _ => None,
    };
    let exe = local.as_deref().unwrap_or(exe);
    if !replace {
        return std::os::unix::fs::symlink(exe, &dest);
    }
    let tmp = dir.join(format!(".{name}.iptnl-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    std::os::unix::fs::symlink(exe, &tmp)?;
    fs::rename(&tmp, &dest).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// What the command line asks for.
#[derive(Debug, Default, PartialEq)]
struct Opts {
    force: bool,
    remove: bool,
    alternatives: bool,
    priority: Option<i32>,
    set: bool,
    dir: PathBuf,
}

/// Parses the arguments; `Err` is a usage error's message.
fn parse_args(args: &[String]) -> Result<Option<Opts>, String> {
    let mut o = Opts::default();
    let mut dirs: Vec<&str> = Vec::new();
    let mut only_operands = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            s if only_operands => dirs.push(s),
            "--" => only_operands = true,
            "-f" | "--force" => o.force = true,
            "--remove" => o.remove = true,
            "--alternatives" => o.alternatives = true,
            "--set" => o.set = true,
            "-h" | "--help" => return Ok(None),
            s if s == "--priority" || s.starts_with("--priority=") => {
                let v = match s.strip_prefix("--priority=") {
                    Some(v) => v,
                    None => it
                        .next()
                        .map(String::as_str)
                        .ok_or("option `--priority' requires a number")?,
                };
                o.priority = Some(v.parse().map_err(|_| {
                    format!("--priority `{v}': not a whole number (from -2147483648 to 2147483647)")
                })?);
            }
            s if s.starts_with('-') && s != "-" => return Err(format!("unknown option `{s}'")),
            s => dirs.push(s),
        }
    }
    o.dir = match dirs.as_slice() {
        [d] => PathBuf::from(d),
        [] => return Err("missing directory".to_owned()),
        _ => return Err("exactly one directory expected".to_owned()),
    };
    if !o.alternatives && (o.priority.is_some() || o.set) {
        return Err("--priority and --set need --alternatives".to_owned());
    }
    if o.remove && (o.force || o.priority.is_some() || o.set) {
        return Err("--remove takes no --force, --priority or --set".to_owned());
    }
    Ok(Some(o))
}

/// Runs `iptnl install-links ARGS…`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let o = match parse_args(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{}", help());
            return 0;
        }
        Err(msg) => {
            eprintln!("{PROG}: {msg}\n\n{}", help());
            return 2;
        }
    };
    let r = if o.remove {
        remove(&o.dir, o.alternatives)
    } else if o.alternatives {
        install_alternatives(&o)
    } else {
        install(&o.dir, o.force, NAMES).map(|_| ())
    };
    match r {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("{PROG}: {msg}");
            1
        }
    }
}

/// Checks everything first, then creates or replaces the links.
fn install(dir: &Path, force: bool, names: &[&str]) -> Result<(), String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the running binary: {}", strerror(&e)))?;
    let exe_meta =
        fs::metadata(&exe).map_err(|e| format!("{}: {}", exe.display(), strerror(&e)))?;
    let dmeta = fs::metadata(dir).map_err(|e| format!("{}: {}", dir.display(), strerror(&e)))?;
    if !dmeta.is_dir() {
        return Err(format!("{}: Not a directory", dir.display()));
    }

    let mut plans = Vec::with_capacity(names.len());
    let mut refused = Vec::new();
    for name in names {
        let path = dir.join(name);
        let plan = match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Plan::Create,
            Err(e) => return Err(format!("{}: {}", path.display(), strerror(&e))),
            Ok(_) if same_file(&path, &exe_meta) => Plan::Same,
            Ok(m) if m.is_dir() => {
                refused.push(format!(
                    "{}: is a directory (not replaced, even with --force)",
                    path.display()
                ));
                continue;
            }
            Ok(m) => {
                if !force {
                    let what = if m.file_type().is_symlink() {
                        match fs::read_link(&path) {
                            Ok(t) => format!("a link to {}", t.display()),
                            Err(_) => "a link".to_owned(),
                        }
                    } else {
                        "a file".to_owned()
                    };
                    refused.push(format!(
                        "{}: exists and is {what}, not a link to {} (use --force to replace it)",
                        path.display(),
                        exe.display()
                    ));
                }
                Plan::Replace
            }
        };
        plans.push((*name, plan));
    }
    if !refused.is_empty() {
        return Err(format!(
            "nothing changed in {}:\n  {}",
            dir.display(),
            refused.join("\n  ")
        ));
    }

    for (name, plan) in plans {
        let path = dir.join(name);
        let verb = match plan {
            Plan::Same => "unchanged",
            Plan::Create => "created",
            Plan::Replace => "replaced",
        };
        if !matches!(plan, Plan::Same) {
            make_link(&exe, dir, name, matches!(plan, Plan::Replace))
                .map_err(|e| format!("cannot create {}: {}", path.display(), strerror(&e)))?;
        }
        println!("{verb} {} -> {}", path.display(), exe.display());
    }
    let abs = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    println!(
        "Put the directory first on PATH to use them: export PATH={}:$PATH",
        abs.display()
    );
    Ok(())
}

/// The directory as an absolute path without links (the alternatives are registered with it).
fn abs_dir(dir: &Path) -> Result<PathBuf, String> {
    fs::canonicalize(dir).map_err(|e| format!("{}: {}", dir.display(), strerror(&e)))
}

/// Reads DIR's state file; `None` when there is none.
fn read_state(path: &Path) -> Result<Option<Vec<(String, Recorded)>>, String> {
    match fs::read(path) {
        Ok(b) => alternatives::parse_state(&String::from_utf8_lossy(&b))
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {}", path.display(), strerror(&e))),
    }
}

/// Writes the state file atomically (a temporary file, then `rename`).
fn write_state(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = fs::remove_file(&tmp);
            format!("cannot write {}: {}", path.display(), strerror(&e))
        })
}

/// `--alternatives [--priority N] [--set] DIR`: the links, the -iptnl links, then each group
/// registered (and selected with `--set`), its previous mode and choice recorded first.
fn install_alternatives(o: &Opts) -> Result<(), String> {
    // Everything that can be checked without changing anything comes first.
    let tool = alternatives::find_tool(std::env::var_os("PATH").as_deref())?;
    let ipt = tool.group("iptables")?;
    let groups = alternatives::groups_for(ipt.as_ref());
    let mut current = Vec::new();
    for g in &groups {
        let state = if *g == "iptables" {
            ipt.clone()
        } else {
            tool.group(g)?
        };
        current.push((*g, state));
    }

    let mut names: Vec<&str> = NAMES.to_vec();
    names.extend_from_slice(ALT_NAMES);
    install(&o.dir, o.force, &names)?;
    let dir = abs_dir(&o.dir)?;

    // The record: what each group was before iptnl; a group that already selects iptnl (a
    // second run) keeps what the first run recorded.
    let state_path = dir.join(STATE_FILE);
    let old = read_state(&state_path)?.unwrap_or_default();
    let mut entries: Vec<(String, Recorded)> = Vec::new();
    for (g, state) in &current {
        let ours = alternatives::alt_path(g, &dir);
        let kept = old.iter().find(|(n, _)| n == g).map(|(_, r)| r.clone());
        let rec = match (state, kept) {
            (Some(st), Some(k)) if st.value.as_deref() == Some(ours.as_str()) => k,
            (Some(st), _) => Some((st.status, st.value.clone())),
            (None, Some(k)) => k,
            (None, None) => None,
        };
        entries.push((g.to_string(), rec));
    }
    write_state(&state_path, &alternatives::format_state(&entries))?;

    let priority = o.priority.unwrap_or(alternatives::DEFAULT_PRIORITY);
    for (g, state) in &current {
        let Some(args) = alternatives::install_args(g, state.as_ref(), &dir, priority) else {
            continue;
        };
        tool.change(&args)?;
        let ours = alternatives::alt_path(g, &dir);
        println!("registered {ours} for {g} (priority {priority})");
        if o.set {
            tool.change(&["--set".to_owned(), g.to_string(), ours.clone()])?;
            println!("selected {ours} for {g}");
        }
    }
    println!(
        "The previous choices are kept in {}; `iptnl install-links --remove {}` restores them.",
        state_path.display(),
        dir.display()
    );
    Ok(())
}

/// `--remove [--alternatives] DIR`: unregisters iptnl's alternatives (whenever they are
/// registered, or a state file says they were), gives each group back its previous mode and
/// choice, then removes the links in DIR that point to this binary.
fn remove(dir: &Path, alternatives_asked: bool) -> Result<(), String> {
    let dmeta = fs::metadata(dir).map_err(|e| format!("{}: {}", dir.display(), strerror(&e)))?;
    if !dmeta.is_dir() {
        return Err(format!("{}: Not a directory", dir.display()));
    }
    let dir = abs_dir(dir)?;
    let state_path = dir.join(STATE_FILE);
    let state = read_state(&state_path)?;
    let tool = match alternatives::find_tool(std::env::var_os("PATH").as_deref()) {
        Ok(t) => Some(t),
        Err(e) if alternatives_asked || state.is_some() => return Err(e),
        Err(_) => None,
    };
    let mut problems = Vec::new();
    if let Some(tool) = &tool {
        let mut names: Vec<String> = alternatives::GROUPS.iter().map(|s| s.to_string()).collect();
        for (n, _) in state.iter().flatten() {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        for g in &names {
            let ours = alternatives::alt_path(g, &dir);
            let registered = tool
                .group(g)?
                .is_some_and(|st| st.alternatives.contains(&ours));
            if registered {
                tool.change(&["--remove".to_owned(), g.clone(), ours.clone()])?;
                println!("unregistered {ours} from {g}");
            }
            let Some(rec) = state
                .iter()
                .flatten()
                .find(|(n, _)| n == g)
                .map(|(_, r)| r.clone())
            else {
                continue;
            };
            let now = tool.group(g)?;
            match (rec, now) {
                (None, None) => {}
                (None, Some(_)) => {}
                (Some(_), None) => problems.push(format!(
                    "{g}: the group no longer exists, its previous choice cannot be restored"
                )),
                (Some((Status::Auto, _)), Some(now)) => {
                    if now.status != Status::Auto {
                        tool.change(&["--auto".to_owned(), g.clone()])?;
                    }
                    println!("{g}: automatic mode again");
                }
                (Some((Status::Manual, Some(v))), Some(now)) => {
                    if !now.alternatives.contains(&v) {
                        problems.push(format!(
                            "{g}: the previous choice {v} is no longer registered; \
                             the group is left in {} mode",
                            if now.status == Status::Auto {
                                "automatic"
                            } else {
                                "manual"
                            }
                        ));
                    } else {
                        if now.status != Status::Manual || now.value.as_deref() != Some(&v) {
                            tool.change(&["--set".to_owned(), g.clone(), v.clone()])?;
                        }
                        println!("{g}: {v} selected again (manual mode)");
                    }
                }
                (Some((Status::Manual, None)), Some(_)) => problems.push(format!(
                    "{g}: no previous choice was recorded; the group is left as it is"
                )),
            }
        }
    }
    match fs::remove_file(&state_path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => problems.push(format!(
            "cannot remove {}: {}",
            state_path.display(),
            strerror(&e)
        )),
    }

    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the running binary: {}", strerror(&e)))?;
    let exe_meta =
        fs::metadata(&exe).map_err(|e| format!("{}: {}", exe.display(), strerror(&e)))?;
    for name in NAMES.iter().chain(ALT_NAMES) {
        let path = dir.join(name);
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => problems.push(format!("{}: {}", path.display(), strerror(&e))),
            Ok(m) if m.file_type().is_symlink() && same_file(&path, &exe_meta) => {
                match fs::remove_file(&path) {
                    Ok(()) => println!("removed {}", path.display()),
                    Err(e) => problems.push(format!(
                        "cannot remove {}: {}",
                        path.display(),
                        strerror(&e)
                    )),
                }
            }
            Ok(_) => println!("left {} (not a link to {})", path.display(), exe.display()),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Opts>, String> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse_args(&v)
    }

    #[test]
    fn options() {
        let o = parse(&["--alternatives", "--priority", "30", "--set", "/d"])
            .unwrap()
            .unwrap();
        assert!(o.alternatives && o.set && !o.remove && !o.force);
        assert_eq!((o.priority, o.dir), (Some(30), PathBuf::from("/d")));
        let o = parse(&["--alternatives", "--priority=-7", "d"])
            .unwrap()
            .unwrap();
        assert_eq!(o.priority, Some(-7));
        let o = parse(&["--remove", "--", "--d"]).unwrap().unwrap();
        assert!(o.remove && !o.alternatives);
        assert_eq!(o.dir, PathBuf::from("--d"));
        assert_eq!(parse(&["-h", "--bogus"]), Ok(None));

        for (args, err) in [
            (
                &["--priority", "3", "d"][..],
                "--priority and --set need --alternatives",
            ),
            (
                &["--set", "d"][..],
                "--priority and --set need --alternatives",
            ),
            (
                &["--alternatives", "--priority"][..],
                "option `--priority' requires a number",
            ),
            (
                &["--alternatives", "--priority", "x", "d"][..],
                "--priority `x': not a whole number (from -2147483648 to 2147483647)",
            ),
            (
                &["--alternatives", "--priority=99999999999", "d"][..],
                "--priority `99999999999': not a whole number (from -2147483648 to 2147483647)",
            ),
            (
                &["--remove", "--force", "d"][..],
                "--remove takes no --force, --priority or --set",
            ),
            (
                &["--remove", "--alternatives", "--set", "d"][..],
                "--remove takes no --force, --priority or --set",
            ),
            (&["--remove"][..], "missing directory"),
            (
                &["--alternatives", "a", "b"][..],
                "exactly one directory expected",
            ),
            (&["--alt", "d"][..], "unknown option `--alt'"),
        ] {
            assert_eq!(parse(args), Err(err.to_owned()), "{args:?}");
        }
    }
}
