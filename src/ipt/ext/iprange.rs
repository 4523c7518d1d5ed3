//! `iprange`: source or destination address in a range (`--src-range a[-b]`,
//! `--dst-range a[-b]`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `iprange` match, rev 1, `xt_iprange_mtinfo`
//! (68 bytes, 72 padded); an IPv4 address takes the first 4 bytes of its 16. IPv4 addresses
//! are read as `xtables_numeric_to_ipaddr` reads them (`10.1` is `10.1.0.0`), IPv6 ones as
//! `inet_pton`. A reversed range is accepted (it never matches), as iptables does.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_iprange_mtinfo, IPRANGE_DST, IPRANGE_DST_INV, IPRANGE_SRC, IPRANGE_SRC_INV,
};

use super::base::libxt::{ntop, parse_ipv4_xtables, parse_ipv6};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `iprange` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "iprange",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("src-range", STR).inv(),
        Opt::new("dst-range", STR).inv(),
    ]),
    new: |_| Box::new(IpRange::default()),
    xt_names: &["iprange"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m iprange`, as in `struct xt_iprange_mtinfo` (addresses as 16 network-order
/// bytes, IPv4 in the first four).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IpRange {
    /// First and last source address.
    pub src: [[u8; 16]; 2],
    /// First and last destination address.
    pub dst: [[u8; 16]; 2],
    /// `IPRANGE_*` bits.
    pub flags: u8,
}

fn parse_addr(family: IpFamily, s: &str, opt: &str) -> Result<[u8; 16], ParseError> {
    let bad = || ParseError::bad(opt, format!("Bad value \"{s}\""));
    match family {
        IpFamily::V4 => {
            let a = parse_ipv4_xtables(s).ok_or_else(bad)?;
            let mut out = [0u8; 16];
            out[..4].copy_from_slice(&a);
            Ok(out)
        }
        IpFamily::V6 => parse_ipv6(s).ok_or_else(bad),
    }
}

fn parse_range(family: IpFamily, s: &str, opt: &str) -> Result<[[u8; 16]; 2], ParseError> {
    match s.split_once('-') {
        None => {
            let a = parse_addr(family, s, opt)?;
            Ok([a, a])
        }
        Some((a, b)) => Ok([parse_addr(family, a, opt)?, parse_addr(family, b, opt)?]),
    }
}

/// An `union nf_inet_addr` field of `xt_iprange_mtinfo` held at `$p[$i]` (16 bytes).
macro_rules! addr {
    ($cf:ident, $p:ident[$i:literal]) => {
        Field {
            name: stringify!($cf),
            at: offset_of!(xt_iprange_mtinfo, $cf),
            kind: Kind::Bytes(16, |s| &s.$p[$i], |s, v| s.$p[$i].copy_from_slice(v)),
        }
    };
}

/// `struct xt_iprange_mtinfo`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<IpRange> = XtStruct::new(
    "xt_iprange_mtinfo",
    size_of::<xt_iprange_mtinfo>(),
    1,
    &[
        addr!(src_min, src[0]),
        addr!(src_max, src[1]),
        addr!(dst_min, dst[0]),
        addr!(dst_max, dst[1]),
        xt_field!(xt_iprange_mtinfo, flags: U8 => flags),
    ],
);

impl Extension for IpRange {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let shown = opt.shown();
        let r = parse_range(ctx.family, val.text(), &shown)?;
        if opt.name == "src-range" {
            self.src = r;
            self.flags |= IPRANGE_SRC | if inv { IPRANGE_SRC_INV } else { 0 };
        } else {
            self.dst = r;
            self.flags |= IPRANGE_DST | if inv { IPRANGE_DST_INV } else { 0 };
        }
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.flags == 0 {
            return Err(ParseError::Invalid(
                "iprange match: You must specify `--src-range' or `--dst-range'".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("iprange", 1, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, family: IpFamily, out: &mut String) {
        for (flag, inv, name, r) in [
            (IPRANGE_SRC, IPRANGE_SRC_INV, "--src-range", &self.src),
            (IPRANGE_DST, IPRANGE_DST_INV, "--dst-range", &self.dst),
        ] {
            if self.flags & flag == 0 {
                continue;
            }
            if self.flags & inv != 0 {
                out.push_str(" !");
            }
            out.push_str(&format!(
                " {name} {}-{}",
                ntop(family, &r[0]),
                ntop(family, &r[1])
            ));
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        for (flag, inv, name, r) in [
            (IPRANGE_SRC, IPRANGE_SRC_INV, " source IP range", &self.src),
            (
                IPRANGE_DST,
                IPRANGE_DST_INV,
                " destination IP range",
                &self.dst,
            ),
        ] {
            if self.flags & flag == 0 {
                continue;
            }
            out.push_str(name);
            if self.flags & inv != 0 {
                out.push_str(" !");
            }
            out.push_str(&format!(
                " {}-{}",
                ntop(ctx.family, &r[0]),
                ntop(ctx.family, &r[1])
            ));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let r = INFO.decode(rev, info)?;
    // Only what iptables prints back: known flags, inversions of ranges in use, no
    // address bytes beyond an IPv4 address, no range of a test not in use.
    let v4_clean = |r: &[[u8; 16]; 2]| r.iter().all(|x| x[4..] == [0; 12]);
    let ok = r.flags & !(IPRANGE_SRC | IPRANGE_DST | IPRANGE_SRC_INV | IPRANGE_DST_INV) == 0
        && r.flags & (IPRANGE_SRC | IPRANGE_DST) != 0
        && (r.flags & IPRANGE_SRC_INV == 0 || r.flags & IPRANGE_SRC != 0)
        && (r.flags & IPRANGE_DST_INV == 0 || r.flags & IPRANGE_DST != 0)
        && (r.flags & IPRANGE_SRC != 0 || r.src == [[0; 16]; 2])
        && (r.flags & IPRANGE_DST != 0 || r.dst == [[0; 16]; 2])
        && (ctx.family == IpFamily::V6 || (v4_clean(&r.src) && v4_clean(&r.dst)));
    ok.then(|| Box::new(r) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_forms() {
        let p = |s| parse_range(IpFamily::V4, s, "--src-range");
        let r = p("10.1-10.2").unwrap();
        assert_eq!(&r[0][..4], &[10, 1, 0, 0]);
        assert_eq!(&r[1][..4], &[10, 2, 0, 0]);
        assert!(p("10.0.0.1-").is_err());
        assert!(p("-10.0.0.1").is_err());
        assert!(p("1-2-3").is_err());
        assert!(p("1.2.3.256").is_err());
    }
}
