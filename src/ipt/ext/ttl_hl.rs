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

use iptnl_sys::xt::{
    ip6t_HL_info, ip6t_hl_info, ipt_TTL_info, ipt_ttl_info, IPT_TTL_EQ, IPT_TTL_GT, IPT_TTL_LT,
    IPT_TTL_NE,
};

use super::libxt::uint_value;
use crate::ipt::error::ParseError;
use crate::ipt::ext::api::{
    xt_match, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind,
    Extension, Opt, ParseCtx, Val, XtBuf, XtView,
};
use crate::ipt::IpFamily;
use crate::nft::expr::{CmpOp, Expr, PayloadBase, PayloadOp, REG};

/// The IPv4 `ttl` match.
pub static TTL_MATCH: ExtDesc = ExtDesc {
    name: "ttl",
    kind: ExtKind::Match,
    family: Some(IpFamily::V4),
    options: &[
        Opt::custom("ttl-lt").multi(),
        Opt::custom("ttl-gt").multi(),
        Opt::custom("ttl-eq").inv().multi(),
        Opt::custom("ttl").inv().multi(),
    ],
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
    options: &[
        Opt::custom("hl-lt").multi(),
        Opt::custom("hl-gt").multi(),
        Opt::custom("hl-eq").inv().multi(),
        Opt::custom("hl").inv().multi(),
    ],
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
    options: &[
        Opt::custom("ttl-set").multi(),
        Opt::custom("ttl-dec").multi(),
        Opt::custom("ttl-inc").multi(),
    ],
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
    options: &[
        Opt::custom("hl-set").multi(),
        Opt::custom("hl-dec").multi(),
        Opt::custom("hl-inc").multi(),
    ],
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
    /// The option given (one of them only), for the conflict messages.
    given: GivenOpt,
}

/// The option of a one-option-only group that was given; never part of equality.
#[derive(Debug, Clone, Copy, Default)]
struct GivenOpt(Option<&'static str>);

impl PartialEq for GivenOpt {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl GivenOpt {
    /// Records `id` (the option's identity: aliases share one) shown as `name`; errors as
    /// libxtables does when an option of the group was given before.
    fn set(&mut self, ext: &str, id: &'static str, name: &str) -> Result<(), ParseError> {
        match self.0 {
            Some(prev) if prev == id => Err(ParseError::Duplicate {
                option: format!("--{name}"),
            }),
            Some(prev) => Err(ParseError::Invalid(format!(
                "{ext}: option \"--{name}\" cannot be used together with \"--{prev}\""
            ))),
            None => {
                self.0 = Some(id);
                Ok(())
            }
        }
    }
}

impl HopMatch {
    fn new(v6: bool) -> HopMatch {
        HopMatch {
            v6,
            mode: IPT_TTL_EQ,
            value: 0,
            given: GivenOpt::default(),
        }
    }

    fn to_xt(&self) -> Vec<u8> {
        let mut b = if self.v6 {
            XtBuf::of::<ip6t_hl_info>()
        } else {
            XtBuf::of::<ipt_ttl_info>()
        };
        b.put_u8(0, self.mode);
        b.put_u8(1, self.value);
        b.into_vec()
    }
}

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
        let ext = self.desc().name;
        let base = opt.name.strip_prefix(ext).unwrap_or(opt.name);
        let (id, mode) = match base {
            "-lt" => ("lt", IPT_TTL_LT),
            "-gt" => ("gt", IPT_TTL_GT),
            _ => ("eq", if inv { IPT_TTL_NE } else { IPT_TTL_EQ }),
        };
        let id: &'static str = match (self.v6, id) {
            (false, "lt") => "ttl-lt",
            (false, "gt") => "ttl-gt",
            (false, _) => "ttl-eq",
            (true, "lt") => "hl-lt",
            (true, "gt") => "hl-gt",
            (true, _) => "hl-eq",
        };
        self.given.set(ext, id, opt.name)?;
        self.value = uint_value(ext, opt.name, val.text(), 0, 255)? as u8;
        self.mode = mode;
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.given.0.is_none() {
            return Err(ParseError::Invalid(if self.v6 {
                "HL match: You must specify one of `--hl-eq', `--hl-lt', `--hl-gt'".into()
            } else {
                "TTL match: You must specify one of `--ttl-eq', `--ttl-lt', `--ttl-gt'".into()
            }));
        }
        Ok(())
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

    fn print(&self, _ctx: &crate::ipt::ext::api::PrintCtx, out: &mut String) {
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

fn decode_hop_xt(v6: bool, info: &[u8]) -> Option<Box<dyn Extension>> {
    let v = if v6 {
        XtView::of::<ip6t_hl_info>(info)?
    } else {
        XtView::of::<ipt_ttl_info>(info)?
    };
    let mode = v.u8(0)?;
    if mode > IPT_TTL_GT {
        return None;
    }
    let mut m = HopMatch::new(v6);
    m.mode = mode;
    m.value = v.u8(1)?;
    Some(Box::new(m))
}

fn decode_ttl_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    decode_hop_xt(false, info)
}

fn decode_hl_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    decode_hop_xt(true, info)
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
    given: GivenOpt,
}

impl HopTarget {
    fn new(v6: bool) -> HopTarget {
        HopTarget {
            v6,
            mode: 0,
            value: 0,
            given: GivenOpt::default(),
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
        let ext = self.desc().name;
        let id: &'static str = self
            .desc()
            .options
            .iter()
            .find(|o| o.name == opt.name)
            .map(|o| o.name)
            .unwrap_or("");
        self.given.set(ext, id, opt.name)?;
        let op = opt.name.rsplit('-').next().unwrap_or("");
        let mode = MODE_NAMES.iter().position(|m| *m == op).unwrap_or(0) as u8;
        let min = if mode == 0 { 0 } else { 1 };
        self.value = uint_value(ext, opt.name, val.text(), min, 255)? as u8;
        self.mode = mode;
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.given.0.is_none() {
            return Err(ParseError::Invalid(format!(
                "{}: You must specify an action",
                self.desc().name
            )));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let mut b = if self.v6 {
            XtBuf::of::<ip6t_HL_info>()
        } else {
            XtBuf::of::<ipt_TTL_info>()
        };
        b.put_u8(0, self.mode);
        b.put_u8(1, self.value);
        out.push(xt_target(self.desc().name, 0, b.into_vec()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let p = if self.v6 { "hl" } else { "ttl" };
        let m = MODE_NAMES.get(self.mode as usize).copied().unwrap_or("set");
        out.push_str(&format!(" --{p}-{m} {}", self.value));
    }

    fn print(&self, _ctx: &crate::ipt::ext::api::PrintCtx, out: &mut String) {
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

fn decode_hop_tg(v6: bool, info: &[u8]) -> Option<Box<dyn Extension>> {
    let v = if v6 {
        XtView::of::<ip6t_HL_info>(info)?
    } else {
        XtView::of::<ipt_TTL_info>(info)?
    };
    let mode = v.u8(0)?;
    if mode as usize >= MODE_NAMES.len() {
        return None;
    }
    let mut t = HopTarget::new(v6);
    t.mode = mode;
    t.value = v.u8(1)?;
    Some(Box::new(t))
}

fn decode_ttl_tg(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    decode_hop_tg(false, info)
}

fn decode_hl_tg(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    decode_hop_tg(true, info)
}

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
