//! `dccp`: ports, packet types and options of DCCP (`-p dccp --sport`, `--dport`,
//! `--dccp-types`, `--dccp-option`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `dccp` match, rev 0, `xt_dccp_info`
//! (15 bytes, 16 padded), for every option. The kernel takes it only in `-p dccp` rules. A
//! port range is stored only when its option is given (`0:0` otherwise); `INVALID` stands
//! for the types 10 to 15.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_dccp_info, DCCP_PKT_INVALID, XT_DCCP_DEST_PORTS, XT_DCCP_OPTION, XT_DCCP_SRC_PORTS,
    XT_DCCP_TYPE, XT_DCCP_VALID_FLAGS,
};

use super::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Ty, Val,
};
use super::base::libxt::{parse_port_rc, scan_llu_prefix};
use super::base::names::service_port;
use super::base::opts::STR;
use super::base::ports::print_ports;
use super::base::xtstruct::XtStruct;
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `dccp` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "dccp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::custom("source-port").inv(),
        Opt::custom("sport").alias("source-port"),
        Opt::custom("destination-port").inv(),
        Opt::custom("dport").alias("destination-port"),
        Opt::new("dccp-types", STR).inv(),
        Opt::new("dccp-option", Ty::Uint { min: 1, max: 255 }).inv(),
    ]),
    new: |_| Box::new(Dccp::default()),
    xt_names: &["dccp"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The packet type names of libxt_dccp, by type number.
const TYPES: [&str; 11] = [
    "REQUEST", "RESPONSE", "DATA", "ACK", "DATAACK", "CLOSEREQ", "CLOSE", "RESET", "SYNC",
    "SYNCACK", "INVALID",
];

/// The `typemask` bits of the types 11 to 15, which `INVALID` sets with type 10.
const INVALID_OTHER_TYPES: u16 = 0xf800;

/// Options of `-m dccp`, as in `struct xt_dccp_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dccp {
    /// The info as libxt_dccp fills it in.
    pub info: xt_dccp_info,
}

/// A port as libxtables' `xtables_getportbyname` finds it with `getaddrinfo`: a decimal
/// number as glibc reads a numeric service (`strtoul` base 10, kept when it fits an `int`,
/// cut to 16 bits), else a service name.
fn port_by_name(s: &str) -> Option<u16> {
    // strtoul saturates on overflow and a `-` negates what it read; glibc keeps the number
    // in an `int`: a negative one makes it look the text up.
    if let Some((v, b"")) = scan_llu_prefix(s.as_bytes()) {
        let num = v as u32 as i32;
        if num >= 0 {
            return Some(num as u16);
        }
    }
    service_port(s)
}

/// `port[:port]` as libxtables' `XTTYPE_PORTRC` reads it ([`parse_port_rc`]), each port
/// found as [`port_by_name`] finds it.
fn parse_ports(s: &str, canonical: &str, shown: &str) -> Result<[u16; 2], ParseError> {
    let too_many = || {
        ParseError::bad(
            shown,
            format!("dccp: Too many components for option \"--{canonical}\" (max: 2)"),
        )
    };
    parse_port_rc(s, shown, too_many, |part| {
        port_by_name(part).ok_or_else(|| {
            ParseError::bad(
                shown,
                format!("Port \"{part}\" does not resolve to anything."),
            )
        })
    })
}

/// `--dccp-types TYPE[,…]` (`parse_dccp_types`).
fn parse_types(s: &str, shown: &str) -> Result<u16, ParseError> {
    let mut mask = 0u16;
    for word in s.split(',').filter(|w| !w.is_empty()) {
        let t = TYPES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(word))
            .ok_or_else(|| ParseError::bad(shown, format!("Unknown DCCP type `{word}'")))?;
        mask |= 1 << t;
    }
    if mask & (1 << DCCP_PKT_INVALID) != 0 {
        mask |= INVALID_OTHER_TYPES;
    }
    Ok(mask)
}

/// Appends ` TYPE,…` (numbers with `numeric`) as libxt_dccp's `print_types` does after its
/// `!`: names stop at `INVALID`.
fn push_types(out: &mut String, mut types: u16, numeric: bool) {
    out.push(' ');
    let mut first = true;
    while types != 0 {
        let t = types.trailing_zeros() as usize;
        if !first {
            out.push(',');
        }
        first = false;
        if numeric {
            out.push_str(&t.to_string());
        } else {
            out.push_str(TYPES.get(t).copied().unwrap_or(""));
            if t == usize::from(DCCP_PKT_INVALID) {
                break;
            }
        }
        types &= !(1 << t);
    }
}

/// `struct xt_dccp_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Dccp> = XtStruct::new(
    "xt_dccp_info",
    size_of::<xt_dccp_info>(),
    0,
    &[
        xt_field!(xt_dccp_info, dpts: U16Pair => info.dpts),
        xt_field!(xt_dccp_info, spts: U16Pair => info.spts),
        xt_field!(xt_dccp_info, flags: U16 => info.flags),
        xt_field!(xt_dccp_info, invflags: U16 => info.invflags),
        xt_field!(xt_dccp_info, typemask: U16 => info.typemask),
        xt_field!(xt_dccp_info, option: U8 => info.option),
    ],
);

impl Dccp {
    fn to_xt(&self) -> Vec<u8> {
        INFO.encode(self)
    }

    fn inv(&self, bit: u16) -> bool {
        self.info.invflags & bit != 0
    }

    /// Whether libxt_dccp's parser can have made the info (ranges and option numbers as
    /// iptables 1.8.9 took them aside): what iptables prints of it reads back the same.
    fn is_parsed_form(&self) -> bool {
        let i = &self.info;
        let has = |f| i.flags & f != 0;
        let invalid = i.typemask & (1 << DCCP_PKT_INVALID) != 0;
        let others = i.typemask & INVALID_OTHER_TYPES;
        i.flags & !XT_DCCP_VALID_FLAGS == 0
            && i.invflags & !i.flags == 0
            && (has(XT_DCCP_SRC_PORTS) || i.spts == [0, 0])
            && (has(XT_DCCP_DEST_PORTS) || i.dpts == [0, 0])
            && (has(XT_DCCP_TYPE) || i.typemask == 0)
            && others == if invalid { INVALID_OTHER_TYPES } else { 0 }
            && (has(XT_DCCP_OPTION) || i.option == 0)
    }
}

impl Extension for Dccp {
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
        let name = opt.canonical();
        let shown = opt.shown();
        let i = &mut self.info;
        let bit = match name {
            "source-port" => {
                i.spts = parse_ports(val.text(), name, &shown)?;
                XT_DCCP_SRC_PORTS
            }
            "destination-port" => {
                i.dpts = parse_ports(val.text(), name, &shown)?;
                XT_DCCP_DEST_PORTS
            }
            "dccp-types" => {
                i.typemask = parse_types(val.text(), &shown)?;
                XT_DCCP_TYPE
            }
            _ => {
                i.option = val.uint() as u8;
                XT_DCCP_OPTION
            }
        };
        i.flags |= bit;
        if inv {
            i.invflags |= bit;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("dccp", 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let i = &self.info;
        for (bit, name, r) in [
            (XT_DCCP_SRC_PORTS, " --sport ", i.spts),
            (XT_DCCP_DEST_PORTS, " --dport ", i.dpts),
        ] {
            if i.flags & bit != 0 {
                save_inv(out, self.inv(bit));
                out.push_str(name);
                super::base::ports::save_range(out, r);
            }
        }
        if i.flags & XT_DCCP_TYPE != 0 {
            save_inv(out, self.inv(XT_DCCP_TYPE));
            out.push_str(" --dccp-types");
            push_types(out, i.typemask, false);
        }
        if i.flags & XT_DCCP_OPTION != 0 {
            save_inv(out, self.inv(XT_DCCP_OPTION));
            out.push_str(" --dccp-option ");
            out.push_str(&i.option.to_string());
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        let i = &self.info;
        out.push_str(" dccp");
        for (bit, name, r) in [
            (XT_DCCP_SRC_PORTS, "spt", i.spts),
            (XT_DCCP_DEST_PORTS, "dpt", i.dpts),
        ] {
            if i.flags & bit != 0 {
                print_ports(out, name, r, self.inv(bit), "dccp", ctx.numeric);
            }
        }
        if i.flags & XT_DCCP_TYPE != 0 {
            save_inv(out, self.inv(XT_DCCP_TYPE));
            push_types(out, i.typemask, ctx.numeric);
        }
        let oinv = self.inv(XT_DCCP_OPTION);
        if i.flags & XT_DCCP_OPTION != 0 && (i.option != 0 || oinv) {
            let mark = if oinv { "!" } else { "" };
            out.push_str(&format!(" option={mark}{}", i.option));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let d = INFO.decode_exact(rev, info)?;
    d.is_parsed_form().then(|| Box::new(d) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;
    use std::mem::offset_of;

    fn round(f: IpFamily, args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(f, args)
    }

    #[test]
    fn options_save_as_iptables() {
        let p = "-p dccp -m dccp";
        for (given, want) in [
            ("", ""),
            (" --sport 1024:", " --sport 1024:65535"),
            (" --sport :", " --sport 0:65535"),
            (" --dport :4", " --dport 0:4"),
            (" --dport 4:4", " --dport 4"),
            (" ! --sport 1 --dport 65535", " ! --sport 1 --dport 65535"),
            (" --sport 65536", " --sport 0"),
            (" --sport +5 --dport http", " --sport 5 --dport 80"),
            (" --dccp-types request,SYNC", " --dccp-types REQUEST,SYNC"),
            (
                " ! --dccp-types INVALID,REQUEST,RESPONSE,DATA,ACK,DATAACK,CLOSEREQ,CLOSE,RESET,SYNC,SYNCACK",
                " ! --dccp-types REQUEST,RESPONSE,DATA,ACK,DATAACK,CLOSEREQ,CLOSE,RESET,SYNC,SYNCACK,INVALID",
            ),
            (" ! --dccp-option 255", " ! --dccp-option 255"),
        ] {
            for f in [IpFamily::V4, IpFamily::V6] {
                assert_eq!(
                    round(f, &format!("{p}{given}")).unwrap(),
                    format!("{p}{want}"),
                    "{given}"
                );
            }
        }
    }

    #[test]
    fn errors_as_libxtables() {
        let p = "-p dccp -m dccp";
        for (given, want) in [
            (" --sport -1", "Port \"-1\" does not resolve to anything."),
            (
                " --sport 0x10",
                "Port \"0x10\" does not resolve to anything.",
            ),
            (" --dport 4:3", "Port range 4-3 is negative."),
            (
                " --sport 1:2:3",
                "dccp: Too many components for option \"--source-port\" (max: 2)",
            ),
            (" --dccp-types FOO", "Unknown DCCP type `FOO'"),
            (
                " --dccp-option 0",
                "dccp: bad value for option \"--dccp-option\", or out of range (1-255).",
            ),
            (
                " --sport 1 --source-port 2",
                "dccp: option \"--source-port\" can only be used once.",
            ),
        ] {
            let e = round(IpFamily::V4, &format!("{p}{given}")).unwrap_err();
            assert!(e.ends_with(want), "{given}: {e}");
        }
    }

    /// Every byte of an info changed decodes without a panic; what libxt_dccp cannot have
    /// written is refused.
    #[test]
    fn strict_decoding() {
        use super::*;
        let ctx = DecodeCtx {
            family: IpFamily::V6,
            proto: None,
            sets: &crate::ipt::ext::NoSets,
        };
        let d = Dccp {
            info: xt_dccp_info {
                dpts: [80, 80],
                flags: XT_DCCP_DEST_PORTS | XT_DCCP_TYPE,
                invflags: XT_DCCP_TYPE,
                typemask: 0x0401 | INVALID_OTHER_TYPES,
                ..xt_dccp_info::default()
            },
        };
        let good = d.to_xt();
        assert!(decode_xt(0, &good, &ctx).is_some());
        assert!(decode_xt(1, &good, &ctx).is_none());
        for k in 0..good.len() {
            for v in [0, 1, 0x80, 0xff] {
                let mut b = good.clone();
                b[k] = v;
                let _ = decode_xt(0, &b, &ctx);
            }
        }
        let set = |o: usize, v: u8| -> Vec<u8> {
            let mut b = good.clone();
            b[o] = v;
            b
        };
        for bad in [
            set(offset_of!(xt_dccp_info, spts), 1),
            set(offset_of!(xt_dccp_info, flags), 0x13),
            set(offset_of!(xt_dccp_info, invflags), 0x08),
            set(offset_of!(xt_dccp_info, typemask) + 1, 0x80),
            set(offset_of!(xt_dccp_info, typemask) + 1, 0xf8),
            set(offset_of!(xt_dccp_info, option), 1),
            set(good.len() - 1, 1),
        ] {
            assert!(decode_xt(0, &bad, &ctx).is_none());
        }
    }

    #[test]
    fn listing_words() {
        use crate::ipt::ext::list_options;
        use crate::ipt::parse_rule_str;
        let l = |s: &str, n: bool| list_options(&parse_rule_str(IpFamily::V4, s).unwrap()[0], n);
        assert_eq!(
            l(
                "-p dccp --dport 80 ! --dccp-types DATA,INVALID ! --dccp-option 3",
                true
            ),
            " dccp dpt:80 ! 2,10,11,12,13,14,15 option=!3"
        );
        assert_eq!(
            l("-p dccp ! --sport 1:2 --dccp-types DATA,INVALID", false),
            " dccp spts:!1:2 DATA,INVALID"
        );
        assert_eq!(l("-p dccp --sport :", true), " dccp");
    }
}
