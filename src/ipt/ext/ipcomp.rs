//! `ipcomp`: the CPI of IPComp headers (`--ipcompspi spi[:spi]`, `--compres`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `ipcomp` match, rev 0, `xt_ipcomp`
//! (10 bytes, 16 padded). The kernel takes it only in `-p ipcomp` rules. As in iptables,
//! a rule without `--ipcompspi` matches CPI 0 only (the range starts as `0:0`).

use std::mem::size_of;

use iptnl_sys::xt::{xt_ipcomp, XT_IPCOMP_INV_MASK, XT_IPCOMP_INV_SPI};

use super::base::ip6hdr::{save_id_range, ID_RANGE};
use super::base::libxt::{bit_if, print_u32_range, print_unknown_invflags};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `ipcomp` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "ipcomp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("ipcompspi", ID_RANGE).inv(),
        Opt::flag("compres"),
    ]),
    new: |_| Box::new(IpComp::default()),
    xt_names: &["ipcomp"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m ipcomp`, as in `struct xt_ipcomp`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IpComp {
    /// Smallest and largest CPI.
    pub spis: [u32; 2],
    /// `XT_IPCOMP_INV_SPI` or 0.
    pub invflags: u8,
    /// 1 with `--compres`.
    pub hdrres: u8,
}

/// `struct xt_ipcomp`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<IpComp> = XtStruct::new(
    "xt_ipcomp",
    size_of::<xt_ipcomp>(),
    0,
    &[
        xt_field!(xt_ipcomp, spis: U32Pair => spis),
        xt_field!(xt_ipcomp, invflags: U8 => invflags),
        xt_field!(xt_ipcomp, hdrres: U8 => hdrres),
    ],
);

impl IpComp {
    fn inv(&self) -> bool {
        self.invflags & XT_IPCOMP_INV_SPI != 0
    }
}

impl Extension for IpComp {
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
        if opt.name == "compres" {
            self.hdrres = 1;
        } else {
            let [lo, hi] = val.range();
            self.spis = [lo as u32, hi as u32];
            self.invflags |= bit_if(inv, XT_IPCOMP_INV_SPI);
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("ipcomp", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_id_range(out, "ipcompspi", self.spis, self.inv());
        if self.hdrres != 0 {
            out.push_str(" --compres");
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" comp ");
        print_u32_range(out, "spi", self.inv(), self.spis);
        if self.hdrres != 0 {
            out.push_str(" reserved");
        }
        print_unknown_invflags(out, self.invflags, XT_IPCOMP_INV_MASK);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    (c.invflags & !XT_IPCOMP_INV_MASK == 0 && c.hdrres <= 1).then(|| Box::new(c) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn spis() {
        let p = "-p ipcomp -m ipcomp";
        for (given, want) in [
            (" --ipcompspi 18 -j DROP", " --ipcompspi 18 -j DROP"),
            (" ! --ipcompspi 18", " ! --ipcompspi 18"),
            (" --ipcompspi :", ""),
            (" ! --ipcompspi :", " ! --ipcompspi 0:4294967295"),
            (" --ipcompspi :4", " --ipcompspi 0:4"),
            (" --ipcompspi 4:", " --ipcompspi 4:4294967295"),
            (" --ipcompspi 4:4", " --ipcompspi 4"),
            ("", " --ipcompspi 0"),
            (" --compres", " --ipcompspi 0 --compres"),
        ] {
            assert_eq!(round(&format!("{p}{given}")).unwrap(), format!("{p}{want}"));
        }
        assert!(round(&format!("{p} --ipcompspi 4:3")).is_err());
    }
}
