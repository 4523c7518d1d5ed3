//! `TEE`: send a copy of the packet to a gateway (`libxt_TEE.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `TEE` target, rev 1, `xt_tee_tginfo` (40
//! bytes): the gateway (`--gateway`, mandatory, an address or a name of the family) and the
//! output interface (`--oif`, cut to 15 bytes); the kernel's private pointer is sent as zero
//! and not compared.

use std::mem::{offset_of, size_of};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use iptnl_sys::xt::{xt_tee_tginfo, IFNAMSIZ};

use super::base::libxt::{ntop, text, truncate_bytes};
use super::base::names::{host_name, parse_host};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j TEE`.
pub static DESC: ExtDesc = ExtDesc {
    name: "TEE",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::custom("gateway").mand(), Opt::new("oif", STR)]),
    new: |f| Box::new(Tee::new(f)),
    xt_names: &["TEE"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j TEE --gateway ADDR [--oif NAME]`, as `struct xt_tee_tginfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tee {
    /// The family (IPv4 uses the first 4 bytes of the gateway).
    pub family: IpFamily,
    /// The gateway, network byte order.
    pub gw: [u8; 16],
    /// The output interface's bytes (empty for none).
    pub oif: Vec<u8>,
}

impl Tee {
    fn new(family: IpFamily) -> Tee {
        Tee {
            family,
            gw: [0; 16],
            oif: Vec::new(),
        }
    }

    fn gw_numeric(&self) -> String {
        match self.family {
            IpFamily::V4 => ntop(self.family, &self.gw[..4]),
            IpFamily::V6 => ntop(self.family, &self.gw),
        }
    }

    fn gw_addr(&self) -> IpAddr {
        match self.family {
            IpFamily::V4 => IpAddr::V4(Ipv4Addr::new(
                self.gw[0], self.gw[1], self.gw[2], self.gw[3],
            )),
            IpFamily::V6 => IpAddr::V6(Ipv6Addr::from(self.gw)),
        }
    }
}

/// `struct xt_tee_tginfo`, field by field: it decodes the options and encodes them. The
/// kernel's private pointer after them is sent as zero and not read.
static INFO: XtStruct<Tee> = XtStruct::new(
    "xt_tee_tginfo",
    size_of::<xt_tee_tginfo>(),
    1,
    &[
        xt_field!(xt_tee_tginfo, gw: Bytes(16) => gw),
        xt_field!(xt_tee_tginfo, oif: CBytes(IFNAMSIZ) => oif),
    ],
);

impl Extension for Tee {
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
        self.family = ctx.family;
        if opt.name == "gateway" {
            self.gw = parse_host(ctx.family, val.text(), "--gateway")?;
        } else {
            self.oif = truncate_bytes(val.text(), IFNAMSIZ);
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("TEE", 1, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --gateway ");
        out.push_str(&self.gw_numeric());
        if !self.oif.is_empty() {
            out.push_str(" --oif ");
            out.push_str(&text(&self.oif));
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        out.push_str(" TEE gw:");
        match host_name(self.gw_addr()).filter(|_| !ctx.numeric) {
            Some(name) => out.push_str(name),
            None => out.push_str(&self.gw_numeric()),
        }
        if !self.oif.is_empty() {
            out.push_str(" oif=");
            out.push_str(&text(&self.oif));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let mut t = Tee::new(ctx.family);
    INFO.read(&INFO.view(rev, info)?, &mut t)?;
    // An IPv4 gateway leaves the other 12 bytes zero; the name is NUL-terminated with zeros
    // after it (what re-encoding gives up to the private pointer, which is the kernel's).
    let fields = offset_of!(xt_tee_tginfo, oif) + IFNAMSIZ;
    let ok = (ctx.family == IpFamily::V6 || t.gw[4..].iter().all(|&b| b == 0))
        && t.oif.len() < IFNAMSIZ
        && INFO.encode(&t)[..fields] == info[..fields]
        && std::str::from_utf8(&t.oif).is_ok();
    ok.then(|| Box::new(t) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn gateways() {
        let (v4, v6) = (IpFamily::V4, IpFamily::V6);
        assert_eq!(
            save_round(v4, "-j TEE --gateway 1.1.1.1").unwrap(),
            "-j TEE --gateway 1.1.1.1"
        );
        assert_eq!(
            save_round(v6, "-j TEE --oif eth0 --gateway 2001:db8::1").unwrap(),
            "-j TEE --gateway 2001:db8::1 --oif eth0"
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j TEE").contains("\"--gateway\" must be specified"));
        assert!(err("-j TEE ! --gateway 1.1.1.1").contains("cannot be inverted"));
    }
}
