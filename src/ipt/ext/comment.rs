//! `comment`: a text attached to the rule (`-m comment --comment TEXT`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `comment` match, rev 0, 256-byte
//! `xt_comment_info`. A comment stored as rule userdata (type 0, as some iptables-nft versions
//! and nft write it) is read too, and appended after the other matches as iptables does.

use std::mem::size_of;

use iptnl_sys::xt::{xt_comment_info, XT_MAX_COMMENT_LEN};

use super::base::api::{
    save_string, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The `comment` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "comment",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("comment", Ty::Str { min: 0, max: 0 }).mand()]),
    new: |_| Box::new(Comment::default()),
    xt_names: &["comment"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-m comment --comment TEXT`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comment {
    /// The text (at most 255 bytes).
    pub text: String,
}

/// `struct xt_comment_info`: the text, NUL-padded to 256 bytes.
static INFO: XtStruct<Comment> = XtStruct::new(
    "xt_comment_info",
    size_of::<xt_comment_info>(),
    0,
    &[Field {
        name: "comment",
        at: 0,
        kind: Kind::Str(XT_MAX_COMMENT_LEN, |c| &c.text, |c, v| c.text = v),
    }],
);

impl Comment {
    /// A comment match holding `text` (as read from rule userdata).
    pub fn new(text: &str) -> Comment {
        Comment {
            text: text.to_owned(),
        }
    }
}

impl Extension for Comment {
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
        let v = val.text();
        if v.len() >= XT_MAX_COMMENT_LEN {
            return Err(ParseError::bad(
                "--comment",
                format!(
                    "comment may not be longer than {} characters",
                    XT_MAX_COMMENT_LEN - 1
                ),
            ));
        }
        self.text = v.to_owned();
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("comment", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --comment");
        save_string(out, &self.text);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" /* ");
        out.push_str(&self.text);
        out.push_str(" */");
    }

    crate::ext_boilerplate!();
}

/// Only a comment that a save line carries and reads back: text (UTF-8) ending in a NUL,
/// nothing after it, and no line break (which would end the save line). The generic check
/// of what is decoded (`ipt::readback`) trusts this decoder, since comments are the one
/// blob almost every rule of a big ruleset has, each its own.
fn decode_xt(_rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Any revision, as before: the kernel knows revision 0 only.
    let c = INFO.decode_exact(INFO.rev, info)?;
    (!c.text.contains(['\n', '\r'])).then(|| Box::new(c) as _)
}
