//! `addrtype` match (`-m addrtype [!] --src-type TYPES [!] --dst-type TYPES
//! [--limit-iface-in | --limit-iface-out]`): the routing type of the packet's addresses.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `addrtype` match, revision 1
//! (`xt_addrtype_info_v1`). Decoding: revisions 0 (IPv4 only) and 1.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_addrtype_info, xt_addrtype_info_v1, XT_ADDRTYPE_INVERT_DEST, XT_ADDRTYPE_INVERT_SOURCE,
    XT_ADDRTYPE_LIMIT_IFACE_IN, XT_ADDRTYPE_LIMIT_IFACE_OUT,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::libxt::{abbrev_of, bit_if, for_each_listed};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `addrtype` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "addrtype",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("src-type", STR).inv(),
        Opt::new("dst-type", STR).inv(),
        Opt::flag("limit-iface-in").excl(&["limit-iface-out"]),
        Opt::flag("limit-iface-out").excl(&["limit-iface-in"]),
    ]),
    new: |_| Box::new(Addrtype::default()),
    xt_names: &["addrtype"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Route types (`RTN_*`), bit `1 << index` each, in the order iptables matches and prints
/// them.
const TYPES: &[&str] = &[
    "UNSPEC",
    "UNICAST",
    "LOCAL",
    "BROADCAST",
    "ANYCAST",
    "MULTICAST",
    "BLACKHOLE",
    "UNREACHABLE",
    "PROHIBIT",
    "THROW",
    "NAT",
    "XRESOLVE",
];

/// Options of `-m addrtype`, as in `struct xt_addrtype_info_v1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Addrtype {
    /// Source address types (`1 << RTN_*`), 0 for no test.
    pub source: u16,
    /// Destination address types.
    pub dest: u16,
    /// `XT_ADDRTYPE_INVERT_*` and `XT_ADDRTYPE_LIMIT_IFACE_*`.
    pub flags: u32,
}

/// Parses a comma-separated type list; each word may be a case-insensitive abbreviation,
/// taken as the first type it abbreviates (as iptables' `strncasecmp` loop does).
fn parse_types(s: &str, opt: &str) -> Result<u16, ParseError> {
    let mut mask = 0;
    for_each_listed(s, |word, rest| {
        let idx = TYPES
            .iter()
            .position(|t| abbrev_of(word, t))
            .ok_or_else(|| ParseError::bad(opt, format!("addrtype: bad type \"{rest}\"")))?;
        mask |= 1 << idx;
        Ok(())
    })?;
    Ok(mask)
}

fn save_types(out: &mut String, mask: u16) {
    let mut sep = ' ';
    for (i, name) in TYPES.iter().enumerate() {
        if mask & (1 << i) != 0 {
            out.push(sep);
            out.push_str(name);
            sep = ',';
        }
    }
}

/// IPv4's revision 0, `struct xt_addrtype_info`, field by field: each inversion is a word
/// of its own, read as set when not 0 (and written 1).
static V0: XtStruct<Addrtype> = XtStruct::new(
    "xt_addrtype_info",
    size_of::<xt_addrtype_info>(),
    0,
    &[
        xt_field!(xt_addrtype_info, source: U16 => source),
        xt_field!(xt_addrtype_info, dest: U16 => dest),
        Field {
            name: "invert_source",
            at: offset_of!(xt_addrtype_info, invert_source),
            kind: Kind::U32(
                |s| u32::from(s.flags & XT_ADDRTYPE_INVERT_SOURCE != 0),
                |s, v| s.flags |= bit_if(v != 0, XT_ADDRTYPE_INVERT_SOURCE),
            ),
        },
        Field {
            name: "invert_dest",
            at: offset_of!(xt_addrtype_info, invert_dest),
            kind: Kind::U32(
                |s| u32::from(s.flags & XT_ADDRTYPE_INVERT_DEST != 0),
                |s, v| s.flags |= bit_if(v != 0, XT_ADDRTYPE_INVERT_DEST),
            ),
        },
    ],
);

/// `struct xt_addrtype_info_v1`, field by field: it decodes the options and encodes them.
static V1: XtStruct<Addrtype> = XtStruct::new(
    "xt_addrtype_info_v1",
    size_of::<xt_addrtype_info_v1>(),
    1,
    &[
        xt_field!(xt_addrtype_info_v1, source: U16 => source),
        xt_field!(xt_addrtype_info_v1, dest: U16 => dest),
        xt_field!(xt_addrtype_info_v1, flags: U32 => flags),
    ],
);

impl Extension for Addrtype {
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
        let shown = opt.shown();
        match opt.name {
            "src-type" => {
                self.source |= parse_types(val.text(), &shown)?;
                self.flags |= bit_if(inv, XT_ADDRTYPE_INVERT_SOURCE);
            }
            "dst-type" => {
                self.dest |= parse_types(val.text(), &shown)?;
                self.flags |= bit_if(inv, XT_ADDRTYPE_INVERT_DEST);
            }
            "limit-iface-in" => self.flags |= XT_ADDRTYPE_LIMIT_IFACE_IN,
            _ => self.flags |= XT_ADDRTYPE_LIMIT_IFACE_OUT,
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if !ctx.given.has("src-type") && !ctx.given.has("dst-type") {
            return Err(ParseError::Invalid(
                "addrtype: you must specify --src-type or --dst-type".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("addrtype", 1, V1.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.source != 0 {
            save_inv(out, self.flags & XT_ADDRTYPE_INVERT_SOURCE != 0);
            out.push_str(" --src-type");
            save_types(out, self.source);
        }
        if self.dest != 0 {
            save_inv(out, self.flags & XT_ADDRTYPE_INVERT_DEST != 0);
            out.push_str(" --dst-type");
            save_types(out, self.dest);
        }
        if self.flags & XT_ADDRTYPE_LIMIT_IFACE_IN != 0 {
            out.push_str(" --limit-iface-in");
        }
        if self.flags & XT_ADDRTYPE_LIMIT_IFACE_OUT != 0 {
            out.push_str(" --limit-iface-out");
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" ADDRTYPE match");
        for (mask, inv, name) in [
            (self.source, XT_ADDRTYPE_INVERT_SOURCE, " src-type "),
            (self.dest, XT_ADDRTYPE_INVERT_DEST, " dst-type "),
        ] {
            if mask != 0 {
                out.push_str(name);
                if self.flags & inv != 0 {
                    out.push('!');
                }
                let mut words = String::new();
                save_types(&mut words, mask);
                out.push_str(words.trim_start());
            }
        }
        if self.flags & XT_ADDRTYPE_LIMIT_IFACE_IN != 0 {
            out.push_str(" limit-in");
        }
        if self.flags & XT_ADDRTYPE_LIMIT_IFACE_OUT != 0 {
            out.push_str(" limit-out");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = match rev {
        0 if ctx.family == IpFamily::V4 => &V0,
        1 => &V1,
        _ => return None,
    };
    Some(Box::new(t.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_take_abbreviations_in_table_order() {
        assert_eq!(parse_types("LOCAL", "--dst-type").unwrap(), 1 << 2);
        assert_eq!(parse_types("u", "--dst-type").unwrap(), 1 << 0);
        assert_eq!(parse_types("loc,uni", "--dst-type").unwrap(), 0b110);
        assert!(parse_types("LOCAL,", "--dst-type").is_err());
        assert!(parse_types("BOGUS", "--dst-type").is_err());
        let mut s = String::new();
        save_types(&mut s, 0b110);
        assert_eq!(s, " UNICAST,LOCAL");
    }

    #[test]
    fn revision_0_decodes() {
        let blob = V0.encode(&Addrtype {
            source: 0,
            dest: 1 << 2,
            flags: XT_ADDRTYPE_INVERT_DEST,
        });
        assert_eq!(blob[offset_of!(xt_addrtype_info, invert_dest)], 1);
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let a = decode_xt(0, &blob, &ctx).unwrap();
        let mut s = String::new();
        a.save(IpFamily::V4, &mut s);
        assert_eq!(s, " ! --dst-type LOCAL");
    }
}
