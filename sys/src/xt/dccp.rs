//! `dccp` match (`xt_dccp.h`): DCCP ports, packet types and options (`-p dccp --sport`,
//! `--dport`, `--dccp-types`, `--dccp-option`).

/// `flags`/`invflags`: test the source ports.
pub const XT_DCCP_SRC_PORTS: u16 = 0x01;
/// `flags`/`invflags`: test the destination ports.
pub const XT_DCCP_DEST_PORTS: u16 = 0x02;
/// `flags`/`invflags`: test the packet type.
pub const XT_DCCP_TYPE: u16 = 0x04;
/// `flags`/`invflags`: test for an option.
pub const XT_DCCP_OPTION: u16 = 0x08;
/// All valid `flags`/`invflags` bits.
pub const XT_DCCP_VALID_FLAGS: u16 = 0x0f;

/// DCCP packet type `Request` (`linux/dccp.h`, `DCCP_PKT_*`; bit `1 << type` of
/// `xt_dccp_info.typemask`).
pub const DCCP_PKT_REQUEST: u8 = 0;
/// DCCP packet type `Response`.
pub const DCCP_PKT_RESPONSE: u8 = 1;
/// DCCP packet type `Data`.
pub const DCCP_PKT_DATA: u8 = 2;
/// DCCP packet type `Ack`.
pub const DCCP_PKT_ACK: u8 = 3;
/// DCCP packet type `DataAck`.
pub const DCCP_PKT_DATAACK: u8 = 4;
/// DCCP packet type `CloseReq`.
pub const DCCP_PKT_CLOSEREQ: u8 = 5;
/// DCCP packet type `Close`.
pub const DCCP_PKT_CLOSE: u8 = 6;
/// DCCP packet type `Reset`.
pub const DCCP_PKT_RESET: u8 = 7;
/// DCCP packet type `Sync`.
pub const DCCP_PKT_SYNC: u8 = 8;
/// DCCP packet type `SyncAck`.
pub const DCCP_PKT_SYNCACK: u8 = 9;
/// The first invalid DCCP packet type (10; 11–15 are invalid too).
pub const DCCP_PKT_INVALID: u8 = 10;

/// Info of the `dccp` match, revision 0 (`struct xt_dccp_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_dccp_info {
    /// Smallest and largest destination port.
    pub dpts: [u16; 2],
    /// Smallest and largest source port.
    pub spts: [u16; 2],
    /// `XT_DCCP_*` tests made.
    pub flags: u16,
    /// `XT_DCCP_*` tests negated.
    pub invflags: u16,
    /// Bit `1 << type` for each packet type that matches.
    pub typemask: u16,
    /// The option type looked for.
    pub option: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_dccp_info, 16, 2);
        assert_offset!(xt_dccp_info, spts, 4);
        assert_offset!(xt_dccp_info, flags, 8);
        assert_offset!(xt_dccp_info, invflags, 10);
        assert_offset!(xt_dccp_info, typemask, 12);
        assert_offset!(xt_dccp_info, option, 14);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_dccp_info, 16, 2, 16);
    }
}
