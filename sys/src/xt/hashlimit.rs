//! `hashlimit` match (`xt_hashlimit.h`): token-bucket rate limits kept per address/port
//! group in a named hash table (`--hashlimit-upto`, `--hashlimit-above`,
//! `--hashlimit-mode`, `--hashlimit-name`, …).

use super::x_tables::{AlignedKernelPtr, IFNAMSIZ, NAME_MAX};

/// Scale of `avg` in revisions 0 and 1: the interval between packets in 1/10000 s.
pub const XT_HASHLIMIT_SCALE: u32 = 10000;
/// Scale of `avg` in revisions 2 and 3: the interval between packets in 1/1000000 s.
#[allow(non_upper_case_globals)]
pub const XT_HASHLIMIT_SCALE_v2: u64 = 1_000_000;
/// In byte mode (`XT_HASHLIMIT_BYTES`) lengths are counted in 16-byte steps (`>> 4`).
pub const XT_HASHLIMIT_BYTE_SHIFT: u32 = 4;

/// `mode` bit: hash the destination address (`--hashlimit-mode dstip`).
pub const XT_HASHLIMIT_HASH_DIP: u32 = 1 << 0;
/// `mode` bit: hash the destination port (`dstport`).
pub const XT_HASHLIMIT_HASH_DPT: u32 = 1 << 1;
/// `mode` bit: hash the source address (`srcip`).
pub const XT_HASHLIMIT_HASH_SIP: u32 = 1 << 2;
/// `mode` bit: hash the source port (`srcport`).
pub const XT_HASHLIMIT_HASH_SPT: u32 = 1 << 3;
/// `mode` bit: match above the limit instead of up to it (`--hashlimit-above`).
pub const XT_HASHLIMIT_INVERT: u32 = 1 << 4;
/// `mode` bit: the rate is in bytes, not packets (`--hashlimit-upto 1kb/s`).
pub const XT_HASHLIMIT_BYTES: u32 = 1 << 5;
/// `mode` bit: rate-match mode (`--hashlimit-rate-match`, revision 3).
pub const XT_HASHLIMIT_RATE_MATCH: u32 = 1 << 6;

bitflags::bitflags! {
    /// `mode` of the hashlimit configurations (`XT_HASHLIMIT_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct HashlimitMode: u32 {
        /// `dstip`.
        const HASH_DIP = XT_HASHLIMIT_HASH_DIP;
        /// `dstport`.
        const HASH_DPT = XT_HASHLIMIT_HASH_DPT;
        /// `srcip`.
        const HASH_SIP = XT_HASHLIMIT_HASH_SIP;
        /// `srcport`.
        const HASH_SPT = XT_HASHLIMIT_HASH_SPT;
        /// `--hashlimit-above`.
        const INVERT = XT_HASHLIMIT_INVERT;
        /// Byte-based rate.
        const BYTES = XT_HASHLIMIT_BYTES;
        /// `--hashlimit-rate-match`.
        const RATE_MATCH = XT_HASHLIMIT_RATE_MATCH;
    }
}

/// Configuration of hashlimit revision 0 (`struct hashlimit_cfg`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct hashlimit_cfg {
    /// `XT_HASHLIMIT_HASH_*` bits.
    pub mode: u32,
    /// Average interval between packets, in `1/XT_HASHLIMIT_SCALE` seconds.
    pub avg: u32,
    /// Bucket size (`--hashlimit-burst`).
    pub burst: u32,
    /// Number of hash buckets (`--hashlimit-htable-size`), 0 for the default.
    pub size: u32,
    /// Most entries (`--hashlimit-htable-max`), 0 for the default.
    pub max: u32,
    /// Garbage collection interval in milliseconds (`--hashlimit-htable-gcinterval`).
    pub gc_interval: u32,
    /// Idle entry lifetime in milliseconds (`--hashlimit-htable-expire`).
    pub expire: u32,
}

/// Info of the `hashlimit` match, revision 0 (`struct xt_hashlimit_info`). Ends in two
/// kernel-private pointers (`hinfo` and the `u.ptr`/`u.master` union), `usize` here as in
/// C; send them as zero.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_hashlimit_info {
    /// Hash table name (`--hashlimit-name`), NUL-terminated.
    pub name: [u8; IFNAMSIZ],
    /// The configuration.
    pub cfg: hashlimit_cfg,
    /// Kernel-private `struct xt_hashlimit_htable *hinfo`; send zero.
    pub hinfo: usize,
    /// Kernel-private `union { void *ptr; struct xt_hashlimit_info *master; } u`; send zero.
    pub u: usize,
}

/// Configuration of hashlimit revision 1 (`struct hashlimit_cfg1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct hashlimit_cfg1 {
    /// `XT_HASHLIMIT_*` mode bits.
    pub mode: u32,
    /// Average interval between packets, in `1/XT_HASHLIMIT_SCALE` seconds (or the byte
    /// cost in `XT_HASHLIMIT_BYTES` mode).
    pub avg: u32,
    /// Bucket size (`--hashlimit-burst`).
    pub burst: u32,
    /// Number of hash buckets (`--hashlimit-htable-size`), 0 for the default.
    pub size: u32,
    /// Most entries (`--hashlimit-htable-max`), 0 for the default.
    pub max: u32,
    /// Garbage collection interval in milliseconds (`--hashlimit-htable-gcinterval`).
    pub gc_interval: u32,
    /// Idle entry lifetime in milliseconds (`--hashlimit-htable-expire`).
    pub expire: u32,
    /// Prefix length applied to source addresses before hashing (`--hashlimit-srcmask`;
    /// 32 or 128 for whole addresses).
    pub srcmask: u8,
    /// Prefix length applied to destination addresses (`--hashlimit-dstmask`).
    pub dstmask: u8,
}

/// Configuration of hashlimit revision 2 (`struct hashlimit_cfg2`): 64-bit rate fields.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct hashlimit_cfg2 {
    /// Average interval between packets, in `1/XT_HASHLIMIT_SCALE_v2` seconds (or the byte
    /// cost in `XT_HASHLIMIT_BYTES` mode).
    pub avg: u64,
    /// Bucket size (`--hashlimit-burst`).
    pub burst: u64,
    /// `XT_HASHLIMIT_*` mode bits.
    pub mode: u32,
    /// Number of hash buckets (`--hashlimit-htable-size`), 0 for the default.
    pub size: u32,
    /// Most entries (`--hashlimit-htable-max`), 0 for the default.
    pub max: u32,
    /// Garbage collection interval in milliseconds (`--hashlimit-htable-gcinterval`).
    pub gc_interval: u32,
    /// Idle entry lifetime in milliseconds (`--hashlimit-htable-expire`).
    pub expire: u32,
    /// Prefix length applied to source addresses (`--hashlimit-srcmask`).
    pub srcmask: u8,
    /// Prefix length applied to destination addresses (`--hashlimit-dstmask`).
    pub dstmask: u8,
}

/// Configuration of hashlimit revision 3 (`struct hashlimit_cfg3`): revision 2 plus the
/// rate-match interval.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct hashlimit_cfg3 {
    /// Average interval between packets, in `1/XT_HASHLIMIT_SCALE_v2` seconds (or the byte
    /// cost in `XT_HASHLIMIT_BYTES` mode).
    pub avg: u64,
    /// Bucket size (`--hashlimit-burst`).
    pub burst: u64,
    /// `XT_HASHLIMIT_*` mode bits.
    pub mode: u32,
    /// Number of hash buckets (`--hashlimit-htable-size`), 0 for the default.
    pub size: u32,
    /// Most entries (`--hashlimit-htable-max`), 0 for the default.
    pub max: u32,
    /// Garbage collection interval in milliseconds (`--hashlimit-htable-gcinterval`).
    pub gc_interval: u32,
    /// Idle entry lifetime in milliseconds (`--hashlimit-htable-expire`).
    pub expire: u32,
    /// Rate-match measuring interval in seconds (`--hashlimit-rate-interval`, default 1).
    pub interval: u32,
    /// Prefix length applied to source addresses (`--hashlimit-srcmask`).
    pub srcmask: u8,
    /// Prefix length applied to destination addresses (`--hashlimit-dstmask`).
    pub dstmask: u8,
}

/// Info of the `hashlimit` match, revision 1 (`struct xt_hashlimit_mtinfo1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_hashlimit_mtinfo1 {
    /// Hash table name (`--hashlimit-name`), NUL-terminated.
    pub name: [u8; IFNAMSIZ],
    /// The configuration.
    pub cfg: hashlimit_cfg1,
    /// Kernel-private `struct xt_hashlimit_htable *hinfo __attribute__((aligned(8)))`;
    /// send zero.
    pub hinfo: AlignedKernelPtr,
}

/// Info of the `hashlimit` match, revision 2 (`struct xt_hashlimit_mtinfo2`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_hashlimit_mtinfo2 {
    /// Hash table name (`--hashlimit-name`), NUL-terminated.
    pub name: [u8; NAME_MAX],
    /// The configuration.
    pub cfg: hashlimit_cfg2,
    /// Kernel-private `struct xt_hashlimit_htable *hinfo __attribute__((aligned(8)))`;
    /// send zero.
    pub hinfo: AlignedKernelPtr,
}

impl Default for xt_hashlimit_mtinfo2 {
    fn default() -> Self {
        Self {
            name: [0; NAME_MAX],
            cfg: hashlimit_cfg2::default(),
            hinfo: AlignedKernelPtr::default(),
        }
    }
}

/// Info of the `hashlimit` match, revision 3 (`struct xt_hashlimit_mtinfo3`), the one
/// current iptables sends.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_hashlimit_mtinfo3 {
    /// Hash table name (`--hashlimit-name`), NUL-terminated.
    pub name: [u8; NAME_MAX],
    /// The configuration.
    pub cfg: hashlimit_cfg3,
    /// Kernel-private `struct xt_hashlimit_htable *hinfo __attribute__((aligned(8)))`;
    /// send zero.
    pub hinfo: AlignedKernelPtr,
}

impl Default for xt_hashlimit_mtinfo3 {
    fn default() -> Self {
        Self {
            name: [0; NAME_MAX],
            cfg: hashlimit_cfg3::default(),
            hinfo: AlignedKernelPtr::default(),
        }
    }
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
        assert_layout!(hashlimit_cfg, 28, 4);
        assert_layout!(hashlimit_cfg1, 32, 4);
        assert_layout!(xt_hashlimit_mtinfo1, 56, 8);
        assert_layout!(xt_hashlimit_mtinfo2, 304, 8);
        assert_layout!(xt_hashlimit_mtinfo3, 312, 8);
        assert_offset!(xt_hashlimit_mtinfo3, cfg, 256);
        assert_offset!(xt_hashlimit_mtinfo3, hinfo, 304);
        assert_offset!(xt_hashlimit_mtinfo1, hinfo, 48);
        assert_offset!(hashlimit_cfg3, srcmask, 40);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(hashlimit_cfg, 28, 4, 32);
        assert_layout!(hashlimit_cfg1, 32, 4, 32);
        assert_layout!(hashlimit_cfg2, 40, 8, 40);
        assert_layout!(hashlimit_cfg3, 48, 8, 48);
        assert_layout!(xt_hashlimit_info, 64, 8, 64);
        assert_layout!(xt_hashlimit_mtinfo1, 56, 8, 56);
        assert_layout!(xt_hashlimit_mtinfo2, 304, 8, 304);
        assert_layout!(xt_hashlimit_mtinfo3, 312, 8, 312);
        assert_offset!(xt_hashlimit_mtinfo3, cfg, 256);
        assert_offset!(xt_hashlimit_mtinfo3, hinfo, 304);
        assert_offset!(xt_hashlimit_mtinfo1, hinfo, 48);
        assert_offset!(hashlimit_cfg3, srcmask, 40);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(hashlimit_cfg, 28, 4, 28);
        assert_layout!(hashlimit_cfg1, 32, 4, 32);
        assert_layout!(hashlimit_cfg2, 40, 4, 40);
        assert_layout!(hashlimit_cfg3, 44, 4, 44);
        assert_layout!(xt_hashlimit_info, 52, 4, 52);
        assert_layout!(xt_hashlimit_mtinfo1, 56, 8, 56);
        assert_layout!(xt_hashlimit_mtinfo2, 304, 8, 304);
        assert_layout!(xt_hashlimit_mtinfo3, 312, 8, 312);
        assert_offset!(xt_hashlimit_mtinfo3, cfg, 256);
        assert_offset!(xt_hashlimit_mtinfo3, hinfo, 304);
        assert_offset!(xt_hashlimit_mtinfo1, hinfo, 48);
        assert_offset!(hashlimit_cfg3, srcmask, 40);
    }
}
