//! `iptnl install-links [--force] DIR`: the links it creates, what it refuses, its errors and
//! exit codes, and a program that finds `iptables` on a `PATH` starting with DIR.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

const NAMES: &[&str] = &[
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

/// A fresh temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "iptnl-links-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn install(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("install-links")
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn bin_canon() -> PathBuf {
    std::fs::canonicalize(BIN).unwrap()
}

/// Whether `p` is a symlink whose target is the iptnl binary.
fn links_to_bin(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
        && std::fs::canonicalize(p).is_ok_and(|t| t == bin_canon())
}

#[test]
fn creates_every_name_and_is_idempotent() {
    let d = TempDir::new();
    let dir = d.0.to_str().unwrap();
    let o = install(&[dir]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for n in NAMES {
        assert!(links_to_bin(&d.0.join(n)), "{n} is not a link to iptnl");
    }
    let out = text(&o.stdout);
    assert_eq!(out.matches("created ").count(), NAMES.len(), "{out}");
    assert!(out.contains(&format!("export PATH={dir}:$PATH")), "{out}");
    // Exactly those names, nothing else left behind (no temporary links).
    let mut present: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    present.sort();
    let mut want: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(present, want);

    // The links work under their names.
    let v = Command::new(d.0.join("iptables"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        text(&v.stdout),
        format!(
            "iptables v1.8.11 (nf_tables) (iptnl {})\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let v = Command::new(d.0.join("xtables-nft-multi"))
        .args(["ip6tables-save", "-V"])
        .output()
        .unwrap();
    assert!(
        text(&v.stdout).starts_with("ip6tables-save v1.8.11 (nf_tables)"),
        "{}",
        text(&v.stdout)
    );

    // A second run changes nothing and succeeds.
    let o = install(&[dir]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout).matches("unchanged ").count(),
        NAMES.len(),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn refuses_foreign_entries_without_force() {
    let d = TempDir::new();
    let dir = d.0.to_str().unwrap();
    std::fs::write(d.0.join("iptables-save"), "#!/bin/sh\n").unwrap();
    std::os::unix::fs::symlink("/bin/true", d.0.join("iptables")).unwrap();
    let o = install(&[dir]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "{dir}/iptables: exists and is a link to /bin/true"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("{dir}/iptables-save: exists and is a file")),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    // Nothing was changed: the other names were not created either.
    assert!(!d.0.join("ip6tables").exists());
    assert_eq!(
        std::fs::read_link(d.0.join("iptables")).unwrap(),
        Path::new("/bin/true")
    );

    let o = install(&["--force", dir]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!("replaced {dir}/iptables ->")),
        "{out}"
    );
    assert!(
        out.contains(&format!("replaced {dir}/iptables-save ->")),
        "{out}"
    );
    for n in NAMES {
        assert!(links_to_bin(&d.0.join(n)), "{n} is not a link to iptnl");
    }
}

#[test]
fn a_directory_is_never_replaced() {
    let d = TempDir::new();
    std::fs::create_dir(d.0.join("ip6tables")).unwrap();
    let o = install(&["--force", d.0.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("is a directory"),
        "{}",
        text(&o.stderr)
    );
    assert!(d.0.join("ip6tables").is_dir());
    assert!(!d.0.join("iptables").exists());
}

#[test]
fn errors_and_usage() {
    let d = TempDir::new();
    let missing = d.0.join("nope");
    let o = install(&[missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!(
            "iptnl install-links: {}: No such file or directory\n",
            missing.display()
        )
    );

    let file = d.0.join("file");
    std::fs::write(&file, "").unwrap();
    let o = install(&[file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!("iptnl install-links: {}: Not a directory\n", file.display())
    );

    let o = install(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).starts_with("iptnl install-links: missing directory\n"));
    let o = install(&["--bogus", d.0.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown option `--bogus'"));
    let o = install(&["a", "b"]);
    assert_eq!(o.status.code(), Some(2));

    for h in ["-h", "--help"] {
        let o = install(&[h]);
        assert!(o.status.success());
        let s = text(&o.stdout);
        assert!(
            s.starts_with("Usage: iptnl install-links [--force] DIR\n"),
            "{s}"
        );
        assert!(
            s.contains("--force") && s.contains("xtables-nft-multi"),
            "{s}"
        );
    }
    // And the binary's own usage names it.
    let o = Command::new(BIN).arg("--help").output().unwrap();
    assert!(text(&o.stdout).contains("install-links [--force] DIR"));
}

/// Without write permission on DIR: a clear message, exit 1.
#[test]
fn permission_denied() {
    if !common::have("setpriv") {
        eprintln!("setpriv missing: skipped");
        return;
    }
    let d = TempDir::new();
    let ro = d.0.join("ro");
    std::fs::create_dir(&ro).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&d.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let o = Command::new("setpriv")
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            BIN,
        ])
        .args(["install-links", ro.to_str().unwrap()])
        .output()
        .unwrap();
    if text(&o.stderr).contains("setpriv:") {
        eprintln!("setpriv cannot change user here: skipped");
        return;
    }
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        format!(
            "iptnl install-links: cannot create {}/iptables: Permission denied\n",
            ro.display()
        )
    );
    assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0);
}

/// A program that looks `iptables` up on PATH (as go-iptables' `exec.LookPath` does) finds
/// iptnl when DIR comes first, and it works there, in a fresh namespace.
#[test]
fn first_on_path() {
    let d = TempDir::new();
    let o = install(&[d.0.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let path = format!(
        "{}:{}",
        d.0.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |name: &str, args: &[&str]| {
        Command::new(name)
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    let v = run("iptables", &["--version"]);
    assert!(text(&v.stdout).contains("(iptnl "), "{}", text(&v.stdout));
    common::in_netns(|| {
        let o = run("iptables", &["-w", "-t", "nat", "-N", "VIA-PATH"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let o = run("iptables-save", &["-t", "nat"]);
        assert!(text(&o.stdout).contains(":VIA-PATH - [0:0]\n"));
        // The oracle sees the chain iptnl created.
        if common::have("iptables-nft") {
            assert_eq!(
                common::run("iptables-nft", &["-t", "nat", "-S", "VIA-PATH"]),
                "-N VIA-PATH\n"
            );
        }
    });
}
