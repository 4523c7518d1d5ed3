//! `REJECT` targets (`ipt_REJECT.h`, `ip6t_REJECT.h`): drop the packet and answer with an
//! ICMP error or a TCP reset (`--reject-with`).

// enum ipt_reject_with

/// IPv4 `with`: ICMP network unreachable (`icmp-net-unreachable`).
pub const IPT_ICMP_NET_UNREACHABLE: u32 = 0;
/// IPv4 `with`: ICMP host unreachable (`icmp-host-unreachable`).
pub const IPT_ICMP_HOST_UNREACHABLE: u32 = 1;
/// IPv4 `with`: ICMP protocol unreachable (`icmp-proto-unreachable`).
pub const IPT_ICMP_PROT_UNREACHABLE: u32 = 2;
/// IPv4 `with`: ICMP port unreachable, the default (`icmp-port-unreachable`).
pub const IPT_ICMP_PORT_UNREACHABLE: u32 = 3;
/// IPv4 `with`: ICMP echo reply (obsolete).
pub const IPT_ICMP_ECHOREPLY: u32 = 4;
/// IPv4 `with`: ICMP network prohibited (`icmp-net-prohibited`).
pub const IPT_ICMP_NET_PROHIBITED: u32 = 5;
/// IPv4 `with`: ICMP host prohibited (`icmp-host-prohibited`).
pub const IPT_ICMP_HOST_PROHIBITED: u32 = 6;
/// IPv4 `with`: TCP reset (`tcp-reset`).
pub const IPT_TCP_RESET: u32 = 7;
/// IPv4 `with`: ICMP administratively prohibited (`icmp-admin-prohibited`).
pub const IPT_ICMP_ADMIN_PROHIBITED: u32 = 8;

// enum ip6t_reject_with

/// IPv6 `with`: ICMPv6 no route (`icmp6-no-route`).
pub const IP6T_ICMP6_NO_ROUTE: u32 = 0;
/// IPv6 `with`: ICMPv6 administratively prohibited (`icmp6-adm-prohibited`).
pub const IP6T_ICMP6_ADM_PROHIBITED: u32 = 1;
/// IPv6 `with`: ICMPv6 destination unreachable, beyond scope (`ICMPV6_NOT_NEIGHBOUR`).
pub const IP6T_ICMP6_NOT_NEIGHBOUR: u32 = 2;
/// IPv6 `with`: ICMPv6 address unreachable (`icmp6-addr-unreachable`).
pub const IP6T_ICMP6_ADDR_UNREACH: u32 = 3;
/// IPv6 `with`: ICMPv6 port unreachable, the default (`icmp6-port-unreachable`).
pub const IP6T_ICMP6_PORT_UNREACH: u32 = 4;
/// IPv6 `with`: ICMPv6 echo reply (obsolete).
pub const IP6T_ICMP6_ECHOREPLY: u32 = 5;
/// IPv6 `with`: TCP reset (`tcp-reset`).
pub const IP6T_TCP_RESET: u32 = 6;
/// IPv6 `with`: ICMPv6 failed ingress/egress policy (`icmp6-policy-fail`).
pub const IP6T_ICMP6_POLICY_FAIL: u32 = 7;
/// IPv6 `with`: ICMPv6 reject route (`icmp6-reject-route`).
pub const IP6T_ICMP6_REJECT_ROUTE: u32 = 8;

/// Info of the IPv4 `REJECT` target, revision 0 (`struct ipt_reject_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_reject_info {
    /// The answer (C `enum ipt_reject_with`): `IPT_ICMP_*` or `IPT_TCP_RESET`.
    pub with: u32,
}

/// Info of the IPv6 `REJECT` target, revision 0 (`struct ip6t_reject_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_reject_info {
    /// The answer: `IP6T_ICMP6_*` or `IP6T_TCP_RESET`.
    pub with: u32,
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
        assert_layout!(ipt_reject_info, 4, 4);
        assert_layout!(ip6t_reject_info, 4, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ipt_reject_info, 4, 4, 8);
        assert_layout!(ip6t_reject_info, 4, 4, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(ipt_reject_info, 4, 4, 4);
        assert_layout!(ip6t_reject_info, 4, 4, 4);
    }
}
