#![no_main]
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = iptnl::ipt::parse_rule_str(iptnl::ipt::IpFamily::V4, s);
    }
});
