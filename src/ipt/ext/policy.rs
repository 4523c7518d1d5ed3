//! `policy`: the IPsec policy that decapsulated the packet or will encapsulate it
//! (`--dir in|out`, `--pol none|ipsec`, `--strict`, and up to four policy elements of
//! `[!] --reqid`, `[!] --spi`, `[!] --proto`, `[!] --mode`, `[!] --tunnel-src`,
//! `[!] --tunnel-dst`, separated by `--next`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `policy` match, rev 0, `xt_policy_info`
//! (308 bytes, 312 padded); `len` counts the elements (none with `--pol none`).

use std::mem::{offset_of, size_of};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use iptnl_sys::xt::{
    xt_policy_elem, xt_policy_info, XT_POLICY_MATCH_IN, XT_POLICY_MATCH_NONE, XT_POLICY_MATCH_OUT,
    XT_POLICY_MATCH_STRICT, XT_POLICY_MAX_ELEM, XT_POLICY_MODE_TRANSPORT, XT_POLICY_MODE_TUNNEL,
    XT_POLICY_SPEC_DADDR, XT_POLICY_SPEC_MODE, XT_POLICY_SPEC_PROTO, XT_POLICY_SPEC_REQID,
    XT_POLICY_SPEC_SADDR, XT_POLICY_SPEC_SPI,
};

use super::base::names::{mask_suffix, numeric, parse_host};
use super::base::opts::{parse_plen, STR, U32};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val, XtView,
};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::proto::{getprotobynumber, proto_number};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `policy` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "policy",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("dir", STR),
        Opt::new("pol", STR),
        Opt::flag("strict"),
        Opt::new("reqid", U32).multi().inv(),
        Opt::new("spi", U32).multi().inv(),
        Opt::custom("tunnel-src").multi().inv(),
        Opt::custom("tunnel-dst").multi().inv(),
        Opt::custom("proto").multi().inv(),
        Opt::new("mode", STR).multi().inv(),
        Opt::flag("next").multi().also(&["strict"]),
    ]),
    new: |_| Box::new(Policy::default()),
    xt_names: &["policy"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Every bit of an element's `match` and `invert` bitfields.
const SPEC_ALL: u8 = XT_POLICY_SPEC_SADDR
    | XT_POLICY_SPEC_DADDR
    | XT_POLICY_SPEC_PROTO
    | XT_POLICY_SPEC_MODE
    | XT_POLICY_SPEC_SPI
    | XT_POLICY_SPEC_REQID;

/// One policy element, as `struct xt_policy_elem`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Elem {
    /// Tunnel source address and mask (`union nf_inet_addr` bytes).
    pub saddr: [u8; 16],
    /// Mask of `saddr`.
    pub smask: [u8; 16],
    /// Tunnel destination address.
    pub daddr: [u8; 16],
    /// Mask of `daddr`.
    pub dmask: [u8; 16],
    /// SPI (as given, host order).
    pub spi: u32,
    /// Request id.
    pub reqid: u32,
    /// `IPPROTO_AH`, `IPPROTO_ESP` or `IPPROTO_COMP`.
    pub proto: u8,
    /// `XT_POLICY_MODE_*`.
    pub mode: u8,
    /// `XT_POLICY_SPEC_*` fields tested.
    pub tested: u8,
    /// `XT_POLICY_SPEC_*` fields negated.
    pub invert: u8,
}

/// Options of `-m policy`, as in `struct xt_policy_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// The elements (`len` of them count).
    pub pol: [Elem; XT_POLICY_MAX_ELEM],
    /// `XT_POLICY_MATCH_*`.
    pub flags: u16,
    /// Elements in use (while parsing: the index of the element being read).
    pub len: u16,
}

/// `XTTYPE_HOSTMASK`: `addr[/mask]`; all mask bytes `0xff` without a mask, the address
/// not masked.
fn parse_hostmask(
    family: IpFamily,
    name: &str,
    s: &str,
) -> Result<([u8; 16], [u8; 16]), ParseError> {
    let shown = format!("--{name}");
    match s.split_once('/') {
        None => Ok((parse_host(family, s, &shown)?, [0xff; 16])),
        Some((host, m)) => {
            let (_, mask) = parse_plen("policy", name, m, family)?;
            Ok((parse_host(family, host, &shown)?, mask))
        }
    }
}

/// `ADDR` and its mask suffix as `xtables_ip[6]addr_to_numeric` and
/// `xtables_ip[6]mask_to_numeric` print them.
fn addr_text(family: IpFamily, addr: &[u8; 16], mask: &[u8; 16]) -> String {
    let (a, m) = match family {
        IpFamily::V4 => (
            IpAddr::V4(Ipv4Addr::new(addr[0], addr[1], addr[2], addr[3])),
            IpAddr::V4(Ipv4Addr::new(mask[0], mask[1], mask[2], mask[3])),
        ),
        IpFamily::V6 => (
            IpAddr::V6(Ipv6Addr::from(*addr)),
            IpAddr::V6(Ipv6Addr::from(*mask)),
        ),
    };
    numeric(a) + &mask_suffix(m)
}

impl Elem {
    fn is(&self, bit: u8) -> bool {
        self.tested & bit != 0
    }

    /// Whether tunnel addresses are tested outside tunnel mode (`policy_check`).
    fn tunnel_outside_tunnel_mode(&self) -> bool {
        let inv_mode = self.invert & XT_POLICY_SPEC_MODE != 0;
        (self.is(XT_POLICY_SPEC_SADDR) || self.is(XT_POLICY_SPEC_DADDR))
            && ((self.mode == XT_POLICY_MODE_TUNNEL && inv_mode)
                || (self.mode == XT_POLICY_MODE_TRANSPORT && !inv_mode))
    }

    /// `print_entry`.
    fn show(&self, pfx: &str, numeric: bool, family: IpFamily, out: &mut String) {
        let inv = |out: &mut String, bit: u8| {
            if self.invert & bit != 0 {
                out.push_str(" !");
            }
        };
        if self.is(XT_POLICY_SPEC_REQID) {
            inv(out, XT_POLICY_SPEC_REQID);
            out.push_str(&format!(" {pfx}reqid {}", self.reqid));
        }
        if self.is(XT_POLICY_SPEC_SPI) {
            inv(out, XT_POLICY_SPEC_SPI);
            out.push_str(&format!(" {pfx}spi 0x{:x}", self.spi));
        }
        if self.is(XT_POLICY_SPEC_PROTO) {
            inv(out, XT_POLICY_SPEC_PROTO);
            let name = (!numeric).then(|| getprotobynumber(self.proto)).flatten();
            match name {
                Some(n) => out.push_str(&format!(" {pfx}proto {n}")),
                None => out.push_str(&format!(" {pfx}proto {}", self.proto)),
            }
        }
        if self.is(XT_POLICY_SPEC_MODE) {
            inv(out, XT_POLICY_SPEC_MODE);
            let m = match self.mode {
                XT_POLICY_MODE_TRANSPORT => "transport",
                XT_POLICY_MODE_TUNNEL => "tunnel",
                _ => "???",
            };
            out.push_str(&format!(" {pfx}mode {m}"));
        }
        if self.is(XT_POLICY_SPEC_DADDR) {
            inv(out, XT_POLICY_SPEC_DADDR);
            out.push_str(&format!(
                " {pfx}tunnel-dst {}",
                addr_text(family, &self.daddr, &self.dmask)
            ));
        }
        if self.is(XT_POLICY_SPEC_SADDR) {
            inv(out, XT_POLICY_SPEC_SADDR);
            out.push_str(&format!(
                " {pfx}tunnel-src {}",
                addr_text(family, &self.saddr, &self.smask)
            ));
        }
    }
}

impl Policy {
    fn to_xt(&self) -> Vec<u8> {
        POLICY.encode(self)
    }

    /// `print_flags`.
    fn show_flags(&self, pfx: &str, out: &mut String) {
        let dir = if self.flags & XT_POLICY_MATCH_IN != 0 {
            "in"
        } else {
            "out"
        };
        let pol = if self.flags & XT_POLICY_MATCH_NONE != 0 {
            "none"
        } else {
            "ipsec"
        };
        out.push_str(&format!(" {pfx}dir {dir} {pfx}pol {pol}"));
        if self.flags & XT_POLICY_MATCH_STRICT != 0 {
            out.push_str(&format!(" {pfx}strict"));
        }
    }

    fn elems(&self) -> &[Elem] {
        &self.pol[..usize::from(self.len).min(XT_POLICY_MAX_ELEM)]
    }
}

fn err(msg: impl Into<String>) -> ParseError {
    ParseError::Invalid(msg.into())
}

impl Extension for Policy {
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
        let v = val.text();
        let bad = |m: String| ParseError::bad(format!("--{}", opt.name), m);
        let i = usize::from(self.len).min(XT_POLICY_MAX_ELEM - 1);
        let e = &mut self.pol[i];
        let field = |e: &mut Elem, bit: u8| -> Result<(), ParseError> {
            if e.tested & bit != 0 {
                return Err(bad(format!("policy match: double --{} option", opt.name)));
            }
            e.tested |= bit;
            if inv {
                e.invert |= bit;
            }
            Ok(())
        };
        match opt.name {
            "dir" => {
                self.flags |= match v {
                    "in" => XT_POLICY_MATCH_IN,
                    "out" => XT_POLICY_MATCH_OUT,
                    _ => return Err(bad(format!("policy_match: invalid dir \"{v}\""))),
                }
            }
            "pol" => {
                self.flags |= match v {
                    "none" => XT_POLICY_MATCH_NONE,
                    "ipsec" => 0,
                    _ => return Err(bad(format!("policy match: invalid policy \"{v}\""))),
                }
            }
            "strict" => self.flags |= XT_POLICY_MATCH_STRICT,
            "reqid" => {
                field(e, XT_POLICY_SPEC_REQID)?;
                e.reqid = val.uint() as u32;
            }
            "spi" => {
                field(e, XT_POLICY_SPEC_SPI)?;
                e.spi = val.uint() as u32;
            }
            "tunnel-src" | "tunnel-dst" => {
                let src = opt.name == "tunnel-src";
                let bit = if src {
                    XT_POLICY_SPEC_SADDR
                } else {
                    XT_POLICY_SPEC_DADDR
                };
                let (a, m) = parse_hostmask(ctx.family, opt.name, v)?;
                field(e, bit)?;
                if src {
                    (e.saddr, e.smask) = (a, m);
                } else {
                    (e.daddr, e.dmask) = (a, m);
                }
            }
            "proto" => {
                let p = proto_number(v)
                    .ok_or_else(|| bad(format!("unknown protocol \"{v}\" specified")))?;
                if e.tested & XT_POLICY_SPEC_PROTO != 0 {
                    return Err(bad("policy match: double --proto option".into()));
                }
                if !matches!(p, 50 | 51 | 108) {
                    return Err(bad("policy match: protocol must be ah/esp/ipcomp".into()));
                }
                e.proto = p;
                field(e, XT_POLICY_SPEC_PROTO)?;
            }
            "mode" => {
                field(e, XT_POLICY_SPEC_MODE)?;
                e.mode = match v {
                    "transport" => XT_POLICY_MODE_TRANSPORT,
                    "tunnel" => XT_POLICY_MODE_TUNNEL,
                    _ => return Err(bad(format!("policy match: invalid mode \"{v}\""))),
                };
            }
            _ => {
                self.len += 1;
                if usize::from(self.len) == XT_POLICY_MAX_ELEM {
                    return Err(bad("policy match: maximum policy depth reached".into()));
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.flags & (XT_POLICY_MATCH_IN | XT_POLICY_MATCH_OUT) == 0 {
            return Err(err(
                "policy match: neither --dir in nor --dir out specified",
            ));
        }
        if self.flags & XT_POLICY_MATCH_NONE != 0 {
            if self.flags & XT_POLICY_MATCH_STRICT != 0 {
                return Err(err("policy match: policy none but --strict given"));
            }
            if self.len != 0 {
                return Err(err("policy match: policy none but policy given"));
            }
        } else {
            self.len += 1;
        }
        let strict = self.flags & XT_POLICY_MATCH_STRICT != 0;
        for (i, e) in self.elems().iter().enumerate() {
            if strict && e.tested == 0 {
                return Err(err(format!(
                    "policy match: empty policy element {i}. --strict is in effect, but at least one of reqid, spi, tunnel-src, tunnel-dst, proto or mode is required."
                )));
            }
            if e.tunnel_outside_tunnel_mode() {
                return Err(err(
                    "policy match: --tunnel-src/--tunnel-dst is only valid in tunnel mode",
                ));
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("policy", 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, family: IpFamily, out: &mut String) {
        self.show_flags("--", out);
        let n = self.elems().len();
        for (i, e) in self.elems().iter().enumerate() {
            e.show("--", false, family, out);
            if i + 1 < n {
                out.push_str(" --next");
            }
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        out.push_str(" policy match");
        self.show_flags("", out);
        let n = self.elems().len();
        for (i, e) in self.elems().iter().enumerate() {
            if n > 1 {
                out.push_str(&format!(" [{i}]"));
            }
            e.show("", ctx.numeric, ctx.family, out);
        }
    }

    crate::ext_boilerplate!();
}

/// `struct xt_policy_elem`: one element of the policy, as [`POLICY`]'s `pol` holds four.
static ELEM: XtStruct<Elem> = XtStruct::new(
    "xt_policy_elem",
    ELEM_SIZE,
    0,
    &[
        xt_field!(xt_policy_elem, saddr: Bytes(16) => saddr),
        xt_field!(xt_policy_elem, smask: Bytes(16) => smask),
        xt_field!(xt_policy_elem, daddr: Bytes(16) => daddr),
        xt_field!(xt_policy_elem, dmask: Bytes(16) => dmask),
        xt_field!(xt_policy_elem, spi: U32 => spi),
        xt_field!(xt_policy_elem, reqid: U32 => reqid),
        xt_field!(xt_policy_elem, proto: U8 => proto),
        xt_field!(xt_policy_elem, mode: U8 => mode),
        xt_field!(xt_policy_elem, r#match: U8 => tested),
        xt_field!(xt_policy_elem, invert: U8 => invert),
    ],
);

const ELEM_SIZE: usize = size_of::<xt_policy_elem>();

/// Writes the elements into the zeroed `pol` array, each with [`ELEM`].
fn write_elems(p: &Policy, f: &mut [u8]) {
    for (i, e) in p.pol.iter().enumerate() {
        f[i * ELEM_SIZE..(i + 1) * ELEM_SIZE].copy_from_slice(&ELEM.encode(e)[..ELEM_SIZE]);
    }
}

/// Reads the elements of the `pol` array, each with [`ELEM`].
fn read_elems(p: &mut Policy, f: &[u8]) -> Option<()> {
    for (i, e) in p.pol.iter_mut().enumerate() {
        ELEM.read(&XtView::new(f.get(i * ELEM_SIZE..(i + 1) * ELEM_SIZE)?), e)?;
    }
    Some(())
}

/// `struct xt_policy_info`, revision 0.
static POLICY: XtStruct<Policy> = XtStruct::new(
    "xt_policy_info",
    size_of::<xt_policy_info>(),
    0,
    &[
        Field {
            name: "pol",
            at: offset_of!(xt_policy_info, pol),
            kind: Kind::Custom(XT_POLICY_MAX_ELEM * ELEM_SIZE, write_elems, read_elems),
        },
        xt_field!(xt_policy_info, flags: U16 => flags),
        xt_field!(xt_policy_info, len: U16 => len),
    ],
);

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let p = POLICY.decode(rev, info)?;
    // Only what the options give back: one direction, elements only with `--pol ipsec`
    // (several only with `--strict`), each field set only when tested, unused elements
    // zero, and the checks of the option parser.
    let dirs = p.flags & (XT_POLICY_MATCH_IN | XT_POLICY_MATCH_OUT);
    let none = p.flags & XT_POLICY_MATCH_NONE != 0;
    let strict = p.flags & XT_POLICY_MATCH_STRICT != 0;
    let len = usize::from(p.len);
    let ok_flags = p.flags & !0xf == 0
        && (dirs == XT_POLICY_MATCH_IN || dirs == XT_POLICY_MATCH_OUT)
        && if none {
            !strict && len == 0
        } else {
            (1..=XT_POLICY_MAX_ELEM).contains(&len) && (len == 1 || strict)
        };
    if !ok_flags || p.pol[len..].iter().any(|e| *e != Elem::default()) {
        return None;
    }
    for e in &p.pol[..len] {
        let mut canon = Elem {
            tested: e.tested,
            invert: e.invert,
            ..Elem::default()
        };
        if e.is(XT_POLICY_SPEC_SADDR) {
            (canon.saddr, canon.smask) = (e.saddr, e.smask);
        }
        if e.is(XT_POLICY_SPEC_DADDR) {
            (canon.daddr, canon.dmask) = (e.daddr, e.dmask);
        }
        if e.is(XT_POLICY_SPEC_SPI) {
            canon.spi = e.spi;
        }
        if e.is(XT_POLICY_SPEC_REQID) {
            canon.reqid = e.reqid;
        }
        if e.is(XT_POLICY_SPEC_PROTO) {
            canon.proto = e.proto;
        }
        if e.is(XT_POLICY_SPEC_MODE) {
            canon.mode = e.mode;
        }
        let v4_tail_ok = |a: &[u8; 16], m: &[u8; 16]| {
            ctx.family == IpFamily::V6
                || (a[4..].iter().all(|&b| b == 0)
                    && (m[4..].iter().all(|&b| b == 0) || m[4..].iter().all(|&b| b == 0xff)))
        };
        let ok = e.tested & !SPEC_ALL == 0
            && e.invert & !e.tested == 0
            && canon == *e
            && (!e.is(XT_POLICY_SPEC_PROTO) || matches!(e.proto, 50 | 51 | 108))
            && e.mode <= XT_POLICY_MODE_TUNNEL
            && (!strict || e.tested != 0)
            && !e.tunnel_outside_tunnel_mode()
            && v4_tail_ok(&e.saddr, &e.smask)
            && v4_tail_ok(&e.daddr, &e.dmask);
        if !ok {
            return None;
        }
    }
    (p.to_xt() == info).then(|| Box::new(p) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(f: IpFamily, args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(f, args).map_err(|e| match e.split_once(": ") {
            Some((o, m)) if o.starts_with("--") => m.to_owned(),
            _ => e,
        })
    }

    #[test]
    fn upstream_forms() {
        for (f, r) in [
            (IpFamily::V4, "-m policy --dir in --pol ipsec"),
            (IpFamily::V4, "-m policy --dir out --pol none"),
            (IpFamily::V4, "-m policy --dir in --pol ipsec --proto ipcomp"),
            (IpFamily::V4, "-m policy --dir in --pol ipsec --strict --reqid 1 --spi 0x1 --proto ipcomp"),
            (IpFamily::V4, "-m policy --dir in --pol ipsec --strict --reqid 1 --spi 0x1 --proto esp --mode tunnel --tunnel-dst 10.0.0.0/8 --tunnel-src 10.0.0.0/8 --next --reqid 2"),
            (IpFamily::V6, "-m policy --dir in --pol ipsec --strict --reqid 1 --spi 0x1 --proto esp --mode tunnel --tunnel-dst 2001:db8::/32 --tunnel-src 2001:db8::/32 --next --reqid 2"),
            (IpFamily::V4, "-m policy --dir in --pol ipsec ! --reqid 1 ! --proto ah ! --mode transport ! --tunnel-src 10.0.0.1"),
        ] {
            assert_eq!(round(f, r).unwrap(), r);
        }
        let v4 = |r| round(IpFamily::V4, r).unwrap_err();
        assert_eq!(
            v4("-m policy --dir in --pol ipsec --strict"),
            "policy match: empty policy element 0. --strict is in effect, but at least one of reqid, spi, tunnel-src, tunnel-dst, proto or mode is required."
        );
        assert_eq!(
            v4("-m policy --dir in --pol ipsec --strict --reqid 1 --spi 0x1 --proto esp --tunnel-dst 10.0.0.0/8"),
            "policy match: --tunnel-src/--tunnel-dst is only valid in tunnel mode"
        );
        assert_eq!(
            v4("-m policy --pol ipsec"),
            "policy match: neither --dir in nor --dir out specified"
        );
        assert_eq!(
            v4("-m policy --dir in --pol none --strict"),
            "policy match: policy none but --strict given"
        );
        assert_eq!(
            v4("-m policy --dir in --reqid 1 --reqid 2"),
            "policy match: double --reqid option"
        );
        assert_eq!(
            v4("-m policy --dir in --proto tcp"),
            "policy match: protocol must be ah/esp/ipcomp"
        );
        assert_eq!(
            v4("-m policy --dir in --reqid 1 --next --reqid 2"),
            "policy: option \"--next\" also requires \"--strict\"."
        );
        assert_eq!(
            v4("-m policy --dir in --strict --reqid 1 --next --reqid 2 --next --reqid 3 --next --reqid 4 --next"),
            "policy match: maximum policy depth reached"
        );
    }
}
