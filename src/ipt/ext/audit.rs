//! `AUDIT`: write an audit record for the packet (`libxt_AUDIT.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `AUDIT` target, rev 0, one byte
//! (`XT_AUDIT_TYPE_*`, 8 aligned). `--type` takes `accept`, `drop` or `reject` in any case.
//! Allowed in every table and chain.

use iptnl_sys::xt::{xt_audit_info, XT_AUDIT_TYPE_MAX};

use crate::ipt::error::ParseError;
use crate::ipt::ext::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, OptSpec, ParseCtx,
    Seen, XtBuf, XtView,
};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// `-j AUDIT`.
pub static DESC: ExtDesc = ExtDesc {
    name: "AUDIT",
    kind: ExtKind::Target,
    family: None,
    options: &[OptSpec::val("type")],
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
    seen: Seen,
}

impl Extension for Audit {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &OptSpec,
        _inv: bool,
        values: &[&str],
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.seen.once(&DESC, opt.name)?;
        let v = values[0];
        self.kind = TYPES
            .iter()
            .position(|t| t.eq_ignore_ascii_case(v))
            .ok_or_else(|| ParseError::bad("--type", format!("Bad action type value \"{v}\"")))?
            as u8;
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if !self.seen.has(&DESC, "type") {
            return Err(ParseError::Invalid(
                "AUDIT: option \"--type\" must be specified".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let mut b = XtBuf::of::<xt_audit_info>();
        b.put_u8(0, self.kind);
        out.push(xt_target("AUDIT", 0, b.into_vec()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if let Some(t) = TYPES.get(self.kind as usize) {
            out.push_str(" --type ");
            out.push_str(t);
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::api::PrintCtx, out: &mut String) {
        out.push_str(" AUDIT ");
        if let Some(t) = TYPES.get(self.kind as usize) {
            out.push_str(t);
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    let v = XtView::of::<xt_audit_info>(info)?;
    let kind = v.u8(0)?;
    (kind <= XT_AUDIT_TYPE_MAX).then(|| {
        Box::new(Audit {
            kind,
            seen: Seen::default(),
        }) as Box<dyn Extension>
    })
}
