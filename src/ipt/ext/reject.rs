//! `REJECT`: drop the packet and answer with an ICMP error or a TCP reset
//! (`libipt_REJECT.c`, `libip6t_REJECT.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `REJECT` target, rev 0, a 4-byte
//! `ipt_reject_info` / `ip6t_reject_info` (8 bytes aligned). The default type is
//! `icmp-port-unreachable` / `icmp6-port-unreachable`, always printed. `--reject-with` takes
//! the name, its alias, or any case-insensitive prefix of either (the first match in
//! iptables' table order wins: `icmp` is `icmp-net-unreachable`). The kernel allows REJECT in
//! the filter table only (INPUT, FORWARD, OUTPUT) and `tcp-reset` only with `-p tcp`.

use std::mem::size_of;

use iptnl_sys::xt::ipt_reject_info;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j REJECT`.
pub static DESC: ExtDesc = ExtDesc {
    name: "REJECT",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::new("reject-with", STR)]),
    new: |f| Box::new(Reject::new(f)),
    xt_names: &["REJECT"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// IPv4 reject types in iptables' order: (name, alias, `ipt_reject_with`).
const V4_TYPES: &[(&str, &str, u32)] = &[
    ("icmp-net-unreachable", "net-unreach", 0),
    ("icmp-host-unreachable", "host-unreach", 1),
    ("icmp-proto-unreachable", "proto-unreach", 2),
    ("icmp-port-unreachable", "port-unreach", 3),
    ("icmp-net-prohibited", "net-prohib", 5),
    ("icmp-host-prohibited", "host-prohib", 6),
    ("tcp-reset", "tcp-rst", 7),
    ("icmp-admin-prohibited", "admin-prohib", 8),
];

/// IPv6 reject types in ip6tables' order: (name, alias, `ip6t_reject_with`).
const V6_TYPES: &[(&str, &str, u32)] = &[
    ("icmp6-no-route", "no-route", 0),
    ("icmp6-adm-prohibited", "adm-prohibited", 1),
    ("icmp6-addr-unreachable", "addr-unreach", 3),
    ("icmp6-port-unreachable", "port-unreach", 4),
    ("tcp-reset", "tcp-reset", 6),
    ("icmp6-policy-fail", "policy-fail", 7),
    ("icmp6-reject-route", "reject-route", 8),
];

fn types(family: IpFamily) -> &'static [(&'static str, &'static str, u32)] {
    match family {
        IpFamily::V4 => V4_TYPES,
        IpFamily::V6 => V6_TYPES,
    }
}

/// `-j REJECT [--reject-with TYPE]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reject {
    /// The family (the type numbers differ).
    pub family: IpFamily,
    /// `ipt_reject_with` / `ip6t_reject_with`.
    pub with: u32,
}

/// `struct ipt_reject_info` (`ip6t_reject_info` is the same), field by field: it decodes
/// the options and encodes them.
static INFO: XtStruct<Reject> = XtStruct::new(
    "ipt_reject_info",
    size_of::<ipt_reject_info>(),
    0,
    &[xt_field!(ipt_reject_info, with: U32 => with)],
);

impl Reject {
    /// REJECT with the default type.
    pub fn new(family: IpFamily) -> Reject {
        Reject {
            family,
            with: match family {
                IpFamily::V4 => 3,
                IpFamily::V6 => 4,
            },
        }
    }

    fn name(&self) -> Option<&'static str> {
        types(self.family)
            .iter()
            .find(|t| t.2 == self.with)
            .map(|t| t.0)
    }
}

/// `strncasecmp(name, arg, strlen(arg)) == 0`: `arg` is a case-insensitive prefix of `name`.
fn prefix_of(name: &str, arg: &str) -> bool {
    arg.len() <= name.len() && name.as_bytes()[..arg.len()].eq_ignore_ascii_case(arg.as_bytes())
}

impl Extension for Reject {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let arg = val.text();
        let t = types(self.family)
            .iter()
            .find(|t| prefix_of(t.0, arg) || prefix_of(t.1, arg))
            .ok_or_else(|| {
                ParseError::bad("--reject-with", format!("unknown reject type \"{arg}\""))
            })?;
        self.with = t.2;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("REJECT", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --reject-with ");
        out.push_str(self.name().unwrap_or("?"));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" reject-with ");
        out.push_str(self.name().unwrap_or("?"));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let mut r = Reject::new(ctx.family);
    INFO.read(&INFO.view(rev, info)?, &mut r)?;
    // A type iptables has no name for cannot be printed.
    r.name()?;
    Some(Box::new(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(family: IpFamily, arg: &str) -> Option<u32> {
        let mut r = Reject::new(family);
        let name = DESC.options[0].name;
        crate::ipt::ext::base::opts::feed(&mut r, family, None, name, arg).ok()?;
        Some(r.with)
    }

    #[test]
    fn names_aliases_and_prefixes() {
        assert_eq!(with(IpFamily::V4, "icmp"), Some(0));
        assert_eq!(with(IpFamily::V4, "host"), Some(1));
        assert_eq!(with(IpFamily::V4, "ADMIN"), Some(8));
        assert_eq!(with(IpFamily::V4, "tcp-rst"), Some(7));
        assert_eq!(with(IpFamily::V4, ""), Some(0));
        assert_eq!(with(IpFamily::V4, "echo-reply"), None);
        assert_eq!(with(IpFamily::V4, "icmp-port-unreachablex"), None);
        assert_eq!(with(IpFamily::V6, "icmp6"), Some(0));
        assert_eq!(with(IpFamily::V6, "t"), Some(6));
        assert_eq!(with(IpFamily::V6, "icmp-port-unreachable"), None);
    }

    #[test]
    fn unknown_types_are_not_decoded() {
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V6,
            proto: None,
        };
        let two = INFO.encode(&Reject {
            with: 2,
            ..Reject::new(IpFamily::V6)
        });
        assert!(decode_xt(0, &two, &ctx).is_none());
    }
}
