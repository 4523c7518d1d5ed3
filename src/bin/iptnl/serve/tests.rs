use super::client::{read_output, trusted};
use super::wire::{read_head, write_request, MAGIC};
use super::*;
use iptnl::netlink::PeerCredentials;

#[test]
fn requests_and_replies_round_trip() {
    let req = Request {
        version: "1.2.3".into(),
        tool: "iptables".into(),
        args: vec!["-t".into(), "nat".into(), "-S".into(), "".into()],
    };
    let mut buf = Vec::new();
    write_request(&mut buf, &req).unwrap();
    assert_eq!(read_request(&mut buf.as_slice()).unwrap(), req);

    let mut out = Output::default();
    out.err("warn\n");
    out.out("-P INPUT ACCEPT\n");
    out.code = 1;
    let mut buf = Vec::new();
    write_head(&mut buf, None).unwrap();
    write_output(&mut buf, &out).unwrap();
    let mut r = buf.as_slice();
    assert_eq!(read_head(&mut r).unwrap(), None);
    assert_eq!(read_output(&mut r).unwrap(), out);
    assert!(r.is_empty());
    let mut buf = Vec::new();
    write_head(&mut buf, Some("why")).unwrap();
    assert_eq!(read_head(&mut buf.as_slice()).unwrap(), Some("why".into()));
    // A reply cut anywhere is an error.
    let mut buf = Vec::new();
    write_head(&mut buf, None).unwrap();
    write_output(&mut buf, &out).unwrap();
    for n in 0..buf.len() {
        let mut r = &buf[..n];
        assert!(
            read_head(&mut r).and_then(|_| read_output(&mut r)).is_err(),
            "{n}"
        );
    }
}

#[test]
fn options_are_read_and_checked() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(parse_options(&s(&[])), Ok(Some(Options::default())));
    assert_eq!(
        parse_options(&s(&["-v", "--stats", "2.5"])),
        Ok(Some(Options {
            verbose: true,
            stats: Some(Duration::from_millis(2500)),
            idle_exit: None,
            floor: None,
            memory: false,
        }))
    );
    assert!(parse_options(&s(&["--memory"])).unwrap().unwrap().memory);
    assert_eq!(
        parse_options(&s(&["--idle-exit", "30"]))
            .unwrap()
            .unwrap()
            .idle_exit,
        Some(Duration::from_secs(30))
    );
    assert_eq!(
        parse_options(&s(&["--reader-floor", "1.8.10"]))
            .unwrap()
            .unwrap()
            .floor,
        Some(iptnl::ipt::ReaderFloor::V1_8_9)
    );
    assert_eq!(
        parse_options(&s(&["--stats=1"])).unwrap().unwrap().stats,
        Some(Duration::from_secs(1))
    );
    assert_eq!(parse_options(&s(&["-h"])), Ok(None));
    for bad in [
        &["--stats"][..],
        &["--idle-exit"],
        &["--idle-exit", "0"],
        &["-s", "0"],
        &["-s", "-1"],
        &["-s", "nan"],
        &["-s", "1e9"],
        &["--verbose=1"],
        &["--memory=1"],
        &["-x"],
        &["--reader-floor"],
        &["--reader-floor=1.4.21"],
    ] {
        assert!(parse_options(&s(bad)).is_err(), "{bad:?}");
    }
}

#[test]
fn clients_trust_only_root_and_their_own_user() {
    assert!(trusted_uid(0, 0));
    assert!(trusted_uid(0, 1000));
    assert!(trusted_uid(1000, 1000));
    assert!(!trusted_uid(1000, 0));
    assert!(!trusted_uid(65534, 1000));
    // The other end of a pair is this process: always trusted.
    let (a, _b) = UnixStream::pair().unwrap();
    assert_eq!(trusted(&a), Ok(()));
    let p = PeerCredentials {
        pid: 0,
        uid: 5,
        gid: 5,
    };
    assert!(pid_words(&p).contains("not visible"), "{}", pid_words(&p));
}

#[test]
fn bad_requests_are_errors_not_panics() {
    let mut good = Vec::new();
    write_request(
        &mut good,
        &Request {
            version: "1".into(),
            tool: "iptables".into(),
            args: vec!["-S".into()],
        },
    )
    .unwrap();
    // Every truncation, and every single-byte change, of a good request.
    for n in 0..good.len() {
        assert!(read_request(&mut &good[..n]).is_err(), "{n}");
        for b in [0u8, 0xff, b'A'] {
            let mut bad = good.clone();
            bad[n] = b;
            let _ = read_request(&mut bad.as_slice());
        }
    }
    let mut huge = MAGIC.to_vec();
    huge.extend_from_slice(&1u32.to_le_bytes());
    huge.push(b'1');
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(read_request(&mut huge.as_slice()).is_err());
    let mut huge = MAGIC.to_vec();
    huge.extend_from_slice(&1u32.to_le_bytes());
    huge.push(b'1');
    huge.extend_from_slice(&1u32.to_le_bytes());
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(read_request(&mut huge.as_slice()).is_err());
}
