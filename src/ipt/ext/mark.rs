//! `mark` match (`-m mark [!] --mark value[/mask]`) and `MARK` target (`-j MARK
//! --set-xmark`, `--set-mark`, `--and-mark`, `--or-mark`, `--xor-mark`).
//!
//! Encoding (iptables-nft 1.8.8 and later):
//! - the match natively: `meta load mark`, `bitwise & mask` when the mask is not
//!   `0xffffffff`, `cmp eq`/`cmp neq` with the (unmasked) value, all in host byte order; at
//!   the reader floor 1.8.7 the x_tables `mark` match, revision 1, as 1.8.7 writes it;
//! - the target as the x_tables `MARK` target, revision 2 (`xt_mark_tginfo2`).
//!
//! Decoding: the native match form, the x_tables `mark` match revision 1
//! (`xt_mark_mtinfo1`, written by older iptables-nft), `MARK` revision 2, and the native
//! `immediate` + `meta set mark` form that nft writes and iptables-nft 1.8.10+ reads back as
//! `-j MARK --set-xmark VALUE/0xffffffff`.

use std::mem::size_of;

use iptnl_sys::nf_tables::NFT_META_MARK;
use iptnl_sys::xt::{xt_mark_mtinfo1, xt_mark_tginfo2};

use super::base::libxt::{require_option, save_mark_mask, save_mark_test, xmark_op, xmark_words};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind,
    Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::meta::{Meta, MetaKey, MetaOp};
use crate::nft::expr::{Bitwise, Cmp, CmpOp, Expr, REG};
use crate::nft::{Data, Value};
use crate::xt_field;

/// The `mark` match.
pub static MATCH: ExtDesc = ExtDesc {
    name: "mark",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("mark", Ty::MarkMask).inv().mand()]),
    new: |_| Box::new(Mark::default()),
    xt_names: &["mark"],
    decode_xt: Some(decode_match_xt),
    decode_native: Some(decode_match_native),
};

/// The `MARK` target.
pub static TARGET: ExtDesc = ExtDesc {
    name: "MARK",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("set-xmark", Ty::MarkMask).excl(MARK_OPS),
        Opt::new("set-mark", Ty::MarkMask).excl(MARK_OPS),
        Opt::new("and-mark", U32).excl(MARK_OPS),
        Opt::new("or-mark", U32).excl(MARK_OPS),
        Opt::new("xor-mark", U32).excl(MARK_OPS),
    ]),
    new: |_| Box::new(MarkTarget::default()),
    xt_names: &["MARK"],
    decode_xt: Some(decode_target_xt),
    decode_native: Some(decode_target_native),
};

/// The options of `MARK` (each excludes the others).
const MARK_OPS: &[&str] = &["set-xmark", "set-mark", "and-mark", "or-mark", "xor-mark"];

/// `-m mark [!] --mark value[/mask]`, as `struct xt_mark_mtinfo1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Value compared with the masked packet mark.
    pub mark: u32,
    /// Mask applied to the packet mark.
    pub mask: u32,
    /// `! --mark`.
    pub invert: bool,
}

impl Default for Mark {
    fn default() -> Self {
        Mark {
            mark: 0,
            mask: u32::MAX,
            invert: false,
        }
    }
}

/// `struct xt_mark_mtinfo1`, field by field: it decodes the options and encodes them.
static MTINFO1: XtStruct<Mark> = XtStruct::new(
    "xt_mark_mtinfo1",
    size_of::<xt_mark_mtinfo1>(),
    1,
    &[
        xt_field!(xt_mark_mtinfo1, mark: U32 => mark),
        xt_field!(xt_mark_mtinfo1, mask: U32 => mask),
        xt_field!(xt_mark_mtinfo1, invert: Flag => invert),
    ],
);

impl Extension for Mark {
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

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        if !ctx.floor.native_matches() {
            out.push(xt_match("mark", 1, MTINFO1.encode(self)));
            return Ok(());
        }
        out.push(Meta::load_reg1(MetaKey::Mark).into());
        if self.mask != u32::MAX {
            out.push(Bitwise::mask(&self.mask.to_ne_bytes()).into());
        }
        out.push(Expr::Cmp(Cmp {
            sreg: REG,
            op: if self.invert { CmpOp::Neq } else { CmpOp::Eq },
            data: Value::ne32(self.mark),
        }));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_mark_test(out, self.invert, self.mark, self.mask);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" mark match");
        save_inv(out, self.invert);
        save_mark_mask(out, self.mark, self.mask);
    }

    crate::ext_boilerplate!();
}

fn decode_match_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(MTINFO1.decode(rev, info)?))
}

fn ne32(v: &Value) -> Option<u32> {
    Some(u32::from_ne_bytes(v.as_bytes().try_into().ok()?))
}

/// `meta load mark => reg 1` [`bitwise reg 1 = (reg 1 & mask) ^ 0`] `cmp eq|neq reg 1 v`.
fn decode_match_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let Some(Expr::Meta(m)) = cur.peek(0) else {
        return None;
    };
    if m.key != MetaKey::from_raw(NFT_META_MARK) || m.op != (MetaOp::Load { dreg: REG }) {
        return None;
    }
    let (mask, used) = match cur.peek(1)? {
        Expr::Bitwise(b) => {
            let (mask, xor) = b.as_mask_xor()?;
            if xor.as_bytes() != [0; 4] {
                return None;
            }
            (ne32(&mask)?, 2)
        }
        _ => (u32::MAX, 1),
    };
    let Some(Expr::Cmp(c)) = cur.peek(used) else {
        return None;
    };
    if c.sreg != REG || !matches!(c.op, CmpOp::Eq | CmpOp::Neq) {
        return None;
    }
    let mark = ne32(&c.data)?;
    cur.pos += used + 1;
    Some(Box::new(Mark {
        mark,
        mask,
        invert: c.op == CmpOp::Neq,
    }))
}

/// `-j MARK …`, as `struct xt_mark_tginfo2`: `mark = (mark & !mask) ^ value`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MarkTarget {
    /// Bits XORed in after masking.
    pub mark: u32,
    /// Bits cleared first.
    pub mask: u32,
}

/// `struct xt_mark_tginfo2`, field by field: it decodes the options and encodes them.
static TGINFO2: XtStruct<MarkTarget> = XtStruct::new(
    "xt_mark_tginfo2",
    size_of::<xt_mark_tginfo2>(),
    2,
    &[
        xt_field!(xt_mark_tginfo2, mark: U32 => mark),
        xt_field!(xt_mark_tginfo2, mask: U32 => mask),
    ],
);

impl Extension for MarkTarget {
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
        // Each of MARK's options is one of the operations it shares with CONNMARK.
        if let Some(op) = xmark_op(opt.name, val) {
            (self.mark, self.mask) = op;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(
            ctx.given,
            "MARK: One of the --set-xmark, --{and,or,xor,set}-mark options is required",
        )
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("MARK", 2, TGINFO2.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(&format!(" --set-xmark 0x{:x}/0x{:x}", self.mark, self.mask));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(&xmark_words("MARK", self.mark, self.mask));
    }

    crate::ext_boilerplate!();
}

fn decode_target_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(TGINFO2.decode(rev, info)?))
}

/// `immediate reg N VALUE` + `meta set mark with reg N`: what nft writes for
/// `meta mark set VALUE`, read as iptables-nft 1.8.10+ does (`--set-xmark VALUE/0xffffffff`).
fn decode_target_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let (Some(Expr::Immediate(imm)), Some(Expr::Meta(m))) = (cur.peek(0), cur.peek(1)) else {
        return None;
    };
    let Data::Value(v) = &imm.data else {
        return None;
    };
    if imm.dreg == 0
        || m.key != MetaKey::from_raw(NFT_META_MARK)
        || m.op != (MetaOp::Set { sreg: imm.dreg })
    {
        return None;
    }
    let mark = ne32(v)?;
    cur.pos += 2;
    Some(Box::new(MarkTarget {
        mark,
        mask: u32::MAX,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nft::expr::Immediate;

    #[test]
    fn mark_masks_parse_like_libxtables() {
        assert_eq!(
            crate::ipt::ext::base::opts::parse_mark_mask("mark", "mark", "0x4000/0x4000").unwrap(),
            (0x4000, 0x4000)
        );
        assert_eq!(
            crate::ipt::ext::base::opts::parse_mark_mask("mark", "mark", "7").unwrap(),
            (7, u32::MAX)
        );
        assert!(crate::ipt::ext::base::opts::parse_mark_mask("mark", "mark", "5/").is_err());
        assert!(
            crate::ipt::ext::base::opts::parse_mark_mask("mark", "mark", "0x100000000").is_err()
        );
        assert!(crate::ipt::ext::base::opts::parse_mark_mask("mark", "mark", "1/2/3").is_err());
    }

    #[test]
    fn nft_meta_mark_set_reads_as_set_xmark() {
        let exprs = vec![
            Expr::Immediate(Immediate {
                dreg: 1,
                data: Data::Value(Value::ne32(0x2a)),
            }),
            Expr::Meta(Meta::set(MetaKey::from_raw(NFT_META_MARK), 1)),
        ];
        let mut cur = ExprCursor {
            exprs: &exprs,
            pos: 0,
        };
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let t = decode_target_native(&mut cur, &ctx).unwrap();
        assert_eq!(cur.pos, 2);
        let mut s = String::new();
        t.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --set-xmark 0x2a/0xffffffff");
    }
}
