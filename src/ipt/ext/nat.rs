//! The NAT targets `MASQUERADE`, `SNAT`, `DNAT` and `REDIRECT` (iptables' `libxt_NAT.c`).
//!
//! Encoding (iptables-nft 1.8.9 on a current kernel), all x_tables targets:
//! - `MASQUERADE`, `REDIRECT`: rev 0; IPv4 `nf_nat_ipv4_multi_range_compat`, IPv6
//!   `nf_nat_range`.
//! - `SNAT`: IPv4 rev 0 (`nf_nat_ipv4_multi_range_compat`), IPv6 rev 1 (`nf_nat_range`).
//! - `DNAT`: rev 2 (`nf_nat_range2`, with the `port-range/base` shift) for both families.
//!
//! Decoding takes every revision the kernel has (0 to 2 for SNAT/DNAT). The kernel allows
//! them in the nat table only: `MASQUERADE` and `SNAT` in POSTROUTING (SNAT also INPUT),
//! `DNAT` in PREROUTING and OUTPUT, `REDIRECT` in PREROUTING and OUTPUT.
//!
//! Deliberate differences from iptables 1.8.9, which accepts these wrong specs silently:
//! - a `/base` port shift is refused for `SNAT` and `MASQUERADE` (iptables drops the base and
//!   stores a shift flag that it prints back as `/0`, a spec it cannot read again);
//!   `REDIRECT` refuses it as iptables does;
//! - `--to-source 10:80` is a bad address (iptables takes any 1–2 character address before
//!   the colon for `[]` and maps to `:80`, any address);
//! - text before `[` or between `]` and `:` is refused (iptables ignores it).
//!
//! iptables 1.8.9 also misprints revisions it does not write (IPv4 `DNAT` rev 0, IPv4 `SNAT`
//! rev 1 and 2) because it reads them with the layout of its own revision; iptnl decodes each
//! revision with its own layout.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    nf_nat_ipv4_multi_range_compat, nf_nat_ipv4_range, nf_nat_range, nf_nat_range2,
    NF_NAT_RANGE_MAP_IPS, NF_NAT_RANGE_PERSISTENT, NF_NAT_RANGE_PROTO_OFFSET,
    NF_NAT_RANGE_PROTO_RANDOM, NF_NAT_RANGE_PROTO_RANDOM_FULLY, NF_NAT_RANGE_PROTO_SPECIFIED,
};

use super::base::libxt::{ntop, strtoul_prefix_in as strtoul_prefix};
use super::base::names::service_port;
use super::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j MASQUERADE`.
pub static MASQUERADE: ExtDesc = ExtDesc {
    name: "MASQUERADE",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("to-ports", STR),
        Opt::flag("random"),
        Opt::flag("random-fully"),
    ]),
    new: |f| Box::new(Nat::new(NatKind::Masquerade, f)),
    xt_names: &["MASQUERADE"],
    decode_xt: Some(|rev, info, ctx| decode(NatKind::Masquerade, rev, info, ctx)),
    decode_native: None,
};

/// `-j SNAT`.
pub static SNAT: ExtDesc = ExtDesc {
    name: "SNAT",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("to-source", STR).mand(),
        Opt::flag("random"),
        Opt::flag("random-fully"),
        Opt::flag("persistent"),
    ]),
    new: |f| Box::new(Nat::new(NatKind::Snat, f)),
    xt_names: &["SNAT"],
    decode_xt: Some(|rev, info, ctx| decode(NatKind::Snat, rev, info, ctx)),
    decode_native: None,
};

/// `-j DNAT`.
pub static DNAT: ExtDesc = ExtDesc {
    name: "DNAT",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("to-destination", STR).mand(),
        Opt::flag("random"),
        Opt::flag("persistent"),
    ]),
    new: |f| Box::new(Nat::new(NatKind::Dnat, f)),
    xt_names: &["DNAT"],
    decode_xt: Some(|rev, info, ctx| decode(NatKind::Dnat, rev, info, ctx)),
    decode_native: None,
};

/// `-j REDIRECT`.
pub static REDIRECT: ExtDesc = ExtDesc {
    name: "REDIRECT",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::new("to-ports", STR), Opt::flag("random")]),
    new: |f| Box::new(Nat::new(NatKind::Redirect, f)),
    xt_names: &["REDIRECT"],
    decode_xt: Some(|rev, info, ctx| decode(NatKind::Redirect, rev, info, ctx)),
    decode_native: None,
};

/// Which NAT target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NatKind {
    /// `MASQUERADE`.
    Masquerade,
    /// `SNAT`.
    Snat,
    /// `DNAT`.
    Dnat,
    /// `REDIRECT`.
    Redirect,
}

/// A NAT target with its range, as in `struct nf_nat_range2` (the IPv4 compat struct and
/// `nf_nat_range` are subsets of it).
#[derive(Debug, Clone, PartialEq)]
pub struct Nat {
    /// Which target.
    pub kind: NatKind,
    /// The family (addresses are printed per family).
    pub family: IpFamily,
    /// `NF_NAT_RANGE_*` flags, unknown bits kept.
    pub flags: u32,
    /// First address (network order; IPv4 in the first 4 bytes).
    pub min_addr: [u8; 16],
    /// Last address.
    pub max_addr: [u8; 16],
    /// First port.
    pub min_port: u16,
    /// Last port.
    pub max_port: u16,
    /// Base of a shifted port range (`DNAT --to-destination …:80-90/1000`).
    pub base_port: u16,
}

impl Nat {
    /// An instance with nothing set.
    pub fn new(kind: NatKind, family: IpFamily) -> Nat {
        Nat {
            kind,
            family,
            flags: 0,
            min_addr: [0; 16],
            max_addr: [0; 16],
            min_port: 0,
            max_port: 0,
            base_port: 0,
        }
    }

    fn xt_name(&self) -> &'static str {
        match self.kind {
            NatKind::Masquerade => "MASQUERADE",
            NatKind::Snat => "SNAT",
            NatKind::Dnat => "DNAT",
            NatKind::Redirect => "REDIRECT",
        }
    }

    /// iptables' `parse_ports`: `port[-port[/base]]`, numbers or (first and base) service
    /// names.
    fn parse_ports(&mut self, arg: &str, portok: bool, option: &str) -> Result<(), ParseError> {
        if !portok {
            return Err(ParseError::bad(
                option,
                "Need TCP, UDP, SCTP or DCCP with port specification",
            ));
        }
        let not_valid = |s: &str| ParseError::bad(option, format!("Port `{s}' not valid"));
        self.flags |= NF_NAT_RANGE_PROTO_SPECIFIED;
        let (port, end) = match strtoul_prefix(arg, 0, 65535) {
            Some((p, end)) => (p as u16, end),
            None => (service_port(arg).ok_or_else(|| not_valid(arg))?, ""),
        };
        let rest = match end.chars().next() {
            None => {
                self.min_port = port;
                self.max_port = port;
                return Ok(());
            }
            Some('-') => &end[1..],
            Some(':') => {
                return Err(ParseError::bad(
                    option,
                    "Invalid port:port syntax - use dash",
                ))
            }
            Some(_) => {
                return Err(ParseError::bad(
                    option,
                    format!("Garbage after port value: `{end}'"),
                ))
            }
        };
        let (maxport, end) = strtoul_prefix(rest, 0, 65535).ok_or_else(|| not_valid(rest))?;
        let maxport = maxport as u16;
        if maxport < port {
            return Err(ParseError::bad(
                option,
                format!("Port range `{rest}' funky"),
            ));
        }
        self.min_port = port;
        self.max_port = maxport;
        let base = match end.chars().next() {
            None => return Ok(()),
            Some('/') => &end[1..],
            Some(_) => {
                return Err(ParseError::bad(
                    option,
                    format!("Garbage after port range: `{end}'"),
                ))
            }
        };
        let baseport = match strtoul_prefix(base, 1, 65535) {
            Some((b, _)) => b as u16,
            None => service_port(base).ok_or_else(|| not_valid(base))?,
        };
        if self.kind != NatKind::Dnat {
            return Err(ParseError::bad(
                option,
                if self.kind == NatKind::Redirect {
                    "Shifted portmap ranges not supported with this kernel"
                } else {
                    "shifted portmap ranges (port-range/base) are only supported by DNAT"
                },
            ));
        }
        self.flags |= NF_NAT_RANGE_PROTO_OFFSET;
        self.base_port = baseport;
        Ok(())
    }

    /// iptables' `parse_to`: `[addr[-addr]][:port[-port[/base]]]`, IPv6 addresses in
    /// brackets when ports follow.
    ///
    /// Stricter than iptables where it silently drops text: anything before `[` or between
    /// `]` and `:`, and an address of one or two characters before the colon (`10:80`,
    /// which iptables reads as `:80`), are errors.
    fn parse_to(&mut self, orig: &str, portok: bool, option: &str) -> Result<(), ParseError> {
        let invalid = || ParseError::bad(option, "Invalid address format");
        // (address text, index of the port colon, bracketed)
        let (addr, colon, bracketed): (&str, Option<usize>, bool) = match orig.find('[') {
            Some(open) => {
                let start = open + 1;
                let close = orig[start..].find(']').ok_or_else(invalid)? + start;
                if self.family == IpFamily::V4 || open != 0 {
                    return Err(invalid());
                }
                let after = &orig[close + 1..];
                if !after.is_empty() && !after.starts_with(':') {
                    return Err(invalid());
                }
                let colon = (!after.is_empty()).then_some(close + 1);
                (&orig[start..close], colon, true)
            }
            None => {
                let colon = orig.find(':').filter(|&c| !orig[c + 1..].contains(':'));
                (colon.map_or(orig, |c| &orig[..c]), colon, false)
            }
        };
        if let Some(c) = colon {
            self.parse_ports(&orig[c + 1..], portok, option)?;
            // ":ports" or "[]:ports": no address.
            if c == 0 || (bracketed && addr.is_empty()) {
                return Ok(());
            }
        }
        self.flags |= NF_NAT_RANGE_MAP_IPS;
        let (lo, hi) = match addr.find('-') {
            Some(d) => (&addr[..d], Some(&addr[d + 1..])),
            None => (addr, None),
        };
        let pton = |s: &str| -> Result<[u8; 16], ParseError> {
            let mut out = [0u8; 16];
            let ok = match self.family {
                IpFamily::V4 => s
                    .parse::<std::net::Ipv4Addr>()
                    .map(|a| out[..4].copy_from_slice(&a.octets()))
                    .is_ok(),
                IpFamily::V6 => s
                    .parse::<std::net::Ipv6Addr>()
                    .map(|a| out.copy_from_slice(&a.octets()))
                    .is_ok(),
            };
            if ok {
                Ok(out)
            } else {
                Err(ParseError::bad(option, format!("Bad IP address \"{s}\"")))
            }
        };
        self.min_addr = pton(lo)?;
        self.max_addr = match hi {
            Some(h) => pton(h)?,
            None => self.min_addr,
        };
        Ok(())
    }

    /// iptables' `sprint_range`.
    fn range_string(&self) -> String {
        let brackets =
            self.family == IpFamily::V6 && self.flags & NF_NAT_RANGE_PROTO_SPECIFIED != 0;
        let mut s = String::new();
        if self.flags & NF_NAT_RANGE_MAP_IPS != 0 {
            if brackets {
                s.push('[');
            }
            s.push_str(&ntop(self.family, &self.min_addr));
            if self.min_addr != self.max_addr {
                s.push('-');
                s.push_str(&ntop(self.family, &self.max_addr));
            }
            if brackets {
                s.push(']');
            }
        }
        if self.flags & NF_NAT_RANGE_PROTO_SPECIFIED != 0 {
            s.push_str(&format!(":{}", self.min_port));
            if self.max_port != self.min_port {
                s.push_str(&format!("-{}", self.max_port));
            }
            if self.flags & NF_NAT_RANGE_PROTO_OFFSET != 0 {
                s.push_str(&format!("/{}", self.base_port));
            }
        }
        s
    }
}

fn desc_of(kind: NatKind) -> &'static ExtDesc {
    match kind {
        NatKind::Masquerade => &MASQUERADE,
        NatKind::Snat => &SNAT,
        NatKind::Dnat => &DNAT,
        NatKind::Redirect => &REDIRECT,
    }
}

/// Whether `-p` allows a port range (iptables checks the protocol number only, not its
/// inversion).
fn portok(ctx: &ParseCtx) -> bool {
    ctx.proto
        .is_some_and(|p| matches!(p.num, 6 | 17 | 132 | 33 | 1))
}

impl Extension for Nat {
    fn desc(&self) -> &'static ExtDesc {
        desc_of(self.kind)
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let shown = opt.shown();
        match opt.name {
            "to-source" | "to-destination" => self.parse_to(val.text(), portok(ctx), &shown)?,
            "to-ports" => self.parse_ports(val.text(), portok(ctx), &shown)?,
            "random" => self.flags |= NF_NAT_RANGE_PROTO_RANDOM,
            "random-fully" => self.flags |= NF_NAT_RANGE_PROTO_RANDOM_FULLY,
            "persistent" => self.flags |= NF_NAT_RANGE_PERSISTENT,
            _ => {
                return Err(ParseError::UnknownOption {
                    option: shown.to_string(),
                })
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let table = match (self.kind, self.family) {
            (NatKind::Dnat, _) => &RANGE2,
            (_, IpFamily::V4) => &COMPAT,
            (NatKind::Snat, IpFamily::V6) => &RANGE1,
            (_, IpFamily::V6) => &RANGE0,
        };
        out.push(xt_target(self.xt_name(), table.rev, table.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let (opt, skip_colon) = match self.kind {
            NatKind::Snat => ("--to-source", false),
            NatKind::Dnat => ("--to-destination", false),
            NatKind::Masquerade | NatKind::Redirect => ("--to-ports", true),
        };
        let range = self.range_string();
        if !range.is_empty() {
            let r = match range.strip_prefix(':') {
                Some(rest) if skip_colon => rest,
                _ => &range,
            };
            out.push_str(&format!(" {opt} {r}"));
        }
        if self.flags & NF_NAT_RANGE_PROTO_RANDOM != 0 {
            out.push_str(" --random");
        }
        if self.flags & NF_NAT_RANGE_PROTO_RANDOM_FULLY != 0 {
            out.push_str(" --random-fully");
        }
        if self.flags & NF_NAT_RANGE_PERSISTENT != 0 {
            out.push_str(" --persistent");
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let (opt, skip_colon) = match self.kind {
            NatKind::Snat | NatKind::Dnat => (" to:", false),
            NatKind::Masquerade => (" masq ports: ", true),
            NatKind::Redirect => (" redir ports ", true),
        };
        let range = self.range_string();
        if !range.is_empty() {
            let r = match range.strip_prefix(':') {
                Some(rest) if skip_colon => rest,
                _ => &range,
            };
            out.push_str(opt);
            out.push_str(r);
        }
        for (flag, word) in [
            (NF_NAT_RANGE_PROTO_RANDOM, " random"),
            (NF_NAT_RANGE_PROTO_RANDOM_FULLY, " random-fully"),
            (NF_NAT_RANGE_PERSISTENT, " persistent"),
        ] {
            if self.flags & flag != 0 {
                out.push_str(word);
            }
        }
    }

    crate::ext_boilerplate!();
}

/// Where the one range of `nf_nat_ipv4_multi_range_compat` starts.
const R: usize = offset_of!(nf_nat_ipv4_multi_range_compat, range);

/// `struct nf_nat_ipv4_multi_range_compat` (IPv4, rev 0), field by field: one range, whose
/// addresses are the first four bytes of the options' ones.
static COMPAT: XtStruct<Nat> = XtStruct::new(
    "nf_nat_ipv4_multi_range_compat",
    size_of::<nf_nat_ipv4_multi_range_compat>(),
    0,
    &[
        Field {
            name: "rangesize",
            at: offset_of!(nf_nat_ipv4_multi_range_compat, rangesize),
            kind: Kind::Custom(
                4,
                |_, b| b.copy_from_slice(&1u32.to_ne_bytes()),
                |_, b| (b == 1u32.to_ne_bytes()).then_some(()),
            ),
        },
        Field {
            name: "range[0].flags",
            at: R + offset_of!(nf_nat_ipv4_range, flags),
            kind: Kind::U32(|s| s.flags, |s, v| s.flags = v),
        },
        Field {
            name: "range[0].min_ip",
            at: R + offset_of!(nf_nat_ipv4_range, min_ip),
            kind: Kind::Bytes(
                4,
                |s| &s.min_addr[..4],
                |s, v| s.min_addr[..4].copy_from_slice(v),
            ),
        },
        Field {
            name: "range[0].max_ip",
            at: R + offset_of!(nf_nat_ipv4_range, max_ip),
            kind: Kind::Bytes(
                4,
                |s| &s.max_addr[..4],
                |s, v| s.max_addr[..4].copy_from_slice(v),
            ),
        },
        Field {
            name: "range[0].min",
            at: R + offset_of!(nf_nat_ipv4_range, min),
            kind: Kind::Be16(|s| s.min_port, |s, v| s.min_port = v),
        },
        Field {
            name: "range[0].max",
            at: R + offset_of!(nf_nat_ipv4_range, max),
            kind: Kind::Be16(|s| s.max_port, |s, v| s.max_port = v),
        },
    ],
);

/// `struct nf_nat_range`, field by field, as revisions 0 (IPv6) and 1 hold it.
const RANGE_FIELDS: &[Field<Nat>] = &[
    xt_field!(nf_nat_range, flags: U32 => flags),
    xt_field!(nf_nat_range, min_addr: Bytes(16) => min_addr),
    xt_field!(nf_nat_range, max_addr: Bytes(16) => max_addr),
    xt_field!(nf_nat_range, min_proto: Be16 => min_port),
    xt_field!(nf_nat_range, max_proto: Be16 => max_port),
];

/// `struct nf_nat_range`, IPv6 rev 0.
static RANGE0: XtStruct<Nat> =
    XtStruct::new("nf_nat_range", size_of::<nf_nat_range>(), 0, RANGE_FIELDS);

/// `struct nf_nat_range`, rev 1.
static RANGE1: XtStruct<Nat> =
    XtStruct::new("nf_nat_range", size_of::<nf_nat_range>(), 1, RANGE_FIELDS);

/// `struct nf_nat_range2` (rev 2): `nf_nat_range` and the base of a shifted port range.
static RANGE2: XtStruct<Nat> = XtStruct::new(
    "nf_nat_range2",
    size_of::<nf_nat_range2>(),
    2,
    &[
        xt_field!(nf_nat_range2, flags: U32 => flags),
        xt_field!(nf_nat_range2, min_addr: Bytes(16) => min_addr),
        xt_field!(nf_nat_range2, max_addr: Bytes(16) => max_addr),
        xt_field!(nf_nat_range2, min_proto: Be16 => min_port),
        xt_field!(nf_nat_range2, max_proto: Be16 => max_port),
        xt_field!(nf_nat_range2, base_proto: Be16 => base_port),
    ],
);

fn decode(kind: NatKind, rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let table = match (kind, rev) {
        (NatKind::Masquerade | NatKind::Redirect, 0) | (NatKind::Snat | NatKind::Dnat, 0) => {
            if ctx.family == IpFamily::V4 {
                &COMPAT
            } else {
                &RANGE0
            }
        }
        (NatKind::Snat | NatKind::Dnat, 1) => &RANGE1,
        (NatKind::Snat | NatKind::Dnat, 2) => &RANGE2,
        _ => return None,
    };
    let mut n = Nat::new(kind, ctx.family);
    table.read(&table.view(rev, info)?, &mut n)?;
    Some(Box::new(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::{parse_rule, ProtoMatch};

    fn parsed(
        kind: NatKind,
        family: IpFamily,
        proto: u8,
        opt: &str,
        v: &str,
    ) -> Result<Nat, ParseError> {
        let mut n = Nat::new(kind, family);
        let proto = (proto != 0).then_some(ProtoMatch {
            num: proto,
            inv: false,
        });
        crate::ipt::ext::base::opts::feed(&mut n, family, proto, opt, v)?;
        Ok(n)
    }

    #[test]
    fn ranges_print_as_iptables() {
        let n = parsed(
            NatKind::Dnat,
            IpFamily::V4,
            6,
            "to-destination",
            "10.0.0.1-10.0.0.3:80-90/1000",
        )
        .unwrap();
        assert_eq!(n.range_string(), "10.0.0.1-10.0.0.3:80-90/1000");
        let n = parsed(
            NatKind::Dnat,
            IpFamily::V6,
            6,
            "to-destination",
            "[fd00::1]:80",
        )
        .unwrap();
        assert_eq!(n.range_string(), "[fd00::1]:80");
        let n = parsed(
            NatKind::Snat,
            IpFamily::V6,
            0,
            "to-source",
            "[fd00::1-fd00::5]",
        )
        .unwrap();
        assert_eq!(n.range_string(), "fd00::1-fd00::5");
        let n = parsed(NatKind::Snat, IpFamily::V6, 6, "to-source", "fd00::1:100").unwrap();
        assert_eq!(n.range_string(), "fd00::1:100");
        let n = parsed(NatKind::Masquerade, IpFamily::V4, 17, "to-ports", "0x50").unwrap();
        assert_eq!(n.range_string(), ":80");
    }

    #[test]
    fn port_errors() {
        let e = |s: &str| {
            parsed(NatKind::Dnat, IpFamily::V4, 6, "to-destination", s)
                .unwrap_err()
                .to_string()
        };
        assert!(e("1.2.3.4:80/100").contains("Garbage after port value"));
        assert!(e("1.2.3.4:2000-1000").contains("funky"));
        // Two colons make it an IPv6-looking address, as in iptables.
        assert!(e("1.2.3.4:1000:2000").contains("Bad IP address"));
        assert!(parsed(
            NatKind::Masquerade,
            IpFamily::V4,
            17,
            "to-ports",
            "1000:2000"
        )
        .unwrap_err()
        .to_string()
        .contains("use dash"));
        assert!(e("1.2.3.4:80-90/0").contains("not valid"));
        assert!(e("1.2.3.4:080").contains("Garbage"));
        assert!(e("[1.2.3.4]:80").contains("Invalid address format"));
        assert!(e("1.2.3.300").contains("Bad IP address"));
        // iptables 1.8.9 reads "10:80" as ":80" and ignores text around brackets.
        assert!(e("10:80").contains("Bad IP address"));
        let e6 = |s: &str| {
            parsed(NatKind::Snat, IpFamily::V6, 6, "to-source", s)
                .unwrap_err()
                .to_string()
        };
        assert!(e6("[fd00::1]x").contains("Invalid address format"));
        assert!(e6("x[fd00::1]:80").contains("Invalid address format"));
        assert!(e6("[fd00::1]x:80").contains("Invalid address format"));
        assert!(parsed(NatKind::Snat, IpFamily::V6, 6, "to-source", "[]:80").is_ok());
        assert!(parsed(NatKind::Snat, IpFamily::V4, 6, "to-source", ":80").is_ok());
        assert!(parsed(
            NatKind::Dnat,
            IpFamily::V4,
            0,
            "to-destination",
            "1.2.3.4:80"
        )
        .unwrap_err()
        .to_string()
        .contains("Need TCP"));
    }

    /// iptables 1.8.9 accepts `/base` for SNAT and MASQUERADE, drops the base and prints
    /// `/0` back (which it cannot parse again); iptnl refuses it.
    #[test]
    fn shift_only_for_dnat() {
        for (kind, opt, v) in [
            (NatKind::Snat, "to-source", "10.0.0.1:1000-2000/5"),
            (NatKind::Masquerade, "to-ports", "1000-2000/100"),
            (NatKind::Redirect, "to-ports", "1000-2000/10"),
        ] {
            assert!(parsed(kind, IpFamily::V4, 6, opt, v).is_err());
            assert!(parsed(
                kind,
                IpFamily::V6,
                6,
                opt,
                v.replace("10.0.0.1", "[fd00::1]").as_str()
            )
            .is_err());
        }
        assert!(parse_rule(
            IpFamily::V4,
            &["-p", "tcp", "-j", "SNAT", "--to-source", "1.1.1.1:1-2/3"]
        )
        .is_err());
    }

    #[test]
    fn compat_round_trip() {
        let n = parsed(
            NatKind::Snat,
            IpFamily::V4,
            6,
            "to-source",
            "10.0.0.1-10.0.0.5:100-200",
        )
        .unwrap();
        let info = COMPAT.encode(&n);
        assert_eq!(info.len(), iptnl_sys::xt::xt_align(20));
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let back = decode(NatKind::Snat, 0, &info, &ctx).unwrap();
        assert!(back.eq_dyn(&n));
        let mut s = String::new();
        back.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --to-source 10.0.0.1-10.0.0.5:100-200");
    }

    #[test]
    fn table_messages() {
        for (rule, msg) in [
            (
                "-j SNAT --random",
                "SNAT: option \"--to-source\" must be specified",
            ),
            (
                "-j DNAT --to-destination 1.2.3.4 --random --random",
                "DNAT: option \"--random\" can only be used once.",
            ),
        ] {
            let e = crate::ipt::parse_rule_str(IpFamily::V4, rule)
                .unwrap_err()
                .to_string();
            assert!(e.ends_with(msg), "{rule}: {e}");
        }
    }
}
