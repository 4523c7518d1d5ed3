//! `ecn`: the ECN bits of the IP header and the TCP ECE/CWR flags (`--ecn-tcp-cwr`,
//! `--ecn-tcp-ece`, `--ecn-ip-ect 0..3`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `ecn` match, rev 0, `xt_ecn_info` (4 bytes,
//! 8 padded). The kernel takes the TCP tests only in `-p tcp` rules.

use std::mem::size_of;

use iptnl_sys::xt::{xt_ecn_info, XT_ECN_OP_MATCH_CWR, XT_ECN_OP_MATCH_ECE, XT_ECN_OP_MATCH_IP};

use super::base::libxt::require_option;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `ecn` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "ecn",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("ecn-tcp-cwr", Ty::Flag).inv(),
        Opt::new("ecn-tcp-ece", Ty::Flag).inv(),
        Opt::new("ecn-ip-ect", Ty::Uint { min: 0, max: 3 }).inv(),
    ]),
    new: |_| Box::new(Ecn::default()),
    xt_names: &["ecn"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m ecn`, as in `struct xt_ecn_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ecn {
    /// `XT_ECN_OP_MATCH_*` bits of the tests given.
    pub operation: u8,
    /// `XT_ECN_OP_MATCH_*` bits of the negated tests.
    pub invert: u8,
    /// The IP ECT codepoint (`--ecn-ip-ect`).
    pub ip_ect: u8,
}

/// `struct xt_ecn_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Ecn> = XtStruct::new(
    "xt_ecn_info",
    size_of::<xt_ecn_info>(),
    0,
    &[
        xt_field!(xt_ecn_info, operation: U8 => operation),
        xt_field!(xt_ecn_info, invert: U8 => invert),
        xt_field!(xt_ecn_info, ip_ect: U8 => ip_ect),
    ],
);

impl Ecn {
    fn neg(&self, bit: u8) -> bool {
        self.invert & bit != 0
    }
}

impl Extension for Ecn {
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
        let bit = match opt.name {
            "ecn-tcp-cwr" => XT_ECN_OP_MATCH_CWR,
            "ecn-tcp-ece" => XT_ECN_OP_MATCH_ECE,
            _ => {
                self.ip_ect = val.uint() as u8;
                XT_ECN_OP_MATCH_IP
            }
        };
        self.operation |= bit;
        if inv {
            self.invert |= bit;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(ctx.given, "ECN match: some option required")
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("ecn", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        for (bit, name) in [
            (XT_ECN_OP_MATCH_ECE, " --ecn-tcp-ece"),
            (XT_ECN_OP_MATCH_CWR, " --ecn-tcp-cwr"),
            (XT_ECN_OP_MATCH_IP, " --ecn-ip-ect "),
        ] {
            if self.operation & bit == 0 {
                continue;
            }
            if self.neg(bit) {
                out.push_str(" !");
            }
            out.push_str(name);
            if bit == XT_ECN_OP_MATCH_IP {
                out.push_str(&self.ip_ect.to_string());
            }
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" ECN match");
        for (bit, name) in [
            (XT_ECN_OP_MATCH_ECE, "ECE"),
            (XT_ECN_OP_MATCH_CWR, "CWR"),
            (XT_ECN_OP_MATCH_IP, "ECT="),
        ] {
            if self.operation & bit == 0 {
                continue;
            }
            out.push_str(if self.neg(bit) { " !" } else { " " });
            out.push_str(name);
            if bit == XT_ECN_OP_MATCH_IP {
                out.push_str(&self.ip_ect.to_string());
            }
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let e = INFO.decode_exact(rev, info)?;
    let all = XT_ECN_OP_MATCH_IP | XT_ECN_OP_MATCH_ECE | XT_ECN_OP_MATCH_CWR;
    // A test that is not active prints nothing, so neither may its negation or value.
    let ok = e.operation != 0
        && e.operation & !all == 0
        && e.invert & !e.operation == 0
        && e.ip_ect <= 3
        && (e.operation & XT_ECN_OP_MATCH_IP != 0 || e.ip_ect == 0);
    ok.then(|| Box::new(e) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V6, args)
    }

    #[test]
    fn options() {
        for r in [
            "-p tcp -m ecn --ecn-tcp-cwr",
            "-p tcp -m ecn --ecn-tcp-ece --ecn-tcp-cwr --ecn-ip-ect 2",
            "-p tcp -m ecn ! --ecn-tcp-ece ! --ecn-tcp-cwr ! --ecn-ip-ect 2",
            "-m ecn --ecn-ip-ect 0",
        ] {
            assert_eq!(round(r).unwrap(), r);
        }
        // Saved in iptables' order: ECE, CWR, ECT.
        assert_eq!(
            round("-p tcp -m ecn --ecn-ip-ect 3 --ecn-tcp-cwr --ecn-tcp-ece").unwrap(),
            "-p tcp -m ecn --ecn-tcp-ece --ecn-tcp-cwr --ecn-ip-ect 3"
        );
        assert_eq!(
            round("-m ecn").unwrap_err(),
            "ECN match: some option required"
        );
        assert!(round("-m ecn --ecn-ip-ect 4").is_err());
        assert!(round("-m ecn --ecn-ip-ect 1 --ecn-ip-ect 1").is_err());
    }
}
