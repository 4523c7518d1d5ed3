//! `iptnl install-links [--force] DIR`: creates the tool names (`iptables`, `ip6tables`,
//! `*-save`, `*-restore`, their `-nft` forms, `iptables-xml` and `xtables-nft-multi`) in DIR as symlinks to
//! the running binary, so that a DIR placed first on `PATH` makes every caller of those
//! names run iptnl.
//!
//! Entries that already point at this binary are left alone. Any other existing entry is
//! refused (exit 1, nothing is changed) unless `--force` is given, which replaces it
//! atomically (a new link under a temporary name, then `rename` over the old entry).
//! Directories are never replaced. Usage errors exit 2.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

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
    "xtables-nft-multi",
];

const PROG: &str = "iptnl install-links";

/// The help text of `iptnl install-links`.
pub fn help() -> String {
    let mut s = String::from(
        "Usage: iptnl install-links [--force] DIR\n\
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
         Options:\n\
         \x20 --force     replace existing entries that are not links to this binary\n\
         \x20             (without it they are reported and nothing is changed, exit 1)\n\
         \x20 -h, --help  print this help\n",
    );
    s
}

/// An io error as `strerror` words it (without Rust's ` (os error N)`).
fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
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
fn make_link(exe: &Path, dir: &Path, name: &str, replace: bool) -> io::Result<()> {
    let dest = dir.join(name);
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

/// Runs `iptnl install-links ARGS…`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let mut force = false;
    let mut dirs: Vec<&str> = Vec::new();
    let mut only_operands = false;
    for a in args {
        match a.as_str() {
            s if only_operands => dirs.push(s),
            "--" => only_operands = true,
            "-f" | "--force" => force = true,
            "-h" | "--help" => {
                print!("{}", help());
                return 0;
            }
            s if s.starts_with('-') && s != "-" => {
                eprintln!("{PROG}: unknown option `{s}'\n\n{}", help());
                return 2;
            }
            s => dirs.push(s),
        }
    }
    let dir = match dirs.as_slice() {
        [d] => PathBuf::from(d),
        [] => {
            eprintln!("{PROG}: missing directory\n\n{}", help());
            return 2;
        }
        _ => {
            eprintln!("{PROG}: exactly one directory expected\n\n{}", help());
            return 2;
        }
    };
    match install(&dir, force) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("{PROG}: {msg}");
            1
        }
    }
}

/// Checks everything first, then creates or replaces the links.
fn install(dir: &Path, force: bool) -> Result<(), String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the running binary: {}", strerror(&e)))?;
    let exe_meta =
        fs::metadata(&exe).map_err(|e| format!("{}: {}", exe.display(), strerror(&e)))?;
    let dmeta = fs::metadata(dir).map_err(|e| format!("{}: {}", dir.display(), strerror(&e)))?;
    if !dmeta.is_dir() {
        return Err(format!("{}: Not a directory", dir.display()));
    }

    let mut plans = Vec::with_capacity(NAMES.len());
    let mut refused = Vec::new();
    for name in NAMES {
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
