//! `ECN` target: set or clear the ECN bits of the IPv4 and TCP headers (IPv4 only,
//! `libipt_ECN.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `ECN` target, rev 0, `ipt_ECN_info` (3 bytes,
//! 8 aligned): the operation bits, the IP ECT codepoint and the TCP ECE/CWR bitfield.
//! `--ecn-tcp-remove` sets both TCP operations with both bits clear; the experimental
//! `--ecn-tcp-cwr`, `--ecn-tcp-ece` (0 or 1) and `--ecn-ip-ect` (0–3) set one each. One
//! option is needed. The kernel allows it in the mangle table, the TCP operations only with
//! `-p tcp`.

use std::mem::size_of;

use iptnl_sys::xt::{
    ipt_ECN_info, IPT_ECN_OP_SET_CWR, IPT_ECN_OP_SET_ECE, IPT_ECN_OP_SET_IP, IPT_ECN_TCP_CWR,
    IPT_ECN_TCP_ECE,
};

use super::base::libxt::require_option;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j ECN`.
pub static DESC: ExtDesc = ExtDesc {
    name: "ECN",
    kind: ExtKind::Target,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([
        Opt::flag("ecn-tcp-remove").excl(&["ecn-tcp-cwr", "ecn-tcp-ece"]),
        Opt::new("ecn-tcp-cwr", Ty::Uint { min: 0, max: 1 }).excl(&["ecn-tcp-remove"]),
        Opt::new("ecn-tcp-ece", Ty::Uint { min: 0, max: 1 }).excl(&["ecn-tcp-remove"]),
        Opt::new("ecn-ip-ect", Ty::Uint { min: 0, max: 3 }),
    ]),
    new: |_| Box::new(EcnTarget::default()),
    xt_names: &["ECN"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j ECN …`, as `struct ipt_ECN_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EcnTarget {
    /// `IPT_ECN_OP_SET_*` bits.
    pub operation: u8,
    /// The IP ECT codepoint.
    pub ip_ect: u8,
    /// The TCP bitfield: `IPT_ECN_TCP_ECE`, `IPT_ECN_TCP_CWR`.
    pub tcp: u8,
}

impl EcnTarget {
    fn removes(&self) -> bool {
        self.operation == IPT_ECN_OP_SET_ECE | IPT_ECN_OP_SET_CWR && self.tcp == 0
    }

    fn ece(&self) -> u8 {
        u8::from(self.tcp & IPT_ECN_TCP_ECE != 0)
    }

    fn cwr(&self) -> u8 {
        u8::from(self.tcp & IPT_ECN_TCP_CWR != 0)
    }
}

/// `struct ipt_ECN_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<EcnTarget> = XtStruct::new(
    "ipt_ECN_info",
    size_of::<ipt_ECN_info>(),
    0,
    &[
        xt_field!(ipt_ECN_info, operation: U8 => operation),
        xt_field!(ipt_ECN_info, ip_ect: U8 => ip_ect),
        xt_field!(ipt_ECN_info, proto_tcp: U8 => tcp),
    ],
);

impl Extension for EcnTarget {
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
        let on = val.uint() != 0;
        match opt.name {
            "ecn-tcp-remove" => {
                self.operation = IPT_ECN_OP_SET_ECE | IPT_ECN_OP_SET_CWR;
                self.tcp = 0;
            }
            "ecn-tcp-cwr" => {
                self.operation |= IPT_ECN_OP_SET_CWR;
                self.tcp = (self.tcp & !IPT_ECN_TCP_CWR) | if on { IPT_ECN_TCP_CWR } else { 0 };
            }
            "ecn-tcp-ece" => {
                self.operation |= IPT_ECN_OP_SET_ECE;
                self.tcp = (self.tcp & !IPT_ECN_TCP_ECE) | if on { IPT_ECN_TCP_ECE } else { 0 };
            }
            _ => {
                self.operation |= IPT_ECN_OP_SET_IP;
                self.ip_ect = val.uint() as u8;
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(ctx.given, "ECN target: An operation is required")
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("ECN", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.removes() {
            out.push_str(" --ecn-tcp-remove");
            return;
        }
        if self.operation & IPT_ECN_OP_SET_ECE != 0 {
            out.push_str(&format!(" --ecn-tcp-ece {}", self.ece()));
        }
        if self.operation & IPT_ECN_OP_SET_CWR != 0 {
            out.push_str(&format!(" --ecn-tcp-cwr {}", self.cwr()));
        }
        if self.operation & IPT_ECN_OP_SET_IP != 0 {
            out.push_str(&format!(" --ecn-ip-ect {}", self.ip_ect));
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" ECN");
        if self.removes() {
            out.push_str(" TCP remove");
            return;
        }
        if self.operation & IPT_ECN_OP_SET_ECE != 0 {
            out.push_str(&format!(" ECE={}", self.ece()));
        }
        if self.operation & IPT_ECN_OP_SET_CWR != 0 {
            out.push_str(&format!(" CWR={}", self.cwr()));
        }
        if self.operation & IPT_ECN_OP_SET_IP != 0 {
            out.push_str(&format!(" ECT codepoint={}", self.ip_ect));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Zero padding (`decode_exact`), then only what the options can write: known
    // operations, each value with its operation and in its range.
    let e = INFO.decode_exact(rev, info)?;
    let op = |bit: u8| e.operation & bit != 0;
    let ok = e.operation & !(IPT_ECN_OP_SET_IP | IPT_ECN_OP_SET_ECE | IPT_ECN_OP_SET_CWR) == 0
        && e.tcp & !(IPT_ECN_TCP_ECE | IPT_ECN_TCP_CWR) == 0
        && (e.tcp & IPT_ECN_TCP_ECE == 0 || op(IPT_ECN_OP_SET_ECE))
        && (e.tcp & IPT_ECN_TCP_CWR == 0 || op(IPT_ECN_OP_SET_CWR))
        && (e.ip_ect == 0 || op(IPT_ECN_OP_SET_IP))
        && e.ip_ect <= 3;
    ok.then(|| Box::new(e) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn operations() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(v4, "-p tcp -j ECN --ecn-tcp-remove").unwrap(),
            "-p tcp -j ECN --ecn-tcp-remove"
        );
        assert_eq!(
            save_round(
                v4,
                "-p tcp -j ECN --ecn-ip-ect 2 --ecn-tcp-cwr 1 --ecn-tcp-ece 0"
            )
            .unwrap(),
            "-p tcp -j ECN --ecn-tcp-ece 0 --ecn-tcp-cwr 1 --ecn-ip-ect 2"
        );
        // Both TCP bits cleared read as a removal.
        assert_eq!(
            save_round(v4, "-p tcp -j ECN --ecn-tcp-cwr 0 --ecn-tcp-ece 0").unwrap(),
            "-p tcp -j ECN --ecn-tcp-remove"
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-p tcp -j ECN").contains("ECN target: An operation is required"));
        assert!(err("-j ECN --ecn-tcp-remove --ecn-tcp-cwr 1").contains("cannot be used"));
        assert!(parse_rule_str(IpFamily::V6, "-j ECN --ecn-tcp-remove").is_err());
    }
}
