//! `iptnl install [--force] PREFIX` and `iptnl install --remove PREFIX`: places this binary
//! at `PREFIX/bin/iptnl`, the tool names next to it (`iptnl install-links`, linked by file
//! name), and the server's systemd units in `PREFIX/lib/systemd/system`; `--remove` takes
//! away exactly that.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use iptnl::netlink::strerror;

const PROG: &str = "iptnl install";

/// The units, with the binary's path as installed under `/usr/local`.
const UNITS: [(&str, &str); 2] = [
    (
        "iptnl.socket",
        include_str!("../../../contrib/systemd/iptnl.socket"),
    ),
    (
        "iptnl.service",
        include_str!("../../../contrib/systemd/iptnl.service"),
    ),
];
const UNIT_BIN: &str = "/usr/local/bin/iptnl";

/// The help text.
pub const HELP: &str = "Usage: iptnl install [--force] PREFIX\n\
\x20      iptnl install --remove PREFIX\n\
\n\
Copies this binary to PREFIX/bin/iptnl (replacing an older one atomically), creates the\n\
iptables tool names in PREFIX/bin as links to it (as `iptnl install-links' does, by file\n\
name, so that the directory works wherever it is mounted), and writes the systemd units of\n\
the server, iptnl.socket and iptnl.service, to PREFIX/lib/systemd/system (socket activation\n\
on @iptnl; the server exits after five idle minutes). Existing entries that are not iptnl's\n\
are refused unless --force is given.\n\
\n\
--remove takes away the links to PREFIX/bin/iptnl, the units as installed, and the binary.\n\
\n\
Then, for the units: systemctl link PREFIX/lib/systemd/system/iptnl.{socket,service};\n\
systemctl enable --now iptnl.socket. For the names: export PATH=PREFIX/bin:$PATH, or\n\
`iptnl install-links --alternatives PREFIX/bin' to have /usr/sbin/iptables point at them.\n";

/// Runs `iptnl install ARGS…`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let (mut force, mut remove, mut prefix) = (false, false, None);
    for a in args {
        match a.as_str() {
            "--force" => force = true,
            "--remove" => remove = true,
            "-h" | "--help" => {
                print!("{HELP}");
                return 0;
            }
            s if s.starts_with('-') => {
                eprintln!("{PROG}: unknown option `{s}'\n\n{HELP}");
                return 2;
            }
            s if prefix.is_none() => prefix = Some(PathBuf::from(s)),
            _ => {
                eprintln!("{PROG}: exactly one PREFIX expected\n\n{HELP}");
                return 2;
            }
        }
    }
    let Some(prefix) = prefix else {
        eprintln!("{PROG}: missing PREFIX\n\n{HELP}");
        return 2;
    };
    if remove && force {
        eprintln!("{PROG}: --remove takes no --force\n\n{HELP}");
        return 2;
    }
    let r = if remove {
        uninstall(&prefix)
    } else {
        install(&prefix, force)
    };
    match r {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("{PROG}: {msg}");
            1
        }
    }
}

fn err(path: &Path, e: &io::Error) -> String {
    format!("{}: {}", path.display(), strerror(e))
}

/// A unit's text for a binary at `bin`.
fn unit_text(text: &str, bin: &Path) -> String {
    text.replace(UNIT_BIN, &bin.to_string_lossy())
}

fn install(prefix: &Path, force: bool) -> Result<i32, String> {
    let bindir = prefix.join("bin");
    let unitdir = prefix.join("lib/systemd/system");
    for d in [&bindir, &unitdir] {
        fs::create_dir_all(d).map_err(|e| err(d, &e))?;
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the running binary: {}", strerror(&e)))?;
    let bin = bindir.join("iptnl");
    let same = fs::canonicalize(&exe).ok() == fs::canonicalize(&bin).ok();
    if !same {
        // A new file under another name, then rename: a running iptnl keeps its old file.
        let tmp = bindir.join(format!(".iptnl.install-{}", std::process::id()));
        fs::copy(&exe, &tmp)
            .and_then(|_| fs::rename(&tmp, &bin))
            .map_err(|e| {
                let _ = fs::remove_file(&tmp);
                err(&bin, &e)
            })?;
        println!("installed {}", bin.display());
    }
    // The links, made by the installed binary so that they point at it.
    let mut cmd = Command::new(&bin);
    cmd.arg("install-links");
    if force {
        cmd.arg("--force");
    }
    let st = cmd
        .arg(&bindir)
        .status()
        .map_err(|e| format!("cannot run {}: {}", bin.display(), strerror(&e)))?;
    if !st.success() {
        return Ok(st.code().unwrap_or(1));
    }
    let abs_bin = fs::canonicalize(&bin).map_err(|e| err(&bin, &e))?;
    for (name, text) in UNITS {
        let path = unitdir.join(name);
        let want = unit_text(text, &abs_bin);
        match fs::read_to_string(&path) {
            Ok(have) if have == want => continue,
            Ok(_) if !force => {
                return Err(format!(
                    "{} exists and is not the unit iptnl writes (--force replaces it)",
                    path.display()
                ))
            }
            _ => {}
        }
        fs::write(&path, want).map_err(|e| err(&path, &e))?;
        println!("wrote {}", path.display());
    }
    Ok(0)
}

fn uninstall(prefix: &Path) -> Result<i32, String> {
    let bindir = prefix.join("bin");
    let bin = bindir.join("iptnl");
    let abs_bin = fs::canonicalize(&bin).map_err(|e| err(&bin, &e))?;
    let st = Command::new(&bin)
        .args(["install-links", "--remove"])
        .arg(&bindir)
        .status()
        .map_err(|e| format!("cannot run {}: {}", bin.display(), strerror(&e)))?;
    if !st.success() {
        return Ok(st.code().unwrap_or(1));
    }
    let unitdir = prefix.join("lib/systemd/system");
    for (name, text) in UNITS {
        let path = unitdir.join(name);
        match fs::read_to_string(&path) {
            Ok(have) if have == unit_text(text, &abs_bin) => {
                fs::remove_file(&path).map_err(|e| err(&path, &e))?;
                println!("removed {}", path.display());
            }
            Ok(_) => println!("kept {}: changed since it was installed", path.display()),
            Err(_) => {}
        }
    }
    fs::remove_file(&bin).map_err(|e| err(&bin, &e))?;
    println!("removed {}", bin.display());
    Ok(0)
}
