//! `conntrack` match (`xt_conntrack.h`, with the state values of `nf_conntrack_common.h` and
//! `nf_conntrack_tuple_common.h`): tests the connection tracking entry of the packet
//! (`--ctstate`, `--ctproto`, `--ctorigsrc`, `--ctstatus`, `--ctexpire`, `--ctdir`, …).
//!
//! iptables-nft sends revision 3 ([`xt_conntrack_mtinfo3`]) when the kernel has it, and
//! also uses it for `-m state`.

use super::inet_addr::nf_inet_addr;

// enum ip_conntrack_info

/// Conntrack info: part of an established connection (either direction).
pub const IP_CT_ESTABLISHED: u32 = 0;
/// Conntrack info: like NEW, but related to an existing connection, or an ICMP error.
pub const IP_CT_RELATED: u32 = 1;
/// Conntrack info: started a new connection (original direction only).
pub const IP_CT_NEW: u32 = 2;
/// Conntrack info: values at or above this one are in the reply direction.
pub const IP_CT_IS_REPLY: u32 = 3;
/// Conntrack info: established, reply direction.
pub const IP_CT_ESTABLISHED_REPLY: u32 = IP_CT_ESTABLISHED + IP_CT_IS_REPLY;
/// Conntrack info: related, reply direction.
pub const IP_CT_RELATED_REPLY: u32 = IP_CT_RELATED + IP_CT_IS_REPLY;
/// Number of distinct conntrack info values.
pub const IP_CT_NUMBER: u32 = 5;
/// Conntrack info: NEW in the reply direction, kept only for userspace compatibility.
pub const IP_CT_NEW_REPLY: u32 = IP_CT_NUMBER;

// enum ip_conntrack_dir

/// Conntrack direction: original (the direction of the first packet).
pub const IP_CT_DIR_ORIGINAL: u32 = 0;
/// Conntrack direction: reply.
pub const IP_CT_DIR_REPLY: u32 = 1;
/// Number of conntrack directions.
pub const IP_CT_DIR_MAX: u32 = 2;

/// `XT_CONNTRACK_STATE_BIT(ctinfo)`: the `state_mask` bit of a conntrack info value
/// (`IP_CT_*`; the `_REPLY` forms map to the same bit as their originals).
#[allow(non_snake_case)]
pub const fn XT_CONNTRACK_STATE_BIT(ctinfo: u32) -> u16 {
    1 << (ctinfo % IP_CT_IS_REPLY + 1)
}

/// `state_mask` bit: `INVALID`, the packet is associated with no known connection.
pub const XT_CONNTRACK_STATE_INVALID: u16 = 1 << 0;
/// `state_mask` bit: `ESTABLISHED` (`XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED)`, not a
/// kernel name).
pub const XT_CONNTRACK_STATE_ESTABLISHED: u16 = XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED);
/// `state_mask` bit: `RELATED` (`XT_CONNTRACK_STATE_BIT(IP_CT_RELATED)`, not a kernel name).
pub const XT_CONNTRACK_STATE_RELATED: u16 = XT_CONNTRACK_STATE_BIT(IP_CT_RELATED);
/// `state_mask` bit: `NEW` (`XT_CONNTRACK_STATE_BIT(IP_CT_NEW)`, not a kernel name).
pub const XT_CONNTRACK_STATE_NEW: u16 = XT_CONNTRACK_STATE_BIT(IP_CT_NEW);
/// `state_mask` bit: `SNAT`, the original source address differs from the reply destination.
pub const XT_CONNTRACK_STATE_SNAT: u16 = 1 << (IP_CT_NUMBER + 1);
/// `state_mask` bit: `DNAT`, the original destination differs from the reply source.
pub const XT_CONNTRACK_STATE_DNAT: u16 = 1 << (IP_CT_NUMBER + 2);
/// `state_mask` bit: `UNTRACKED`, the packet is not tracked. Does not fit the `u8`
/// `state_mask` of revision 1.
pub const XT_CONNTRACK_STATE_UNTRACKED: u16 = 1 << (IP_CT_NUMBER + 3);

// flags, invflags

/// `match_flags`/`invert_flags`: test the state (`--ctstate`).
pub const XT_CONNTRACK_STATE: u16 = 1 << 0;
/// `match_flags`/`invert_flags`: test the layer-4 protocol (`--ctproto`).
pub const XT_CONNTRACK_PROTO: u16 = 1 << 1;
/// `match_flags`/`invert_flags`: test the original source address (`--ctorigsrc`).
pub const XT_CONNTRACK_ORIGSRC: u16 = 1 << 2;
/// `match_flags`/`invert_flags`: test the original destination address (`--ctorigdst`).
pub const XT_CONNTRACK_ORIGDST: u16 = 1 << 3;
/// `match_flags`/`invert_flags`: test the reply source address (`--ctreplsrc`).
pub const XT_CONNTRACK_REPLSRC: u16 = 1 << 4;
/// `match_flags`/`invert_flags`: test the reply destination address (`--ctrepldst`).
pub const XT_CONNTRACK_REPLDST: u16 = 1 << 5;
/// `match_flags`/`invert_flags`: test the status bits (`--ctstatus`).
pub const XT_CONNTRACK_STATUS: u16 = 1 << 6;
/// `match_flags`/`invert_flags`: test the remaining lifetime (`--ctexpire`).
pub const XT_CONNTRACK_EXPIRES: u16 = 1 << 7;
/// `match_flags`/`invert_flags`: test the original source port (`--ctorigsrcport`).
pub const XT_CONNTRACK_ORIGSRC_PORT: u16 = 1 << 8;
/// `match_flags`/`invert_flags`: test the original destination port (`--ctorigdstport`).
pub const XT_CONNTRACK_ORIGDST_PORT: u16 = 1 << 9;
/// `match_flags`/`invert_flags`: test the reply source port (`--ctreplsrcport`).
pub const XT_CONNTRACK_REPLSRC_PORT: u16 = 1 << 10;
/// `match_flags`/`invert_flags`: test the reply destination port (`--ctrepldstport`).
pub const XT_CONNTRACK_REPLDST_PORT: u16 = 1 << 11;
/// `match_flags`: test the packet direction (`--ctdir`); the `invert_flags` bit set means
/// REPLY, clear means ORIGINAL.
pub const XT_CONNTRACK_DIRECTION: u16 = 1 << 12;
/// `match_flags`: the state test came from `-m state --state` (iptables-nft prints it back
/// as `-m state`).
pub const XT_CONNTRACK_STATE_ALIAS: u16 = 1 << 13;

// enum ip_conntrack_status (the bits `--ctstatus` can test)

/// Status bit: an expected connection.
pub const IPS_EXPECTED: u16 = 1 << 0;
/// Status bit: packets were seen in both directions.
pub const IPS_SEEN_REPLY: u16 = 1 << 1;
/// Status bit: assured, never early-expired.
pub const IPS_ASSURED: u16 = 1 << 2;
/// Status bit: confirmed, the first packet left the box.
pub const IPS_CONFIRMED: u16 = 1 << 3;
/// Status bit: needs source NAT in the original direction.
pub const IPS_SRC_NAT: u16 = 1 << 4;
/// Status bit: needs destination NAT in the original direction.
pub const IPS_DST_NAT: u16 = 1 << 5;
/// Status bits: source and destination NAT.
pub const IPS_NAT_MASK: u16 = IPS_DST_NAT | IPS_SRC_NAT;
/// Status bit: TCP sequence numbers need adjusting.
pub const IPS_SEQ_ADJUST: u16 = 1 << 6;
/// Status bit: source NAT set up.
pub const IPS_SRC_NAT_DONE: u16 = 1 << 7;
/// Status bit: destination NAT set up.
pub const IPS_DST_NAT_DONE: u16 = 1 << 8;
/// Status bits: both NAT set-up bits.
pub const IPS_NAT_DONE_MASK: u16 = IPS_DST_NAT_DONE | IPS_SRC_NAT_DONE;
/// Status bit: the connection is dying.
pub const IPS_DYING: u16 = 1 << 9;
/// Status bit: the connection has a fixed timeout.
pub const IPS_FIXED_TIMEOUT: u16 = 1 << 10;
/// Status bit: the entry is a template.
pub const IPS_TEMPLATE: u16 = 1 << 11;
/// Status bit: fake untracked entry (obsolete).
pub const IPS_UNTRACKED: u16 = 1 << 12;
/// Status bit: a helper was attached explicitly.
pub const IPS_HELPER: u16 = 1 << 13;
/// Status bit: offloaded to a flow table.
pub const IPS_OFFLOAD: u16 = 1 << 14;
/// Status bit: offloaded to hardware.
pub const IPS_HW_OFFLOAD: u16 = 1 << 15;

bitflags::bitflags! {
    /// `match_flags` and `invert_flags` of the conntrack match infos (`XT_CONNTRACK_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ConntrackFlags: u16 {
        /// `--ctstate`.
        const STATE = XT_CONNTRACK_STATE;
        /// `--ctproto`.
        const PROTO = XT_CONNTRACK_PROTO;
        /// `--ctorigsrc`.
        const ORIGSRC = XT_CONNTRACK_ORIGSRC;
        /// `--ctorigdst`.
        const ORIGDST = XT_CONNTRACK_ORIGDST;
        /// `--ctreplsrc`.
        const REPLSRC = XT_CONNTRACK_REPLSRC;
        /// `--ctrepldst`.
        const REPLDST = XT_CONNTRACK_REPLDST;
        /// `--ctstatus`.
        const STATUS = XT_CONNTRACK_STATUS;
        /// `--ctexpire`.
        const EXPIRES = XT_CONNTRACK_EXPIRES;
        /// `--ctorigsrcport`.
        const ORIGSRC_PORT = XT_CONNTRACK_ORIGSRC_PORT;
        /// `--ctorigdstport`.
        const ORIGDST_PORT = XT_CONNTRACK_ORIGDST_PORT;
        /// `--ctreplsrcport`.
        const REPLSRC_PORT = XT_CONNTRACK_REPLSRC_PORT;
        /// `--ctrepldstport`.
        const REPLDST_PORT = XT_CONNTRACK_REPLDST_PORT;
        /// `--ctdir` (inverted means REPLY).
        const DIRECTION = XT_CONNTRACK_DIRECTION;
        /// The state test was written as `-m state`.
        const STATE_ALIAS = XT_CONNTRACK_STATE_ALIAS;
    }
}

bitflags::bitflags! {
    /// `state_mask` of the conntrack match infos (`XT_CONNTRACK_STATE_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ConntrackStates: u16 {
        /// `INVALID`.
        const INVALID = XT_CONNTRACK_STATE_INVALID;
        /// `ESTABLISHED`.
        const ESTABLISHED = XT_CONNTRACK_STATE_ESTABLISHED;
        /// `RELATED`.
        const RELATED = XT_CONNTRACK_STATE_RELATED;
        /// `NEW`.
        const NEW = XT_CONNTRACK_STATE_NEW;
        /// `SNAT`.
        const SNAT = XT_CONNTRACK_STATE_SNAT;
        /// `DNAT`.
        const DNAT = XT_CONNTRACK_STATE_DNAT;
        /// `UNTRACKED`.
        const UNTRACKED = XT_CONNTRACK_STATE_UNTRACKED;
    }
}

bitflags::bitflags! {
    /// `status_mask` of the conntrack match infos: the `IPS_*` bits `--ctstatus` names
    /// (`NONE` is the empty set).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ConntrackStatus: u16 {
        /// `EXPECTED`.
        const EXPECTED = IPS_EXPECTED;
        /// `SEEN_REPLY`.
        const SEEN_REPLY = IPS_SEEN_REPLY;
        /// `ASSURED`.
        const ASSURED = IPS_ASSURED;
        /// `CONFIRMED`.
        const CONFIRMED = IPS_CONFIRMED;
    }
}

/// Info of the `conntrack` match, revision 1 (`struct xt_conntrack_mtinfo1`).
///
/// Addresses are [`nf_inet_addr`]s in network byte order; each `*_mask` is the netmask
/// applied to the conntrack address before it is compared with the `*_addr`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_conntrack_mtinfo1 {
    /// Original-direction source address (`--ctorigsrc`).
    pub origsrc_addr: nf_inet_addr,
    /// Netmask for `origsrc_addr`.
    pub origsrc_mask: nf_inet_addr,
    /// Original-direction destination address (`--ctorigdst`).
    pub origdst_addr: nf_inet_addr,
    /// Netmask for `origdst_addr`.
    pub origdst_mask: nf_inet_addr,
    /// Reply-direction source address (`--ctreplsrc`).
    pub replsrc_addr: nf_inet_addr,
    /// Netmask for `replsrc_addr`.
    pub replsrc_mask: nf_inet_addr,
    /// Reply-direction destination address (`--ctrepldst`).
    pub repldst_addr: nf_inet_addr,
    /// Netmask for `repldst_addr`.
    pub repldst_mask: nf_inet_addr,
    /// Lowest remaining lifetime in seconds (`--ctexpire min[:max]`).
    pub expires_min: u32,
    /// Highest remaining lifetime in seconds.
    pub expires_max: u32,
    /// Layer-4 protocol number (`--ctproto`).
    pub l4proto: u16,
    /// Original source port (`--ctorigsrcport`), network byte order.
    pub origsrc_port: u16,
    /// Original destination port (`--ctorigdstport`), network byte order.
    pub origdst_port: u16,
    /// Reply source port (`--ctreplsrcport`), network byte order.
    pub replsrc_port: u16,
    /// Reply destination port (`--ctrepldstport`), network byte order.
    pub repldst_port: u16,
    /// Which tests are active: `XT_CONNTRACK_*` bits.
    pub match_flags: u16,
    /// Which active tests are negated (`!`): `XT_CONNTRACK_*` bits.
    pub invert_flags: u16,
    /// States that match: `XT_CONNTRACK_STATE_*` bits (`UNTRACKED` does not fit).
    pub state_mask: u8,
    /// Status bits that must be set: `IPS_*` bits.
    pub status_mask: u8,
}

/// Info of the `conntrack` match, revision 2 (`struct xt_conntrack_mtinfo2`): revision 1
/// with 16-bit state and status masks.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_conntrack_mtinfo2 {
    /// Original-direction source address (`--ctorigsrc`).
    pub origsrc_addr: nf_inet_addr,
    /// Netmask for `origsrc_addr`.
    pub origsrc_mask: nf_inet_addr,
    /// Original-direction destination address (`--ctorigdst`).
    pub origdst_addr: nf_inet_addr,
    /// Netmask for `origdst_addr`.
    pub origdst_mask: nf_inet_addr,
    /// Reply-direction source address (`--ctreplsrc`).
    pub replsrc_addr: nf_inet_addr,
    /// Netmask for `replsrc_addr`.
    pub replsrc_mask: nf_inet_addr,
    /// Reply-direction destination address (`--ctrepldst`).
    pub repldst_addr: nf_inet_addr,
    /// Netmask for `repldst_addr`.
    pub repldst_mask: nf_inet_addr,
    /// Lowest remaining lifetime in seconds (`--ctexpire min[:max]`).
    pub expires_min: u32,
    /// Highest remaining lifetime in seconds.
    pub expires_max: u32,
    /// Layer-4 protocol number (`--ctproto`).
    pub l4proto: u16,
    /// Original source port (`--ctorigsrcport`), network byte order.
    pub origsrc_port: u16,
    /// Original destination port (`--ctorigdstport`), network byte order.
    pub origdst_port: u16,
    /// Reply source port (`--ctreplsrcport`), network byte order.
    pub replsrc_port: u16,
    /// Reply destination port (`--ctrepldstport`), network byte order.
    pub repldst_port: u16,
    /// Which tests are active: `XT_CONNTRACK_*` bits.
    pub match_flags: u16,
    /// Which active tests are negated (`!`): `XT_CONNTRACK_*` bits.
    pub invert_flags: u16,
    /// States that match: `XT_CONNTRACK_STATE_*` bits.
    pub state_mask: u16,
    /// Status bits that must be set: `IPS_*` bits.
    pub status_mask: u16,
}

/// Info of the `conntrack` match, revision 3 (`struct xt_conntrack_mtinfo3`): revision 2
/// with port ranges. Unlike revisions 1 and 2, the ports of revision 3 are in host byte
/// order: the kernel compares them with `ntohs()` of the conntrack port.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_conntrack_mtinfo3 {
    /// Original-direction source address (`--ctorigsrc`).
    pub origsrc_addr: nf_inet_addr,
    /// Netmask for `origsrc_addr`.
    pub origsrc_mask: nf_inet_addr,
    /// Original-direction destination address (`--ctorigdst`).
    pub origdst_addr: nf_inet_addr,
    /// Netmask for `origdst_addr`.
    pub origdst_mask: nf_inet_addr,
    /// Reply-direction source address (`--ctreplsrc`).
    pub replsrc_addr: nf_inet_addr,
    /// Netmask for `replsrc_addr`.
    pub replsrc_mask: nf_inet_addr,
    /// Reply-direction destination address (`--ctrepldst`).
    pub repldst_addr: nf_inet_addr,
    /// Netmask for `repldst_addr`.
    pub repldst_mask: nf_inet_addr,
    /// Lowest remaining lifetime in seconds (`--ctexpire min[:max]`).
    pub expires_min: u32,
    /// Highest remaining lifetime in seconds.
    pub expires_max: u32,
    /// Layer-4 protocol number (`--ctproto`).
    pub l4proto: u16,
    /// Lowest original source port (`--ctorigsrcport min[:max]`), host byte order.
    pub origsrc_port: u16,
    /// Lowest original destination port, host byte order.
    pub origdst_port: u16,
    /// Lowest reply source port, host byte order.
    pub replsrc_port: u16,
    /// Lowest reply destination port, host byte order.
    pub repldst_port: u16,
    /// Which tests are active: `XT_CONNTRACK_*` bits.
    pub match_flags: u16,
    /// Which active tests are negated (`!`): `XT_CONNTRACK_*` bits.
    pub invert_flags: u16,
    /// States that match: `XT_CONNTRACK_STATE_*` bits.
    pub state_mask: u16,
    /// Status bits that must be set: `IPS_*` bits.
    pub status_mask: u16,
    /// Highest original source port, host byte order (equal to `origsrc_port` for a
    /// single port).
    pub origsrc_port_high: u16,
    /// Highest original destination port, host byte order.
    pub origdst_port_high: u16,
    /// Highest reply source port, host byte order.
    pub replsrc_port_high: u16,
    /// Highest reply destination port, host byte order.
    pub repldst_port_high: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_bits() {
        assert_eq!(XT_CONNTRACK_STATE_INVALID, 1);
        assert_eq!(XT_CONNTRACK_STATE_ESTABLISHED, 2);
        assert_eq!(XT_CONNTRACK_STATE_RELATED, 4);
        assert_eq!(XT_CONNTRACK_STATE_NEW, 8);
        assert_eq!(XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED_REPLY), 2);
        assert_eq!(XT_CONNTRACK_STATE_SNAT, 64);
        assert_eq!(XT_CONNTRACK_STATE_DNAT, 128);
        assert_eq!(XT_CONNTRACK_STATE_UNTRACKED, 256);
    }

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(xt_conntrack_mtinfo1, 152, 4);
        assert_layout!(xt_conntrack_mtinfo2, 156, 4);
        assert_layout!(xt_conntrack_mtinfo3, 164, 4);
        assert_offset!(xt_conntrack_mtinfo3, expires_min, 128);
        assert_offset!(xt_conntrack_mtinfo3, l4proto, 136);
        assert_offset!(xt_conntrack_mtinfo3, match_flags, 146);
        assert_offset!(xt_conntrack_mtinfo3, state_mask, 150);
        assert_offset!(xt_conntrack_mtinfo3, origsrc_port_high, 154);
        assert_offset!(xt_conntrack_mtinfo3, repldst_port_high, 160);
        assert_offset!(xt_conntrack_mtinfo1, state_mask, 150);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_conntrack_mtinfo1, 152, 4, 152);
        assert_layout!(xt_conntrack_mtinfo2, 156, 4, 160);
        assert_layout!(xt_conntrack_mtinfo3, 164, 4, 168);
        assert_offset!(xt_conntrack_mtinfo3, expires_min, 128);
        assert_offset!(xt_conntrack_mtinfo3, l4proto, 136);
        assert_offset!(xt_conntrack_mtinfo3, match_flags, 146);
        assert_offset!(xt_conntrack_mtinfo3, state_mask, 150);
        assert_offset!(xt_conntrack_mtinfo3, origsrc_port_high, 154);
        assert_offset!(xt_conntrack_mtinfo3, repldst_port_high, 160);
        assert_offset!(xt_conntrack_mtinfo1, state_mask, 150);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_conntrack_mtinfo1, 152, 4, 152);
        assert_layout!(xt_conntrack_mtinfo2, 156, 4, 156);
        assert_layout!(xt_conntrack_mtinfo3, 164, 4, 164);
        assert_offset!(xt_conntrack_mtinfo3, expires_min, 128);
        assert_offset!(xt_conntrack_mtinfo3, l4proto, 136);
        assert_offset!(xt_conntrack_mtinfo3, match_flags, 146);
        assert_offset!(xt_conntrack_mtinfo3, state_mask, 150);
        assert_offset!(xt_conntrack_mtinfo3, origsrc_port_high, 154);
        assert_offset!(xt_conntrack_mtinfo3, repldst_port_high, 160);
        assert_offset!(xt_conntrack_mtinfo1, state_mask, 150);
    }
}
