//! `dscp` and `tos` matches: the DiffServ code point and the TOS / traffic class byte.
//!
//! Encoding (iptables-nft 1.8.9): x_tables `dscp` rev 0 (`xt_dscp_info`) and `tos` rev 1
//! (`xt_tos_match_info`); `tos` rev 0 (`ipt_tos_info`, IPv4) is decoded too.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{xt_dscp_info, xt_tos_match_info, XT_DSCP_MAX};

use super::base::libxt::{
    class_to_dscp, require_option, strtoul_full, strtoul_prefix, tos_symbol, TOS_NAMES,
};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
    XtBuf, XtView,
};
use crate::ipt::ext::base::opts::{Ty, STR};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `dscp` match.
pub static DSCP: ExtDesc = ExtDesc {
    name: "dscp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new(
            "dscp",
            Ty::Uint {
                min: 0,
                max: XT_DSCP_MAX as u64,
            },
        )
        .inv()
        .excl(&["dscp-class"]),
        Opt::new("dscp-class", STR).inv().excl(&["dscp"]),
    ]),
    new: |_| Box::new(Dscp::default()),
    xt_names: &["dscp"],
    decode_xt: Some(decode_dscp),
    decode_native: None,
};

/// The `tos` match.
pub static TOS: ExtDesc = ExtDesc {
    name: "tos",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::custom("tos").inv().mand()]),
    new: |_| Box::new(Tos::default()),
    xt_names: &["tos"],
    decode_xt: Some(decode_tos),
    decode_native: None,
};

/// `-m dscp`, as `struct xt_dscp_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dscp {
    /// The code point, 0–63.
    pub dscp: u8,
    /// Nonzero to negate the match.
    pub invert: u8,
}

/// `struct xt_dscp_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Dscp> = XtStruct::new(
    "xt_dscp_info",
    size_of::<xt_dscp_info>(),
    0,
    &[
        xt_field!(xt_dscp_info, dscp: U8 => dscp),
        xt_field!(xt_dscp_info, invert: U8 => invert),
    ],
);

impl Extension for Dscp {
    fn desc(&self) -> &'static ExtDesc {
        &DSCP
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let v = val.text();
        self.dscp = if opt.name == "dscp" {
            val.uint() as u8
        } else {
            class_to_dscp(v).ok_or_else(|| {
                ParseError::bad("--dscp-class", format!("Invalid DSCP value `{v}'"))
            })?
        };
        if inv {
            self.invert = 1;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(ctx.given, "DSCP match: Parameter --dscp is required")
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("dscp", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.invert != 0 {
            out.push_str(" !");
        }
        out.push_str(&format!(" --dscp 0x{:02x}", self.dscp));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let inv = if self.invert != 0 { "!" } else { "" };
        out.push_str(&format!(" DSCP match {inv}0x{:02x}", self.dscp));
    }

    crate::ext_boilerplate!();
}

fn decode_dscp(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

/// Parses a `--tos` value as libxtables' `XTTYPE_TOSMASK` with iptables' rev 1 default:
/// `value[/mask]` (mask 0xff when omitted) or a TOS name (mask 0x3f).
pub fn parse_tos(s: &str) -> Result<(u8, u8), ParseError> {
    let illegal = || ParseError::bad("--tos", format!("Illegal value: \"{s}\""));
    if let Some((value, rest)) = strtoul_prefix(s).filter(|(v, _)| *v <= 0xff) {
        if rest.is_empty() {
            return Ok((value as u8, 0xff));
        }
        let mask_s = rest.strip_prefix('/').ok_or_else(illegal)?;
        let mask = strtoul_full(mask_s, 0, 0xff).ok_or_else(illegal)?;
        return Ok((value as u8, mask as u8));
    }
    TOS_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, v)| (*v, 0x3f))
        .ok_or_else(|| ParseError::bad("--tos", format!("Symbolic name \"{s}\" is unknown")))
}

/// `-m tos`, as `struct xt_tos_match_info` (rev 1) or `ipt_tos_info` (rev 0, decoded only).
#[derive(Debug, Clone, PartialEq)]
pub struct Tos {
    /// Revision: 1, or 0 for a rule an old iptables wrote.
    pub rev: u32,
    /// Value compared with the masked TOS byte.
    pub value: u8,
    /// Mask applied first (rev 1).
    pub mask: u8,
    /// Nonzero to negate the match.
    pub invert: u8,
}

impl Default for Tos {
    fn default() -> Self {
        Tos {
            rev: 1,
            value: 0,
            mask: 0xff,
            invert: 0,
        }
    }
}

impl Extension for Tos {
    fn desc(&self) -> &'static ExtDesc {
        &TOS
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let (value, mask) = parse_tos(val.text())?;
        self.value = value;
        self.mask = mask;
        if inv {
            self.invert = 1;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        if self.rev == 0 {
            let mut b = XtBuf::new(2);
            b.put_u8(0, self.value);
            b.put_u8(1, self.invert);
            out.push(xt_match("tos", 0, b.into_vec()));
            return Ok(());
        }
        let mut b = XtBuf::of::<xt_tos_match_info>();
        b.put_u8(offset_of!(xt_tos_match_info, tos_mask), self.mask);
        b.put_u8(offset_of!(xt_tos_match_info, tos_value), self.value);
        b.put_u8(offset_of!(xt_tos_match_info, invert), self.invert);
        out.push(xt_match("tos", 1, b.into_vec()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.invert != 0 {
            out.push_str(" !");
        }
        if self.rev == 0 {
            out.push_str(&format!(" --tos 0x{:02x}", self.value));
        } else {
            out.push_str(&format!(" --tos 0x{:02x}/0x{:02x}", self.value, self.mask));
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let inv = if self.invert != 0 { "!" } else { "" };
        if self.rev == 0 {
            out.push_str(" tos match ");
            out.push_str(inv);
            match tos_symbol(self.value, 0x3f).filter(|_| !ctx.numeric) {
                Some(n) => {
                    out.push(' ');
                    out.push_str(n);
                }
                None => out.push_str(&format!("0x{:02x}", self.value)),
            }
            return;
        }
        // iptables 1.8.9 prints no space between "match" and a number (`tos match0x10/0xff`).
        out.push_str(" tos match");
        out.push_str(inv);
        match tos_symbol(self.value, self.mask).filter(|_| !ctx.numeric) {
            Some(n) => {
                out.push(' ');
                out.push_str(n);
            }
            None => out.push_str(&format!("0x{:02x}/0x{:02x}", self.value, self.mask)),
        }
    }

    crate::ext_boilerplate!();
}

fn decode_tos(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    match rev {
        0 if ctx.family == IpFamily::V4 => {
            if info.len() != iptnl_sys::xt::xt_align(2) {
                return None;
            }
            let v = XtView::new(info);
            Some(Box::new(Tos {
                rev: 0,
                value: v.u8(0)?,
                mask: 0xff,
                invert: v.u8(1)?,
            }))
        }
        1 => {
            let v = XtView::of::<xt_tos_match_info>(info)?;
            Some(Box::new(Tos {
                rev: 1,
                value: v.u8(offset_of!(xt_tos_match_info, tos_value))?,
                mask: v.u8(offset_of!(xt_tos_match_info, tos_mask))?,
                invert: v.u8(offset_of!(xt_tos_match_info, invert))?,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_tos_values() {
        assert_eq!(class_to_dscp("AF41"), Some(0x22));
        assert_eq!(class_to_dscp("af41x"), Some(0x22));
        assert_eq!(class_to_dscp("ef"), Some(0x2e));
        assert_eq!(class_to_dscp("cs"), None);
        assert_eq!(parse_tos("Minimize-Delay").unwrap(), (0x10, 0x3f));
        assert_eq!(parse_tos("normal-service").unwrap(), (0, 0x3f));
        assert_eq!(parse_tos("0x10/0x3f").unwrap(), (0x10, 0x3f));
        assert_eq!(parse_tos("16").unwrap(), (0x10, 0xff));
        assert!(parse_tos("300").is_err());
        assert!(parse_tos("0x10/300").is_err());
        assert!(parse_tos("16/0x").is_err());
        assert!(parse_tos("0x10abc").is_err());
    }
}
