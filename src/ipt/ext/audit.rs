//! `AUDIT`: write an audit record for the packet (`libxt_AUDIT.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `AUDIT` target, rev 0, one byte
//! (`XT_AUDIT_TYPE_*`, 8 aligned). `--type` takes `accept`, `drop` or `reject` in any case.
//! Allowed in every table and chain.

use std::mem::size_of;

use iptnl_sys::xt::{xt_audit_info, XT_AUDIT_TYPE_MAX};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Ty,
    Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j AUDIT`.
pub static DESC: ExtDesc = ExtDesc {
    name: "AUDIT",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::new(
        "type",
        Ty::OneOf {
            names: &TYPES,
            nocase: true,
            err: "Bad action type value \"%s\"",
        },
    )
    .mand()]),
    new: |_| Box::new(Audit::default()),
    xt_names: &["AUDIT"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

const TYPES: [&str; 3] = ["accept", "drop", "reject"];

/// `-j AUDIT --type TYPE`, as `struct xt_audit_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audit {
    /// `XT_AUDIT_TYPE_*`.
    pub kind: u8,
}

/// `struct xt_audit_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Audit> = XtStruct::new(
    "xt_audit_info",
    size_of::<xt_audit_info>(),
    0,
    &[xt_field!(xt_audit_info, r#type: U8 => kind)],
);

impl Extension for Audit {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.kind = val.index() as u8;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("AUDIT", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if let Some(t) = TYPES.get(self.kind as usize) {
            out.push_str(" --type ");
            out.push_str(t);
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" AUDIT ");
        if let Some(t) = TYPES.get(self.kind as usize) {
            out.push_str(t);
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // The padding is not looked at, as iptables does not.
    let a = INFO.decode(rev, info)?;
    (a.kind <= XT_AUDIT_TYPE_MAX).then(|| Box::new(a) as Box<dyn Extension>)
}
