//! `osf`: the operating system of a TCP peer by passive fingerprinting (IPv4;
//! `[!] --genre name`, `--ttl 0-2`, `--log 0-2`). The kernel takes it only after `-p tcp`,
//! and matches only with fingerprints loaded (`nfnl_osf`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `osf` match, rev 0, `xt_osf_info`.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_osf_info, MAXGENRELEN, XT_OSF_GENRE, XT_OSF_INVERT, XT_OSF_LOG, XT_OSF_TTL,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, STR};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

const LEVEL: Ty = Ty::Uint { min: 0, max: 2 };

/// The `osf` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "osf",
    kind: ExtKind::Match,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([
        Opt::new("genre", STR).inv().mand(),
        Opt::new("ttl", LEVEL),
        Opt::new("log", LEVEL),
    ]),
    new: |_| Box::new(Osf::default()),
    xt_names: &["osf"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m osf`, as in `struct xt_osf_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Osf {
    /// The genre.
    pub genre: String,
    /// `XT_OSF_*` bits.
    pub flags: u32,
    /// `--log` level.
    pub loglevel: u32,
    /// `--ttl` level.
    pub ttl: u32,
}

/// `struct xt_osf_info`, field by field: it decodes the options and encodes them. `len`,
/// the genre's length, is written from the genre and checked by re-encoding.
static INFO: XtStruct<Osf> = XtStruct::new(
    "xt_osf_info",
    size_of::<xt_osf_info>(),
    0,
    &[
        xt_field!(xt_osf_info, genre: Str(MAXGENRELEN) => genre),
        Field {
            name: "len",
            at: offset_of!(xt_osf_info, len),
            kind: Kind::U32(|s| s.genre.len() as u32, |_, _| {}),
        },
        xt_field!(xt_osf_info, flags: U32 => flags),
        xt_field!(xt_osf_info, loglevel: U32 => loglevel),
        xt_field!(xt_osf_info, ttl: U32 => ttl),
    ],
);

impl Extension for Osf {
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
        match opt.name {
            "genre" => {
                let g = super::base::libxt::c_buffer_arg("--genre", val.text(), MAXGENRELEN)?;
                self.genre = g.to_owned();
                if inv {
                    self.flags |= XT_OSF_INVERT;
                }
            }
            "ttl" => {
                self.ttl = val.uint() as u32;
                self.flags |= XT_OSF_TTL;
            }
            _ => {
                self.loglevel = val.uint() as u32;
                self.flags |= XT_OSF_LOG;
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("osf", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.flags & XT_OSF_INVERT != 0 {
            out.push_str(" !");
        }
        out.push_str(" --genre ");
        out.push_str(&self.genre);
        if self.flags & XT_OSF_TTL != 0 {
            out.push_str(&format!(" --ttl {}", self.ttl));
        }
        if self.flags & XT_OSF_LOG != 0 {
            out.push_str(&format!(" --log {}", self.loglevel));
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" OS fingerprint match ");
        if self.flags & XT_OSF_INVERT != 0 {
            out.push_str("! ");
        }
        out.push_str(&self.genre);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let o = INFO.decode_exact(rev, info)?;
    // What save prints must read back as it is: a genre one word long, levels iptables
    // takes, and no flag it does not set.
    let plain = !o.genre.is_empty() && !o.genre.contains(|c: char| c.is_whitespace() || c == '"');
    let ok = plain
        && o.flags & !(XT_OSF_TTL | XT_OSF_LOG | XT_OSF_INVERT) == 0
        && o.flags & XT_OSF_GENRE == 0
        && o.ttl <= 2
        && o.loglevel <= 2
        && (o.flags & XT_OSF_TTL != 0 || o.ttl == 0)
        && (o.flags & XT_OSF_LOG != 0 || o.loglevel == 0);
    ok.then(|| Box::new(o) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn genres() {
        assert_eq!(
            round("-p tcp -m osf --genre linux --ttl 0 --log 0").unwrap(),
            "-p tcp -m osf --genre linux --ttl 0 --log 0"
        );
        assert_eq!(
            round("-p tcp -m osf ! --genre Windows --log 2").unwrap(),
            "-p tcp -m osf ! --genre Windows --log 2"
        );
        assert!(round("-p tcp -m osf --genre linux --ttl 3").is_err());
        assert!(round("-p tcp -m osf --ttl 1").is_err());
        assert!(round(&format!("-p tcp -m osf --genre {}", "a".repeat(32))).is_err());
        assert!(round(&format!("-p tcp -m osf --genre {}", "a".repeat(31))).is_ok());
    }
}
