//! `ttl` (IPv4) and `hl` (IPv6) matches, `TTL` and `HL` targets: the time-to-live / hop
//! limit field.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `ttl`/`hl` match, rev 0, 2-byte info
//! (`mode`, value); the `TTL`/`HL` target, rev 0. iptables-nft 1.8.9 and later also read a
//! native `payload network + 8` (`+ 7` for IPv6) with a `cmp` back as these matches (as
//! nftables writes `ip ttl lt 5`), which is decoded here too: `lte N` reads as `lt N+1`,
//! `gte N` as `gt N-1`.
//!
//! The old option names `--ttl` / `--hl` share their id with `--ttl-eq` / `--hl-eq`, so
//! libxtables treats them as those (invertible: `! --ttl 3` is `! --ttl-eq 3`).

use std::mem::size_of;

use iptnl_sys::xt::{
    ip6t_HL_info, ip6t_hl_info, ipt_TTL_info, ipt_ttl_info, IPT_TTL_EQ, IPT_TTL_GT, IPT_TTL_LT,
    IPT_TTL_NE,
};

use super::base::libxt::require_option;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind,
    Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, U8};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::{CmpOp, Expr, PayloadBase, PayloadOp, REG};
use crate::xt_field;

/// The comparisons of `-m ttl` (each excludes the others).
const TTL_OPS: &[&str] = &["ttl-lt", "ttl-gt", "ttl-eq"];
/// The comparisons of `-m hl`.
const HL_OPS: &[&str] = &["hl-lt", "hl-gt", "hl-eq"];
/// The actions of `-j TTL` (each excludes the others).
const TTL_ACTIONS: &[&str] = &["ttl-set", "ttl-dec", "ttl-inc"];
/// The actions of `-j HL`.
const HL_ACTIONS: &[&str] = &["hl-set", "hl-dec", "hl-inc"];

/// The IPv4 `ttl` match.
pub static TTL_MATCH: ExtDesc = ExtDesc {
    name: "ttl",
    kind: ExtKind::Match,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([
        Opt::new("ttl-lt", U8).excl(TTL_OPS),
        Opt::new("ttl-gt", U8).excl(TTL_OPS),
        Opt::new("ttl-eq", U8).inv().excl(TTL_OPS),
        Opt::new("ttl", U8).alias("ttl-eq"),
    ]),
    new: |_| Box::new(HopMatch::new(false)),
    xt_names: &["ttl"],
    decode_xt: Some(decode_ttl_xt),
    decode_native: Some(decode_ttl_native),
};

/// The IPv6 `hl` match.
pub static HL_MATCH: ExtDesc = ExtDesc {
    name: "hl",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([
        Opt::new("hl-lt", U8).excl(HL_OPS),
        Opt::new("hl-gt", U8).excl(HL_OPS),
        Opt::new("hl-eq", U8).inv().excl(HL_OPS),
        Opt::new("hl", U8).alias("hl-eq"),
    ]),
    new: |_| Box::new(HopMatch::new(true)),
    xt_names: &["hl"],
    decode_xt: Some(decode_hl_xt),
    decode_native: Some(decode_hl_native),
};

/// The IPv4 `TTL` target (mangle table).
pub static TTL_TARGET: ExtDesc = ExtDesc {
    name: "TTL",
    kind: ExtKind::Target,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([
        Opt::new("ttl-set", U8).excl(TTL_ACTIONS),
        Opt::new("ttl-dec", Ty::Uint { min: 1, max: 255 }).excl(TTL_ACTIONS),
        Opt::new("ttl-inc", Ty::Uint { min: 1, max: 255 }).excl(TTL_ACTIONS),
    ]),
    new: |_| Box::new(HopTarget::new(false)),
    xt_names: &["TTL"],
    decode_xt: Some(decode_ttl_tg),
    decode_native: None,
};

/// The IPv6 `HL` target (mangle table).
pub static HL_TARGET: ExtDesc = ExtDesc {
    name: "HL",
    kind: ExtKind::Target,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([
        Opt::new("hl-set", U8).excl(HL_ACTIONS),
        Opt::new("hl-dec", Ty::Uint { min: 1, max: 255 }).excl(HL_ACTIONS),
        Opt::new("hl-inc", Ty::Uint { min: 1, max: 255 }).excl(HL_ACTIONS),
    ]),
    new: |_| Box::new(HopTarget::new(true)),
    xt_names: &["HL"],
    decode_xt: Some(decode_hl_tg),
    decode_native: None,
};

/// `-m ttl` / `-m hl`, as `struct ipt_ttl_info` / `struct ip6t_hl_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct HopMatch {
    /// IPv6 `hl` rather than IPv4 `ttl`.
    pub v6: bool,
    /// `IPT_TTL_EQ`, `_NE`, `_LT` or `_GT` (the `IP6T_HL_*` values are the same).
    pub mode: u8,
    /// The value compared with.
    pub value: u8,
}

impl HopMatch {
    fn new(v6: bool) -> HopMatch {
        HopMatch {
            v6,
            mode: IPT_TTL_EQ,
            value: 0,
        }
    }

    /// The struct of the family: `ip6t_hl_info` or `ipt_ttl_info`.
    fn info(v6: bool) -> &'static XtStruct<HopMatch> {
        if v6 {
            &HL_INFO
        } else {
            &TTL_INFO
        }
    }

    fn to_xt(&self) -> Vec<u8> {
        Self::info(self.v6).encode(self)
    }
}

/// `struct ipt_ttl_info`, field by field: it decodes the options and encodes them.
static TTL_INFO: XtStruct<HopMatch> = XtStruct::new(
    "ipt_ttl_info",
    size_of::<ipt_ttl_info>(),
    0,
    &[
        xt_field!(ipt_ttl_info, mode: U8 => mode),
        xt_field!(ipt_ttl_info, ttl: U8 => value),
    ],
);

/// `struct ip6t_hl_info`, field by field.
static HL_INFO: XtStruct<HopMatch> = XtStruct::new(
    "ip6t_hl_info",
    size_of::<ip6t_hl_info>(),
    0,
    &[
        xt_field!(ip6t_hl_info, mode: U8 => mode),
        xt_field!(ip6t_hl_info, hop_limit: U8 => value),
    ],
);

impl Extension for HopMatch {
    fn desc(&self) -> &'static ExtDesc {
        if self.v6 {
            &HL_MATCH
        } else {
            &TTL_MATCH
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.mode = match opt.name.rsplit('-').next() {
            Some("lt") => IPT_TTL_LT,
            Some("gt") => IPT_TTL_GT,
            _ if inv => IPT_TTL_NE,
            _ => IPT_TTL_EQ,
        };
        self.value = val.uint() as u8;
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(
            ctx.given,
            if self.v6 {
                "HL match: You must specify one of `--hl-eq', `--hl-lt', `--hl-gt'"
            } else {
                "TTL match: You must specify one of `--ttl-eq', `--ttl-lt', `--ttl-gt'"
            },
        )
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match(self.desc().name, 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let p = if self.v6 { "hl" } else { "ttl" };
        let op = match self.mode {
            IPT_TTL_EQ => format!(" --{p}-eq"),
            IPT_TTL_NE => format!(" ! --{p}-eq"),
            IPT_TTL_LT => format!(" --{p}-lt"),
            _ => format!(" --{p}-gt"),
        };
        out.push_str(&op);
        out.push_str(&format!(" {}", self.value));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let p = if self.v6 { "HL" } else { "TTL" };
        let op = match self.mode {
            IPT_TTL_EQ => "==",
            IPT_TTL_NE => "!=",
            IPT_TTL_LT => "<",
            _ => ">",
        };
        out.push_str(&format!(" {p} match {p} {op} {}", self.value));
    }

    crate::ext_boilerplate!();
}

fn decode_hop_xt(v6: bool, rev: u32, info: &[u8]) -> Option<Box<dyn Extension>> {
    let t = HopMatch::info(v6);
    let mut m = HopMatch::new(v6);
    t.read(&t.view(rev, info)?, &mut m)?;
    (m.mode <= IPT_TTL_GT).then(|| Box::new(m) as _)
}

fn decode_ttl_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_hop_xt(false, rev, info)
}

fn decode_hl_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_hop_xt(true, rev, info)
}

/// Reads `payload load 1b @ network header + OFF => reg 1` and a `cmp` as iptables'
/// `nft_parse_hl` does.
fn decode_hop_native(v6: bool, cur: &mut ExprCursor<'_>) -> Option<Box<dyn Extension>> {
    let (Some(Expr::Payload(p)), Some(Expr::Cmp(c))) = (cur.peek(0), cur.peek(1)) else {
        return None;
    };
    let off = if v6 { 7 } else { 8 };
    if p.base != PayloadBase::Network
        || p.offset != off
        || p.len != 1
        || p.op != (PayloadOp::Load { dreg: REG })
        || c.sreg != REG
        || c.data.len() != 1
    {
        return None;
    }
    let v = c.data.as_bytes()[0];
    let (mode, value) = match c.op {
        CmpOp::Eq => (IPT_TTL_EQ, v),
        CmpOp::Neq => (IPT_TTL_NE, v),
        CmpOp::Lt => (IPT_TTL_LT, v),
        CmpOp::Gt => (IPT_TTL_GT, v),
        CmpOp::Lte => (IPT_TTL_LT, v.checked_add(1)?),
        CmpOp::Gte => (IPT_TTL_GT, v.checked_sub(1)?),
    };
    let mut m = HopMatch::new(v6);
    m.mode = mode;
    m.value = value;
    cur.pos += 2;
    Some(Box::new(m))
}

fn decode_ttl_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_hop_native(false, cur)
}

fn decode_hl_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_hop_native(true, cur)
}

/// `-j TTL` / `-j HL`, as `struct ipt_TTL_info` / `struct ip6t_HL_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct HopTarget {
    /// IPv6 `HL` rather than IPv4 `TTL`.
    pub v6: bool,
    /// `IPT_TTL_SET` (0), `_INC` (1) or `_DEC` (2).
    pub mode: u8,
    /// Value to set, or amount to add or subtract.
    pub value: u8,
}

impl HopTarget {
    /// The struct of the family: `ip6t_HL_info` or `ipt_TTL_info`.
    fn info(v6: bool) -> &'static XtStruct<HopTarget> {
        if v6 {
            &HL_TG
        } else {
            &TTL_TG
        }
    }

    fn new(v6: bool) -> HopTarget {
        HopTarget {
            v6,
            mode: 0,
            value: 0,
        }
    }
}

const MODE_NAMES: [&str; 3] = ["set", "inc", "dec"];

impl Extension for HopTarget {
    fn desc(&self) -> &'static ExtDesc {
        if self.v6 {
            &HL_TARGET
        } else {
            &TTL_TARGET
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let op = opt.name.rsplit('-').next().unwrap_or("");
        self.mode = MODE_NAMES.iter().position(|m| *m == op).unwrap_or(0) as u8;
        self.value = val.uint() as u8;
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if ctx.given.is_empty() {
            return Err(ParseError::Invalid(format!(
                "{}: You must specify an action",
                self.desc().name
            )));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target(
            self.desc().name,
            0,
            HopTarget::info(self.v6).encode(self),
        ));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let p = if self.v6 { "hl" } else { "ttl" };
        let m = MODE_NAMES.get(self.mode as usize).copied().unwrap_or("set");
        out.push_str(&format!(" --{p}-{m} {}", self.value));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let p = if self.v6 { "HL" } else { "TTL" };
        let words = match MODE_NAMES.get(self.mode as usize).copied() {
            Some("dec") => "decrement by",
            Some("inc") => "increment by",
            _ => "set to",
        };
        out.push_str(&format!(" {p} {words} {}", self.value));
    }

    crate::ext_boilerplate!();
}

fn decode_hop_tg(v6: bool, rev: u32, info: &[u8]) -> Option<Box<dyn Extension>> {
    let i = HopTarget::info(v6);
    let mut t = HopTarget::new(v6);
    i.read(&i.view(rev, info)?, &mut t)?;
    ((t.mode as usize) < MODE_NAMES.len()).then(|| Box::new(t) as _)
}

fn decode_ttl_tg(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_hop_tg(false, rev, info)
}

fn decode_hl_tg(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_hop_tg(true, rev, info)
}

/// `struct ipt_TTL_info`, field by field: it decodes the options and encodes them.
static TTL_TG: XtStruct<HopTarget> = XtStruct::new(
    "ipt_TTL_info",
    size_of::<ipt_TTL_info>(),
    0,
    &[
        xt_field!(ipt_TTL_info, mode: U8 => mode),
        xt_field!(ipt_TTL_info, ttl: U8 => value),
    ],
);

/// `struct ip6t_HL_info`, field by field.
static HL_TG: XtStruct<HopTarget> = XtStruct::new(
    "ip6t_HL_info",
    size_of::<ip6t_HL_info>(),
    0,
    &[
        xt_field!(ip6t_HL_info, mode: U8 => mode),
        xt_field!(ip6t_HL_info, hop_limit: U8 => value),
    ],
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nft::expr::{Cmp, Payload};
    use crate::nft::Value;

    fn native(v6: bool, op: CmpOp, v: u8) -> Option<String> {
        let exprs = vec![
            Payload::load_reg1(PayloadBase::Network, if v6 { 7 } else { 8 }, 1).into(),
            Expr::Cmp(Cmp {
                sreg: REG,
                op,
                data: Value::new(&[v]).unwrap(),
            }),
        ];
        let mut cur = ExprCursor {
            exprs: &exprs,
            pos: 0,
        };
        let m = decode_hop_native(v6, &mut cur)?;
        assert_eq!(cur.pos, 2);
        let mut s = String::new();
        m.save(IpFamily::V4, &mut s);
        Some(s)
    }

    #[test]
    fn native_forms_read_as_iptables_does() {
        assert_eq!(native(false, CmpOp::Lt, 5).unwrap(), " --ttl-lt 5");
        assert_eq!(native(false, CmpOp::Neq, 5).unwrap(), " ! --ttl-eq 5");
        assert_eq!(native(false, CmpOp::Lte, 5).unwrap(), " --ttl-lt 6");
        assert_eq!(native(false, CmpOp::Gte, 5).unwrap(), " --ttl-gt 4");
        assert_eq!(native(true, CmpOp::Eq, 255).unwrap(), " --hl-eq 255");
        assert!(native(true, CmpOp::Lte, 255).is_none());
        assert!(native(true, CmpOp::Gte, 0).is_none());
    }
}
