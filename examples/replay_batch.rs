//! The kernel's floor for a restore, as a whole process: what committing iptnl's batch
//! costs when nothing else is done, to compare with `iptnl iptables-restore FILE` run the
//! same way (each in a fresh network namespace).
//!
//! ```text
//! unshare -n replay_batch plan kp10k.txt kp10k.batch   # plans the restore of FILE into an
//!                                                      # empty namespace, writes its batch
//! unshare -n replay_batch send kp10k.batch             # reads the batch, one sendmsg, acks
//! ```
//!
//! `plan` must run in an empty namespace (it plans against what it finds there); the batch it
//! writes is the one `iptables-restore FILE` sends into an empty namespace, with its
//! generation id (a fresh namespace's). `send` reads the file whole, sends it in one
//! `sendmsg` (the kernel validates and commits it within that call) and reads the kernel's
//! answers; it exits 1 when the kernel refused anything. `plan … --ipv6` plans for
//! `ip6tables-restore`.

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{plan_restore, RestoreOptions};
use iptnl::netlink::{Conn, Messages, Socket};
use iptnl_sys::netlink::NLMSG_ERROR;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["plan", input, out, rest @ ..] => {
            let family = if rest.contains(&"--ipv6") {
                IpFamily::V6
            } else {
                IpFamily::V4
            };
            let text = std::fs::read_to_string(input).expect("reading the restore file");
            let mut conn = Conn::open().expect("netlink socket");
            let (mut batch, report) =
                plan_restore(&mut conn, family, &text, &RestoreOptions::default())
                    .unwrap_or_else(|e| panic!("planning the restore: {e}"));
            let bytes = batch.to_wire(1);
            std::fs::write(out, &bytes).expect("writing the batch");
            eprintln!(
                "{} operations, {} bytes ({} rules added)",
                batch.len(),
                bytes.len(),
                report.rules_added
            );
        }
        ["send", file] => std::process::exit(send(file)),
        _ => {
            eprintln!(
                "usage: replay_batch plan RESTORE_FILE BATCH_FILE [--ipv6] | send BATCH_FILE"
            );
            std::process::exit(2);
        }
    }
}

/// Sends the batch in `file` and reads every answer: 0 when the kernel refused nothing.
fn send(file: &str) -> i32 {
    let bytes = std::fs::read(file).expect("reading the batch");
    let mut sock = Socket::open().expect("netlink socket");
    sock.ensure_sndbuf(bytes.len()).expect("send buffer");
    sock.send(&bytes).expect("sending the batch");
    // The kernel answers a batch within its sendmsg: everything is queued now.
    let mut buf = Vec::new();
    let mut refused = 0;
    while sock.recv(&mut buf, false).expect("reading the answers") {
        for m in Messages::new(&buf) {
            let m = m.expect("a netlink message");
            if m.msg_type() == NLMSG_ERROR && m.error().is_ok_and(|e| e.errno != 0) {
                refused += 1;
            }
        }
    }
    if refused > 0 {
        eprintln!("the kernel refused {refused} messages of the batch");
        return 1;
    }
    0
}
