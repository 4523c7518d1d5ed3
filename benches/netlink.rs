//! Encoding cost versus kernel commit cost for 100,000 kube-proxy-shaped rules.
//!
//! Requirement: encoding 100k kube-proxy-shaped rules costs at most 5% of the kernel's commit
//! time for them. The rules are shaped as iptables-nft encodes kube-proxy's nat table:
//!
//! - `KUBE-SERVICES`: `-d <cluster IP>/32 -p tcp -m comment --comment "ns/svc:port cluster IP"
//!   -m tcp --dport <port> -j KUBE-SVC-…`;
//! - `KUBE-SVC-…`: `! -s 10.244.0.0/16 -d <cluster IP>/32 -p tcp -m comment … -m tcp --dport
//!   <port> -j KUBE-MARK-MASQ`, then one `-m comment … -m statistic --mode random
//!   --probability p -j KUBE-SEP-…` per endpoint (the last without statistic);
//! - `KUBE-SEP-…`: `-s <pod IP>/32 -m comment … -j KUBE-MARK-MASQ` and `-p tcp -m comment …
//!   -m tcp -j DNAT --to-destination <pod IP>:<port>` (DNAT revision 2).
//!
//! Groups: `encode_100k` (pushing the rules into a fresh `nft::Batch`) and `commit_100k`
//! (committing that batch into the empty chains of a fresh network namespace; every
//! iteration starts from a freshly recreated table). Prints at the end:
//! `encode X ms, commit Y ms, ratio Z%, bytes/rule B` (medians).
//!
//! Run with `cargo bench --bench netlink` (as root: it creates a network namespace).

mod common;

use common::{median, ms};

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use iptnl::netlink::Conn;
use iptnl::nft::expr::{Cmp, CmpOp, Counter, Expr, Immediate, Match, Payload, PayloadBase, Target};
use iptnl::nft::{
    Batch, Chain, ChainType, Family, Hook, Placement, Policy, Rule, RuleCompat, Value, Verdict,
};
use iptnl::sys::netfilter::{NF_INET_LOCAL_OUT, NF_INET_PRE_ROUTING, NF_IP_PRI_NAT_DST};

const RULES: usize = 100_000;
const ENDPOINTS: usize = 3;
const TABLE: &str = "nat";

/// `xt_comment_info`: the comment, NUL-padded to 256 bytes.
fn comment(text: &str) -> Expr {
    let mut info = vec![0u8; 256];
    info[..text.len()].copy_from_slice(text.as_bytes());
    Match {
        name: "comment".into(),
        rev: 0,
        info,
    }
    .into()
}

/// `xt_statistic_info` in random mode: mode, flags, probability (of 2^31), two unused words
/// of the `nth` variant, and the kernel's private pointer (24 bytes).
fn statistic(probability: f64) -> Expr {
    let mut info = vec![0u8; 24];
    let p = (probability * 2_147_483_648.0).round() as u32;
    info[4..8].copy_from_slice(&p.to_ne_bytes());
    Match {
        name: "statistic".into(),
        rev: 0,
        info,
    }
    .into()
}

/// `nf_nat_range2` for `--to-destination ip:port` (44 bytes, XT_ALIGNed to 48): flags
/// MAP_IPS | PROTO_SPECIFIED, min and max address, min and max port, base port.
fn dnat(ip: [u8; 4], port: u16) -> Expr {
    let mut info = vec![0u8; 48];
    info[0..4].copy_from_slice(&3u32.to_ne_bytes());
    info[4..8].copy_from_slice(&ip);
    info[20..24].copy_from_slice(&ip);
    info[36..38].copy_from_slice(&port.to_be_bytes());
    info[38..40].copy_from_slice(&port.to_be_bytes());
    Target {
        name: "DNAT".into(),
        rev: 2,
        info,
    }
    .into()
}

/// `xt_mark_tginfo2` for `--set-xmark 0x4000/0x4000`.
fn mark_masq() -> Expr {
    let mut info = Vec::with_capacity(8);
    info.extend_from_slice(&0x4000u32.to_ne_bytes());
    info.extend_from_slice(&0x4000u32.to_ne_bytes());
    Target {
        name: "MARK".into(),
        rev: 2,
        info,
    }
    .into()
}

fn load_cmp(out: &mut Vec<Expr>, base: PayloadBase, offset: u32, op: CmpOp, bytes: &[u8]) {
    out.push(Payload::load(base, offset, bytes.len() as u32, 1).into());
    out.push(
        Cmp {
            sreg: 1,
            op,
            data: Value::new(bytes).unwrap(),
        }
        .into(),
    );
}

fn jump(chain: &str) -> Expr {
    Immediate::verdict(Verdict::Jump(chain.into())).into()
}

/// A kube-proxy-like chain name suffix: 16 characters of base32 from a hash of `seed`.
fn hash_name(prefix: &str, seed: u64) -> String {
    const B32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let mut s = String::with_capacity(prefix.len() + 16);
    s.push_str(prefix);
    for _ in 0..16 {
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        s.push(B32[(x >> 59) as usize] as char);
    }
    s
}

/// The user chains and the 100,000 rules.
struct Ruleset {
    chains: Vec<String>,
    rules: Vec<Rule>,
}

fn kube_ruleset() -> Ruleset {
    let tcp = Some(RuleCompat { proto: 6, flags: 0 });
    let mut chains = vec!["KUBE-SERVICES".to_owned(), "KUBE-MARK-MASQ".to_owned()];
    let mut rules = Vec::with_capacity(RULES + 16);
    let mut svc = 0u32;
    while rules.len() < RULES {
        let cluster_ip = [10, 96, (svc >> 8) as u8, svc as u8];
        let port = [80u16, 443, 8080, 53][svc as usize % 4];
        let text = format!("ns-{}/svc-{svc}:port-{port}", svc % 97);
        let svc_chain = hash_name("KUBE-SVC-", svc.into());
        chains.push(svc_chain.clone());

        let mut r = Rule::new(Family::Ipv4, TABLE, "KUBE-SERVICES");
        load_cmp(
            &mut r.exprs,
            PayloadBase::Network,
            16,
            CmpOp::Eq,
            &cluster_ip,
        );
        load_cmp(&mut r.exprs, PayloadBase::Network, 9, CmpOp::Eq, &[6]);
        r.exprs.push(comment(&format!("{text} cluster IP")));
        load_cmp(
            &mut r.exprs,
            PayloadBase::Transport,
            2,
            CmpOp::Eq,
            &port.to_be_bytes(),
        );
        r.exprs.push(Counter::default().into());
        r.exprs.push(jump(&svc_chain));
        r.compat = tcp;
        rules.push(r);

        let mut r = Rule::new(Family::Ipv4, TABLE, svc_chain.as_str());
        load_cmp(
            &mut r.exprs,
            PayloadBase::Network,
            12,
            CmpOp::Neq,
            &[10, 244],
        );
        load_cmp(
            &mut r.exprs,
            PayloadBase::Network,
            16,
            CmpOp::Eq,
            &cluster_ip,
        );
        load_cmp(&mut r.exprs, PayloadBase::Network, 9, CmpOp::Eq, &[6]);
        r.exprs.push(comment(&format!("{text} cluster IP")));
        load_cmp(
            &mut r.exprs,
            PayloadBase::Transport,
            2,
            CmpOp::Eq,
            &port.to_be_bytes(),
        );
        r.exprs.push(Counter::default().into());
        r.exprs.push(jump("KUBE-MARK-MASQ"));
        r.compat = tcp;
        rules.push(r);

        for e in 0..ENDPOINTS {
            let pod = (svc as usize * ENDPOINTS + e) as u32;
            let pod_ip = [10, 244, (pod >> 8) as u8, pod as u8];
            let sep_chain = hash_name("KUBE-SEP-", u64::from(pod) << 20 | 0xFFFFF);
            chains.push(sep_chain.clone());

            let mut r = Rule::new(Family::Ipv4, TABLE, svc_chain.as_str());
            r.exprs
                .push(comment(&format!("{text} -> {}", fmt_ip(pod_ip))));
            if e + 1 < ENDPOINTS {
                r.exprs.push(statistic(1.0 / (ENDPOINTS - e) as f64));
            }
            r.exprs.push(Counter::default().into());
            r.exprs.push(jump(&sep_chain));
            rules.push(r);

            let mut r = Rule::new(Family::Ipv4, TABLE, sep_chain.as_str());
            load_cmp(&mut r.exprs, PayloadBase::Network, 12, CmpOp::Eq, &pod_ip);
            r.exprs.push(comment(&text));
            r.exprs.push(Counter::default().into());
            r.exprs.push(jump("KUBE-MARK-MASQ"));
            rules.push(r);

            let mut r = Rule::new(Family::Ipv4, TABLE, sep_chain.as_str());
            load_cmp(&mut r.exprs, PayloadBase::Network, 9, CmpOp::Eq, &[6]);
            r.exprs.push(comment(&text));
            r.exprs.push(Counter::default().into());
            r.exprs.push(dnat(pod_ip, 8080));
            r.compat = tcp;
            rules.push(r);
        }
        svc += 1;
    }
    rules.truncate(RULES);
    Ruleset { chains, rules }
}

fn fmt_ip(ip: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3])
}

fn encode(rules: &[Rule]) -> Batch {
    // Sized up front, as a restore knows its input: no reallocation while encoding.
    let mut b = Batch::with_capacity(rules.len() * 640);
    encode_into(&mut b, rules);
    b
}

fn encode_into(b: &mut Batch, rules: &[Rule]) {
    for r in rules {
        b.add_rule(r, Placement::Append, false).unwrap();
    }
}

/// Deletes the nat table if it exists and recreates it with its base chains, the empty user
/// chains and the few rules kube-proxy keeps outside the 100k (portals, KUBE-MARK-MASQ).
fn reset_table(conn: &mut Conn, set: &Ruleset) {
    if iptnl::nft::get_chain(conn, Family::Ipv4, TABLE, "KUBE-SERVICES")
        .unwrap()
        .is_some()
    {
        let mut del = Batch::new();
        del.del_table(Family::Ipv4, TABLE).unwrap();
        del.commit(conn).unwrap();
    }
    let mut b = Batch::with_capacity(set.chains.len() * 64 + 4096);
    b.add_table(&iptnl::nft::Table::new(Family::Ipv4, TABLE))
        .unwrap();
    for (name, hook) in [
        ("PREROUTING", NF_INET_PRE_ROUTING),
        ("OUTPUT", NF_INET_LOCAL_OUT),
    ] {
        let c = Chain::base(
            Family::Ipv4,
            TABLE,
            name,
            Hook {
                num: hook,
                priority: NF_IP_PRI_NAT_DST,
                chain_type: ChainType::Nat,
                policy: Some(Policy::Accept),
                devices: Vec::new(),
            },
        );
        b.add_chain(&c, true).unwrap();
    }
    for name in &set.chains {
        b.add_chain(&Chain::user(Family::Ipv4, TABLE, name.as_str()), true)
            .unwrap();
    }
    for base in ["PREROUTING", "OUTPUT"] {
        let mut r = Rule::new(Family::Ipv4, TABLE, base);
        r.exprs = vec![
            comment("kubernetes service portals"),
            Counter::default().into(),
            jump("KUBE-SERVICES"),
        ];
        b.add_rule(&r, Placement::Append, false).unwrap();
    }
    let mut r = Rule::new(Family::Ipv4, TABLE, "KUBE-MARK-MASQ");
    r.exprs = vec![Counter::default().into(), mark_masq()];
    b.add_rule(&r, Placement::Append, false).unwrap();
    b.commit(conn).unwrap();
}

fn main() {
    let set = kube_ruleset();
    let probe = encode(&set.rules);
    let wire = probe.wire_len();
    let bytes_per_rule = wire as f64 / set.rules.len() as f64;
    eprintln!(
        "{} kube-proxy-shaped rules in {} user chains: {} bytes on the wire, {:.1} bytes/rule",
        set.rules.len(),
        set.chains.len(),
        wire,
        bytes_per_rule
    );

    let mut c = Criterion::default().configure_from_args();

    let mut encode_times = Vec::new();
    let mut reused_times = Vec::new();
    {
        let mut g = c.benchmark_group("netlink");
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .warm_up_time(Duration::from_secs(2))
            .measurement_time(Duration::from_secs(8));
        g.bench_function("encode_100k", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    let batch = encode(black_box(&set.rules));
                    let d = t.elapsed();
                    total += d;
                    encode_times.push(d);
                    drop(black_box(batch));
                }
                total
            })
        });
        // An agent that syncs repeatedly reuses its batch buffer: no page faults.
        let mut reused = encode(&set.rules);
        g.bench_function("encode_100k_reused_buffer", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    reused.clear();
                    let t = Instant::now();
                    encode_into(&mut reused, black_box(&set.rules));
                    let d = t.elapsed();
                    total += d;
                    reused_times.push(d);
                }
                total
            })
        });
        g.finish();
    }

    // The commit group runs in a fresh network namespace: the socket is opened there by a
    // helper thread and keeps the namespace alive.
    let mut commit_times = Vec::new();
    match iptnl::netns::run_in_fresh_netns(Conn::open) {
        Ok(Ok(mut conn)) => {
            let mut batch = probe;
            let mut g = c.benchmark_group("netlink");
            g.sampling_mode(SamplingMode::Flat)
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(5));
            g.bench_function("commit_100k", |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        reset_table(&mut conn, &set);
                        let t = Instant::now();
                        batch.commit(&mut conn).expect("commit of the 100k rules");
                        let d = t.elapsed();
                        total += d;
                        commit_times.push(d);
                    }
                    total
                })
            });
            g.finish();
            // The last commit really installed the rules.
            let want = set
                .rules
                .iter()
                .filter(|r| r.chain == "KUBE-SERVICES")
                .count();
            let (got, _) = iptnl::nft::list_rules(
                &mut conn,
                Some(Family::Ipv4),
                Some(TABLE),
                Some("KUBE-SERVICES"),
            )
            .unwrap();
            assert_eq!(got.len(), want, "rules in KUBE-SERVICES after the commit");
        }
        Ok(Err(e)) => eprintln!("commit_100k skipped: cannot open the netlink socket: {e}"),
        Err(e) => {
            eprintln!("commit_100k skipped: cannot create a network namespace: {e} (run as root)")
        }
    }
    c.final_summary();

    let enc = median(&mut encode_times);
    let enc_reused = median(&mut reused_times);
    let com = median(&mut commit_times);
    let ratio = if com.is_zero() {
        f64::NAN
    } else {
        enc.as_secs_f64() / com.as_secs_f64() * 100.0
    };
    let ratio_reused = if com.is_zero() {
        f64::NAN
    } else {
        enc_reused.as_secs_f64() / com.as_secs_f64() * 100.0
    };
    println!(
        "encode {:.1} ms (reused buffer {:.1} ms), commit {:.1} ms, ratio {:.1}% ({:.1}% reused), bytes/rule {:.1}",
        ms(enc),
        ms(enc_reused),
        ms(com),
        ratio,
        ratio_reused,
        bytes_per_rule
    );
    for (series, d) in [
        ("encode", enc),
        ("encode_reused", enc_reused),
        ("commit", com),
    ] {
        if !d.is_zero() {
            common::record("netlink", RULES, series, "ms", ms(d));
        }
    }
    common::record("netlink", RULES, "bytes_per_rule", "bytes", bytes_per_rule);
}
