//! `pkttype`: the link-layer packet type (`--pkt-type unicast|broadcast|multicast|otherhost`,
//! aliases `host`, `bcast`, `mcast`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `pkttype` match, rev 0, `xt_pkttype_info`
//! (8 bytes). The native `meta load pkttype` + `cmp eq|neq` form (written by an unreleased
//! iptables development state and by nft, read by iptables-nft 1.8.9+) is decoded too.

use std::mem::size_of;

use iptnl_sys::xt::xt_pkttype_info;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension,
    Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::meta::{MetaKey, MetaOp};
use crate::nft::expr::{CmpOp, Expr, REG};
use crate::xt_field;

/// The `pkttype` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "pkttype",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("pkt-type", Ty::Str { min: 0, max: 0 })
        .inv()
        .mand()]),
    new: |_| Box::new(PktType::default()),
    xt_names: &["pkttype"],
    decode_xt: Some(decode_xt),
    decode_native: Some(decode_native),
};

/// Packet type names iptables accepts, in its order (the first of each value is printed).
const TYPES: &[(&str, i32)] = &[
    ("unicast", 0),
    ("broadcast", 1),
    ("multicast", 2),
    ("otherhost", 3),
    ("bcast", 1),
    ("mcast", 2),
    ("host", 0),
];

/// Options of `-m pkttype`, as in `struct xt_pkttype_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PktType {
    /// `PACKET_*` value.
    pub pkttype: i32,
    /// 1 when negated.
    pub invert: i32,
}

impl PktType {
    /// Appends the type's first name, or its number when it has none.
    fn push_type(&self, out: &mut String) {
        match TYPES.iter().find(|(_, t)| *t == self.pkttype) {
            Some((n, _)) => out.push_str(n),
            None => out.push_str(&self.pkttype.to_string()),
        }
    }
}

/// `struct xt_pkttype_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<PktType> = XtStruct::new(
    "xt_pkttype_info",
    size_of::<xt_pkttype_info>(),
    0,
    &[
        xt_field!(xt_pkttype_info, pkttype: I32 => pkttype),
        xt_field!(xt_pkttype_info, invert: I32 => invert),
    ],
);

impl Extension for PktType {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let v = val.text();
        self.pkttype = TYPES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(v))
            .map(|(_, t)| *t)
            .ok_or_else(|| ParseError::bad("--pkt-type", format!("Bad packet type '{v}'")))?;
        self.invert = inv as i32;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("pkttype", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --pkt-type ");
        self.push_type(out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(if self.invert != 0 {
            " PKTTYPE != "
        } else {
            " PKTTYPE = "
        });
        self.push_type(out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let p = INFO.decode(rev, info)?;
    (p.invert == 0 || p.invert == 1).then(|| Box::new(p) as _)
}

fn decode_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let (Some(Expr::Meta(m)), Some(Expr::Cmp(c))) = (cur.peek(0), cur.peek(1)) else {
        return None;
    };
    if m.key != MetaKey::Pkttype
        || m.op != (MetaOp::Load { dreg: REG })
        || c.sreg != REG
        || !matches!(c.op, CmpOp::Eq | CmpOp::Neq)
        || c.data.len() != 1
    {
        return None;
    }
    cur.pos += 2;
    Some(Box::new(PktType {
        pkttype: c.data.as_bytes()[0] as i32,
        invert: (c.op == CmpOp::Neq) as i32,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ipt::{decode_rule, IpFamily};
    use crate::nft::expr::meta::{Meta, MetaKey};
    use crate::nft::expr::{Cmp, Counter, Expr};
    use crate::nft::Rule;

    #[test]
    fn native_meta_pkttype() {
        // As nft writes `meta pkttype multicast` and `meta pkttype != broadcast`; iptables-nft
        // 1.8.9 lists them as the pkttype match.
        for (op_neq, v, want) in [
            (false, 2, "-m pkttype --pkt-type multicast"),
            (true, 1, "-m pkttype ! --pkt-type broadcast"),
        ] {
            let mut r = Rule::new(IpFamily::V4.nft(), "filter", "INPUT");
            r.exprs = vec![
                Meta::load_reg1(MetaKey::Pkttype).into(),
                Cmp::eq(op_neq, &[v]).into(),
                Expr::Counter(Counter {
                    packets: 0,
                    bytes: 0,
                }),
            ];
            let d = decode_rule(&r, IpFamily::V4).unwrap();
            assert_eq!(d.to_save_args(), want);
        }
    }
}
