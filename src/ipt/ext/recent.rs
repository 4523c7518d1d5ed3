//! `recent`: remember addresses in a named list and test them (`--set`, `--rcheck`,
//! `--update`, `--remove`, `--seconds`, `--reap`, `--hitcount`, `--rttl`, `--name`,
//! `--rsource`, `--rdest`, `--mask`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `recent` match, rev 1, `xt_recent_mtinfo_v1`
//! (232 bytes). The name buffer is filled as iptables fills it: `DEFAULT` first, then the
//! given name and its NUL written over it, so `--name AB` leaves `AB\0AULT` in the buffer.
//! The mask is all ones (16 bytes) by default; `--mask` of an IPv4 rule writes four bytes and
//! zeroes the other twelve. Rev 0 (no mask) is decoded and re-encoded as rev 0.

use iptnl_sys::xt::{
    xt_recent_mtinfo, xt_recent_mtinfo_v1, XT_RECENT_CHECK, XT_RECENT_DEST, XT_RECENT_NAME_LEN,
    XT_RECENT_REAP, XT_RECENT_REMOVE, XT_RECENT_SET, XT_RECENT_SOURCE, XT_RECENT_TTL,
    XT_RECENT_UPDATE, XT_RECENT_VALID_FLAGS,
};

use super::base::libxt::{inet_aton, ntop, parse_ipv6};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Ty,
    Val,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The `recent` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "recent",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("set").inv().excl(ANY_OP),
        Opt::flag("rcheck").inv().excl(ANY_OP),
        Opt::flag("update").inv().excl(ANY_OP),
        Opt::flag("remove").inv().excl(ANY_OP),
        Opt::new(
            "seconds",
            Ty::Uint {
                min: 1,
                max: u32::MAX as u64,
            },
        ),
        Opt::flag("reap").also(&["seconds"]),
        Opt::new("hitcount", U32),
        Opt::flag("rttl").excl(&["set", "remove"]),
        Opt::new("name", STR),
        Opt::flag("rsource"),
        Opt::flag("rdest"),
        // `XTTYPE_HOST` in libxtables; parsed here as an address of the rule's family.
        Opt::custom("mask"),
    ]),
    new: |_| Box::new(Recent::default()),
    xt_names: &["recent"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The commands, each excluding the others (libxt_recent's `F_ANY_OP`).
const ANY_OP: &[&str] = &["set", "rcheck", "update", "remove"];

const OPS: [(&str, u8); 4] = [
    ("set", XT_RECENT_SET),
    ("rcheck", XT_RECENT_CHECK),
    ("update", XT_RECENT_UPDATE),
    ("remove", XT_RECENT_REMOVE),
];

/// Options of `-m recent`, as in `struct xt_recent_mtinfo_v1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Recent {
    /// `--seconds` (0 = none).
    pub seconds: u32,
    /// `--hitcount` (0 = none).
    pub hit_count: u32,
    /// `XT_RECENT_*` command and modifier bits.
    pub check_set: u8,
    /// 1 when the command is negated.
    pub invert: u8,
    /// The whole 200-byte name buffer (the name up to its NUL, then what iptables left there).
    pub name: Vec<u8>,
    /// `XT_RECENT_SOURCE` or `XT_RECENT_DEST`.
    pub side: u8,
    /// The 16-byte mask (rev 1), `None` for a rev 0 match.
    pub mask: Option<[u8; 16]>,
}

fn default_name() -> Vec<u8> {
    let mut n = vec![0u8; XT_RECENT_NAME_LEN];
    n[..7].copy_from_slice(b"DEFAULT");
    n
}

impl Default for Recent {
    fn default() -> Self {
        Recent {
            seconds: 0,
            hit_count: 0,
            check_set: 0,
            invert: 0,
            name: default_name(),
            side: XT_RECENT_SOURCE,
            mask: Some([0xff; 16]),
        }
    }
}

impl Recent {
    /// The list name (up to the first NUL).
    pub fn name_str(&self) -> String {
        let end = self
            .name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.name.len());
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }

    /// The field table of this match's revision: 1 with a mask, 0 without.
    fn table(&self) -> &'static XtStruct<Recent> {
        match self.mask {
            Some(_) => &RECENT_V1,
            None => &RECENT_V0,
        }
    }

    fn to_xt(&self) -> Vec<u8> {
        self.table().encode(self)
    }
}

/// Generates the fields `struct xt_recent_mtinfo` and `xt_recent_mtinfo_v1` share (the
/// latter is the former with the mask after it), then `$($more)*`.
macro_rules! recent_table {
    ($c:ty, $rev:expr, $($more:expr),*) => {
        XtStruct::new(
            stringify!($c),
            std::mem::size_of::<$c>(),
            $rev,
            &[
                crate::xt_field!($c, seconds: U32 => seconds),
                crate::xt_field!($c, hit_count: U32 => hit_count),
                crate::xt_field!($c, check_set: U8 => check_set),
                crate::xt_field!($c, invert: U8 => invert),
                Field {
                    name: "name",
                    at: std::mem::offset_of!($c, name),
                    kind: Kind::Bytes(XT_RECENT_NAME_LEN, |s| &s.name, |s, v| s.name = v.to_vec()),
                },
                crate::xt_field!($c, side: U8 => side),
                $($more),*
            ],
        )
    };
}

/// `struct xt_recent_mtinfo` (revision 0): no mask.
static RECENT_V0: XtStruct<Recent> = recent_table!(xt_recent_mtinfo, 0,);

/// `struct xt_recent_mtinfo_v1` (revision 1): the mask, all 16 bytes whatever the family.
static RECENT_V1: XtStruct<Recent> = recent_table!(
    xt_recent_mtinfo_v1,
    1,
    Field {
        name: "mask",
        at: std::mem::offset_of!(xt_recent_mtinfo_v1, mask),
        kind: Kind::Bytes(
            16,
            |s| s.mask.as_ref().map_or(&[][..], |m| &m[..]),
            |s, v| s.mask = v.try_into().ok(),
        ),
    }
);

/// The tables of both revisions.
static RECENT: XtRevs<Recent> = XtRevs(&[&RECENT_V0, &RECENT_V1]);

impl Extension for Recent {
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
        if let Some(&(_, bit)) = OPS.iter().find(|(n, _)| *n == opt.name) {
            self.check_set |= bit;
            if inv {
                self.invert = 1;
            }
            return Ok(());
        }
        match opt.name {
            "seconds" => self.seconds = val.uint() as u32,
            "hitcount" => {
                self.hit_count = val.uint() as u32;
                // The kernel keeps at most XT_RECENT_MAX_NSTAMPS - 1 time stamps.
                if self.hit_count > 65535 {
                    return Err(ParseError::bad(
                        "--hitcount",
                        format!(
                            "hitcount {} is larger than the allowed maximum 65535",
                            val.text()
                        ),
                    ));
                }
            }
            "reap" => self.check_set |= XT_RECENT_REAP,
            "rttl" => self.check_set |= XT_RECENT_TTL,
            "rsource" => self.side = XT_RECENT_SOURCE,
            "rdest" => self.side = XT_RECENT_DEST,
            "name" => {
                let v = val.text().as_bytes();
                // The kernel refuses what is not a valid /proc file name.
                if v.is_empty() || v == b"." || v == b".." || v.contains(&b'/') {
                    return Err(ParseError::bad(
                        "--name",
                        format!("invalid list name \"{}\"", val.text()),
                    ));
                }
                // iptables truncates to the buffer size.
                let n = v.len().min(XT_RECENT_NAME_LEN - 1);
                if !val.text().is_char_boundary(n) {
                    return Err(ParseError::bad(
                        "--name",
                        format!("list name \"{}\" is too long", val.text()),
                    ));
                }
                self.name[..n].copy_from_slice(&v[..n]);
                self.name[n] = 0;
            }
            _ => {
                let v = val.text();
                let mut m = [0u8; 16];
                match ctx.family {
                    IpFamily::V4 => {
                        let a = inet_aton(v).ok_or_else(|| {
                            ParseError::bad("--mask", format!("invalid mask \"{v}\""))
                        })?;
                        m[..4].copy_from_slice(&a);
                    }
                    IpFamily::V6 => {
                        m = parse_ipv6(v).ok_or_else(|| {
                            ParseError::bad("--mask", format!("invalid mask \"{v}\""))
                        })?;
                    }
                }
                self.mask = Some(m);
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        let Some(op) = ANY_OP.iter().find(|o| ctx.given.has(o)) else {
            return Err(ParseError::Invalid(
                "recent: you must specify one of `--set', `--rcheck' `--update' or `--remove'"
                    .into(),
            ));
        };
        // The kernel refuses these with --set and --remove; the table's exclusions (a second
        // command, --rttl) are reported first, as libxtables checks them before the kernel.
        let table_ok = ANY_OP.iter().filter(|o| ctx.given.has(o)).count() == 1
            && !ctx.given.has("rttl")
            && (ctx.given.has("seconds") || !ctx.given.has("reap"));
        if table_ok && matches!(*op, "set" | "remove") {
            for o in ["seconds", "hitcount"] {
                if ctx.given.has(o) {
                    return Err(ParseError::Invalid(format!(
                        "recent: option \"--{o}\" cannot be used with \"--{op}\""
                    )));
                }
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let rev = if self.mask.is_some() { 1 } else { 0 };
        out.push(xt_match("recent", rev, self.to_xt()));
        Ok(())
    }

    fn save(&self, family: IpFamily, out: &mut String) {
        if self.invert != 0 {
            out.push_str(" !");
        }
        for (name, bit) in [
            ("set", XT_RECENT_SET),
            ("rcheck", XT_RECENT_CHECK),
            ("update", XT_RECENT_UPDATE),
            ("remove", XT_RECENT_REMOVE),
        ] {
            if self.check_set & bit != 0 {
                out.push_str(" --");
                out.push_str(name);
            }
        }
        if self.seconds != 0 {
            // Unsigned, as iptables 1.8.11 prints it (1.8.9 and older printed it with %d).
            out.push_str(&format!(" --seconds {}", self.seconds));
        }
        if self.check_set & XT_RECENT_REAP != 0 {
            out.push_str(" --reap");
        }
        if self.hit_count != 0 {
            out.push_str(&format!(" --hitcount {}", self.hit_count));
        }
        if self.check_set & XT_RECENT_TTL != 0 {
            out.push_str(" --rttl");
        }
        out.push_str(" --name ");
        out.push_str(&self.name_str());
        if let Some(m) = &self.mask {
            out.push_str(" --mask ");
            out.push_str(&ntop(family, m));
        }
        match self.side {
            XT_RECENT_SOURCE => out.push_str(" --rsource"),
            XT_RECENT_DEST => out.push_str(" --rdest"),
            _ => {}
        }
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        if self.invert != 0 {
            out.push_str(" !");
        }
        out.push_str(" recent:");
        for (name, bit) in [
            (" SET", XT_RECENT_SET),
            (" CHECK", XT_RECENT_CHECK),
            (" UPDATE", XT_RECENT_UPDATE),
            (" REMOVE", XT_RECENT_REMOVE),
        ] {
            if self.check_set & bit != 0 {
                out.push_str(name);
            }
        }
        if self.seconds != 0 {
            out.push_str(&format!(" seconds: {}", self.seconds));
        }
        if self.check_set & XT_RECENT_REAP != 0 {
            out.push_str(" reap");
        }
        if self.hit_count != 0 {
            out.push_str(&format!(" hit_count: {}", self.hit_count));
        }
        if self.check_set & XT_RECENT_TTL != 0 {
            out.push_str(" TTL-Match");
        }
        out.push_str(" name: ");
        out.push_str(&self.name_str());
        match self.side {
            XT_RECENT_SOURCE => out.push_str(" side: source"),
            XT_RECENT_DEST => out.push_str(" side: dest"),
            _ => {}
        }
        // Rev 0 has no mask (iptables prints it for family "unspecified": nothing).
        if let Some(m) = &self.mask {
            out.push_str(" mask: ");
            out.push_str(&ntop(ctx.family, m));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = RECENT.get(rev)?;
    let v = t.view(rev, info)?;
    let mut r = Recent {
        mask: None,
        ..Recent::default()
    };
    t.read(&v, &mut r)?;
    let ops = r.check_set & (XT_RECENT_SET | XT_RECENT_CHECK | XT_RECENT_UPDATE | XT_RECENT_REMOVE);
    if r.check_set & !XT_RECENT_VALID_FLAGS != 0
        || ops.count_ones() != 1
        || r.invert > 1
        || r.side > XT_RECENT_DEST
        || !r.name.contains(&0)
        || !t.encodes_to(&r, info)
    {
        return None;
    }
    Some(Box::new(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn name_buffer_keeps_default_tail() {
        let r = &parse_rule_str(IpFamily::V4, "-m recent --set --name AB").unwrap()[0];
        let mut out = Vec::new();
        let ctx = EncodeCtx {
            sets: &crate::ipt::ext::NoSets,
            floor: crate::ipt::ReaderFloor::UNPINNED,
            family: IpFamily::V4,
            proto: None,
            table: "filter",
            chain: "INPUT",
        };
        r.matches[0].encode(&ctx, &mut out).unwrap();
        let Expr::Match(m) = &out[0] else { panic!() };
        assert_eq!(m.info.len(), 232);
        assert_eq!(&m.info[10..18], b"AB\0AULT\0");
        assert_eq!(
            r.to_save_args(),
            "-m recent --set --name AB --mask 255.255.255.255 --rsource"
        );
    }

    #[test]
    fn revision_0() {
        let r =
            &parse_rule_str(IpFamily::V4, "-m recent ! --update --seconds 9 --name x").unwrap()[0];
        let rec = r.matches[0].as_any().downcast_ref::<Recent>().unwrap();
        let mut v0 = rec.clone();
        v0.mask = None;
        let info = v0.to_xt();
        assert_eq!(info.len(), 216);
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let d = decode_xt(0, &info, &ctx).unwrap();
        let mut s = String::new();
        d.save(IpFamily::V4, &mut s);
        assert_eq!(s, " ! --update --seconds 9 --name x --rsource");
        let mut out = Vec::new();
        let ectx = EncodeCtx {
            sets: &crate::ipt::ext::NoSets,
            floor: crate::ipt::ReaderFloor::UNPINNED,
            family: IpFamily::V4,
            proto: None,
            table: "filter",
            chain: "INPUT",
        };
        d.encode(&ectx, &mut out).unwrap();
        let Expr::Match(m) = &out[0] else { panic!() };
        assert_eq!((m.rev, &m.info), (0, &info));
    }

    #[test]
    fn seconds_and_hitcount_print_unsigned() {
        // iptables 1.8.11 prints both with %u (1.8.9 printed --seconds with %d: -1).
        let r = &parse_rule_str(
            IpFamily::V4,
            "-m recent --rcheck --seconds 4294967295 --hitcount 65535 --name x",
        )
        .unwrap()[0];
        let mut out = String::new();
        r.matches[0].save(IpFamily::V4, &mut out);
        assert!(out.contains(" --seconds 4294967295 "), "{out}");
        assert!(out.contains(" --hitcount 65535 "), "{out}");
    }

    #[test]
    fn kernel_refusals() {
        for bad in [
            "-m recent --set --seconds 5",
            "-m recent --remove --hitcount 2",
            "-m recent --rcheck --name a/b",
            "-m recent --rcheck --name \"\"",
            "-m recent --rcheck --reap",
        ] {
            assert!(parse_rule_str(IpFamily::V4, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn table_messages() {
        for (rule, msg) in [
            (
                "-m recent --set --rcheck",
                "recent: option \"--set\" cannot be used together with \"--rcheck\".",
            ),
            (
                "-m recent --set --set",
                "recent: option \"--set\" can only be used once.",
            ),
            (
                "-m recent --set --rttl",
                "recent: option \"--rttl\" cannot be used together with \"--set\".",
            ),
            (
                "-m recent --update --reap",
                "recent: option \"--reap\" also requires \"--seconds\".",
            ),
            (
                "-m recent --set --seconds 5",
                "recent: option \"--seconds\" cannot be used with \"--set\"",
            ),
            (
                "-m recent --name x",
                "recent: you must specify one of `--set', `--rcheck' `--update' or `--remove'",
            ),
        ] {
            let e = parse_rule_str(IpFamily::V4, rule).unwrap_err().to_string();
            assert!(e.ends_with(msg), "{rule}: {e}");
        }
    }
}
