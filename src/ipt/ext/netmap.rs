//! `NETMAP`: map a whole network onto another one, keeping the host part (`libipt_NETMAP.c`,
//! `libip6t_NETMAP.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `NETMAP` target, rev 0; IPv4 sends
//! `nf_nat_ipv4_multi_range_compat` (one range), IPv6 `nf_nat_range`. `--to ADDR[/MASK]`
//! (mandatory; the mask a prefix length or an address, `/32` or `/128` without one) becomes
//! the range `ADDR & MASK` to `ADDR | ~MASK` with `NF_NAT_RANGE_MAP_IPS`; the mask is printed
//! back from the range. The kernel allows it in the nat table only.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    nf_nat_ipv4_multi_range_compat, nf_nat_ipv4_range, nf_nat_range, NF_NAT_RANGE_MAP_IPS,
};

use super::base::libxt::{ntop, parse_hostmask};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// `-j NETMAP`.
pub static DESC: ExtDesc = ExtDesc {
    name: "NETMAP",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::custom("to").mand()]),
    new: |f| Box::new(Netmap::new(f)),
    xt_names: &["NETMAP"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j NETMAP --to ADDR/MASK`: the range it maps to.
#[derive(Debug, Clone, PartialEq)]
pub struct Netmap {
    /// The family (IPv4 uses the first 4 bytes of the addresses).
    pub family: IpFamily,
    /// First address, network byte order.
    pub min: [u8; 16],
    /// Last address, network byte order.
    pub max: [u8; 16],
}

impl Netmap {
    fn new(family: IpFamily) -> Netmap {
        Netmap {
            family,
            min: [0; 16],
            max: [0; 16],
        }
    }

    fn len(&self) -> usize {
        match self.family {
            IpFamily::V4 => 4,
            IpFamily::V6 => 16,
        }
    }

    /// `ADDR/BITS`, or `ADDR/MASK` for a mask that is no prefix (`__NETMAP_print`).
    fn shown(&self) -> String {
        let n = self.len();
        let mut mask = [0u8; 16];
        for (m, (a, b)) in mask.iter_mut().zip(self.min.iter().zip(&self.max)).take(n) {
            *m = !(a ^ b);
        }
        let ones: u32 = mask[..n].iter().map(|b| b.count_ones()).sum();
        let prefix = super::base::libxt::prefix_mask(ones as u8);
        let addr = ntop(self.family, &self.min[..n]);
        if prefix[..n] == mask[..n] {
            format!("{addr}/{ones}")
        } else {
            format!("{addr}/{}", ntop(self.family, &mask[..n]))
        }
    }
}

/// The offset of a field of the one range of `nf_nat_ipv4_multi_range_compat`.
const fn range(at: usize) -> usize {
    offset_of!(nf_nat_ipv4_multi_range_compat, range) + at
}

/// IPv4's `struct nf_nat_ipv4_multi_range_compat`, field by field: one range of
/// addresses only (`rangesize` 1, `flags` `NF_NAT_RANGE_MAP_IPS`, no ports). What the
/// options do not hold is written as a constant and checked by re-encoding.
static INFO_V4: XtStruct<Netmap> = XtStruct::new(
    "nf_nat_ipv4_multi_range_compat",
    size_of::<nf_nat_ipv4_multi_range_compat>(),
    0,
    &[
        Field {
            name: "rangesize",
            at: offset_of!(nf_nat_ipv4_multi_range_compat, rangesize),
            kind: Kind::U32(|_| 1, |_, _| {}),
        },
        Field {
            name: "range[0].flags",
            at: range(offset_of!(nf_nat_ipv4_range, flags)),
            kind: Kind::U32(|_| NF_NAT_RANGE_MAP_IPS, |_, _| {}),
        },
        Field {
            name: "range[0].min_ip",
            at: range(offset_of!(nf_nat_ipv4_range, min_ip)),
            kind: Kind::Bytes(4, |s| &s.min[..4], |s, v| s.min[..4].copy_from_slice(v)),
        },
        Field {
            name: "range[0].max_ip",
            at: range(offset_of!(nf_nat_ipv4_range, max_ip)),
            kind: Kind::Bytes(4, |s| &s.max[..4], |s, v| s.max[..4].copy_from_slice(v)),
        },
    ],
);

/// IPv6's `struct nf_nat_range`, field by field, as [`INFO_V4`].
static INFO_V6: XtStruct<Netmap> = XtStruct::new(
    "nf_nat_range",
    size_of::<nf_nat_range>(),
    0,
    &[
        Field {
            name: "flags",
            at: offset_of!(nf_nat_range, flags),
            kind: Kind::U32(|_| NF_NAT_RANGE_MAP_IPS, |_, _| {}),
        },
        Field {
            name: "min_addr",
            at: offset_of!(nf_nat_range, min_addr),
            kind: Kind::Bytes(16, |s| &s.min, |s, v| s.min.copy_from_slice(v)),
        },
        Field {
            name: "max_addr",
            at: offset_of!(nf_nat_range, max_addr),
            kind: Kind::Bytes(16, |s| &s.max, |s, v| s.max.copy_from_slice(v)),
        },
    ],
);

/// The struct of `family`.
fn info(family: IpFamily) -> &'static XtStruct<Netmap> {
    match family {
        IpFamily::V4 => &INFO_V4,
        IpFamily::V6 => &INFO_V6,
    }
}

impl Extension for Netmap {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let (addr, _, mask) = parse_hostmask(ctx.family, "NETMAP", "to", val.text())?;
        self.family = ctx.family;
        let n = self.len();
        for i in 0..n {
            self.min[i] = addr[i] & mask[i];
            self.max[i] = self.min[i] | !mask[i];
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("NETMAP", 0, info(self.family).encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --to ");
        out.push_str(&self.shown());
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" to:");
        out.push_str(&self.shown());
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, blob: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = info(ctx.family);
    let mut m = Netmap::new(ctx.family);
    t.read(&t.view(rev, blob)?, &mut m)?;
    // The range of a network: no address bit set in the first that is clear in the last.
    // The rest (range count, flags, ports, padding) must be what encoding writes.
    let n = m.len();
    let subset = (0..n).all(|i| m.min[i] & !m.max[i] == 0);
    (subset && t.encode(&m) == blob).then(|| Box::new(m) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn maps() {
        let (v4, v6) = (IpFamily::V4, IpFamily::V6);
        assert_eq!(
            save_round(v4, "-j NETMAP --to 1.2.3.4/24").unwrap(),
            "-j NETMAP --to 1.2.3.0/24"
        );
        assert_eq!(
            save_round(v4, "-j NETMAP --to 1.2.3.4").unwrap(),
            "-j NETMAP --to 1.2.3.4/32"
        );
        assert_eq!(
            save_round(v4, "-j NETMAP --to 1.2.3.4/255.0.255.0").unwrap(),
            "-j NETMAP --to 1.0.3.0/255.0.255.0"
        );
        assert_eq!(
            save_round(v6, "-j NETMAP --to dead::beef").unwrap(),
            "-j NETMAP --to dead::beef/128"
        );
        assert_eq!(
            save_round(v6, "-j NETMAP --to dead::beef/64").unwrap(),
            "-j NETMAP --to dead::/64"
        );
        let err = parse_rule_str(v4, "-j NETMAP").unwrap_err().to_string();
        assert!(err.contains("\"--to\" must be specified"));
    }
}
