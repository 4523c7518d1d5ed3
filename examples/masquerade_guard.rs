//! The flannel case: four masquerade rules, in order, in a chain the agent owns, and one
//! jump to it from POSTROUTING, kept as declared while others delete, reorder or flush them.
//!
//! ```sh
//! cargo run --example masquerade_guard                # a demo in a throwaway namespace
//! cargo run --example masquerade_guard -- --here      # guard this namespace until Ctrl-C
//! cargo run --example masquerade_guard -- --cleanup   # remove what it owns here
//! ```
//!
//! The demo declares the rules, starts a guard, and then plays the administrator: it deletes
//! one rule, reorders two, inserts a rule of its own into the owned chain, moves the jump
//! below another rule and flushes the whole nat table. After each, the guard puts the
//! declaration back in one batch (printed as it happens) and the owned chain is shown.
//! Another agent's rule in POSTROUTING is never touched. Last, the cleanup removes
//! everything the agent owns, in one batch.

use std::sync::Arc;
use std::time::{Duration, Instant};

use iptnl::ipt::IpFamily;
use iptnl::iptables::{Error, IpTables};
use iptnl::sync::{remove, Desired, Guard, GuardOptions, Owner, SyncReport};
use iptnl::Position;

const POD_CIDR: &str = "10.244.0.0/16";
const NODE_SUBNET: &str = "10.244.1.0/24";
const CHAIN: &str = "FLANNEL-POSTRTG";

fn owner() -> Result<Owner, Error> {
    Owner::new("FLANNEL-", "flanneld masq")
}

/// What flannel installs for `--ip-masq`, in this order.
fn desired() -> Result<Desired, Error> {
    let mut d = Desired::new(IpFamily::V4, owner()?);
    d.chain(
        "nat",
        CHAIN,
        &[
            format!("-s {POD_CIDR} -d {POD_CIDR} -j RETURN"),
            format!("-s {POD_CIDR} ! -d 224.0.0.0/4 -j MASQUERADE --random-fully"),
            format!("! -s {POD_CIDR} -d {NODE_SUBNET} -j RETURN"),
            format!("! -s {POD_CIDR} -d {POD_CIDR} -j MASQUERADE --random-fully"),
        ],
    )?
    .hook(
        "nat",
        "POSTROUTING",
        Position::First,
        &format!("-j {CHAIN}"),
    )?;
    Ok(d)
}

fn show(ipt: &IpTables, what: &str) -> Result<(), Error> {
    println!("--- {what}");
    for line in ipt.list_table("nat")? {
        if line.starts_with("-A ") {
            println!("{line}");
        }
    }
    Ok(())
}

/// Waits for the guard's next repair (at most two seconds).
fn repaired(rx: &std::sync::mpsc::Receiver<SyncReport>, since: Instant) {
    match rx.recv_timeout(Duration::from_secs(2)) {
        Ok(r) => println!(
            "guard: {r} ({:.1} ms after the change)",
            since.elapsed().as_secs_f64() * 1e3
        ),
        Err(_) => println!("guard: no repair"),
    }
}

/// One change the administrator makes.
type Step<'a> = dyn Fn() -> Result<(), Error> + 'a;

fn demo() -> Result<(), Error> {
    let ipt = Arc::new(IpTables::new(IpFamily::V4)?);
    // Someone else's rule, next to where the hook goes.
    ipt.append("nat", "POSTROUTING", "-o docker0 -j MASQUERADE")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let opts = GuardOptions {
        on_repair: Some(Arc::new(move |r: &SyncReport| {
            if let Ok(t) = tx.lock() {
                let _ = t.send(r.clone());
            }
        })),
        ..GuardOptions::default()
    };
    let guard = Guard::spawn(ipt.clone(), desired()?, opts)?;
    show(&ipt, "declared")?;
    // The administrator, with a handle of its own.
    let admin = IpTables::new(IpFamily::V4)?;
    let steps: [(&str, &Step); 5] = [
        ("-D FLANNEL-POSTRTG 2", &|| {
            admin.delete_by_number("nat", CHAIN, 2)
        }),
        ("rules 1 and 2 swapped", &|| {
            let first = admin.list_by_number("nat", CHAIN, 1)?;
            let args = first.trim_start_matches(&format!("-A {CHAIN} ")).to_owned();
            let mut tx = admin.transaction();
            tx.delete_by_number("nat", CHAIN, 1)
                .insert("nat", CHAIN, 2, args.as_str());
            tx.commit().map(|_| ())
        }),
        ("-I FLANNEL-POSTRTG 1 -j ACCEPT", &|| {
            admin.insert("nat", CHAIN, 1, "-j ACCEPT").map(|_| ())
        }),
        ("the jump moved below the docker0 rule", &|| {
            let hook = admin.list_by_number("nat", "POSTROUTING", 1)?;
            let args = hook.trim_start_matches("-A POSTROUTING ").to_owned();
            let mut tx = admin.transaction();
            tx.delete_by_number("nat", "POSTROUTING", 1).append(
                "nat",
                "POSTROUTING",
                args.as_str(),
            );
            tx.commit().map(|_| ())
        }),
        ("-t nat -F", &|| admin.clear_all("nat")),
    ];
    for (what, step) in steps {
        println!("=== someone: {what}");
        step()?;
        repaired(&rx, Instant::now());
        show(&ipt, "after the repair")?;
    }
    let stats = guard.stop();
    println!(
        "guard: {} syncs, {} repairs, {} own commits ignored",
        stats.syncs, stats.repairs, stats.own_commits
    );
    let r = remove(&ipt, &owner()?, &["nat"])?;
    println!("=== cleanup: {r}");
    show(
        &ipt,
        "after the cleanup (the rule of others stays, when the flush left it)",
    )?;
    Ok(())
}

fn here() -> Result<(), Box<dyn std::error::Error>> {
    iptnl::netlink::block_signals(&[libc::SIGINT, libc::SIGTERM])?;
    let ipt = Arc::new(IpTables::new(IpFamily::V4)?);
    let opts = GuardOptions {
        on_repair: Some(Arc::new(|r: &SyncReport| println!("guard: {r}"))),
        ..GuardOptions::default()
    };
    let guard = Guard::spawn(ipt, desired()?, opts)?;
    println!("guarding {CHAIN} and its jump from POSTROUTING; Ctrl-C stops (the rules stay; --cleanup removes them)");
    iptnl::netlink::wait_signal(&[libc::SIGINT, libc::SIGTERM], None)?;
    let s = guard.stop();
    println!("{} repairs", s.repairs);
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        None => iptnl::netns::run_in_fresh_netns(demo)??,
        Some("--here") => here()?,
        Some("--cleanup") => {
            let ipt = IpTables::new(IpFamily::V4)?;
            println!("{}", remove(&ipt, &owner()?, &["nat"])?);
        }
        Some(other) => {
            eprintln!("unknown option {other}: use --here, --cleanup or nothing (the demo)");
            std::process::exit(2);
        }
    }
    Ok(())
}
