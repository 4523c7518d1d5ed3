//! `sctp` match (`xt_sctp.h`): SCTP ports and chunk types (`-p sctp --sport`, `--dport`,
//! `--chunk-types`).

/// `flags`/`invflags`: test the source ports.
pub const XT_SCTP_SRC_PORTS: u32 = 0x01;
/// `flags`/`invflags`: test the destination ports.
pub const XT_SCTP_DEST_PORTS: u32 = 0x02;
/// `flags`/`invflags`: test the chunk types.
pub const XT_SCTP_CHUNK_TYPES: u32 = 0x04;
/// All valid `flags`/`invflags` bits.
pub const XT_SCTP_VALID_FLAGS: u32 = 0x07;

/// `chunk_match_type`: any of the chunk types is present.
pub const SCTP_CHUNK_MATCH_ANY: u32 = 0x01;
/// `chunk_match_type`: all of the chunk types are present.
pub const SCTP_CHUNK_MATCH_ALL: u32 = 0x02;
/// `chunk_match_type`: only these chunk types are present.
pub const SCTP_CHUNK_MATCH_ONLY: u32 = 0x04;

/// Number of entries of `xt_sctp_info.flag_info`.
pub const XT_NUM_SCTP_FLAGS: usize = 4;

/// Number of 32-bit words of `xt_sctp_info.chunkmap` (`256 / sizeof(__u32)`: the header
/// gives it 2048 bits, of which the kernel reads the first 256).
pub const XT_SCTP_CHUNKMAP_WORDS: usize = 64;

/// Flags of one chunk type that must be set or clear (`struct xt_sctp_flag_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_sctp_flag_info {
    /// The chunk type the flags belong to.
    pub chunktype: u8,
    /// The values of the flags in `flag_mask`.
    pub flag: u8,
    /// The flags tested.
    pub flag_mask: u8,
}

/// Info of the `sctp` match, revision 0 (`struct xt_sctp_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_sctp_info {
    /// Smallest and largest destination port.
    pub dpts: [u16; 2],
    /// Smallest and largest source port.
    pub spts: [u16; 2],
    /// Bit `t % 32` of word `t / 32` set for each chunk type `t` tested.
    pub chunkmap: [u32; XT_SCTP_CHUNKMAP_WORDS],
    /// `SCTP_CHUNK_MATCH_*`.
    pub chunk_match_type: u32,
    /// Flag tests of chunk types.
    pub flag_info: [xt_sctp_flag_info; XT_NUM_SCTP_FLAGS],
    /// Number of `flag_info` entries in use.
    pub flag_count: i32,
    /// `XT_SCTP_*` tests made.
    pub flags: u32,
    /// `XT_SCTP_*` tests negated.
    pub invflags: u32,
}

impl Default for xt_sctp_info {
    fn default() -> Self {
        xt_sctp_info {
            dpts: [0; 2],
            spts: [0; 2],
            chunkmap: [0; XT_SCTP_CHUNKMAP_WORDS],
            chunk_match_type: 0,
            flag_info: [xt_sctp_flag_info::default(); XT_NUM_SCTP_FLAGS],
            flag_count: 0,
            flags: 0,
            invflags: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_sctp_flag_info, 3, 1);
        assert_layout!(xt_sctp_info, 292, 4);
        assert_offset!(xt_sctp_info, spts, 4);
        assert_offset!(xt_sctp_info, chunkmap, 8);
        assert_offset!(xt_sctp_info, chunk_match_type, 264);
        assert_offset!(xt_sctp_info, flag_info, 268);
        assert_offset!(xt_sctp_info, flag_count, 280);
        assert_offset!(xt_sctp_info, flags, 284);
        assert_offset!(xt_sctp_info, invflags, 288);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_sctp_info, 292, 4, 296);
    }
}
