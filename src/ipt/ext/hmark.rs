//! `HMARK`: set the packet mark from a hash of the packet's (or its connection's) addresses,
//! ports, SPI and protocol (`libxt_HMARK.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `HMARK` target, rev 0, `xt_hmark_info` (60
//! bytes, 64 aligned) stored as iptables fills it: `flags` has bit `1 << XT_HMARK_*` for each
//! field given; the port masks and values and the SPI are in network byte order, the protocol
//! mask and the seed in host order. `--hmark-tuple LIST` sets whole masks (`src` all 16 bytes
//! of the source mask, `sport` the source port mask, …; `ct` the conntrack flag), each word
//! possibly abbreviated and in any case. The info is kept as sent, so a decoded rule encodes
//! to the same bytes.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_hmark_info, XT_HMARK_CT, XT_HMARK_DADDR_MASK, XT_HMARK_DPORT, XT_HMARK_DPORT_MASK,
    XT_HMARK_MODULUS, XT_HMARK_OFFSET, XT_HMARK_PROTO_MASK, XT_HMARK_RND, XT_HMARK_SADDR_MASK,
    XT_HMARK_SPI, XT_HMARK_SPI_MASK, XT_HMARK_SPORT, XT_HMARK_SPORT_MASK,
};

use super::base::libxt::ntop6;
use super::base::opts::{once_error, table, U16, U32};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The options with the `XT_HMARK_*` index each sets (the tuple has none of its own).
static OPTIONS: &[Opt] = &table([
    Opt::new("hmark-tuple", Ty::Str { min: 0, max: 0 }),
    Opt::new("hmark-src-prefix", Ty::Plen),
    Opt::new("hmark-dst-prefix", Ty::Plen),
    Opt::new("hmark-sport-mask", U16),
    Opt::new("hmark-dport-mask", U16),
    Opt::new("hmark-spi-mask", U32),
    Opt::new("hmark-sport", U16),
    Opt::new("hmark-dport", U16),
    Opt::new("hmark-spi", U32),
    Opt::new("hmark-proto-mask", U16),
    Opt::new("hmark-rnd", U32),
    Opt::new(
        "hmark-mod",
        Ty::Uint {
            min: 1,
            max: 0xffff_ffff,
        },
    )
    .mand(),
    Opt::new("hmark-offset", U32),
]);

/// The `XT_HMARK_*` index of each option but the tuple, in table order.
const IDS: [(&str, u32); 12] = [
    ("hmark-src-prefix", XT_HMARK_SADDR_MASK),
    ("hmark-dst-prefix", XT_HMARK_DADDR_MASK),
    ("hmark-sport-mask", XT_HMARK_SPORT_MASK),
    ("hmark-dport-mask", XT_HMARK_DPORT_MASK),
    ("hmark-spi-mask", XT_HMARK_SPI_MASK),
    ("hmark-sport", XT_HMARK_SPORT),
    ("hmark-dport", XT_HMARK_DPORT),
    ("hmark-spi", XT_HMARK_SPI),
    ("hmark-proto-mask", XT_HMARK_PROTO_MASK),
    ("hmark-rnd", XT_HMARK_RND),
    ("hmark-mod", XT_HMARK_MODULUS),
    ("hmark-offset", XT_HMARK_OFFSET),
];

/// `-j HMARK`.
pub static DESC: ExtDesc = ExtDesc {
    name: "HMARK",
    kind: ExtKind::Target,
    family: None,
    options: OPTIONS,
    new: |_| Box::new(Hmark::default()),
    xt_names: &["HMARK"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

const fn bit(id: u32) -> u32 {
    1 << id
}

/// The fields that say what of the packet is hashed (`HMARK_OPT_PKT_MASK`).
const PKT_MASK: u32 = bit(XT_HMARK_SADDR_MASK)
    | bit(XT_HMARK_DADDR_MASK)
    | bit(XT_HMARK_SPI_MASK)
    | bit(XT_HMARK_SPORT_MASK)
    | bit(XT_HMARK_DPORT_MASK)
    | bit(XT_HMARK_PROTO_MASK)
    | bit(XT_HMARK_SPORT)
    | bit(XT_HMARK_DPORT)
    | bit(XT_HMARK_SPI);

/// Every flag iptables sets.
const KNOWN: u32 = bit(XT_HMARK_CT + 1) - 1;

/// The option bits the tuple words set (iptables marks them as given); never part of
/// equality.
#[derive(Debug, Clone, Copy, Default)]
struct TupleBits(u32);

impl PartialEq for TupleBits {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// `-j HMARK …`, the fields of `struct xt_hmark_info` as sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hmark {
    /// Source address mask, network byte order.
    pub src_mask: [u8; 16],
    /// Destination address mask, network byte order.
    pub dst_mask: [u8; 16],
    /// Port masks (bytes 0–1 source, 2–3 destination) or SPI mask, network byte order.
    pub port_mask: [u8; 4],
    /// Port values or SPI ORed in, network byte order.
    pub port_set: [u8; 4],
    /// Bits `1 << XT_HMARK_*` of the fields set.
    pub flags: u32,
    /// Protocol mask.
    pub proto_mask: u16,
    /// Hash seed.
    pub hashrnd: u32,
    /// Modulus.
    pub hmodulus: u32,
    /// Offset added to the mark.
    pub hoffset: u32,
    tuple: TupleBits,
}

/// `strncasecmp(word, name, len) == 0` for a `word` of `len` bytes: `word` is a prefix of
/// `name`, ignoring case.
fn word_is(word: &str, name: &str) -> bool {
    name.len() >= word.len() && name.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
}

impl Hmark {
    /// One word of `--hmark-tuple`; false for an unknown one.
    fn tuple_word(&mut self, word: &str) -> bool {
        let id = if word_is(word, "ct") {
            XT_HMARK_CT
        } else if word_is(word, "src") {
            self.src_mask = [0xff; 16];
            XT_HMARK_SADDR_MASK
        } else if word_is(word, "dst") {
            self.dst_mask = [0xff; 16];
            XT_HMARK_DADDR_MASK
        } else if word_is(word, "sport") {
            self.port_mask[..2].fill(0xff);
            XT_HMARK_SPORT_MASK
        } else if word_is(word, "dport") {
            self.port_mask[2..].fill(0xff);
            XT_HMARK_DPORT_MASK
        } else if word_is(word, "proto") {
            self.proto_mask = 0xffff;
            XT_HMARK_PROTO_MASK
        } else if word_is(word, "spi") {
            self.port_mask = [0xff; 4];
            XT_HMARK_SPI_MASK
        } else {
            return false;
        };
        self.flags |= bit(id);
        self.tuple.0 |= bit(id);
        true
    }

    /// `--hmark-tuple LIST` as `hmark_parse_type` reads it.
    fn parse_tuple(&mut self, list: &str) -> Result<(), ParseError> {
        let bad = |rest: &str| ParseError::bad("--hmark-tuple", format!("Bad type \"{rest}\""));
        let mut rest = list;
        while let Some(comma) = rest.find(',') {
            if comma == 0 || !self.tuple_word(&rest[..comma]) {
                return Err(bad(rest));
            }
            rest = &rest[comma + 1..];
        }
        if rest.is_empty() {
            return Err(ParseError::bad(
                "--hmark-tuple",
                "\"--hmark-tuple\" requires a list of types with no spaces, e.g. \
                 src,dst,sport,dport,proto",
            ));
        }
        if !self.tuple_word(rest) {
            return Err(bad(rest));
        }
        Ok(())
    }

    fn has(&self, id: u32) -> bool {
        self.flags & bit(id) != 0
    }

    fn port16(b: &[u8; 4], i: usize) -> u16 {
        u16::from_be_bytes([b[i], b[i + 1]])
    }
}

/// `xtables_ipmask_to_cidr` / `xtables_ip6mask_to_cidr`: the prefix length of the family's
/// part of `m`, -1 when it is not contiguous.
fn mask_cidr(family: IpFamily, m: &[u8; 16]) -> i32 {
    let part = match family {
        IpFamily::V4 => &m[..4],
        IpFamily::V6 => &m[..],
    };
    let ones: u32 = part.iter().map(|b| b.count_ones()).sum();
    let mut want = [0u8; 16];
    for (i, w) in want.iter_mut().enumerate().take(part.len()) {
        let bits = (ones as usize).saturating_sub(i * 8).min(8);
        *w = if bits == 0 { 0 } else { 0xff << (8 - bits) };
    }
    if want[..part.len()] == *part {
        ones as i32
    } else {
        -1
    }
}

impl Extension for Hmark {
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
        if opt.name == "hmark-tuple" {
            return self.parse_tuple(val.text());
        }
        let Some(&(_, id)) = IDS.iter().find(|(n, _)| *n == opt.name) else {
            return Ok(());
        };
        // A tuple word counts as its option given.
        if self.tuple.0 & bit(id) != 0 {
            return Err(once_error("HMARK", opt.name));
        }
        let v = val.uint();
        match id {
            XT_HMARK_SADDR_MASK | XT_HMARK_DADDR_MASK => {
                let Val::Plen(len, mask) = val else {
                    return Ok(());
                };
                let m = match len {
                    Some(l) => super::base::libxt::prefix_mask(l),
                    None => mask,
                };
                if id == XT_HMARK_SADDR_MASK {
                    self.src_mask = m;
                } else {
                    self.dst_mask = m;
                }
            }
            XT_HMARK_SPORT_MASK => self.port_mask[..2].copy_from_slice(&(v as u16).to_be_bytes()),
            XT_HMARK_DPORT_MASK => self.port_mask[2..].copy_from_slice(&(v as u16).to_be_bytes()),
            XT_HMARK_SPI_MASK => self.port_mask = (v as u32).to_be_bytes(),
            XT_HMARK_SPORT => self.port_set[..2].copy_from_slice(&(v as u16).to_be_bytes()),
            XT_HMARK_DPORT => self.port_set[2..].copy_from_slice(&(v as u16).to_be_bytes()),
            XT_HMARK_SPI => self.port_set = (v as u32).to_be_bytes(),
            XT_HMARK_PROTO_MASK => self.proto_mask = v as u16,
            XT_HMARK_RND => self.hashrnd = v as u32,
            XT_HMARK_MODULUS => self.hmodulus = v as u32,
            _ => self.hoffset = v as u32,
        }
        self.flags |= bit(id);
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        let mut x = self.tuple.0;
        for (name, id) in IDS {
            if ctx.given.has(name) {
                x |= bit(id);
            }
        }
        let fail = |m: &str| Err(ParseError::Invalid(m.into()));
        if x & bit(XT_HMARK_MODULUS) == 0 {
            return fail("--hmark-mod is mandatory");
        }
        if x & bit(XT_HMARK_RND) == 0 {
            return fail("--hmark-rnd is mandatory");
        }
        if x & bit(XT_HMARK_SPI_MASK) != 0
            && x & (bit(XT_HMARK_SPORT_MASK) | bit(XT_HMARK_DPORT_MASK)) != 0
        {
            return fail("you cannot use --hmark-spi-mask and --hmark-?port-mask,at the same time");
        }
        if x & (PKT_MASK | bit(XT_HMARK_CT)) == 0 {
            return fail("you have to specify --hmark-tuple at least");
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("HMARK", 0, HMARK.encode(self)));
        Ok(())
    }

    fn save(&self, family: IpFamily, out: &mut String) {
        // `--hmark-tuple src` (and `dst`) set all 16 bytes of the mask, `--hmark-src-prefix
        // 32` only the first 4 in IPv4; iptables saves both as the prefix, which restores
        // other bytes. The tuple word is kept where it is what the bytes say.
        let tuple_word = |m: &[u8; 16]| family == IpFamily::V4 && *m == [0xff; 16];
        let mut words = Vec::new();
        if self.has(XT_HMARK_CT) {
            words.push("ct");
        }
        if self.has(XT_HMARK_SADDR_MASK) {
            if tuple_word(&self.src_mask) {
                words.push("src");
            } else {
                out.push_str(&format!(
                    " --hmark-src-prefix {}",
                    mask_cidr(family, &self.src_mask)
                ));
            }
        }
        if self.has(XT_HMARK_DADDR_MASK) {
            if tuple_word(&self.dst_mask) {
                words.push("dst");
            } else {
                out.push_str(&format!(
                    " --hmark-dst-prefix {}",
                    mask_cidr(family, &self.dst_mask)
                ));
            }
        }
        let (pm, ps) = (&self.port_mask, &self.port_set);
        if self.has(XT_HMARK_SPORT_MASK) {
            out.push_str(&format!(
                " --hmark-sport-mask 0x{:04x}",
                Self::port16(pm, 0)
            ));
        }
        if self.has(XT_HMARK_DPORT_MASK) {
            out.push_str(&format!(
                " --hmark-dport-mask 0x{:04x}",
                Self::port16(pm, 2)
            ));
        }
        if self.has(XT_HMARK_SPI_MASK) {
            out.push_str(&format!(
                " --hmark-spi-mask 0x{:08x}",
                u32::from_be_bytes(*pm)
            ));
        }
        if self.has(XT_HMARK_SPORT) {
            out.push_str(&format!(" --hmark-sport 0x{:04x}", Self::port16(ps, 0)));
        }
        if self.has(XT_HMARK_DPORT) {
            out.push_str(&format!(" --hmark-dport 0x{:04x}", Self::port16(ps, 2)));
        }
        if self.has(XT_HMARK_SPI) {
            out.push_str(&format!(" --hmark-spi 0x{:08x}", u32::from_be_bytes(*ps)));
        }
        if self.has(XT_HMARK_PROTO_MASK) {
            out.push_str(&format!(" --hmark-proto-mask 0x{:02x}", self.proto_mask));
        }
        if self.has(XT_HMARK_RND) {
            out.push_str(&format!(" --hmark-rnd 0x{:08x}", self.hashrnd));
        }
        if self.has(XT_HMARK_MODULUS) {
            out.push_str(&format!(" --hmark-mod {}", self.hmodulus));
        }
        if self.has(XT_HMARK_OFFSET) {
            out.push_str(&format!(" --hmark-offset {}", self.hoffset));
        }
        if !words.is_empty() {
            out.push_str(" --hmark-tuple ");
            out.push_str(&words.join(","));
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        out.push_str(" HMARK ");
        if self.has(XT_HMARK_MODULUS) {
            out.push_str(&format!("mod {} ", self.hmodulus));
        }
        if self.has(XT_HMARK_OFFSET) {
            out.push_str(&format!("+ 0x{:x} ", self.hoffset));
        }
        if self.has(XT_HMARK_CT) {
            out.push_str("ct, ");
        }
        // IPv4 prints the prefix length as `%u`; IPv6 prints `xtables_ip6mask_to_numeric`
        // without its slash: nothing for /128, the mask itself when it is no prefix.
        let prefix = |m: &[u8; 16]| match (ctx.family, mask_cidr(ctx.family, m)) {
            (IpFamily::V4, n) => (n as u32).to_string(),
            (IpFamily::V6, 128) => String::new(),
            (IpFamily::V6, -1) => ntop6(m),
            (IpFamily::V6, n) => n.to_string(),
        };
        if self.has(XT_HMARK_SADDR_MASK) {
            out.push_str(&format!("src-prefix {} ", prefix(&self.src_mask)));
        }
        if self.has(XT_HMARK_DADDR_MASK) {
            out.push_str(&format!("dst-prefix {} ", prefix(&self.dst_mask)));
        }
        let (pm, ps) = (&self.port_mask, &self.port_set);
        if self.has(XT_HMARK_SPORT_MASK) {
            out.push_str(&format!("sport-mask 0x{:x} ", Self::port16(pm, 0)));
        }
        if self.has(XT_HMARK_DPORT_MASK) {
            out.push_str(&format!("dport-mask 0x{:x} ", Self::port16(pm, 2)));
        }
        if self.has(XT_HMARK_SPI_MASK) {
            out.push_str(&format!("spi-mask 0x{:x} ", u32::from_be_bytes(*pm)));
        }
        if self.has(XT_HMARK_SPORT) {
            out.push_str(&format!("sport 0x{:x} ", Self::port16(ps, 0)));
        }
        if self.has(XT_HMARK_DPORT) {
            out.push_str(&format!("dport 0x{:x} ", Self::port16(ps, 2)));
        }
        if self.has(XT_HMARK_SPI) {
            out.push_str(&format!("spi 0x{:x} ", u32::from_be_bytes(*ps)));
        }
        if self.has(XT_HMARK_PROTO_MASK) {
            out.push_str(&format!("proto-mask 0x{:x} ", self.proto_mask));
        }
        if self.has(XT_HMARK_RND) {
            out.push_str(&format!("rnd 0x{:x} ", self.hashrnd));
        }
    }

    crate::ext_boilerplate!();
}

/// Whether `bytes` are all zero.
fn zero(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b == 0)
}

/// Whether save's text of an address mask gives these bytes back: a prefix of the family
/// (IPv4 in the first 4 bytes, the rest zero), or in IPv4 the all-ones mask of
/// `--hmark-tuple src`.
fn mask_saves(family: IpFamily, m: &[u8; 16]) -> bool {
    match family {
        IpFamily::V4 => *m == [0xff; 16] || (zero(&m[4..]) && mask_cidr(family, m) >= 0),
        IpFamily::V6 => mask_cidr(family, m) >= 0,
    }
}

/// `struct xt_hmark_info`, revision 0, every field kept as sent.
static HMARK: XtStruct<Hmark> = XtStruct::new(
    "xt_hmark_info",
    size_of::<xt_hmark_info>(),
    0,
    &[
        xt_field!(xt_hmark_info, src_mask: Bytes(16) => src_mask),
        xt_field!(xt_hmark_info, dst_mask: Bytes(16) => dst_mask),
        xt_field!(xt_hmark_info, port_mask: Bytes(4) => port_mask),
        xt_field!(xt_hmark_info, port_set: Bytes(4) => port_set),
        xt_field!(xt_hmark_info, flags: U32 => flags),
        xt_field!(xt_hmark_info, proto_mask: U16 => proto_mask),
        xt_field!(xt_hmark_info, hashrnd: U32 => hashrnd),
        xt_field!(xt_hmark_info, hmodulus: U32 => hmodulus),
        xt_field!(xt_hmark_info, hoffset: U32 => hoffset),
    ],
);

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Exact: the padding after `proto_mask` and at the end is zero.
    let h = HMARK.decode_exact(rev, info)?;
    // Only what iptables can write: known flags, no field set without its flag.
    let any = |ids: &[u32]| ids.iter().any(|&id| h.has(id));
    let ok = h.flags & !KNOWN == 0
        && (zero(&h.src_mask) || h.has(XT_HMARK_SADDR_MASK))
        && (zero(&h.dst_mask) || h.has(XT_HMARK_DADDR_MASK))
        && (zero(&h.port_mask[..2]) || any(&[XT_HMARK_SPORT_MASK, XT_HMARK_SPI_MASK]))
        && (zero(&h.port_mask[2..]) || any(&[XT_HMARK_DPORT_MASK, XT_HMARK_SPI_MASK]))
        && (zero(&h.port_set[..2]) || any(&[XT_HMARK_SPORT, XT_HMARK_SPI]))
        && (zero(&h.port_set[2..]) || any(&[XT_HMARK_DPORT, XT_HMARK_SPI]))
        && (h.proto_mask == 0 || h.has(XT_HMARK_PROTO_MASK))
        && (h.hashrnd == 0 || h.has(XT_HMARK_RND))
        && (h.hmodulus == 0 || h.has(XT_HMARK_MODULUS))
        && (h.hoffset == 0 || h.has(XT_HMARK_OFFSET))
        && mask_saves(ctx.family, &h.src_mask)
        && mask_saves(ctx.family, &h.dst_mask);
    ok.then(|| Box::new(h) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    fn err(f: IpFamily, spec: &str) -> String {
        parse_rule_str(f, spec).unwrap_err().to_string()
    }

    #[test]
    fn saves() {
        let r = "-j HMARK --hmark-src-prefix 32 --hmark-dst-prefix 32 --hmark-sport-mask 0xffff \
                 --hmark-dport-mask 0xffff --hmark-proto-mask 0xffff --hmark-rnd 0x00000004 \
                 --hmark-mod 42 --hmark-offset 1 --hmark-tuple ct";
        assert_eq!(save_round(IpFamily::V4, r).unwrap(), r);
        assert_eq!(
            save_round(
                IpFamily::V4,
                "-j HMARK --hmark-tuple s,c,DPORT --hmark-rnd 4 --hmark-mod 1"
            )
            .unwrap(),
            "-j HMARK --hmark-dport-mask 0xffff --hmark-rnd 0x00000004 --hmark-mod 1 \
             --hmark-tuple ct,src"
        );
        assert_eq!(
            save_round(
                IpFamily::V6,
                "-j HMARK --hmark-dst-prefix 64 --hmark-spi 5 --hmark-rnd 4 --hmark-mod 42"
            )
            .unwrap(),
            "-j HMARK --hmark-dst-prefix 64 --hmark-spi 0x00000005 --hmark-rnd 0x00000004 \
             --hmark-mod 42"
        );
    }

    #[test]
    fn refusals() {
        let v4 = IpFamily::V4;
        assert!(err(v4, "-j HMARK").contains("--hmark-mod is mandatory"));
        assert!(err(v4, "-j HMARK --hmark-mod 1").contains("--hmark-rnd is mandatory"));
        assert!(err(v4, "-j HMARK --hmark-mod 1 --hmark-rnd 1")
            .contains("you have to specify --hmark-tuple at least"));
        assert!(err(
            v4,
            "-j HMARK --hmark-tuple src,dport,spi --hmark-mod 1 --hmark-rnd 1"
        )
        .contains("you cannot use --hmark-spi-mask"));
        assert!(err(v4, "-j HMARK --hmark-tuple ,src").contains("Bad type \",src\""));
        assert!(err(v4, "-j HMARK --hmark-tuple src,x,dst").contains("Bad type \"x,dst\""));
        assert!(err(v4, "-j HMARK --hmark-tuple src,").contains("requires a list of types"));
        assert!(err(v4, "-j HMARK --hmark-tuple src --hmark-src-prefix 3")
            .contains("option \"--hmark-src-prefix\" can only be used once"));
    }

    #[test]
    fn tuple_masks_save_as_they_restore() {
        // The all-ones mask of `--hmark-tuple src` is not what `--hmark-src-prefix 32`
        // writes in IPv4 (4 bytes), so it is saved as the tuple word.
        assert_eq!(
            save_round(
                IpFamily::V4,
                "-j HMARK --hmark-tuple src,dst,ct --hmark-rnd 1 --hmark-mod 2"
            )
            .unwrap(),
            "-j HMARK --hmark-rnd 0x00000001 --hmark-mod 2 --hmark-tuple ct,src,dst"
        );
        assert_eq!(
            save_round(
                IpFamily::V4,
                "-j HMARK --hmark-src-prefix 32 --hmark-rnd 1 --hmark-mod 2"
            )
            .unwrap(),
            "-j HMARK --hmark-src-prefix 32 --hmark-rnd 0x00000001 --hmark-mod 2"
        );
        assert_eq!(
            save_round(
                IpFamily::V6,
                "-j HMARK --hmark-tuple src --hmark-rnd 1 --hmark-mod 2"
            )
            .unwrap(),
            "-j HMARK --hmark-src-prefix 128 --hmark-rnd 0x00000001 --hmark-mod 2"
        );
    }
}
