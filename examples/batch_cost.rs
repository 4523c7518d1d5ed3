//! What the kernel's commit of a restore costs for different shapes of the same batch.
//!
//! iptnl and iptables-nft send the same rules in batches of different shapes: iptnl sends
//! one batch for all tables, creates user chains with `NLM_F_CREATE` and gives every rule an
//! `NFTA_RULE_ID`; iptables-nft-restore sends one batch per table, creates user chains with
//! `NLM_F_EXCL`, sends no rule id and repeats `NEWTABLE` before each chain. This program
//! plans the restore of an iptables-restore file once per round, rewrites the batch into
//! each of those shapes, and times the kernel's commit of each in a fresh network namespace
//! (planning is not timed), alternating the shapes round by round. Needs root.
//!
//! ```text
//! python3 gen_kubeproxy.py --rules 200000 > kp.txt
//! cargo run --release --example batch_cost -- kp.txt 5
//! ```

use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{plan_restore, RestoreOptions};
use iptnl::netlink::{Batch, Conn, NFNL_HDRLEN};
use iptnl_sys::netlink::{NLM_F_CREATE, NLM_F_ECHO, NLM_F_EXCL, NLM_F_REQUEST};
use iptnl_sys::nf_tables::{
    NFTA_CHAIN_HOOK, NFTA_RULE_ID, NFT_MSG_NEWCHAIN, NFT_MSG_NEWRULE, NFT_MSG_NEWTABLE,
};

/// One message of a batch, taken apart.
struct Msg {
    kind: u16,
    flags: u16,
    family: u8,
    /// `(type, payload)` of each top-level attribute.
    attrs: Vec<(u16, Vec<u8>)>,
}

impl Msg {
    fn parse(bytes: &[u8]) -> Option<Msg> {
        let ty = u16::from_ne_bytes(bytes.get(4..6)?.try_into().ok()?);
        let flags = u16::from_ne_bytes(bytes.get(6..8)?.try_into().ok()?);
        let family = *bytes.get(16)?;
        let mut attrs = Vec::new();
        let mut rest = bytes.get(NFNL_HDRLEN..)?;
        while rest.len() >= 4 {
            let len = u16::from_ne_bytes(rest[0..2].try_into().ok()?) as usize;
            let aty = u16::from_ne_bytes(rest[2..4].try_into().ok()?);
            attrs.push((aty, rest.get(4..len)?.to_vec()));
            rest = rest.get(len.next_multiple_of(4).min(rest.len())..)?;
        }
        Some(Msg {
            kind: ty & 0xff,
            flags,
            family,
            attrs,
        })
    }

    /// The table named by attribute 1 (`NFTA_*_TABLE` / `NFTA_TABLE_NAME`).
    fn table(&self) -> &[u8] {
        self.attrs
            .iter()
            .find(|(t, _)| t & 0x3fff == 1)
            .map_or(&[][..], |(_, v)| v)
    }

    fn push(&self, b: &mut Batch) {
        let flags = self.flags & !(NLM_F_REQUEST | NLM_F_ECHO);
        b.push(self.kind, flags, self.family, false, |w| {
            for (t, v) in &self.attrs {
                w.put(*t, v);
            }
        })
        .expect("re-encoding a message that encoded before");
    }
}

/// The shapes compared.
const SHAPES: &[&str] = &[
    "as iptnl sends it",
    "no NFTA_RULE_ID",
    "user chains with NLM_F_EXCL",
    "NEWTABLE before each chain",
    "one batch per table",
    "all four (as iptables-nft-restore)",
];

/// The batches of shape `shape` for the messages `msgs`.
fn shape(msgs: &[Msg], shape: usize) -> Vec<Batch> {
    let all = shape == 5;
    let (no_id, excl, tables, split) = (
        all || shape == 1,
        all || shape == 2,
        all || shape == 3,
        all || shape == 4,
    );
    let mut batches: Vec<(Vec<u8>, Batch)> = Vec::new();
    let mut newtable: Vec<(Vec<u8>, &Msg)> = Vec::new();
    for m in msgs {
        let key = if split {
            m.table().to_vec()
        } else {
            Vec::new()
        };
        let i = match batches.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                batches.push((key, Batch::new()));
                batches.len() - 1
            }
        };
        let b = &mut batches[i].1;
        match m.kind {
            NFT_MSG_NEWTABLE => {
                newtable.push((m.table().to_vec(), m));
                m.push(b);
            }
            NFT_MSG_NEWCHAIN => {
                if tables {
                    if let Some((_, t)) = newtable.iter().find(|(n, _)| n == m.table()) {
                        t.push(b);
                    }
                }
                let user = !m.attrs.iter().any(|(t, _)| t & 0x3fff == NFTA_CHAIN_HOOK);
                if excl && user && m.flags & NLM_F_CREATE != 0 {
                    Msg {
                        flags: (m.flags & !NLM_F_CREATE) | NLM_F_EXCL,
                        attrs: m.attrs.clone(),
                        ..*m
                    }
                    .push(b);
                } else {
                    m.push(b);
                }
            }
            NFT_MSG_NEWRULE if no_id => Msg {
                attrs: m
                    .attrs
                    .iter()
                    .filter(|(t, _)| t & 0x3fff != NFTA_RULE_ID)
                    .cloned()
                    .collect(),
                ..*m
            }
            .push(b),
            _ => m.push(b),
        }
    }
    batches.into_iter().map(|(_, b)| b).collect()
}

/// Plans `input` in a fresh namespace, rewrites the batch into `which`, and times the
/// commit: (seconds, batches, bytes).
fn round(input: &str, which: usize) -> (Duration, usize, usize) {
    iptnl::netns::run_in_fresh_netns(|| {
        let mut conn = Conn::open().expect("netlink");
        let (batch, _) = plan_restore(&mut conn, IpFamily::V4, input, &RestoreOptions::default())
            .expect("planning the restore");
        let nl = batch.as_netlink();
        let msgs: Vec<Msg> = (0..nl.len())
            .map(|i| Msg::parse(nl.op_bytes(i).expect("op")).expect("a message"))
            .collect();
        drop(batch);
        let mut batches = shape(&msgs, which);
        drop(msgs);
        let bytes = batches.iter().map(Batch::wire_len).sum();
        let t = Instant::now();
        for b in &mut batches {
            conn.commit(b).expect("commit");
        }
        (t.elapsed(), batches.len(), bytes)
    })
    .expect("a fresh network namespace")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: batch_cost RESTORE-FILE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let input = std::fs::read_to_string(path).expect("reading the restore file");
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); SHAPES.len()];
    let mut sizes = vec![(0, 0); SHAPES.len()];
    for _ in 0..rounds {
        for (i, t) in times.iter_mut().enumerate() {
            let (d, n, bytes) = round(&input, i);
            t.push(d.as_secs_f64());
            sizes[i] = (n, bytes);
        }
    }
    println!(
        "{:<36} {:>8} {:>12} {:>10}  all rounds (s)",
        "shape", "batches", "bytes", "median s"
    );
    for (i, name) in SHAPES.iter().enumerate() {
        let mut t = times[i].clone();
        t.sort_by(f64::total_cmp);
        let all: Vec<String> = times[i].iter().map(|x| format!("{x:.3}")).collect();
        println!(
            "{name:<36} {:>8} {:>12} {:>10.3}  {}",
            sizes[i].0,
            sizes[i].1,
            t[t.len() / 2],
            all.join(" ")
        );
    }
}
