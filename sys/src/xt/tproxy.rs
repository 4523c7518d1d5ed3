//! `TPROXY` target (`xt_TPROXY.h`): redirect the packet to a local socket without changing
//! it, and mark it (`--on-port`, `--on-ip`, `--tproxy-mark`).

use super::inet_addr::nf_inet_addr;

/// Info of the `TPROXY` target, revision 0, IPv4 only (`struct xt_tproxy_target_info`).
/// The packet mark becomes `(mark & !mark_mask) ^ mark_value`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tproxy_target_info {
    /// Mark bits to clear (`--tproxy-mark value/mask`).
    pub mark_mask: u32,
    /// Mark bits to XOR in.
    pub mark_value: u32,
    /// Local address to redirect to (`--on-ip`), network byte order; 0 for the address
    /// of the input interface.
    pub laddr: u32,
    /// Local port to redirect to (`--on-port`), network byte order; 0 for the original
    /// destination port.
    pub lport: u16,
}

/// Info of the `TPROXY` target, revision 1, IPv4 and IPv6
/// (`struct xt_tproxy_target_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tproxy_target_info_v1 {
    /// Mark bits to clear (`--tproxy-mark value/mask`).
    pub mark_mask: u32,
    /// Mark bits to XOR in.
    pub mark_value: u32,
    /// Local address to redirect to (`--on-ip`), network byte order; all zero for the
    /// address of the input interface.
    pub laddr: nf_inet_addr,
    /// Local port to redirect to (`--on-port`), network byte order; 0 for the original
    /// destination port.
    pub lport: u16,
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
        assert_layout!(xt_tproxy_target_info, 16, 4);
        assert_layout!(xt_tproxy_target_info_v1, 28, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_tproxy_target_info, 16, 4, 16);
        assert_layout!(xt_tproxy_target_info_v1, 28, 4, 32);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_tproxy_target_info, 16, 4, 16);
        assert_layout!(xt_tproxy_target_info_v1, 28, 4, 28);
    }
}
