//! The request decoder of `iptnl serve` (what any process of the namespace may send to the
//! server's socket), and the head of its replies. A request that reads writes back to the
//! very bytes it was read from; nothing else reads.
//!
//! Input: a request (or, with the first byte's bit 0 set, the rest as a reply head).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../src/bin/iptnl/serve/wire.rs"]
mod wire;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut r = rest;
    if flags & 1 == 0 {
        if let Ok(req) = wire::read_request(&mut r) {
            let used = rest.len() - r.len();
            let mut again = Vec::new();
            wire::write_request(&mut again, &req).expect("a request read writes back");
            assert_eq!(again, &rest[..used], "a request writes back to other bytes");
            let back = wire::read_request(&mut again.as_slice()).expect("reads again");
            assert_eq!(back, req);
        }
    } else if let Ok(head) = wire::read_head(&mut r) {
        let used = rest.len() - r.len();
        let mut again = Vec::new();
        wire::write_head(&mut again, head.as_deref()).expect("a head read writes back");
        assert_eq!(
            again,
            &rest[..used],
            "a reply head writes back to other bytes"
        );
    }
});
