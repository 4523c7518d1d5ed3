//! `connbytes` match (`xt_connbytes.h`): the packets or bytes a connection has carried so
//! far (`--connbytes from[:to]`, `--connbytes-mode`, `--connbytes-dir`).

/// `what`: count packets (`--connbytes-mode packets`).
pub const XT_CONNBYTES_PKTS: u8 = 0;
/// `what`: count bytes (`--connbytes-mode bytes`).
pub const XT_CONNBYTES_BYTES: u8 = 1;
/// `what`: the average packet size (`--connbytes-mode avgpkt`).
pub const XT_CONNBYTES_AVGPKT: u8 = 2;

/// `direction`: the original direction (`--connbytes-dir original`).
pub const XT_CONNBYTES_DIR_ORIGINAL: u8 = 0;
/// `direction`: the reply direction (`--connbytes-dir reply`).
pub const XT_CONNBYTES_DIR_REPLY: u8 = 1;
/// `direction`: both directions (`--connbytes-dir both`).
pub const XT_CONNBYTES_DIR_BOTH: u8 = 2;

/// Info of the `connbytes` match, revision 0 (`struct xt_connbytes_info`): 24 bytes,
/// 8-aligned on every target (the counts are `__aligned_u64`). The match is negated when
/// `from > to`.
#[allow(non_camel_case_types)]
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_connbytes_info {
    /// `count.from`: the lower bound.
    pub from: u64,
    /// `count.to`: the upper bound.
    pub to: u64,
    /// `XT_CONNBYTES_PKTS`, `XT_CONNBYTES_BYTES` or `XT_CONNBYTES_AVGPKT`.
    pub what: u8,
    /// `XT_CONNBYTES_DIR_*`.
    pub direction: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers.
    #[test]
    fn layout() {
        assert_layout!(xt_connbytes_info, 24, 8);
        assert_offset!(xt_connbytes_info, what, 16);
        assert_offset!(xt_connbytes_info, direction, 17);
    }
}
