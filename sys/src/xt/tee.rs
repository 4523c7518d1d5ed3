//! `TEE` target (`xt_TEE.h`): send a copy of the packet to a gateway (`--gateway`,
//! `--oif`).

use super::inet_addr::nf_inet_addr;
use super::x_tables::{AlignedKernelPtr, IFNAMSIZ};

/// Info of the `TEE` target, revision 1 (`struct xt_tee_tginfo`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_tee_tginfo {
    /// Gateway to route the copy through (`--gateway`), network byte order.
    pub gw: nf_inet_addr,
    /// Output interface (`--oif`), NUL-terminated; empty for a routing lookup.
    pub oif: [u8; IFNAMSIZ],
    /// Kernel-private `struct xt_tee_priv *priv __attribute__((aligned(8)))`; send zero.
    pub r#priv: AlignedKernelPtr,
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
        assert_layout!(xt_tee_tginfo, 40, 8);
        assert_offset!(xt_tee_tginfo, r#priv, 32);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_tee_tginfo, 40, 8, 40);
        assert_offset!(xt_tee_tginfo, r#priv, 32);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_tee_tginfo, 40, 8, 40);
        assert_offset!(xt_tee_tginfo, r#priv, 32);
    }
}
