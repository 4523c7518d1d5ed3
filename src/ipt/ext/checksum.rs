//! `CHECKSUM`: fill in a missing checksum (`libxt_CHECKSUM.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `CHECKSUM` target, rev 0, one byte
//! (`XT_CHECKSUM_OP_FILL`, 8 aligned). The kernel allows it in the mangle table only.

use std::mem::size_of;

use iptnl_sys::xt::{xt_CHECKSUM_info, XT_CHECKSUM_OP_FILL};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j CHECKSUM`.
pub static DESC: ExtDesc = ExtDesc {
    name: "CHECKSUM",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::flag("checksum-fill").mand()]),
    new: |_| Box::new(Checksum::default()),
    xt_names: &["CHECKSUM"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j CHECKSUM --checksum-fill`, as `struct xt_CHECKSUM_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checksum {
    /// `XT_CHECKSUM_OP_*`.
    pub operation: u8,
}

/// `struct xt_CHECKSUM_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Checksum> = XtStruct::new(
    "xt_CHECKSUM_info",
    size_of::<xt_CHECKSUM_info>(),
    0,
    &[xt_field!(xt_CHECKSUM_info, operation: U8 => operation)],
);

impl Extension for Checksum {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        _inv: bool,
        _val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.operation |= XT_CHECKSUM_OP_FILL;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("CHECKSUM", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.operation & XT_CHECKSUM_OP_FILL != 0 {
            out.push_str(" --checksum-fill");
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" CHECKSUM");
        if self.operation & XT_CHECKSUM_OP_FILL != 0 {
            out.push_str(" fill");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}
