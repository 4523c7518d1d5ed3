//! Rules `nft` wrote natively in an iptables table (no counter, `cmp gte`+`cmp lte` port
//! ranges, `meta iif`, `ip saddr 0.0.0.0/0`, a native `log group`…) are shown as iptables
//! 1.8.11 shows them (its `nft-only/0010-native-delinearize` case), in `-S`, `-L` and a save,
//! and a save restored by iptnl still gives back their exact bytes; `iptables-nft-restore`
//! reads the same save as the iptables rules it shows.

mod common;

const NATIVE: &str = r#"table ip filter {
	chain INPUT {
		type filter hook input priority filter; policy accept;
		ip saddr 1.2.3.4 tcp dport 23 accept
		ip saddr 1.2.3.0/24 ip daddr 0.0.0.0 udp dport 67-69 drop
		ip saddr 1.0.0.0/8 ip daddr 0.0.0.0 tcp sport 1024-65535 tcp dport 443 tcp flags syn / syn,ack accept
		tcp dport 443 tcp flags syn comment "checks if SYN bit is set"
		tcp flags syn / syn,rst,ack,fin comment "same as iptables --syn"
		tcp flags & syn == syn
		tcp flags & (syn | ack) != (syn | ack )
		ip daddr 0.0.0.0/1 ip ttl 1 drop
		ip daddr 0.0.0.0/2 ip ttl > 2 accept
		ip daddr 0.0.0.0/3 ip ttl < 254 accept
		ip daddr 0.0.0.0/4 ip ttl != 255 drop
		ip daddr 8.0.0.0/5 icmp type 1 accept
		ip daddr 8.0.0.0/6 icmp type 2 icmp code port-unreachable accept
		ip daddr 10.0.0.0/7 icmp type echo-request accept
		meta pkttype broadcast accept
		meta pkttype != host drop
		ip saddr 0.0.0.0/0 ip protocol tcp
		ip daddr 0.0.0.0/1 ip protocol udp
	}
	chain FORWARD {
		type filter hook forward priority filter;
		limit rate 10/day counter
		udp dport 42 counter
		meta iif "lo" oifname "lo*" log group 1 prefix "should use NFLOG" queue-threshold 42 snaplen 123
	}
}
"#;

/// What iptables 1.8.11's save prints for [`NATIVE`] (its test's expected text).
const SHOWN: &str = "*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s 1.2.3.4/32 -p tcp -m tcp --dport 23 -j ACCEPT
-A INPUT -s 1.2.3.0/24 -d 0.0.0.0/32 -p udp -m udp --dport 67:69 -j DROP
-A INPUT -s 1.0.0.0/8 -d 0.0.0.0/32 -p tcp -m tcp --sport 1024:65535 --dport 443 --tcp-flags SYN,ACK SYN -j ACCEPT
-A INPUT -p tcp -m tcp --dport 443 ! --tcp-flags SYN NONE -m comment --comment \"checks if SYN bit is set\"
-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m comment --comment \"same as iptables --syn\"
-A INPUT -p tcp -m tcp --tcp-flags SYN SYN
-A INPUT -p tcp -m tcp ! --tcp-flags SYN,ACK SYN,ACK
-A INPUT -d 0.0.0.0/1 -m ttl --ttl-eq 1 -j DROP
-A INPUT -d 0.0.0.0/2 -m ttl --ttl-gt 2 -j ACCEPT
-A INPUT -d 0.0.0.0/3 -m ttl --ttl-lt 254 -j ACCEPT
-A INPUT -d 0.0.0.0/4 -m ttl ! --ttl-eq 255 -j DROP
-A INPUT -d 8.0.0.0/5 -p icmp -m icmp --icmp-type 1 -j ACCEPT
-A INPUT -d 8.0.0.0/6 -p icmp -m icmp --icmp-type 2/3 -j ACCEPT
-A INPUT -d 10.0.0.0/7 -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A INPUT -m pkttype --pkt-type broadcast -j ACCEPT
-A INPUT -m pkttype ! --pkt-type unicast -j DROP
-A INPUT -p tcp
-A INPUT -d 0.0.0.0/1 -p udp
-A FORWARD -m limit --limit 10/day
-A FORWARD -p udp -m udp --dport 42
-A FORWARD -i lo -o lo+ -j NFLOG --nflog-prefix \"should use NFLOG\" --nflog-group 1 --nflog-size 123 --nflog-threshold 42
COMMIT
";

fn iptnl(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let out = common::run_status(env!("CARGO_BIN_EXE_iptnl"), args, stdin);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The rules' expressions as `nft --debug=netlink` prints them, without the handles.
fn kernel_rules() -> Vec<String> {
    let text = common::run("nft", &["--debug=netlink", "list", "table", "ip", "filter"]);
    let mut rules = Vec::new();
    let mut cur = String::new();
    for l in text.lines() {
        if l.starts_with("ip filter ") {
            if !cur.is_empty() {
                rules.push(std::mem::take(&mut cur));
            }
            // `ip filter CHAIN HANDLE [POSITION]`: the chain only.
            cur = l.split(' ').take(3).collect::<Vec<_>>().join(" ");
        } else if l.starts_with("  [") {
            cur.push_str(l);
        }
    }
    if !cur.is_empty() {
        rules.push(cur);
    }
    rules
}

fn with_native(f: impl FnOnce() + Send) {
    if !common::have("nft") || !common::have("iptables-nft") {
        eprintln!("skipped: nft and iptables-nft are needed");
        return;
    }
    common::in_netns(|| {
        common::nft_load(NATIVE);
        f()
    });
}

#[test]
fn native_rules_are_saved_as_iptables_1_8_11_shows_them() {
    with_native(|| {
        // For the reader floor 1.8.9, whose layout two of the rules have.
        let (code, save, err) = iptnl(&["iptables-save", "--reader-floor", "1.8.9"], None);
        assert_eq!(code, 0, "{err}");
        assert_eq!(without_comments(&save), SHOWN);
        // Nothing iptables cannot express: no warning.
        assert!(!err.contains("cannot express"), "{err}");
        // Each native rule carries its bytes on the comment line before it.
        let notes = save
            .lines()
            .filter(|l| l.starts_with(iptnl::ipt::savefile::NATIVE_NOTE))
            .count();
        // 21 rules, two of them (`limit … counter`, `udp dport 42 counter`) as iptables writes them.
        assert_eq!(notes, 19, "{save}");
        // -S shows the same rules.
        let (code, s, _) = iptnl(&["iptables", "-S"], None);
        assert_eq!(code, 0);
        let want: Vec<&str> = SHOWN.lines().filter(|l| l.starts_with("-A")).collect();
        let got: Vec<&str> = s.lines().filter(|l| l.starts_with("-A")).collect();
        assert_eq!(got, want);
        // -L lists them as iptables-nft does, nothing carried whole.
        let (code, l, err) = iptnl(&["iptables", "-L", "-n", "-v"], None);
        assert_eq!(code, 0, "{err}");
        assert!(!l.contains(iptnl::ipt::raw::RAW_LIST_MARK), "{l}");
        assert!(l.contains("udp dpts:67:69"), "{l}");
        assert!(l.contains("NFLOG      all  --  lo     lo+"), "{l}");
    });
}

#[test]
fn a_save_of_native_rules_restores_their_bytes() {
    with_native(|| {
        let before = kernel_rules();
        let (_, save, _) = iptnl(&["iptables-save"], None);
        let (code, _, err) = iptnl(&["iptables-restore"], Some(&save));
        assert_eq!(code, 0, "{err}");
        assert_eq!(kernel_rules(), before);
        // iptables-nft reads the same save as the rules it shows.
        let out = common::run_status("iptables-nft-restore", &[], Some(&save));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs = common::run("iptables-nft-save", &[]);
        assert_eq!(without_comments(&theirs), SHOWN);
    });
}

#[test]
fn an_edited_line_after_the_note_is_restored_as_edited() {
    with_native(|| {
        let (_, save, _) = iptnl(&["iptables-save"], None);
        let edited = save.replace("--dport 23 -j ACCEPT", "--dport 24 -j ACCEPT");
        assert_ne!(edited, save);
        let (code, _, err) = iptnl(&["iptables-restore"], Some(&edited));
        assert_eq!(code, 0, "{err}");
        let (_, again, _) = iptnl(&["iptables-save"], None);
        let shown = without_comments(&again);
        assert!(
            shown.contains("-A INPUT -s 1.2.3.4/32 -p tcp -m tcp --dport 24 -j ACCEPT"),
            "{shown}"
        );
        // The edited rule is written as iptables writes it: now it has an iptables form, so
        // no note precedes it.
        let first = again
            .lines()
            .position(|l| l.contains("--dport 24"))
            .unwrap();
        let prev = again.lines().nth(first - 1).unwrap();
        assert!(
            !prev.starts_with(iptnl::ipt::savefile::NATIVE_NOTE),
            "{again}"
        );
    });
}

#[test]
fn native_rules_are_checked_and_deleted_by_their_shown_form() {
    with_native(|| {
        let spec = [
            "-s",
            "1.2.3.0/24",
            "-d",
            "0.0.0.0/32",
            "-p",
            "udp",
            "-m",
            "udp",
            "--dport",
            "67:69",
            "-j",
            "DROP",
        ];
        let mut args = vec!["iptables", "-C", "INPUT"];
        args.extend(spec);
        assert_eq!(iptnl(&args, None).0, 0);
        args[1] = "-D";
        let (code, _, err) = iptnl(&args, None);
        assert_eq!(code, 0, "{err}");
        let (_, s, _) = iptnl(&["iptables", "-S", "INPUT"], None);
        assert!(!s.contains("67:69"), "{s}");
        assert_eq!(s.lines().filter(|l| l.starts_with("-A")).count(), 17, "{s}");
        let mut fwd = vec!["iptables", "-D", "FORWARD"];
        fwd.extend([
            "-i",
            "lo",
            "-o",
            "lo+",
            "-j",
            "NFLOG",
            "--nflog-prefix",
            "should use NFLOG",
            "--nflog-group",
            "1",
            "--nflog-size",
            "123",
            "--nflog-threshold",
            "42",
        ]);
        let (code, _, err) = iptnl(&fwd, None);
        assert_eq!(code, 0, "{err}");
    });
}
