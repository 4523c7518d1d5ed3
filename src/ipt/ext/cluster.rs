//! `cluster`: whether the packet belongs to a local node of a cluster that shares one
//! address (`--cluster-total-nodes N`, `[!] --cluster-local-node n` or
//! `[!] --cluster-local-nodemask mask`, `--cluster-hash-seed seed`). A local node is saved
//! as its node mask, as iptables saves it.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `cluster` match, rev 0,
//! `xt_cluster_match_info`.

use std::mem::size_of;

use iptnl_sys::xt::{xt_cluster_match_info, XT_CLUSTER_F_INV, XT_CLUSTER_NODES_MAX};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

const NODES: Ty = Ty::Uint {
    min: 1,
    max: XT_CLUSTER_NODES_MAX as u64,
};

/// The `cluster` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "cluster",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("cluster-total-nodes", NODES).mand(),
        Opt::new("cluster-local-node", NODES)
            .inv()
            .excl(&["cluster-local-nodemask"]),
        Opt::new("cluster-local-nodemask", NODES)
            .inv()
            .excl(&["cluster-local-node"]),
        Opt::new("cluster-hash-seed", U32).mand(),
    ]),
    new: |_| Box::new(Cluster::default()),
    xt_names: &["cluster"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m cluster`, as in `struct xt_cluster_match_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cluster {
    /// Nodes in the cluster.
    pub total_nodes: u32,
    /// The local nodes, one bit each.
    pub node_mask: u32,
    /// Seed of the hash.
    pub hash_seed: u32,
    /// `XT_CLUSTER_F_*` bits.
    pub flags: u32,
}

/// `struct xt_cluster_match_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Cluster> = XtStruct::new(
    "xt_cluster_match_info",
    size_of::<xt_cluster_match_info>(),
    0,
    &[
        xt_field!(xt_cluster_match_info, total_nodes: U32 => total_nodes),
        xt_field!(xt_cluster_match_info, node_mask: U32 => node_mask),
        xt_field!(xt_cluster_match_info, hash_seed: U32 => hash_seed),
        xt_field!(xt_cluster_match_info, flags: U32 => flags),
    ],
);

impl Extension for Cluster {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let v = val.uint() as u32;
        match opt.name {
            "cluster-total-nodes" => self.total_nodes = v,
            "cluster-hash-seed" => self.hash_seed = v,
            local => {
                self.node_mask = if local == "cluster-local-node" {
                    1 << (v - 1)
                } else {
                    v
                };
                if inv {
                    self.flags |= XT_CLUSTER_F_INV;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        let g = |n| ctx.given.has(n);
        let too_big = u64::from(self.node_mask) >= 1u64 << self.total_nodes;
        if g("cluster-total-nodes") && g("cluster-hash-seed") {
            if g("cluster-local-node") {
                if too_big {
                    return Err(ParseError::Invalid(
                        "cluster match: `--cluster-local-node' must be <= `--cluster-total-nodes'"
                            .into(),
                    ));
                }
                return Ok(());
            }
            if g("cluster-local-nodemask") {
                if too_big {
                    return Err(ParseError::Invalid(
                        "cluster match: `--cluster-local-nodemask' too big for `--cluster-total-nodes'"
                            .into(),
                    ));
                }
                return Ok(());
            }
        }
        if !g("cluster-local-node") && !g("cluster-local-nodemask") {
            return Err(ParseError::Invalid(
                "cluster match: `--cluster-local-node' or`--cluster-local-nodemask' is missing"
                    .into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("cluster", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.flags & XT_CLUSTER_F_INV != 0 {
            out.push_str(" !");
        }
        out.push_str(&format!(
            " --cluster-local-nodemask 0x{:08x} --cluster-total-nodes {} --cluster-hash-seed 0x{:08x}",
            self.node_mask, self.total_nodes, self.hash_seed
        ));
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" cluster ");
        if self.flags & XT_CLUSTER_F_INV != 0 {
            out.push('!');
        }
        out.push_str(&format!(
            "node_mask=0x{:08x} total_nodes={} hash_seed=0x{:08x}",
            self.node_mask, self.total_nodes, self.hash_seed
        ));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    // Save prints what restore can read back: a node count and a mask iptables accepts
    // (`--cluster-local-nodemask` takes 1-32; a local node above 6 gives a larger mask,
    // whose save text iptables-restore refuses, so such a rule is carried whole).
    let ok = (1..=XT_CLUSTER_NODES_MAX).contains(&c.total_nodes)
        && (1..=XT_CLUSTER_NODES_MAX).contains(&c.node_mask)
        && u64::from(c.node_mask) < 1u64 << c.total_nodes
        && c.flags & !XT_CLUSTER_F_INV == 0;
    ok.then(|| Box::new(c) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn nodes() {
        assert_eq!(
            round("-m cluster --cluster-total-nodes 2 --cluster-local-node 2 --cluster-hash-seed 0xfeedcafe")
                .unwrap(),
            "-m cluster --cluster-local-nodemask 0x00000002 --cluster-total-nodes 2 --cluster-hash-seed 0xfeedcafe"
        );
        assert_eq!(
            round("-m cluster --cluster-total-nodes 4 ! --cluster-local-nodemask 5 --cluster-hash-seed 1")
                .unwrap(),
            "-m cluster ! --cluster-local-nodemask 0x00000005 --cluster-total-nodes 4 --cluster-hash-seed 0x00000001"
        );
        assert_eq!(
            round(
                "-m cluster --cluster-total-nodes 2 --cluster-local-node 3 --cluster-hash-seed 1"
            )
            .unwrap_err(),
            "cluster match: `--cluster-local-node' must be <= `--cluster-total-nodes'"
        );
        assert_eq!(
            round("-m cluster --cluster-total-nodes 2 --cluster-local-nodemask 4 --cluster-hash-seed 1")
                .unwrap_err(),
            "cluster match: `--cluster-local-nodemask' too big for `--cluster-total-nodes'"
        );
        assert_eq!(
            round("-m cluster --cluster-total-nodes 3").unwrap_err(),
            "cluster match: `--cluster-local-node' or`--cluster-local-nodemask' is missing"
        );
        assert!(round("-m cluster --cluster-total-nodes 2 --cluster-local-node 2").is_err());
        assert!(round(
            "-m cluster --cluster-total-nodes 33 --cluster-local-node 2 --cluster-hash-seed 1"
        )
        .is_err());
        assert!(round("-m cluster --cluster-total-nodes 2 --cluster-local-node 1 --cluster-local-nodemask 1 --cluster-hash-seed 1").is_err());
    }
}
