//! `CLUSTERIP` target (IPv4, `ipt_CLUSTERIP.h`): share an address among the nodes of a
//! cluster by a hash of the packet (`--new`, `--hashmode`, `--clustermac`, `--total-nodes`,
//! `--local-node`, `--hash-init`). Kernels since 6.1 no longer have it.

use super::x_tables::ETH_ALEN;

/// [`ipt_clusterip_tgt_info::hash_mode`]: hash the source address.
pub const CLUSTERIP_HASHMODE_SIP: u32 = 0;
/// [`ipt_clusterip_tgt_info::hash_mode`]: hash the source address and port.
pub const CLUSTERIP_HASHMODE_SIP_SPT: u32 = 1;
/// [`ipt_clusterip_tgt_info::hash_mode`]: hash the source address and both ports.
pub const CLUSTERIP_HASHMODE_SIP_SPT_DPT: u32 = 2;
/// Most nodes of a cluster (`CLUSTERIP_MAX_NODES`).
pub const CLUSTERIP_MAX_NODES: usize = 16;
/// [`ipt_clusterip_tgt_info::flags`]: the rule creates the cluster (`CLUSTERIP_FLAG_NEW`).
pub const CLUSTERIP_FLAG_NEW: u32 = 0x0000_0001;

/// Info of the `CLUSTERIP` target, revision 0 (`struct ipt_clusterip_tgt_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_clusterip_tgt_info {
    /// [`CLUSTERIP_FLAG_NEW`] or 0.
    pub flags: u32,
    /// The cluster's multicast MAC address (`--clustermac`).
    pub clustermac: [u8; ETH_ALEN],
    /// Nodes in the cluster (`--total-nodes`).
    pub num_total_nodes: u16,
    /// How many of `local_nodes` are set (1 with `--local-node`).
    pub num_local_nodes: u16,
    /// The local node numbers (`--local-node` sets the first).
    pub local_nodes: [u16; CLUSTERIP_MAX_NODES],
    /// `CLUSTERIP_HASHMODE_*` (`--hashmode`).
    pub hash_mode: u32,
    /// Initial value of the hash (`--hash-init`).
    pub hash_initval: u32,
    /// Kernel-private `struct clusterip_config *config`; send zero.
    pub config: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(ipt_clusterip_tgt_info, 64, 8, 64);
        assert_offset!(ipt_clusterip_tgt_info, clustermac, 4);
        assert_offset!(ipt_clusterip_tgt_info, num_total_nodes, 10);
        assert_offset!(ipt_clusterip_tgt_info, num_local_nodes, 12);
        assert_offset!(ipt_clusterip_tgt_info, local_nodes, 14);
        assert_offset!(ipt_clusterip_tgt_info, hash_mode, 48);
        assert_offset!(ipt_clusterip_tgt_info, hash_initval, 52);
        assert_offset!(ipt_clusterip_tgt_info, config, 56);
    }
}
