//! `mac`: the source MAC address (`--mac-source XX:XX:XX:XX:XX:XX`). The kernel allows it in
//! PREROUTING, INPUT and FORWARD only.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `mac` match, rev 0, `xt_mac_info` (12 bytes,
//! 16 padded). Printed in lower case.

use std::mem::size_of;

use iptnl_sys::xt::{xt_mac_info, ETH_ALEN};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::libxt::parse_mac;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `mac` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "mac",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::custom("mac-source").inv().mand()]),
    new: |_| Box::new(Mac::default()),
    xt_names: &["mac"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m mac`, as in `struct xt_mac_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mac {
    /// The source address.
    pub srcaddr: [u8; ETH_ALEN],
    /// 1 when negated.
    pub invert: i32,
}

/// Appends ` xx:xx:xx:xx:xx:xx`, the address as libxt_mac saves and lists it.
fn push_mac(out: &mut String, a: &[u8; ETH_ALEN]) {
    out.push_str(&format!(
        " {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        a[0], a[1], a[2], a[3], a[4], a[5]
    ));
}

/// `struct xt_mac_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Mac> = XtStruct::new(
    "xt_mac_info",
    size_of::<xt_mac_info>(),
    0,
    &[
        xt_field!(xt_mac_info, srcaddr: Bytes(ETH_ALEN) => srcaddr),
        xt_field!(xt_mac_info, invert: I32 => invert),
    ],
);

impl Extension for Mac {
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
        self.srcaddr = parse_mac(val.text()).ok_or_else(|| {
            ParseError::bad(
                "--mac-source",
                format!("Invalid MAC address specified: \"{}\"", val.text()),
            )
        })?;
        self.invert = inv as i32;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("mac", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --mac-source");
        push_mac(out, &self.srcaddr);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" MAC");
        save_inv(out, self.invert != 0);
        push_mac(out, &self.srcaddr);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let m = INFO.decode(rev, info)?;
    (m.invert == 0 || m.invert == 1).then(|| Box::new(m) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_examples() {
        assert_eq!(parse_mac("0:1:2:3:4:5"), Some([0, 1, 2, 3, 4, 5]));
        assert_eq!(
            parse_mac("00:11::33:44:55"),
            Some([0, 0x11, 0, 0x33, 0x44, 0x55])
        );
        assert_eq!(parse_mac("000:11:22:33:44:55"), None);
    }
}
