//! `sctp`: ports and chunk types of SCTP (`-p sctp --sport`, `--dport`, `--chunk-types`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `sctp` match, rev 0, `xt_sctp_info`
//! (292 bytes, 296 padded), for every option (iptables-nft has no native form of it). The
//! kernel takes it only in `-p sctp` rules. As libxt_sctp does, a port range is stored only
//! when its option is given (`0:0` otherwise), and the unused chunk flag entries hold chunk
//! type 255.
//!
//! libxt_sctp stores the flags of a chunk under the chunk's index in its name table rather
//! than its type; the two agree up to `SHUTDOWN_COMPLETE`, so the flags of `I_DATA` reach
//! the kernel under type 15 and are not printed back. iptnl does the same.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_sctp_flag_info, xt_sctp_info, SCTP_CHUNK_MATCH_ALL, SCTP_CHUNK_MATCH_ANY,
    SCTP_CHUNK_MATCH_ONLY, XT_NUM_SCTP_FLAGS, XT_SCTP_CHUNKMAP_WORDS, XT_SCTP_CHUNK_TYPES,
    XT_SCTP_DEST_PORTS, XT_SCTP_SRC_PORTS, XT_SCTP_VALID_FLAGS,
};

use super::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Ty, Val,
};
use super::base::libxt::strtoul_full;
use super::base::names::service_port_for;
use super::base::ports::print_ports;
use super::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `sctp` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "sctp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        // libxt_sctp parses its options itself (no libxtables option table): `parse`
        // refuses a repeated option with its own messages.
        Opt::custom("source-port").inv().multi(),
        Opt::custom("sport").alias("source-port"),
        Opt::custom("destination-port").inv().multi(),
        Opt::custom("dport").alias("destination-port"),
        Opt::new("chunk-types", Ty::Custom2).inv().multi(),
    ]),
    new: |_| Box::new(Sctp::default()),
    xt_names: &["sctp"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// A chunk type libxt_sctp knows: its name, its type number and the letters of its flags,
/// bit 7 first (`-` for a flag without a letter).
struct Chunk {
    name: &'static str,
    num: u8,
    flags: &'static [u8; 8],
}

const fn chunk(name: &'static str, num: u8, flags: &'static [u8; 8]) -> Chunk {
    Chunk { name, num, flags }
}

/// libxt_sctp's chunk table, in its order (the index is what flag entries hold).
static CHUNKS: [Chunk; 22] = [
    chunk("DATA", 0, b"----IUBE"),
    chunk("INIT", 1, b"--------"),
    chunk("INIT_ACK", 2, b"--------"),
    chunk("SACK", 3, b"--------"),
    chunk("HEARTBEAT", 4, b"--------"),
    chunk("HEARTBEAT_ACK", 5, b"--------"),
    chunk("ABORT", 6, b"-------T"),
    chunk("SHUTDOWN", 7, b"--------"),
    chunk("SHUTDOWN_ACK", 8, b"--------"),
    chunk("ERROR", 9, b"--------"),
    chunk("COOKIE_ECHO", 10, b"--------"),
    chunk("COOKIE_ACK", 11, b"--------"),
    chunk("ECN_ECNE", 12, b"--------"),
    chunk("ECN_CWR", 13, b"--------"),
    chunk("SHUTDOWN_COMPLETE", 14, b"-------T"),
    chunk("I_DATA", 64, b"----IUBE"),
    chunk("RE_CONFIG", 130, b"--------"),
    chunk("PAD", 132, b"--------"),
    chunk("ASCONF", 193, b"--------"),
    chunk("ASCONF_ACK", 128, b"--------"),
    chunk("FORWARD_TSN", 192, b"--------"),
    chunk("I_FORWARD_TSN", 194, b"--------"),
];

/// A flag entry not in use (`sctp_init`).
const UNUSED_FLAGS: xt_sctp_flag_info = xt_sctp_flag_info {
    chunktype: 0xff,
    flag: 0,
    flag_mask: 0,
};

/// Options of `-m sctp`, as in `struct xt_sctp_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sctp {
    /// The info as libxt_sctp fills it in.
    pub info: xt_sctp_info,
}

impl Default for Sctp {
    fn default() -> Self {
        Sctp {
            info: xt_sctp_info {
                flag_info: [UNUSED_FLAGS; XT_NUM_SCTP_FLAGS],
                ..xt_sctp_info::default()
            },
        }
    }
}

/// One port as `xtables_parse_port(s, "sctp")` reads it: a number in `strtoul`'s syntax or
/// a service name of sctp.
fn parse_port(s: &str, opt: &str) -> Result<u16, ParseError> {
    strtoul_full(s, 0, u64::from(u16::MAX))
        .map(|p| p as u16)
        .or_else(|| service_port_for(s, "sctp"))
        .ok_or_else(|| ParseError::bad(opt, format!("invalid port/service `{s}' specified")))
}

/// `port`, `lo:hi`, `:hi`, `lo:` or `:` as libxt_sctp's `parse_sctp_ports` reads them.
fn parse_ports(s: &str, opt: &str) -> Result<[u16; 2], ParseError> {
    let Some((lo, hi)) = s.split_once(':') else {
        let p = parse_port(s, opt)?;
        return Ok([p, p]);
    };
    let lo = if lo.is_empty() {
        0
    } else {
        parse_port(lo, opt)?
    };
    let hi = if hi.is_empty() {
        u16::MAX
    } else {
        parse_port(hi, opt)?
    };
    if lo > hi {
        return Err(ParseError::bad(opt, "invalid portrange (min > max)"));
    }
    Ok([lo, hi])
}

fn chunk_set(map: &[u32; XT_SCTP_CHUNKMAP_WORDS], t: usize) -> bool {
    map.get(t / 32).is_some_and(|w| w & (1 << (t % 32)) != 0)
}

/// The bytes of one `struct xt_sctp_flag_info`.
const FLAG_INFO: usize = size_of::<xt_sctp_flag_info>();

/// Writes the `flag_info` records, three bytes each.
fn put_flag_info(s: &Sctp, field: &mut [u8]) {
    for (f, at) in s
        .info
        .flag_info
        .iter()
        .zip(field.chunks_exact_mut(FLAG_INFO))
    {
        at.copy_from_slice(&[f.chunktype, f.flag, f.flag_mask]);
    }
}

/// Reads the `flag_info` records.
fn get_flag_info(s: &mut Sctp, field: &[u8]) -> Option<()> {
    for (f, at) in s
        .info
        .flag_info
        .iter_mut()
        .zip(field.chunks_exact(FLAG_INFO))
    {
        *f = xt_sctp_flag_info {
            chunktype: at[0],
            flag: at[1],
            flag_mask: at[2],
        };
    }
    Some(())
}

/// `struct xt_sctp_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Sctp> = XtStruct::new(
    "xt_sctp_info",
    size_of::<xt_sctp_info>(),
    0,
    &[
        xt_field!(xt_sctp_info, dpts: U16Pair => info.dpts),
        xt_field!(xt_sctp_info, spts: U16Pair => info.spts),
        xt_field!(xt_sctp_info, chunkmap: U32Array(XT_SCTP_CHUNKMAP_WORDS) => info.chunkmap),
        xt_field!(xt_sctp_info, chunk_match_type: U32 => info.chunk_match_type),
        Field {
            name: "flag_info",
            at: offset_of!(xt_sctp_info, flag_info),
            kind: Kind::Custom(XT_NUM_SCTP_FLAGS * FLAG_INFO, put_flag_info, get_flag_info),
        },
        xt_field!(xt_sctp_info, flag_count: I32 => info.flag_count),
        xt_field!(xt_sctp_info, flags: U32 => info.flags),
        xt_field!(xt_sctp_info, invflags: U32 => info.invflags),
    ],
);

impl Sctp {
    fn to_xt(&self) -> Vec<u8> {
        INFO.encode(self)
    }

    /// Adds flag `bit` of the chunk at `index` of [`CHUNKS`], set or clear
    /// (`save_chunk_flag_info`).
    fn add_flag(&mut self, index: u8, bit: u8, set: bool, opt: &str) -> Result<(), ParseError> {
        let i = &mut self.info;
        let count = i.flag_count.clamp(0, XT_NUM_SCTP_FLAGS as i32) as usize;
        let slot = match i.flag_info[..count]
            .iter()
            .position(|f| f.chunktype == index)
        {
            Some(k) => k,
            None if count == XT_NUM_SCTP_FLAGS => {
                return Err(ParseError::bad(
                    opt,
                    "Number of chunk types with flags exceeds currently allowed limit. Increasing this limit involves changing IPT_NUM_SCTP_FLAGS and recompiling both the kernel space and user space modules",
                ))
            }
            None => {
                i.flag_count = count as i32 + 1;
                count
            }
        };
        let f = &mut i.flag_info[slot];
        f.chunktype = index;
        f.flag_mask |= 1 << bit;
        if set {
            f.flag |= 1 << bit;
        }
        Ok(())
    }

    /// `--chunk-types MATCH LIST` (`parse_sctp_chunks`).
    fn parse_chunks(&mut self, kind: &str, list: &str, opt: &str) -> Result<(), ParseError> {
        let bad = |m: String| ParseError::bad(opt, m);
        self.info.chunk_match_type = if kind.eq_ignore_ascii_case("ANY") {
            SCTP_CHUNK_MATCH_ANY
        } else if kind.eq_ignore_ascii_case("ALL") {
            SCTP_CHUNK_MATCH_ALL
        } else if kind.eq_ignore_ascii_case("ONLY") {
            SCTP_CHUNK_MATCH_ONLY
        } else {
            return Err(bad(
                "Match type has to be one of \"ALL\", \"ANY\" or \"ONLY\"".into(),
            ));
        };
        self.info.chunkmap = [0; XT_SCTP_CHUNKMAP_WORDS];
        if list.eq_ignore_ascii_case("ALL") {
            self.info.chunkmap = [u32::MAX; XT_SCTP_CHUNKMAP_WORDS];
            return Ok(());
        }
        if list.eq_ignore_ascii_case("NONE") {
            return Ok(());
        }
        for word in list.split(',').filter(|w| !w.is_empty()) {
            let (name, flags) = match word.split_once(':') {
                Some((n, f)) => (n, Some(f)),
                None => (word, None),
            };
            let index = CHUNKS
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| bad(format!("Unknown sctp chunk `{name}'")))?;
            let c = &CHUNKS[index];
            let t = usize::from(c.num);
            self.info.chunkmap[t / 32] |= 1 << (t % 32);
            for ch in flags.unwrap_or("").bytes() {
                let pos = c
                    .flags
                    .iter()
                    .position(|&f| ch != 0 && f == ch.to_ascii_uppercase())
                    .ok_or_else(|| bad(format!("Invalid flags for chunk type {index}")))?;
                self.add_flag(index as u8, 7 - pos as u8, ch.is_ascii_uppercase(), opt)?;
            }
        }
        Ok(())
    }

    /// Appends ` any|all|only NONE|ALL|CHUNK[:FLAGS],…` (`print_chunks`); `numeric` prints
    /// chunk types as `0x0000`.
    fn push_chunks(&self, out: &mut String, numeric: bool) {
        let i = &self.info;
        out.push_str(match i.chunk_match_type {
            SCTP_CHUNK_MATCH_ANY => " any",
            SCTP_CHUNK_MATCH_ALL => " all",
            SCTP_CHUNK_MATCH_ONLY => " only",
            _ => "Never reach here\n",
        });
        if i.chunkmap.iter().all(|&w| w == 0) {
            out.push_str(" NONE");
            return;
        }
        if i.chunkmap.iter().all(|&w| w == u32::MAX) {
            out.push_str(" ALL");
            return;
        }
        let count = i.flag_count.clamp(0, XT_NUM_SCTP_FLAGS as i32) as usize;
        let mut first = true;
        for t in 0..256usize {
            if !chunk_set(&i.chunkmap, t) {
                continue;
            }
            out.push(if first { ' ' } else { ',' });
            first = false;
            if numeric {
                out.push_str(&format!("0x{t:04X}"));
            } else if let Some(c) = CHUNKS.iter().find(|c| usize::from(c.num) == t) {
                out.push_str(c.name);
            }
            // As libxt_sctp: the entries whose index equals the type, with the letters of
            // the chunk at that index.
            let Some(letters) = CHUNKS.get(t).map(|c| c.flags) else {
                continue;
            };
            for f in i.flag_info[..count]
                .iter()
                .filter(|f| usize::from(f.chunktype) == t)
            {
                if f.flag_mask != 0 {
                    out.push(':');
                }
                for bit in (0..8).rev() {
                    if f.flag_mask & (1 << bit) != 0 {
                        let l = letters[7 - bit];
                        out.push(if f.flag & (1 << bit) != 0 {
                            l as char
                        } else {
                            l.to_ascii_lowercase() as char
                        });
                    }
                }
            }
        }
    }

    /// Whether libxt_sctp's parser can have made the info: what iptables prints of it then
    /// reads back as the same rule.
    fn is_parsed_form(&self) -> bool {
        let i = &self.info;
        let has = |f| i.flags & f != 0;
        if i.flags & !XT_SCTP_VALID_FLAGS != 0 || i.invflags & !i.flags != 0 {
            return false;
        }
        if !has(XT_SCTP_SRC_PORTS) && i.spts != [0, 0]
            || !has(XT_SCTP_DEST_PORTS) && i.dpts != [0, 0]
        {
            return false;
        }
        if !has(XT_SCTP_CHUNK_TYPES) {
            return *self
                == Sctp {
                    info: xt_sctp_info {
                        spts: i.spts,
                        dpts: i.dpts,
                        flags: i.flags,
                        invflags: i.invflags,
                        ..Sctp::default().info
                    },
                };
        }
        if !matches!(
            i.chunk_match_type,
            SCTP_CHUNK_MATCH_ANY | SCTP_CHUNK_MATCH_ALL | SCTP_CHUNK_MATCH_ONLY
        ) {
            return false;
        }
        let Ok(count) = usize::try_from(i.flag_count) else {
            return false;
        };
        if count > XT_NUM_SCTP_FLAGS || i.flag_info[count..].iter().any(|f| *f != UNUSED_FLAGS) {
            return false;
        }
        if i.chunkmap.iter().all(|&w| w == u32::MAX) {
            return count == 0;
        }
        let named = |t: usize| CHUNKS.iter().any(|c| usize::from(c.num) == t);
        if (0..XT_SCTP_CHUNKMAP_WORDS * 32).any(|t| chunk_set(&i.chunkmap, t) && !named(t)) {
            return false;
        }
        let used = &i.flag_info[..count];
        used.iter().enumerate().all(|(k, f)| {
            let Some(c) = CHUNKS.get(usize::from(f.chunktype)) else {
                return false;
            };
            // The bits a letter of the chunk (or its first `-`) stands for.
            let valid = c.flags.iter().enumerate().fold(0u8, |m, (pos, &l)| {
                let first = c.flags.iter().position(|&x| x == l) == Some(pos);
                if first {
                    m | 1 << (7 - pos)
                } else {
                    m
                }
            });
            chunk_set(&i.chunkmap, usize::from(c.num))
                && f.flag_mask != 0
                && f.flag_mask & !valid == 0
                && f.flag & !f.flag_mask == 0
                && used[..k].iter().all(|g| g.chunktype != f.chunktype)
        })
    }
}

impl Extension for Sctp {
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
        let name = opt.canonical();
        if ctx.given.has(name) {
            return Err(ParseError::Invalid(format!("Only one `--{name}' allowed")));
        }
        let bit = match name {
            "source-port" => XT_SCTP_SRC_PORTS,
            "destination-port" => XT_SCTP_DEST_PORTS,
            _ => XT_SCTP_CHUNK_TYPES,
        };
        let shown = opt.shown();
        match name {
            "source-port" => self.info.spts = parse_ports(val.text(), &shown)?,
            "destination-port" => self.info.dpts = parse_ports(val.text(), &shown)?,
            _ => {
                if val.second().is_empty() || val.second().starts_with(['-', '!']) {
                    return Err(ParseError::bad(&*shown, "--chunk-types requires two args"));
                }
                self.parse_chunks(val.text(), val.second(), &shown)?;
            }
        }
        self.info.flags |= bit;
        if inv {
            self.info.invflags |= bit;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("sctp", 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let i = &self.info;
        for (bit, name, r) in [
            (XT_SCTP_SRC_PORTS, " --sport ", i.spts),
            (XT_SCTP_DEST_PORTS, " --dport ", i.dpts),
        ] {
            if i.flags & bit != 0 {
                save_inv(out, i.invflags & bit != 0);
                out.push_str(name);
                super::base::ports::save_range(out, r);
            }
        }
        if i.flags & XT_SCTP_CHUNK_TYPES != 0 {
            save_inv(out, i.invflags & XT_SCTP_CHUNK_TYPES != 0);
            out.push_str(" --chunk-types");
            self.push_chunks(out, false);
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        let i = &self.info;
        out.push_str(" sctp");
        for (bit, name, r) in [
            (XT_SCTP_SRC_PORTS, "spt", i.spts),
            (XT_SCTP_DEST_PORTS, "dpt", i.dpts),
        ] {
            if i.flags & bit != 0 {
                print_ports(out, name, r, i.invflags & bit != 0, "sctp", ctx.numeric);
            }
        }
        if i.flags & XT_SCTP_CHUNK_TYPES != 0 {
            save_inv(out, i.invflags & XT_SCTP_CHUNK_TYPES != 0);
            self.push_chunks(out, ctx.numeric);
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let s = INFO.decode_exact(rev, info)?;
    s.is_parsed_form().then(|| Box::new(s) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(f: IpFamily, args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(f, args)
    }

    #[test]
    fn ports_and_chunks_save_as_iptables() {
        let p = "-p sctp -m sctp";
        for (given, want) in [
            (" --sport 1", " --sport 1"),
            (" --dport 1:65535", " --dport 1:65535"),
            (" ! --source-port :", " ! --sport 0:65535"),
            (" --destination-port 5:", " --dport 5:65535"),
            (" --sport 0x10 --dport 010", " --sport 16 --dport 8"),
            ("", ""),
            (
                " --chunk-types only DATA:Be,INIT",
                " --chunk-types only DATA:Be,INIT",
            ),
            (" ! --chunk-types ANY none", " ! --chunk-types any NONE"),
            (" --chunk-types all all", " --chunk-types all ALL"),
            (
                " --chunk-types all data,,init,data:e,abort:t",
                " --chunk-types all DATA:e,INIT,ABORT:t",
            ),
            (
                " --chunk-types any I_DATA:I,ASCONF,DATA:-",
                " --chunk-types any DATA:-,I_DATA,ASCONF",
            ),
            (" --chunk-types any ,", " --chunk-types any NONE"),
        ] {
            for f in [IpFamily::V4, IpFamily::V6] {
                assert_eq!(
                    round(f, &format!("{p}{given}")).unwrap(),
                    format!("{p}{want}"),
                    "{given}"
                );
            }
        }
        assert_eq!(
            round(IpFamily::V4, "-p sctp --dport 80").unwrap(),
            "-p sctp -m sctp --dport 80"
        );
    }

    #[test]
    fn errors_as_libxt_sctp() {
        let p = "-p sctp -m sctp";
        for (given, want) in [
            (" --sport -1", "invalid port/service `-1' specified"),
            (" --sport 65536", "invalid port/service `65536' specified"),
            (" --dport 4:3", "invalid portrange (min > max)"),
            (" --sport 1 --source-port 2", "Only one `--source-port' allowed"),
            (
                " --chunk-types x DATA",
                "Match type has to be one of \"ALL\", \"ANY\" or \"ONLY\"",
            ),
            (" --chunk-types all FOO:B", "Unknown sctp chunk `FOO'"),
            (" --chunk-types all INIT:B", "Invalid flags for chunk type 1"),
            (" --chunk-types all -j ACCEPT", "--chunk-types requires two args"),
            (" --chunk-types ANY", "--chunk-types requires two args"),
            (" --chunk-types any ! INIT", "--chunk-types requires two args"),
            (
                " --chunk-types all DATA --chunk-types any INIT",
                "Only one `--chunk-types' allowed",
            ),
            (
                " --chunk-types all DATA:B,INIT:-,ABORT:T,SACK:-,HEARTBEAT:-",
                "Number of chunk types with flags exceeds currently allowed limit. Increasing this limit involves changing IPT_NUM_SCTP_FLAGS and recompiling both the kernel space and user space modules",
            ),
        ] {
            let e = round(IpFamily::V4, &format!("{p}{given}")).unwrap_err();
            assert!(e.ends_with(want), "{given}: {e}");
        }
    }

    /// Every byte of an info changed decodes without a panic; what libxt_sctp cannot have
    /// written is refused.
    #[test]
    fn strict_decoding() {
        use super::*;
        let ctx = DecodeCtx {
            family: IpFamily::V4,
            proto: None,
            sets: &crate::ipt::ext::NoSets,
        };
        let mut s = Sctp::default();
        s.info.flags = XT_SCTP_DEST_PORTS | XT_SCTP_CHUNK_TYPES;
        s.info.dpts = [80, 80];
        s.parse_chunks("only", "DATA:Be,INIT", "--chunk-types")
            .unwrap();
        let good = s.to_xt();
        assert!(decode_xt(0, &good, &ctx).is_some());
        assert!(decode_xt(1, &good, &ctx).is_none());
        assert!(decode_xt(0, &good[..good.len() - 8], &ctx).is_none());
        for k in 0..good.len() {
            for v in [0, 1, 0x80, 0xff] {
                let mut b = good.clone();
                b[k] = v;
                let _ = decode_xt(0, &b, &ctx);
            }
        }
        let off = |o: usize| -> Vec<u8> {
            let mut b = good.clone();
            b[o] ^= 0x10;
            b
        };
        for bad in [
            off(offset_of!(xt_sctp_info, spts)),
            off(offset_of!(xt_sctp_info, flags)),
            off(offset_of!(xt_sctp_info, invflags)),
            off(offset_of!(xt_sctp_info, chunk_match_type)),
            off(offset_of!(xt_sctp_info, chunkmap) + 2),
            off(offset_of!(xt_sctp_info, flag_count)),
            off(offset_of!(xt_sctp_info, flag_info) + 2),
            off(offset_of!(xt_sctp_info, flag_info) + 3),
            off(good.len() - 1),
        ] {
            assert!(decode_xt(0, &bad, &ctx).is_none());
        }
    }

    #[test]
    fn listing_words() {
        use crate::ipt::ext::list_options;
        use crate::ipt::parse_rule_str;
        let l = |s: &str, n: bool| list_options(&parse_rule_str(IpFamily::V4, s).unwrap()[0], n);
        assert_eq!(
            l("-p sctp --dport 80 --chunk-types only DATA:Be,INIT", true),
            " sctp dpt:80 only 0x0000:Be,0x0001"
        );
        assert_eq!(
            l("-p sctp --dport 80 --chunk-types only DATA:Be,INIT", false),
            " sctp dpt:80 only DATA:Be,INIT"
        );
        assert_eq!(
            l("-p sctp ! --sport 1:2 ! --chunk-types all ALL", true),
            " sctp spts:!1:2 ! all ALL"
        );
        assert_eq!(l("-p sctp --sport :", true), " sctp");
    }
}
