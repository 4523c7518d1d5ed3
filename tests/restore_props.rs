//! Property test: any restore input either plans or yields an error naming a line — never a
//! panic (in --test mode, against a real, empty namespace).

mod common;

use iptnl::ipt::IpFamily;
use iptnl::iptables::restore::{restore, RestoreError, RestoreOptions};
use iptnl::netlink::Conn;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const LINES: &[&str] = &[
    "*filter",
    "*nat",
    "*mangle",
    "*raw",
    "*security",
    "*bogus",
    "COMMIT",
    ":INPUT ACCEPT [0:0]",
    ":INPUT DROP",
    ":FOO - [0:0]",
    ":FOO ACCEPT",
    ":OUTPUT - [1:2]",
    "-A INPUT -j ACCEPT",
    "-A FOO -p tcp --dport 80 -j RETURN",
    "-I INPUT 2 -j DROP",
    "-D INPUT 1",
    "-D INPUT -j ACCEPT",
    "-R INPUT 1 -j DROP",
    "-N BAR",
    "-X BAR",
    "-F",
    "-F FOO",
    "-Z",
    "-P INPUT DROP",
    "-E FOO BAZ",
    "[1:2] -A INPUT -j ACCEPT",
    "-A INPUT -j FOO",
    "-A INPUT -m comment --comment \"x y\"",
    "-A INPUT -m conntrack --ctstate NEW",
    "-A POSTROUTING -j MASQUERADE",
    "-L",
    "-t nat -A X",
    "# comment",
    "",
    "-A",
    "[x:y] -A INPUT",
    "-A INPUT -s 1.2.3.4,5.6.7.8 -j DROP",
    "-C INPUT -j ACCEPT",
];

#[test]
fn any_restore_input_plans_or_fails_with_a_line() {
    common::in_netns(|| {
        let conn = std::cell::RefCell::new(Conn::open().unwrap());
        let mut runner = TestRunner::new(Config {
            cases: 400,
            ..Config::default()
        });
        let strategy = (
            proptest::collection::vec(
                prop_oneof![4 => proptest::sample::select(LINES).prop_map(str::to_owned), 1 => "\\PC{0,30}"],
                0..12,
            ),
            any::<bool>(),
        );
        runner
            .run(&strategy, |(lines, noflush)| {
                let input = lines.join("\n");
                let opts = RestoreOptions {
                    test: true,
                    noflush,
                    ..Default::default()
                };
                let r = restore(&mut conn.borrow_mut(), IpFamily::V4, &input, &opts);
                match r {
                    Ok(_) => {}
                    Err(RestoreError::Input { line, msg }) => {
                        prop_assert!(
                            line >= 1 && line <= lines.len().max(1),
                            "line {line} of {}: {msg}",
                            lines.len()
                        );
                        prop_assert!(!msg.is_empty());
                    }
                    Err(RestoreError::Kernel { .. }) | Err(RestoreError::Conflict { .. }) => {}
                    Err(
                        e @ (RestoreError::Nft(_)
                        | RestoreError::Read(_)
                        | RestoreError::Internal(_)),
                    ) => {
                        prop_assert!(false, "unexpected error {e} for {input:?}")
                    }
                }
                Ok(())
            })
            .unwrap();
        // Test mode never changes the ruleset.
        assert!(common::nft_list().trim().is_empty());
    });
}
