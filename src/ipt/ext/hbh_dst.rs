//! `hbh` and `dst` (IPv6): the hop-by-hop and destination options headers (`--hbh-len`,
//! `--hbh-opts TYPE[:LEN],…`; `--dst-len`, `--dst-opts`).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `hbh` / `dst` rev 0, `struct ip6t_opts` (at most
//! 16 options, each `type << 8 | length`, length 0xff when not given).

use std::mem::size_of;

use iptnl_sys::xt::{
    ip6t_opts, IP6T_OPTS_INV_LEN, IP6T_OPTS_LEN, IP6T_OPTS_OPTS, IP6T_OPTS_OPTSNR,
};

use super::base::ip6hdr::{print_length, save_id};
use super::base::libxt::{bit_if, print_unknown_invflags, strtoul_prefix};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `hbh` match.
pub static HBH: ExtDesc = ExtDesc {
    name: "hbh",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([Opt::new("hbh-len", U32).inv(), Opt::new("hbh-opts", STR)]),
    new: |_| Box::new(Opts::new(false)),
    xt_names: &["hbh"],
    decode_xt: Some(decode_hbh),
    decode_native: None,
};

/// The `dst` match.
pub static DST: ExtDesc = ExtDesc {
    name: "dst",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([Opt::new("dst-len", U32).inv(), Opt::new("dst-opts", STR)]),
    new: |_| Box::new(Opts::new(true)),
    xt_names: &["dst"],
    decode_xt: Some(decode_dst),
    decode_native: None,
};

/// `-m hbh` / `-m dst`, as `struct ip6t_opts`.
#[derive(Debug, Clone, PartialEq)]
pub struct Opts {
    /// `dst` rather than `hbh`.
    pub dst: bool,
    /// Header length.
    pub hdrlen: u32,
    /// `IP6T_OPTS_*` bits.
    pub flags: u8,
    /// `IP6T_OPTS_INV_*` bits.
    pub invflags: u8,
    /// Options, `type << 8 | length`.
    pub opts: [u16; IP6T_OPTS_OPTSNR],
    /// Entries used in `opts`.
    pub optsnr: u8,
}

/// `struct ip6t_opts`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Opts> = XtStruct::new(
    "ip6t_opts",
    size_of::<ip6t_opts>(),
    0,
    &[
        xt_field!(ip6t_opts, hdrlen: U32 => hdrlen),
        xt_field!(ip6t_opts, flags: U8 => flags),
        xt_field!(ip6t_opts, invflags: U8 => invflags),
        xt_field!(ip6t_opts, opts: U16s(IP6T_OPTS_OPTSNR) => opts),
        xt_field!(ip6t_opts, optsnr: U8 => optsnr),
    ],
);

impl Opts {
    fn new(dst: bool) -> Opts {
        Opts {
            dst,
            hdrlen: 0,
            flags: 0,
            invflags: 0,
            opts: [0; IP6T_OPTS_OPTSNR],
            optsnr: 0,
        }
    }

    fn ext(&self) -> &'static str {
        if self.dst {
            "dst"
        } else {
            "hbh"
        }
    }

    /// `parse_opts_num`: a number (`strtoul`, base 0) of which the low byte is kept.
    fn num(&self, option: &str, s: &str, what: &str) -> Result<u16, ParseError> {
        let ext = self.ext();
        let (v, rest) = strtoul_prefix(s).ok_or_else(|| {
            ParseError::bad(option, format!("{ext}: no valid digits in {what} `{s}'"))
        })?;
        if !rest.is_empty() {
            return Err(ParseError::bad(
                option,
                format!("{ext}: error parsing {what} `{s}'"),
            ));
        }
        Ok((v & 0xff) as u16)
    }

    /// `parse_options`.
    /// Appends the option list ` TYPE[:LEN],…` as libip6t_hbh and libip6t_dst save and list
    /// it.
    fn push_list(&self, out: &mut String) {
        for (i, o) in self.opts.iter().take(self.optsnr as usize).enumerate() {
            out.push(if i == 0 { ' ' } else { ',' });
            out.push_str(&(o >> 8).to_string());
            if o & 0xff != 0xff {
                out.push_str(&format!(":{}", o & 0xff));
            }
        }
    }

    fn parse_list(&mut self, option: &str, s: &str) -> Result<(), ParseError> {
        let items: Vec<&str> = s.split(',').collect();
        if items.len() > IP6T_OPTS_OPTSNR {
            return Err(ParseError::bad(option, "too many addresses specified"));
        }
        for (i, item) in items.iter().enumerate() {
            let (ty, len) = match item.split_once(':') {
                Some((t, l)) => {
                    if i == IP6T_OPTS_OPTSNR - 1 {
                        return Err(ParseError::bad(option, "too many ports specified"));
                    }
                    (t, Some(l))
                }
                None => (*item, None),
            };
            let ty = self.num(option, ty, "opt")?;
            self.opts[i] = match len {
                Some(l) => {
                    if ty == 0 {
                        return Err(ParseError::bad(option, "PAD0 has not got length"));
                    }
                    ty << 8 | self.num(option, l, "length")?
                }
                None => ty << 8 | 0xff,
            };
        }
        self.optsnr = items.len() as u8;
        Ok(())
    }
}

impl Extension for Opts {
    fn desc(&self) -> &'static ExtDesc {
        if self.dst {
            &DST
        } else {
            &HBH
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let shown = opt.shown();
        if opt.name.ends_with("-len") {
            self.hdrlen = val.uint() as u32;
            self.invflags |= bit_if(inv, IP6T_OPTS_INV_LEN);
            self.flags |= IP6T_OPTS_LEN;
        } else {
            self.parse_list(&shown, val.text())?;
            self.flags |= IP6T_OPTS_OPTS;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match(self.ext(), 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let ext = self.ext();
        if self.flags & IP6T_OPTS_LEN != 0 {
            let inv = self.invflags & IP6T_OPTS_INV_LEN != 0;
            save_id(out, &format!("{ext}-len"), self.hdrlen, inv);
        }
        if self.flags & IP6T_OPTS_OPTS != 0 {
            out.push_str(&format!(" --{ext}-opts"));
        }
        self.push_list(out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push(' ');
        out.push_str(self.ext());
        if self.flags & IP6T_OPTS_LEN != 0 {
            let inv = self.invflags & IP6T_OPTS_INV_LEN != 0;
            print_length(out, " ", self.hdrlen, inv);
        }
        if self.flags & IP6T_OPTS_OPTS != 0 {
            out.push_str(" opts");
        }
        self.push_list(out);
        print_unknown_invflags(out, self.invflags, IP6T_OPTS_INV_LEN);
    }

    crate::ext_boilerplate!();
}

fn decode(rev: u32, dst: bool, info: &[u8]) -> Option<Box<dyn Extension>> {
    let v = INFO.view(rev, info)?;
    let mut o = Opts::new(dst);
    INFO.read(&v, &mut o)?;
    if o.optsnr as usize > IP6T_OPTS_OPTSNR {
        return None;
    }
    Some(Box::new(o))
}

fn decode_hbh(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode(rev, false, info)
}

fn decode_dst(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    decode(rev, true, info)
}

#[cfg(test)]
mod tests {
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn option_lists() {
        let r = parse_rule_str(IpFamily::V6, "-m dst --dst-opts 300:256,0x10").unwrap();
        assert_eq!(r[0].to_save_args(), "-m dst --dst-opts 44:0,16");
        assert!(parse_rule_str(IpFamily::V6, "-m hbh --hbh-opts 0:3").is_err());
        assert!(parse_rule_str(IpFamily::V6, "-m hbh --hbh-opts 1,x").is_err());
        let many = (1..=17)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        assert!(parse_rule_str(IpFamily::V6, &format!("-m hbh --hbh-opts {many}")).is_err());
    }
}
