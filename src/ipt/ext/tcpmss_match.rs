//! `tcpmss`: the MSS option of TCP SYN packets (`--mss value[:value]`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `tcpmss` match, rev 0,
//! `xt_tcpmss_match_info` (5 bytes, 8 padded). The kernel takes it only in `-p tcp` rules.

use std::mem::size_of;

use iptnl_sys::xt::xt_tcpmss_match_info;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `tcpmss` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "tcpmss",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new(
        "mss",
        Ty::Range {
            min: 0,
            max: 65535,
            ordered: true,
        },
    )
    .inv()
    .mand()]),
    new: |_| Box::new(TcpMss::default()),
    xt_names: &["tcpmss"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m tcpmss`, as in `struct xt_tcpmss_match_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TcpMss {
    /// Smallest MSS.
    pub mss_min: u16,
    /// Largest MSS.
    pub mss_max: u16,
    /// 1 when negated.
    pub invert: u8,
}

/// `struct xt_tcpmss_match_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<TcpMss> = XtStruct::new(
    "xt_tcpmss_match_info",
    size_of::<xt_tcpmss_match_info>(),
    0,
    &[
        xt_field!(xt_tcpmss_match_info, mss_min: U16 => mss_min),
        xt_field!(xt_tcpmss_match_info, mss_max: U16 => mss_max),
        xt_field!(xt_tcpmss_match_info, invert: U8 => invert),
    ],
);

impl TcpMss {
    /// `min` or `min:max`, as iptables prints the range.
    fn push_range(&self, out: &mut String) {
        out.push_str(&self.mss_min.to_string());
        if self.mss_max != self.mss_min {
            out.push(':');
            out.push_str(&self.mss_max.to_string());
        }
    }
}

impl Extension for TcpMss {
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
        if max < min {
            return Err(ParseError::bad("--mss", "tcpmss: invalid range given"));
        }
        self.mss_min = min as u16;
        self.mss_max = max as u16;
        self.invert = inv as u8;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("tcpmss", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --mss ");
        self.push_range(out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(if self.invert != 0 {
            " tcpmss match !"
        } else {
            " tcpmss match "
        });
        self.push_range(out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let m = INFO.decode_exact(rev, info)?;
    (m.invert <= 1).then(|| Box::new(m) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn ranges() {
        for (given, want) in [
            ("42", "42"),
            (":", "0:65535"),
            (":42", "0:42"),
            ("42:", "42:65535"),
            ("42:42", "42"),
            ("42:12345", "42:12345"),
        ] {
            assert_eq!(
                round(&format!("-p tcp -m tcpmss --mss {given}")).unwrap(),
                format!("-p tcp -m tcpmss --mss {want}")
            );
        }
        assert_eq!(
            round("-p tcp -m tcpmss ! --mss 5").unwrap(),
            "-p tcp -m tcpmss ! --mss 5"
        );
        assert!(round("-p tcp -m tcpmss --mss 42:65536").is_err());
        assert!(round("-p tcp -m tcpmss --mss 65535:1000").is_err());
        assert!(round("-p tcp -m tcpmss").is_err());
    }
}
