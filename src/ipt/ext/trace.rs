//! `TRACE`: mark the packet for rule tracing (`libxt_TRACE.c`).
//!
//! Encoding (iptables-nft 1.8.9): natively, `immediate reg 9 (NFT_REG32_01) 0x01` (one
//! byte) then `meta set nftrace with reg 9`; iptables-nft allows it in every table and chain
//! (the kernel's x_tables TRACE is raw-only, the native form is not). Decoding reads that
//! pair with any data register, and the x_tables `TRACE` target of older writers.

use iptnl_sys::nf_tables::NFT_META_NFTRACE;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::IpFamily;
use crate::nft::expr::meta::{Meta, MetaKey, MetaOp};
use crate::nft::expr::{Expr, Immediate};
use crate::nft::{Data, Value};

/// `-j TRACE`.
pub static DESC: ExtDesc = ExtDesc {
    name: "TRACE",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([]),
    new: |_| Box::new(Trace::default()),
    xt_names: &["TRACE"],
    decode_xt: Some(decode_xt),
    decode_native: Some(decode_native),
};

/// `NFT_REG32_01`, the register iptables-nft uses.
const TRACE_REG: u32 = 9;

/// `-j TRACE` (no options).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {}

impl Extension for Trace {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        _val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        Err(ParseError::UnknownOption {
            option: format!("--{}", opt.name),
        })
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(Expr::Immediate(Immediate {
            dreg: TRACE_REG,
            data: Data::Value(Value::new(&[1]).expect("one byte")),
        }));
        out.push(Expr::Meta(Meta::set(
            MetaKey::from_raw(NFT_META_NFTRACE),
            TRACE_REG,
        )));
        Ok(())
    }

    fn save(&self, _family: IpFamily, _out: &mut String) {}

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, _out: &mut String) {}

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    (rev == 0 && info.is_empty()).then(|| Box::new(Trace::default()) as Box<dyn Extension>)
}

fn decode_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let (Some(Expr::Immediate(imm)), Some(Expr::Meta(m))) = (cur.peek(0), cur.peek(1)) else {
        return None;
    };
    let Data::Value(v) = &imm.data else {
        return None;
    };
    // The kernel reads the first byte of the register.
    let b = v.as_bytes();
    let one = b.first() == Some(&1) && b[1..].iter().all(|&x| x == 0);
    if imm.dreg == 0
        || !one
        || m.key.raw() != NFT_META_NFTRACE
        || m.op != (MetaOp::Set { sreg: imm.dreg })
    {
        return None;
    }
    cur.pos += 2;
    Some(Box::new(Trace::default()))
}
