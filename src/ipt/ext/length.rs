//! `length`: the layer-3 packet length (`--length min[:max]`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `length` match, rev 0, `xt_length_info`
//! (6 bytes, 8 padded).

use std::mem::offset_of;

use iptnl_sys::xt::xt_length_info;

use super::libxt::strtoul_prefix;
use crate::ipt::error::ParseError;
use crate::ipt::ext::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, OptSpec, ParseCtx,
    Seen, XtBuf, XtView,
};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The `length` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "length",
    kind: ExtKind::Match,
    family: None,
    options: &[OptSpec::inv("length")],
    new: |_| Box::new(Length::default()),
    xt_names: &["length"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m length`, as in `struct xt_length_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Length {
    /// Smallest length.
    pub min: u16,
    /// Largest length.
    pub max: u16,
    /// 1 when negated.
    pub invert: u8,
    seen: Seen,
}

/// Parses a range of up to two `:`-separated numbers as libxtables' `XTTYPE_UINT16RC`
/// (`a`, `a:b`, `:b`, `a:`, `:`): an empty first part is 0, an empty second part the maximum.
/// Returns the values given (one or two).
pub fn parse_u16_range(opt: &str, ext: &str, arg: &str) -> Result<Vec<u16>, ParseError> {
    let shown = format!("--{opt}");
    let mut vals = Vec::with_capacity(2);
    let mut rest = arg;
    loop {
        if vals.len() == 2 {
            return Err(ParseError::bad(
                &shown,
                format!("{ext}: Too many components for option \"{shown}\" (max: 2)"),
            ));
        }
        let (value, after) = if rest.is_empty() || rest.starts_with(':') {
            (if vals.len() == 1 { u16::MAX as u64 } else { 0 }, rest)
        } else {
            match strtoul_prefix(rest) {
                Some((v, after)) if v <= u16::MAX as u64 => {
                    if !after.is_empty() && !after.starts_with(':') {
                        return Err(ParseError::bad(
                            &shown,
                            format!("Argument has unexpected characters near \"{after}\""),
                        ));
                    }
                    (v, after)
                }
                _ => {
                    return Err(ParseError::bad(
                        &shown,
                        format!("bad value near \"{rest}\", or out of range (0-65535)"),
                    ))
                }
            }
        };
        vals.push(value as u16);
        match after.strip_prefix(':') {
            Some(r) => rest = r,
            None => break,
        }
    }
    Ok(vals)
}

impl Length {
    fn to_xt(&self) -> Vec<u8> {
        let mut b = XtBuf::of::<xt_length_info>();
        b.put_u16(offset_of!(xt_length_info, min), self.min);
        b.put_u16(offset_of!(xt_length_info, max), self.max);
        b.put_u8(offset_of!(xt_length_info, invert), self.invert);
        b.into_vec()
    }
}

impl Extension for Length {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &OptSpec,
        inv: bool,
        values: &[&str],
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.seen.once(&DESC, opt.name)?;
        let v = parse_u16_range("length", "length", values[0])?;
        self.min = v[0];
        self.max = *v.get(1).unwrap_or(&v[0]);
        self.invert = inv as u8;
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if !self.seen.has(&DESC, "length") {
            return Err(ParseError::Invalid(
                "length: option \"--length\" must be specified".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("length", 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.invert != 0 {
            out.push_str(" !");
        }
        if self.min == self.max {
            out.push_str(&format!(" --length {}", self.min));
        } else {
            out.push_str(&format!(" --length {}:{}", self.min, self.max));
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::api::PrintCtx, out: &mut String) {
        out.push_str(if self.invert != 0 {
            " length !"
        } else {
            " length "
        });
        if self.min == self.max {
            out.push_str(&self.min.to_string());
        } else {
            out.push_str(&format!("{}:{}", self.min, self.max));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    let v = XtView::of::<xt_length_info>(info)?;
    let l = Length {
        min: v.u16(offset_of!(xt_length_info, min))?,
        max: v.u16(offset_of!(xt_length_info, max))?,
        invert: v.u8(offset_of!(xt_length_info, invert))?,
        seen: Seen::default(),
    };
    (l.invert <= 1 && l.to_xt() == info).then(|| Box::new(l) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let p = |s| parse_u16_range("length", "length", s);
        assert_eq!(p("100").unwrap(), vec![100]);
        assert_eq!(p(":200").unwrap(), vec![0, 200]);
        assert_eq!(p("200:").unwrap(), vec![200, 65535]);
        assert_eq!(p(":").unwrap(), vec![0, 65535]);
        assert_eq!(p("").unwrap(), vec![0]);
        assert_eq!(p("0x10").unwrap(), vec![16]);
        assert!(p("1:2:3").is_err());
        assert!(p("65536").is_err());
        assert!(p("1-5").is_err());
    }
}
