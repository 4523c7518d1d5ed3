//! `connmark` match (`-m connmark [!] --mark value[/mask]`) and `CONNMARK` target (`-j
//! CONNMARK --set-xmark|--set-mark|--and-mark|--or-mark|--xor-mark|--save-mark|
//! --restore-mark [--nfmask M] [--ctmask M] [--mask M] [--left-shift-mark N|
//! --right-shift-mark N]`): the connection's mark.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `connmark` match, revision 1
//! (`xt_connmark_mtinfo1`), and the `CONNMARK` target, revision 2 (`xt_connmark_tginfo2`).
//! Decoding: those, and `CONNMARK` revision 1 (`xt_connmark_tginfo1`, no shift).

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_connmark_mtinfo1, xt_connmark_tginfo1, xt_connmark_tginfo2, D_SHIFT_LEFT, D_SHIFT_RIGHT,
    XT_CONNMARK_RESTORE, XT_CONNMARK_SAVE, XT_CONNMARK_SET,
};

use super::base::libxt::{save_mark_mask, save_mark_test, xmark_op, xmark_words};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val, XtBuf, XtView,
};
use crate::ipt::ext::base::opts::{Ty, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `connmark` match.
pub static MATCH: ExtDesc = ExtDesc {
    name: "connmark",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("mark", Ty::MarkMask).inv().mand()]),
    new: |_| Box::new(Connmark::default()),
    xt_names: &["connmark"],
    decode_xt: Some(decode_match_xt),
    decode_native: None,
};

/// The options of `CONNMARK` that select its operation (mutually exclusive).
const OPS: &[&str] = &[
    "set-xmark",
    "set-mark",
    "and-mark",
    "or-mark",
    "xor-mark",
    "save-mark",
    "restore-mark",
];

/// The `CONNMARK` target.
pub static TARGET: ExtDesc = ExtDesc {
    name: "CONNMARK",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("set-xmark", Ty::MarkMask).excl(OPS),
        Opt::new("set-mark", Ty::MarkMask).excl(OPS),
        Opt::new("and-mark", U32).excl(OPS),
        Opt::new("or-mark", U32).excl(OPS),
        Opt::new("xor-mark", U32).excl(OPS),
        Opt::flag("save-mark").excl(OPS),
        Opt::flag("restore-mark").excl(OPS),
        Opt::new("left-shift-mark", Ty::Uint { min: 0, max: 32 }),
        Opt::new("right-shift-mark", Ty::Uint { min: 0, max: 32 }),
        Opt::new("ctmask", U32).excl(&["mask"]),
        Opt::new("nfmask", U32).excl(&["mask"]),
        Opt::new("mask", U32).excl(&["ctmask", "nfmask"]),
    ]),
    new: |_| Box::new(ConnmarkTarget::default()),
    xt_names: &["CONNMARK"],
    decode_xt: Some(decode_target_xt),
    decode_native: None,
};

/// `-m connmark [!] --mark value[/mask]`, as `struct xt_connmark_mtinfo1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Connmark {
    /// Value compared with the masked connection mark.
    pub mark: u32,
    /// Mask applied to the connection mark.
    pub mask: u32,
    /// `! --mark`.
    pub invert: bool,
}

impl Default for Connmark {
    fn default() -> Self {
        Connmark {
            mark: 0,
            mask: u32::MAX,
            invert: false,
        }
    }
}

/// `struct xt_connmark_mtinfo1`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Connmark> = XtStruct::new(
    "xt_connmark_mtinfo1",
    size_of::<xt_connmark_mtinfo1>(),
    1,
    &[
        xt_field!(xt_connmark_mtinfo1, mark: U32 => mark),
        xt_field!(xt_connmark_mtinfo1, mask: U32 => mask),
        xt_field!(xt_connmark_mtinfo1, invert: Flag => invert),
    ],
);

impl Extension for Connmark {
    fn desc(&self) -> &'static ExtDesc {
        &MATCH
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        (self.mark, self.mask) = val.mark_mask();
        self.invert = inv;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("connmark", 1, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_mark_test(out, self.invert, self.mark, self.mask);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" connmark match ");
        if self.invert {
            out.push('!');
        }
        save_mark_mask(out, self.mark, self.mask);
    }

    crate::ext_boilerplate!();
}

fn decode_match_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

/// `-j CONNMARK …`, as `struct xt_connmark_tginfo2`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnmarkTarget {
    /// Value XORed into the connection mark (`XT_CONNMARK_SET`).
    pub ctmark: u32,
    /// Mask on the connection mark.
    pub ctmask: u32,
    /// Mask on the packet mark.
    pub nfmask: u32,
    /// `D_SHIFT_LEFT` or `D_SHIFT_RIGHT`.
    pub shift_dir: u8,
    /// Bits to shift the copied mark by.
    pub shift_bits: u8,
    /// `XT_CONNMARK_SET`, `_SAVE` or `_RESTORE`.
    pub mode: u8,
}

impl Default for ConnmarkTarget {
    fn default() -> Self {
        ConnmarkTarget {
            ctmark: 0,
            ctmask: u32::MAX,
            nfmask: u32::MAX,
            shift_dir: D_SHIFT_LEFT,
            shift_bits: 0,
            mode: XT_CONNMARK_SET,
        }
    }
}

impl ConnmarkTarget {
    /// The revision-2 shift option with prefix `p` (`--` to save, empty for -L).
    fn dump_shift(&self, p: &str, out: &mut String) {
        if self.mode <= XT_CONNMARK_RESTORE && self.shift_bits != 0 {
            let op = if self.shift_dir == D_SHIFT_RIGHT {
                "right-shift-mark"
            } else {
                "left-shift-mark"
            };
            out.push_str(&format!(" {p}{op} {}", self.shift_bits));
        }
    }
}

impl Extension for ConnmarkTarget {
    fn desc(&self) -> &'static ExtDesc {
        &TARGET
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        if let Some(op) = xmark_op(opt.name, val) {
            self.mode = XT_CONNMARK_SET;
            (self.ctmark, self.ctmask) = op;
            return Ok(());
        }
        let bits = val.uint() as u32;
        match opt.name {
            "save-mark" => self.mode = XT_CONNMARK_SAVE,
            "restore-mark" => self.mode = XT_CONNMARK_RESTORE,
            "ctmask" => self.ctmask = bits,
            "nfmask" => self.nfmask = bits,
            "mask" => {
                self.ctmask = bits;
                self.nfmask = bits;
            }
            "left-shift-mark" => {
                self.shift_dir = D_SHIFT_LEFT;
                self.shift_bits = bits as u8;
            }
            _ => {
                self.shift_dir = D_SHIFT_RIGHT;
                self.shift_bits = bits as u8;
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if !OPS.iter().any(|o| ctx.given.has(o)) {
            return Err(ParseError::Invalid(
                "CONNMARK target: No operation specified".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        type I = xt_connmark_tginfo2;
        let mut b = XtBuf::of::<I>();
        b.put_u32(offset_of!(I, ctmark), self.ctmark);
        b.put_u32(offset_of!(I, ctmask), self.ctmask);
        b.put_u32(offset_of!(I, nfmask), self.nfmask);
        b.put_u8(offset_of!(I, shift_dir), self.shift_dir);
        b.put_u8(offset_of!(I, shift_bits), self.shift_bits);
        b.put_u8(offset_of!(I, mode), self.mode);
        out.push(xt_target("CONNMARK", 2, b.into_vec()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        match self.mode {
            XT_CONNMARK_SET => {
                out.push_str(&format!(
                    " --set-xmark 0x{:x}/0x{:x}",
                    self.ctmark, self.ctmask
                ));
            }
            XT_CONNMARK_SAVE => out.push_str(&format!(
                " --save-mark --nfmask 0x{:x} --ctmask 0x{:x}",
                self.nfmask, self.ctmask
            )),
            XT_CONNMARK_RESTORE => out.push_str(&format!(
                " --restore-mark --nfmask 0x{:x} --ctmask 0x{:x}",
                self.nfmask, self.ctmask
            )),
            _ => out.push_str(" ERROR: UNKNOWN CONNMARK MODE"),
        }
        self.dump_shift("--", out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let (nf, ct) = (self.nfmask, self.ctmask);
        match self.mode {
            XT_CONNMARK_SET => out.push_str(&xmark_words("CONNMARK", self.ctmark, ct)),
            XT_CONNMARK_SAVE => {
                if nf == u32::MAX && ct == u32::MAX {
                    out.push_str(" CONNMARK save");
                } else if nf == ct {
                    out.push_str(&format!(" CONNMARK save mask 0x{nf:x}"));
                } else {
                    out.push_str(&format!(" CONNMARK save nfmask 0x{nf:x} ctmask ~0x{ct:x}"));
                }
            }
            XT_CONNMARK_RESTORE => {
                if nf == u32::MAX && ct == u32::MAX {
                    out.push_str(" CONNMARK restore");
                } else if nf == ct {
                    out.push_str(&format!(" CONNMARK restore mask 0x{ct:x}"));
                } else {
                    out.push_str(&format!(
                        " CONNMARK restore ctmask 0x{ct:x} nfmask ~0x{nf:x}"
                    ));
                }
            }
            _ => out.push_str(" ERROR: UNKNOWN CONNMARK MODE"),
        }
        self.dump_shift("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_target_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = match rev {
        1 => {
            type I = xt_connmark_tginfo1;
            let v = XtView::of::<I>(info)?;
            ConnmarkTarget {
                ctmark: v.u32(offset_of!(I, ctmark))?,
                ctmask: v.u32(offset_of!(I, ctmask))?,
                nfmask: v.u32(offset_of!(I, nfmask))?,
                mode: v.u8(offset_of!(I, mode))?,
                ..ConnmarkTarget::default()
            }
        }
        2 => {
            type I = xt_connmark_tginfo2;
            let v = XtView::of::<I>(info)?;
            ConnmarkTarget {
                ctmark: v.u32(offset_of!(I, ctmark))?,
                ctmask: v.u32(offset_of!(I, ctmask))?,
                nfmask: v.u32(offset_of!(I, nfmask))?,
                shift_dir: v.u8(offset_of!(I, shift_dir))?,
                shift_bits: v.u8(offset_of!(I, shift_bits))?,
                mode: v.u8(offset_of!(I, mode))?,
            }
        }
        _ => return None,
    };
    if t.mode > XT_CONNMARK_RESTORE || t.shift_dir > D_SHIFT_RIGHT {
        return None;
    }
    Some(Box::new(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revision_1_decodes() {
        type I = xt_connmark_tginfo1;
        let mut b = XtBuf::of::<I>();
        b.put_u32(offset_of!(I, ctmask), 0xff0000);
        b.put_u32(offset_of!(I, nfmask), 0xff0000);
        b.put_u8(offset_of!(I, mode), XT_CONNMARK_RESTORE);
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let t = decode_target_xt(1, &b.into_vec(), &ctx).unwrap();
        let mut s = String::new();
        t.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --restore-mark --nfmask 0xff0000 --ctmask 0xff0000");
    }
}
