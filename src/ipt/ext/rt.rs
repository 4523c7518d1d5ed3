//! `rt` (IPv6): the routing header (`--rt-type`, `--rt-segsleft`, `--rt-len`, `--rt-0-res`,
//! `--rt-0-addrs`, `--rt-0-not-strict`).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `rt` rev 0, `struct ip6t_rt` (at most 16 type-0
//! addresses). An inverted full segments-left range is printed (iptables 1.8.11; 1.8.9
//! dropped it), a reversed one refused.

use std::mem::{offset_of, size_of};
use std::net::Ipv6Addr;

use iptnl_sys::xt::{
    ip6t_rt, IP6T_RT_FST, IP6T_RT_FST_NSTRICT, IP6T_RT_HOPS, IP6T_RT_INV_LEN, IP6T_RT_INV_SGS,
    IP6T_RT_INV_TYP, IP6T_RT_LEN, IP6T_RT_RES, IP6T_RT_SGS, IP6T_RT_TYP,
};

use super::base::ip6hdr::{print_length, save_id, save_id_range, ID_RANGE};
use super::base::libxt::{bit_if, ntop6, print_u32_range, print_unknown_invflags};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
    XtBuf,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `rt` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "rt",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([
        Opt::new("rt-type", U32).inv(),
        Opt::new("rt-segsleft", ID_RANGE).inv(),
        Opt::new("rt-len", U32).inv(),
        Opt::flag("rt-0-res"),
        Opt::new("rt-0-addrs", STR),
        Opt::flag("rt-0-not-strict"),
    ]),
    new: |_| Box::new(Rt::default()),
    xt_names: &["rt"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-m rt`, as `struct ip6t_rt`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rt {
    /// Routing header type.
    pub rt_type: u32,
    /// Segments-left range.
    pub segsleft: [u32; 2],
    /// Header length.
    pub hdrlen: u32,
    /// `IP6T_RT_*` bits.
    pub flags: u8,
    /// `IP6T_RT_INV_*` bits.
    pub invflags: u8,
    /// Type-0 addresses.
    pub addrs: Vec<Ipv6Addr>,
}

impl Default for Rt {
    fn default() -> Self {
        Rt {
            rt_type: 0,
            segsleft: [0, u32::MAX],
            hdrlen: 0,
            flags: 0,
            invflags: 0,
            addrs: Vec::new(),
        }
    }
}

impl Rt {
    fn type0_given(&self) -> bool {
        self.flags & IP6T_RT_TYP != 0 && self.rt_type == 0 && self.invflags & IP6T_RT_INV_TYP == 0
    }

    /// The type-0 address options with prefix `p` (`--rt-` to save, empty for -L).
    fn dump_addrs(&self, p: &str, out: &mut String) {
        if self.flags & IP6T_RT_FST != 0 {
            out.push_str(&format!(" {p}0-addrs"));
        }
        for (i, a) in self.addrs.iter().enumerate() {
            out.push(if i == 0 { ' ' } else { ',' });
            out.push_str(&ntop6(&a.octets()));
        }
        if self.flags & IP6T_RT_FST_NSTRICT != 0 {
            out.push_str(&format!(" {p}0-not-strict"));
        }
    }
}

/// `struct ip6t_rt`'s plain fields: it decodes them and encodes them. The type-0
/// addresses (`addrs`, a count of them in `addrnr`, unused slots zero) are read and written
/// around the table.
static INFO: XtStruct<Rt> = XtStruct::new(
    "ip6t_rt",
    size_of::<ip6t_rt>(),
    0,
    &[
        xt_field!(ip6t_rt, rt_type: U32 => rt_type),
        xt_field!(ip6t_rt, segsleft: U32Pair => segsleft),
        xt_field!(ip6t_rt, hdrlen: U32 => hdrlen),
        xt_field!(ip6t_rt, flags: U8 => flags),
        xt_field!(ip6t_rt, invflags: U8 => invflags),
    ],
);

impl Extension for Rt {
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
        let shown = opt.shown();
        match opt.name {
            "rt-type" => {
                self.rt_type = val.uint() as u32;
                self.invflags |= bit_if(inv, IP6T_RT_INV_TYP);
                self.flags |= IP6T_RT_TYP;
            }
            "rt-segsleft" => {
                let [lo, hi] = val.range();
                self.segsleft = [lo as u32, hi as u32];
                self.invflags |= bit_if(inv, IP6T_RT_INV_SGS);
                self.flags |= IP6T_RT_SGS;
            }
            "rt-len" => {
                self.hdrlen = val.uint() as u32;
                self.invflags |= bit_if(inv, IP6T_RT_INV_LEN);
                self.flags |= IP6T_RT_LEN;
            }
            "rt-0-res" => {
                if !self.type0_given() {
                    return Err(ParseError::bad(
                        &shown,
                        "`--rt-type 0' required before `--rt-0-res'",
                    ));
                }
                self.flags |= IP6T_RT_RES;
            }
            "rt-0-addrs" => {
                if !self.type0_given() {
                    return Err(ParseError::bad(
                        &shown,
                        "`--rt-type 0' required before `--rt-0-addrs'",
                    ));
                }
                let items: Vec<&str> = val.text().split(',').collect();
                if items.len() > IP6T_RT_HOPS {
                    return Err(ParseError::bad(&shown, "too many addresses specified"));
                }
                self.addrs = items
                    .iter()
                    .map(|a| {
                        a.parse::<Ipv6Addr>()
                            .map_err(|_| ParseError::bad(&shown, format!("bad address: {a}")))
                    })
                    .collect::<Result<_, _>>()?;
                self.flags |= IP6T_RT_FST;
            }
            _ => {
                if self.flags & IP6T_RT_FST == 0 {
                    return Err(ParseError::bad(
                        &shown,
                        "`--rt-0-addr ...' required before `--rt-0-not-strict'",
                    ));
                }
                self.flags |= IP6T_RT_FST_NSTRICT;
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let mut b = XtBuf::new(INFO.size);
        INFO.write(self, &mut b);
        for (i, a) in self.addrs.iter().take(IP6T_RT_HOPS).enumerate() {
            b.put(offset_of!(ip6t_rt, addrs) + 16 * i, &a.octets());
        }
        b.put_u8(offset_of!(ip6t_rt, addrnr), self.addrs.len() as u8);
        out.push(xt_match("rt", 0, b.into_vec()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let inv = |bit: u8| self.invflags & bit != 0;
        if self.flags & IP6T_RT_TYP != 0 {
            save_id(out, "rt-type", self.rt_type, inv(IP6T_RT_INV_TYP));
        }
        save_id_range(out, "rt-segsleft", self.segsleft, inv(IP6T_RT_INV_SGS));
        if self.flags & IP6T_RT_LEN != 0 {
            save_id(out, "rt-len", self.hdrlen, inv(IP6T_RT_INV_LEN));
        }
        if self.flags & IP6T_RT_RES != 0 {
            out.push_str(" --rt-0-res");
        }
        self.dump_addrs("--rt-", out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        let inv = |bit: u8| self.invflags & bit != 0;
        out.push_str(" rt");
        if self.flags & IP6T_RT_TYP != 0 {
            let i = if inv(IP6T_RT_INV_TYP) { "!" } else { "" };
            out.push_str(&format!(" type:{i}{}", self.rt_type));
        }
        print_u32_range(out, " segsleft", inv(IP6T_RT_INV_SGS), self.segsleft);
        if self.flags & IP6T_RT_LEN != 0 {
            print_length(out, " ", self.hdrlen, inv(IP6T_RT_INV_LEN));
        }
        if self.flags & IP6T_RT_RES != 0 {
            out.push_str(" reserved");
        }
        self.dump_addrs("", out);
        let known = IP6T_RT_INV_TYP | IP6T_RT_INV_SGS | IP6T_RT_INV_LEN;
        print_unknown_invflags(out, self.invflags, known);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let v = INFO.view(rev, info)?;
    let n = v.u8(offset_of!(ip6t_rt, addrnr))? as usize;
    if n > IP6T_RT_HOPS {
        return None;
    }
    let mut addrs = Vec::with_capacity(n);
    for i in 0..n {
        let b: [u8; 16] = v
            .bytes(offset_of!(ip6t_rt, addrs) + 16 * i, 16)?
            .try_into()
            .ok()?;
        addrs.push(Ipv6Addr::from(b));
    }
    // Unused address slots must be zero for the re-encoding to be the same.
    let used_end = offset_of!(ip6t_rt, addrs) + 16 * n;
    if v.bytes(used_end, offset_of!(ip6t_rt, addrnr) - used_end)?
        .iter()
        .any(|&b| b != 0)
    {
        return None;
    }
    let mut r = Rt {
        addrs,
        ..Rt::default()
    };
    INFO.read(&v, &mut r)?;
    Some(Box::new(r))
}

#[cfg(test)]
mod tests {
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn type0_rules() {
        assert!(parse_rule_str(IpFamily::V6, "-m rt --rt-0-res").is_err());
        assert!(parse_rule_str(IpFamily::V6, "-m rt ! --rt-type 0 --rt-0-res").is_err());
        assert!(parse_rule_str(IpFamily::V6, "-m rt --rt-type 0 --rt-0-not-strict").is_err());
        assert!(parse_rule_str(IpFamily::V6, "-m rt --rt-segsleft 5:4").is_err());
        let r = parse_rule_str(IpFamily::V6, "-m rt ! --rt-segsleft :").unwrap();
        assert_eq!(r[0].to_save_args(), "-m rt ! --rt-segsleft 0:4294967295");
        let r = parse_rule_str(
            IpFamily::V6,
            "-m rt --rt-type 0 --rt-0-addrs ::1.2.3.4,2001:db8::1 --rt-0-not-strict",
        )
        .unwrap();
        assert_eq!(
            r[0].to_save_args(),
            "-m rt --rt-type 0 --rt-0-addrs ::1.2.3.4,2001:db8::1 --rt-0-not-strict"
        );
    }
}
