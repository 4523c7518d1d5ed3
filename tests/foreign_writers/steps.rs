//! The steps of the foreign-writer sequences: what each tool runs, the API calls, and the
//! strategies that draw them.

use std::process::{Command, Stdio};

use iptnl::ipt::IpFamily;
use iptnl::iptables::IpTables;
use proptest::prelude::*;

use super::Case;

pub const TABLES: [&str; 2] = ["filter", "nat"];

pub fn builtins(table: &str) -> &'static [&'static str] {
    match table {
        "nat" => &["PREROUTING", "POSTROUTING", "OUTPUT"],
        _ => &["INPUT", "FORWARD", "OUTPUT"],
    }
}

/// A chain by index: mostly the seeded user chains, then the table's built-in chains.
pub fn chain(table: &str, i: u8) -> &'static str {
    let b = builtins(table);
    match usize::from(i) % 16 {
        i @ 0..=11 => user_chain(i as u8),
        i => b[(i - 12) % b.len()],
    }
}

/// A user chain by index, the seeded ones (A, B, C) most often.
pub fn user_chain(i: u8) -> &'static str {
    [
        "A", "A", "A", "B", "B", "B", "C", "C", "D", "D", "G-A", "G-B",
    ][usize::from(i) % 12]
}

/// A rule spec by index, in the words of `family`.
pub fn spec(family: IpFamily, i: u8, c: u8) -> String {
    let (net, host, to) = match family {
        IpFamily::V4 => ("10.0.0.0/8", "10.1.2.3", "10.0.0.2"),
        IpFamily::V6 => ("fd00::/8", "fd00::3", "[fd00::2]"),
    };
    let u = user_chain(c);
    match i % 12 {
        0 => "-j ACCEPT".into(),
        1 => "-j DROP".into(),
        2 => format!("-s {net} -j ACCEPT"),
        3 => "-p tcp --dport 80 -j DROP".into(),
        4 => format!("-j {u}"),
        5 => format!("-g {u}"),
        6 => format!("-s {host} -j {u}"),
        7 => "-m comment --comment x -j RETURN".into(),
        8 => "-m set --match-set S src -j DROP".into(),
        9 => format!("-i eth0 -j {u}"),
        10 => format!("-p tcp --dport 81 -j DNAT --to-destination {to}"),
        _ => "-j MASQUERADE".into(),
    }
}

pub fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

/// One step of a sequence. Indexes are resolved into names when the step runs.
#[derive(Debug, Clone)]
pub enum Step {
    /// `iptables-nft` (or `ip6tables-nft`, `v6`) with one command.
    Ipt { v6: bool, t: u8, cmd: Cmd },
    /// `iptables-nft-restore` of one table block.
    Restore {
        v6: bool,
        noflush: bool,
        t: u8,
        lines: Vec<(u8, u8, u8)>,
    },
    /// `nft` changing what iptables rules depend on.
    Nft { v6: bool, t: u8, op: NftOp },
    /// `nft` making several such changes in one transaction: one batch, one commit, whose
    /// events arrive together (a table deleted and made again with new chains, say).
    NftTx { v6: bool, t: u8, ops: Vec<NftOp> },
    /// `ipset` changing the sets that `-m set` rules name.
    Ipset(IpsetOp),
    /// `ip link` adding, renaming or deleting the interfaces that `nft`'s `iif` rules
    /// compare by index, which iptables shows by name.
    Link(LinkOp),
    /// A command through `iptnl serve` (in `B`: the same command run by itself).
    Served { t: u8, cmd: Cmd },
    /// A served `iptables-restore --noflush` (in `B`: run by itself).
    ServedRestore { t: u8, lines: Vec<(u8, u8, u8)> },
    /// A call of the handle that follows events (in `B`: a new handle).
    Call { t: u8, call: Call },
}

/// An iptables command: `(chain, spec, chain of the spec)` by index, `n` a rule number.
#[derive(Debug, Clone)]
pub enum Cmd {
    New(u8),
    Delete(u8),
    Rename(u8, u8),
    Append(u8, u8, u8),
    Insert(u8, u8, u8, u8),
    DeleteSpec(u8, u8, u8),
    DeleteNum(u8, u8),
    Replace(u8, u8, u8, u8),
    Check(u8, u8, u8),
    Flush(Option<u8>),
    Zero(Option<u8>),
    Policy(u8, bool),
    List(Option<u8>),
    ListL(Option<u8>),
}

impl Cmd {
    pub fn args(&self, family: IpFamily, table: &str) -> Vec<String> {
        let c = |i: &u8| chain(table, *i).to_owned();
        let mut a = vec!["-t".to_owned(), table.to_owned()];
        match self {
            Cmd::New(x) => a.extend(["-N".into(), user_chain(*x).into()]),
            Cmd::Delete(x) => a.extend(["-X".into(), user_chain(*x).into()]),
            Cmd::Rename(x, y) => {
                a.extend(["-E".into(), user_chain(*x).into(), user_chain(*y).into()])
            }
            Cmd::Append(x, s, j) => {
                a.extend(["-A".into(), c(x)]);
                a.extend(words(&spec(family, *s, *j)));
            }
            Cmd::Insert(x, n, s, j) => {
                a.extend(["-I".into(), c(x), (n % 4 + 1).to_string()]);
                a.extend(words(&spec(family, *s, *j)));
            }
            Cmd::DeleteSpec(x, s, j) => {
                a.extend(["-D".into(), c(x)]);
                a.extend(words(&spec(family, *s, *j)));
            }
            Cmd::DeleteNum(x, n) => a.extend(["-D".into(), c(x), (n % 4 + 1).to_string()]),
            Cmd::Replace(x, n, s, j) => {
                a.extend(["-R".into(), c(x), (n % 4 + 1).to_string()]);
                a.extend(words(&spec(family, *s, *j)));
            }
            Cmd::Check(x, s, j) => {
                a.extend(["-C".into(), c(x)]);
                a.extend(words(&spec(family, *s, *j)));
            }
            Cmd::Flush(x) => {
                a.push("-F".into());
                a.extend(x.iter().map(c));
            }
            Cmd::Zero(x) => {
                a.push("-Z".into());
                a.extend(x.iter().map(c));
            }
            Cmd::Policy(x, drop) => {
                let b = builtins(table);
                a.extend([
                    "-P".into(),
                    b[usize::from(*x) % b.len()].into(),
                    if *drop { "DROP" } else { "ACCEPT" }.into(),
                ]);
            }
            Cmd::List(x) => {
                a.push("-S".into());
                a.extend(x.iter().map(c));
            }
            Cmd::ListL(x) => {
                a.extend(["-L".into(), "-n".into(), "--line-numbers".into()]);
                a.extend(x.iter().map(c));
            }
        }
        a
    }
}

#[derive(Debug, Clone)]
pub enum NftOp {
    Rename(u8, u8),
    DelChain(u8),
    AddChain(u8),
    DelTable,
    /// `add table` (nothing when the table is there).
    AddTable,
    FlushTable,
    FlushChain(u8),
    /// Insert after the k-th rule of a chain (first when it has none).
    InsertAt(u8, u8, u8),
    ReplaceAt(u8, u8, u8),
    DeleteAt(u8, u8),
    AddSet,
    AddElem(u8),
    DelElem(u8),
    SetRule(u8),
    DelSet,
    /// A rule matching an interface by index (`iif "d0"`).
    IifRule(u8, bool),
}

#[derive(Debug, Clone)]
pub enum LinkOp {
    Add(bool),
    Rename(bool),
    Delete(bool),
}

#[derive(Debug, Clone)]
pub enum IpsetOp {
    Create(bool, bool),
    Rename(bool),
    Swap,
    Destroy(bool),
    Add(bool, u8),
}

/// A call of the API, resolved against a table.
#[derive(Debug, Clone)]
pub enum Call {
    Exists(u8, u8, u8),
    Delete(u8, u8, u8),
    DeleteNum(u8, u8),
    Append(u8, u8, u8),
    Insert(u8, u8, u8, u8),
    Replace(u8, u8, u8, u8),
    List(u8),
    ListTable,
    Chains,
    ChainExists(u8),
    NewChain(u8),
    DeleteChain(u8),
    ClearChain(u8),
    Rename(u8, u8),
    Rules(u8),
    Save,
    Transaction(Vec<(u8, u8, u8)>, u8),
}

pub fn nft_rule(v6: bool, i: u8, c: u8) -> String {
    let host = if v6 {
        "ip6 saddr fd00::9"
    } else {
        "ip saddr 10.9.9.9"
    };
    match i % 4 {
        0 => format!("{host} counter jump {}", user_chain(c)),
        1 => "counter accept".into(),
        2 => "tcp dport 22 drop".into(),
        _ => format!("{host} counter goto {}", user_chain(c)),
    }
}

/// Runs `prog args` (with `stdin`) in the calling thread's namespace: `(exit, stdout, stderr)`.
pub fn exec(prog: &str, args: &[String], stdin: Option<&str>, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(prog);
    cmd.args(args)
        .envs(env.iter().copied())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {prog}: {e}"));
    if let Some(s) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    format!(
        "exit {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn restore_text(family: IpFamily, table: &str, lines: &[(u8, u8, u8)]) -> String {
    let mut s = format!("*{table}\n");
    for (c, sp, j) in lines {
        let ch = chain(table, *c);
        if (ch == "G-A" || ch == "G-B" || *sp % 5 == 0) && !builtins(table).contains(&ch) {
            s.push_str(&format!(":{ch} - [0:0]\n"));
            continue;
        }
        s.push_str(&format!("-A {ch} {}\n", spec(family, *sp, *j)));
    }
    s.push_str("COMMIT\n");
    s
}

/// The k-th rule's handle of a chain (`None`: no such rule), read with `nft -a`.
pub fn nth_handle(fam: &str, table: &str, ch: &str, k: u8) -> Option<String> {
    let out = exec(
        "nft",
        &words(&format!("-a list chain {fam} {table} {ch}")),
        None,
        &[],
    );
    let hs: Vec<String> = out
        .lines()
        .filter(|l| !l.contains("chain ") && !l.contains("type "))
        .filter_map(|l| l.rsplit_once("# handle ").map(|(_, h)| h.trim().to_owned()))
        .collect();
    if hs.is_empty() {
        return None;
    }
    Some(hs[usize::from(k) % hs.len()].clone())
}

/// The `nft` command of one change of a table (`None`: the rule it names is not there).
fn nft_command(v6: bool, t: u8, op: &NftOp) -> Option<String> {
    let fam = if v6 { "ip6" } else { "ip" };
    let table = TABLES[usize::from(t) % 2];
    let c = |i: &u8| chain(table, *i);
    let cmd = match op {
        NftOp::Rename(x, y) => {
            format!(
                "rename chain {fam} {table} {} {}",
                user_chain(*x),
                user_chain(*y)
            )
        }
        NftOp::DelChain(x) => format!("delete chain {fam} {table} {}", user_chain(*x)),
        NftOp::AddChain(x) => format!("add chain {fam} {table} {}", user_chain(*x)),
        NftOp::DelTable => format!("delete table {fam} {table}"),
        NftOp::AddTable => format!("add table {fam} {table}"),
        NftOp::FlushTable => format!("flush table {fam} {table}"),
        NftOp::FlushChain(x) => format!("flush chain {fam} {table} {}", c(x)),
        NftOp::InsertAt(x, k, r) => match nth_handle(fam, table, c(x), *k) {
            Some(h) => format!(
                "add rule {fam} {table} {} position {h} {}",
                c(x),
                nft_rule(v6, *r, *k)
            ),
            None => format!(
                "insert rule {fam} {table} {} {}",
                c(x),
                nft_rule(v6, *r, *k)
            ),
        },
        NftOp::ReplaceAt(x, k, r) => match nth_handle(fam, table, c(x), *k) {
            Some(h) => format!(
                "replace rule {fam} {table} {} handle {h} {}",
                c(x),
                nft_rule(v6, *r, *k)
            ),
            None => return None,
        },
        NftOp::DeleteAt(x, k) => match nth_handle(fam, table, c(x), *k) {
            Some(h) => format!("delete rule {fam} {table} {} handle {h}", c(x)),
            None => return None,
        },
        NftOp::AddSet => {
            let ty = if v6 { "ipv6_addr" } else { "ipv4_addr" };
            format!("add set {fam} {table} s {{ type {ty}; }}")
        }
        NftOp::AddElem(i) | NftOp::DelElem(i) => {
            let e = if v6 {
                format!("fd00::{i}")
            } else {
                format!("10.5.5.{i}")
            };
            let verb = if matches!(op, NftOp::AddElem(_)) {
                "add"
            } else {
                "delete"
            };
            format!("{verb} element {fam} {table} s {{ {e} }}")
        }
        NftOp::SetRule(x) => {
            let sel = if v6 { "ip6 saddr" } else { "ip saddr" };
            format!("add rule {fam} {table} {} {sel} @s counter accept", c(x))
        }
        NftOp::DelSet => format!("delete set {fam} {table} s"),
        NftOp::IifRule(x, one) => {
            let dev = if *one { "d1" } else { "d0" };
            format!(
                "add rule {fam} {table} {} iif \"{dev}\" counter accept",
                c(x)
            )
        }
    };
    Some(cmd)
}

/// `nft` making `ops` as one transaction ("no rule" when every change names a rule that
/// is not there).
fn run_nft(v6: bool, t: u8, ops: &[NftOp]) -> String {
    let cmds: Vec<String> = ops.iter().filter_map(|op| nft_command(v6, t, op)).collect();
    if cmds.is_empty() {
        return "no rule".into();
    }
    exec("nft", &[cmds.join("\n")], None, &[])
}

/// What a foreign step runs, in the calling thread's namespace; its answer must be the
/// same in both namespaces.
pub fn foreign(step: &Step, family: IpFamily) -> String {
    match step {
        Step::Ipt { v6, t, cmd } => {
            let f = if *v6 { IpFamily::V6 } else { IpFamily::V4 };
            let table = TABLES[usize::from(*t) % 2];
            let prog = if *v6 { "ip6tables-nft" } else { "iptables-nft" };
            exec(prog, &cmd.args(f, table), None, &[])
        }
        Step::Restore {
            v6,
            noflush,
            t,
            lines,
        } => {
            let f = if *v6 { IpFamily::V6 } else { IpFamily::V4 };
            let table = TABLES[usize::from(*t) % 2];
            let prog = if *v6 {
                "ip6tables-nft-restore"
            } else {
                "iptables-nft-restore"
            };
            let args: Vec<String> = if *noflush {
                vec!["--noflush".into()]
            } else {
                vec![]
            };
            exec(prog, &args, Some(&restore_text(f, table, lines)), &[])
        }
        Step::Nft { v6, t, op } => run_nft(*v6, *t, std::slice::from_ref(op)),
        Step::NftTx { v6, t, ops } => run_nft(*v6, *t, ops),
        Step::Ipset(op) => {
            let fam = |v6: bool| if v6 { "inet6" } else { "inet" };
            let a: String = match op {
                IpsetOp::Create(other, v6) => format!(
                    "create {} hash:ip family {}",
                    if *other { "T" } else { "S" },
                    fam(*v6)
                ),
                IpsetOp::Rename(back) => {
                    if *back {
                        "rename T S".into()
                    } else {
                        "rename S T".into()
                    }
                }
                IpsetOp::Swap => "swap S T".into(),
                IpsetOp::Destroy(other) => format!("destroy {}", if *other { "T" } else { "S" }),
                IpsetOp::Add(other, i) => format!(
                    "add {} {}",
                    if *other { "T" } else { "S" },
                    if family == IpFamily::V6 {
                        format!("fd00::{i}")
                    } else {
                        format!("10.6.6.{i}")
                    }
                ),
            };
            exec("ipset", &words(&a), None, &[])
        }
        Step::Link(op) => {
            let dev = |one: bool| if one { "d1" } else { "d0" };
            let a = match op {
                LinkOp::Add(one) => format!("link add {} type bridge", dev(*one)),
                LinkOp::Rename(one) => {
                    format!("link set {} name {}", dev(*one), dev(!*one))
                }
                LinkOp::Delete(one) => format!("link del {}", dev(*one)),
            };
            exec("ip", &words(&a), None, &[])
        }
        _ => unreachable!(),
    }
}

/// Runs one API call on `ipt`, as text.
pub fn call(ipt: &IpTables, family: IpFamily, table: &str, c: &Call) -> String {
    let ch = |i: &u8| chain(table, *i);
    let sp = |s: &u8, j: &u8| spec(family, *s, *j);
    let n = |k: &u8| u32::from(k % 4 + 1);
    match c {
        Call::Exists(x, s, j) => format!("{:?}", ipt.exists(table, ch(x), sp(s, j))),
        Call::Delete(x, s, j) => format!("{:?}", ipt.delete(table, ch(x), sp(s, j))),
        Call::DeleteNum(x, k) => format!("{:?}", ipt.delete_by_number(table, ch(x), n(k))),
        Call::Append(x, s, j) => format!("{:?}", ipt.append(table, ch(x), sp(s, j)).map(|_| ())),
        Call::Insert(x, k, s, j) => {
            format!("{:?}", ipt.insert(table, ch(x), n(k), sp(s, j)).map(|_| ()))
        }
        Call::Replace(x, k, s, j) => format!("{:?}", ipt.replace(table, ch(x), n(k), sp(s, j))),
        Call::List(x) => format!("{:?}", ipt.list(table, ch(x))),
        Call::ListTable => format!("{:?}", ipt.list_table_text(table)),
        Call::Chains => format!("{:?}", ipt.list_chains(table)),
        Call::ChainExists(x) => format!("{:?}", ipt.chain_exists(table, user_chain(*x))),
        Call::NewChain(x) => format!("{:?}", ipt.new_chain(table, user_chain(*x))),
        Call::DeleteChain(x) => format!("{:?}", ipt.delete_chain(table, user_chain(*x))),
        Call::ClearChain(x) => format!("{:?}", ipt.clear_chain(table, user_chain(*x))),
        Call::Rename(x, y) => {
            format!(
                "{:?}",
                ipt.rename_chain(table, user_chain(*x), user_chain(*y))
            )
        }
        Call::Rules(x) => format!(
            "{:?}",
            ipt.rules(table, ch(x))
                .map(|v| v.iter().map(|r| r.to_save_args()).collect::<Vec<_>>())
        ),
        // The save's time comments (`# Generated by … on DATE`, `# Completed on DATE`) are
        // the clock's, not the ruleset's: two reads a second apart differ there.
        Call::Save => format!(
            "{:?}",
            ipt.save(Some(table), false).map(|s| s
                .lines()
                .filter(|l| !l.starts_with("# Generated by ") && !l.starts_with("# Completed on "))
                .collect::<Vec<_>>()
                .join("\n"))
        ),
        Call::Transaction(ops, bad) => {
            let mut t = ipt.transaction();
            for (i, (x, s, j)) in ops.iter().enumerate() {
                if i == usize::from(*bad) {
                    t.delete(table, ch(x), sp(s, j));
                } else {
                    t.append(table, ch(x), sp(s, j));
                }
            }
            format!("{:?}", t.commit().map(|v| v.len()))
        }
    }
}

pub fn cmd() -> impl Strategy<Value = Cmd> {
    let u = any::<u8>;
    prop_oneof![
        u().prop_map(Cmd::New),
        u().prop_map(Cmd::Delete),
        (u(), u()).prop_map(|(a, b)| Cmd::Rename(a, b)),
        (u(), u()).prop_map(|(a, b)| Cmd::Rename(a, b)),
        (u(), u()).prop_map(|(a, b)| Cmd::Rename(a, b)),
        (u(), u(), u()).prop_map(|(a, b, c)| Cmd::Append(a, b, c)),
        (u(), u(), u(), u()).prop_map(|(a, b, c, d)| Cmd::Insert(a, b, c, d)),
        (u(), u(), u()).prop_map(|(a, b, c)| Cmd::DeleteSpec(a, b, c)),
        (u(), u()).prop_map(|(a, b)| Cmd::DeleteNum(a, b)),
        (u(), u(), u(), u()).prop_map(|(a, b, c, d)| Cmd::Replace(a, b, c, d)),
        (u(), u(), u()).prop_map(|(a, b, c)| Cmd::Check(a, b, c)),
        proptest::option::of(u()).prop_map(Cmd::Flush),
        proptest::option::of(u()).prop_map(Cmd::Zero),
        (u(), any::<bool>()).prop_map(|(a, b)| Cmd::Policy(a, b)),
        proptest::option::of(u()).prop_map(Cmd::List),
        proptest::option::of(u()).prop_map(Cmd::ListL),
    ]
}

pub fn nft_op() -> impl Strategy<Value = NftOp> {
    let u = any::<u8>;
    prop_oneof![
        3 => (u(), u()).prop_map(|(a, b)| NftOp::Rename(a, b)),
        1 => u().prop_map(NftOp::DelChain),
        1 => u().prop_map(NftOp::AddChain),
        1 => Just(NftOp::DelTable),
        1 => Just(NftOp::AddTable),
        1 => Just(NftOp::FlushTable),
        1 => u().prop_map(NftOp::FlushChain),
        1 => (u(), u(), u()).prop_map(|(a, b, c)| NftOp::InsertAt(a, b, c)),
        1 => (u(), u(), u()).prop_map(|(a, b, c)| NftOp::ReplaceAt(a, b, c)),
        1 => (u(), u()).prop_map(|(a, b)| NftOp::DeleteAt(a, b)),
        1 => Just(NftOp::AddSet),
        1 => u().prop_map(NftOp::AddElem),
        1 => u().prop_map(NftOp::DelElem),
        1 => u().prop_map(NftOp::SetRule),
        2 => (u(), any::<bool>()).prop_map(|(a, b)| NftOp::IifRule(a, b)),
        1 => Just(NftOp::DelSet),
    ]
}

pub fn ipset_op() -> impl Strategy<Value = IpsetOp> {
    prop_oneof![
        (any::<bool>(), any::<bool>()).prop_map(|(a, b)| IpsetOp::Create(a, b)),
        any::<bool>().prop_map(IpsetOp::Rename),
        Just(IpsetOp::Swap),
        any::<bool>().prop_map(IpsetOp::Destroy),
        (any::<bool>(), any::<u8>()).prop_map(|(a, b)| IpsetOp::Add(a, b)),
    ]
}

pub fn link_op() -> impl Strategy<Value = LinkOp> {
    prop_oneof![
        2 => any::<bool>().prop_map(LinkOp::Add),
        2 => any::<bool>().prop_map(LinkOp::Rename),
        1 => any::<bool>().prop_map(LinkOp::Delete),
    ]
}

pub fn api_call() -> impl Strategy<Value = Call> {
    let u = any::<u8>;
    prop_oneof![
        (u(), u(), u()).prop_map(|(a, b, c)| Call::Exists(a, b, c)),
        (u(), u(), u()).prop_map(|(a, b, c)| Call::Delete(a, b, c)),
        (u(), u()).prop_map(|(a, b)| Call::DeleteNum(a, b)),
        (u(), u(), u()).prop_map(|(a, b, c)| Call::Append(a, b, c)),
        (u(), u(), u(), u()).prop_map(|(a, b, c, d)| Call::Insert(a, b, c, d)),
        (u(), u(), u(), u()).prop_map(|(a, b, c, d)| Call::Replace(a, b, c, d)),
        u().prop_map(Call::List),
        Just(Call::ListTable),
        Just(Call::Chains),
        u().prop_map(Call::ChainExists),
        u().prop_map(Call::NewChain),
        u().prop_map(Call::DeleteChain),
        u().prop_map(Call::ClearChain),
        (u(), u()).prop_map(|(a, b)| Call::Rename(a, b)),
        u().prop_map(Call::Rules),
        Just(Call::Save),
        (proptest::collection::vec((u(), u(), u()), 1..4), u())
            .prop_map(|(v, b)| Call::Transaction(v, b)),
    ]
}

pub fn step() -> impl Strategy<Value = Step> {
    let lines = || proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..5);
    let v6 = || prop_oneof![4 => Just(false), 1 => Just(true)];
    prop_oneof![
        4 => (v6(), any::<u8>(), cmd()).prop_map(|(v6, t, cmd)| Step::Ipt { v6, t, cmd }),
        1 => (v6(), any::<bool>(), any::<u8>(), lines())
            .prop_map(|(v6, noflush, t, lines)| Step::Restore { v6, noflush, t, lines }),
        3 => (v6(), any::<u8>(), nft_op()).prop_map(|(v6, t, op)| Step::Nft { v6, t, op }),
        1 => (v6(), any::<u8>(), proptest::collection::vec(nft_op(), 2..5))
            .prop_map(|(v6, t, ops)| Step::NftTx { v6, t, ops }),
        1 => ipset_op().prop_map(Step::Ipset),
        1 => link_op().prop_map(Step::Link),
        4 => (any::<u8>(), cmd()).prop_map(|(t, cmd)| Step::Served { t, cmd }),
        1 => (any::<u8>(), lines()).prop_map(|(t, lines)| Step::ServedRestore { t, lines }),
        4 => (any::<u8>(), api_call()).prop_map(|(t, call)| Step::Call { t, call }),
    ]
}

/// The subject family's foreign writes are in the subject's words: `v6` of a foreign step
/// means "the other family".
pub fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        prop_oneof![3 => Just(false), 1 => Just(true)],
        proptest::collection::vec(step(), 1..24),
    )
        .prop_map(|(v6, guard, mut steps)| {
            for s in &mut steps {
                match s {
                    Step::Ipt { v6: o, .. }
                    | Step::Restore { v6: o, .. }
                    | Step::Nft { v6: o, .. }
                    | Step::NftTx { v6: o, .. } => {
                        *o ^= v6;
                    }
                    _ => {}
                }
            }
            Case { v6, guard, steps }
        })
}
