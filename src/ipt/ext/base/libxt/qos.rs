//! The DiffServ class names of libxtables' `dscp_helper.c` and the TOS names of
//! `tos_values.c`.

/// DiffServ class names (`dscp_helper.c`), in iptables' order.
pub const DSCP_CLASSES: &[(&str, u8)] = &[
    ("CS0", 0x00),
    ("CS1", 0x08),
    ("CS2", 0x10),
    ("CS3", 0x18),
    ("CS4", 0x20),
    ("CS5", 0x28),
    ("CS6", 0x30),
    ("CS7", 0x38),
    ("BE", 0x00),
    ("AF11", 0x0a),
    ("AF12", 0x0c),
    ("AF13", 0x0e),
    ("AF21", 0x12),
    ("AF22", 0x14),
    ("AF23", 0x16),
    ("AF31", 0x1a),
    ("AF32", 0x1c),
    ("AF33", 0x1e),
    ("AF41", 0x22),
    ("AF42", 0x24),
    ("AF43", 0x26),
    ("EF", 0x2e),
];

/// A DiffServ class name to its DSCP, as iptables' `class_to_dscp`: the name is compared
/// case-insensitively over the length of the class name (so `af41x` is `AF41`).
pub fn class_to_dscp(name: &str) -> Option<u8> {
    DSCP_CLASSES
        .iter()
        .find(|(c, _)| {
            name.len() >= c.len() && name.as_bytes()[..c.len()].eq_ignore_ascii_case(c.as_bytes())
        })
        .map(|(_, v)| *v)
}

/// TOS names (`tos_values.c`), matched case-insensitively.
pub const TOS_NAMES: &[(&str, u8)] = &[
    ("Minimize-Delay", 0x10),
    ("Maximize-Throughput", 0x08),
    ("Maximize-Reliability", 0x04),
    ("Minimize-Cost", 0x02),
    ("Normal-Service", 0x00),
];

/// `tos_try_print_symbolic`: the TOS name of a value when the mask is 0x3f.
pub fn tos_symbol(value: u8, mask: u8) -> Option<&'static str> {
    if mask != 0x3f {
        return None;
    }
    TOS_NAMES.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
}
