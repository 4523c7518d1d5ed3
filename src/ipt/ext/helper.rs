//! `helper`: the conntrack helper of the connection (`-m helper --helper ftp`).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `helper` rev 0, `struct xt_helper_info` (a
//! 30-byte name: longer names are cut to 29 bytes, as iptables does).

use std::mem::size_of;

use iptnl_sys::xt::xt_helper_info;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, save_string, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind,
    Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// Size of the name field.
const NAME_LEN: usize = 30;

/// The `helper` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "helper",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("helper", Ty::Str { min: 0, max: 0 })
        .inv()
        .mand()]),
    new: |_| Box::new(Helper::default()),
    xt_names: &["helper"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-m helper`, as `struct xt_helper_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Helper {
    /// Nonzero to negate the match.
    pub invert: i32,
    /// Helper name (`ftp`, or `ftp-21` to test the port too).
    pub name: String,
}

/// `struct xt_helper_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Helper> = XtStruct::new(
    "xt_helper_info",
    size_of::<xt_helper_info>(),
    0,
    &[
        xt_field!(xt_helper_info, invert: I32 => invert),
        xt_field!(xt_helper_info, name: Str(NAME_LEN) => name),
    ],
);

impl Extension for Helper {
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
        // xtopt_parse_string: at most sizeof(name) - 1 bytes are kept.
        let v = val.text();
        let mut end = v.len().min(NAME_LEN - 1);
        while !v.is_char_boundary(end) {
            end -= 1;
        }
        self.name = v[..end].to_owned();
        if inv {
            self.invert = 1;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("helper", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --helper");
        save_string(out, &self.name);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(if self.invert != 0 {
            " helper match ! \""
        } else {
            " helper match \""
        });
        out.push_str(&self.name);
        out.push('"');
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}
