//! `iptnl install-links [--force] DIR`: the links it creates, what it refuses, its errors and
//! exit codes, and a program that finds `iptables` on a `PATH` starting with DIR.
//!
//! `--alternatives` and `--remove` against the real `update-alternatives`, each run in a
//! private mount namespace whose `/usr/sbin`, `/etc/alternatives`, `/var/lib/dpkg/alternatives`
//! and `/var/log` are copies on a tmpfs, proving that the host's alternatives are the same
//! before and after; and their errors with stand-in alternatives commands, without root.

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
    "xtables-monitor",
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
    for (args, msg) in [
        (
            &["--set", "d"][..],
            "--priority and --set need --alternatives",
        ),
        (
            &["--remove", "--force", "d"][..],
            "--remove takes no --force, --priority or --set",
        ),
        (
            &["--alternatives", "--priority", "high", "d"][..],
            "--priority `high': not a whole number (from -2147483648 to 2147483647)",
        ),
    ] {
        let o = install(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            text(&o.stderr).starts_with(&format!("iptnl install-links: {msg}\n\nUsage: ")),
            "{}",
            text(&o.stderr)
        );
    }

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
        assert!(
            s.contains("iptnl install-links --alternatives [--priority N] [--set] [--force] DIR\n")
                && s.contains("iptnl install-links --remove [--alternatives] DIR\n")
                && s.contains(
                    "update-alternatives (Debian, Ubuntu) or alternatives (Fedora, RHEL)"
                ),
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
    let o = as_nobody()
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

const ALT_NAMES: &[&str] = &[
    "iptables-iptnl",
    "ip6tables-iptnl",
    "iptables-iptnl-save",
    "ip6tables-iptnl-save",
    "iptables-iptnl-restore",
    "ip6tables-iptnl-restore",
];

/// The links the groups own, and the alternatives directory's entries for them.
const GROUP_LINKS: &[&str] = &[
    "iptables",
    "iptables-save",
    "iptables-restore",
    "ip6tables",
    "ip6tables-save",
    "ip6tables-restore",
];

const NS_ENV: &str = "IPTNL_TEST_MOUNT_NS";
const NS_DIR_ENV: &str = "IPTNL_TEST_MOUNT_NS_DIR";

/// `update-alternatives --query NAME`: its exit status, stdout and stderr.
fn query(name: &str) -> String {
    let o = Command::new("update-alternatives")
        .args(["--query", name])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    format!("{}\n{}{}", o.status, text(&o.stdout), text(&o.stderr))
}

/// Everything of the alternatives system these tests may touch: both groups' `--query`
/// output, and where the links in /usr/sbin and /etc/alternatives point.
fn snapshot() -> String {
    let mut s = query("iptables") + &query("ip6tables");
    for n in GROUP_LINKS {
        for d in ["/usr/sbin", "/etc/alternatives"] {
            let p = Path::new(d).join(n);
            s.push_str(&format!(
                "{}: {:?}\n",
                p.display(),
                std::fs::read_link(&p).ok()
            ));
        }
    }
    s
}

fn sh(cmd: &str, args: &[&str]) {
    let o = Command::new(cmd).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{cmd} {args:?}: {}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

/// Runs `body` in a private mount namespace where the alternatives system's directories are
/// throwaway copies: the test binary runs itself again (this test only) under
/// `unshare --mount`, and the outer run checks that the host's alternatives are unchanged.
/// Skipped (with a message) without root, `unshare` or `update-alternatives`.
fn in_mount_ns(test: &str, body: impl FnOnce(&Path)) {
    if std::env::var(NS_ENV).as_deref() == Ok(test) {
        // Inside: copies of the directories on a tmpfs, bound over the originals.
        let tmp = PathBuf::from(std::env::var_os(NS_DIR_ENV).unwrap());
        sh("mount", &["-t", "tmpfs", "tmpfs", tmp.to_str().unwrap()]);
        for (i, d) in [
            "/usr/sbin",
            "/etc/alternatives",
            "/var/lib/dpkg/alternatives",
            "/var/log",
        ]
        .iter()
        .enumerate()
        {
            if !Path::new(d).is_dir() {
                continue;
            }
            let copy = tmp.join(format!("copy{i}"));
            std::fs::create_dir(&copy).unwrap();
            sh("cp", &["-a", &format!("{d}/."), copy.to_str().unwrap()]);
            sh("mount", &["--bind", copy.to_str().unwrap(), d]);
        }
        let links = tmp.join("links");
        std::fs::create_dir(&links).unwrap();
        body(&links);
        return;
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| text(&o.stdout).trim() == "0");
    if !root || !common::have("unshare") || !common::have("update-alternatives") {
        eprintln!("needs root, unshare and update-alternatives: skipped");
        return;
    }
    let before = snapshot();
    let tmp = TempDir::new();
    let o = Command::new("unshare")
        .args(["--mount", "--propagation", "private"])
        .arg(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(NS_ENV, test)
        .env(NS_DIR_ENV, &tmp.0)
        .output()
        .unwrap();
    let after = snapshot();
    assert!(
        o.status.success() && text(&o.stdout).contains("1 passed"),
        "in the mount namespace: {}\n{}{}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
    assert_eq!(before, after, "the host's alternatives changed");
}

/// The value of `Key: ` in `--query` output.
fn field<'a>(q: &'a str, key: &str) -> &'a str {
    q.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": ")))
        .unwrap_or_default()
}

fn version_of(path: &str) -> String {
    let flag = if path.ends_with("-save") || path.ends_with("-restore") {
        "-V"
    } else {
        "--version"
    };
    Command::new(path)
        .arg(flag)
        .output()
        .map(|o| text(&o.stdout) + &text(&o.stderr))
        .unwrap_or_default()
}

fn ua(args: &[&str]) {
    sh("update-alternatives", args);
}

/// Registering changes no link (priority 5 is below iptables-nft's), `--set` selects iptnl
/// for both groups and /usr/sbin's names run it, `--remove` gives back automatic mode and the
/// same choice: `--query` output byte for byte, links and state file gone.
#[test]
fn alternatives_auto_round_trip() {
    in_mount_ns("alternatives_auto_round_trip", |links| {
        let dir = links.to_str().unwrap();
        ua(&["--auto", "iptables"]);
        ua(&["--auto", "ip6tables"]);
        let before = snapshot();
        let value4 = field(&query("iptables"), "Value").to_owned();

        let o = install(&["--alternatives", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(
            out.contains(&format!(
                "registered {dir}/iptables-iptnl for iptables (priority 5)\n"
            )),
            "{out}"
        );
        for n in NAMES.iter().chain(ALT_NAMES) {
            assert!(links_to_bin(&links.join(n)), "{n} is not a link to iptnl");
        }
        for g in ["iptables", "ip6tables"] {
            let q = query(g);
            assert!(
                q.contains(&format!(
                    "Alternative: {dir}/{g}-iptnl\nPriority: 5\nSlaves:\n \
                     {g}-restore {dir}/{g}-iptnl-restore\n {g}-save {dir}/{g}-iptnl-save\n"
                )),
                "{q}"
            );
            assert_eq!(field(&q, "Status"), "auto", "{q}");
        }
        assert_eq!(field(&query("iptables"), "Value"), value4);
        assert!(!version_of("/usr/sbin/iptables").contains("(iptnl "));
        let state = std::fs::read_to_string(links.join(".iptnl-alternatives")).unwrap();
        assert!(
            state.contains(&format!("\niptables auto {value4}\n")),
            "{state}"
        );

        // --set: /usr/sbin's names run iptnl.
        let o = install(&["--alternatives", "--set", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(
            text(&o.stdout).contains(&format!("selected {dir}/ip6tables-iptnl for ip6tables\n")),
            "{}",
            text(&o.stdout)
        );
        for g in ["iptables", "ip6tables"] {
            let q = query(g);
            assert_eq!(field(&q, "Status"), "manual", "{q}");
            assert_eq!(field(&q, "Value"), format!("{dir}/{g}-iptnl"), "{q}");
        }
        for n in GROUP_LINKS {
            let v = version_of(&format!("/usr/sbin/{n}"));
            assert!(v.contains("(iptnl "), "/usr/sbin/{n}: {v}");
        }
        // A second run keeps the first record (iptnl is not what came before it).
        assert_eq!(
            std::fs::read_to_string(links.join(".iptnl-alternatives")).unwrap(),
            state
        );

        let o = install(&["--remove", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("iptables: automatic mode again\n"), "{out}");
        assert!(
            out.contains(&format!("removed {dir}/iptables-iptnl\n")),
            "{out}"
        );
        assert_eq!(snapshot(), before);
        assert_eq!(std::fs::read_dir(links).unwrap().count(), 0);
        assert!(!version_of("/usr/sbin/iptables").contains("(iptnl "));
    });
}

/// A manual choice made before iptnl (iptables-legacy) is selected again by `--remove`.
#[test]
fn alternatives_manual_round_trip() {
    in_mount_ns("alternatives_manual_round_trip", |links| {
        let dir = links.to_str().unwrap();
        ua(&["--set", "iptables", "/usr/sbin/iptables-legacy"]);
        ua(&["--set", "ip6tables", "/usr/sbin/ip6tables-legacy"]);
        let before = snapshot();

        // A high priority changes nothing in manual mode.
        let o = install(&["--alternatives", "--priority", "100", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let q = query("iptables");
        assert_eq!(field(&q, "Status"), "manual", "{q}");
        assert_eq!(field(&q, "Value"), "/usr/sbin/iptables-legacy", "{q}");
        assert!(q.contains("\nPriority: 100\n"), "{q}");
        let state = std::fs::read_to_string(links.join(".iptnl-alternatives")).unwrap();
        assert!(
            state.contains("\niptables manual /usr/sbin/iptables-legacy\n")
                && state.contains("\nip6tables manual /usr/sbin/ip6tables-legacy\n"),
            "{state}"
        );

        let o = install(&["--alternatives", "--set", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(version_of("/usr/sbin/ip6tables").contains("(iptnl "));

        let o = install(&["--remove", "--alternatives", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(
            text(&o.stdout)
                .contains("ip6tables: /usr/sbin/ip6tables-legacy selected again (manual mode)\n"),
            "{}",
            text(&o.stdout)
        );
        assert_eq!(snapshot(), before);
        assert!(version_of("/usr/sbin/iptables").contains("legacy"));
    });
}

/// In automatic mode a priority above iptables-nft's selects iptnl at once; `--remove`
/// goes back to the best remaining alternative, still in automatic mode.
#[test]
fn alternatives_high_priority_in_auto_mode() {
    in_mount_ns("alternatives_high_priority_in_auto_mode", |links| {
        let dir = links.to_str().unwrap();
        ua(&["--auto", "iptables"]);
        ua(&["--set", "ip6tables", "/usr/sbin/ip6tables-legacy"]);
        let before = snapshot();
        let o = install(&["--alternatives", "--priority=1000", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let q = query("iptables");
        assert_eq!(field(&q, "Status"), "auto", "{q}");
        assert_eq!(field(&q, "Value"), format!("{dir}/iptables-iptnl"), "{q}");
        assert!(version_of("/usr/sbin/iptables-save").contains("(iptnl "));
        // ip6tables was manual: unchanged.
        assert_eq!(
            field(&query("ip6tables"), "Value"),
            "/usr/sbin/ip6tables-legacy"
        );

        // Removing the alternatives alone leaves the links that are not iptnl's.
        std::fs::remove_file(links.join("iptables-xml")).unwrap();
        std::fs::write(links.join("iptables-xml"), "").unwrap();
        let o = install(&["--remove", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(
            text(&o.stdout).contains(&format!("left {dir}/iptables-xml (not a link to ")),
            "{}",
            text(&o.stdout)
        );
        assert_eq!(snapshot(), before);
        let left: Vec<_> = std::fs::read_dir(links).unwrap().collect();
        assert_eq!(left.len(), 1);
    });
}

/// A stand-in alternatives command in a directory of its own, for PATH.
fn fake_tool(d: &Path, name: &str, script: &str) -> String {
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let p = bin.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{script}")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin.display().to_string()
}

fn install_with_path(args: &[&str], path: &str) -> Output {
    Command::new(BIN)
        .arg("install-links")
        .args(args)
        .env("PATH", path)
        .output()
        .unwrap()
}

/// No alternatives command, a failing one, one whose output is not understood, a broken
/// state file: exit 1 with the reason in words, and nothing created when the check comes
/// first.
#[test]
fn alternatives_errors_in_words() {
    let d = TempDir::new();
    let links = d.0.join("links");
    std::fs::create_dir(&links).unwrap();
    let dir = links.to_str().unwrap();
    let empty = d.0.join("empty");
    std::fs::create_dir(&empty).unwrap();

    let o = install_with_path(&["--alternatives", dir], empty.to_str().unwrap());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "iptnl install-links: neither update-alternatives (Debian, Ubuntu) nor alternatives \
         (Fedora, RHEL) was found on PATH: this system has no alternatives system to register \
         iptnl with\n"
    );
    assert_eq!(std::fs::read_dir(&links).unwrap().count(), 0);
    let o = install_with_path(
        &["--remove", "--alternatives", dir],
        empty.to_str().unwrap(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("neither update-alternatives"));
    // Without --alternatives and without a record, --remove needs no alternatives command.
    let o = install_with_path(&["--remove", dir], empty.to_str().unwrap());
    assert!(o.status.success(), "{}", text(&o.stderr));

    // A command that refuses: its words, its exit status, the command line.
    let bin = fake_tool(
        &d.0,
        "alternatives",
        "case \"$1\" in\n\
         --query) echo \"alternatives: unknown option --query\" >&2; exit 2;;\n\
         --display) echo \"iptables - status is auto.\"; echo \" link currently points to /usr/sbin/iptables-nft\"; \
         echo \"/usr/sbin/iptables-nft - priority 10\"; echo \" follower ip6tables: /usr/sbin/ip6tables-nft\"; exit 0;;\n\
         --install) echo \"the primary link for iptables must be /usr/sbin/iptables\" >&2; exit 2;;\n\
         esac\nexit 0\n",
    );
    let o = install_with_path(&["--alternatives", dir], &bin);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!(
            "iptnl install-links: `alternatives --install /usr/sbin/iptables iptables \
             {dir}/iptables-iptnl 5 --slave /usr/sbin/ip6tables ip6tables {dir}/ip6tables-iptnl` \
             failed (exit status 2):\n  the primary link for iptables must be /usr/sbin/iptables\n"
        )
    );

    // Output that is not understood.
    let d2 = TempDir::new();
    let bin = fake_tool(
        &d2.0,
        "update-alternatives",
        "echo 'Name: iptables'\nexit 0\n",
    );
    let o = install_with_path(&["--alternatives", dir], &bin);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).starts_with(
            "iptnl install-links: `update-alternatives --query iptables` printed what is not understood:\n"
        ),
        "{}",
        text(&o.stderr)
    );

    // A broken record.
    std::fs::write(links.join(".iptnl-alternatives"), "iptables sideways\n").unwrap();
    let o = install(&["--remove", dir]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!(
            "iptnl install-links: {dir}/.iptnl-alternatives: line 1 not understood: iptables sideways\n"
        )
    );
}

/// Failures of the real command, in words: registering as an unprivileged user (the
/// alternatives command's own message and exit status), and a previous choice that has
/// been unregistered since (reported; the links are removed all the same).
#[test]
fn alternatives_failures_in_words() {
    in_mount_ns("alternatives_failures_in_words", |links| {
        let dir = links.to_str().unwrap();
        if common::have("setpriv") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(links, std::fs::Permissions::from_mode(0o777)).unwrap();
            let before = snapshot();
            let o = as_nobody()
                .args(["install-links", "--alternatives", dir])
                .output()
                .unwrap();
            if !text(&o.stderr).contains("setpriv:") {
                assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
                let err = text(&o.stderr);
                assert!(
                    err.starts_with(&format!(
                        "iptnl install-links: `update-alternatives --install /usr/sbin/iptables \
                         iptables {dir}/iptables-iptnl 5 --slave"
                    )) && err.contains("` failed (exit status 2):\n  update-alternatives: error: "),
                    "{err}"
                );
                assert_eq!(snapshot(), before);
                // The record was written first; --remove (as root) cleans up.
                let o = install(&["--remove", dir]);
                assert!(o.status.success(), "{}", text(&o.stderr));
                assert_eq!(std::fs::read_dir(links).unwrap().count(), 0);
            }
        }

        ua(&["--set", "iptables", "/usr/sbin/iptables-legacy"]);
        let o = install(&["--alternatives", "--set", dir]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        ua(&["--remove", "iptables", "/usr/sbin/iptables-legacy"]);
        let o = install(&["--remove", dir]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            text(&o.stderr),
            "iptnl install-links: iptables: the previous choice /usr/sbin/iptables-legacy is \
             no longer registered; the group is left in automatic mode\n"
        );
        assert_eq!(field(&query("iptables"), "Status"), "auto");
        assert_eq!(std::fs::read_dir(links).unwrap().count(), 0);
    });
}

/// The iptnl binary run as user and group 65534 (nobody), with no supplementary groups.
fn as_nobody() -> Command {
    let mut c = Command::new("setpriv");
    c.args([
        "--reuid",
        "65534",
        "--regid",
        "65534",
        "--clear-groups",
        BIN,
    ]);
    c
}
