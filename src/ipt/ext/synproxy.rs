//! `SYNPROXY`: answer TCP SYNs with SYN cookies, and connect to the server only once the
//! client has completed the handshake (`libxt_SYNPROXY.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `SYNPROXY` target, rev 0, `xt_synproxy_info`
//! (4 bytes, 8 aligned): the option bits, the window scale and the MSS. `--wscale` and
//! `--mss` read 32-bit numbers that are stored cut to 8 and 16 bits, as iptables does. The
//! kernel wants `-p tcp` and the INPUT or FORWARD hook, in the filter table.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_synproxy_info, XT_SYNPROXY_OPT_ECN, XT_SYNPROXY_OPT_MSS, XT_SYNPROXY_OPT_SACK_PERM,
    XT_SYNPROXY_OPT_TIMESTAMP, XT_SYNPROXY_OPT_WSCALE,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::U32;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j SYNPROXY`.
pub static DESC: ExtDesc = ExtDesc {
    name: "SYNPROXY",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("sack-perm"),
        Opt::flag("timestamp"),
        Opt::new("wscale", U32),
        Opt::new("mss", U32),
        Opt::flag("ecn"),
    ]),
    new: |_| Box::new(Synproxy::default()),
    xt_names: &["SYNPROXY"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Every option bit.
const KNOWN: u8 = XT_SYNPROXY_OPT_MSS
    | XT_SYNPROXY_OPT_WSCALE
    | XT_SYNPROXY_OPT_SACK_PERM
    | XT_SYNPROXY_OPT_TIMESTAMP
    | XT_SYNPROXY_OPT_ECN;

/// `-j SYNPROXY …`, as `struct xt_synproxy_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Synproxy {
    /// `XT_SYNPROXY_OPT_*` bits.
    pub options: u8,
    /// Window scale.
    pub wscale: u8,
    /// MSS.
    pub mss: u16,
}

impl Synproxy {
    /// The words of save (`lead` `--`) and of `-L` (`lead` empty, a space after each).
    fn words(&self, lead: &str, out: &mut String) {
        let sep = |w: String, out: &mut String| {
            if lead.is_empty() {
                out.push_str(&w);
                out.push(' ');
            } else {
                out.push(' ');
                out.push_str(lead);
                out.push_str(&w);
            }
        };
        if self.options & XT_SYNPROXY_OPT_SACK_PERM != 0 {
            sep("sack-perm".into(), out);
        }
        if self.options & XT_SYNPROXY_OPT_TIMESTAMP != 0 {
            sep("timestamp".into(), out);
        }
        if self.options & XT_SYNPROXY_OPT_WSCALE != 0 {
            sep(format!("wscale {}", self.wscale), out);
        }
        if self.options & XT_SYNPROXY_OPT_MSS != 0 {
            sep(format!("mss {}", self.mss), out);
        }
        if self.options & XT_SYNPROXY_OPT_ECN != 0 {
            sep("ecn".into(), out);
        }
    }
}

/// `struct xt_synproxy_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Synproxy> = XtStruct::new(
    "xt_synproxy_info",
    size_of::<xt_synproxy_info>(),
    0,
    &[
        xt_field!(xt_synproxy_info, options: U8 => options),
        xt_field!(xt_synproxy_info, wscale: U8 => wscale),
        xt_field!(xt_synproxy_info, mss: U16 => mss),
    ],
);

impl Extension for Synproxy {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let bit = match opt.name {
            "sack-perm" => XT_SYNPROXY_OPT_SACK_PERM,
            "timestamp" => XT_SYNPROXY_OPT_TIMESTAMP,
            "wscale" => {
                self.wscale = val.uint() as u8;
                XT_SYNPROXY_OPT_WSCALE
            }
            "mss" => {
                self.mss = val.uint() as u16;
                XT_SYNPROXY_OPT_MSS
            }
            _ => XT_SYNPROXY_OPT_ECN,
        };
        self.options |= bit;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("SYNPROXY", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.words("--", out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" SYNPROXY ");
        self.words("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Zero padding (`decode_exact`), known bits, no value without its bit.
    let s = INFO.decode_exact(rev, info)?;
    let ok = s.options & !KNOWN == 0
        && (s.wscale == 0 || s.options & XT_SYNPROXY_OPT_WSCALE != 0)
        && (s.mss == 0 || s.options & XT_SYNPROXY_OPT_MSS != 0);
    ok.then(|| Box::new(s) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::IpFamily;

    #[test]
    fn options() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(
                v4,
                "-p tcp -j SYNPROXY --mss 1460 --wscale 9 --timestamp --sack-perm"
            )
            .unwrap(),
            "-p tcp -j SYNPROXY --sack-perm --timestamp --wscale 9 --mss 1460"
        );
        assert_eq!(
            save_round(v4, "-p tcp -j SYNPROXY --ecn --wscale 300").unwrap(),
            "-p tcp -j SYNPROXY --wscale 44 --ecn"
        );
        assert_eq!(
            save_round(v4, "-p tcp -j SYNPROXY").unwrap(),
            "-p tcp -j SYNPROXY"
        );
    }
}
