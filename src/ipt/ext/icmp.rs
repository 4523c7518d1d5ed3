//! `icmp` (`-p icmp --icmp-type`) and `icmp6` (`-p ipv6-icmp --icmpv6-type`): ICMP type and
//! code, by name (any unambiguous case-insensitive prefix of the names iptables knows), as
//! `type` or `type/code`, or `any` (IPv4 only).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `icmp`/`icmp6` match, rev 0 (4-byte
//! `ipt_icmp`/`ip6t_icmp`, 8 padded). The kernel accepts it only with `-p icmp` /
//! `-p ipv6-icmp`. iptables-save prints numbers. Native `payload @ transport` + `cmp eq`
//! tests of the type (and code), which iptables-nft 1.8.9+ reads back as these matches, are
//! decoded too.

use std::mem::size_of;

use iptnl_sys::xt::{ip6t_icmp, ipt_icmp, IPT_ICMP_INV};

use super::base::libxt::{print_unknown_invflags, strtoul_prefix_in};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::{CmpOp, Expr, PayloadBase, PayloadOp, REG};
use crate::xt_field;

/// The `icmp` match (IPv4).
pub static ICMP: ExtDesc = ExtDesc {
    name: "icmp",
    kind: ExtKind::Match,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([Opt::new("icmp-type", STR).inv().mand()]),
    new: |_| Box::new(Icmp::new(IpFamily::V4)),
    xt_names: &["icmp"],
    decode_xt: Some(decode_xt4),
    decode_native: Some(decode_native),
};

/// The `icmp6` match (IPv6).
pub static ICMP6: ExtDesc = ExtDesc {
    name: "icmp6",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([Opt::new("icmpv6-type", STR).inv().mand()]),
    new: |_| Box::new(Icmp::new(IpFamily::V6)),
    xt_names: &["icmp6"],
    decode_xt: Some(decode_xt6),
    decode_native: Some(decode_native),
};

/// ICMP names: name, type, code range.
type Names = &'static [(&'static str, u8, u8, u8)];

/// The ICMP type names iptables knows (`libxt_icmp.h`), in its order.
pub const ICMP_NAMES: Names = &[
    ("any", 0xff, 0, 0xff),
    ("echo-reply", 0, 0, 0xff),
    ("pong", 0, 0, 0xff),
    ("destination-unreachable", 3, 0, 0xff),
    ("network-unreachable", 3, 0, 0),
    ("host-unreachable", 3, 1, 1),
    ("protocol-unreachable", 3, 2, 2),
    ("port-unreachable", 3, 3, 3),
    ("fragmentation-needed", 3, 4, 4),
    ("source-route-failed", 3, 5, 5),
    ("network-unknown", 3, 6, 6),
    ("host-unknown", 3, 7, 7),
    ("network-prohibited", 3, 9, 9),
    ("host-prohibited", 3, 10, 10),
    ("TOS-network-unreachable", 3, 11, 11),
    ("TOS-host-unreachable", 3, 12, 12),
    ("communication-prohibited", 3, 13, 13),
    ("host-precedence-violation", 3, 14, 14),
    ("precedence-cutoff", 3, 15, 15),
    ("source-quench", 4, 0, 0xff),
    ("redirect", 5, 0, 0xff),
    ("network-redirect", 5, 0, 0),
    ("host-redirect", 5, 1, 1),
    ("TOS-network-redirect", 5, 2, 2),
    ("TOS-host-redirect", 5, 3, 3),
    ("echo-request", 8, 0, 0xff),
    ("ping", 8, 0, 0xff),
    ("router-advertisement", 9, 0, 0xff),
    ("router-solicitation", 10, 0, 0xff),
    ("time-exceeded", 11, 0, 0xff),
    ("ttl-exceeded", 11, 0, 0xff),
    ("ttl-zero-during-transit", 11, 0, 0),
    ("ttl-zero-during-reassembly", 11, 1, 1),
    ("parameter-problem", 12, 0, 0xff),
    ("ip-header-bad", 12, 0, 0),
    ("required-option-missing", 12, 1, 1),
    ("timestamp-request", 13, 0, 0xff),
    ("timestamp-reply", 14, 0, 0xff),
    ("address-mask-request", 17, 0, 0xff),
    ("address-mask-reply", 18, 0, 0xff),
];

/// The ICMPv6 type names iptables knows (`libxt_icmp.h`), in its order.
pub const ICMPV6_NAMES: Names = &[
    ("destination-unreachable", 1, 0, 0xff),
    ("no-route", 1, 0, 0),
    ("communication-prohibited", 1, 1, 1),
    ("beyond-scope", 1, 2, 2),
    ("address-unreachable", 1, 3, 3),
    ("port-unreachable", 1, 4, 4),
    ("failed-policy", 1, 5, 5),
    ("reject-route", 1, 6, 6),
    ("packet-too-big", 2, 0, 0xff),
    ("time-exceeded", 3, 0, 0xff),
    ("ttl-exceeded", 3, 0, 0xff),
    ("ttl-zero-during-transit", 3, 0, 0),
    ("ttl-zero-during-reassembly", 3, 1, 1),
    ("parameter-problem", 4, 0, 0xff),
    ("bad-header", 4, 0, 0),
    ("unknown-header-type", 4, 1, 1),
    ("unknown-option", 4, 2, 2),
    ("echo-request", 128, 0, 0xff),
    ("ping", 128, 0, 0xff),
    ("echo-reply", 129, 0, 0xff),
    ("pong", 129, 0, 0xff),
    ("mld-listener-query", 130, 0, 0xff),
    ("mld-listener-report", 131, 0, 0xff),
    ("mld-listener-done", 132, 0, 0xff),
    ("mld-listener-reduction", 132, 0, 0xff),
    ("router-solicitation", 133, 0, 0xff),
    ("router-advertisement", 134, 0, 0xff),
    ("neighbour-solicitation", 135, 0, 0xff),
    ("neighbor-solicitation", 135, 0, 0xff),
    ("neighbour-advertisement", 136, 0, 0xff),
    ("neighbor-advertisement", 136, 0, 0xff),
    ("redirect", 137, 0, 0xff),
];

/// Options of `-m icmp` / `-m icmp6`, as in `struct ipt_icmp` / `struct ip6t_icmp`.
#[derive(Debug, Clone, PartialEq)]
pub struct Icmp {
    /// Which of the two matches.
    pub family: IpFamily,
    /// Type (0xff = any, IPv4).
    pub icmp_type: u8,
    /// Code range.
    pub code: [u8; 2],
    /// `IPT_ICMP_INV` or 0.
    pub invflags: u8,
}

impl Icmp {
    /// A match with no type given yet (IPv4 starts at `any`).
    pub fn new(family: IpFamily) -> Icmp {
        Icmp {
            family,
            icmp_type: if family == IpFamily::V4 { 0xff } else { 0 },
            code: [0, 0xff],
            invflags: 0,
        }
    }

    fn print_unknown(&self, out: &mut String) {
        print_unknown_invflags(out, self.invflags, IPT_ICMP_INV);
    }

    fn d(&self) -> &'static ExtDesc {
        match self.family {
            IpFamily::V4 => &ICMP,
            IpFamily::V6 => &ICMP6,
        }
    }

    fn to_xt(&self) -> Vec<u8> {
        INFO.encode(self)
    }
}

/// `struct ipt_icmp`, field by field (`struct ip6t_icmp` is laid out the same): it decodes
/// the options and encodes them.
static INFO: XtStruct<Icmp> = XtStruct::new(
    "ipt_icmp",
    size_of::<ipt_icmp>(),
    0,
    &[
        xt_field!(ipt_icmp, r#type: U8 => icmp_type),
        xt_field!(ipt_icmp, code: Bytes(2) => code),
        xt_field!(ipt_icmp, invflags: U8 => invflags),
    ],
);

/// Parses an ICMP(v6) type as iptables: a name prefix, `type` or `type/code`.
fn parse_type(family: IpFamily, s: &str) -> Result<(u8, [u8; 2]), ParseError> {
    let (names, opt, what) = match family {
        IpFamily::V4 => (ICMP_NAMES, "--icmp-type", "ICMP"),
        IpFamily::V6 => (ICMPV6_NAMES, "--icmpv6-type", "ICMPv6"),
    };
    let mut found: Option<&(&str, u8, u8, u8)> = None;
    for n in names {
        if n.0.len() >= s.len() && n.0[..s.len()].eq_ignore_ascii_case(s) {
            if let Some(prev) = found {
                return Err(ParseError::bad(
                    opt,
                    format!("Ambiguous {what} type `{s}': `{}' or `{}'?", prev.0, n.0),
                ));
            }
            found = Some(n);
        }
    }
    if let Some(&(_, t, lo, hi)) = found {
        return Ok((t, [lo, hi]));
    }
    // A number or range (`type[:type][/code[:code]]`), as libxt_icmp.h's parse_range; a
    // type range is refused by iptables and ip6tables.
    fn range<'a>(
        opt: &str,
        what: &str,
        s: &str,
        t: &str,
        v: &'a str,
    ) -> Result<([u8; 2], &'a str), ParseError> {
        let bad = || ParseError::bad(opt, format!("Unknown {what} {t} `{s}'"));
        let (lo, rest) = strtoul_prefix_in(v, 0, 255).ok_or_else(bad)?;
        match rest.strip_prefix(':') {
            Some(r) => {
                let (hi, rest) = strtoul_prefix_in(r, 0, 255).ok_or_else(bad)?;
                Ok(([lo as u8, hi as u8], rest))
            }
            None => Ok(([lo as u8, lo as u8], rest)),
        }
    }
    let ([t, t_hi], rest) = range(opt, what, s, "type", s)?;
    if t != t_hi {
        return Err(ParseError::bad(
            opt,
            format!("{what} type range not supported"),
        ));
    }
    let (code, rest) = match rest.strip_prefix('/') {
        None => ([0, 0xff], rest),
        Some(c) => range(opt, what, s, "code", c)?,
    };
    if let Some(ch) = rest.chars().next() {
        return Err(ParseError::bad(opt, format!("unknown character {ch}")));
    }
    Ok((t, code))
}

impl Extension for Icmp {
    fn desc(&self) -> &'static ExtDesc {
        self.d()
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let (t, code) = parse_type(self.family, val.text())?;
        self.icmp_type = t;
        self.code = code;
        if inv {
            self.invflags |= IPT_ICMP_INV;
        }
        // Without `-p icmp` (or `-p ipv6-icmp`), or with it inverted, the kernel refuses the
        // match (`.proto` of ipt_icmp/ip6t_icmp6), as it does iptables-nft's: a rule add
        // fails with EINVAL, a check or delete finds no such rule.
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match(self.d().name, 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.invflags & IPT_ICMP_INV != 0 {
            out.push_str(" !");
        }
        match self.family {
            IpFamily::V4 if self.icmp_type == 0xff && self.code == [0, 0xff] => {
                out.push_str(" --icmp-type any");
                return;
            }
            IpFamily::V4 => out.push_str(&format!(" --icmp-type {}", self.icmp_type)),
            IpFamily::V6 => out.push_str(&format!(" --icmpv6-type {}", self.icmp_type)),
        }
        if self.code != [0, 0xff] {
            out.push_str(&format!("/{}", self.code[0]));
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let (label, names) = match self.family {
            IpFamily::V4 => (" icmp", ICMP_NAMES),
            IpFamily::V6 => (" ipv6-icmp", ICMPV6_NAMES),
        };
        out.push_str(label);
        let inv = self.invflags & IPT_ICMP_INV != 0;
        let [lo, hi] = self.code;
        if !ctx.numeric {
            if let Some((name, ..)) = names
                .iter()
                .find(|(_, t, l, h)| *t == self.icmp_type && *l == lo && *h == hi)
            {
                out.push(' ');
                if inv {
                    out.push('!');
                }
                out.push_str(name);
                return self.print_unknown(out);
            }
        }
        if inv {
            out.push_str(" !");
        }
        out.push_str(&format!("type {}", self.icmp_type));
        if lo == hi {
            out.push_str(&format!(" code {lo}"));
        } else if lo != 0 || hi != 0xff {
            out.push_str(&format!(" codes {lo}-{hi}"));
        }
        self.print_unknown(out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(family: IpFamily, rev: u32, info: &[u8]) -> Option<Box<dyn Extension>> {
    debug_assert_eq!(size_of::<ipt_icmp>(), size_of::<ip6t_icmp>());
    let mut i = Icmp::new(family);
    INFO.read(&INFO.view(rev, info)?, &mut i)?;
    (INFO.encodes_to(&i, info) && i.invflags & !IPT_ICMP_INV == 0).then(|| Box::new(i) as _)
}

fn decode_xt4(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_xt(IpFamily::V4, rev, info)
}

fn decode_xt6(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode_xt(IpFamily::V6, rev, info)
}

/// `payload load 1b/2b @ transport + 0` + `cmp eq`: the type, or type and code, after
/// `-p icmp` / `-p ipv6-icmp`.
fn decode_native(cur: &mut ExprCursor<'_>, ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let proto = match ctx.family {
        IpFamily::V4 => 1,
        IpFamily::V6 => 58,
    };
    if !ctx.proto.is_some_and(|p| p.num == proto && !p.inv) {
        return None;
    }
    let (Some(Expr::Payload(p)), Some(Expr::Cmp(c))) = (cur.peek(0), cur.peek(1)) else {
        return None;
    };
    if p.base != PayloadBase::Transport
        || p.offset != 0
        || !(p.len == 1 || p.len == 2)
        || p.op != (PayloadOp::Load { dreg: REG })
        || c.sreg != REG
        || c.op != CmpOp::Eq
        || c.data.len() != p.len as usize
    {
        return None;
    }
    let d = c.data.as_bytes();
    let mut i = Icmp::new(ctx.family);
    i.icmp_type = d[0];
    if let Some(&code) = d.get(1) {
        i.code = [code, code];
    }
    // iptables prints type 255 as `any`, whatever the code.
    if ctx.family == IpFamily::V4 && i.icmp_type == 0xff && i.code != [0, 0xff] {
        return None;
    }
    cur.pos += 2;
    Some(Box::new(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::decode_rule;
    use crate::nft::expr::meta::{Meta, MetaKey};
    use crate::nft::expr::Counter;
    use crate::nft::expr::{Cmp, Payload};
    use crate::nft::Rule;

    fn native(family: IpFamily, proto: u8, value: &[u8]) -> String {
        let mut r = Rule::new(family.nft(), "filter", "INPUT");
        r.exprs = vec![
            Meta::load_reg1(MetaKey::L4proto).into(),
            Cmp::eq(false, &[proto]).into(),
            Payload::load_reg1(PayloadBase::Transport, 0, value.len() as u32).into(),
            Cmp::eq(false, value).into(),
            Expr::Counter(Counter {
                packets: 0,
                bytes: 0,
            }),
        ];
        decode_rule(&r, family).unwrap().to_save_args()
    }

    #[test]
    fn native_forms() {
        // What nft writes for `icmp type echo-request`, `icmp type 3 icmp code 3` and
        // `icmpv6 type nd-neighbor-solicit`, as iptables-nft 1.8.9 lists them.
        assert_eq!(
            native(IpFamily::V4, 1, &[8]),
            "-p icmp -m icmp --icmp-type 8"
        );
        assert_eq!(
            native(IpFamily::V4, 1, &[3, 3]),
            "-p icmp -m icmp --icmp-type 3/3"
        );
        assert_eq!(
            native(IpFamily::V6, 58, &[135]),
            "-p ipv6-icmp -m icmp6 --icmpv6-type 135"
        );
    }

    #[test]
    fn names() {
        assert_eq!(parse_type(IpFamily::V4, "echo-req").unwrap(), (8, [0, 255]));
        assert_eq!(
            parse_type(IpFamily::V4, "ECHO-REQUEST").unwrap(),
            (8, [0, 255])
        );
        assert!(parse_type(IpFamily::V4, "echo").is_err());
        assert!(parse_type(IpFamily::V4, "a").is_err());
        assert_eq!(parse_type(IpFamily::V4, "any").unwrap(), (255, [0, 255]));
        assert_eq!(parse_type(IpFamily::V4, "3/4").unwrap(), (3, [4, 4]));
        assert_eq!(parse_type(IpFamily::V4, "0x8").unwrap(), (8, [0, 255]));
        assert!(parse_type(IpFamily::V4, "256").is_err());
        assert!(parse_type(IpFamily::V4, "3/").is_err());
        assert!(parse_type(IpFamily::V4, "/3").is_err());
        assert!(parse_type(IpFamily::V6, "any").is_err());
        assert_eq!(
            parse_type(IpFamily::V4, "255/0:255").unwrap(),
            (255, [0, 255])
        );
        assert_eq!(parse_type(IpFamily::V4, "3/4:5").unwrap(), (3, [4, 5]));
        let msg = |f, s| parse_type(f, s).unwrap_err().to_string();
        assert_eq!(
            msg(IpFamily::V4, "3:4"),
            "--icmp-type: ICMP type range not supported"
        );
        assert_eq!(msg(IpFamily::V4, "3x"), "--icmp-type: unknown character x");
        assert_eq!(
            msg(IpFamily::V4, "3/x"),
            "--icmp-type: Unknown ICMP code `3/x'"
        );
        assert_eq!(
            msg(IpFamily::V6, "300"),
            "--icmpv6-type: Unknown ICMPv6 type `300'"
        );
        assert_eq!(
            parse_type(IpFamily::V6, "mld-listener-red").unwrap(),
            (132, [0, 255])
        );
        assert!(parse_type(IpFamily::V6, "neighbo").is_err());
        assert_eq!(
            parse_type(IpFamily::V6, "neighbour-solicitation").unwrap(),
            (135, [0, 255])
        );
    }
}
