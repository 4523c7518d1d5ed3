//! `NETMAP`: map a whole network onto another one, keeping the host part (`libipt_NETMAP.c`,
//! `libip6t_NETMAP.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `NETMAP` target, rev 0; IPv4 sends
//! `nf_nat_ipv4_multi_range_compat` (one range), IPv6 `nf_nat_range`. `--to ADDR[/MASK]`
//! (mandatory; the mask a prefix length or an address, `/32` or `/128` without one) becomes
//! the range `ADDR & MASK` to `ADDR | ~MASK` with `NF_NAT_RANGE_MAP_IPS`; the mask is printed
//! back from the range. The kernel allows it in the nat table only.

use std::mem::offset_of;

use iptnl_sys::xt::{
    nf_nat_ipv4_multi_range_compat, nf_nat_ipv4_range, nf_nat_range, NF_NAT_RANGE_MAP_IPS,
};

use super::base::libxt::{ntop, parse_hostmask};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val, XtBuf, XtView,
};
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
        let info = match self.family {
            IpFamily::V4 => {
                let r = offset_of!(nf_nat_ipv4_multi_range_compat, range);
                let mut b = XtBuf::of::<nf_nat_ipv4_multi_range_compat>();
                b.put_u32(offset_of!(nf_nat_ipv4_multi_range_compat, rangesize), 1);
                b.put_u32(
                    r + offset_of!(nf_nat_ipv4_range, flags),
                    NF_NAT_RANGE_MAP_IPS,
                );
                b.put(r + offset_of!(nf_nat_ipv4_range, min_ip), &self.min[..4]);
                b.put(r + offset_of!(nf_nat_ipv4_range, max_ip), &self.max[..4]);
                b.into_vec()
            }
            IpFamily::V6 => {
                let mut b = XtBuf::of::<nf_nat_range>();
                b.put_u32(offset_of!(nf_nat_range, flags), NF_NAT_RANGE_MAP_IPS);
                b.put(offset_of!(nf_nat_range, min_addr), &self.min);
                b.put(offset_of!(nf_nat_range, max_addr), &self.max);
                b.into_vec()
            }
        };
        out.push(xt_target("NETMAP", 0, info));
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

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    if rev != 0 {
        return None;
    }
    let mut m = Netmap::new(ctx.family);
    let n = m.len();
    let (v, min_off, max_off) = match ctx.family {
        IpFamily::V4 => {
            let v = XtView::of::<nf_nat_ipv4_multi_range_compat>(info)?;
            if v.u32(offset_of!(nf_nat_ipv4_multi_range_compat, rangesize))? != 1 {
                return None;
            }
            let r = offset_of!(nf_nat_ipv4_multi_range_compat, range);
            (
                v,
                r + offset_of!(nf_nat_ipv4_range, min_ip),
                r + offset_of!(nf_nat_ipv4_range, max_ip),
            )
        }
        IpFamily::V6 => (
            XtView::of::<nf_nat_range>(info)?,
            offset_of!(nf_nat_range, min_addr),
            offset_of!(nf_nat_range, max_addr),
        ),
    };
    m.min[..n].copy_from_slice(v.bytes(min_off, n)?);
    m.max[..n].copy_from_slice(v.bytes(max_off, n)?);
    // The range of a network: no address bit set in the first that is clear in the last.
    // The rest (flags, ports, padding) must be what encoding writes.
    let subset = (0..n).all(|i| m.min[i] & !m.max[i] == 0);
    let mut again = Vec::new();
    m.encode(
        &EncodeCtx {
            family: ctx.family,
            proto: None,
            table: "nat",
            chain: "",
            sets: ctx.sets,
            floor: crate::ipt::ReaderFloor::UNPINNED,
        },
        &mut again,
    )
    .ok()?;
    let same = matches!(again.as_slice(), [Expr::Target(t)] if t.info == info);
    (subset && same).then(|| Box::new(m) as Box<dyn Extension>)
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
