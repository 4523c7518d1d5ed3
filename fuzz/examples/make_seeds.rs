//! Writes the seed corpora of the fuzz targets (see fuzz/README.md) from the project's own
//! test data, into `DIR/<target>/`: the rule corpus (tests/corpus), iptables' `.t` rules
//! (when a directory of them is given), the restore corpus (tests/restore_corpus), a small
//! kube-proxy workload, and, as root, the kernel's own dumps of those rules restored into a
//! fresh network namespace. The corpora are then minimised with libFuzzer's `-merge=1`.
//!
//! cargo run --release --manifest-path fuzz/Cargo.toml --example make_seeds -- DIR [T_DIR]
//! (from the repository's root, so that the fuzzing flags of fuzz/.cargo do not apply).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use iptnl::ipt::ext::ExtKind;
use iptnl::ipt::{encode_rule_with, parse_rule_str_with, split_args, IpFamily};
use iptnl::iptables::restore::{restore, RestoreOptions};
use iptnl::netlink::{Conn, MsgWriter};
use iptnl::nft::{Expr, Rule};
use iptnl::sys::nf_tables::NFT_MSG_NEWRULE;
use iptnl::sys::nfnetlink::{nfnl_msg_type, NFNL_SUBSYS_NFTABLES};
use iptnl::workload::{kube_proxy, KubeProxyOptions};
use iptnl_fuzz::{xt_names, Sets, PROTOS};

struct Out {
    dir: PathBuf,
    seen: HashSet<Vec<u8>>,
}

impl Out {
    fn put(&mut self, target: &str, bytes: Vec<u8>) {
        if !self.seen.insert([target.as_bytes(), &bytes].concat()) {
            return;
        }
        let mut h: u64 = 0xcbf29ce484222325;
        for b in &bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100000001b3);
        }
        let d = self.dir.join(target);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(format!("{h:016x}")), bytes).unwrap();
    }
}

fn fam_bit(f: IpFamily) -> u8 {
    u8::from(f == IpFamily::V6)
}

/// (family, rule text) of the rule corpus and the `.t` files.
fn rules(root: &Path, t_dir: Option<&Path>) -> Vec<(IpFamily, String)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', '@']) {
                continue;
            }
            let line = line.trim_start_matches('!').trim();
            let mut w = line.splitn(4, ' ');
            let (Some(fams), Some(_), Some(_), Some(spec)) =
                (w.next(), w.next(), w.next(), w.next())
            else {
                continue;
            };
            for (c, f) in [('4', IpFamily::V4), ('6', IpFamily::V6)] {
                if fams.contains(c) {
                    out.push((f, spec.to_owned()));
                }
            }
        }
    }
    if let Some(t) = t_dir {
        let mut files: Vec<_> = std::fs::read_dir(t)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let fams: &[IpFamily] = if name.starts_with("libipt_") {
                &[IpFamily::V4]
            } else if name.starts_with("libip6t_") {
                &[IpFamily::V6]
            } else if name.starts_with("libxt_") {
                &[IpFamily::V4, IpFamily::V6]
            } else {
                continue;
            };
            for line in std::fs::read_to_string(&f).unwrap().lines() {
                if line.starts_with(['*', ':', '#']) || line.trim().is_empty() {
                    continue;
                }
                let rule = line.split(';').next().unwrap_or("").trim();
                for &fam in fams {
                    out.push((fam, rule.to_owned()));
                }
            }
        }
    }
    out
}

fn newrule(rule: &Rule, handle: u64) -> Vec<u8> {
    let mut w = MsgWriter::new();
    let m = w.begin(
        nfnl_msg_type(NFNL_SUBSYS_NFTABLES, NFT_MSG_NEWRULE),
        0,
        0,
        rule.family.raw(),
        0,
    );
    let mut r = rule.clone();
    r.compat = None;
    r.encode(&mut w, Some(handle), None, None, None);
    w.finish(m).unwrap();
    w.into_bytes()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).expect("usage: make_seeds DIR [T_DIR]"));
    let t_dir = args.get(2).map(PathBuf::from);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Out {
        dir,
        seen: HashSet::new(),
    };
    let names = xt_names();

    // The rule parser, and the decoder fed with what the rules encode to.
    for (fam, text) in rules(&root, t_dir.as_deref()) {
        let f = fam_bit(fam);
        out.put("rule_parse", [&[f][..], text.as_bytes()].concat());
        if let Ok(words) = split_args(&text) {
            out.put(
                "rule_parse",
                [&[f | 2][..], words.join("\0").as_bytes()].concat(),
            );
            out.put(
                "rule_parse",
                [&[f | 4][..], b"-A INPUT ", text.as_bytes()].concat(),
            );
        }
        let Ok(specs) = parse_rule_str_with(fam, &text, &Sets) else {
            continue;
        };
        for table in ["filter", "nat", "mangle", "raw"] {
            let Ok(rule) = encode_rule_with(&specs[0], fam, table, "INPUT", &Sets) else {
                continue;
            };
            out.put("rule_decode", [&[f << 1][..], &newrule(&rule, 9)].concat());
            for e in &rule.exprs {
                let (kind, name, rev, info) = match e {
                    Expr::Match(m) => (ExtKind::Match, &*m.name, m.rev, &m.info),
                    Expr::Target(t) => (ExtKind::Target, &*t.name, t.rev, &t.info),
                    _ => continue,
                };
                let Some(ext) = names.iter().position(|&(k, n)| k == kind && n == name) else {
                    continue;
                };
                let proto = match specs[0].proto {
                    None => 0,
                    Some(p) => PROTOS
                        .iter()
                        .position(|s| {
                            parse_rule_str_with(fam, s, &Sets)
                                .ok()
                                .and_then(|v| v[0].proto)
                                .is_some_and(|q| q == p)
                        })
                        .unwrap_or(0),
                };
                out.put(
                    "rule_decode",
                    [&[1 | (f << 1), proto as u8, ext as u8, rev as u8][..], info].concat(),
                );
            }
            break;
        }
    }

    // The restore corpus and a small kube-proxy workload, for the restore planner.
    let mut inputs: Vec<(IpFamily, String)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("tests/restore_corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let fam = if f.to_string_lossy().contains('6') {
            IpFamily::V6
        } else {
            IpFamily::V4
        };
        inputs.push((fam, std::fs::read_to_string(&f).unwrap()));
    }
    for v6 in [false, true] {
        let (text, _) = kube_proxy(&KubeProxyOptions {
            ipv6: v6,
            ..KubeProxyOptions::sized(300)
        });
        inputs.push((if v6 { IpFamily::V6 } else { IpFamily::V4 }, text));
    }
    for (fam, text) in &inputs {
        for flags in [0u8, 2] {
            out.put(
                "restore",
                [&[fam_bit(*fam) | flags][..], text.as_bytes()].concat(),
            );
        }
    }

    // The kernel's own dumps of those rulesets (as root, in a fresh namespace).
    let dumps = iptnl::netns::run_in_fresh_netns(|| {
        let mut msgs = Vec::new();
        let mut conn = Conn::open().ok()?;
        for (fam, text) in &inputs {
            let _ = restore(&mut conn, *fam, text, &RestoreOptions::default());
            let Ok((chains, _)) = iptnl::nft::list_chains(&mut conn, Some(fam.nft()), None) else {
                continue;
            };
            for c in chains {
                let _ = iptnl::nft::dump::each_rule_of_chain(
                    &mut conn,
                    fam.nft(),
                    &c.table,
                    &c.name,
                    |m| {
                        msgs.push((*fam, m.bytes().to_vec()));
                        Ok(())
                    },
                );
            }
        }
        Some(msgs)
    });
    match dumps {
        Ok(Some(msgs)) => {
            eprintln!("{} rules dumped by the kernel", msgs.len());
            for (fam, m) in msgs {
                out.put("rule_decode", [&[fam_bit(fam) << 1][..], &m].concat());
            }
        }
        _ => eprintln!("no kernel dumps (not root?)"),
    }

    // The event model: a few commits of every kind of operation.
    for ops in [
        &[0u8, 0, 1, 1, 1, 2, 2, 0, 0, 3, 1, 1, 4, 0, 1][..],
        &[0, 0, 1, 0xff, 5, 1, 0, 6, 0, 3, 0xff, 7, 1, 2, 8, 0, 1],
        &[8, 1, 1, 0xff, 0, 2, 3, 0xfe, 4, 0, 0],
        &[6, 1, 4, 0, 1, 0, 0xff, 2, 3, 0, 4, 3, 1, 9, 0, 0],
    ] {
        out.put("events", [&[0u8][..], ops].concat());
    }

    // Requests of the server (as a client writes them), and reply heads.
    let req = |version: &str, words: &[&str]| {
        let mut b = b"IPTNL-SERVE/1".to_vec();
        b.extend((version.len() as u32).to_le_bytes());
        b.extend(version.as_bytes());
        b.extend((words.len() as u32).to_le_bytes());
        for w in words {
            b.extend((w.len() as u32).to_le_bytes());
            b.extend(w.as_bytes());
        }
        b
    };
    for words in [
        &["iptables", "-t", "nat", "-S"][..],
        &[
            "ip6tables",
            "-A",
            "INPUT",
            "-p",
            "tcp",
            "--dport",
            "22",
            "-j",
            "ACCEPT",
        ],
        &["iptables-restore", "--noflush"],
        &["iptables"],
    ] {
        out.put(
            "serve_request",
            [&[0u8][..], &req(env!("CARGO_PKG_VERSION"), words)].concat(),
        );
    }
    out.put("serve_request", [&[1u8][..], b"IPTNL-SERVE/1\0"].concat());
    out.put(
        "serve_request",
        [&[1u8][..], b"IPTNL-SERVE/1\x01\x03\0\0\0why"].concat(),
    );
}
