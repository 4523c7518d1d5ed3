//! `pkttype` match (`xt_pkttype.h`): the link-layer packet type (`--pkt-type unicast`,
//! `broadcast`, `multicast`).

/// Packet type (`linux/if_packet.h`): addressed to this host (`unicast`).
pub const PACKET_HOST: i32 = 0;
/// Packet type: link-layer broadcast (`broadcast`).
pub const PACKET_BROADCAST: i32 = 1;
/// Packet type: link-layer multicast (`multicast`).
pub const PACKET_MULTICAST: i32 = 2;
/// Packet type: addressed to another host.
pub const PACKET_OTHERHOST: i32 = 3;
/// Packet type: outgoing.
pub const PACKET_OUTGOING: i32 = 4;

/// Info of the `pkttype` match, revision 0 (`struct xt_pkttype_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_pkttype_info {
    /// The packet type to match: `PACKET_HOST`, `PACKET_BROADCAST` or `PACKET_MULTICAST`.
    pub pkttype: i32,
    /// Nonzero to negate the match (`! --pkt-type`).
    pub invert: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(xt_pkttype_info, 8, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_pkttype_info, 8, 4, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_pkttype_info, 8, 4, 8);
    }
}
