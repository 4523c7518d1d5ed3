//! `cluster` match (`xt_cluster.h`): a node of a cluster sharing one address
//! (`--cluster-total-nodes`, `--cluster-local-node(mask)`, `--cluster-hash-seed`).

/// The most nodes (`XT_CLUSTER_NODES_MAX`).
pub const XT_CLUSTER_NODES_MAX: u32 = 32;
/// Negate the node test (`XT_CLUSTER_F_INV`).
pub const XT_CLUSTER_F_INV: u32 = 1 << 0;

/// Info of the `cluster` match, revision 0 (`struct xt_cluster_match_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_cluster_match_info {
    /// Nodes in the cluster.
    pub total_nodes: u32,
    /// The local nodes, one bit each (bit 0 is node 1).
    pub node_mask: u32,
    /// Seed of the hash.
    pub hash_seed: u32,
    /// `XT_CLUSTER_F_*` bits.
    pub flags: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof and XT_ALIGN(sizeof) taken from the kernel UAPI headers with gcc 12.2
    // on x86_64.
    #[test]
    fn layout() {
        assert_layout!(xt_cluster_match_info, 16, 4);
        assert_offset!(xt_cluster_match_info, flags, 12);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_cluster_match_info, 16, 4, 16);
    }
}
