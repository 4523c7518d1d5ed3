//! The rule parser, in both families: a rule spec as one string (split as a shell would), as
//! arguments, and a whole command line. Whatever parses prints, parses back to the same rule,
//! encodes, and decodes to the same line (see `iptnl_fuzz::check_parsed`).
//!
//! Input: one flag byte (bit 0: IPv6; bits 1-2: 0 one string, 1 arguments separated by NUL
//! bytes, 2 a command line given as one string, 3 a command line as arguments), then UTF-8.
#![no_main]

use iptnl::ipt::{parse_command_with, parse_rule_with, split_args};
use iptnl_fuzz::{check_parsed, family, Sets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iptnl::fuzzing::no_host_lookups();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let fam = family(flags & 1 != 0);
    let args: Vec<String> = match (flags >> 1) & 3 {
        0 | 2 => match split_args(text) {
            Ok(a) => a,
            Err(_) => return,
        },
        _ => text.split('\0').map(str::to_owned).collect(),
    };
    if (flags >> 1) & 2 == 0 {
        if let Ok(specs) = parse_rule_with(fam, &args, &Sets) {
            for s in &specs {
                check_parsed(s, fam);
            }
        }
    } else if let Ok(cmd) = parse_command_with(fam, &args, &Sets) {
        let _ = format!("{cmd:?}");
        for s in &cmd.rules {
            check_parsed(s, fam);
        }
    }
});
