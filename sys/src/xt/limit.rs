//! `limit` match (`xt_limit.h`): token-bucket rate limit (`--limit rate/unit`,
//! `--limit-burst n`).

/// Scale of `avg`: `avg` is the average interval between packets in 1/10000 s.
pub const XT_LIMIT_SCALE: u32 = 10000;

/// Info of the `limit` match, revision 0 (`struct xt_rateinfo`).
///
/// Only `avg` and `burst` come from the user. The kernel keeps its state in the private
/// struct `master` points to, but the old fields stay part of the struct and of the size
/// iptables sends (40 bytes on 64-bit targets, 28 on 32-bit): `prev` is a C
/// `unsigned long` and `master` a pointer, so both are `usize` here, and the layout follows
/// the target's pointer width like the kernel's does. iptables sends them as zero.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_rateinfo {
    /// Average interval between packets, in `1/XT_LIMIT_SCALE` seconds
    /// (`XT_LIMIT_SCALE * seconds_per_unit / rate`; `--limit 3/hour` is `12000000`).
    pub avg: u32,
    /// Bucket size: packets that may pass in a burst (`--limit-burst`, default 5).
    pub burst: u32,
    /// Kernel-private (`unsigned long prev`, moved to `xt_limit_priv`); send zero.
    pub prev: usize,
    /// Kernel-private (moved to `xt_limit_priv`); send zero.
    pub credit: u32,
    /// Kernel-private, computed at check time; send zero.
    pub credit_cap: u32,
    /// Kernel-private, computed at check time; send zero.
    pub cost: u32,
    /// Kernel-private pointer (`struct xt_limit_priv *master`); send zero.
    pub master: usize,
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
        assert_offset!(xt_rateinfo, prev, 8);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_rateinfo, 40, 8, 40);
        assert_offset!(xt_rateinfo, prev, 8);
        assert_offset!(xt_rateinfo, credit, 16);
        assert_offset!(xt_rateinfo, cost, 24);
        assert_offset!(xt_rateinfo, master, 32);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_rateinfo, 28, 4, 28);
        assert_offset!(xt_rateinfo, prev, 8);
        assert_offset!(xt_rateinfo, credit, 12);
        assert_offset!(xt_rateinfo, cost, 20);
        assert_offset!(xt_rateinfo, master, 24);
    }
}
