//! `ipv6header` (IPv6): which extension headers a packet has (`[!] --header
//! hop,dst,route,frag,auth,esp,none,prot` and the long names or numbers, `--soft`).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `ipv6header` rev 0, `struct
//! ip6t_ipv6header_info`. Header names print as iptables prints them: the `/etc/protocols`
//! name of the header's protocol number, else its own (`hop-by-hop`, `protocol`).

use std::mem::size_of;

use iptnl_sys::xt::{
    ip6t_ipv6header_info, MASK_AH, MASK_DSTOPTS, MASK_ESP, MASK_FRAGMENT, MASK_HOPOPTS, MASK_NONE,
    MASK_PROTO, MASK_ROUTING,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::proto::{getprotobyname, getprotobynumber};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `ipv6header` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "ipv6header",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([Opt::new("header", STR).inv().mand(), Opt::flag("soft")]),
    new: |_| Box::new(Ipv6Header::default()),
    xt_names: &["ipv6header"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// iptables' own header names (`chain_protos`), tried after `/etc/protocols`.
const CHAIN_PROTOS: &[(&str, u8)] = &[
    ("hop-by-hop", 0),
    ("protocol", 255),
    ("hop", 0),
    ("dst", 60),
    ("route", 43),
    ("frag", 44),
    ("auth", 51),
    ("esp", 50),
    ("none", 59),
    ("prot", 255),
    ("0", 0),
    ("60", 60),
    ("43", 43),
    ("44", 44),
    ("51", 51),
    ("50", 50),
    ("59", 59),
    ("255", 255),
];

/// Header protocol numbers and their bits, in print order (`chain_flags`).
const CHAIN_FLAGS: &[(u8, u8)] = &[
    (0, MASK_HOPOPTS),
    (60, MASK_DSTOPTS),
    (43, MASK_ROUTING),
    (44, MASK_FRAGMENT),
    (51, MASK_AH),
    (50, MASK_ESP),
    (59, MASK_NONE),
    (255, MASK_PROTO),
];

/// `-m ipv6header`, as `struct ip6t_ipv6header_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ipv6Header {
    /// `MASK_*` bits of the headers.
    pub matchflags: u8,
    /// 0xff when `!` was given.
    pub invflags: u8,
    /// 0xff with `--soft`.
    pub modeflag: u8,
}

fn header_bit(name: &str) -> Result<u8, ParseError> {
    let proto = match getprotobyname(name) {
        Some(p) => p,
        None => CHAIN_PROTOS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
            .ok_or_else(|| {
                ParseError::bad("--header", format!("unknown header `{name}' specified"))
            })?,
    };
    CHAIN_FLAGS
        .iter()
        .find(|(p, _)| *p == proto)
        .map(|(_, bit)| *bit)
        .ok_or_else(|| ParseError::bad("--header", format!("unknown header `{proto}' specified")))
}

fn proto_to_name(proto: u8) -> String {
    if proto != 0 {
        if let Some(n) = getprotobynumber(proto) {
            return n.to_owned();
        }
    }
    CHAIN_PROTOS
        .iter()
        .find(|(_, p)| *p == proto)
        .map(|(n, _)| (*n).to_owned())
        .unwrap_or_default()
}

/// libip6t_ipv6header's `print_header` list: the names joined by commas, or `NONE`.
fn push_names<S: std::borrow::Borrow<str>>(out: &mut String, names: &[S]) {
    if names.is_empty() {
        out.push_str("NONE");
    } else {
        out.push_str(&names.join(","));
    }
}

/// `struct ip6t_ipv6header_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Ipv6Header> = XtStruct::new(
    "ip6t_ipv6header_info",
    size_of::<ip6t_ipv6header_info>(),
    0,
    &[
        xt_field!(ip6t_ipv6header_info, matchflags: U8 => matchflags),
        xt_field!(ip6t_ipv6header_info, invflags: U8 => invflags),
        xt_field!(ip6t_ipv6header_info, modeflag: U8 => modeflag),
    ],
);

impl Extension for Ipv6Header {
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
        if opt.name == "soft" {
            self.modeflag |= 0xff;
            return Ok(());
        }
        let mut flags = 0u8;
        for name in val.text().split(',').filter(|n| !n.is_empty()) {
            flags |= header_bit(name)?;
        }
        if flags == 0 {
            return Err(ParseError::bad(
                "--header",
                "ip6t_ipv6header: cannot parse header names",
            ));
        }
        self.matchflags = flags;
        if inv {
            self.invflags |= 0xff;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("ipv6header", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.invflags != 0 {
            out.push_str(" !");
        }
        out.push_str(" --header ");
        let names: Vec<String> = CHAIN_FLAGS
            .iter()
            .filter(|(_, bit)| self.matchflags & bit != 0)
            .map(|(p, _)| proto_to_name(*p))
            .collect();
        push_names(out, &names);
        if self.modeflag != 0 {
            out.push_str(" --soft");
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        const NAMES: [&str; 8] = [
            "hop-by-hop",
            "ipv6-opts",
            "ipv6-route",
            "ipv6-frag",
            "ah",
            "esp",
            "ipv6-nonxt",
            "protocol",
        ];
        out.push_str(" ipv6header");
        if self.matchflags != 0 || self.invflags != 0 {
            out.push_str(" flags:");
            if self.invflags != 0 {
                out.push('!');
            }
            if ctx.numeric {
                out.push_str(&format!("0x{:02X}", self.matchflags));
            } else {
                let names: Vec<&str> = CHAIN_FLAGS
                    .iter()
                    .zip(NAMES)
                    .filter(|((_, bit), _)| self.matchflags & bit != 0)
                    .map(|(_, n)| n)
                    .collect();
                push_names(out, &names);
            }
        }
        if self.modeflag != 0 {
            out.push_str(" soft");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}
