//! `statistic` match (`xt_statistic.h`): matches packets at random or every nth packet
//! (`--mode random --probability p`, `--mode nth --every n --packet p`).

use super::x_tables::AlignedKernelPtr;

/// `mode`: match at random with probability `u[0]` / 2^31.
pub const XT_STATISTIC_MODE_RANDOM: u16 = 0;
/// `mode`: match every `u[0] + 1`th packet, starting at packet `u[1]`.
pub const XT_STATISTIC_MODE_NTH: u16 = 1;
/// Highest valid `mode`.
pub const XT_STATISTIC_MODE_MAX: u16 = XT_STATISTIC_MODE_NTH;

/// `flags`: negate the match (`!`).
pub const XT_STATISTIC_INVERT: u16 = 0x1;
/// All valid `flags` bits.
pub const XT_STATISTIC_MASK: u16 = 0x1;

/// Info of the `statistic` match, revision 0 (`struct xt_statistic_info`).
///
/// The C struct ends in `struct xt_statistic_priv *master __attribute__((aligned(8)))`, a
/// kernel-private pointer to the shared nth counter: it is part of the size iptables sends
/// (24 bytes on every target) and is sent as zero.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_statistic_info {
    /// `XT_STATISTIC_MODE_RANDOM` or `XT_STATISTIC_MODE_NTH`.
    pub mode: u16,
    /// `XT_STATISTIC_INVERT` or 0.
    pub flags: u16,
    /// The C `union { struct { __u32 probability; } random; struct { __u32 every, packet,
    /// count; } nth; } u` as its three words. Random mode: `u[0]` is `random.probability`,
    /// the chance scaled so that `0x8000_0000` is 1 (iptables stores
    /// `lround(0x80000000 * p)`). Nth mode: `u[0]` is `nth.every` (n - 1 for `--every n`),
    /// `u[1]` is `nth.packet` (`--packet`), `u[2]` is `nth.count`, the value the kernel
    /// seeds its shared counter with (iptables stores `every - packet`).
    pub u: [u32; 3],
    /// Kernel-private `master` pointer; send zero.
    pub master: AlignedKernelPtr,
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
        assert_layout!(xt_statistic_info, 24, 8);
        assert_offset!(xt_statistic_info, u, 4);
        assert_offset!(xt_statistic_info, master, 16);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_statistic_info, 24, 8, 24);
        assert_offset!(xt_statistic_info, u, 4);
        assert_offset!(xt_statistic_info, master, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_statistic_info, 24, 8, 24);
        assert_offset!(xt_statistic_info, u, 4);
        assert_offset!(xt_statistic_info, master, 16);
    }
}
