//! `TCPMSS`: set or clamp the MSS option of TCP SYN packets (`libxt_TCPMSS.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `TCPMSS` target, rev 0, `xt_tcpmss_info`
//! (2 bytes, 8 aligned); `--clamp-mss-to-pmtu` is the MSS value `0xffff`. Given both options,
//! the last one wins, as in iptables. `--set-mss` goes up to 65535 minus the IP header (65515
//! for IPv4, 65495 for IPv6). The kernel wants `-p tcp` and, for clamping, the FORWARD,
//! OUTPUT or POSTROUTING hook (any table).

use std::mem::size_of;

use iptnl_sys::xt::{xt_tcpmss_info, XT_TCPMSS_CLAMP_PMTU};

use super::base::libxt::require_option;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::parse_uint;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j TCPMSS`.
pub static DESC: ExtDesc = ExtDesc {
    name: "TCPMSS",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::custom("set-mss"), Opt::flag("clamp-mss-to-pmtu")]),
    new: |_| Box::new(Tcpmss::default()),
    xt_names: &["TCPMSS"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j TCPMSS …`, as `struct xt_tcpmss_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tcpmss {
    /// The MSS, or `0xffff` to clamp to the path MTU.
    pub mss: u16,
}

/// `struct xt_tcpmss_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Tcpmss> = XtStruct::new(
    "xt_tcpmss_info",
    size_of::<xt_tcpmss_info>(),
    0,
    &[xt_field!(xt_tcpmss_info, mss: U16 => mss)],
);

impl Extension for Tcpmss {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        match opt.name {
            "set-mss" => {
                let max = match ctx.family {
                    IpFamily::V4 => 65535 - 20,
                    IpFamily::V6 => 65535 - 40,
                };
                // The largest MSS depends on the family's header size, so the value is
                // parsed here rather than by the table.
                self.mss = parse_uint("TCPMSS", opt.name, val.text(), 0, max)? as u16;
            }
            _ => self.mss = XT_TCPMSS_CLAMP_PMTU,
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(
            ctx.given,
            "TCPMSS target: At least one parameter is required",
        )
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("TCPMSS", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.mss == XT_TCPMSS_CLAMP_PMTU {
            out.push_str(" --clamp-mss-to-pmtu");
        } else {
            out.push_str(&format!(" --set-mss {}", self.mss));
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        if self.mss == XT_TCPMSS_CLAMP_PMTU {
            out.push_str(" TCPMSS clamp to PMTU");
        } else {
            out.push_str(&format!(" TCPMSS set {}", self.mss));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}
