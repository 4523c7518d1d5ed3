//! `physdev`: the bridge ports of a bridged packet (`--physdev-in`, `--physdev-out`,
//! `--physdev-is-in`, `--physdev-is-out`, `--physdev-is-bridged`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `physdev` match, rev 0, `xt_physdev_info`
//! (66 bytes, 72 padded). Port names are stored as `xtables_parse_interface` stores them:
//! the name with its `+`, and a mask of 0xff over the compared bytes (the name and its NUL,
//! or the prefix before `+`).

use iptnl_sys::xt::{
    xt_physdev_info, IFNAMSIZ, XT_PHYSDEV_OP_BRIDGED, XT_PHYSDEV_OP_IN, XT_PHYSDEV_OP_ISIN,
    XT_PHYSDEV_OP_ISOUT, XT_PHYSDEV_OP_MASK, XT_PHYSDEV_OP_OUT,
};
use std::mem::{offset_of, size_of};

use super::base::libxt::bit_if;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `physdev` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "physdev",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("physdev-in", STR).inv(),
        Opt::new("physdev-out", STR).inv(),
        Opt::flag("physdev-is-in").inv(),
        Opt::flag("physdev-is-out").inv(),
        Opt::flag("physdev-is-bridged").inv(),
    ]),
    new: |_| Box::new(Physdev::default()),
    xt_names: &["physdev"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m physdev`, as in `struct xt_physdev_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Physdev {
    /// Input port name (`--physdev-in`), as typed (a trailing `+` kept).
    pub physindev: String,
    /// Output port name (`--physdev-out`).
    pub physoutdev: String,
    /// `XT_PHYSDEV_OP_*` negated.
    pub invert: u8,
    /// `XT_PHYSDEV_OP_*` in use.
    pub bitmask: u8,
}

/// The mask `xtables_parse_interface` makes of a port name (shorter than `IFNAMSIZ`): 0xff
/// over the compared bytes, the name and its NUL or the prefix before a `+`.
fn iface_mask(name: &str) -> Vec<u8> {
    let mut m = vec![0u8; IFNAMSIZ];
    let b = name.as_bytes();
    if b.is_empty() {
    } else if b.ends_with(b"+") {
        m[..b.len() - 1].fill(0xff);
    } else {
        m[..b.len() + 1].fill(0xff);
    }
    m
}

/// `struct xt_physdev_info`, field by field: it decodes the options and encodes them. The
/// masks are made from the names and checked by re-encoding.
static INFO: XtStruct<Physdev> = XtStruct::new(
    "xt_physdev_info",
    size_of::<xt_physdev_info>(),
    0,
    &[
        xt_field!(xt_physdev_info, physindev: Str(IFNAMSIZ) => physindev),
        Field {
            name: "in_mask",
            at: offset_of!(xt_physdev_info, in_mask),
            kind: Kind::Derived(IFNAMSIZ, |s| iface_mask(&s.physindev)),
        },
        xt_field!(xt_physdev_info, physoutdev: Str(IFNAMSIZ) => physoutdev),
        Field {
            name: "out_mask",
            at: offset_of!(xt_physdev_info, out_mask),
            kind: Kind::Derived(IFNAMSIZ, |s| iface_mask(&s.physoutdev)),
        },
        xt_field!(xt_physdev_info, invert: U8 => invert),
        xt_field!(xt_physdev_info, bitmask: U8 => bitmask),
    ],
);

impl Extension for Physdev {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let bit = match opt.name {
            "physdev-in" | "physdev-out" => {
                let v = val.text();
                if v.len() >= IFNAMSIZ {
                    return Err(ParseError::bad(
                        format!("--{}", opt.name),
                        format!(
                            "interface name `{v}' must be shorter than IFNAMSIZ ({})",
                            IFNAMSIZ - 1
                        ),
                    ));
                }
                if opt.name == "physdev-in" {
                    self.physindev = v.to_owned();
                    XT_PHYSDEV_OP_IN
                } else {
                    self.physoutdev = v.to_owned();
                    XT_PHYSDEV_OP_OUT
                }
            }
            "physdev-is-in" => XT_PHYSDEV_OP_ISIN,
            "physdev-is-out" => XT_PHYSDEV_OP_ISOUT,
            _ => XT_PHYSDEV_OP_BRIDGED,
        };
        self.bitmask |= bit;
        self.invert |= bit_if(inv, bit);
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.bitmask == 0 {
            return Err(ParseError::Invalid(
                "PHYSDEV: no physdev option specified".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("physdev", 0, INFO.encode(self)));
        Ok(())
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" PHYSDEV match");
        self.save(ctx.family, out);
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let inv = |bit: u8| {
            if self.invert & bit != 0 {
                " !"
            } else {
                ""
            }
        };
        if self.bitmask & XT_PHYSDEV_OP_ISIN != 0 {
            out.push_str(inv(XT_PHYSDEV_OP_ISIN));
            out.push_str(" --physdev-is-in");
        }
        if self.bitmask & XT_PHYSDEV_OP_IN != 0 {
            out.push_str(inv(XT_PHYSDEV_OP_IN));
            out.push_str(" --physdev-in ");
            out.push_str(&self.physindev);
        }
        if self.bitmask & XT_PHYSDEV_OP_ISOUT != 0 {
            out.push_str(inv(XT_PHYSDEV_OP_ISOUT));
            out.push_str(" --physdev-is-out");
        }
        if self.bitmask & XT_PHYSDEV_OP_OUT != 0 {
            out.push_str(inv(XT_PHYSDEV_OP_OUT));
            out.push_str(" --physdev-out ");
            out.push_str(&self.physoutdev);
        }
        if self.bitmask & XT_PHYSDEV_OP_BRIDGED != 0 {
            out.push_str(inv(XT_PHYSDEV_OP_BRIDGED));
            out.push_str(" --physdev-is-bridged");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let p = INFO.decode(rev, info)?;
    // Only what iptables can print back exactly: names of the tests in use with the masks
    // iptables derives from them, inversions of tests in use.
    let ok = p.bitmask != 0
        && p.bitmask & !XT_PHYSDEV_OP_MASK == 0
        && p.invert & !p.bitmask == 0
        && (p.bitmask & XT_PHYSDEV_OP_IN != 0 || p.physindev.is_empty())
        && (p.bitmask & XT_PHYSDEV_OP_OUT != 0 || p.physoutdev.is_empty())
        && p.physindev.len() < IFNAMSIZ
        && p.physoutdev.len() < IFNAMSIZ
        && INFO.encode(&p) == info;
    ok.then(|| Box::new(p) as _)
}
