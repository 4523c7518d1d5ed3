//! `iptnl install PREFIX`: the binary, the tool names linked to it by file name (so that the
//! directory works wherever it is mounted), the server's units naming the installed binary;
//! a second install changes nothing; `--remove` leaves the prefix as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if p.is_dir() && !p.is_symlink() {
                walk(base, &p, out);
            } else {
                out.push(rel);
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn install(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .arg("install")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn install_and_remove() {
    let prefix: PathBuf =
        std::env::temp_dir().join(format!("iptnl-install-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&prefix);
    let p = prefix.to_str().unwrap();
    let o = install(&[p]);
    assert!(o.status.success(), "{o:?}");
    let bin = prefix.join("bin/iptnl");
    assert_eq!(std::fs::read(&bin).unwrap(), std::fs::read(BIN).unwrap());
    let link = std::fs::read_link(prefix.join("bin/iptables")).unwrap();
    assert_eq!(link, Path::new("iptnl"), "linked by file name");
    // The directory, moved elsewhere, still works.
    let moved = prefix.with_extension("moved");
    let _ = std::fs::remove_dir_all(&moved);
    std::fs::rename(&prefix, &moved).unwrap();
    let v = Command::new(moved.join("bin/iptables-save"))
        .arg("-V")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&v.stdout).contains("iptnl"),
        "{v:?}"
    );
    std::fs::rename(&moved, &prefix).unwrap();
    let unit = std::fs::read_to_string(prefix.join("lib/systemd/system/iptnl.service")).unwrap();
    let abs = std::fs::canonicalize(&bin).unwrap();
    assert!(
        unit.contains(&format!(
            "ExecStart={} serve --idle-exit 300",
            abs.display()
        )),
        "{unit}"
    );
    let socket = std::fs::read_to_string(prefix.join("lib/systemd/system/iptnl.socket")).unwrap();
    assert!(socket.contains("ListenStream=@iptnl"), "{socket}");
    let before = tree(&prefix);
    assert!(before.len() >= 18, "{before:?}");
    // Again: nothing changes. The installed binary installs itself too.
    let o = install(&[p]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(tree(&prefix), before);
    let o = Command::new(&bin).args(["install", p]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(tree(&prefix), before);
    // A unit changed by hand is refused without --force, and kept by --remove.
    std::fs::write(
        prefix.join("lib/systemd/system/iptnl.service"),
        "[Service]\n",
    )
    .unwrap();
    let o = install(&[p]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--force"),
        "{o:?}"
    );
    let o = install(&["--remove", p]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("kept"), "{o:?}");
    assert_eq!(tree(&prefix), ["lib/systemd/system/iptnl.service"]);
    std::fs::remove_dir_all(&prefix).unwrap();
    // Usage errors.
    assert_eq!(install(&[]).status.code(), Some(2));
    assert_eq!(install(&["--bogus", p]).status.code(), Some(2));
    assert_eq!(install(&["--remove", "--force", p]).status.code(), Some(2));
}
