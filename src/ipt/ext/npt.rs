//! `SNPT` and `DNPT`: stateless IPv6-to-IPv6 network prefix translation of the source or
//! destination address (RFC 6296; IPv6 only, `libip6t_SNPT.c`, `libip6t_DNPT.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `SNPT`/`DNPT` target, rev 0,
//! `ip6t_npt_tginfo` (36 bytes, 40 aligned): both prefixes as given (not masked) with their
//! lengths (128 without one, 255 for a mask that is no prefix); the checksum adjustment is
//! the kernel's (sent as zero, not compared). Both options are mandatory. The kernel wants
//! prefixes of at most 64 bits, the mangle table, and PREROUTING or OUTPUT for `DNPT`,
//! INPUT or POSTROUTING for `SNPT`.

use std::mem::size_of;

use iptnl_sys::xt::ip6t_npt_tginfo;

use super::base::libxt::{ntop6, parse_hostmask};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

static OPTIONS: &[Opt] =
    &super::base::opts::table([Opt::custom("src-pfx").mand(), Opt::custom("dst-pfx").mand()]);

/// `-j SNPT`.
pub static SNPT: ExtDesc = ExtDesc {
    name: "SNPT",
    kind: ExtKind::Target,
    family: Some(IpFamily::V6),
    options: OPTIONS,
    new: |_| Box::new(Npt::new(false)),
    xt_names: &["SNPT"],
    decode_xt: Some(decode_snpt),
    decode_native: None,
};

/// `-j DNPT`.
pub static DNPT: ExtDesc = ExtDesc {
    name: "DNPT",
    kind: ExtKind::Target,
    family: Some(IpFamily::V6),
    options: OPTIONS,
    new: |_| Box::new(Npt::new(true)),
    xt_names: &["DNPT"],
    decode_xt: Some(decode_dnpt),
    decode_native: None,
};

/// `-j SNPT|DNPT --src-pfx PREFIX/LEN --dst-pfx PREFIX/LEN`, as `struct ip6t_npt_tginfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct Npt {
    /// `DNPT` (else `SNPT`).
    pub dnpt: bool,
    /// The prefix translated from.
    pub src_pfx: [u8; 16],
    /// The prefix translated to.
    pub dst_pfx: [u8; 16],
    /// Length of `src_pfx`.
    pub src_pfx_len: u8,
    /// Length of `dst_pfx`.
    pub dst_pfx_len: u8,
}

/// `struct ip6t_npt_tginfo`, field by field: it decodes the options and encodes them; the
/// checksum adjustment is the kernel's.
static INFO: XtStruct<Npt> = XtStruct::new(
    "ip6t_npt_tginfo",
    size_of::<ip6t_npt_tginfo>(),
    0,
    &[
        xt_field!(ip6t_npt_tginfo, src_pfx: Bytes(16) => src_pfx),
        xt_field!(ip6t_npt_tginfo, dst_pfx: Bytes(16) => dst_pfx),
        xt_field!(ip6t_npt_tginfo, src_pfx_len: U8 => src_pfx_len),
        xt_field!(ip6t_npt_tginfo, dst_pfx_len: U8 => dst_pfx_len),
        xt_field!(ip6t_npt_tginfo, adjustment: Kernel),
    ],
);

impl Npt {
    fn new(dnpt: bool) -> Npt {
        Npt {
            dnpt,
            src_pfx: [0; 16],
            dst_pfx: [0; 16],
            src_pfx_len: 0,
            dst_pfx_len: 0,
        }
    }
}

impl Extension for Npt {
    fn desc(&self) -> &'static ExtDesc {
        if self.dnpt {
            &DNPT
        } else {
            &SNPT
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let (addr, len, _) = parse_hostmask(ctx.family, self.desc().name, opt.name, val.text())?;
        if opt.name == "src-pfx" {
            (self.src_pfx, self.src_pfx_len) = (addr, len);
        } else {
            (self.dst_pfx, self.dst_pfx_len) = (addr, len);
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target(self.desc().name, 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        // A zero prefix of length 0 is not saved, as in iptables.
        if self.src_pfx != [0; 16] || self.src_pfx_len != 0 {
            out.push_str(&format!(
                " --src-pfx {}/{}",
                ntop6(&self.src_pfx),
                self.src_pfx_len
            ));
        }
        if self.dst_pfx != [0; 16] || self.dst_pfx_len != 0 {
            out.push_str(&format!(
                " --dst-pfx {}/{}",
                ntop6(&self.dst_pfx),
                self.dst_pfx_len
            ));
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(&format!(
            " {} src-pfx {}/{} dst-pfx {}/{}",
            self.desc().name,
            ntop6(&self.src_pfx),
            self.src_pfx_len,
            ntop6(&self.dst_pfx),
            self.dst_pfx_len
        ));
    }

    crate::ext_boilerplate!();
}

fn decode(dnpt: bool, rev: u32, info: &[u8]) -> Option<Box<dyn Extension>> {
    let mut n = Npt::new(dnpt);
    INFO.read(&INFO.view(rev, info)?, &mut n)?;
    // The lengths iptables can write (0–128, or 255 for an odd mask); the padding after the
    // struct is zero.
    let len_ok = |l: u8| l <= 128 || l == u8::MAX;
    let ok = len_ok(n.src_pfx_len) && len_ok(n.dst_pfx_len) && INFO.encodes_to(&n, info);
    ok.then(|| Box::new(n) as Box<dyn Extension>)
}

fn decode_snpt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode(false, rev, info)
}

fn decode_dnpt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode(true, rev, info)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn prefixes() {
        let v6 = IpFamily::V6;
        assert_eq!(
            save_round(v6, "-j DNPT --src-pfx dead::/64 --dst-pfx 1c3::/64").unwrap(),
            "-j DNPT --src-pfx dead::/64 --dst-pfx 1c3::/64"
        );
        assert_eq!(
            save_round(v6, "-j SNPT --dst-pfx 1c3::1/48 --src-pfx dead::beef").unwrap(),
            "-j SNPT --src-pfx dead::beef/128 --dst-pfx 1c3::1/48"
        );
        let err = |s: &str| parse_rule_str(v6, s).unwrap_err().to_string();
        assert!(err("-j SNPT --src-pfx dead::/64").contains("\"--dst-pfx\" must be specified"));
        assert!(err("-j DNPT").contains("must be specified"));
        assert!(parse_rule_str(IpFamily::V4, "-j DNPT --src-pfx 1.2.3.4").is_err());
    }
}
