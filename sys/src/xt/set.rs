//! `set` match and `SET` target (`xt_set.h`, with the values of `ipset/ip_set.h`): test
//! packets against ipset sets (`-m set --match-set name src,dst`) and add or delete entries
//! (`-j SET --add-set`/`--del-set`/`--map-set`), plus the `SO_IP_SET` getsockopt structs
//! that resolve a set name to the kernel index the infos carry.

/// Kernel index of an ipset set (`ip_set_id_t`).
#[allow(non_camel_case_types)]
pub type ip_set_id_t = u16;

/// The "no set" index (`IPSET_INVALID_ID`): an unused `add_set`/`del_set`/`map_set` slot of a
/// `SET` target.
pub const IPSET_INVALID_ID: ip_set_id_t = 65535;
/// Longest set or type name, including the NUL.
pub const IPSET_MAXNAMELEN: usize = 32;
/// ipset protocol version this header describes.
pub const IPSET_PROTOCOL: u32 = 7;
/// Oldest ipset protocol version the kernel still accepts.
pub const IPSET_PROTOCOL_MIN: u32 = 6;

// enum ip_set_dim

/// Dimension 0 (no dimension; its bit is `IPSET_INV_MATCH`).
pub const IPSET_DIM_ZERO: u8 = 0;
/// First dimension.
pub const IPSET_DIM_ONE: u8 = 1;
/// Second dimension.
pub const IPSET_DIM_TWO: u8 = 2;
/// Third dimension.
pub const IPSET_DIM_THREE: u8 = 3;
/// Most dimensions a match or target can give (`src,dst,…` flags).
pub const IPSET_DIM_MAX: u8 = 6;
/// Bit number of `IPSET_RETURN_NOMATCH` (backward compatibility with set match revision 2).
pub const IPSET_BIT_RETURN_NOMATCH: u8 = 7;

// enum ip_set_kopt: the `flags` byte of struct xt_set_info

/// `xt_set_info.flags`: negate the match (`! --match-set`).
pub const IPSET_INV_MATCH: u8 = 1 << IPSET_DIM_ZERO;
/// `xt_set_info.flags`: take dimension 1 from the source (`src`); clear means `dst`.
pub const IPSET_DIM_ONE_SRC: u8 = 1 << IPSET_DIM_ONE;
/// `xt_set_info.flags`: take dimension 2 from the source.
pub const IPSET_DIM_TWO_SRC: u8 = 1 << IPSET_DIM_TWO;
/// `xt_set_info.flags`: take dimension 3 from the source.
pub const IPSET_DIM_THREE_SRC: u8 = 1 << IPSET_DIM_THREE;
/// `xt_set_info.flags`: `--return-nomatch` (set match revision 2).
pub const IPSET_RETURN_NOMATCH: u8 = 1 << IPSET_BIT_RETURN_NOMATCH;

// Revision 0 option flags, one u32 per dimension in xt_set_info_v0

/// Revision 0 per-dimension flag: source (`src`).
pub const IPSET_SRC: u32 = 0x01;
/// Revision 0 per-dimension flag: destination (`dst`).
pub const IPSET_DST: u32 = 0x02;
/// Revision 0 flag: negate the match.
pub const IPSET_MATCH_INV: u32 = 0x04;

// enum ipset_cmd_flags: the `flags` of SET target v2+ and set match v3+

/// `flags`: do not fail when the entry exists / is missing (`SET --exist`).
pub const IPSET_FLAG_EXIST: u32 = 1 << 0;
/// Command flag: list set names only.
pub const IPSET_FLAG_LIST_SETNAME: u32 = 1 << 1;
/// Command flag: list set headers only.
pub const IPSET_FLAG_LIST_HEADER: u32 = 1 << 2;
/// `flags`: do not update the counters of the matched entry (`! --update-counters`).
pub const IPSET_FLAG_SKIP_COUNTER_UPDATE: u32 = 1 << 3;
/// `flags`: do not update the counters of the member set of a list:set
/// (`! --update-subcounters`).
pub const IPSET_FLAG_SKIP_SUBCOUNTER_UPDATE: u32 = 1 << 4;
/// `flags`: compare the packet/byte counters (`--packets-*`, `--bytes-*`).
pub const IPSET_FLAG_MATCH_COUNTERS: u32 = 1 << 5;
/// `flags`: a `nomatch` entry makes the match succeed (`--return-nomatch`).
pub const IPSET_FLAG_RETURN_NOMATCH: u32 = 1 << 7;
/// `flags` of `SET --map-set`: map the entry's skbmark (`--map-mark`).
pub const IPSET_FLAG_MAP_SKBMARK: u32 = 1 << 8;
/// `flags` of `SET --map-set`: map the entry's skbprio (`--map-prio`).
pub const IPSET_FLAG_MAP_SKBPRIO: u32 = 1 << 9;
/// `flags` of `SET --map-set`: map the entry's skbqueue (`--map-queue`).
pub const IPSET_FLAG_MAP_SKBQUEUE: u32 = 1 << 10;
/// Highest command flag bit number.
pub const IPSET_FLAG_CMD_MAX: u32 = 15;

// counter comparison operators

/// Counter test: none.
pub const IPSET_COUNTER_NONE: u8 = 0;
/// Counter test: equal (`--packets-eq`, `--bytes-eq`).
pub const IPSET_COUNTER_EQ: u8 = 1;
/// Counter test: not equal (`! --packets-eq`).
pub const IPSET_COUNTER_NE: u8 = 2;
/// Counter test: less than (`--packets-lt`).
pub const IPSET_COUNTER_LT: u8 = 3;
/// Counter test: greater than (`--packets-gt`).
pub const IPSET_COUNTER_GT: u8 = 4;

// SO_IP_SET getsockopt interface

/// getsockopt option (level `SOL_IP`) of the ipset request interface.
pub const SO_IP_SET: i32 = 83;
/// `SO_IP_SET` op: get a set's index by name ([`ip_set_req_get_set`]).
pub const IP_SET_OP_GET_BYNAME: u32 = 0x0000_0006;
/// `SO_IP_SET` op: get a set's name by index ([`ip_set_req_get_set`]).
pub const IP_SET_OP_GET_BYINDEX: u32 = 0x0000_0007;
/// `SO_IP_SET` op: get a set's index and family by name ([`ip_set_req_get_set_family`]).
pub const IP_SET_OP_GET_FNAME: u32 = 0x0000_0008;
/// `SO_IP_SET` op: ask the kernel's protocol version ([`ip_set_req_version`]).
pub const IP_SET_OP_VERSION: u32 = 0x0000_0100;

bitflags::bitflags! {
    /// `flags` byte of [`xt_set_info`]: negation and, per dimension, source or destination
    /// (the `IPSET_INV_MATCH`/`IPSET_DIM_*_SRC` bits; dimensions 4 to 6 use bits 4 to 6, keep
    /// them with `from_bits_retain`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetInfoFlags: u8 {
        /// `IPSET_INV_MATCH`.
        const INV_MATCH = IPSET_INV_MATCH;
        /// `IPSET_DIM_ONE_SRC`.
        const DIM_ONE_SRC = IPSET_DIM_ONE_SRC;
        /// `IPSET_DIM_TWO_SRC`.
        const DIM_TWO_SRC = IPSET_DIM_TWO_SRC;
        /// `IPSET_DIM_THREE_SRC`.
        const DIM_THREE_SRC = IPSET_DIM_THREE_SRC;
        /// `IPSET_RETURN_NOMATCH`.
        const RETURN_NOMATCH = IPSET_RETURN_NOMATCH;
    }
}

bitflags::bitflags! {
    /// `flags` word of the set match (v3, v4) and SET target (v2, v3): the
    /// `IPSET_FLAG_*` command flags they use.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetCmdFlags: u32 {
        /// `IPSET_FLAG_EXIST`.
        const EXIST = IPSET_FLAG_EXIST;
        /// `IPSET_FLAG_SKIP_COUNTER_UPDATE`.
        const SKIP_COUNTER_UPDATE = IPSET_FLAG_SKIP_COUNTER_UPDATE;
        /// `IPSET_FLAG_SKIP_SUBCOUNTER_UPDATE`.
        const SKIP_SUBCOUNTER_UPDATE = IPSET_FLAG_SKIP_SUBCOUNTER_UPDATE;
        /// `IPSET_FLAG_MATCH_COUNTERS`.
        const MATCH_COUNTERS = IPSET_FLAG_MATCH_COUNTERS;
        /// `IPSET_FLAG_RETURN_NOMATCH`.
        const RETURN_NOMATCH = IPSET_FLAG_RETURN_NOMATCH;
        /// `IPSET_FLAG_MAP_SKBMARK`.
        const MAP_SKBMARK = IPSET_FLAG_MAP_SKBMARK;
        /// `IPSET_FLAG_MAP_SKBPRIO`.
        const MAP_SKBPRIO = IPSET_FLAG_MAP_SKBPRIO;
        /// `IPSET_FLAG_MAP_SKBQUEUE`.
        const MAP_SKBQUEUE = IPSET_FLAG_MAP_SKBQUEUE;
    }
}

/// A counter comparison of set match revision 3 (`struct ip_set_counter_match0`): the
/// `value` is naturally aligned (4-aligned on i386).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip_set_counter_match0 {
    /// Operator: `IPSET_COUNTER_*`.
    pub op: u8,
    /// Packets or bytes to compare with.
    pub value: u64,
}

/// A counter comparison of set match revision 4 (`struct ip_set_counter_match`): `value`
/// is an `__aligned_u64`, 8-aligned on every target.
#[allow(non_camel_case_types)]
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip_set_counter_match {
    /// Packets or bytes to compare with.
    pub value: u64,
    /// Operator: `IPSET_COUNTER_*`.
    pub op: u8,
}

/// A set reference of revision 0 (`struct xt_set_info_v0`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_v0 {
    /// Kernel index of the set.
    pub index: ip_set_id_t,
    /// The C `union { __u32 flags[IPSET_DIM_MAX + 1]; struct { __u32 __flags[IPSET_DIM_MAX];
    /// __u8 dim; __u8 flags; } compat; } u` as its `flags` view: `IPSET_SRC`/`IPSET_DST`
    /// per dimension, ended by a 0 entry. The kernel rewrites it into the `compat` view (the
    /// `dim` and `flags` bytes overlay the start of `u[6]`).
    pub u: [u32; IPSET_DIM_MAX as usize + 1],
}

/// Info of the `set` match, revision 0 (`struct xt_set_info_match_v0`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_match_v0 {
    /// The set to test.
    pub match_set: xt_set_info_v0,
}

/// Info of the `SET` target, revision 0 (`struct xt_set_info_target_v0`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_target_v0 {
    /// Set to add the packet to (`--add-set`), index `IPSET_INVALID_ID` for none.
    pub add_set: xt_set_info_v0,
    /// Set to delete the packet from (`--del-set`), index `IPSET_INVALID_ID` for none.
    pub del_set: xt_set_info_v0,
}

/// A set reference of revision 1 and later (`struct xt_set_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info {
    /// Kernel index of the set (`IPSET_INVALID_ID` for an unused target slot).
    pub index: ip_set_id_t,
    /// Number of dimensions given (`src,dst` is 2), at most `IPSET_DIM_MAX`.
    pub dim: u8,
    /// `IPSET_INV_MATCH`, and `1 << n` when dimension `n` is `src` (`IPSET_DIM_*_SRC`).
    pub flags: u8,
}

/// Info of the `set` match, revision 1 and 2 (`struct xt_set_info_match_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_match_v1 {
    /// The set to test.
    pub match_set: xt_set_info,
}

/// Info of the `SET` target, revision 1 (`struct xt_set_info_target_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_target_v1 {
    /// Set to add the packet to (`--add-set`).
    pub add_set: xt_set_info,
    /// Set to delete the packet from (`--del-set`).
    pub del_set: xt_set_info,
}

/// Info of the `SET` target, revision 2 (`struct xt_set_info_target_v2`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_target_v2 {
    /// Set to add the packet to (`--add-set`).
    pub add_set: xt_set_info,
    /// Set to delete the packet from (`--del-set`).
    pub del_set: xt_set_info,
    /// `IPSET_FLAG_EXIST` (`--exist`).
    pub flags: u32,
    /// Timeout in seconds of added entries (`--timeout`), 0 for the set's default.
    pub timeout: u32,
}

/// Info of the `set` match, revision 3 (`struct xt_set_info_match_v3`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_match_v3 {
    /// The set to test.
    pub match_set: xt_set_info,
    /// Packet counter test (`--packets-eq`, `--packets-lt`, `--packets-gt`).
    pub packets: ip_set_counter_match0,
    /// Byte counter test (`--bytes-eq`, `--bytes-lt`, `--bytes-gt`).
    pub bytes: ip_set_counter_match0,
    /// `IPSET_FLAG_RETURN_NOMATCH`, `_SKIP_COUNTER_UPDATE`, `_SKIP_SUBCOUNTER_UPDATE`,
    /// `_MATCH_COUNTERS`.
    pub flags: u32,
}

/// Info of the `set` match, revision 4 (`struct xt_set_info_match_v4`): revision 3 with
/// 8-aligned counters.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_match_v4 {
    /// The set to test.
    pub match_set: xt_set_info,
    /// Packet counter test (`--packets-eq`, `--packets-lt`, `--packets-gt`).
    pub packets: ip_set_counter_match,
    /// Byte counter test (`--bytes-eq`, `--bytes-lt`, `--bytes-gt`).
    pub bytes: ip_set_counter_match,
    /// `IPSET_FLAG_RETURN_NOMATCH`, `_SKIP_COUNTER_UPDATE`, `_SKIP_SUBCOUNTER_UPDATE`,
    /// `_MATCH_COUNTERS`.
    pub flags: u32,
}

/// Info of the `SET` target, revision 3 (`struct xt_set_info_target_v3`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_set_info_target_v3 {
    /// Set to add the packet to (`--add-set`).
    pub add_set: xt_set_info,
    /// Set to delete the packet from (`--del-set`).
    pub del_set: xt_set_info,
    /// Set whose entry's extensions are mapped onto the packet (`--map-set`).
    pub map_set: xt_set_info,
    /// `IPSET_FLAG_EXIST` and `IPSET_FLAG_MAP_SKB*`.
    pub flags: u32,
    /// Timeout in seconds of added entries (`--timeout`), 0 for the set's default.
    pub timeout: u32,
}

/// A set name or index (`union ip_set_name_index`): 32 bytes, 2-aligned. The C union's
/// `__u16 index` view overlays the first two bytes of `name` in native byte order
/// (`u16::from_ne_bytes([name[0], name[1]])`).
#[allow(non_camel_case_types)]
#[repr(C, align(2))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip_set_name_index {
    /// Set name, NUL-terminated (or the index, see above).
    pub name: [u8; IPSET_MAXNAMELEN],
}

/// `SO_IP_SET` request for `IP_SET_OP_GET_BYNAME` and `IP_SET_OP_GET_BYINDEX`
/// (`struct ip_set_req_get_set`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip_set_req_get_set {
    /// `IP_SET_OP_GET_BYNAME` or `IP_SET_OP_GET_BYINDEX`.
    pub op: u32,
    /// Protocol version (`IPSET_PROTOCOL`, or what `IP_SET_OP_VERSION` returned).
    pub version: u32,
    /// In: the name (by name) or index (by index); out: the other one.
    pub set: ip_set_name_index,
}

/// `SO_IP_SET` request for `IP_SET_OP_GET_FNAME` (`struct ip_set_req_get_set_family`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip_set_req_get_set_family {
    /// `IP_SET_OP_GET_FNAME`.
    pub op: u32,
    /// Protocol version.
    pub version: u32,
    /// Out: the set's family (`NFPROTO_IPV4`, `NFPROTO_IPV6`, or `NFPROTO_UNSPEC`).
    pub family: u32,
    /// In: the name; out: the index.
    pub set: ip_set_name_index,
}

/// `SO_IP_SET` request for `IP_SET_OP_VERSION` (`struct ip_set_req_version`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip_set_req_version {
    /// `IP_SET_OP_VERSION`.
    pub op: u32,
    /// Out: the kernel's ipset protocol version.
    pub version: u32,
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
        assert_layout!(ip_set_counter_match, 16, 8);
        assert_layout!(xt_set_info_v0, 32, 4);
        assert_layout!(xt_set_info_match_v0, 32, 4);
        assert_layout!(xt_set_info_target_v0, 64, 4);
        assert_layout!(xt_set_info, 4, 2);
        assert_layout!(xt_set_info_match_v1, 4, 2);
        assert_layout!(xt_set_info_target_v1, 8, 2);
        assert_layout!(xt_set_info_target_v2, 16, 4);
        assert_layout!(xt_set_info_target_v3, 20, 4);
        assert_layout!(xt_set_info_match_v4, 48, 8);
        assert_layout!(ip_set_name_index, 32, 2);
        assert_layout!(ip_set_req_get_set, 40, 4);
        assert_layout!(ip_set_req_get_set_family, 44, 4);
        assert_layout!(ip_set_req_version, 8, 4);
        assert_offset!(xt_set_info_match_v4, packets, 8);
        assert_offset!(xt_set_info_match_v4, flags, 40);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ip_set_counter_match0, 16, 8, 16);
        assert_layout!(ip_set_counter_match, 16, 8, 16);
        assert_layout!(xt_set_info_v0, 32, 4, 32);
        assert_layout!(xt_set_info_match_v0, 32, 4, 32);
        assert_layout!(xt_set_info_target_v0, 64, 4, 64);
        assert_layout!(xt_set_info, 4, 2, 8);
        assert_layout!(xt_set_info_match_v1, 4, 2, 8);
        assert_layout!(xt_set_info_target_v1, 8, 2, 8);
        assert_layout!(xt_set_info_target_v2, 16, 4, 16);
        assert_layout!(xt_set_info_match_v3, 48, 8, 48);
        assert_layout!(xt_set_info_target_v3, 20, 4, 24);
        assert_layout!(xt_set_info_match_v4, 48, 8, 48);
        assert_layout!(ip_set_name_index, 32, 2, 32);
        assert_layout!(ip_set_req_get_set, 40, 4, 40);
        assert_layout!(ip_set_req_get_set_family, 44, 4, 48);
        assert_layout!(ip_set_req_version, 8, 4, 8);
        assert_offset!(ip_set_counter_match0, value, 8);
        assert_offset!(xt_set_info_match_v3, packets, 8);
        assert_offset!(xt_set_info_match_v3, flags, 40);
        assert_offset!(xt_set_info_match_v4, packets, 8);
        assert_offset!(xt_set_info_match_v4, flags, 40);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(ip_set_counter_match0, 12, 4, 12);
        assert_layout!(ip_set_counter_match, 16, 8, 16);
        assert_layout!(xt_set_info_v0, 32, 4, 32);
        assert_layout!(xt_set_info_match_v0, 32, 4, 32);
        assert_layout!(xt_set_info_target_v0, 64, 4, 64);
        assert_layout!(xt_set_info, 4, 2, 4);
        assert_layout!(xt_set_info_match_v1, 4, 2, 4);
        assert_layout!(xt_set_info_target_v1, 8, 2, 8);
        assert_layout!(xt_set_info_target_v2, 16, 4, 16);
        assert_layout!(xt_set_info_match_v3, 32, 4, 32);
        assert_layout!(xt_set_info_target_v3, 20, 4, 20);
        assert_layout!(xt_set_info_match_v4, 48, 8, 48);
        assert_layout!(ip_set_name_index, 32, 2, 32);
        assert_layout!(ip_set_req_get_set, 40, 4, 40);
        assert_layout!(ip_set_req_get_set_family, 44, 4, 44);
        assert_layout!(ip_set_req_version, 8, 4, 8);
        assert_offset!(ip_set_counter_match0, value, 4);
        assert_offset!(xt_set_info_match_v3, packets, 4);
        assert_offset!(xt_set_info_match_v3, flags, 28);
        assert_offset!(xt_set_info_match_v4, packets, 8);
        assert_offset!(xt_set_info_match_v4, flags, 40);
    }
}
