//! `length`: the layer-3 packet length (`--length min[:max]`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `length` match, rev 0, `xt_length_info`
//! (6 bytes, 8 padded).

use std::mem::size_of;

use iptnl_sys::xt::xt_length_info;

use super::base::libxt::save_u32_range;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `length` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "length",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new(
        "length",
        Ty::Range {
            min: 0,
            max: 65535,
            ordered: true,
        },
    )
    .inv()
    .mand()]),
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
}

/// `struct xt_length_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Length> = XtStruct::new(
    "xt_length_info",
    size_of::<xt_length_info>(),
    0,
    &[
        xt_field!(xt_length_info, min: U16 => min),
        xt_field!(xt_length_info, max: U16 => max),
        xt_field!(xt_length_info, invert: U8 => invert),
    ],
);

impl Extension for Length {
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
        let [min, max] = val.range();
        self.min = min as u16;
        self.max = max as u16;
        self.invert = inv as u8;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("length", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --length ");
        save_u32_range(out, [self.min.into(), self.max.into()]);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(if self.invert != 0 {
            " length !"
        } else {
            " length "
        });
        save_u32_range(out, [self.min.into(), self.max.into()]);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let l = INFO.decode_exact(rev, info)?;
    (l.invert <= 1).then(|| Box::new(l) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let p = |s: &str| {
            let mut l = Length::default();
            crate::ipt::ext::base::opts::feed(&mut l, IpFamily::V4, None, "length", s)
                .map(|()| (l.min, l.max))
        };
        assert_eq!(p("100").unwrap(), (100, 100));
        assert_eq!(p(":200").unwrap(), (0, 200));
        assert_eq!(p("200:").unwrap(), (200, 65535));
        assert_eq!(p(":").unwrap(), (0, 65535));
        assert_eq!(p("").unwrap(), (0, 0));
        assert_eq!(p("0x10").unwrap(), (16, 16));
        assert!(p("1:2:3").is_err());
        assert!(p("65536").is_err());
        assert!(p("1-5").is_err());
        // iptables 1.8.9 took a reversed range; 1.8.11 refuses it, as iptnl does.
        assert_eq!(
            p("5:3").unwrap_err().to_string(),
            "--length: length: bad value for option \"--length\" near \"3\", or out of range (5-65535)."
        );
    }
}
