//! `DSCP` target: set the DiffServ code point (`libxt_DSCP.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `DSCP` target, rev 0, one byte (8 aligned),
//! printed as `--set-dscp 0x%02x` whether given as a number or a class name. The kernel
//! allows it in the mangle table only.

use std::mem::size_of;

use iptnl_sys::xt::{xt_DSCP_info, XT_DSCP_MAX};

use super::base::libxt::{require_option, DSCP_CLASSES};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Ty,
    Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j DSCP`.
pub static DESC: ExtDesc = ExtDesc {
    name: "DSCP",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new(
            "set-dscp",
            Ty::Uint {
                min: 0,
                max: XT_DSCP_MAX as u64,
            },
        )
        .excl(&["set-dscp-class"]),
        Opt::new("set-dscp-class", Ty::Str { min: 0, max: 0 }).excl(&["set-dscp"]),
    ]),
    new: |_| Box::new(Dscp::default()),
    xt_names: &["DSCP"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j DSCP --set-dscp …`, as `struct xt_DSCP_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dscp {
    /// The code point (0–63).
    pub dscp: u8,
}

/// `struct xt_DSCP_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Dscp> = XtStruct::new(
    "xt_DSCP_info",
    size_of::<xt_DSCP_info>(),
    0,
    &[xt_field!(xt_DSCP_info, dscp: U8 => dscp)],
);

impl Extension for Dscp {
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
        let v = val.text();
        self.dscp = if opt.name == "set-dscp" {
            val.uint() as u8
        } else {
            DSCP_CLASSES
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(v))
                .map(|(_, d)| *d)
                .ok_or_else(|| {
                    ParseError::bad("--set-dscp-class", format!("Invalid DSCP value `{v}'"))
                })?
        };
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(ctx.given, "DSCP target: Parameter --set-dscp is required")
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("DSCP", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(&format!(" --set-dscp 0x{:02x}", self.dscp));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(&format!(" DSCP set 0x{:02x}", self.dscp));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}
