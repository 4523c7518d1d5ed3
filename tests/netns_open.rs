//! Opening a connection inside another network namespace by path, without moving the
//! caller's thread.

mod common;

use std::sync::mpsc;

use iptnl::netlink::Conn;
use iptnl::nft::{list_tables, Batch, Family, Table};

#[test]
fn conn_opens_in_another_namespace_by_path() {
    common::in_netns(|| {
        // A second namespace, held open by a thread that waits until we are done.
        let (tx_path, rx_path) = mpsc::channel();
        let (tx_done, rx_done) = mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            iptnl::netlink::unshare_net_namespace().unwrap();
            let tid = thread_id();
            tx_path
                .send(format!("/proc/self/task/{tid}/ns/net"))
                .unwrap();
            rx_done.recv().unwrap();
        });
        let path = rx_path.recv().unwrap();
        let mut other = Conn::open_in_netns(&path).unwrap();
        let mut b = Batch::new();
        b.add_table(&Table::new(Family::Ipv4, "elsewhere")).unwrap();
        b.commit(&mut other).unwrap();
        // Visible there …
        let (there, _) = list_tables(&mut other, None).unwrap();
        assert_eq!(
            there.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            vec!["elsewhere"]
        );
        // … not here: this thread stayed in its own namespace.
        let mut here = Conn::open().unwrap();
        assert!(list_tables(&mut here, None).unwrap().0.is_empty());
        assert!(common::nft_list().trim().is_empty());
        tx_done.send(()).unwrap();
        holder.join().unwrap();
        // A path that is not a namespace is a clear error.
        let err = Conn::open_in_netns("/proc/self/status").unwrap_err();
        assert!(
            err.to_string().contains("entering the network namespace"),
            "{err}"
        );
    });
}

/// The kernel thread id of the calling thread, read from procfs (no libc call needed).
fn thread_id() -> u32 {
    std::fs::read_link("/proc/thread-self")
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .parse()
        .unwrap()
}
