//! `mh` (IPv6): the mobility header type (`-p mh -m mh [!] --mh-type type[:type]`, names such
//! as `binding-update` or `bu`, any unambiguous-first prefix of them, or numbers).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `mh` rev 0, `struct ip6t_mh`; the kernel wants
//! `-p mh`. An inverted full range is printed (iptables 1.8.11; 1.8.9 dropped it).

use std::mem::size_of;

use iptnl_sys::xt::{ip6t_mh, IP6T_MH_INV_TYPE};

use super::base::libxt::{bit_if, print_unknown_invflags, save_u32_range, strtoul_full};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `mh` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "mh",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([Opt::new("mh-type", STR).inv()]),
    new: |_| Box::new(Mh::default()),
    xt_names: &["mh"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Mobility header type names (`mh_names`), in iptables' order.
const MH_NAMES: &[(&str, u8)] = &[
    ("binding-refresh-request", 0),
    ("brr", 0),
    ("home-test-init", 1),
    ("hoti", 1),
    ("careof-test-init", 2),
    ("coti", 2),
    ("home-test", 3),
    ("hot", 3),
    ("careof-test", 4),
    ("cot", 4),
    ("binding-update", 5),
    ("bu", 5),
    ("binding-acknowledgement", 6),
    ("ba", 6),
    ("binding-error", 7),
    ("be", 7),
];

/// `name_to_type`: the first name the text is a (case-insensitive) prefix of, unless a later
/// one matches exactly; else a number 0–255.
pub fn mh_type(s: &str) -> Result<u8, ParseError> {
    let mut found: Option<u8> = None;
    for (name, ty) in MH_NAMES {
        let prefix =
            name.len() >= s.len() && name.as_bytes()[..s.len()].eq_ignore_ascii_case(s.as_bytes());
        if prefix && (found.is_none() || name.len() == s.len()) {
            found = Some(*ty);
        }
    }
    if let Some(t) = found {
        return Ok(t);
    }
    strtoul_full(s, 0, 255)
        .map(|v| v as u8)
        .ok_or_else(|| ParseError::bad("--mh-type", format!("Invalid MH type `{s}'")))
}

/// `-m mh`, as `struct ip6t_mh`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mh {
    /// Type range.
    pub types: [u8; 2],
    /// `IP6T_MH_INV_*` bits.
    pub invflags: u8,
}

impl Default for Mh {
    fn default() -> Self {
        Mh {
            types: [0, 0xff],
            invflags: 0,
        }
    }
}

/// `struct ip6t_mh`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Mh> = XtStruct::new(
    "ip6t_mh",
    size_of::<ip6t_mh>(),
    0,
    &[
        xt_field!(ip6t_mh, types: Bytes(2) => types),
        xt_field!(ip6t_mh, invflags: U8 => invflags),
    ],
);

impl Extension for Mh {
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
        let v = val.text();
        self.types = match v.split_once(':') {
            None => {
                let t = mh_type(v)?;
                [t, t]
            }
            Some((a, b)) => {
                let lo = if a.is_empty() { 0 } else { mh_type(a)? };
                let hi = if b.is_empty() { 0xff } else { mh_type(b)? };
                if lo > hi {
                    return Err(ParseError::bad(
                        "--mh-type",
                        "Invalid MH type range (min > max)",
                    ));
                }
                [lo, hi]
            }
        };
        self.invflags |= bit_if(inv, IP6T_MH_INV_TYPE);
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("mh", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let inv = self.invflags & IP6T_MH_INV_TYPE != 0;
        if self.types == [0, 0xff] && !inv {
            return;
        }
        save_inv(out, inv);
        out.push_str(" --mh-type ");
        save_u32_range(out, self.types.map(u32::from));
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" mh");
        let inv = self.invflags & IP6T_MH_INV_TYPE != 0;
        if self.types != [0, 0xff] || inv {
            let name = |t: u8| -> String {
                MH_NAMES
                    .iter()
                    .find(|(_, v)| *v == t)
                    .filter(|_| !ctx.numeric)
                    .map_or_else(|| t.to_string(), |(n, _)| (*n).to_owned())
            };
            out.push(' ');
            if inv {
                out.push('!');
            }
            out.push_str(&name(self.types[0]));
            if self.types[0] != self.types[1] {
                out.push(':');
                out.push_str(&name(self.types[1]));
            }
        }
        print_unknown_invflags(out, self.invflags, IP6T_MH_INV_TYPE);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_iptables() {
        assert_eq!(mh_type("b").unwrap(), 0);
        assert_eq!(mh_type("BU").unwrap(), 5);
        assert_eq!(mh_type("be").unwrap(), 7);
        assert_eq!(mh_type("hot").unwrap(), 3);
        assert_eq!(mh_type("home-test").unwrap(), 3);
        assert_eq!(mh_type("200").unwrap(), 200);
        assert!(mh_type("256").is_err());
        assert!(mh_type("xyz").is_err());
    }
}
