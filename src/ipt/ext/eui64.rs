//! `eui64`: the IPv6 source address's interface identifier is the EUI-64 of the packet's
//! source MAC address (no options). The kernel takes it in PREROUTING, INPUT and FORWARD.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `eui64` match, rev 0, with an `int`'s
//! worth of zero bytes (`XT_ALIGN(sizeof(int))`, 8).

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The info iptables sends: `XT_ALIGN(sizeof(int))` zero bytes.
const INFO: [u8; 8] = [0; 8];

/// The `eui64` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "eui64",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([]),
    new: |_| Box::new(Eui64),
    xt_names: &["eui64"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-m eui64`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Eui64;

impl Extension for Eui64 {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        _inv: bool,
        _val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("eui64", 0, INFO.to_vec()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, _out: &mut String) {}

    fn print(&self, _ctx: &PrintCtx, _out: &mut String) {}

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    (rev == 0 && info == INFO).then(|| Box::new(Eui64) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    #[test]
    fn no_options() {
        assert_eq!(
            crate::ipt::ext::save_round(IpFamily::V6, "-m eui64").unwrap(),
            "-m eui64"
        );
        assert!(crate::ipt::ext::save_round(IpFamily::V4, "-m eui64").is_err());
        assert!(crate::ipt::ext::save_round(IpFamily::V6, "-m eui64 --x").is_err());
    }
}
