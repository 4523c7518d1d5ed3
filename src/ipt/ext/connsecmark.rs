//! `CONNSECMARK`: copy the security mark from the packet to its connection or back
//! (`libxt_CONNSECMARK.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `CONNSECMARK` target, rev 0,
//! `xt_connsecmark_target_info` (1 byte, 8 aligned): mode 1 for `--save`, 2 for `--restore`.
//! One of them is needed. The kernel allows it in the mangle and security tables only.

use std::mem::size_of;

use iptnl_sys::xt::{xt_connsecmark_target_info, CONNSECMARK_RESTORE, CONNSECMARK_SAVE};

use super::base::libxt::require_option;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j CONNSECMARK`.
pub static DESC: ExtDesc = ExtDesc {
    name: "CONNSECMARK",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("save").excl(&["restore"]),
        Opt::flag("restore").excl(&["save"]),
    ]),
    new: |_| Box::new(Connsecmark::default()),
    xt_names: &["CONNSECMARK"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j CONNSECMARK --save|--restore`, as `struct xt_connsecmark_target_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Connsecmark {
    /// `CONNSECMARK_SAVE` or `CONNSECMARK_RESTORE`.
    pub mode: u8,
}

/// `struct xt_connsecmark_target_info`, field by field: it decodes the options and encodes
/// them.
static INFO: XtStruct<Connsecmark> = XtStruct::new(
    "xt_connsecmark_target_info",
    size_of::<xt_connsecmark_target_info>(),
    0,
    &[xt_field!(xt_connsecmark_target_info, mode: U8 => mode)],
);

impl Connsecmark {
    fn word(&self) -> &'static str {
        if self.mode == CONNSECMARK_SAVE {
            "save"
        } else {
            "restore"
        }
    }
}

impl Extension for Connsecmark {
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
        self.mode = if opt.name == "save" {
            CONNSECMARK_SAVE
        } else {
            CONNSECMARK_RESTORE
        };
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(ctx.given, "CONNSECMARK target: parameter required")
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("CONNSECMARK", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --");
        out.push_str(self.word());
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" CONNSECMARK ");
        out.push_str(self.word());
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    // iptables cannot print another mode.
    matches!(c.mode, CONNSECMARK_SAVE | CONNSECMARK_RESTORE).then(|| Box::new(c) as _)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn modes() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(v4, "-j CONNSECMARK --save").unwrap(),
            "-j CONNSECMARK --save"
        );
        assert_eq!(
            save_round(v4, "-j CONNSECMARK --restore").unwrap(),
            "-j CONNSECMARK --restore"
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j CONNSECMARK").contains("CONNSECMARK target: parameter required"));
        assert!(err("-j CONNSECMARK --save --restore").contains("cannot be used together"));
    }
}
