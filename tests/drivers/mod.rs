//! Test-side ports of the programs that run the `iptables` binary by name, so tests can drive
//! iptnl and iptables-nft exactly as those programs do: the same `PATH` lookup, the same
//! argument orders, the same output parsing and exit-status handling.
//!
//! - [`GoIptables`]: github.com/coreos/go-iptables, `iptables/iptables.go` (v0.8).
//! - [`RustIptables`]: the `iptables` crate, github.com/yaa110/rust-iptables `src/lib.rs`.
//!
//! [`Tools`] is a directory placed first on `PATH` that holds the tool names: for iptnl made
//! by `iptnl install-links`, for the oracle links to `/usr/sbin/xtables-nft-multi`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// The multi-call binary of iptables-nft.
pub const XTABLES_NFT_MULTI: &str = "/usr/sbin/xtables-nft-multi";

/// Which implementation a [`Tools`] directory points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impl {
    /// iptables-nft 1.8.9 (the oracle).
    Oracle,
    /// iptnl, linked by `iptnl install-links`.
    Iptnl,
}

/// A temporary directory with `iptables`, `ip6tables`, `*-save`, `*-restore` in it, and the
/// `PATH` that puts it first.
pub struct Tools {
    pub which: Impl,
    pub dir: PathBuf,
    pub path_env: String,
}

impl Tools {
    /// Whether the oracle is installed.
    pub fn have_oracle() -> bool {
        Path::new(XTABLES_NFT_MULTI).exists()
    }

    pub fn new(which: Impl) -> Tools {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "iptnl-drivers-{}-{}-{which:?}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        match which {
            Impl::Iptnl => {
                // IPTNL_BIN: another build of iptnl (e.g. target/release/iptnl) to link.
                let bin = std::env::var("IPTNL_BIN").unwrap_or_else(|_| BIN.to_owned());
                let o = Command::new(bin)
                    .arg("install-links")
                    .arg(&dir)
                    .output()
                    .unwrap();
                assert!(
                    o.status.success(),
                    "install-links: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
            Impl::Oracle => {
                for n in [
                    "iptables",
                    "ip6tables",
                    "iptables-save",
                    "ip6tables-save",
                    "iptables-restore",
                    "ip6tables-restore",
                ] {
                    std::os::unix::fs::symlink(XTABLES_NFT_MULTI, dir.join(n)).unwrap();
                }
            }
        }
        let path_env = format!(
            "{}:{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Tools {
            which,
            dir,
            path_env,
        }
    }

    /// Go's `exec.LookPath(file)` on this `PATH`: the first executable regular file.
    pub fn look_path(&self, file: &str) -> Option<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        self.path_env.split(':').find_map(|d| {
            let d = if d.is_empty() { "." } else { d };
            let p = Path::new(d).join(file);
            let m = std::fs::metadata(&p).ok()?;
            (m.is_file() && m.permissions().mode() & 0o111 != 0).then_some(p)
        })
    }

    /// A command for `name` as found on this `PATH` (argv[0] is the full path, as Go's
    /// `exec.Cmd{Path: path, Args: append([]string{path}, args...)}` sets it).
    pub fn command(&self, name: &str) -> Command {
        let p = self
            .look_path(name)
            .unwrap_or_else(|| panic!("{name} not found on {}", self.path_env));
        let mut c = Command::new(p);
        c.env("PATH", &self.path_env);
        c
    }

    /// Runs `name args…` with optional stdin; the raw output.
    pub fn exec(&self, name: &str, args: &[&str], stdin: Option<&str>) -> Output {
        use std::io::Write;
        let mut c = self.command(name);
        c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        c.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = c.spawn().unwrap();
        if let Some(s) = stdin {
            child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
        }
        child.wait_with_output().unwrap()
    }
}

impl Drop for Tools {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The version in messages: iptables-nft 1.8.9 says `v1.8.9 (nf_tables)`, iptnl
/// `v1.8.11 (nf_tables)` (and `-V` adds ` (iptnl X.Y.Z)`).
pub fn normalize(s: &str) -> String {
    s.replace(&format!(" (iptnl {})", env!("CARGO_PKG_VERSION")), "")
        .replace("v1.8.9 (nf_tables)", "VERSION")
        .replace("v1.8.11 (nf_tables)", "VERSION")
}

/// Go's `regexp.FindStringSubmatch` for `v([0-9]+)\.([0-9]+)\.([0-9]+)(?:\s+\((\w+))?`
/// (go-iptables `extractIptablesVersion`): the first match, leftmost.
pub fn go_version_match(s: &str) -> Option<(u64, u64, u64, Option<String>)> {
    let b = s.as_bytes();
    for start in 0..b.len() {
        if b[start] != b'v' {
            continue;
        }
        let mut i = start + 1;
        let mut nums = [0u64; 3];
        let mut ok = true;
        for (k, n) in nums.iter_mut().enumerate() {
            let d0 = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == d0 {
                ok = false;
                break;
            }
            *n = s[d0..i].parse().unwrap_or(u64::MAX);
            if k < 2 {
                if i < b.len() && b[i] == b'.' {
                    i += 1;
                } else {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            continue;
        }
        // (?:\s+\((\w+))?
        let mut j = i;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        let mut mode = None;
        if j > i && j < b.len() && b[j] == b'(' {
            let w0 = j + 1;
            let mut w = w0;
            while w < b.len() && (b[w].is_ascii_alphanumeric() || b[w] == b'_') {
                w += 1;
            }
            if w > w0 {
                mode = Some(s[w0..w].to_owned());
            }
        }
        return Some((nums[0], nums[1], nums[2], mode));
    }
    None
}

/// A failed iptables run as go-iptables reports it (`iptables.Error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoError {
    pub args: Vec<String>,
    pub status: i32,
    /// stderr.
    pub msg: String,
}

impl GoError {
    /// `(*Error).IsNotExist`: exit 1 and one of the two messages (with their newline).
    pub fn is_not_exist(&self) -> bool {
        self.status == 1
            && (self
                .msg
                .contains("Bad rule (does a matching rule exist in that chain?).\n")
                || self.msg.contains("No chain/target/match by that name.\n"))
    }

    /// What a caller would log or compare: status, IsNotExist, the normalized stderr.
    pub fn summary(&self) -> String {
        format!(
            "exit status {} (IsNotExist={}): {:?}",
            self.status,
            self.is_not_exist(),
            normalize(&self.msg)
        )
    }
}

/// `iptables.Stat`, the parsed row of `Stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoStat {
    pub packets: u64,
    pub bytes: u64,
    pub target: String,
    pub protocol: String,
    pub opt: String,
    pub input: String,
    pub output: String,
    /// `net.ParseCIDR` network, as `IPNet.String()` prints it.
    pub source: String,
    pub destination: String,
    pub options: String,
}

/// Go's `net.ParseCIDR`, returning the network as `IPNet.String()` prints it.
fn go_parse_cidr(s: &str) -> Result<String, String> {
    let (ip, len) = s
        .split_once('/')
        .ok_or_else(|| format!("invalid CIDR {s}"))?;
    let len: u32 = len.parse().map_err(|_| format!("invalid CIDR {s}"))?;
    let ip: std::net::IpAddr = ip.parse().map_err(|_| format!("invalid CIDR {s}"))?;
    match ip {
        std::net::IpAddr::V4(a) if len <= 32 => {
            let m = if len == 0 { 0 } else { u32::MAX << (32 - len) };
            Ok(format!(
                "{}/{len}",
                std::net::Ipv4Addr::from(u32::from(a) & m)
            ))
        }
        std::net::IpAddr::V6(a) if len <= 128 => {
            let m = if len == 0 {
                0
            } else {
                u128::MAX << (128 - len)
            };
            Ok(format!(
                "{}/{len}",
                std::net::Ipv6Addr::from(u128::from(a) & m)
            ))
        }
        _ => Err(format!("invalid CIDR {s}")),
    }
}

/// go-iptables' `IPTables`, running the binary found on the [`Tools`] `PATH`.
pub struct GoIptables<'a> {
    tools: &'a Tools,
    path: PathBuf,
    pub v6: bool,
    pub has_check: bool,
    pub has_wait: bool,
    pub wait_support_second: bool,
    pub has_random_fully: bool,
    pub version: (u64, u64, u64),
    pub mode: String,
    /// `Timeout(n)`: `--wait n` when the version supports seconds.
    pub timeout: u32,
    /// How many iptables processes ran.
    pub runs: std::cell::Cell<usize>,
    /// Per command (`-A`, `-C`, `-S`, …): how many ran and their total wall time.
    pub profile:
        std::cell::RefCell<std::collections::BTreeMap<String, (usize, std::time::Duration)>>,
}

impl<'a> GoIptables<'a> {
    /// `iptables.New(IPFamily(proto), Timeout(timeout))`: `exec.LookPath`, then
    /// `iptables --version` and `extractIptablesVersion`, then `getIptablesCommandSupport`.
    pub fn new(tools: &'a Tools, v6: bool, timeout: u32) -> Result<GoIptables<'a>, String> {
        let name = if v6 { "ip6tables" } else { "iptables" };
        let path = tools
            .look_path(name)
            .ok_or_else(|| format!("exec: \"{name}\": executable file not found in $PATH"))?;
        // getIptablesVersionString: stdout only; a failing run is an error.
        let o = Command::new(&path)
            .arg("--version")
            .env("PATH", &tools.path_env)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!("could not get iptables version: {}", o.status));
        }
        let vstring = String::from_utf8_lossy(&o.stdout).into_owned();
        let (v1, v2, v3, mode) = go_version_match(&vstring).ok_or_else(|| {
            format!("failed to extract iptables version from [{vstring}]: no iptables version found in string: {vstring}")
        })?;
        // iptablesHasCheckCommand (>= 1.4.11), iptablesHasWaitCommand (>= 1.4.20),
        // iptablesWaitSupportSecond (>= 1.6.0), iptablesHasRandomFully (>= 1.6.2).
        let ge = |a: u64, b: u64, c: u64| (v1, v2, v3) >= (a, b, c);
        Ok(GoIptables {
            tools,
            path,
            v6,
            has_check: ge(1, 4, 11),
            has_wait: ge(1, 4, 20),
            wait_support_second: v1 > 1 || (v1 == 1 && v2 >= 6),
            has_random_fully: ge(1, 6, 2),
            version: (v1, v2, v3),
            mode: mode.unwrap_or_else(|| "legacy".to_owned()),
            timeout,
            runs: std::cell::Cell::new(0),
            profile: Default::default(),
        })
    }

    /// `runWithOutput`: `path args… --wait [timeout]`, stdout kept, stderr in the error.
    pub fn run_with_output(&self, args: &[&str]) -> Result<String, GoError> {
        let mut full: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        if self.has_wait {
            full.push("--wait".into());
            if self.timeout != 0 && self.wait_support_second {
                full.push(self.timeout.to_string());
            }
        }
        self.runs.set(self.runs.get() + 1);
        let t0 = std::time::Instant::now();
        let o = Command::new(&self.path)
            .args(&full)
            .env("PATH", &self.tools.path_env)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let op = args
            .iter()
            .find(|a| a.len() == 2 && a.starts_with('-') && *a != &"-t" && *a != &"-v")
            .copied()
            .unwrap_or("?");
        let code = o.status.code().unwrap_or(-1);
        let mut p = self.profile.borrow_mut();
        let e = p.entry(format!("{op} (exit {code})")).or_default();
        e.0 += 1;
        e.1 += t0.elapsed();
        drop(p);
        if o.status.success() {
            // Taken over, not copied (Go's `string(out)` does not check the text at all).
            Ok(String::from_utf8(o.stdout)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        } else {
            Err(GoError {
                args: full,
                status: o.status.code().unwrap_or(-1),
                msg: String::from_utf8_lossy(&o.stderr).into_owned(),
            })
        }
    }

    /// `run`: stdout discarded.
    pub fn run(&self, args: &[&str]) -> Result<(), GoError> {
        self.run_with_output(args).map(|_| ())
    }

    /// `Exists`: `-t T -C CHAIN rulespec…`; exit 1 means false, other failures are errors.
    pub fn exists(&self, table: &str, chain: &str, rulespec: &[&str]) -> Result<bool, GoError> {
        assert!(self.has_check, "go-iptables would use existsForOldIptables");
        let mut a = vec!["-t", table, "-C", chain];
        a.extend_from_slice(rulespec);
        match self.run(&a) {
            Ok(()) => Ok(true),
            Err(e) if e.status == 1 => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `Insert`: `-t T -I CHAIN POS rulespec…`.
    pub fn insert(
        &self,
        table: &str,
        chain: &str,
        pos: usize,
        rulespec: &[&str],
    ) -> Result<(), GoError> {
        let pos = pos.to_string();
        let mut a = vec!["-t", table, "-I", chain, &pos];
        a.extend_from_slice(rulespec);
        self.run(&a)
    }

    /// `Append`: `-t T -A CHAIN rulespec…`.
    pub fn append(&self, table: &str, chain: &str, rulespec: &[&str]) -> Result<(), GoError> {
        let mut a = vec!["-t", table, "-A", chain];
        a.extend_from_slice(rulespec);
        self.run(&a)
    }

    /// `AppendUnique`: `Exists`, then `Append` when missing.
    pub fn append_unique(
        &self,
        table: &str,
        chain: &str,
        rulespec: &[&str],
    ) -> Result<(), GoError> {
        if !self.exists(table, chain, rulespec)? {
            self.append(table, chain, rulespec)?;
        }
        Ok(())
    }

    /// `Delete`: `-t T -D CHAIN rulespec…`.
    pub fn delete(&self, table: &str, chain: &str, rulespec: &[&str]) -> Result<(), GoError> {
        let mut a = vec!["-t", table, "-D", chain];
        a.extend_from_slice(rulespec);
        self.run(&a)
    }

    /// `DeleteIfExists`.
    pub fn delete_if_exists(
        &self,
        table: &str,
        chain: &str,
        rulespec: &[&str],
    ) -> Result<(), GoError> {
        if self.exists(table, chain, rulespec)? {
            self.delete(table, chain, rulespec)?;
        }
        Ok(())
    }

    /// `executeList`: split on `\n`, drop the trailing empty line, `filterRuleOutput`.
    fn execute_list(&self, args: &[&str]) -> Result<Vec<String>, GoError> {
        let out = self.run_with_output(args)?;
        Ok(rule_lines(&out)
            .into_iter()
            .map(|l| l.into_owned())
            .collect())
    }

    /// `List`: `-t T -S CHAIN`.
    pub fn list(&self, table: &str, chain: &str) -> Result<Vec<String>, GoError> {
        self.execute_list(&["-t", table, "-S", chain])
    }

    /// `ListWithCounters`: `-t T -v -S CHAIN`.
    pub fn list_with_counters(&self, table: &str, chain: &str) -> Result<Vec<String>, GoError> {
        self.execute_list(&["-t", table, "-v", "-S", chain])
    }

    /// `ListChains`: `-t T -S`, the `-P`/`-N` lines up to the first other line.
    pub fn list_chains(&self, table: &str) -> Result<Vec<String>, GoError> {
        Ok(chains_of_listing(
            &self.run_with_output(&["-t", table, "-S"])?,
        ))
    }

    /// `ChainExists`: `-t T -S CHAIN 1`; exit 1 means false.
    pub fn chain_exists(&self, table: &str, chain: &str) -> Result<bool, GoError> {
        match self.run(&["-t", table, "-S", chain, "1"]) {
            Ok(()) => Ok(true),
            Err(e) if e.status == 1 => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `Stats`: `-t T -L CHAIN -n -v -x`, the lines after the two header lines split on
    /// whitespace, the ip6tables empty `opt` column re-inserted, `/32` or `/128` added to bare
    /// addresses, and fields 9… joined into the options field.
    pub fn stats(&self, table: &str, chain: &str) -> Result<Vec<Vec<String>>, GoError> {
        let lines = self.execute_list(&["-t", table, "-L", chain, "-n", "-v", "-x"])?;
        let append_subnet = |addr: &str| -> String {
            if !addr.contains('/') {
                if !addr.contains('.') {
                    return format!("{addr}/128");
                }
                return format!("{addr}/32");
            }
            addr.to_owned()
        };
        let mut rows = Vec::new();
        for line in lines.iter().skip(2) {
            let mut fields: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            assert!(
                fields.len() >= 9,
                "Stats would index out of range on {line:?}"
            );
            if self.v6 {
                let dest = &fields[6];
                let is_ip = go_parse_cidr(dest).is_ok() || dest.parse::<std::net::IpAddr>().is_ok();
                if is_ip {
                    fields.insert(4, "  ".to_owned());
                }
            }
            fields[7] = append_subnet(&fields[7]);
            fields[8] = append_subnet(&fields[8]);
            let options = fields.split_off(9).join(" ");
            fields.push(options);
            rows.push(fields);
        }
        Ok(rows)
    }

    /// `ParseStat`.
    pub fn parse_stat(stat: &[String]) -> Result<GoStat, String> {
        if stat.len() < 10 {
            return Err("stat contained fewer fields than expected".into());
        }
        Ok(GoStat {
            packets: stat[0].parse().map_err(|e| format!("packets: {e}"))?,
            bytes: stat[1].parse().map_err(|e| format!("bytes: {e}"))?,
            source: go_parse_cidr(&stat[7])?,
            destination: go_parse_cidr(&stat[8])?,
            target: stat[2].clone(),
            protocol: stat[3].clone(),
            opt: stat[4].clone(),
            input: stat[5].clone(),
            output: stat[6].clone(),
            options: stat[9].clone(),
        })
    }

    /// `NewChain`: `-t T -N CHAIN`.
    pub fn new_chain(&self, table: &str, chain: &str) -> Result<(), GoError> {
        self.run(&["-t", table, "-N", chain])
    }

    /// `ClearChain`: `-N`, and on exit status 1 (`existsErr`) `-F`.
    pub fn clear_chain(&self, table: &str, chain: &str) -> Result<(), GoError> {
        match self.new_chain(table, chain) {
            Ok(()) => Ok(()),
            Err(e) if e.status == 1 => self.run(&["-t", table, "-F", chain]),
            Err(e) => Err(e),
        }
    }

    /// `RenameChain`: `-t T -E OLD NEW`.
    pub fn rename_chain(&self, table: &str, old: &str, new: &str) -> Result<(), GoError> {
        self.run(&["-t", table, "-E", old, new])
    }

    /// `DeleteChain`: `-t T -X CHAIN`.
    pub fn delete_chain(&self, table: &str, chain: &str) -> Result<(), GoError> {
        self.run(&["-t", table, "-X", chain])
    }

    /// `ClearAndDeleteChain`: `ChainExists`, `-F`, `-X`.
    pub fn clear_and_delete_chain(&self, table: &str, chain: &str) -> Result<(), GoError> {
        if !self.chain_exists(table, chain)? {
            return Ok(());
        }
        self.run(&["-t", table, "-F", chain])?;
        self.run(&["-t", table, "-X", chain])
    }

    /// `ChangePolicy`: `-t T -P CHAIN TARGET`.
    pub fn change_policy(&self, table: &str, chain: &str, target: &str) -> Result<(), GoError> {
        self.run(&["-t", table, "-P", chain, target])
    }
}

/// go-iptables `filterRuleOutput`: a leading `[P:B] ` (iptables-save counters) becomes a
/// trailing `-c P B`. Any other line is returned as it is, without a copy (a Go string is
/// a view of the output's bytes).
pub fn filter_rule_output(rule: &str) -> std::borrow::Cow<'_, str> {
    let b = rule.as_bytes();
    if b.first() == Some(&b'[') {
        if let Some(close) = rule.find("] ") {
            if let Some((p, by)) = rule[1..close].split_once(':') {
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
                if digits(p) && digits(by) {
                    return format!("{} -c {p} {by}", &rule[close + 2..]).into();
                }
            }
        }
    }
    rule.into()
}

/// What go-iptables `ListChains` makes of the output of `iptables -t T -S`: the names of
/// the `-P`/`-N` lines up to the first other line, after `executeList` has split and
/// filtered every line.
pub fn chains_of_listing(out: &str) -> Vec<String> {
    let mut chains = Vec::new();
    for val in rule_lines(out) {
        if val.starts_with("-P") || val.starts_with("-N") {
            chains.push(val.split_whitespace().nth(1).unwrap_or("").to_owned());
        } else {
            break;
        }
    }
    chains
}

/// go-iptables `executeList`'s lines: the output split on `\n`, the trailing empty line
/// dropped, each through [`filter_rule_output`]. As in Go, a line is a view of the output
/// unless its counters were moved.
pub fn rule_lines(out: &str) -> Vec<std::borrow::Cow<'_, str>> {
    let mut rules: Vec<&str> = out.split('\n').collect();
    if rules.last().is_some_and(|l| l.is_empty()) {
        rules.pop();
    }
    rules.into_iter().map(filter_rule_output).collect()
}

/// github.com/mattn/go-shellwords `Parse` for the lines `List` returns (CNI portmap's
/// teardown): blanks separate words, `"…"` with `\` escapes, `'…'` literal, `\x` outside.
pub fn shellwords(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\\' => {
                cur.push(chars.next().ok_or("trailing backslash")?);
                in_word = true;
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next().ok_or("unterminated double quote")? {
                        '"' => break,
                        '\\' => {
                            let n = chars.next().ok_or("unterminated double quote")?;
                            if !matches!(n, '"' | '\\' | '$' | '`') {
                                cur.push('\\');
                            }
                            cur.push(n);
                        }
                        o => cur.push(o),
                    }
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next().ok_or("unterminated single quote")? {
                        '\'' => break,
                        o => cur.push(o),
                    }
                }
            }
            o => {
                cur.push(o);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// The Rust `iptables` crate's `IPTables` (yaa110/rust-iptables `src/lib.rs`).
pub struct RustIptables<'a> {
    tools: &'a Tools,
    pub cmd: &'static str,
    pub has_check: bool,
    pub has_wait: bool,
    pub is_numeric: bool,
}

/// The crate's `IptablesError`: exit code and stderr.
pub type RustError = (i32, String);

/// `SplitQuoted::split_quoted`: the regex `["'].+?["']|[^ ]+` and the quotes trimmed.
pub fn rust_split_quoted(s: &str) -> Vec<String> {
    let b: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '"' || c == '\'' {
            // ["'] then .+? (at least one char, no newline) then ["']
            let mut j = i + 2;
            let mut end = None;
            while j < b.len() {
                if b[j - 1] == '\n' {
                    break;
                }
                if b[j] == '"' || b[j] == '\'' {
                    end = Some(j);
                    break;
                }
                j += 1;
            }
            if let Some(e) = end {
                let m: String = b[i..=e].iter().collect();
                out.push(m.trim_matches(|c| c == '"' || c == '\'').to_owned());
                i = e + 1;
                continue;
            }
        }
        if c == ' ' {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && b[j] != ' ' {
            j += 1;
        }
        let m: String = b[i..j].iter().collect();
        out.push(m.trim_matches(|c| c == '"' || c == '\'').to_owned());
        i = j;
    }
    out
}

impl<'a> RustIptables<'a> {
    /// `iptables::new(is_ipv6)`: `CMD --version`, `v(\d+)\.(\d+)\.(\d+)`, `-C` from 1.4.11,
    /// `-w` from 1.4.20.
    pub fn new(tools: &'a Tools, is_ipv6: bool) -> Result<RustIptables<'a>, String> {
        let cmd = if is_ipv6 { "ip6tables" } else { "iptables" };
        let o = tools.exec(cmd, &["--version"], None);
        let s = String::from_utf8_lossy(&o.stdout).into_owned();
        let (maj, min, pat, _) = go_version_match(&s).ok_or("invalid version number")?;
        Ok(RustIptables {
            tools,
            cmd,
            has_check: maj > 1 || (maj == 1 && min > 4) || (maj == 1 && min == 4 && pat > 10),
            has_wait: maj > 1 || (maj == 1 && min > 4) || (maj == 1 && min == 4 && pat > 19),
            is_numeric: false,
        })
    }

    /// `run`: `cmd args… [--wait]`.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut a = args.to_vec();
        if self.has_wait {
            a.push("--wait");
        }
        self.tools.exec(self.cmd, &a, None)
    }

    fn checked(o: Output) -> Result<(), RustError> {
        if o.status.success() {
            Ok(())
        } else {
            Err((
                o.status.code().unwrap_or(-1),
                normalize(&String::from_utf8_lossy(&o.stderr)),
            ))
        }
    }

    fn with_rule<'b>(head: &[&'b str], rule: &'b [String]) -> Vec<&'b str> {
        let mut a = head.to_vec();
        a.extend(rule.iter().map(String::as_str));
        a
    }

    /// `get_policy`: `-t T -L CHAIN [-n]`, the `Chain NAME (policy X…` line, `fields[3]`
    /// without `)`.
    pub fn get_policy(&self, table: &str, chain: &str) -> Result<String, String> {
        let mut a = vec!["-t", table, "-L", chain];
        if self.is_numeric {
            a.push("-n");
        }
        let o = self.run(&a);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        for item in out.trim().split('\n') {
            let fields: Vec<&str> = item.split(' ').collect();
            if fields.len() > 1 && fields[0] == "Chain" && fields[1] == chain {
                return Ok(fields.get(3).ok_or("index out of bounds")?.replace(')', ""));
            }
        }
        Err("could not find the default policy for table and chain".into())
    }

    /// `set_policy`: `-t T -P CHAIN POLICY`.
    pub fn set_policy(&self, table: &str, chain: &str, policy: &str) -> Result<(), RustError> {
        Self::checked(self.run(&["-t", table, "-P", chain, policy]))
    }

    /// `exists`: `-t T -C CHAIN rule…`, success means true.
    pub fn exists(&self, table: &str, chain: &str, rule: &str) -> bool {
        assert!(self.has_check);
        let r = rust_split_quoted(rule);
        self.run(&Self::with_rule(&["-t", table, "-C", chain], &r))
            .status
            .success()
    }

    /// `chain_exists`: `-t T -L CHAIN [-n]`, success means true.
    pub fn chain_exists(&self, table: &str, chain: &str) -> bool {
        let mut a = vec!["-t", table, "-L", chain];
        if self.is_numeric {
            a.push("-n");
        }
        self.run(&a).status.success()
    }

    /// `insert`: `-t T -I CHAIN POS rule…`.
    pub fn insert(&self, table: &str, chain: &str, rule: &str, pos: i32) -> Result<(), RustError> {
        let r = rust_split_quoted(rule);
        let p = pos.to_string();
        Self::checked(self.run(&Self::with_rule(&["-t", table, "-I", chain, &p], &r)))
    }

    /// `replace`: `-t T -R CHAIN POS rule…`.
    pub fn replace(&self, table: &str, chain: &str, rule: &str, pos: i32) -> Result<(), RustError> {
        let r = rust_split_quoted(rule);
        let p = pos.to_string();
        Self::checked(self.run(&Self::with_rule(&["-t", table, "-R", chain, &p], &r)))
    }

    /// `append`: `-t T -A CHAIN rule…`.
    pub fn append(&self, table: &str, chain: &str, rule: &str) -> Result<(), RustError> {
        let r = rust_split_quoted(rule);
        Self::checked(self.run(&Self::with_rule(&["-t", table, "-A", chain], &r)))
    }

    /// `append_unique`: an error when the rule exists.
    pub fn append_unique(&self, table: &str, chain: &str, rule: &str) -> Result<(), RustError> {
        if self.exists(table, chain, rule) {
            return Err((0, "the rule exists in the table/chain".into()));
        }
        self.append(table, chain, rule)
    }

    /// `append_replace`: delete when it exists, then append.
    pub fn append_replace(&self, table: &str, chain: &str, rule: &str) -> Result<(), RustError> {
        if self.exists(table, chain, rule) {
            self.delete(table, chain, rule)?;
        }
        self.append(table, chain, rule)
    }

    /// `delete`: `-t T -D CHAIN rule…`.
    pub fn delete(&self, table: &str, chain: &str, rule: &str) -> Result<(), RustError> {
        let r = rust_split_quoted(rule);
        Self::checked(self.run(&Self::with_rule(&["-t", table, "-D", chain], &r)))
    }

    /// `delete_all`: `exists`/`delete` until gone.
    pub fn delete_all(&self, table: &str, chain: &str, rule: &str) -> Result<usize, RustError> {
        let mut n = 0;
        while self.exists(table, chain, rule) {
            self.delete(table, chain, rule)?;
            n += 1;
        }
        Ok(n)
    }

    /// `get_list`: stdout trimmed and split on `\n` (errors are not checked).
    fn get_list(&self, args: &[&str]) -> Vec<String> {
        let o = self.run(args);
        String::from_utf8_lossy(&o.stdout)
            .trim()
            .split('\n')
            .map(String::from)
            .collect()
    }

    /// `list`: `-t T -S CHAIN [-n]`.
    pub fn list(&self, table: &str, chain: &str) -> Vec<String> {
        let mut a = vec!["-t", table, "-S", chain];
        if self.is_numeric {
            a.push("-n");
        }
        self.get_list(&a)
    }

    /// `list_table`: `-t T -S [-n]`.
    pub fn list_table(&self, table: &str) -> Vec<String> {
        let mut a = vec!["-t", table, "-S"];
        if self.is_numeric {
            a.push("-n");
        }
        self.get_list(&a)
    }

    /// `list_chains`: `-t T -S`, every `-P`/`-N` line's second field.
    pub fn list_chains(&self, table: &str) -> Vec<String> {
        let o = self.run(&["-t", table, "-S"]);
        String::from_utf8_lossy(&o.stdout)
            .trim()
            .split('\n')
            .filter_map(|item| {
                let f: Vec<&str> = item.split(' ').collect();
                (f.len() > 1 && (f[0] == "-P" || f[0] == "-N")).then(|| f[1].to_owned())
            })
            .collect()
    }

    /// `new_chain`: `-t T -N CHAIN`.
    pub fn new_chain(&self, table: &str, chain: &str) -> Result<(), RustError> {
        Self::checked(self.run(&["-t", table, "-N", chain]))
    }

    /// `flush_chain`: `-t T -F CHAIN`.
    pub fn flush_chain(&self, table: &str, chain: &str) -> Result<(), RustError> {
        Self::checked(self.run(&["-t", table, "-F", chain]))
    }

    /// `rename_chain`: `-t T -E OLD NEW`.
    pub fn rename_chain(&self, table: &str, old: &str, new: &str) -> Result<(), RustError> {
        Self::checked(self.run(&["-t", table, "-E", old, new]))
    }

    /// `delete_chain`: `-t T -X CHAIN`.
    pub fn delete_chain(&self, table: &str, chain: &str) -> Result<(), RustError> {
        Self::checked(self.run(&["-t", table, "-X", chain]))
    }

    /// `flush_table`: `-t T -F`.
    pub fn flush_table(&self, table: &str) -> Result<(), RustError> {
        Self::checked(self.run(&["-t", table, "-F"]))
    }

    /// `execute`: `-t T` and the command split with `split_quoted`; the raw output.
    pub fn execute(&self, table: &str, command: &str) -> Output {
        let r = rust_split_quoted(command);
        self.run(&Self::with_rule(&["-t", table], &r))
    }
}
