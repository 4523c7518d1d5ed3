//! Netlink framing: message header, attribute header, error message, flags and socket options,
//! as in `include/uapi/linux/netlink.h`.
//!
//! ```
//! use iptnl_sys::netlink::*;
//! assert_eq!(core::mem::size_of::<nlmsghdr>(), NLMSG_HDRLEN);
//! assert_eq!(nla_align(5), 8);
//! ```

/// Netlink protocol number of the netfilter subsystems (nfnetlink).
pub const NETLINK_NETFILTER: i32 = 12;
/// Socket option level of netlink sockets.
pub const SOL_NETLINK: i32 = 270;
/// Socket option: join a multicast group (value: group number).
pub const NETLINK_ADD_MEMBERSHIP: i32 = 1;
/// Socket option: leave a multicast group.
pub const NETLINK_DROP_MEMBERSHIP: i32 = 2;
/// Socket option: do not report ENOBUFS on overrun.
pub const NETLINK_NO_ENOBUFS: i32 = 5;
/// Socket option: do not copy the original message into an ACK/error, only its header.
pub const NETLINK_CAP_ACK: i32 = 10;
/// Socket option: extended ACKs with TLVs (error message, offending attribute offset).
pub const NETLINK_EXT_ACK: i32 = 11;
/// Socket option: strict checking of dump requests.
pub const NETLINK_GET_STRICT_CHK: i32 = 12;

/// No-op message.
pub const NLMSG_NOOP: u16 = 0x1;
/// Error or ACK message (carries [`nlmsgerr`]).
pub const NLMSG_ERROR: u16 = 0x2;
/// End of a multipart (dump) reply.
pub const NLMSG_DONE: u16 = 0x3;
/// Data lost.
pub const NLMSG_OVERRUN: u16 = 0x4;
/// First message type free for protocols; message types below it are reserved.
pub const NLMSG_MIN_TYPE: u16 = 0x10;

/// It is a request message.
pub const NLM_F_REQUEST: u16 = 0x01;
/// Multipart message, terminated by `NLMSG_DONE`.
pub const NLM_F_MULTI: u16 = 0x02;
/// Reply with an ACK, with zero or an error code.
pub const NLM_F_ACK: u16 = 0x04;
/// Echo this request: receive the resulting notification.
pub const NLM_F_ECHO: u16 = 0x08;
/// Dump was inconsistent due to a change during it.
pub const NLM_F_DUMP_INTR: u16 = 0x10;
/// Dump was filtered as requested.
pub const NLM_F_DUMP_FILTERED: u16 = 0x20;
/// GET modifier: specify tree root.
pub const NLM_F_ROOT: u16 = 0x100;
/// GET modifier: return all matching.
pub const NLM_F_MATCH: u16 = 0x200;
/// GET modifier: atomic GET.
pub const NLM_F_ATOMIC: u16 = 0x400;
/// GET modifier: dump (root | match).
pub const NLM_F_DUMP: u16 = NLM_F_ROOT | NLM_F_MATCH;
/// NEW modifier: override an existing object.
pub const NLM_F_REPLACE: u16 = 0x100;
/// NEW modifier: fail if the object exists.
pub const NLM_F_EXCL: u16 = 0x200;
/// NEW modifier: create if it does not exist.
pub const NLM_F_CREATE: u16 = 0x400;
/// NEW modifier: add to the end of the list.
pub const NLM_F_APPEND: u16 = 0x800;
/// DELETE modifier: do not delete recursively.
pub const NLM_F_NONREC: u16 = 0x100;
/// DELETE modifier: delete multiple objects.
pub const NLM_F_BULK: u16 = 0x200;
/// ACK flag: the request was capped (only its header is echoed in the error).
pub const NLM_F_CAPPED: u16 = 0x100;
/// ACK flag: extended ACK TLVs follow the error.
pub const NLM_F_ACK_TLVS: u16 = 0x200;

/// Attribute type flag: the payload is a nest of attributes.
pub const NLA_F_NESTED: u16 = 1 << 15;
/// Attribute type flag: the payload is in network byte order.
pub const NLA_F_NET_BYTEORDER: u16 = 1 << 14;
/// Mask that removes the two flags from an attribute type.
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);

/// Alignment of netlink messages.
pub const NLMSG_ALIGNTO: usize = 4;
/// Alignment of netlink attributes.
pub const NLA_ALIGNTO: usize = 4;
/// Size of [`nlmsghdr`].
pub const NLMSG_HDRLEN: usize = 16;
/// Size of [`nlattr`].
pub const NLA_HDRLEN: usize = 4;

/// Extended ACK attribute: unused.
pub const NLMSGERR_ATTR_UNUSED: u16 = 0;
/// Extended ACK attribute: error message string.
pub const NLMSGERR_ATTR_MSG: u16 = 1;
/// Extended ACK attribute: offset (u32) of the invalid attribute in the original message,
/// counting from the start of its `nlmsghdr`.
pub const NLMSGERR_ATTR_OFFS: u16 = 2;
/// Extended ACK attribute: subsystem specific cookie.
pub const NLMSGERR_ATTR_COOKIE: u16 = 3;
/// Extended ACK attribute: policy of a rejected attribute.
pub const NLMSGERR_ATTR_POLICY: u16 = 4;
/// Extended ACK attribute: type of a missing required attribute.
pub const NLMSGERR_ATTR_MISS_TYPE: u16 = 5;
/// Extended ACK attribute: offset of the nest where an attribute was missing.
pub const NLMSGERR_ATTR_MISS_NEST: u16 = 6;

/// Rounds `len` up to the netlink message alignment (4).
pub const fn nlmsg_align(len: usize) -> usize {
    (len + NLMSG_ALIGNTO - 1) & !(NLMSG_ALIGNTO - 1)
}

/// Rounds `len` up to the netlink attribute alignment (4).
pub const fn nla_align(len: usize) -> usize {
    (len + NLA_ALIGNTO - 1) & !(NLA_ALIGNTO - 1)
}

/// Netlink message header (`struct nlmsghdr`). All fields are in host byte order.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct nlmsghdr {
    /// Length of the message including this header.
    pub nlmsg_len: u32,
    /// Message type: for nfnetlink, `(subsystem << 8) | message`.
    pub nlmsg_type: u16,
    /// `NLM_F_*` flags.
    pub nlmsg_flags: u16,
    /// Sequence number, echoed in replies and errors.
    pub nlmsg_seq: u32,
    /// Sending port id (0 for the kernel).
    pub nlmsg_pid: u32,
}

/// Netlink attribute header (`struct nlattr`). `nla_len` includes this header.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct nlattr {
    /// Length of the attribute including this header, without trailing padding.
    pub nla_len: u16,
    /// Attribute type, possibly with `NLA_F_NESTED` / `NLA_F_NET_BYTEORDER`.
    pub nla_type: u16,
}

/// Payload of an `NLMSG_ERROR` message (`struct nlmsgerr`): a negative errno (0 for an ACK)
/// followed by the header of the message it answers (and, without `NETLINK_CAP_ACK`, its body).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct nlmsgerr {
    /// Negative errno, or 0 for an ACK.
    pub error: i32,
    /// Header of the message that caused the error.
    pub msg: nlmsghdr,
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, size_of};

    #[test]
    fn sizes_match_the_kernel() {
        assert_eq!(size_of::<nlmsghdr>(), 16);
        assert_eq!(align_of::<nlmsghdr>(), 4);
        assert_eq!(size_of::<nlattr>(), 4);
        assert_eq!(align_of::<nlattr>(), 2);
        assert_eq!(size_of::<nlmsgerr>(), 20);
        assert_eq!(align_of::<nlmsgerr>(), 4);
    }

    #[test]
    fn alignment_rounds_up_to_four() {
        assert_eq!(nlmsg_align(0), 0);
        assert_eq!(nlmsg_align(1), 4);
        assert_eq!(nlmsg_align(16), 16);
        assert_eq!(nla_align(7), 8);
    }
}
