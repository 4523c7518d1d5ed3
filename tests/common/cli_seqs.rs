//! The sequences of `iptables` commands that `tests/cli.rs` runs through iptables-nft and
//! through iptnl, and the helpers that run a sequence and give each step's result in the
//! form it is compared in. Included by `tests/cli.rs` and `tests/serve_concurrency.rs`.
#![allow(dead_code)]

use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_iptnl");

/// Symlinks to the iptnl binary under tool names.
pub type Tools = crate::common::ToolLinks;

/// The tool names these tests run, linked to the iptnl binary.
pub fn tools() -> Tools {
    Tools::new(
        "iptnl-cli-cmd",
        &[
            "iptables",
            "ip6tables",
            "iptables-nft",
            "ip6tables-nft",
            "xtables-nft-multi",
        ],
    )
}

/// The version in messages: iptables-nft 1.8.9 says `v1.8.9 (nf_tables)`, iptnl
/// `v1.8.11 (nf_tables)` (and `-V` adds ` (iptnl X.Y.Z)`).
pub fn normalize(s: &str) -> String {
    s.replace(&format!(" (iptnl {})", env!("CARGO_PKG_VERSION")), "")
        .replace("v1.8.9 (nf_tables)", "VERSION")
        .replace("v1.8.11 (nf_tables)", "VERSION")
}

/// One step's result: stdout, normalized stderr, exit code.
pub type Step = (String, String, i32);

pub fn step(o: &Output) -> Step {
    (
        normalize(&String::from_utf8_lossy(&o.stdout)),
        normalize(&String::from_utf8_lossy(&o.stderr)),
        o.status.code().unwrap_or(-1),
    )
}

/// Runs the lines of a sequence with `bin`, in a fresh namespace (after the `setup`
/// commands, e.g. `ipset create`); with `served`, an `iptnl serve` runs in that namespace
/// and must have served every line.
pub fn run_seq(bin: &str, setup: &[&[&str]], lines: &[Vec<String>], served: bool) -> Vec<Step> {
    crate::common::in_netns(|| {
        for cmd in setup {
            let o = crate::common::run_status(cmd[0], &cmd[1..], None);
            assert!(o.status.success(), "setup {cmd:?} failed");
        }
        let server = served.then(|| crate::common::Server::start(BIN));
        let steps = lines
            .iter()
            .map(|args| {
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                step(&crate::common::run_status(bin, &a, None))
            })
            .collect();
        if let Some(server) = server {
            let log = server.wait_log("iptnl serve: ", lines.len());
            let served = log.lines().filter(|l| l.contains("(exit ")).count();
            assert_eq!(served, lines.len(), "not every line was served:\n{log}");
        }
        steps
    })
}

pub fn parse_seq(seq: &str) -> Vec<Vec<String>> {
    seq.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            if l == "''" {
                return Vec::new();
            }
            iptnl::ipt::split_args(l).unwrap_or_else(|e| panic!("bad test line {l:?}: {e}"))
        })
        .collect()
}

/// The oracle's output with protocols as iptables 1.8.11 prints them (1.8.9 differs): `-L`
/// names the protocols of iptables' own list (`all`, `tcp`, `ipv6-icmp`) even with `-n`, and
/// `-S` names only those, printing any other protocol as its number.
pub fn protocols_as_1_8_11(out: &str) -> String {
    let mut lines = Vec::new();
    for line in out.split_inclusive('\n') {
        if line.starts_with("-A ") || line.starts_with('[') {
            lines.push(crate::common::save_line_protocols_as_1_8_11(line));
        } else if line.starts_with(['-', ':', '*', '#']) || line.starts_with("Chain ") {
            lines.push(line.to_owned());
        } else {
            // A rule line of `-L` (with or without its header, `-L CHAIN N` has none).
            lines.push(list_line_as_1_8_11(line));
        }
    }
    lines.concat()
}

/// One `-L` rule line with a numeric protocol of iptables' own list named.
pub fn list_line_as_1_8_11(line: &str) -> String {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                words.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    let Some(opt) = words
        .iter()
        .position(|(_, w)| matches!(*w, "--" | "-f" | "!f"))
    else {
        return line.to_owned();
    };
    let Some(&(at, word)) = opt.checked_sub(1).and_then(|p| words.get(p)) else {
        return line.to_owned();
    };
    let (at, digits) = match word.strip_prefix('!') {
        Some(d) => (at + 1, d),
        None => (at, word),
    };
    let name = digits
        .parse::<u8>()
        .ok()
        .and_then(|n| iptnl::ipt::proto_name(n, iptnl::ipt::IpFamily::V4));
    match name {
        Some(name) => format!("{}{name:<4} {}", &line[..at], &line[words[opt].0..]),
        None => line.to_owned(),
    }
}

/// Appending, inserting, replacing, checking and deleting rules.
pub const RULES: &[&str] = &[
    "-A INPUT -j ACCEPT\n-S",
    "-A INPUT -s 10.0.0.1 -j ACCEPT\n-A INPUT -d 10.0.0.2 -j DROP\n-S INPUT",
    "-A INPUT -p tcp --dport 22 -j ACCEPT\n-C INPUT -p tcp --dport 22 -j ACCEPT\n-C INPUT -p tcp --dport 23 -j ACCEPT",
    "-A INPUT -p tcp -m tcp --dport 80 -j ACCEPT\n-C INPUT -p tcp --dport 80 -j ACCEPT\n-D INPUT -p tcp --dport 80 -j ACCEPT\n-S",
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-A INPUT -s 1.2.3.4 -j ACCEPT\n-D INPUT -s 1.2.3.4 -j ACCEPT\n-S INPUT",
    "-A INPUT -j ACCEPT\n-A INPUT -j DROP\n-D INPUT 1\n-S INPUT",
    "-A INPUT -j ACCEPT\n-A INPUT -j DROP\n-D INPUT 2\n-S INPUT",
    "-A INPUT -j ACCEPT\n-D INPUT 2",
    "-A INPUT -j ACCEPT\n-D INPUT 9",
    "-A INPUT -j ACCEPT\n-I INPUT -j DROP\n-S INPUT",
    "-A INPUT -j ACCEPT\n-I INPUT 2 -j DROP\n-S INPUT",
    "-A INPUT -j ACCEPT\n-I INPUT 3 -j DROP",
    "-A INPUT -j ACCEPT\n-A INPUT -j RETURN\n-I INPUT 2 -s 9.9.9.9 -j DROP\n-S INPUT",
    "-A INPUT -j ACCEPT\n-R INPUT 1 -j DROP\n-S INPUT",
    "-A INPUT -j ACCEPT\n-R INPUT 2 -j DROP",
    "-A INPUT -s 1.1.1.1,2.2.2.2 -j ACCEPT\n-S INPUT\n-C INPUT -s 1.1.1.1,2.2.2.2 -j ACCEPT\n-D INPUT -s 1.1.1.1,2.2.2.2 -j ACCEPT\n-S INPUT",
    "-A INPUT -j ACCEPT\n-I INPUT -s 1.1.1.1,2.2.2.2 -j DROP\n-I INPUT 2 -s 3.3.3.3,4.4.4.4 -j RETURN\n-S INPUT",
    "-D INPUT -j ACCEPT",
    "-D INPUT 1",
    "-C INPUT -j ACCEPT",
    "-A NOPE -j ACCEPT",
    "-I NOPE -j ACCEPT",
    "-I NOPE 2 -j ACCEPT",
    "-R NOPE 1 -j ACCEPT",
    "-D NOPE -j ACCEPT",
    "-D NOPE 1",
    "-C NOPE -j ACCEPT",
    "-N X\n-D INPUT 1",
    "-A INPUT -j NOPE",
    "-A INPUT -g NOPE",
    "-N X\n-A INPUT -j X\n-A INPUT -g X\n-S",
    "-N X\n-A X\n-S X\n-C X\n-D X\n-S X",
    "-A INPUT -s 1.2.3.4 -c 5 10 -j ACCEPT\n-v -S INPUT\n-S INPUT",
    "-I INPUT -c 7 70 -j DROP\n-v -S",
    "-A INPUT -j ACCEPT\n-D INPUT -j ACCEPT -c 1 2",
    "-A INPUT -j ACCEPT\n-C INPUT -j ACCEPT -c 1 2",
    "-A INPUT -i eth0 -p udp --sport 53 -j ACCEPT\n-S\n-C INPUT -i eth0 -p udp --sport 53 -j ACCEPT",
    "-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n-A INPUT -m comment --comment \"hello world\" -j DROP\n-S",
    "-A FORWARD -p tcp -m multiport --dports 22,80,443 -j ACCEPT\n-D FORWARD -p tcp -m multiport --dports 22,80,443 -j ACCEPT\n-S FORWARD",
    "-A OUTPUT -j REJECT --reject-with icmp-host-prohibited\n-S OUTPUT",
    "-t nat -A POSTROUTING -o eth0 -j MASQUERADE\n-t nat -S",
    "-t nat -N X\n-t nat -A X -p tcp -j DNAT --to-destination 10.0.0.1:80\n-t nat -A PREROUTING -j X\n-t nat -S",
    "-t nat -A POSTROUTING -j DROP",
    "-t nat -I POSTROUTING -j DROP",
    "-t nat -C POSTROUTING -j DROP",
    "-t mangle -A PREROUTING -j MARK --set-mark 1\n-t mangle -S",
    "-t raw -A PREROUTING -p udp -j CT --notrack\n-t raw -S\n-t raw -F\n-t raw -S",
    "-t security -A INPUT -j ACCEPT\n-t security -S",
    "-AINPUT -j ACCEPT\n-S",
    "-A OUTPUT -i eth0 -j ACCEPT",
    "-t nat -A PREROUTING -o eth0 -j ACCEPT",
    "-t nat -A POSTROUTING -i eth0 -j ACCEPT",
    "-A FORWARD -i eth0 -o eth1 -j ACCEPT\n-S",
    "--append INPUT --jump ACCEPT\n--check INPUT --jump ACCEPT\n--delete INPUT --jump ACCEPT\n--list-rules",
    "-A INPUT -j ACCEPT -w\n-A INPUT -j DROP -w 5\n-S",
    "-A INPUT ! -s 10.0.0.0/8 -j ACCEPT\n-S",
];

/// Chains: new, delete, rename, flush, zero, policy.
pub const CHAINS: &[&str] = &[
    "-N FOO\n-S",
    "-N FOO\n-N FOO",
    "-N INPUT",
    "-t nat -N PREROUTING",
    "-N ACCEPT",
    "-N aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "-N\n-S",
    "-N FOO\n-X FOO\n-S",
    "-X NOPE",
    "-X INPUT",
    "-A INPUT -j ACCEPT\n-X INPUT",
    "-N FOO\n-A INPUT -j FOO\n-X FOO",
    "-N FOO\n-A FOO -j ACCEPT\n-X FOO",
    "-N FOO\n-A FOO -j ACCEPT\n-F FOO\n-X FOO\n-S",
    "-N A\n-N B\n-X\n-S",
    "-N A\n-A A -j ACCEPT\n-X",
    "-N A\n-A A -j ACCEPT\n-F\n-X\n-S",
    "-N A\n-A INPUT -j A\n-F\n-X\n-S",
    "-t nat -N X\n-t nat -A X -j RETURN\n-t nat -X X\n-t nat -F X\n-t nat -X X\n-t nat -S",
    "-N FOO\n-E FOO BAR\n-S",
    "-N FOO\n-A INPUT -j FOO\n-E FOO BAR\n-S",
    "-N FOO\n-N BAR\n-E FOO BAR",
    "-N FOO\n-E FOO BAR\n-E FOO BAR\n-E FOO BAR2",
    "-N FOO\n-E FOO INPUT",
    "-E NOPE X",
    "-E INPUT X",
    "-E",
    "-E A",
    "-P INPUT DROP\n-S",
    "-P FORWARD DROP\n-v -S FORWARD",
    "-P INPUT DROP\n-P INPUT ACCEPT\n-S INPUT",
    "-N FOO\n-P FOO DROP",
    "-P NOPE DROP",
    "-P INPUT FOO",
    "-P INPUT accept",
    "-P INPUT RETURN",
    "-P INPUT",
    "-P",
    "-t nat -P PREROUTING DROP",
    "-t nat -P PREROUTING ACCEPT\n-t nat -S",
    "-t mangle -P FORWARD DROP\n-t mangle -S",
    "-P INPUT DROP -c 1 2\n-S",
    "-F",
    "-F\n-S",
    "-A INPUT -j ACCEPT\n-A OUTPUT -j ACCEPT\n-F\n-S",
    "-A INPUT -j ACCEPT\n-A OUTPUT -j ACCEPT\n-F INPUT\n-S",
    "-F NOPE",
    "-F INPUT",
    "-t nat -F",
    "-X",
    "-t nat -X",
    "-Z",
    "-t nat -Z",
    "-Z NOPE",
    "-A INPUT -j ACCEPT -c 3 4\n-Z INPUT\n-v -S",
    "-A INPUT -j ACCEPT -c 3 4\n-A INPUT -j DROP -c 5 6\n-Z INPUT 2\n-v -S INPUT",
    "-A INPUT -j ACCEPT -c 3 4\n-Z INPUT 1\n-v -S INPUT",
    "-A INPUT -j ACCEPT -c 3 4\n-A OUTPUT -j ACCEPT -c 1 1\n-Z\n-v -S",
    "-N X\n-A X -j ACCEPT -c 9 9\n-Z X\n-v -S X",
    "-A INPUT -j ACCEPT -c 3 4\n-S -Z\n-v -S",
];

/// Listing with -S.
pub const LISTING: &[&str] = &[
    "-S",
    "-v -S",
    "-S INPUT",
    "-v -S INPUT",
    "-S INPUT 1",
    "-A INPUT -j ACCEPT\n-S INPUT 1\n-S INPUT 2",
    "-A INPUT -j ACCEPT -c 1 2\n-A INPUT -j DROP\n-v -S INPUT 1",
    "-S INPUT 0",
    "-S INPUT abc",
    "-t nat -S",
    "-t mangle -S",
    "-t raw -S",
    "-t security -S",
    "-t nat -S POSTROUTING",
    "-t nat -S INPUT",
    "-N B\n-N A\n-N C\n-A C -j A\n-A B -j C\n-A INPUT -j B\n-S",
    "-N X\n-S X",
    "-N X\n-v -S X",
    "-vv -S",
    "-S -p tcp",
    "-S -j ACCEPT",
    "-n -S",
    "-x -S",
    "--line-numbers -S",
    "--list-rules INPUT",
    "-S -w",
    "-S -w 3",
    "-S --wait=3",
    "-w -W 100 -S INPUT",
];

/// Usage errors, tables, flags, -V and -h.
pub const USAGE: &[&str] = &[
    // A two-word value whose second word is missing: the extension's own message.
    "-A INPUT -p sctp --chunk-types ANY",
    "-A INPUT -p sctp --chunk-types any -j ACCEPT",
    "-A INPUT -p tcp --tcp-flags SYN",
    "-A INPUT -p tcp --tcp-flags SYN ! ACK",
    "-A INPUT -m set --match-set foo",
    "-A INPUT -j SET --add-set foo",
    "-A INPUT -p tcp --tcp-flags",
    "''",
    // Blanks in chain and target names are refused (isspace in iptables' parse_chain and
    // parse_target).
    "-N 'hello world'\n-A INPUT -j 'hello world'\n-A INPUT -g 'a\tb'",
    "--bogus",
    "-A INPUT --bogus",
    "-Q",
    "-A",
    "-A INPUT -D INPUT",
    "-S -F",
    "-R INPUT",
    "-R INPUT 0 -j ACCEPT",
    "-D INPUT 0",
    "-D INPUT abc",
    "-I INPUT 0 -j ACCEPT",
    "-A INPUT -p tcp --dport 99999 -j ACCEPT",
    "-A INPUT -p bogus -j ACCEPT",
    "-A INPUT -s 300.1.1.1 -j ACCEPT",
    "-A INPUT -m nosuchmatch -j ACCEPT",
    "-A INPUT -j NOSUCHTARGET --foo",
    "-A INPUT -p tcp --sport -j ACCEPT",
    "-A INPUT -m multiport --dports 1,2 -j ACCEPT",
    "-A INPUT -p tcp -m multiport --dports 1,99999 -j ACCEPT",
    "-A INPUT -m conntrack --ctstate BOGUS -j ACCEPT",
    "-A INPUT -m comment -j ACCEPT",
    "-A INPUT -i -j ACCEPT",
    "-A INPUT -s 10.0.0.0/33 -j ACCEPT",
    "-A INPUT -j REJECT --reject-with bogus",
    "-t nat -A PREROUTING -p tcp -j DNAT --to-destination bogus",
    "-A INPUT -m comment --comment a -m comment --comment b -j ACCEPT\n-S",
    "-A INPUT -m set --match-set nosuchset src -j ACCEPT",
    "-A INPUT -m limit --limit 5/sec -j ACCEPT\n-S",
    "-A INPUT -m mark --mark 0x1/0xff -j ACCEPT\n-S",
    "-A INPUT -p tcp --syn -j ACCEPT\n-S\n-D INPUT -p tcp --syn -j ACCEPT",
    "-A INPUT -p icmp --icmp-type echo-request -j ACCEPT\n-S",
    "-A INPUT -m addrtype --dst-type LOCAL -j ACCEPT\n-S",
    "-A INPUT -m state --state NEW -j LOG --log-prefix \"x \"\n-S",
    "-A INPUT -j ACCEPT -j DROP",
    "-t bogus -S",
    "-t bogus -A INPUT -j ACCEPT",
    "-t bogus -N X",
    "-t",
    "-V",
    "--version",
    "-h",
    "--help",
    "-h -A INPUT",
    "-A INPUT -m comment --comment -V -j ACCEPT\n-S",
    "-A INPUT -m comment --comment -h -j ACCEPT\n-S",
    "-A INPUT -j LOG --log-prefix -V\n-S",
    "-4 -S",
    "-6 -S",
    "-6 -A INPUT -j ACCEPT",
    "--ipv4 -S",
    "-W 1000 -S",
    "-W",
    "-w abc -S",
    "--modprobe /bin/true -S",
    "--modprobe=/bin/true -A INPUT -j ACCEPT\n-S",
    "-w 2 -W 1000 -A INPUT -j ACCEPT\n-S",
    "-A INPUT -j ACCEPT -n",
    "-F -n",
    "-N X -x",
    "-t nat -P FOO DROP",
];

/// `-L` with -n, -v, -x, --line-numbers.
pub const LIST_L: &[&str] = &[
    "-L",
    "-L -n",
    "-L -v",
    "-L -n -v -x",
    "-L --line-numbers",
    "-L INPUT",
    "-t nat -L",
    "-t nat -L -n -v",
    "-t mangle -L -v -x",
    "-t raw -L --line-numbers -n",
    "-N X\n-L X\n-L X -n -v",
    "-N X\n-A INPUT -s 10.0.0.0/8 -c 123456 987654321 -j X\n-A INPUT ! -d 1.2.3.4 -i eth0 -p tcp -j ACCEPT\n-A INPUT -f -p 47 -g X\n-A X -p udp ! -i lo+ -j RETURN\n-A X\n-L\n-L -n\n-L -v\n-L -n -v -x\n-L -n --line-numbers\n-L INPUT 2 -n\n-L INPUT 2 -n -v\n-L X -n -v -x --line-numbers",
    "-A OUTPUT -p icmp -o eth1 -j DROP\n-L OUTPUT -v -x\n-L OUTPUT -v",
    "-A FORWARD -c 99999 100000 -j ACCEPT\n-A FORWARD -c 123456789012 99999999999999 -j ACCEPT\n-A FORWARD -c 5000000000000000 1 -j DROP\n-L FORWARD -v\n-L FORWARD -v -x\n-L FORWARD -v -n --line-numbers",
    "-P INPUT DROP\n-L INPUT\n-L INPUT -v",
    "-A INPUT -p 58 -j ACCEPT\n-A INPUT -p 135 -j ACCEPT\n-A INPUT ! -p udp -j ACCEPT\n-L INPUT\n-L INPUT -n",
    "-A INPUT -s 192.168.0.0/255.255.0.255 -j ACCEPT\n-L -n",
    "-A INPUT -j ACCEPT\n-L INPUT 1\n-L INPUT 2\n-L INPUT 0",
    "-N A\n-N B\n-A A -j B\n-A INPUT -j B\n-A INPUT -g A\n-L -n",
    "-A INPUT -j ACCEPT -c 5 6\n-L -Z\n-L -v",
    "-N X\n-A X -j ACCEPT -c 5 6\n-L X -Z -v\n-L X -v",
    "-L -p tcp",
    "-L -j ACCEPT",
    "-A INPUT -i eth0 -j ACCEPT\n-L -v -n",
    "--list INPUT --numeric --verbose --exact --line-numbers",
];

/// The `-L` forms each sequence of the extension listings ends with: plain, `-n`, `-v -n`,
/// `-n -x --line-numbers`, `-v -x --line-numbers` (service, host and user names without
/// `-n`), for the filter table or the given one.
macro_rules! lists {
    () => {
        "\n-L\n-L -n\n-L -v -n\n-L -n -x --line-numbers\n-L -v -x --line-numbers"
    };
    ($t:literal) => {
        concat!(
            "\n-t ",
            $t,
            " -L\n-t ",
            $t,
            " -L -n\n-t ",
            $t,
            " -L -v -n\n-t ",
            $t,
            " -L -n -x --line-numbers\n-t ",
            $t,
            " -L -v -x --line-numbers"
        )
    };
}

/// `-L` of rules with matches and targets: the options column in each extension's own
/// words (`tcp dpt:22`, `/* c */`, `ctstate NEW`, `reject-with ...`), with names (ports,
/// hosts, networks, users) unless `-n`.
pub const LIST_EXT: &[&str] = &[
    concat!("-A INPUT -p tcp --dport 22 -j ACCEPT\n-A INPUT -p tcp ! --sport 1:1024 ! --syn -j DROP", lists!()),
    concat!("-A INPUT -p tcp --dport 8080: --tcp-flags ALL NONE\n-A INPUT -p tcp --tcp-option 5 --sport 0:80\n-A INPUT -p tcp ! --tcp-option 5 --dport 1000:1000", lists!()),
    concat!("-A INPUT -p tcp -m tcp\n-A INPUT -p udp -m udp\n-A INPUT -p tcp ! --dport 80\n-A INPUT -p tcp --tcp-flags SYN,RST,ACK,FIN,PSH,URG SYN,ACK", lists!()),
    concat!("-A INPUT -p udp --dport 53 -j ACCEPT\n-A INPUT -p udp ! --sport 53:54 --dport 67:68", lists!()),
    concat!("-A INPUT -m comment --comment \"my comment\" -j ACCEPT\n-A INPUT -m comment --comment 'a \"b\" c'\n-A INPUT -m comment --comment x -m comment --comment y", lists!()),
    concat!("-A INPUT -p tcp -m multiport --dports 80,443,8000:8080 -j ACCEPT\n-A INPUT -p tcp -m multiport ! --sports 80,443\n-A INPUT -p udp -m multiport --ports 53,5353,9", lists!()),
    concat!("-A INPUT -p udplite -m multiport --dports 1,2\n-A INPUT -p sctp -m multiport --sports 80", lists!()),
    concat!("-A INPUT -m statistic --mode random --probability 0.5 -j ACCEPT\n-A INPUT -m statistic --mode random ! --probability 0.25\n-A INPUT -m statistic --mode nth --every 3 --packet 1\n-A INPUT -m statistic --mode nth --every 2 --packet 0", lists!()),
    concat!("-A INPUT -m mark --mark 0x1/0xff\n-A INPUT -m mark ! --mark 5\n-A INPUT -m connmark --mark 0x10/0xf0\n-A INPUT -m connmark ! --mark 1", lists!()),
    concat!("-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n-A INPUT -m conntrack ! --ctstate NEW,INVALID,UNTRACKED,SNAT,DNAT\n-A INPUT -m state --state NEW\n-A INPUT -m state ! --state ESTABLISHED,RELATED", lists!()),
    concat!("-A INPUT -m conntrack --ctproto tcp --ctorigsrc 127.0.0.0/8 ! --ctorigdst 127.0.0.1 --ctreplsrc 1.2.3.4 --ctrepldst 0.0.0.0/0", lists!()),
    concat!("-A INPUT -m conntrack --ctorigsrcport 10 --ctorigdstport 20:30 ! --ctreplsrcport 40 --ctrepldstport 50 --ctstatus ASSURED,CONFIRMED --ctexpire 5:10 --ctdir REPLY\n-A INPUT -m conntrack ! --ctstatus NONE --ctexpire 7 --ctdir ORIGINAL\n-A INPUT -m conntrack --ctstatus EXPECTED,SEEN_REPLY ! --ctproto 17", lists!()),
    concat!("-A INPUT -m addrtype --dst-type LOCAL\n-A INPUT -m addrtype ! --src-type LOCAL,UNICAST --dst-type BROADCAST --limit-iface-in\n-A OUTPUT -m addrtype --src-type LOCAL --limit-iface-out\n-A INPUT -m addrtype ! --dst-type UNSPEC,ANYCAST,MULTICAST,BLACKHOLE,UNREACHABLE,PROHIBIT,THROW,NAT,XRESOLVE", lists!()),
    concat!("-A INPUT -m limit --limit 5/sec\n-A INPUT -m limit --limit 3/min --limit-burst 10\n-A INPUT -m limit --limit 2/day\n-A INPUT -m limit --limit 7/s -j ACCEPT\n-A INPUT -m limit --limit 1/hour\n-A INPUT -m limit", lists!()),
    concat!("-A INPUT -j LOG\n-A INPUT -j LOG --log-prefix x\n-A INPUT -j LOG --log-prefix 'a b' --log-level 7 --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode\n-A INPUT -j LOG --log-level alert --log-prefix 'q\"'", lists!()),
    concat!("-A INPUT -j LOG --log-level 0\n-A INPUT -j LOG --log-level 2\n-A INPUT -j LOG --log-level 3 --log-uid\n-A INPUT -j LOG --log-level 5\n-A INPUT -j LOG --log-level 6", lists!()),
    concat!("-A INPUT -p icmp --icmp-type echo-request -j ACCEPT\n-A INPUT -p icmp ! --icmp-type 3/1\n-A INPUT -p icmp --icmp-type any\n-A INPUT -p icmp --icmp-type 200\n-A INPUT -p icmp --icmp-type 3\n-A INPUT -p icmp -m icmp --icmp-type 8/0\n-A INPUT -p icmp --icmp-type 3/200", lists!()),
    concat!("-A INPUT -j REJECT\n-A INPUT -p tcp -j REJECT --reject-with tcp-reset\n-A INPUT -j REJECT --reject-with icmp-host-prohibited\n-A INPUT -j REJECT --reject-with icmp-net-unreachable", lists!()),
    concat!("-A INPUT -j REJECT --reject-with icmp-proto-unreachable\n-A INPUT -j REJECT --reject-with icmp-host-unreachable\n-A INPUT -j REJECT --reject-with icmp-net-prohibited\n-A INPUT -j REJECT --reject-with icmp-admin-prohibited", lists!()),
    concat!("-A INPUT -m physdev --physdev-in eth0\n-A FORWARD -m physdev ! --physdev-out eth1 --physdev-is-bridged\n-A FORWARD -m physdev ! --physdev-is-in ! --physdev-is-out --physdev-in veth+", lists!()),
    concat!("-A OUTPUT -m owner --uid-owner 0\n-A OUTPUT -m owner ! --uid-owner 1000-2000 --gid-owner 5 ! --socket-exists\n-A OUTPUT -m owner --uid-owner 0 --gid-owner 0 --suppl-groups\n-A OUTPUT -m owner --uid-owner 65534 ! --gid-owner 0-10 -j REJECT", lists!()),
    concat!("-A INPUT -m iprange --src-range 10.0.0.1-10.0.0.9\n-A INPUT -m iprange ! --dst-range 127.0.0.1-127.0.0.2 ! --src-range 1.1.1.1-1.1.1.1", lists!()),
    concat!("-A INPUT -p tcp -m multiport --sports 1:1024,443 -m comment --comment c -j REJECT --reject-with tcp-reset\n-A INPUT -s 127.0.0.1 -d 127.0.0.0/8 -p tcp --dport 22 -m conntrack --ctstate NEW -j LOG --log-prefix \"ssh \"", lists!()),
    concat!("-A INPUT -s 127.0.0.1\n-A INPUT -d 169.254.0.0/16\n-A INPUT -s 0.0.0.0/8\n-A INPUT -s 10.0.0.0/255.0.255.0\n-A INPUT ! -s 127.0.0.0/24 ! -d 10.9.8.7", lists!()),
    concat!("-N X\n-A INPUT -p tcp --dport 22 -g X\n-A INPUT -m comment --comment go -g X\n-A X -p udp --sport 53 -j RETURN", lists!()),
    "-A INPUT -p tcp --dport 22 -j ACCEPT\n-A INPUT -m comment --comment two -j DROP\n-L INPUT 1\n-L INPUT 2 -n -v\n-L INPUT 1 --line-numbers\n-L INPUT 2 -v -x",
    "-N W\n-v -A W -p tcp --dport 22 -m comment --comment x -j ACCEPT\n-v -I W -p udp -m multiport --dports 53,67 -j REJECT\n-v -C W -p tcp --dport 22 -m comment --comment x -j ACCEPT\n-v -D W -p tcp --dport 22 -m comment --comment x -j ACCEPT\n-v -R W 1 -m conntrack --ctstate NEW -j LOG",
    concat!("-A INPUT -p tcp -m tcp --dport 22 -m conntrack --ctstate NEW -m limit --limit 10/min -m comment --comment ssh -j LOG --log-prefix \"SSH \" --log-level 6\n-A INPUT -p udp -m udp --dport 5353 -m addrtype --dst-type MULTICAST -m mark ! --mark 0x1 -j ACCEPT", lists!()),
];

/// `-L` of nat, mangle and raw rules as kube-proxy, CNI portmap, Docker, Calico and flannel
/// write them, and of the NAT, MARK, CONNMARK and CT targets.
pub const LIST_EXT_TABLES: &[&str] = &[
    concat!("-t nat -A PREROUTING -p tcp -j DNAT --to-destination 10.0.0.1:80\n-t nat -A PREROUTING -j DNAT --to-destination 10.0.0.1\n-t nat -A PREROUTING -p tcp -j DNAT --to-destination 10.0.0.1-10.0.0.5:80-90 --random --persistent", lists!("nat")),
    concat!("-t nat -A PREROUTING -p udp -j DNAT --to-destination :53\n-t nat -A PREROUTING -p tcp -j DNAT --to-destination 10.0.0.1:80-90/85\n-t nat -A OUTPUT -p tcp -d 127.0.0.1 -j DNAT --to-destination 127.0.0.2", lists!("nat")),
    concat!("-t nat -A POSTROUTING -j SNAT --to-source 1.2.3.4 --random-fully\n-t nat -A POSTROUTING -p tcp -j SNAT --to-source 1.2.3.4:1000-2000 --random", lists!("nat")),
    concat!("-t nat -A POSTROUTING -j MASQUERADE\n-t nat -A POSTROUTING -p tcp -j MASQUERADE --to-ports 1000-2000 --random-fully\n-t nat -A POSTROUTING -p udp -j MASQUERADE --to-ports 1000 --random", lists!("nat")),
    concat!("-t nat -A PREROUTING -p tcp -j REDIRECT --to-ports 8080\n-t nat -A PREROUTING -p tcp -j REDIRECT --to-ports 8080-8090 --random\n-t nat -A PREROUTING -j REDIRECT", lists!("nat")),
    concat!(
        "-t nat -N KUBE-SERVICES\n-t nat -N KUBE-SVC-X\n-t nat -N KUBE-SEP-A\n-t nat -N KUBE-SEP-B\n-t nat -N KUBE-MARK-MASQ\n-t nat -N KUBE-POSTROUTING\n-t nat -N KUBE-NODEPORTS\n",
        "-t nat -A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES\n",
        "-t nat -A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment \"kube-system/kube-dns:dns cluster IP\" -m udp --dport 53 -j KUBE-SVC-X\n",
        "-t nat -A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports; NOTE: this must be the last rule in this chain\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS\n",
        "-t nat -A KUBE-SVC-X -m comment --comment \"kube-system/kube-dns:dns -> 10.244.0.2:53\" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-A\n",
        "-t nat -A KUBE-SVC-X -m comment --comment \"kube-system/kube-dns:dns -> 10.244.0.3:53\" -j KUBE-SEP-B\n",
        "-t nat -A KUBE-SEP-A -s 10.244.0.2/32 -m comment --comment kube-system/kube-dns:dns -j KUBE-MARK-MASQ\n",
        "-t nat -A KUBE-SEP-A -p udp -m comment --comment kube-system/kube-dns:dns -m udp -j DNAT --to-destination 10.244.0.2:53\n",
        "-t nat -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000\n",
        "-t nat -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN\n",
        "-t nat -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000\n",
        "-t nat -A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE --random-fully\n",
        "-t nat -A POSTROUTING -m comment --comment \"kubernetes postrouting rules\" -j KUBE-POSTROUTING",
        lists!("nat")
    ),
    concat!(
        "-t nat -N CNI-HOSTPORT-DNAT\n-t nat -N CNI-DN-1\n-t nat -N CNI-HOSTPORT-SETMARK\n-t nat -N CNI-HOSTPORT-MASQ\n",
        "-t nat -A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT\n",
        "-t nat -A CNI-HOSTPORT-DNAT -p tcp -m comment --comment \"dnat name: \\\"cbr0\\\" id: \\\"abc\\\"\" -m multiport --dports 8080,8443 -j CNI-DN-1\n",
        "-t nat -A CNI-DN-1 -s 10.22.0.0/16 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK\n",
        "-t nat -A CNI-DN-1 -s 127.0.0.1/32 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK\n",
        "-t nat -A CNI-DN-1 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.22.0.5:80\n",
        "-t nat -A CNI-HOSTPORT-SETMARK -m comment --comment \"CNI portfwd masquerade mark\" -j MARK --set-xmark 0x2000/0x2000\n",
        "-t nat -A CNI-HOSTPORT-MASQ -m mark --mark 0x2000/0x2000 -j MASQUERADE",
        lists!("nat")
    ),
    concat!(
        "-t nat -N DOCKER\n-t nat -A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER\n",
        "-t nat -A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER\n",
        "-t nat -A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE\n",
        "-t nat -A POSTROUTING -s 172.17.0.2/32 -d 172.17.0.2/32 -p tcp -m tcp --dport 80 -j MASQUERADE\n",
        "-t nat -A DOCKER -i docker0 -j RETURN\n",
        "-t nat -A DOCKER ! -i docker0 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 172.17.0.2:80",
        lists!("nat")
    ),
    concat!(
        "-N DOCKER\n-N DOCKER-USER\n-A FORWARD -j DOCKER-USER\n",
        "-A FORWARD -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n",
        "-A DOCKER -d 172.17.0.2/32 ! -i docker0 -o docker0 -p tcp -m tcp --dport 80 -j ACCEPT\n",
        "-A DOCKER-USER -j RETURN",
        lists!()
    ),
    concat!(
        "-t nat -N FLANNEL-POSTRTG\n-t nat -A POSTROUTING -m comment --comment \"flanneld masq\" -j FLANNEL-POSTRTG\n",
        "-t nat -A FLANNEL-POSTRTG -m mark --mark 0x4000/0x4000 -m comment --comment \"flanneld masq\" -j RETURN\n",
        "-t nat -A FLANNEL-POSTRTG -s 10.244.0.0/24 -d 10.244.0.0/16 -m comment --comment \"flanneld masq\" -j RETURN\n",
        "-t nat -A FLANNEL-POSTRTG -s 10.244.0.0/16 ! -d 224.0.0.0/4 -m comment --comment \"flanneld masq\" -j MASQUERADE --random-fully",
        lists!("nat")
    ),
    concat!(
        "-t mangle -N cali-PREROUTING\n-t mangle -A PREROUTING -m comment --comment \"cali:6gwbT8clXdHdC1b1\" -j cali-PREROUTING\n",
        "-t mangle -A cali-PREROUTING -m comment --comment \"cali:6BJqBjBC7crtA-7-\" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n",
        "-t mangle -A cali-PREROUTING -m comment --comment \"cali:KX7AGNd6rMcDUai6\" -m mark --mark 0x10000/0x10000 -j ACCEPT\n",
        "-t mangle -A cali-PREROUTING -m comment --comment \"cali:x\" -j MARK --set-xmark 0x0/0x10000\n",
        "-t mangle -A cali-PREROUTING -m comment --comment \"cali:y\" -m mark --mark 0x40000/0x40000 -j DROP",
        lists!("mangle")
    ),
    concat!("-t mangle -A PREROUTING -j MARK --set-mark 0x4000\n-t mangle -A PREROUTING -j MARK --set-xmark 0x4000/0x4000\n-t mangle -A PREROUTING -j MARK --and-mark 0x4000\n-t mangle -A PREROUTING -j MARK --xor-mark 1\n-t mangle -A PREROUTING -j MARK --set-mark 1/2\n-t mangle -A PREROUTING -j MARK --set-xmark 0x1/0xffffffff", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -j CONNMARK --set-mark 1\n-t mangle -A PREROUTING -j CONNMARK --set-xmark 1/3\n-t mangle -A PREROUTING -j CONNMARK --save-mark\n-t mangle -A PREROUTING -j CONNMARK --restore-mark\n-t mangle -A PREROUTING -j CONNMARK --and-mark 3\n-t mangle -A PREROUTING -j CONNMARK --or-mark 3\n-t mangle -A PREROUTING -j CONNMARK --xor-mark 3", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -j CONNMARK --save-mark --nfmask 0xff --ctmask 0xf\n-t mangle -A PREROUTING -j CONNMARK --restore-mark --mask 0x1\n-t mangle -A PREROUTING -j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xf\n-t mangle -A PREROUTING -j CONNMARK --save-mark --mask 0xff00\n-t mangle -A PREROUTING -j CONNMARK --set-mark 1 --right-shift-mark 3\n-t mangle -A PREROUTING -j CONNMARK --restore-mark --left-shift-mark 8", lists!("mangle")),
    concat!("-t raw -A PREROUTING -j CT --notrack\n-t raw -A PREROUTING -j NOTRACK\n-t raw -A PREROUTING -p tcp -j CT --helper ftp\n-t raw -A OUTPUT -p udp --dport 53 -j CT --notrack", lists!("raw")),
    concat!("-t raw -A PREROUTING -j CT --zone 5 --ctevents new,related --expevents new\n-t raw -A PREROUTING -j CT --zone-orig 3\n-t raw -A PREROUTING -j CT --zone-reply 3\n-t raw -A PREROUTING -j CT --zone mark\n-t raw -A PREROUTING -j CT --zone-orig mark", lists!("raw")),
    concat!("-t raw -A PREROUTING -j CT --ctevents new,related,destroy,reply,assured,protoinfo,helper,mark,natseqinfo,secmark", lists!("raw")),
    "-t raw -v -A PREROUTING -j NOTRACK\n-t raw -S\n-t raw -L -n -v",
];

/// `-L` of the set match and SET target (sets created with `ipset` first).
pub const LIST_SETS: &[&str] = &[
    concat!("-A INPUT -m set --match-set foo src -j ACCEPT\n-A INPUT -m set ! --match-set bar src,dst --return-nomatch ! --update-counters ! --update-subcounters --packets-eq 5 --bytes-gt 10\n-A INPUT -m set --match-set foo dst --packets-lt 3 ! --bytes-eq 4", lists!()),
    concat!("-A INPUT -j SET --add-set foo src --exist --timeout 5\n-A INPUT -j SET --del-set bar src,dst\n-A INPUT -j SET --add-set foo src --del-set bar dst,src\n-A INPUT -j SET --add-set foo src --timeout 0", lists!()),
];

/// ip6tables `-L` of rules with matches and targets.
pub const LIST_EXT6: &[&str] = &[
    concat!("-A INPUT -p ipv6-icmp --icmpv6-type echo-request -j ACCEPT\n-A INPUT -p ipv6-icmp ! --icmpv6-type 1/3\n-A INPUT -p ipv6-icmp --icmpv6-type 1\n-A INPUT -p ipv6-icmp --icmpv6-type 200\n-A INPUT -p ipv6-icmp --icmpv6-type 1/200\n-A INPUT -p icmpv6 --icmpv6-type neighbour-solicitation", lists!()),
    concat!("-A INPUT -j REJECT\n-A INPUT -j REJECT --reject-with icmp6-adm-prohibited\n-A INPUT -j REJECT --reject-with icmp6-no-route\n-A INPUT -j REJECT --reject-with icmp6-addr-unreachable\n-A INPUT -p tcp -j REJECT --reject-with tcp-reset\n-A INPUT -j REJECT --reject-with icmp6-policy-fail\n-A INPUT -j REJECT --reject-with icmp6-reject-route", lists!()),
    concat!("-A INPUT -m iprange --src-range 2001:db8::1-2001:db8::9\n-A INPUT -m iprange ! --dst-range ::1-::2\n-A INPUT -m conntrack --ctorigsrc 2001:db8::/32 --ctorigdst ::/0 --ctreplsrc ::1 ! --ctrepldst fe80::1/64", lists!()),
    concat!("-A INPUT -p tcp -s ::1 --dport 22 -j LOG --log-prefix x\n-A INPUT -p udp -m multiport --dports 53,5353 -m comment --comment dns\n-A INPUT -p tcp ! --syn --sport 1024: -m conntrack --ctstate NEW,ESTABLISHED\n-A INPUT -j LOG --log-level 5 --log-ip-options", lists!()),
    concat!("-A INPUT -s ::1 -d ::/0\n-A INPUT ! -s fe80::/10 -d 2001:db8::1/128 -m mark --mark 0x1/0x1 -m limit --limit 1/sec\n-A OUTPUT -m owner --uid-owner 0 -m addrtype --dst-type LOCAL -m statistic --mode nth --every 4 --packet 3\n-A OUTPUT -m statistic --mode nth --every 4", lists!()),
    concat!("-t nat -A PREROUTING -p tcp -j DNAT --to-destination [2001:db8::1]:80\n-t nat -A PREROUTING -j DNAT --to-destination 2001:db8::1-2001:db8::5\n-t nat -A POSTROUTING -j SNAT --to-source 2001:db8::1 --persistent\n-t nat -A POSTROUTING -p udp -j MASQUERADE --to-ports 1000-2000 --random-fully\n-t nat -A PREROUTING -p tcp -j REDIRECT --to-ports 8080", lists!("nat")),
    concat!("-t mangle -A PREROUTING -j MARK --set-mark 0x4000\n-t mangle -A PREROUTING -j CONNMARK --save-mark --nfmask 0xff --ctmask 0xf\n-t raw -A PREROUTING -j CT --notrack", lists!("mangle"), lists!("raw")),
    "-N W\n-v -A W -s ::1 -p tcp --dport 22 -m comment --comment x -j ACCEPT\n-v -I W -p ipv6-icmp --icmpv6-type echo-request -j REJECT\n-v -D W 1\n-v -C W -s ::1 -p tcp --dport 22 -m comment --comment x -j ACCEPT",
];

/// `-L` of the other matches and targets iptnl knows.
pub const LIST_EXT_MORE: &[&str] = &[
    concat!("-A INPUT -m length --length 100\n-A INPUT -m length ! --length 100:200\n-A INPUT -m pkttype --pkt-type broadcast\n-A INPUT -m pkttype ! --pkt-type unicast", lists!()),
    concat!("-A INPUT -m recent --set --name foo\n-A INPUT -m recent ! --rcheck --seconds 60 --hitcount 3 --rttl --name bar --rsource\n-A INPUT -m recent --update --seconds 5 --reap --rdest --mask 255.255.0.0\n-A INPUT -m recent --remove", lists!()),
    concat!("-A INPUT -m mac --mac-source 00:11:22:33:44:55\n-A INPUT -m mac ! --mac-source aa:bb:cc:dd:ee:ff\n-A INPUT -m socket --transparent --nowildcard --restore-skmark\n-A INPUT -m helper --helper ftp\n-A INPUT -m helper ! --helper 'a b'", lists!()),
    concat!("-A INPUT -m hashlimit --hashlimit-upto 5/sec --hashlimit-name a\n-A INPUT -m hashlimit --hashlimit-above 512kb/s --hashlimit-burst 1mb --hashlimit-mode srcip,dstport --hashlimit-name a --hashlimit-srcmask 24\n-A INPUT -m hashlimit --hashlimit-above 10kb/s --hashlimit-name d", lists!()),
    concat!("-A INPUT -m hashlimit --hashlimit-upto 3/min --hashlimit-rate-match --hashlimit-rate-interval 5 --hashlimit-name b --hashlimit-dstmask 24 --hashlimit-htable-size 100 --hashlimit-htable-max 200 --hashlimit-htable-expire 1000 --hashlimit-htable-gcinterval 500\n-A INPUT -m hashlimit --hashlimit-upto 100/hour --hashlimit-burst 7 --hashlimit-mode srcip,dstip,srcport --hashlimit-name c", lists!()),
    concat!("-A INPUT -m connlimit --connlimit-above 5\n-A INPUT -m connlimit --connlimit-upto 5 --connlimit-mask 24 --connlimit-daddr\n-A INPUT -m connlimit ! --connlimit-upto 5", lists!()),
    concat!("-A INPUT -m ttl --ttl-eq 5\n-A INPUT -m ttl ! --ttl-eq 5\n-A INPUT -m ttl --ttl-lt 5\n-A INPUT -m ttl --ttl-gt 5\n-A INPUT -m dscp --dscp 10\n-A INPUT -m dscp ! --dscp-class AF41", lists!()),
    concat!("-A INPUT -m tos --tos 0x10\n-A INPUT -m tos ! --tos Minimize-Delay\n-A INPUT -m tos --tos 0x10/0x3f\n-A INPUT -m tos --tos 0x0/0x3f\n-A INPUT -m tos --tos 0x7/0x3f", lists!()),
    concat!("-A INPUT -p esp -m esp --espspi 5\n-A INPUT -p esp -m esp ! --espspi 5:10\n-A INPUT -p esp -m esp\n-A INPUT -p ah -m ah --ahspi 7\n-A INPUT -p ah -m ah ! --ahspi 7:9\n-A INPUT -p ah -m ah", lists!()),
    concat!("-t raw -A PREROUTING -m rpfilter\n-t raw -A PREROUTING -m rpfilter --loose --validmark --accept-local --invert\n-t raw -A PREROUTING -j TRACE", lists!("raw")),
    concat!("-t mangle -A PREROUTING -m socket\n-t mangle -A PREROUTING -j NFLOG\n-t mangle -A PREROUTING -j NFLOG --nflog-group 5 --nflog-prefix 'a b' --nflog-range 100 --nflog-threshold 3\n-t mangle -A PREROUTING -j NFLOG --nflog-size 200 --nflog-prefix x", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -p tcp -j TPROXY --on-port 80\n-t mangle -A PREROUTING -p tcp -j TPROXY --on-port 80 --on-ip 127.0.0.1 --tproxy-mark 0x1/0x1\n-t mangle -A PREROUTING -p udp -j TPROXY --on-ip 1.2.3.4 --on-port 0 --tproxy-mark 5", lists!("mangle")),
    concat!("-t mangle -A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu\n-t mangle -A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1400\n-t mangle -A POSTROUTING -p udp -j CHECKSUM --checksum-fill\n-t mangle -A POSTROUTING -j CLASSIFY --set-class 1:10\n-t mangle -A POSTROUTING -j CLASSIFY --set-class ffff:ffff", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -j NFQUEUE\n-t mangle -A PREROUTING -j NFQUEUE --queue-num 3\n-t mangle -A PREROUTING -j NFQUEUE --queue-balance 1:4 --queue-bypass --queue-cpu-fanout\n-t mangle -A PREROUTING -j NFQUEUE --queue-num 2 --queue-bypass", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -j AUDIT --type accept\n-t mangle -A PREROUTING -j AUDIT --type drop\n-t mangle -A PREROUTING -j AUDIT --type reject\n-t mangle -A PREROUTING -j DSCP --set-dscp 10\n-t mangle -A PREROUTING -j DSCP --set-dscp-class EF", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -j TOS --set-tos 0x10\n-t mangle -A PREROUTING -j TOS --set-tos Minimize-Cost\n-t mangle -A PREROUTING -j TOS --set-tos 0x10/0x3f\n-t mangle -A PREROUTING -j TOS --and-tos 0x10\n-t mangle -A PREROUTING -j TOS --or-tos 0x10\n-t mangle -A PREROUTING -j TOS --xor-tos 0x10\n-t mangle -A PREROUTING -j TOS --set-tos 0x05/0xff", lists!("mangle")),
    concat!("-t mangle -A PREROUTING -j TTL --ttl-set 5\n-t mangle -A PREROUTING -j TTL --ttl-dec 2\n-t mangle -A PREROUTING -j TTL --ttl-inc 1", lists!("mangle")),
];

/// ip6tables `-L` of the IPv6 header matches and the other matches and targets.
pub const LIST_EXT6_MORE: &[&str] = &[
    concat!("-A INPUT -m hl --hl-eq 5\n-A INPUT -m hl ! --hl-eq 5\n-A INPUT -m hl --hl-lt 5\n-A INPUT -m hl --hl-gt 5", lists!()),
    concat!("-A INPUT -m frag --fragid 1:2 --fraglen 3 --fragres --fragfirst --fragmore\n-A INPUT -m frag ! --fragid 5 ! --fraglen 3 --fraglast\n-A INPUT -m frag\n-A INPUT -m frag --fraglen 4", lists!()),
    concat!("-A INPUT -m hbh ! --hbh-len 3 --hbh-opts 1,2:3\n-A INPUT -m dst --dst-opts 4\n-A INPUT -m hbh\n-A INPUT -m dst --dst-len 5", lists!()),
    concat!("-A INPUT -m rt --rt-type 0 ! --rt-segsleft 2:3 ! --rt-len 8 --rt-0-res --rt-0-addrs ::1,2001:db8::2 --rt-0-not-strict\n-A INPUT -m rt --rt-segsleft 2\n-A INPUT -m rt", lists!()),
    concat!("-A INPUT -m ah ! --ahspi 5: ! --ahlen 0 --ahres\n-A INPUT -m ah --ahspi 5 --ahlen 3\n-A INPUT -m ah --ahres\n-A INPUT -m ah\n-A INPUT -m ah --ahlen 3\n-A INPUT -p esp -m esp --espspi 1:4294967295\n-A INPUT -p esp -m esp", lists!()),
    concat!("-A INPUT -m ipv6header ! --header frag,auth --soft\n-A INPUT -m ipv6header --header hop-by-hop,ipv6-route,ipv6-frag,esp,ah,ipv6-nonxt,ipv6-opts,protocol\n-A INPUT -m ipv6header --header 255", lists!()),
    concat!("-A INPUT -p mh -m mh ! --mh-type bu:be\n-A INPUT -p mh -m mh --mh-type 5\n-A INPUT -p mh -m mh --mh-type 200\n-A INPUT -p mh -m mh", lists!()),
    concat!("-A INPUT -m mac --mac-source 00:11:22:33:44:55\n-A INPUT -m connlimit --connlimit-above 5 --connlimit-mask 64\n-A INPUT -m length --length 1:\n-A INPUT -m pkttype --pkt-type multicast\n-A INPUT -m recent --set --mask ffff::\n-A INPUT -m tos --tos Normal-Service\n-A INPUT -m hashlimit --hashlimit-upto 5/sec --hashlimit-name a --hashlimit-srcmask 64", lists!()),
    concat!("-t mangle -A PREROUTING -j HL --hl-set 5\n-t mangle -A PREROUTING -j HL --hl-dec 2\n-t mangle -A PREROUTING -j HL --hl-inc 1\n-t mangle -A PREROUTING -p tcp -j TPROXY --on-port 80 --on-ip ::1\n-t mangle -A PREROUTING -p tcp -j TPROXY --on-port 80\n-t mangle -A PREROUTING -m rpfilter --invert\n-t mangle -A PREROUTING -j LOG --log-level 1 --log-tcp-options", lists!("mangle")),
];

/// As go-iptables and kube-proxy run it.
pub const GO_IPTABLES: &[&str] = &[
    "--wait -t nat -N KUBE-SERVICES\n--wait -t nat -N KUBE-SERVICES\n--wait -t nat -C PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES\n--wait -t nat -I PREROUTING 1 -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES\n--wait -t nat -C PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES\n--wait -t nat -S PREROUTING",
    "-w 5 -W 100000 -t filter -N KUBE-FIREWALL\n-w 5 -W 100000 -A KUBE-FIREWALL -m mark --mark 0x8000/0x8000 -j DROP\n-w 5 -W 100000 -S KUBE-FIREWALL",
    "--wait -t filter -S\n--wait -t filter -N A\n--wait -t filter -N B\n--wait -t filter -S",
    "--wait -t nat -N CNI-1\n--wait -t nat -A CNI-1 -d 10.0.0.0/24 -j ACCEPT\n--wait -t nat -F CNI-1\n--wait -t nat -X CNI-1\n--wait -t nat -X CNI-1",
    "--wait -t filter -A INPUT -s 1.2.3.4 -j ACCEPT -c 7 700\n--wait -t filter -L INPUT -n -v -x\n--wait -t filter -Z INPUT\n--wait -t filter -L INPUT -n -v -x",
    "--wait -t filter -A INPUT -j ACCEPT\n--wait -t filter -S INPUT 1\n--wait -t filter -D INPUT 1\n--wait -t filter -D INPUT 1",
    "--wait -t filter -P FORWARD DROP\n--wait -t filter -S FORWARD",
    "--wait -t filter -N OLD\n--wait -t filter -E OLD NEW\n--wait -t filter -S",
    "--wait -t filter -C INPUT -j NOPE",
    "--wait -t filter -D INPUT -j NOPE",
    "--wait -t filter -D INPUT -g NOPE",
    "--wait -t filter -I INPUT 1 -p tcp --dport 80 -j ACCEPT\n--wait -t filter -I INPUT 2 -p tcp --dport 81 -j ACCEPT\n--wait -t filter -I INPUT 4 -p tcp --dport 82 -j ACCEPT\n--wait -t filter -S INPUT",
    "--wait -t mangle -A POSTROUTING -p udp --dport 68 -j CHECKSUM --checksum-fill\n--wait -t mangle -S POSTROUTING",
    "--wait -t nat -A POSTROUTING -s 10.1.0.0/16 ! -d 10.1.0.0/16 -j MASQUERADE --random-fully\n--wait -t nat -S POSTROUTING",
];

/// `-v` with the commands.
pub const VERBOSE: &[&str] = &[
    "-N Y\n-v -X",
    "-v -N Z\n-v -E Z W\n-v -P INPUT DROP",
    "-N W\n-v -A W -s 1.2.3.4 -p tcp -j ACCEPT\n-v -I W -d 1.2.3.4 -i eth0 -j DROP\n-v -D W 1\n-v -C W -s 1.2.3.4 -p tcp -j ACCEPT\n-v -D W -s 1.2.3.4 -p tcp -j ACCEPT",
    "-N W\n-v -A W -s 1.2.3.4,5.6.7.8 -j DROP\n-v -R W 1 -j DROP\n-v -S",
    "-N W\n-v -C W -j ACCEPT\n-v -A NOPE -j ACCEPT\n-v -D W 9\n-v -D W -j DROP\n-v -I W 9 -j DROP",
    "-N W\n-v -A W -p 47 -g W\n-v -A W -p 135 -j ACCEPT\n-v -A W -p 58 ! -s 10.0.0.0/8 ! -o eth0 -j ACCEPT\n-v -A W -p sctp -f -j ACCEPT",
    "-v -F\n-v -X",
    "-v -t nat -N X\n-v -t nat -A X -j RETURN\n-v -t nat -F\n-v -t nat -X",
];

/// ip6tables.
pub const V6: &[&str] = &[
    "-A INPUT -s ::1 -j ACCEPT\n-S\n-v -S",
    "-A INPUT -s 2001:db8::/32 -p tcp --dport 443 -j ACCEPT\n-C INPUT -s 2001:db8::/32 -p tcp --dport 443 -j ACCEPT\n-D INPUT -s 2001:db8::/32 -p tcp --dport 443 -j ACCEPT\n-S",
    "-A INPUT -f -j ACCEPT",
    "-4 -S",
    "-6 -S",
    "-N X\n-A INPUT -p ipv6-icmp -j X\n-X X",
    "-A INPUT -j ACCEPT\n-I INPUT 3 -j DROP\n-D INPUT 2",
    "-t nat -A POSTROUTING -j MASQUERADE\n-t nat -S",
    "-P FORWARD DROP\n-S FORWARD",
    "-t bogus -S",
    "-A INPUT -s 1.2.3.4 -j ACCEPT",
    "-N A\n-E A B\n-N C\n-E B C\n-S",
    "-V",
    "-h",
    "-D INPUT -j ACCEPT",
    "-A NOPE -j ACCEPT",
    "-L",
    "-A INPUT -s ::1 -p tcp -j ACCEPT\n-A INPUT ! -d 2001:db8::/64 -i eth0 -j DROP\n-L -n -v\n-L\n-L -v -x --line-numbers\n-v -A INPUT -s ::1 -j ACCEPT",
];

/// Every extension that needs a protocol, without it, with another one, with it inverted and
/// with it, then the tables as saved (`-S`): the message and exit code of each refusal, and
/// no rule installed that would match more than it says. iptables-nft refuses the natively
/// encoded tcp and udp matches itself (`TCP match requires '-p tcp'`, for -A, -I, -R, -C and
/// -D) but accepts them after an inverted protocol (`! -p tcp -m tcp --dport 1`), as 1.8.11
/// does (its check compares the protocol number only); multiport and the NAT targets'
/// `--to-ports` are checked when parsed; the rest (the x_tables icmp, esp, ah, tcp and udp
/// without options, TCPMSS, REJECT tcp-reset, TPROXY) is refused by the kernel from the
/// rule's protocol, as iptables-nft's are.
pub const PROTO_GUARD: &[&str] = &[
    "-A INPUT -m tcp --dport 1 -j DROP\n-A INPUT -p udp -m tcp --dport 1 -j DROP\n-A INPUT ! -p tcp -m tcp --dport 1 -j DROP\n-A INPUT ! -p tcp --sport 2 -j DROP\n-A INPUT -p 6 -m tcp --dport 3\n-A INPUT -m tcp --syn\n-A INPUT -p icmp -m tcp --tcp-flags SYN SYN\n-S",
    "-A INPUT -m tcp\n-A INPUT -m tcp --tcp-option 2\n-A INPUT -p udp -m tcp --tcp-option 2\n-A INPUT ! -p tcp -m tcp --tcp-option 2\n-A INPUT -p tcp -m tcp --tcp-option 2\n-A INPUT -p tcp -m tcp\n-S",
    "-A INPUT -p tcp -j ACCEPT\n-I INPUT -m tcp --dport 1\n-R INPUT 1 -m tcp --dport 1\n-C INPUT -m tcp --dport 1\n-D INPUT -m tcp --dport 1\n-I INPUT -p udp --dport 1\n-S",
    "-A INPUT -m udp --dport 1 -j DROP\n-A INPUT -p tcp -m udp --sport 1 -j DROP\n-A INPUT ! -p udp -m udp --dport 1 -j DROP\n-A INPUT ! -p udp --dport 4 -j DROP\n-A INPUT -m udp\n-A INPUT -p tcp -m udp\n-A INPUT -p udp -m udp --dport 5\n-S",
    "-A INPUT -m multiport --dports 1,2\n-A INPUT -p icmp -m multiport --dports 1,2\n-A INPUT ! -p tcp -m multiport --dports 1,2\n-A INPUT -p tcp -m multiport --dports 1,2\n-A INPUT -p udplite -m multiport --ports 3\n-A INPUT -p sctp -m multiport --sports 4\n-A INPUT -p dccp -m multiport --dports 5\n-S",
    "-A INPUT -m icmp --icmp-type 8\n-A INPUT -p udp -m icmp --icmp-type 8\n-A INPUT ! -p icmp -m icmp --icmp-type 8\n-A INPUT ! -p icmp --icmp-type 8\n-C INPUT -m icmp --icmp-type 8\n-A INPUT -p icmp -m icmp --icmp-type 8\n-I INPUT -m icmp --icmp-type 0\n-R INPUT 1 -m icmp --icmp-type 0\n-S",
    "-A INPUT -m esp --espspi 1\n-A INPUT -p udp -m esp --espspi 1\n-A INPUT ! -p esp -m esp --espspi 1\n-A INPUT -p esp -m esp --espspi 1\n-A INPUT -m ah --ahspi 1\n-A INPUT ! -p ah -m ah --ahspi 1\n-A INPUT -p ah -m ah --ahspi 1\n-S",
    "-A INPUT -j REJECT --reject-with tcp-reset\n-A INPUT -p udp -j REJECT --reject-with tcp-reset\n-A INPUT ! -p tcp -j REJECT --reject-with tcp-reset\n-A INPUT -p tcp -j REJECT --reject-with tcp-reset\n-A INPUT -p udp -j REJECT\n-S",
    "-A FORWARD -j TCPMSS --set-mss 1000\n-A FORWARD -p udp -j TCPMSS --set-mss 1000\n-A FORWARD ! -p tcp -j TCPMSS --set-mss 1000\n-A FORWARD -p tcp -j TCPMSS --set-mss 1000\n-A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu\n-t mangle -A POSTROUTING -j TCPMSS --clamp-mss-to-pmtu\n-S\n-t mangle -S",
    "-t nat -A PREROUTING -j REDIRECT --to-ports 1\n-t nat -A PREROUTING -p icmp -j REDIRECT --to-ports 1\n-t nat -A PREROUTING ! -p tcp -j REDIRECT --to-ports 2\n-t nat -A PREROUTING -p udplite -j REDIRECT --to-ports 1\n-t nat -A PREROUTING -p tcp -j REDIRECT --to-ports 3\n-t nat -A PREROUTING -j REDIRECT\n-t nat -S",
    "-t nat -A PREROUTING -j DNAT --to-destination 1.2.3.4:5\n-t nat -A PREROUTING -p sctp -j DNAT --to-destination 1.2.3.4:5\n-t nat -A PREROUTING -p dccp -j DNAT --to-destination 1.2.3.4:6\n-t nat -A PREROUTING ! -p tcp -j DNAT --to-destination 1.2.3.4:7\n-t nat -A PREROUTING -p udplite -j DNAT --to-destination 1.2.3.4:8\n-t nat -A PREROUTING -j DNAT --to-destination 1.2.3.4\n-t nat -S",
    "-t nat -A POSTROUTING -j SNAT --to-source 1.2.3.4:5\n-t nat -A POSTROUTING -p icmp -j SNAT --to-source 1.2.3.4:5\n-t nat -A POSTROUTING -j MASQUERADE --to-ports 5\n-t nat -A POSTROUTING ! -p udp -j MASQUERADE --to-ports 6\n-t nat -A POSTROUTING -p udp -j MASQUERADE --to-ports 7\n-t nat -S",
    "-t mangle -A PREROUTING -j TPROXY --on-port 1 --tproxy-mark 1\n-t mangle -A PREROUTING -p icmp -j TPROXY --on-port 1 --tproxy-mark 1\n-t mangle -A PREROUTING ! -p tcp -j TPROXY --on-port 1 --tproxy-mark 1\n-t mangle -A PREROUTING -p tcp -j TPROXY --on-port 1 --tproxy-mark 1\n-t mangle -A PREROUTING -p udp -j TPROXY --on-port 2 --tproxy-mark 2\n-t mangle -I PREROUTING -j TPROXY --on-port 3\n-t mangle -R PREROUTING 1 -j TPROXY --on-port 3\n-t mangle -S",
];

/// [`PROTO_GUARD`] for ip6tables, with icmp6 and mh.
pub const PROTO_GUARD6: &[&str] = &[
    "-A INPUT -m tcp --dport 1 -j DROP\n-A INPUT -p udp -m tcp --dport 1 -j DROP\n-A INPUT ! -p tcp -m tcp --dport 1 -j DROP\n-A INPUT -m udp --dport 1\n-A INPUT ! -p udp --sport 1\n-A INPUT -m tcp\n-A INPUT -p tcp --dport 2\n-S",
    "-A INPUT -m multiport --dports 1,2\n-A INPUT -p ipv6-icmp -m multiport --dports 1,2\n-A INPUT -p udp -m multiport --dports 1,2\n-S",
    "-A INPUT -m icmp6 --icmpv6-type 128\n-A INPUT -p tcp -m icmp6 --icmpv6-type 128\n-A INPUT ! -p ipv6-icmp -m icmp6 --icmpv6-type 128\n-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128\n-S",
    "-A INPUT -m mh --mh-type 1\n-A INPUT ! -p mh -m mh --mh-type 1\n-A INPUT -p mh -m mh --mh-type 1\n-A INPUT -m esp --espspi 1\n-A INPUT -p esp -m esp --espspi 1\n-A INPUT -m ah --ahspi 1\n-S",
    "-A INPUT -j REJECT --reject-with tcp-reset\n-A INPUT ! -p tcp -j REJECT --reject-with tcp-reset\n-A INPUT -p tcp -j REJECT --reject-with tcp-reset\n-A FORWARD -j TCPMSS --set-mss 1000\n-A FORWARD -p tcp -j TCPMSS --set-mss 1000\n-S",
    "-t nat -A PREROUTING -j REDIRECT --to-ports 1\n-t nat -A PREROUTING -p tcp -j REDIRECT --to-ports 1\n-t nat -A PREROUTING -j DNAT --to-destination [::1]:5\n-t nat -A PREROUTING -p udp -j DNAT --to-destination [::1]:5\n-t nat -S\n-t mangle -A PREROUTING -j TPROXY --on-port 1\n-t mangle -A PREROUTING -p udp -j TPROXY --on-port 1\n-t mangle -S",
];

/// `-X` of built-in chains: refused with a DROP policy (`Directory not empty.`) or with
/// rules (`CHAIN_DEL failed`), done when empty with ACCEPT; `-X` of a whole table deletes the
/// user chains and the empty ACCEPT built-in chains, and leaves the others.
pub const BUILTIN_DELETE: &[&str] = &[
    "-P FORWARD DROP\n-X FORWARD\n-S\n-A FORWARD -j ACCEPT\n-X FORWARD\n-S",
    "-A INPUT -j ACCEPT\n-X INPUT\n-S\n-F INPUT\n-X INPUT\n-X INPUT\n-S",
    "-P OUTPUT DROP\n-P OUTPUT ACCEPT\n-X OUTPUT\n-X OUTPUT\n-S",
    "-P FORWARD DROP\n-A INPUT -j ACCEPT\n-N U\n-N V\n-v -X\n-S\n-X FORWARD\n-X INPUT\n-X OUTPUT\n-S",
    "-t nat -A OUTPUT -j ACCEPT\n-t nat -P POSTROUTING DROP\n-t nat -N U\n-t nat -X\n-t nat -S\n-t nat -X PREROUTING\n-t nat -X POSTROUTING\n-t nat -X OUTPUT",
    "-t mangle -X\n-t mangle -X INPUT\n-t mangle -P INPUT DROP\n-t mangle -X\n-t mangle -X INPUT\n-t mangle -S",
];

/// `-Z` of rules whose x_tables extensions the kernel checks against the rule's protocol
/// (TPROXY, REDIRECT --to-ports, TCPMSS, REJECT tcp-reset after multiport): by rule number,
/// by chain and for the whole table, the counters zeroed and the rules unchanged.
pub const ZERO_COMPAT: &[&str] = &[
    "-t mangle -A PREROUTING -p tcp -j TPROXY --on-port 1 --tproxy-mark 1 -c 5 10\n-t mangle -A PREROUTING -p udp -m multiport --dports 1,2 -j TPROXY --on-port 2 --tproxy-mark 2 -c 3 4\n-t mangle -Z PREROUTING 2\n-t mangle -v -S\n-t mangle -A PREROUTING -p udp -c 7 8 -j TPROXY --on-port 3\n-t mangle -Z PREROUTING\n-t mangle -v -S\n-t mangle -A PREROUTING -p tcp -c 9 9 -j TPROXY --on-port 4\n-t mangle -Z\n-t mangle -v -S",
    "-t nat -A PREROUTING -p tcp -j REDIRECT --to-ports 1 -c 5 10\n-t nat -A PREROUTING -p udp -m multiport --dports 53,54 -j REDIRECT --to-ports 2-3 -c 1 1\n-t nat -Z PREROUTING 1\n-t nat -v -S\n-t nat -Z PREROUTING\n-t nat -v -S\n-t nat -A OUTPUT -p tcp -j REDIRECT --to-ports 5 -c 2 2\n-t nat -Z\n-t nat -v -S",
    "-A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu -c 1 2\n-A FORWARD -p tcp -j TCPMSS --set-mss 1000 -c 3 4\n-A INPUT -p tcp -m multiport --dports 1,2 -j REJECT --reject-with tcp-reset -c 5 6\n-Z FORWARD 2\n-v -S\n-Z INPUT\n-v -S\n-A INPUT -p tcp -m multiport ! --sports 3 -c 7 7 -j REJECT --reject-with tcp-reset\n-Z\n-v -S",
];

/// Grouped short options, read as getopt reads them: a flag that takes no value lets the
/// letters after it be options of their own (`-nvL`), in both families.
pub const GROUPED: &[&str] = &[
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-nvL",
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-nL",
    "-t nat -nL",
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-nxvL",
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-vS",
    "-vnL",
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-L -nv",
    "-t filter -nL INPUT",
    "-A INPUT -s 1.2.3.4 -j ACCEPT\n-nvL INPUT --line-numbers",
    "-nvZ",
    "-nvF",
];

pub const GROUPED6: &[&str] = &[
    "-A INPUT -s 2001:db8::1 -j ACCEPT\n-nvL",
    "-A INPUT -s 2001:db8::1 -j ACCEPT\n-vS",
    "-A INPUT -s 2001:db8::1 -j ACCEPT\n-L -nv",
    "-t nat -nL",
];

/// iptables' own address forms (`xtables_numeric_to_ipaddr`, masks in `strtoul`'s syntax),
/// on the command line and in `-C`/`-D`.
pub const ADDR_FORMS: &[&str] = &[
    "-A INPUT -s 0/0 -j ACCEPT\n-S\n-C INPUT -s 0/0 -j ACCEPT\n-D INPUT -d 0/0 -j ACCEPT",
    "-A INPUT -s 10/8 -j ACCEPT\n-S",
    "-A INPUT -s 127.1 -d 10.0.0 -j ACCEPT\n-S\n-D INPUT -s 127.1.0.0 -d 10.0.0.0 -j ACCEPT",
    "-A INPUT -s 10.1/16 -j ACCEPT\n-S",
    "-A INPUT -s 0x7f.1 -j ACCEPT\n-S",
    "-A INPUT -s 010.0.0.1/010 -j ACCEPT\n-S",
    "-A INPUT -s 1.2.3.4/+8 -j ACCEPT\n-S",
    "-A INPUT -s 1.2.3.4/0xff.0.0.0 -j ACCEPT\n-S",
    "-A INPUT -s 1.2.3.4/255.0.0 -j ACCEPT",
    "-A INPUT -s 08.1.1.1 -j ACCEPT",
    "-A INPUT -s 1..2 -j ACCEPT",
];

pub const ADDR_FORMS6: &[&str] = &[
    "-A INPUT -s ::/0 -j ACCEPT\n-S",
    "-A INPUT -s 2001:db8::1/0x10 -j ACCEPT\n-S",
    "-A INPUT -s 2001:db8::1/+64 -j ACCEPT\n-S",
    "-A INPUT -s 2001:db8::1/ffff:ffff:: -j ACCEPT\n-S",
];

/// The sets [`LIST_SETS`] needs (created with `ipset` first).
pub const LIST_SETS_SETUP: &[&[&str]] = &[
    &["ipset", "create", "foo", "hash:ip"],
    &["ipset", "create", "bar", "hash:ip,port"],
];

/// A group of sequences as `tests/cli.rs` runs it: its name, its family and the commands run
/// before each sequence.
pub struct Group {
    pub name: &'static str,
    pub v6: bool,
    pub setup: &'static [&'static [&'static str]],
    pub seqs: &'static [&'static str],
}

/// Every group of sequences above, with the family and setup `tests/cli.rs` runs it with.
pub const GROUPS: &[Group] = &[
    group("RULES", false, RULES),
    group("CHAINS", false, CHAINS),
    group("LISTING", false, LISTING),
    group("USAGE", false, USAGE),
    group("LIST_L", false, LIST_L),
    group("LIST_EXT", false, LIST_EXT),
    group("LIST_EXT_TABLES", false, LIST_EXT_TABLES),
    Group {
        name: "LIST_SETS",
        v6: false,
        setup: LIST_SETS_SETUP,
        seqs: LIST_SETS,
    },
    group("LIST_EXT6", true, LIST_EXT6),
    group("LIST_EXT_MORE", false, LIST_EXT_MORE),
    group("LIST_EXT6_MORE", true, LIST_EXT6_MORE),
    group("GO_IPTABLES", false, GO_IPTABLES),
    group("VERBOSE", false, VERBOSE),
    group("V6", true, V6),
    group("PROTO_GUARD", false, PROTO_GUARD),
    group("PROTO_GUARD6", true, PROTO_GUARD6),
    group("BUILTIN_DELETE", false, BUILTIN_DELETE),
    group("ZERO_COMPAT", false, ZERO_COMPAT),
    group("GROUPED", false, GROUPED),
    group("GROUPED6", true, GROUPED6),
    group("ADDR_FORMS", false, ADDR_FORMS),
    group("ADDR_FORMS6", true, ADDR_FORMS6),
];

const fn group(name: &'static str, v6: bool, seqs: &'static [&'static str]) -> Group {
    Group {
        name,
        v6,
        setup: &[],
        seqs,
    }
}
