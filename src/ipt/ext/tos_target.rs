//! `TOS` target: change the IPv4 TOS / IPv6 traffic class byte (`libxt_TOS.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `TOS` target, rev 1, `xt_tos_target_info`
//! (value, mask; 8 aligned): the byte becomes `(tos & ~mask) ^ value`. `--set-tos N` means
//! `N/0xff`, a symbolic name `VALUE/0x3f`, `--and-tos B` `0/~B`, `--or-tos B` `B/B`,
//! `--xor-tos B` `B/0`; it always prints back as `--set-tos 0xVV/0xMM`. Revision 0 (IPv4,
//! one byte) is decoded too. The kernel allows it in the mangle table only.

use std::mem::size_of;

use iptnl_sys::xt::xt_tos_target_info;

use super::base::libxt::{
    require_option, strtoul_prefix_in as strtoul_prefix, tos_symbol, TOS_NAMES,
};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::U8;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j TOS`.
pub static DESC: ExtDesc = ExtDesc {
    name: "TOS",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::custom("set-tos").excl(TOS_OPS),
        Opt::new("and-tos", U8).excl(TOS_OPS),
        Opt::new("or-tos", U8).excl(TOS_OPS),
        Opt::new("xor-tos", U8).excl(TOS_OPS),
    ]),
    new: |_| Box::new(Tos::default()),
    xt_names: &["TOS"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The options of `TOS` (each excludes the others).
const TOS_OPS: &[&str] = &["set-tos", "and-tos", "or-tos", "xor-tos"];

/// `-j TOS …`, as `struct xt_tos_target_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tos {
    /// Bits xored in.
    pub value: u8,
    /// Bits cleared first.
    pub mask: u8,
    /// Decoded from revision 0 (printed without a mask).
    pub rev0: bool,
}

/// `XTTYPE_TOSMASK`: `value[/mask]` (mask 0xff by default) or a name (mask 0x3f).
fn parse_tosmask(s: &str) -> Result<(u8, u8), ParseError> {
    let illegal = || ParseError::bad("--set-tos", format!("Illegal value: \"{s}\""));
    if let Some((value, rest)) = strtoul_prefix(s, 0, 255) {
        let (mask, rest) = match rest.strip_prefix('/') {
            Some(m) => strtoul_prefix(m, 0, 255).ok_or_else(illegal)?,
            None => (255, rest),
        };
        if !rest.is_empty() {
            return Err(illegal());
        }
        return Ok((value as u8, mask as u8));
    }
    TOS_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, v)| (*v, 0x3f))
        .ok_or_else(|| ParseError::bad("--set-tos", format!("Symbolic name \"{s}\" is unknown")))
}

/// IPv4's revision 0, `struct ipt_tos_target_info { __u8 tos; }`: one byte, aligned as
/// `xt_tos_target_info` is; the whole byte is set (mask 0xff).
static V0: XtStruct<Tos> = XtStruct::new(
    "ipt_tos_target_info",
    1,
    0,
    &[Field {
        name: "tos",
        at: 0,
        kind: Kind::U8(|s| s.value, |s, v| s.value = v),
    }],
);

/// `struct xt_tos_target_info`, field by field: it decodes the options and encodes them.
static V1: XtStruct<Tos> = XtStruct::new(
    "xt_tos_target_info",
    size_of::<xt_tos_target_info>(),
    1,
    &[
        xt_field!(xt_tos_target_info, tos_value: U8 => value),
        xt_field!(xt_tos_target_info, tos_mask: U8 => mask),
    ],
);

impl Extension for Tos {
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
        let b = val.uint() as u8;
        (self.value, self.mask) = match opt.name {
            "set-tos" => parse_tosmask(val.text())?,
            "and-tos" => (0, !b),
            "or-tos" => (b, b),
            _ => (b, 0),
        };
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(ctx.given, "TOS: An action is required")
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("TOS", 1, V1.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.rev0 {
            out.push_str(&format!(" --set-tos 0x{:02x}", self.value));
        } else {
            out.push_str(&format!(
                " --set-tos 0x{:02x}/0x{:02x}",
                self.value, self.mask
            ));
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let (v, m) = (self.value, self.mask);
        if self.rev0 {
            out.push_str(&format!(" TOS set 0x{v:02x}"));
            return;
        }
        if ctx.numeric {
            out.push_str(&format!(" TOS set 0x{v:02x}/0x{m:02x}"));
        } else if let Some(n) = tos_symbol(v, m) {
            // iptables prints the prefix with its own leading space: two spaces.
            out.push_str("  TOS set");
            out.push_str(n);
        } else if v == 0 {
            out.push_str(&format!(" TOS and 0x{:02x}", !m));
        } else if v == m {
            out.push_str(&format!(" TOS or 0x{v:02x}"));
        } else if m == 0 {
            out.push_str(&format!(" TOS xor 0x{v:02x}"));
        } else {
            out.push_str(&format!(" TOS set 0x{v:02x}/0x{m:02x}"));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    match rev {
        0 if ctx.family == IpFamily::V4 => {
            let mut t = Tos {
                value: 0,
                mask: 0xff,
                rev0: true,
            };
            V0.read(&V0.view(rev, info)?, &mut t)?;
            Some(Box::new(t))
        }
        1 => Some(Box::new(V1.decode(rev, info)?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tos_values() {
        assert_eq!(parse_tosmask("0x10").unwrap(), (0x10, 0xff));
        assert_eq!(parse_tosmask("16/0x3f").unwrap(), (0x10, 0x3f));
        assert_eq!(parse_tosmask("minimize-delay").unwrap(), (0x10, 0x3f));
        assert!(parse_tosmask("256").is_err());
        assert!(parse_tosmask("16/256").is_err());
        assert!(parse_tosmask("16/").is_err());
        assert!(parse_tosmask("16x").is_err());
    }
}
