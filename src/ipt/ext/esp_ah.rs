//! `esp` (both families) and `ah` (IPv4 `ipt_ah`, IPv6 `ip6t_ah`) matches: the SPI of
//! IPsec headers, and for IPv6 AH its length and reserved field.
//!
//! Encoding (iptables-nft 1.8.9): x_tables `esp` / `ah` rev 0. The kernel wants `-p esp`
//! for `esp` and, for IPv4, `-p ah` for `ah`.
//!
//! An inverted full range (`! --espspi 0:4294967295`, matching nothing) is printed, as
//! iptables 1.8.11 does; 1.8.9 dropped it from its output, which restored as a rule matching
//! every packet. A reversed range (`5:4`) is refused, as 1.8.11 does.

use std::mem::size_of;

use iptnl_sys::xt::{ip6t_ah, ipt_ah, xt_esp, IP6T_AH_INV_LEN, IP6T_AH_INV_SPI, XT_ESP_INV_SPI};

use super::base::ip6hdr::{print_length, save_id, save_id_range, ID_RANGE};
use super::base::libxt::{bit_if, print_u32_range, print_unknown_invflags};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::U32;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `esp` match.
pub static ESP: ExtDesc = ExtDesc {
    name: "esp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("espspi", ID_RANGE).inv()]),
    new: |_| Box::new(Spi::new(Kind::Esp)),
    xt_names: &["esp"],
    decode_xt: Some(decode_esp),
    decode_native: None,
};

/// The IPv4 `ah` match.
pub static AH4: ExtDesc = ExtDesc {
    name: "ah",
    kind: ExtKind::Match,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([Opt::new("ahspi", ID_RANGE).inv()]),
    new: |_| Box::new(Spi::new(Kind::Ah4)),
    xt_names: &["ah"],
    decode_xt: Some(decode_ah4),
    decode_native: None,
};

/// The IPv6 `ah` match.
pub static AH6: ExtDesc = ExtDesc {
    name: "ah",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([
        Opt::new("ahspi", ID_RANGE).inv(),
        Opt::new("ahlen", U32).inv(),
        Opt::flag("ahres"),
    ]),
    new: |_| Box::new(Spi::new(Kind::Ah6)),
    xt_names: &["ah"],
    decode_xt: Some(decode_ah6),
    decode_native: None,
};

/// Which of the three structs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `struct xt_esp`.
    Esp,
    /// `struct ipt_ah`.
    Ah4,
    /// `struct ip6t_ah`.
    Ah6,
}

/// `-m esp` / `-m ah`.
#[derive(Debug, Clone, PartialEq)]
pub struct Spi {
    /// The struct it is.
    pub kind: Kind,
    /// SPI range.
    pub spis: [u32; 2],
    /// Header length (IPv6 `ah`; 0 = not tested unless inverted).
    pub hdrlen: u32,
    /// Nonzero: the reserved field must be zero (IPv6 `ah`).
    pub hdrres: u8,
    /// `*_INV_SPI` (0x01), `IP6T_AH_INV_LEN` (0x02).
    pub invflags: u8,
}

impl Spi {
    fn new(kind: Kind) -> Spi {
        Spi {
            kind,
            spis: [0, u32::MAX],
            hdrlen: 0,
            hdrres: 0,
            invflags: 0,
        }
    }

    fn ext(&self) -> &'static str {
        match self.kind {
            Kind::Esp => "esp",
            _ => "ah",
        }
    }

    /// Its SPI option.
    fn spi_option(&self) -> &'static str {
        match self.kind {
            Kind::Esp => "espspi",
            _ => "ahspi",
        }
    }
}

/// `struct xt_esp`, field by field: it decodes the options and encodes them.
static ESP_INFO: XtStruct<Spi> = XtStruct::new(
    "xt_esp",
    size_of::<xt_esp>(),
    0,
    &[
        xt_field!(xt_esp, spis: U32Pair => spis),
        xt_field!(xt_esp, invflags: U8 => invflags),
    ],
);

/// `struct ipt_ah`, field by field: it decodes the options and encodes them.
static AH4_INFO: XtStruct<Spi> = XtStruct::new(
    "ipt_ah",
    size_of::<ipt_ah>(),
    0,
    &[
        xt_field!(ipt_ah, spis: U32Pair => spis),
        xt_field!(ipt_ah, invflags: U8 => invflags),
    ],
);

/// `struct ip6t_ah`, field by field: it decodes the options and encodes them.
static AH6_INFO: XtStruct<Spi> = XtStruct::new(
    "ip6t_ah",
    size_of::<ip6t_ah>(),
    0,
    &[
        xt_field!(ip6t_ah, spis: U32Pair => spis),
        xt_field!(ip6t_ah, hdrlen: U32 => hdrlen),
        xt_field!(ip6t_ah, hdrres: U8 => hdrres),
        xt_field!(ip6t_ah, invflags: U8 => invflags),
    ],
);

impl Extension for Spi {
    fn desc(&self) -> &'static ExtDesc {
        match self.kind {
            Kind::Esp => &ESP,
            Kind::Ah4 => &AH4,
            Kind::Ah6 => &AH6,
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        match opt.name {
            "espspi" | "ahspi" => {
                let [lo, hi] = val.range();
                self.spis = [lo as u32, hi as u32];
                self.invflags |= bit_if(inv, XT_ESP_INV_SPI);
            }
            "ahlen" => {
                self.hdrlen = val.uint() as u32;
                self.invflags |= bit_if(inv, IP6T_AH_INV_LEN);
            }
            _ => self.hdrres = 1,
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let info = match self.kind {
            Kind::Esp => ESP_INFO.encode(self),
            Kind::Ah4 => AH4_INFO.encode(self),
            Kind::Ah6 => AH6_INFO.encode(self),
        };
        out.push(xt_match(self.ext(), 0, info));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let inv = self.invflags & IP6T_AH_INV_SPI != 0;
        save_id_range(out, self.spi_option(), self.spis, inv);
        if self.kind == Kind::Ah6 {
            let linv = self.invflags & IP6T_AH_INV_LEN != 0;
            if self.hdrlen != 0 || linv {
                save_id(out, "ahlen", self.hdrlen, linv);
            }
            if self.hdrres != 0 {
                out.push_str(" --ahres");
            }
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        // libxt_esp prints " esp" and " spi..."; libipt_ah and libip6t_ah print " ah " and
        // "spi..." and "length..." without a space of their own.
        let sep = if self.kind == Kind::Esp {
            out.push_str(" esp");
            " "
        } else {
            out.push_str(" ah ");
            ""
        };
        let inv = self.invflags & IP6T_AH_INV_SPI != 0;
        print_u32_range(out, &format!("{sep}spi"), inv, self.spis);
        let mask = if self.kind == Kind::Ah6 {
            let linv = self.invflags & IP6T_AH_INV_LEN != 0;
            if self.hdrlen != 0 || linv {
                print_length(out, "", self.hdrlen, linv);
            }
            if self.hdrres != 0 {
                out.push_str(" reserved");
            }
            IP6T_AH_INV_SPI | IP6T_AH_INV_LEN
        } else {
            IP6T_AH_INV_SPI
        };
        print_unknown_invflags(out, self.invflags, mask);
    }

    crate::ext_boilerplate!();
}

fn decode_esp(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let mut s = Spi::new(Kind::Esp);
    ESP_INFO.read(&ESP_INFO.view(rev, info)?, &mut s)?;
    Some(Box::new(s))
}

fn decode_ah4(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let mut s = Spi::new(Kind::Ah4);
    AH4_INFO.read(&AH4_INFO.view(rev, info)?, &mut s)?;
    Some(Box::new(s))
}

fn decode_ah6(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let mut s = Spi::new(Kind::Ah6);
    AH6_INFO.read(&AH6_INFO.view(rev, info)?, &mut s)?;
    Some(Box::new(s))
}

#[cfg(test)]
mod tests {
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn inverted_full_range_kept_and_reversed_refused() {
        // iptables 1.8.9 printed `-p esp -m esp` for this (a rule matching everything once
        // restored); 1.8.11 and iptnl keep the inversion.
        let r = parse_rule_str(IpFamily::V4, "-p esp -m esp ! --espspi 0:4294967295").unwrap();
        assert_eq!(r[0].to_save_args(), "-p esp -m esp ! --espspi 0:4294967295");
        let r = parse_rule_str(IpFamily::V6, "-m ah ! --ahspi :").unwrap();
        assert_eq!(r[0].to_save_args(), "-m ah ! --ahspi 0:4294967295");
        assert!(parse_rule_str(IpFamily::V4, "-p esp -m esp --espspi 10:5").is_err());
        assert!(parse_rule_str(IpFamily::V4, "-p ah -m ah --ahlen 5").is_err());
    }
}
