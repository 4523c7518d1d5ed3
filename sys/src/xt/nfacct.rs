//! `nfacct` match (`xt_nfacct.h`): counts the packet in a named extended accounting object
//! (`--nfacct-name`).

use super::x_tables::AlignedKernelPtr;

/// Size of the name buffer (`NFACCT_NAME_MAX`).
pub const NFACCT_NAME_MAX: usize = 32;

/// Info of the `nfacct` match, revision 1 (`struct xt_nfacct_match_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_nfacct_match_info_v1 {
    /// The object's name, NUL-terminated.
    pub name: [u8; NFACCT_NAME_MAX],
    /// Kernel-private `struct nf_acct *nfacct __attribute__((aligned(8)))`; send zero.
    pub nfacct: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the kernel UAPI headers with gcc 12.2
    // on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_nfacct_match_info_v1, 40, 8, 40);
        assert_offset!(xt_nfacct_match_info_v1, nfacct, 32);
    }
}
