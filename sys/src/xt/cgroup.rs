//! `cgroup` match (`xt_cgroup.h`): the control group of the sending socket
//! (`--cgroup classid`, `--path path`).

use super::x_tables::{AlignedKernelPtr, PATH_MAX};

/// Size of the path buffer of revision 2.
pub const XT_CGROUP_PATH_MAX: usize = 512;

/// Info of the `cgroup` match, revision 0 (`struct xt_cgroup_info_v0`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_cgroup_info_v0 {
    /// net_cls class ID (`--cgroup`).
    pub id: u32,
    /// Nonzero to negate the match.
    pub invert: u32,
}

/// Info of the `cgroup` match, revision 1 (`struct xt_cgroup_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_cgroup_info_v1 {
    /// Nonzero when `path` is given (`--path`).
    pub has_path: u8,
    /// Nonzero when `classid` is given (`--cgroup`).
    pub has_classid: u8,
    /// Nonzero to negate the path test.
    pub invert_path: u8,
    /// Nonzero to negate the class ID test.
    pub invert_classid: u8,
    /// cgroup2 path, relative to the cgroup2 root, NUL-terminated.
    pub path: [u8; PATH_MAX],
    /// net_cls class ID.
    pub classid: u32,
    /// Kernel-private `void *priv __attribute__((aligned(8)))`; send zero.
    pub r#priv: AlignedKernelPtr,
}

impl Default for xt_cgroup_info_v1 {
    fn default() -> Self {
        Self {
            has_path: 0,
            has_classid: 0,
            invert_path: 0,
            invert_classid: 0,
            path: [0; PATH_MAX],
            classid: 0,
            r#priv: AlignedKernelPtr::default(),
        }
    }
}

/// Info of the `cgroup` match, revision 2 (`struct xt_cgroup_info_v2`): revision 1 with a
/// shorter path that shares its storage with the class ID.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_cgroup_info_v2 {
    /// Nonzero when `path` is given (`--path`).
    pub has_path: u8,
    /// Nonzero when the class ID is given (`--cgroup`).
    pub has_classid: u8,
    /// Nonzero to negate the path test.
    pub invert_path: u8,
    /// Nonzero to negate the class ID test.
    pub invert_classid: u8,
    /// The C `union { char path[XT_CGROUP_PATH_MAX]; __u32 classid; }`: the cgroup2 path,
    /// NUL-terminated, or, with `has_classid`, the net_cls class ID in its first four bytes
    /// in native byte order (`u32::to_ne_bytes`).
    pub path: [u8; XT_CGROUP_PATH_MAX],
    /// Kernel-private `void *priv __attribute__((aligned(8)))`; send zero.
    pub r#priv: AlignedKernelPtr,
}

impl Default for xt_cgroup_info_v2 {
    fn default() -> Self {
        Self {
            has_path: 0,
            has_classid: 0,
            invert_path: 0,
            invert_classid: 0,
            path: [0; XT_CGROUP_PATH_MAX],
            r#priv: AlignedKernelPtr::default(),
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
        assert_layout!(xt_cgroup_info_v0, 8, 4);
        assert_layout!(xt_cgroup_info_v1, 4112, 8);
        assert_layout!(xt_cgroup_info_v2, 528, 8);
        assert_offset!(xt_cgroup_info_v1, classid, 4100);
        assert_offset!(xt_cgroup_info_v1, r#priv, 4104);
        assert_offset!(xt_cgroup_info_v2, r#priv, 520);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_cgroup_info_v0, 8, 4, 8);
        assert_layout!(xt_cgroup_info_v1, 4112, 8, 4112);
        assert_layout!(xt_cgroup_info_v2, 528, 8, 528);
        assert_offset!(xt_cgroup_info_v1, classid, 4100);
        assert_offset!(xt_cgroup_info_v1, r#priv, 4104);
        assert_offset!(xt_cgroup_info_v2, r#priv, 520);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_cgroup_info_v0, 8, 4, 8);
        assert_layout!(xt_cgroup_info_v1, 4112, 8, 4112);
        assert_layout!(xt_cgroup_info_v2, 528, 8, 528);
        assert_offset!(xt_cgroup_info_v1, classid, 4100);
        assert_offset!(xt_cgroup_info_v1, r#priv, 4104);
        assert_offset!(xt_cgroup_info_v2, r#priv, 520);
    }
}
