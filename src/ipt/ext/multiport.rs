//! `multiport` match (`-p tcp|udp|udplite|sctp|dccp -m multiport [!] --sports|--dports|--ports
//! P[,P:P…]`): up to 15 ports, a range taking two.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `multiport` match, revision 1
//! (`xt_multiport_v1`). Decoding: revisions 0 (single ports, no inversion) and 1.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_multiport, xt_multiport_v1, XT_MULTIPORT_DESTINATION, XT_MULTIPORT_EITHER,
    XT_MULTIPORT_SOURCE, XT_MULTI_PORTS,
};

use super::base::libxt::parse_c_uint;
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

/// The options of `-m multiport` (each excludes the others, itself included).
const ANY: &[&str] = &["source-ports", "destination-ports", "ports"];

/// The `multiport` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "multiport",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("source-ports", STR).inv().excl(ANY),
        Opt::new("sports", STR).alias("source-ports"),
        Opt::new("destination-ports", STR).inv().excl(ANY),
        Opt::new("dports", STR).alias("destination-ports"),
        Opt::new("ports", STR).inv().excl(ANY),
    ]),
    new: |_| Box::new(Multiport::default()),
    xt_names: &["multiport"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m multiport`, as in `struct xt_multiport_v1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Multiport {
    /// `XT_MULTIPORT_SOURCE`, `_DESTINATION` or `_EITHER`.
    pub flags: u8,
    /// Entries used in `ports`.
    pub count: u8,
    /// The ports, a range taking two entries.
    pub ports: [u16; XT_MULTI_PORTS],
    /// 1 where `ports[i]` starts a range ending at `ports[i + 1]`.
    pub pflags: [u8; XT_MULTI_PORTS],
    /// `!` was given.
    pub invert: bool,
}

/// `struct xt_multiport` (revision 0: single ports, no inversion), field by field.
static V0: XtStruct<Multiport> = XtStruct::new(
    "xt_multiport",
    size_of::<xt_multiport>(),
    0,
    &[
        xt_field!(xt_multiport, flags: U8 => flags),
        xt_field!(xt_multiport, count: U8 => count),
        xt_field!(xt_multiport, ports: U16s(XT_MULTI_PORTS) => ports),
    ],
);

/// `struct xt_multiport_v1`, field by field: it decodes the options and encodes them.
static V1: XtStruct<Multiport> = XtStruct::new(
    "xt_multiport_v1",
    size_of::<xt_multiport_v1>(),
    1,
    &[
        xt_field!(xt_multiport_v1, flags: U8 => flags),
        xt_field!(xt_multiport_v1, count: U8 => count),
        xt_field!(xt_multiport_v1, ports: U16s(XT_MULTI_PORTS) => ports),
        xt_field!(xt_multiport_v1, pflags: Bytes(XT_MULTI_PORTS) => pflags),
        xt_field!(xt_multiport_v1, invert: Flag => invert),
    ],
);

fn proto_name(num: u8) -> Option<&'static str> {
    Some(match num {
        6 => "tcp",
        17 => "udp",
        136 => "udplite",
        132 => "sctp",
        33 => "dccp",
        _ => return None,
    })
}

fn parse_port(s: &str, proto: &str, opt: &str) -> Result<u16, ParseError> {
    if let Some(v) = parse_c_uint(s, u16::MAX as u64) {
        return Ok(v as u16);
    }
    crate::ipt::ext::base::ports::parse_port(s, proto, opt)
}

impl Multiport {
    fn parse_ports(&mut self, s: &str, proto: &str, opt: &str) -> Result<(), ParseError> {
        let too_many = || ParseError::bad(opt, "too many ports specified");
        self.ports = [0; XT_MULTI_PORTS];
        self.pflags = [0; XT_MULTI_PORTS];
        let items: Vec<&str> = s.split(',').collect();
        let mut i = 0;
        for item in items {
            if i >= XT_MULTI_PORTS {
                return Err(too_many());
            }
            match item.split_once(':') {
                None => {
                    self.ports[i] = parse_port(item, proto, opt)?;
                }
                Some((lo, hi)) => {
                    if i == XT_MULTI_PORTS - 1 {
                        return Err(too_many());
                    }
                    self.ports[i] = parse_port(lo, proto, opt)?;
                    self.pflags[i] = 1;
                    i += 1;
                    self.ports[i] = parse_port(hi, proto, opt)?;
                    if self.ports[i - 1] >= self.ports[i] {
                        return Err(ParseError::bad(opt, "invalid portrange specified"));
                    }
                }
            }
            i += 1;
        }
        self.count = i as u8;
        Ok(())
    }

    fn option_id(name: &str) -> u8 {
        match name {
            "source-ports" | "sports" => XT_MULTIPORT_SOURCE,
            "destination-ports" | "dports" => XT_MULTIPORT_DESTINATION,
            _ => XT_MULTIPORT_EITHER,
        }
    }
}

impl Extension for Multiport {
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
        let id = Self::option_id(opt.name);
        let proto = match ctx.proto {
            Some(p) if p.inv => {
                return Err(ParseError::Invalid(
                    "multiport only works with TCP, UDP, UDPLITE, SCTP and DCCP".into(),
                ))
            }
            Some(p) if p.num != 0 => proto_name(p.num).ok_or_else(|| {
                ParseError::Invalid(
                    "multiport only works with TCP, UDP, UDPLITE, SCTP and DCCP".into(),
                )
            })?,
            _ => {
                return Err(ParseError::Invalid(
                    "multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'"
                        .into(),
                ))
            }
        };
        self.parse_ports(val.text(), proto, &shown)?;
        self.flags = id;
        self.invert = inv;
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.count == 0 {
            return Err(ParseError::Invalid("no ports specified".into()));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("multiport", 1, V1.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert);
        out.push_str(match self.flags {
            XT_MULTIPORT_SOURCE => " --sports ",
            XT_MULTIPORT_DESTINATION => " --dports ",
            _ => " --ports ",
        });
        let n = (self.count as usize).min(XT_MULTI_PORTS);
        let mut i = 0;
        while i < n {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&self.ports[i].to_string());
            if self.pflags[i] != 0 && i + 1 < XT_MULTI_PORTS {
                i += 1;
                out.push(':');
                out.push_str(&self.ports[i].to_string());
            }
            i += 1;
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let proto = crate::ipt::ext::base::names::service_proto(ctx.proto);
        out.push_str(match self.flags {
            XT_MULTIPORT_SOURCE => " multiport sports ",
            XT_MULTIPORT_DESTINATION => " multiport dports ",
            XT_MULTIPORT_EITHER => " multiport ports ",
            _ => " multiport ERROR ",
        });
        if self.invert {
            out.push_str(" !");
        }
        let n = (self.count as usize).min(XT_MULTI_PORTS);
        let mut i = 0;
        while i < n {
            if i > 0 {
                out.push(',');
            }
            crate::ipt::ext::base::names::push_port(out, self.ports[i], proto, ctx.numeric);
            if self.pflags[i] != 0 && i + 1 < XT_MULTI_PORTS {
                i += 1;
                out.push(':');
                crate::ipt::ext::base::names::push_port(out, self.ports[i], proto, ctx.numeric);
            }
            i += 1;
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let m = match rev {
        0 => V0.decode(rev, info)?,
        1 => V1.decode(rev, info)?,
        _ => return None,
    };
    if m.flags > XT_MULTIPORT_EITHER || m.count as usize > XT_MULTI_PORTS {
        return None;
    }
    Some(Box::new(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_lists() {
        let mut m = Multiport::default();
        m.parse_ports("80,443,8000:8080,0x10", "tcp", "--dports")
            .unwrap();
        assert_eq!(m.count, 5);
        assert_eq!(&m.ports[..5], &[80, 443, 8000, 8080, 16]);
        assert_eq!(&m.pflags[..5], &[0, 0, 1, 0, 0]);
        assert!(m.parse_ports("80:80", "tcp", "--dports").is_err());
        assert!(m.parse_ports("90:80", "tcp", "--dports").is_err());
        assert!(m.parse_ports("80,,443", "tcp", "--dports").is_err());
        let fifteen = (1..=15)
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(",");
        assert!(m.parse_ports(&fifteen, "tcp", "--dports").is_ok());
        let sixteen = format!("{fifteen},16");
        assert!(m.parse_ports(&sixteen, "tcp", "--dports").is_err());
        let fourteen_and_range = format!(
            "{},15:16",
            (1..=14)
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(m
            .parse_ports(&fourteen_and_range, "tcp", "--dports")
            .is_err());
    }
}
