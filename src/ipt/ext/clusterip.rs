//! `CLUSTERIP`: share an IPv4 address among the nodes of a cluster, each answering the
//! packets whose hash falls on it (IPv4 only, `libipt_CLUSTERIP.c`).
//!
//! Encoding (iptables 1.8.9): the x_tables `CLUSTERIP` target, rev 0,
//! `ipt_clusterip_tgt_info` (64 bytes): with `--new`, the flag, the multicast MAC, the node
//! count, one local node, the hash mode and seed; without options an empty info (a rule that
//! joins a cluster another rule created). Options other than `--new` need it, and a new
//! cluster needs all of `--hashmode`, `--clustermac`, `--total-nodes` and `--local-node`. The
//! kernel's pointer is sent as zero and not compared. Kernels since 6.1 have no CLUSTERIP
//! and refuse the rule.

use std::mem::size_of;

use iptnl_sys::xt::{
    ipt_clusterip_tgt_info, CLUSTERIP_FLAG_NEW, CLUSTERIP_HASHMODE_SIP, CLUSTERIP_HASHMODE_SIP_SPT,
    CLUSTERIP_HASHMODE_SIP_SPT_DPT, CLUSTERIP_MAX_NODES, ETH_ALEN,
};

use super::base::libxt::parse_mac;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

const NODE: Ty = Ty::Uint {
    min: 0,
    max: CLUSTERIP_MAX_NODES as u64,
};

/// `-j CLUSTERIP`.
pub static DESC: ExtDesc = ExtDesc {
    name: "CLUSTERIP",
    kind: ExtKind::Target,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([
        Opt::flag("new"),
        Opt::new("hashmode", STR).also(&["new"]),
        Opt::custom("clustermac").also(&["new"]),
        Opt::new("total-nodes", NODE).also(&["new"]),
        Opt::new("local-node", NODE).also(&["new"]),
        Opt::new("hash-init", U32).also(&["new"]),
    ]),
    new: |_| Box::new(Clusterip::default()),
    xt_names: &["CLUSTERIP"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The hash mode names, by `CLUSTERIP_HASHMODE_*`.
const MODES: [(&str, u32); 3] = [
    ("sourceip", CLUSTERIP_HASHMODE_SIP),
    ("sourceip-sourceport", CLUSTERIP_HASHMODE_SIP_SPT),
    (
        "sourceip-sourceport-destport",
        CLUSTERIP_HASHMODE_SIP_SPT_DPT,
    ),
];

/// `-j CLUSTERIP [--new …]`, as `struct ipt_clusterip_tgt_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clusterip {
    /// `CLUSTERIP_FLAG_NEW` or 0.
    pub flags: u32,
    /// The cluster MAC.
    pub clustermac: [u8; ETH_ALEN],
    /// Nodes in the cluster.
    pub total_nodes: u16,
    /// 1 when `local_node` is set.
    pub num_local_nodes: u16,
    /// The local node.
    pub local_node: u16,
    /// `CLUSTERIP_HASHMODE_*`.
    pub hash_mode: u32,
    /// Hash seed.
    pub hash_initval: u32,
}

/// `struct ipt_clusterip_tgt_info`, field by field: it decodes the options and encodes
/// them. Only the first local node is written (the others stay zero), and the config
/// pointer is the kernel's.
static INFO: XtStruct<Clusterip> = XtStruct::new(
    "ipt_clusterip_tgt_info",
    size_of::<ipt_clusterip_tgt_info>(),
    0,
    &[
        xt_field!(ipt_clusterip_tgt_info, flags: U32 => flags),
        xt_field!(ipt_clusterip_tgt_info, clustermac: Bytes(ETH_ALEN) => clustermac),
        xt_field!(ipt_clusterip_tgt_info, num_total_nodes: U16 => total_nodes),
        xt_field!(ipt_clusterip_tgt_info, num_local_nodes: U16 => num_local_nodes),
        xt_field!(ipt_clusterip_tgt_info, local_nodes: U16 => local_node),
        xt_field!(ipt_clusterip_tgt_info, hash_mode: U32 => hash_mode),
        xt_field!(ipt_clusterip_tgt_info, hash_initval: U32 => hash_initval),
        xt_field!(ipt_clusterip_tgt_info, config: Kernel),
    ],
);

impl Clusterip {
    fn words(&self, save: bool) -> String {
        let mode = MODES
            .iter()
            .find(|(_, m)| *m == self.hash_mode)
            .map_or("unknown-error", |(n, _)| n);
        let m = &self.clustermac;
        let mac = format!(
            "{:02X}:{:02X}:{:02X}:{:02X}:{:02X}:{:02X}",
            m[0], m[1], m[2], m[3], m[4], m[5]
        );
        if save {
            format!(
                " --new --hashmode {mode} --clustermac {mac} --total-nodes {} --local-node {} --hash-init {}",
                self.total_nodes, self.local_node, self.hash_initval
            )
        } else {
            format!(
                " CLUSTERIP hashmode={mode} clustermac={mac} total_nodes={} local_node={} hash_init={}",
                self.total_nodes, self.local_node, self.hash_initval
            )
        }
    }
}

impl Extension for Clusterip {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let bad = |m: String| ParseError::bad(format!("--{}", opt.name), m);
        match opt.name {
            "new" => self.flags |= CLUSTERIP_FLAG_NEW,
            "hashmode" => {
                let v = val.text();
                self.hash_mode = MODES
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|&(_, m)| m)
                    .ok_or_else(|| bad(format!("Unknown hashmode \"{v}\"")))?;
            }
            "clustermac" => {
                self.clustermac = parse_mac(val.text())
                    .ok_or_else(|| bad("Invalid MAC address specified.".into()))?;
                if self.clustermac[0] & 1 == 0 {
                    return Err(bad("MAC has to be a multicast ethernet address".into()));
                }
            }
            "total-nodes" => self.total_nodes = val.uint() as u16,
            "local-node" => {
                self.local_node = val.uint() as u16;
                self.num_local_nodes = 1;
            }
            _ => self.hash_initval = val.uint() as u32,
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        let full = ["new", "hashmode", "clustermac", "total-nodes", "local-node"];
        if ctx.given.is_empty() || full.iter().all(|o| ctx.given.has(o)) {
            return Ok(());
        }
        Err(ParseError::Invalid(
            "CLUSTERIP target: Invalid parameter combination".into(),
        ))
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("CLUSTERIP", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        // A rule that joins an existing cluster saves no options.
        if self.flags & CLUSTERIP_FLAG_NEW != 0 {
            out.push_str(&self.words(true));
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        if self.flags & CLUSTERIP_FLAG_NEW != 0 {
            out.push_str(&self.words(false));
        } else {
            out.push_str(" CLUSTERIP");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Only what the options write: the other local nodes and the padding zero, and a rule
    // without `--new` empty.
    let c = INFO.decode_exact(rev, info)?;
    let ok = c.flags & !CLUSTERIP_FLAG_NEW == 0
        && c.num_local_nodes <= 1
        && (c.flags != 0 || c == Clusterip::default());
    ok.then(|| Box::new(c) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn clusters() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(
                v4,
                "-j CLUSTERIP --new --hashmode sourceip --clustermac 01:00:5e:00:00:20 \
                 --total-nodes 2 --local-node 1 --hash-init 7"
            )
            .unwrap(),
            "-j CLUSTERIP --new --hashmode sourceip --clustermac 01:00:5E:00:00:20 \
             --total-nodes 2 --local-node 1 --hash-init 7"
        );
        assert_eq!(save_round(v4, "-j CLUSTERIP").unwrap(), "-j CLUSTERIP");
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j CLUSTERIP --new").contains("Invalid parameter combination"));
        assert!(err("-j CLUSTERIP --new --hashmode x").contains("Unknown hashmode \"x\""));
        assert!(err("-j CLUSTERIP --new --clustermac 00:00:5e:00:00:20")
            .contains("has to be a multicast"));
        assert!(parse_rule_str(IpFamily::V6, "-j CLUSTERIP --new").is_err());
    }
}
