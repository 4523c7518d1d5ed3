//! `TPROXY`: deliver the packet to a local socket without changing it, and mark it
//! (`libxt_TPROXY.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `TPROXY` target, rev 1, 28-byte
//! `xt_tproxy_target_info_v1` (32 aligned), for both families. Revision 0 (IPv4 only) is
//! decoded too. `--on-ip` defaults to the any address and `--tproxy-mark` to `0x0/0x0`; both
//! are always printed. The kernel allows TPROXY in the mangle table's PREROUTING chain with
//! `-p tcp` or `-p udp` only.
//!
//! Deliberate difference from iptables 1.8.9: `--on-port` above 65535 is refused (glibc's
//! `getaddrinfo` cuts such a port to 16 bits, so iptables turns 65536 into 0, "the original
//! port").

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{xt_tproxy_target_info, xt_tproxy_target_info_v1};

use super::base::libxt::ntop;
use super::base::names::{parse_host, service_port};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j TPROXY`.
pub static DESC: ExtDesc = ExtDesc {
    name: "TPROXY",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::custom("on-port").mand(),
        Opt::custom("on-ip"),
        Opt::new("tproxy-mark", Ty::MarkMask),
    ]),
    new: |f| Box::new(Tproxy::new(f)),
    xt_names: &["TPROXY"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j TPROXY …`, as `struct xt_tproxy_target_info_v1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tproxy {
    /// The family of `laddr`.
    pub family: IpFamily,
    /// Mark bits to clear.
    pub mark_mask: u32,
    /// Mark bits to set (xor).
    pub mark_value: u32,
    /// Local address (network order; IPv4 in the first 4 bytes).
    pub laddr: [u8; 16],
    /// Local port (0: the packet's destination port).
    pub lport: u16,
}

impl Tproxy {
    /// TPROXY with nothing set.
    pub fn new(family: IpFamily) -> Tproxy {
        Tproxy {
            family,
            mark_mask: 0,
            mark_value: 0,
            laddr: [0; 16],
            lport: 0,
        }
    }
}

/// `XTTYPE_PORT`: a decimal port or a service name.
fn parse_port(s: &str) -> Result<u16, ParseError> {
    let bad = || {
        ParseError::bad(
            "--on-port",
            format!("Port \"{s}\" does not resolve to anything."),
        )
    };
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u16>().map_err(|_| bad());
    }
    service_port(s).ok_or_else(bad)
}

/// `struct xt_tproxy_target_info` (revision 0, IPv4), field by field: the address is the
/// first 4 bytes of `laddr`.
static V0: XtStruct<Tproxy> = XtStruct::new(
    "xt_tproxy_target_info",
    size_of::<xt_tproxy_target_info>(),
    0,
    &[
        xt_field!(xt_tproxy_target_info, mark_mask: U32 => mark_mask),
        xt_field!(xt_tproxy_target_info, mark_value: U32 => mark_value),
        Field {
            name: "laddr",
            at: offset_of!(xt_tproxy_target_info, laddr),
            kind: Kind::Bytes(4, |s| &s.laddr[..4], |s, v| s.laddr[..4].copy_from_slice(v)),
        },
        xt_field!(xt_tproxy_target_info, lport: Be16 => lport),
    ],
);

/// `struct xt_tproxy_target_info_v1`, field by field: it decodes the options and encodes
/// them.
static V1: XtStruct<Tproxy> = XtStruct::new(
    "xt_tproxy_target_info_v1",
    size_of::<xt_tproxy_target_info_v1>(),
    1,
    &[
        xt_field!(xt_tproxy_target_info_v1, mark_mask: U32 => mark_mask),
        xt_field!(xt_tproxy_target_info_v1, mark_value: U32 => mark_value),
        xt_field!(xt_tproxy_target_info_v1, laddr: Bytes(16) => laddr),
        xt_field!(xt_tproxy_target_info_v1, lport: Be16 => lport),
    ],
);

impl Extension for Tproxy {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        match opt.name {
            "on-port" => self.lport = parse_port(val.text())?,
            "on-ip" => self.laddr = parse_host(self.family, val.text(), "--on-ip")?,
            _ => (self.mark_value, self.mark_mask) = val.mark_mask(),
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("TPROXY", 1, V1.encode(self)));
        Ok(())
    }

    fn save(&self, family: IpFamily, out: &mut String) {
        out.push_str(&format!(
            " --on-port {} --on-ip {} --tproxy-mark 0x{:x}/0x{:x}",
            self.lport,
            ntop(family, &self.laddr),
            self.mark_value,
            self.mark_mask
        ));
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(&format!(
            " TPROXY redirect {}:{} mark 0x{:x}/0x{:x}",
            ntop(ctx.family, &self.laddr),
            self.lport,
            self.mark_value,
            self.mark_mask
        ));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = match rev {
        0 if ctx.family == IpFamily::V4 => &V0,
        1 => &V1,
        _ => return None,
    };
    let mut p = Tproxy::new(ctx.family);
    t.read(&t.view(rev, info)?, &mut p)?;
    Some(Box::new(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports() {
        assert_eq!(parse_port("15006").unwrap(), 15006);
        assert_eq!(parse_port("0").unwrap(), 0);
        // iptables 1.8.9 turns 65536 into port 0; iptnl refuses it.
        assert!(parse_port("65536").is_err());
        assert!(parse_port("0x10").is_err());
        assert!(parse_port("1-2").is_err());
    }

    #[test]
    fn saves_defaults() {
        let t = Tproxy {
            lport: 15006,
            ..Tproxy::new(IpFamily::V6)
        };
        let mut s = String::new();
        t.save(IpFamily::V6, &mut s);
        assert_eq!(s, " --on-port 15006 --on-ip :: --tproxy-mark 0x0/0x0");
    }
}
