//! The alternatives system (`update-alternatives` on Debian/Ubuntu, `alternatives` on
//! Fedora/RHEL): registering iptnl for the groups `iptables` and `ip6tables`, recording each
//! group's previous mode and choice, and giving them back.
//!
//! Everything here talks to the system only through the alternatives command; the parsers
//! for its `--query` (Debian) and `--display` (Debian and Fedora) output and for the state
//! file are pure.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tool names the alternatives get: one per name a group may link, in the style of
/// Debian's `iptables-nft`/`iptables-legacy`.
pub const ALT_NAMES: &[&str] = &[
    "iptables-iptnl",
    "ip6tables-iptnl",
    "iptables-iptnl-save",
    "ip6tables-iptnl-save",
    "iptables-iptnl-restore",
    "ip6tables-iptnl-restore",
];

/// The groups iptnl registers in (Debian's layout; on Fedora `ip6tables` is a slave of
/// `iptables` and has no group of its own).
pub const GROUPS: &[&str] = &["iptables", "ip6tables"];

/// The default priority: below Debian's iptables-nft (20) and iptables-legacy (10) and
/// Fedora's (10), so that registering alone changes no link.
pub const DEFAULT_PRIORITY: i32 = 5;

/// The state file in DIR: each group's mode and choice before iptnl was registered.
pub const STATE_FILE: &str = ".iptnl-alternatives";

/// The -iptnl name for a name a group links (`iptables-save` → `iptables-iptnl-save`).
pub fn alt_name(name: &str) -> Option<String> {
    for fam in ["ip6tables", "iptables"] {
        if let Some(rest) = name.strip_prefix(fam) {
            if matches!(rest, "" | "-save" | "-restore") {
                return Some(format!("{fam}-iptnl{rest}"));
            }
        }
    }
    None
}

/// A group's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Auto,
    Manual,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Auto => "auto",
            Status::Manual => "manual",
        }
    }
}

/// What the alternatives command reports about a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    /// The master link (`/usr/sbin/iptables`).
    pub link: String,
    pub status: Status,
    /// The selected alternative, if any.
    pub value: Option<String>,
    /// Slave names and their links.
    pub slaves: Vec<(String, String)>,
    /// Every registered alternative (master paths).
    pub alternatives: Vec<String>,
}

/// Parses `update-alternatives --query NAME` output (Debian).
pub fn parse_query(text: &str) -> Option<Group> {
    let mut stanzas = text.split("\n\n");
    let head = stanzas.next()?;
    let mut name = None;
    let mut link = None;
    let mut status = None;
    let mut value = None;
    let mut slaves = Vec::new();
    let mut in_slaves = false;
    for line in head.lines() {
        if let Some(s) = line.strip_prefix(' ') {
            if in_slaves {
                if let Some((n, l)) = s.split_once(' ') {
                    slaves.push((n.to_owned(), l.to_owned()));
                }
            }
            continue;
        }
        in_slaves = false;
        let Some((key, val)) = line.split_once(':') else {
            continue;
        };
        let val = val.trim_start();
        match key {
            "Name" => name = Some(val.to_owned()),
            "Link" => link = Some(val.to_owned()),
            "Slaves" => in_slaves = true,
            "Status" => {
                status = match val {
                    "auto" => Some(Status::Auto),
                    "manual" => Some(Status::Manual),
                    _ => None,
                }
            }
            "Value" if val != "none" && !val.is_empty() => value = Some(val.to_owned()),
            _ => {}
        }
    }
    let alternatives = stanzas
        .flat_map(|s| s.lines())
        .filter_map(|l| l.strip_prefix("Alternative: "))
        .map(str::to_owned)
        .collect();
    Some(Group {
        name: name?,
        link: link?,
        status: status?,
        value,
        slaves,
        alternatives,
    })
}

/// Parses `--display NAME` output: Debian's (`NAME - auto mode`, `link currently points to`,
/// `slave N is L`) or Fedora's (`NAME - status is auto.`, ` slave N: T` / ` follower N: T`).
/// Slave links Fedora does not show are taken to sit beside the master link.
pub fn parse_display(name: &str, text: &str) -> Option<Group> {
    let mut lines = text.lines();
    let first = lines.next()?;
    let mode = first.strip_prefix(name)?.strip_prefix(" - ")?;
    let status = if mode.contains("manual") {
        Status::Manual
    } else if mode.contains("auto") {
        Status::Auto
    } else {
        return None;
    };
    let mut link = None;
    let mut value = None;
    let mut slaves: Vec<(String, String)> = Vec::new();
    let mut fedora_slaves: Vec<String> = Vec::new();
    let mut alternatives = Vec::new();
    for line in lines {
        let t = line.trim_start();
        if let Some(v) = t.strip_prefix("link currently points to ") {
            value = Some(v.to_owned());
        } else if let Some(rest) = t.strip_prefix("link ") {
            if let Some(l) = rest.strip_prefix(name).and_then(|r| r.strip_prefix(" is ")) {
                link = Some(l.to_owned());
            }
        } else if let Some(rest) = t
            .strip_prefix("slave ")
            .or_else(|| t.strip_prefix("follower "))
        {
            if let Some((n, l)) = rest.split_once(" is ") {
                slaves.push((n.to_owned(), l.to_owned()));
            } else if let Some((n, _)) = rest.split_once(':') {
                if !fedora_slaves.iter().any(|s| s == n) {
                    fedora_slaves.push(n.to_owned());
                }
            }
        } else if !line.starts_with(' ') {
            if let Some((path, rest)) = line.split_once(" - ") {
                if rest.contains("priority") {
                    alternatives.push(path.to_owned());
                }
            }
        }
    }
    let link = link.unwrap_or_else(|| format!("/usr/sbin/{name}"));
    if slaves.is_empty() {
        let dir = Path::new(&link).parent().unwrap_or(Path::new("/usr/sbin"));
        slaves = fedora_slaves
            .into_iter()
            .map(|n| {
                let l = dir.join(&n).display().to_string();
                (n, l)
            })
            .collect();
    }
    Some(Group {
        name: name.to_owned(),
        link,
        status,
        value: value.filter(|v| v != "none" && !v.is_empty()),
        slaves,
        alternatives,
    })
}

/// One group's record in the state file: absent (`None`), or its mode and choice.
pub type Recorded = Option<(Status, Option<String>)>;

/// The state file's text.
pub fn format_state(entries: &[(String, Recorded)]) -> String {
    let mut s = String::from(
        "# iptnl install-links --alternatives: each group's mode and choice before iptnl\n\
         # was registered; `iptnl install-links --remove DIR` restores them.\n",
    );
    for (name, rec) in entries {
        match rec {
            None => s.push_str(&format!("{name} none\n")),
            Some((st, v)) => {
                s.push_str(&format!("{name} {}", st.word()));
                if let Some(v) = v {
                    s.push(' ');
                    s.push_str(v);
                }
                s.push('\n');
            }
        }
    }
    s
}

/// Parses the state file; an error names the first line not understood.
pub fn parse_state(text: &str) -> Result<Vec<(String, Recorded)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.splitn(3, ' ');
        let name = it.next().unwrap_or_default();
        let mode = it.next().unwrap_or_default();
        let value = it.next().filter(|v| !v.is_empty()).map(str::to_owned);
        let rec = match mode {
            "none" if value.is_none() => None,
            "auto" => Some((Status::Auto, value)),
            "manual" => Some((Status::Manual, value)),
            _ => return Err(format!("line {} not understood: {line}", i + 1)),
        };
        if name.is_empty() {
            return Err(format!("line {} not understood: {line}", i + 1));
        }
        out.push((name.to_owned(), rec));
    }
    Ok(out)
}

/// The alternatives command found on PATH.
#[derive(Debug)]
pub struct Tool {
    pub program: PathBuf,
}

/// Finds `update-alternatives`, else `alternatives`, on `path` (PATH's value; a default
/// search list when unset).
pub fn find_tool(path: Option<&OsStr>) -> Result<Tool, String> {
    let default = OsStr::new("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    let path = path.unwrap_or(default);
    for name in ["update-alternatives", "alternatives"] {
        for dir in std::env::split_paths(path) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let p = dir.join(name);
            if is_executable(&p) {
                return Ok(Tool { program: p });
            }
        }
    }
    Err(
        "neither update-alternatives (Debian, Ubuntu) nor alternatives (Fedora, RHEL) \
         was found on PATH: this system has no alternatives system to register iptnl with"
            .to_owned(),
    )
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The result of one run of the alternatives command.
struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
    status: String,
}

impl Tool {
    fn name(&self) -> String {
        self.program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.program.display().to_string())
    }

    fn spawn(&self, args: &[String]) -> Result<Run, String> {
        let out = Command::new(&self.program)
            .args(args)
            .env("LC_ALL", "C")
            .output()
            .map_err(|e| {
                format!(
                    "cannot run {}: {}",
                    self.program.display(),
                    super::strerror(&e)
                )
            })?;
        Ok(Run {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_owned(),
            status: match out.status.code() {
                Some(c) => format!("exit status {c}"),
                None => "killed by a signal".to_owned(),
            },
        })
    }

    fn failed(&self, args: &[String], r: &Run) -> String {
        let mut msg = format!("`{} {}` failed ({})", self.name(), args.join(" "), r.status);
        if !r.stderr.is_empty() {
            msg.push_str(":\n  ");
            msg.push_str(&r.stderr.replace('\n', "\n  "));
        }
        msg
    }

    /// Runs a command that changes something; passes its own report through to stdout.
    pub fn change(&self, args: &[String]) -> Result<(), String> {
        let r = self.spawn(args)?;
        if !r.ok {
            return Err(self.failed(args, &r));
        }
        print!("{}", r.stdout);
        Ok(())
    }

    /// The group as the command reports it; `None` when the group does not exist.
    pub fn group(&self, name: &str) -> Result<Option<Group>, String> {
        let args = vec!["--query".to_owned(), name.to_owned()];
        let r = self.spawn(&args)?;
        if r.ok {
            return parse_query(&r.stdout).map(Some).ok_or_else(|| {
                format!(
                    "`{} --query {name}` printed what is not understood:\n{}",
                    self.name(),
                    r.stdout
                )
            });
        }
        if r.stderr.contains("no alternatives for") {
            return Ok(None);
        }
        // Fedora's alternatives has no --query.
        let dargs = vec!["--display".to_owned(), name.to_owned()];
        let d = self.spawn(&dargs)?;
        if d.ok {
            return parse_display(name, &d.stdout).map(Some).ok_or_else(|| {
                format!(
                    "`{} --display {name}` printed what is not understood:\n{}",
                    self.name(),
                    d.stdout
                )
            });
        }
        if d.stderr.contains("no alternatives for")
            || d.stderr.contains("No such file or directory")
        {
            return Ok(None);
        }
        Err(self.failed(&dargs, &d))
    }
}

/// The `--install` arguments registering `dir`'s -iptnl links for a group: the master link
/// and the slaves the group has (or Debian's when it does not exist), each slave that has an
/// -iptnl name.
pub fn install_args(
    name: &str,
    existing: Option<&Group>,
    dir: &Path,
    priority: i32,
) -> Option<Vec<String>> {
    let master = dir.join(alt_name(name)?).display().to_string();
    let (link, slaves) = match existing {
        Some(g) => (g.link.clone(), g.slaves.clone()),
        None => (
            format!("/usr/sbin/{name}"),
            ["restore", "save"]
                .iter()
                .map(|s| (format!("{name}-{s}"), format!("/usr/sbin/{name}-{s}")))
                .collect(),
        ),
    };
    let mut args = vec![
        "--install".to_owned(),
        link,
        name.to_owned(),
        master,
        priority.to_string(),
    ];
    for (sname, slink) in slaves {
        if let Some(a) = alt_name(&sname) {
            args.push("--slave".to_owned());
            args.push(slink);
            args.push(sname);
            args.push(dir.join(a).display().to_string());
        }
    }
    Some(args)
}

/// The alternative path iptnl registers for group `name` from `dir`.
pub fn alt_path(name: &str, dir: &Path) -> String {
    dir.join(alt_name(name).unwrap_or_else(|| format!("{name}-iptnl")))
        .display()
        .to_string()
}

/// The groups to register in, given the `iptables` group: `ip6tables` only when it is not
/// already a slave of `iptables` (Fedora's layout).
pub fn groups_for(iptables: Option<&Group>) -> Vec<&'static str> {
    let v6_is_slave = iptables.is_some_and(|g| g.slaves.iter().any(|(n, _)| n == "ip6tables"));
    GROUPS
        .iter()
        .copied()
        .filter(|g| !(v6_is_slave && *g == "ip6tables"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUERY: &str = "Name: iptables
Link: /usr/sbin/iptables
Slaves:
 iptables-restore /usr/sbin/iptables-restore
 iptables-save /usr/sbin/iptables-save
Status: auto
Best: /usr/sbin/iptables-nft
Value: /usr/sbin/iptables-nft

Alternative: /usr/sbin/iptables-legacy
Priority: 10
Slaves:
 iptables-restore /usr/sbin/iptables-legacy-restore
 iptables-save /usr/sbin/iptables-legacy-save

Alternative: /usr/sbin/iptables-nft
Priority: 20
Slaves:
 iptables-restore /usr/sbin/iptables-nft-restore
 iptables-save /usr/sbin/iptables-nft-save
";

    fn debian_group() -> Group {
        Group {
            name: "iptables".into(),
            link: "/usr/sbin/iptables".into(),
            status: Status::Auto,
            value: Some("/usr/sbin/iptables-nft".into()),
            slaves: vec![
                (
                    "iptables-restore".into(),
                    "/usr/sbin/iptables-restore".into(),
                ),
                ("iptables-save".into(), "/usr/sbin/iptables-save".into()),
            ],
            alternatives: vec![
                "/usr/sbin/iptables-legacy".into(),
                "/usr/sbin/iptables-nft".into(),
            ],
        }
    }

    #[test]
    fn query() {
        assert_eq!(parse_query(QUERY), Some(debian_group()));
        let manual = QUERY
            .replace("Status: auto", "Status: manual")
            .replace("Value: /usr/sbin/iptables-nft", "Value: none");
        let g = parse_query(&manual).unwrap();
        assert_eq!((g.status, g.value), (Status::Manual, None));
        assert_eq!(parse_query(""), None);
        assert_eq!(parse_query("Name: x\nStatus: sideways\n"), None);
        assert_eq!(parse_query("\u{0}:\n\n\n:"), None);
    }

    #[test]
    fn display_debian() {
        let text = "iptables - auto mode
  link best version is /usr/sbin/iptables-nft
  link currently points to /usr/sbin/iptables-nft
  link iptables is /usr/sbin/iptables
  slave iptables-restore is /usr/sbin/iptables-restore
  slave iptables-save is /usr/sbin/iptables-save
/usr/sbin/iptables-legacy - priority 10
  slave iptables-restore: /usr/sbin/iptables-legacy-restore
  slave iptables-save: /usr/sbin/iptables-legacy-save
/usr/sbin/iptables-nft - priority 20
  slave iptables-restore: /usr/sbin/iptables-nft-restore
  slave iptables-save: /usr/sbin/iptables-nft-save
";
        assert_eq!(parse_display("iptables", text), Some(debian_group()));
    }

    #[test]
    fn display_fedora() {
        let text = "iptables - status is manual.
 link currently points to /usr/sbin/iptables-legacy
/usr/sbin/iptables-nft - priority 10
 follower ip6tables: /usr/sbin/ip6tables-nft
 follower iptables-restore: /usr/sbin/iptables-nft-restore
 follower iptables-save: /usr/sbin/iptables-nft-save
/usr/sbin/iptables-legacy - family x priority 10
 follower ip6tables: /usr/sbin/ip6tables-legacy
Current `best' version is /usr/sbin/iptables-nft.
";
        let g = parse_display("iptables", text).unwrap();
        assert_eq!(g.status, Status::Manual);
        assert_eq!(g.value.as_deref(), Some("/usr/sbin/iptables-legacy"));
        assert_eq!(g.link, "/usr/sbin/iptables");
        assert_eq!(
            g.slaves,
            vec![
                ("ip6tables".to_owned(), "/usr/sbin/ip6tables".to_owned()),
                (
                    "iptables-restore".to_owned(),
                    "/usr/sbin/iptables-restore".to_owned()
                ),
                (
                    "iptables-save".to_owned(),
                    "/usr/sbin/iptables-save".to_owned()
                ),
            ]
        );
        assert_eq!(
            g.alternatives,
            vec!["/usr/sbin/iptables-nft", "/usr/sbin/iptables-legacy"]
        );
        // Fedora's layout: no ip6tables group of its own.
        assert_eq!(groups_for(Some(&g)), vec!["iptables"]);
        assert_eq!(groups_for(Some(&debian_group())), GROUPS);
        assert_eq!(groups_for(None), GROUPS);
        assert_eq!(parse_display("iptables", "ip6tables - auto mode\n"), None);
        assert_eq!(parse_display("iptables", ""), None);
    }

    #[test]
    fn names() {
        assert_eq!(alt_name("iptables").as_deref(), Some("iptables-iptnl"));
        assert_eq!(
            alt_name("ip6tables-save").as_deref(),
            Some("ip6tables-iptnl-save")
        );
        assert_eq!(alt_name("iptables-xml"), None);
        assert_eq!(alt_name("ebtables"), None);
        for n in GROUPS {
            for s in ["", "-save", "-restore"] {
                let a = alt_name(&format!("{n}{s}")).unwrap();
                assert!(ALT_NAMES.contains(&a.as_str()), "{a}");
            }
        }
    }

    #[test]
    fn install_arguments() {
        let dir = Path::new("/opt/iptnl/bin");
        let a = install_args("iptables", Some(&debian_group()), dir, 5).unwrap();
        assert_eq!(
            a.join(" "),
            "--install /usr/sbin/iptables iptables /opt/iptnl/bin/iptables-iptnl 5 \
             --slave /usr/sbin/iptables-restore iptables-restore /opt/iptnl/bin/iptables-iptnl-restore \
             --slave /usr/sbin/iptables-save iptables-save /opt/iptnl/bin/iptables-iptnl-save"
        );
        let b = install_args("ip6tables", None, dir, -3).unwrap();
        assert_eq!(
            b.join(" "),
            "--install /usr/sbin/ip6tables ip6tables /opt/iptnl/bin/ip6tables-iptnl -3 \
             --slave /usr/sbin/ip6tables-restore ip6tables-restore /opt/iptnl/bin/ip6tables-iptnl-restore \
             --slave /usr/sbin/ip6tables-save ip6tables-save /opt/iptnl/bin/ip6tables-iptnl-save"
        );
        assert_eq!(install_args("ebtables", None, dir, 5), None);
        assert_eq!(alt_path("iptables", dir), "/opt/iptnl/bin/iptables-iptnl");
    }

    #[test]
    fn state_round_trip() {
        let entries = vec![
            (
                "iptables".to_owned(),
                Some((Status::Auto, Some("/usr/sbin/iptables-nft".to_owned()))),
            ),
            (
                "ip6tables".to_owned(),
                Some((
                    Status::Manual,
                    Some("/opt/with space/ip6tables-legacy".to_owned()),
                )),
            ),
            ("other".to_owned(), None),
            ("x".to_owned(), Some((Status::Manual, None))),
        ];
        let text = format_state(&entries);
        assert_eq!(parse_state(&text).unwrap(), entries);
        assert_eq!(
            parse_state("iptables sideways /x\n").unwrap_err(),
            "line 1 not understood: iptables sideways /x"
        );
        assert!(parse_state("iptables none /x\n").is_err());
        assert!(parse_state(" auto\n").is_err());
        assert!(parse_state("\u{0}\u{0}\n\n#\n").is_err());
    }

    #[test]
    fn no_tool_on_an_empty_path() {
        let e = find_tool(Some(OsStr::new("/nonexistent-iptnl-dir"))).unwrap_err();
        assert!(e.contains("neither update-alternatives"), "{e}");
    }
}
