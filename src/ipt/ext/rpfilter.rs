//! `rpfilter`: reverse path filter (`-m rpfilter [--loose] [--validmark] [--accept-local]
//! [--invert]`), valid in the raw and mangle PREROUTING chains only (the kernel refuses it
//! elsewhere).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `rpfilter` rev 0, one flags byte.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_rpfilter_info, XT_RPFILTER_ACCEPT_LOCAL, XT_RPFILTER_INVERT, XT_RPFILTER_LOOSE,
    XT_RPFILTER_VALID_MARK,
};

use super::base::libxt::{flag_bit, push_flags};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `rpfilter` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "rpfilter",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("loose"),
        Opt::flag("validmark"),
        Opt::flag("accept-local"),
        Opt::flag("invert"),
    ]),
    new: |_| Box::new(Rpfilter::default()),
    xt_names: &["rpfilter"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Flags in the order iptables prints them.
const FLAGS: &[(&str, u8)] = &[
    ("loose", XT_RPFILTER_LOOSE),
    ("validmark", XT_RPFILTER_VALID_MARK),
    ("accept-local", XT_RPFILTER_ACCEPT_LOCAL),
    ("invert", XT_RPFILTER_INVERT),
];

/// `-m rpfilter`, as `struct xt_rpfilter_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rpfilter {
    /// `XT_RPFILTER_*` bits.
    pub flags: u8,
}

/// `struct xt_rpfilter_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Rpfilter> = XtStruct::new(
    "xt_rpfilter_info",
    size_of::<xt_rpfilter_info>(),
    0,
    &[xt_field!(xt_rpfilter_info, flags: U8 => flags)],
);

impl Extension for Rpfilter {
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
        self.flags |= flag_bit(FLAGS, opt.name);
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("rpfilter", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        push_flags(out, FLAGS, self.flags, " --");
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" rpfilter");
        push_flags(out, FLAGS, self.flags, " ");
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}
