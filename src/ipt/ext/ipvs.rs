//! `ipvs`: IPVS connection properties of the packet (`[!] --ipvs`, `[!] --vproto`,
//! `[!] --vaddr addr[/mask]`, `[!] --vport`, `--vdir ORIGINAL|REPLY`,
//! `[!] --vmethod GATE|IPIP|MASQ`, `[!] --vportctl`); every option but `--ipvs` implies it.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `ipvs` match, rev 0, `xt_ipvs_mtinfo`. A
//! kernel without `xt_ipvs` refuses the rule as it refuses iptables-nft's.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_ipvs_mtinfo, XT_IPVS_DIR, XT_IPVS_IPVS_PROPERTY, XT_IPVS_MASK, XT_IPVS_METHOD,
    XT_IPVS_ONCE_MASK, XT_IPVS_PROTO, XT_IPVS_VADDR, XT_IPVS_VPORT, XT_IPVS_VPORTCTL,
};

use super::base::conntrack_names::print_addr;
use super::base::libxt::parse_hostmask;
use super::base::ports::port_by_name;
use super::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::proto::proto_number;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `IP_VS_CONN_F_MASQ`.
const MASQ: u8 = 0;
/// `IP_VS_CONN_F_TUNNEL`.
const TUNNEL: u8 = 2;
/// `IP_VS_CONN_F_DROUTE`.
const DROUTE: u8 = 3;

/// The `ipvs` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "ipvs",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("ipvs").inv(),
        Opt::new("vproto", STR).inv(),
        Opt::new("vaddr", STR).inv(),
        Opt::new("vport", STR).inv(),
        Opt::new("vdir", STR),
        Opt::new("vmethod", STR).inv(),
        Opt::new("vportctl", STR).inv(),
    ]),
    new: |family| Box::new(Ipvs::new(family)),
    xt_names: &["ipvs"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m ipvs`, as in `struct xt_ipvs_mtinfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ipvs {
    /// The family (how `--vaddr` is read and shown).
    pub family: IpFamily,
    /// The virtual address and its mask (16 bytes each; IPv4 in the first four).
    pub vaddr: ([u8; 16], [u8; 16]),
    /// The virtual port.
    pub vport: u16,
    /// The virtual protocol.
    pub l4proto: u8,
    /// The forwarding method (`IP_VS_CONN_F_*`).
    pub fwd_method: u8,
    /// The virtual port of the controlling connection.
    pub vportctl: u16,
    /// `XT_IPVS_*` bits negated.
    pub invert: u8,
    /// `XT_IPVS_*` bits given.
    pub bitmask: u8,
}

impl Ipvs {
    fn new(family: IpFamily) -> Ipvs {
        Ipvs {
            family,
            vaddr: ([0; 16], [0; 16]),
            vport: 0,
            l4proto: 0,
            fwd_method: 0,
            vportctl: 0,
            invert: 0,
            bitmask: 0,
        }
    }

    /// `ipvs_mt_dump`.
    fn dump(&self, pfx: &str, numeric: bool, out: &mut String) {
        let on = |bit: u8| self.bitmask & bit != 0;
        let inv = |out: &mut String, bit: u8| {
            if self.invert & bit != 0 {
                out.push_str(" !");
            }
        };
        if self.bitmask == XT_IPVS_IPVS_PROPERTY {
            inv(out, XT_IPVS_IPVS_PROPERTY);
            out.push_str(&format!(" {pfx}ipvs"));
        }
        if on(XT_IPVS_PROTO) {
            inv(out, XT_IPVS_PROTO);
            out.push_str(&format!(" {pfx}vproto {}", self.l4proto));
        }
        if on(XT_IPVS_VADDR) {
            inv(out, XT_IPVS_VADDR);
            out.push_str(&format!(" {pfx}vaddr"));
            print_addr(out, self.family, &self.vaddr, numeric);
        }
        if on(XT_IPVS_VPORT) {
            inv(out, XT_IPVS_VPORT);
            out.push_str(&format!(" {pfx}vport {}", self.vport));
        }
        if on(XT_IPVS_DIR) {
            let dir = if self.invert & XT_IPVS_DIR != 0 {
                "REPLY"
            } else {
                "ORIGINAL"
            };
            out.push_str(&format!(" {pfx}vdir {dir}"));
        }
        if on(XT_IPVS_METHOD) {
            inv(out, XT_IPVS_METHOD);
            let m = match self.fwd_method {
                DROUTE => "GATE",
                TUNNEL => "IPIP",
                MASQ => "MASQ",
                _ => "UNKNOWN",
            };
            out.push_str(&format!(" {pfx}vmethod {m}"));
        }
        if on(XT_IPVS_VPORTCTL) {
            inv(out, XT_IPVS_VPORTCTL);
            out.push_str(&format!(" {pfx}vportctl {}", self.vportctl));
        }
    }
}

impl Extension for Ipvs {
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
        let v = val.text();
        let shown = format!("--{}", opt.name);
        let bit = match opt.name {
            "ipvs" => XT_IPVS_IPVS_PROPERTY,
            "vproto" => {
                self.l4proto = proto_number(v).ok_or_else(|| {
                    ParseError::bad(&shown, format!("unknown protocol \"{v}\" specified"))
                })?;
                XT_IPVS_PROTO
            }
            "vaddr" => {
                let (addr, _, mask) = parse_hostmask(self.family, "ipvs", "vaddr", v)?;
                self.vaddr = (addr, mask);
                XT_IPVS_VADDR
            }
            "vport" => {
                self.vport = port_by_name(v, &shown)?;
                XT_IPVS_VPORT
            }
            "vportctl" => {
                self.vportctl = port_by_name(v, &shown)?;
                XT_IPVS_VPORTCTL
            }
            "vdir" => {
                if v.eq_ignore_ascii_case("ORIGINAL") {
                    self.invert &= !XT_IPVS_DIR;
                } else if v.eq_ignore_ascii_case("REPLY") {
                    self.invert |= XT_IPVS_DIR;
                } else {
                    return Err(ipvs_bad(&shown, v));
                }
                XT_IPVS_DIR
            }
            _ => {
                self.fwd_method = if v.eq_ignore_ascii_case("GATE") {
                    DROUTE
                } else if v.eq_ignore_ascii_case("IPIP") {
                    TUNNEL
                } else if v.eq_ignore_ascii_case("MASQ") {
                    MASQ
                } else {
                    return Err(ipvs_bad(&shown, v));
                };
                XT_IPVS_METHOD
            }
        };
        self.bitmask |= bit;
        if inv {
            self.invert |= bit;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if ctx.given.is_empty() {
            return Err(ParseError::Invalid(
                "IPVS: At least one option is required".into(),
            ));
        }
        if self.bitmask & XT_IPVS_ONCE_MASK != 0 {
            if self.invert & XT_IPVS_IPVS_PROPERTY != 0 {
                return Err(ParseError::Invalid(
                    "! --ipvs cannot be together with other options".into(),
                ));
            }
            self.bitmask |= XT_IPVS_IPVS_PROPERTY;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("ipvs", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.dump("--", true, out);
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        self.dump("", ctx.numeric, out);
    }

    crate::ext_boilerplate!();
}

/// `xtables_param_act(XTF_BAD_VALUE, "ipvs", option, value)`.
fn ipvs_bad(option: &str, value: &str) -> ParseError {
    ParseError::Invalid(format!(
        "ipvs: Bad value for \"{option}\" option: \"{value}\""
    ))
}

/// `struct xt_ipvs_mtinfo`, field by field.
static INFO: XtStruct<Ipvs> = XtStruct::new(
    "xt_ipvs_mtinfo",
    size_of::<xt_ipvs_mtinfo>(),
    0,
    &[
        Field {
            name: "vaddr",
            at: offset_of!(xt_ipvs_mtinfo, vaddr),
            kind: Kind::Bytes(16, |s| &s.vaddr.0, |s, v| s.vaddr.0.copy_from_slice(v)),
        },
        Field {
            name: "vmask",
            at: offset_of!(xt_ipvs_mtinfo, vmask),
            kind: Kind::Bytes(16, |s| &s.vaddr.1, |s, v| s.vaddr.1.copy_from_slice(v)),
        },
        xt_field!(xt_ipvs_mtinfo, vport: Be16 => vport),
        xt_field!(xt_ipvs_mtinfo, l4proto: U8 => l4proto),
        xt_field!(xt_ipvs_mtinfo, fwd_method: U8 => fwd_method),
        xt_field!(xt_ipvs_mtinfo, vportctl: Be16 => vportctl),
        xt_field!(xt_ipvs_mtinfo, invert: U8 => invert),
        xt_field!(xt_ipvs_mtinfo, bitmask: U8 => bitmask),
    ],
);

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let mut i = Ipvs::new(ctx.family);
    INFO.read(&INFO.view(rev, info)?, &mut i)?;
    // What save shows must be all there is, in a form iptables reads back: the property
    // bit set (implied by any other), negated only alone, no value of a test not given,
    // and a method it names.
    let b = i.bitmask;
    let others = b & XT_IPVS_ONCE_MASK != 0;
    let mut ok = b & !XT_IPVS_MASK == 0
        && b & XT_IPVS_IPVS_PROPERTY != 0
        && i.invert & !b == 0
        && !(others && i.invert & XT_IPVS_IPVS_PROPERTY != 0)
        && (b & XT_IPVS_METHOD != 0 && matches!(i.fwd_method, MASQ | TUNNEL | DROUTE)
            || b & XT_IPVS_METHOD == 0 && i.fwd_method == 0)
        && (b & XT_IPVS_PROTO != 0 || i.l4proto == 0)
        && (b & XT_IPVS_VPORT != 0 || i.vport == 0)
        && (b & XT_IPVS_VPORTCTL != 0 || i.vportctl == 0)
        && (b & XT_IPVS_VADDR != 0 || i.vaddr == ([0; 16], [0; 16]));
    if ctx.family == IpFamily::V4 {
        ok &= i.vaddr.0[4..] == [0; 12] && i.vaddr.1[4..] == [0; 12];
    }
    (ok && INFO.encodes_to(&i, info)).then(|| Box::new(i) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(f: IpFamily, args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(f, args)
    }

    #[test]
    fn the_upstream_forms() {
        let v4 = |a: &str| round(IpFamily::V4, a);
        for (i, o) in [
            ("-m ipvs --ipvs", "-m ipvs --ipvs"),
            ("-m ipvs ! --ipvs", "-m ipvs ! --ipvs"),
            ("-m ipvs --vproto tcp", "-m ipvs --vproto 6"),
            ("-m ipvs ! --vproto TCP", "-m ipvs ! --vproto 6"),
            ("-m ipvs --vport http", "-m ipvs --vport 80"),
            ("-m ipvs ! --vport 443", "-m ipvs ! --vport 443"),
            ("-m ipvs --vdir REPLY", "-m ipvs --vdir REPLY"),
            ("-m ipvs --vdir original", "-m ipvs --vdir ORIGINAL"),
            ("-m ipvs ! --vmethod IPIP", "-m ipvs ! --vmethod IPIP"),
            ("-m ipvs --vmethod GATE", "-m ipvs --vmethod GATE"),
            ("-m ipvs ! --vportctl 21", "-m ipvs ! --vportctl 21"),
            (
                "-m ipvs ! --vaddr 1.2.3.4/255.255.255.0",
                "-m ipvs ! --vaddr 1.2.3.4/24",
            ),
            (
                "-m ipvs --vproto 6 --vaddr 1.2.3.4/16 --vport 22 --vdir ORIGINAL --vmethod GATE",
                "-m ipvs --vproto 6 --vaddr 1.2.3.4/16 --vport 22 --vdir ORIGINAL --vmethod GATE",
            ),
            ("-m ipvs --ipvs --vport 1", "-m ipvs --vport 1"),
        ] {
            assert_eq!(v4(i).as_deref(), Ok(o), "{i}");
        }
        assert_eq!(
            round(IpFamily::V6, "-m ipvs ! --vaddr 2001:db8::/64").unwrap(),
            "-m ipvs ! --vaddr 2001:db8::/64"
        );
        assert_eq!(
            v4("-m ipvs").unwrap_err(),
            "IPVS: At least one option is required"
        );
        assert_eq!(
            v4("-m ipvs ! --ipvs --vport 1").unwrap_err(),
            "! --ipvs cannot be together with other options"
        );
        assert_eq!(
            v4("-m ipvs --vmethod FOO").unwrap_err(),
            "ipvs: Bad value for \"--vmethod\" option: \"FOO\""
        );
        assert!(v4("-m ipvs ! --vdir REPLY").is_err());
    }
}
