//! `CT` and `NOTRACK`: attach a conntrack template to the packet (`libxt_CT.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `CT` target, rev 2, 72-byte
//! `xt_ct_target_info_v1`. `-j NOTRACK` is the same target with the flags
//! `XT_CT_NOTRACK | XT_CT_NOTRACK_ALIAS` and prints back as `-j NOTRACK`. Decoding reads
//! revisions 0 (`xt_ct_target_info`, no timeout), 1 and 2, and the old `NOTRACK` target.
//! The kernel allows CT in the raw table only (PREROUTING, OUTPUT); a helper must exist for
//! the rule's protocol (`ftp` needs `-p tcp`) and a timeout policy must have been created
//! with nfct, else the kernel refuses the rule.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_ct_target_info, xt_ct_target_info_v1, XT_CT_NOTRACK, XT_CT_NOTRACK_ALIAS,
    XT_CT_ZONE_DIR_ORIG, XT_CT_ZONE_DIR_REPL, XT_CT_ZONE_MARK,
};

use super::base::libxt::{strtoul_full, text, truncate_bytes};
use super::base::xtstruct::{Field, XtRevs, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j CT`.
pub static CT: ExtDesc = ExtDesc {
    name: "CT",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("notrack"),
        Opt::new("helper", STR),
        Opt::new("timeout", STR),
        Opt::new("ctevents", STR),
        Opt::new("expevents", STR),
        Opt::new("zone-orig", STR),
        Opt::new("zone-reply", STR),
        Opt::new("zone", STR),
    ]),
    new: |_| Box::new(Ct::default()),
    xt_names: &["CT"],
    decode_xt: Some(decode_ct),
    decode_native: None,
};

/// `-j NOTRACK` (no options).
pub static NOTRACK: ExtDesc = ExtDesc {
    name: "NOTRACK",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([]),
    new: |_| Box::new(Ct::notrack()),
    xt_names: &["NOTRACK"],
    decode_xt: Some(decode_notrack),
    decode_native: None,
};

/// Conntrack events by name, in iptables' order (bit numbers of `ct_events`).
const CT_EVENTS: &[(&str, u32)] = &[
    ("new", 0),
    ("related", 1),
    ("destroy", 2),
    ("reply", 3),
    ("assured", 4),
    ("protoinfo", 5),
    ("helper", 6),
    ("mark", 7),
    ("natseqinfo", 8),
    ("secmark", 9),
];

/// Expectation events by name.
const EXP_EVENTS: &[(&str, u32)] = &[("new", 0)];

const HELPER_CAP: usize = 16;
const TIMEOUT_CAP: usize = 32;

/// `-j CT …` / `-j NOTRACK`, as `struct xt_ct_target_info_v1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ct {
    /// `XT_CT_*` flags.
    pub flags: u16,
    /// Zone id.
    pub zone: u16,
    /// Conntrack event mask.
    pub ct_events: u32,
    /// Expectation event mask.
    pub exp_events: u32,
    /// Helper name (at most 15 bytes).
    pub helper: Vec<u8>,
    /// Timeout policy name (at most 31 bytes).
    pub timeout: Vec<u8>,
}

impl Ct {
    /// `-j NOTRACK`.
    pub fn notrack() -> Ct {
        Ct {
            flags: XT_CT_NOTRACK | XT_CT_NOTRACK_ALIAS,
            ..Ct::default()
        }
    }

    fn is_alias(&self) -> bool {
        self.flags & XT_CT_NOTRACK_ALIAS != 0
    }

    /// libxt_CT's options with prefix `p` (`--` to save, empty for -L).
    fn dump(&self, p: &str, out: &mut String) {
        if self.flags & XT_CT_NOTRACK != 0 {
            out.push_str(&format!(" {p}notrack"));
        }
        if !self.helper.is_empty() {
            out.push_str(&format!(" {p}helper "));
            out.push_str(&text(&self.helper));
        }
        if !self.timeout.is_empty() {
            out.push_str(&format!(" {p}timeout "));
            out.push_str(&text(&self.timeout));
        }
        if self.ct_events != 0 {
            save_events(out, &format!("{p}ctevents"), CT_EVENTS, self.ct_events);
        }
        if self.exp_events != 0 {
            save_events(out, &format!("{p}expevents"), EXP_EVENTS, self.exp_events);
        }
        let dirs = self.flags & (XT_CT_ZONE_DIR_ORIG | XT_CT_ZONE_DIR_REPL);
        let dir = if dirs == XT_CT_ZONE_DIR_ORIG {
            "-orig"
        } else if dirs == XT_CT_ZONE_DIR_REPL {
            "-reply"
        } else {
            ""
        };
        if self.flags & XT_CT_ZONE_MARK != 0 {
            out.push_str(&format!(" {p}zone{dir} mark"));
        } else if self.zone != 0 {
            out.push_str(&format!(" {p}zone{dir} {}", self.zone));
        }
    }
}

fn parse_events(table: &[(&str, u32)], s: &str, option: &str) -> Result<u32, ParseError> {
    let mut mask = 0;
    for t in s.split(',') {
        let bit = table
            .iter()
            .find(|(n, _)| *n == t)
            .map(|(_, b)| *b)
            .ok_or_else(|| ParseError::bad(option, format!("Unknown event type \"{t}\"")))?;
        mask |= 1 << bit;
    }
    Ok(mask)
}

fn save_events(out: &mut String, option: &str, table: &[(&str, u32)], mask: u32) {
    out.push_str(&format!(" {option} "));
    let names: Vec<&str> = table
        .iter()
        .filter(|(_, b)| mask & (1 << b) != 0)
        .map(|(n, _)| *n)
        .collect();
    out.push_str(&names.join(","));
}

impl Extension for Ct {
    fn desc(&self) -> &'static ExtDesc {
        if self.is_alias() {
            &NOTRACK
        } else {
            &CT
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let shown = opt.shown();
        match opt.name {
            "notrack" => self.flags |= XT_CT_NOTRACK,
            "helper" => self.helper = truncate_bytes(val.text(), HELPER_CAP),
            "timeout" => self.timeout = truncate_bytes(val.text(), TIMEOUT_CAP),
            "ctevents" => self.ct_events = parse_events(CT_EVENTS, val.text(), &shown)?,
            "expevents" => self.exp_events = parse_events(EXP_EVENTS, val.text(), &shown)?,
            "zone" | "zone-orig" | "zone-reply" => {
                if opt.name == "zone-orig" {
                    self.flags |= XT_CT_ZONE_DIR_ORIG;
                }
                if opt.name == "zone-reply" {
                    self.flags |= XT_CT_ZONE_DIR_REPL;
                }
                let v = val.text();
                self.zone = 0;
                if v.eq_ignore_ascii_case("mark") {
                    self.flags |= XT_CT_ZONE_MARK;
                } else {
                    self.zone = strtoul_full(v, 0, 65535).ok_or_else(|| {
                        ParseError::bad(&shown, format!("Cannot parse {v} as a zone ID"))
                    })? as u16;
                }
            }
            _ => {
                return Err(ParseError::UnknownOption {
                    option: shown.to_string(),
                })
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("CT", 2, INFO2.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if !self.is_alias() {
            self.dump("--", out);
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        if self.is_alias() {
            out.push_str(" NOTRACK");
            return;
        }
        out.push_str(" CT");
        self.dump("", out);
    }

    fn save_name(&self) -> &str {
        if self.is_alias() {
            "NOTRACK"
        } else {
            "CT"
        }
    }

    crate::ext_boilerplate!();
}

/// `struct xt_ct_target_info` (rev 0), field by field: no timeout; the template pointer
/// is the kernel's.
static INFO0: XtStruct<Ct> = XtStruct::new(
    "xt_ct_target_info",
    size_of::<xt_ct_target_info>(),
    0,
    &[
        xt_field!(xt_ct_target_info, flags: U16 => flags),
        xt_field!(xt_ct_target_info, zone: U16 => zone),
        xt_field!(xt_ct_target_info, ct_events: U32 => ct_events),
        xt_field!(xt_ct_target_info, exp_events: U32 => exp_events),
        xt_field!(xt_ct_target_info, helper: CBytes(HELPER_CAP) => helper),
        xt_field!(xt_ct_target_info, ct: Kernel),
    ],
);

/// `struct xt_ct_target_info_v1`, field by field, shared by revisions 1 and 2.
const FIELDS_V1: &[Field<Ct>] = &[
    xt_field!(xt_ct_target_info_v1, flags: U16 => flags),
    xt_field!(xt_ct_target_info_v1, zone: U16 => zone),
    xt_field!(xt_ct_target_info_v1, ct_events: U32 => ct_events),
    xt_field!(xt_ct_target_info_v1, exp_events: U32 => exp_events),
    xt_field!(xt_ct_target_info_v1, helper: CBytes(HELPER_CAP) => helper),
    xt_field!(xt_ct_target_info_v1, timeout: CBytes(TIMEOUT_CAP) => timeout),
    xt_field!(xt_ct_target_info_v1, ct: Kernel),
];

/// Revision 1 (`xt_ct_target_info_v1`, no NOTRACK alias).
static INFO1: XtStruct<Ct> = XtStruct::new(
    "xt_ct_target_info_v1",
    size_of::<xt_ct_target_info_v1>(),
    1,
    FIELDS_V1,
);

/// Revision 2 (`xt_ct_target_info_v1`), the one written.
static INFO2: XtStruct<Ct> = XtStruct::new(
    "xt_ct_target_info_v1",
    size_of::<xt_ct_target_info_v1>(),
    2,
    FIELDS_V1,
);

/// Every revision read.
static INFO: XtRevs<Ct> = XtRevs(&[&INFO0, &INFO1, &INFO2]);

fn decode_ct(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let ct = INFO.decode(rev, info)?;
    // Only revision 2 knows the NOTRACK alias.
    if rev == 1 && ct.flags & XT_CT_NOTRACK_ALIAS != 0 {
        return None;
    }
    Some(Box::new(ct))
}

/// The `NOTRACK` target of old kernels (no info).
fn decode_notrack(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    (rev == 0 && info.is_empty()).then(|| Box::new(Ct::notrack()) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::ext::base::opts::feed;

    fn ct(args: &[(&str, &str)]) -> Ct {
        let mut c = Ct::default();
        for (o, v) in args {
            feed(&mut c, IpFamily::V4, None, o, v).unwrap();
        }
        c
    }

    fn saved(c: &Ct) -> String {
        let mut s = String::new();
        c.save(IpFamily::V4, &mut s);
        s
    }

    #[test]
    fn zones_print_as_iptables() {
        assert_eq!(saved(&ct(&[("zone", "0")])), "");
        assert_eq!(
            saved(&ct(&[("zone-orig", "1"), ("zone-reply", "2")])),
            " --zone 2"
        );
        assert_eq!(
            saved(&ct(&[("zone", "1"), ("zone-orig", "2")])),
            " --zone-orig 2"
        );
        assert_eq!(
            saved(&ct(&[("zone", "mark"), ("zone-orig", "5")])),
            " --zone-orig mark"
        );
        assert_eq!(saved(&ct(&[("zone-reply", "MARK")])), " --zone-reply mark");
    }

    #[test]
    fn events() {
        assert_eq!(
            saved(&ct(&[("ctevents", "secmark,new")])),
            " --ctevents new,secmark"
        );
        let mut c = Ct::default();
        let name = |i: usize| CT.options[i].name;
        assert!(feed(&mut c, IpFamily::V4, None, name(3), "new,").is_err());
        assert!(feed(&mut c, IpFamily::V4, None, name(4), "destroy").is_err());
    }

    #[test]
    fn timeout_round_trip() {
        let c = ct(&[("helper", "ftp"), ("timeout", "tcp-short"), ("zone", "4")]);
        let ectx = EncodeCtx {
            sets: &crate::ipt::ext::NoSets,
            floor: crate::ipt::ReaderFloor::UNPINNED,
            family: IpFamily::V4,
            proto: None,
            table: "raw",
            chain: "PREROUTING",
        };
        let mut out = Vec::new();
        c.encode(&ectx, &mut out).unwrap();
        let Expr::Target(t) = &out[0] else {
            panic!("not a target")
        };
        assert_eq!((&*t.name, t.rev, t.info.len()), ("CT", 2, 72));
        let dctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let back = decode_ct(t.rev, &t.info, &dctx).unwrap();
        assert!(back.eq_dyn(&c));
        let mut s = String::new();
        back.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --helper ftp --timeout tcp-short --zone 4");
    }

    #[test]
    fn notrack_alias() {
        let n = Ct::notrack();
        assert_eq!(n.save_name(), "NOTRACK");
        assert_eq!(saved(&n), "");
    }

    #[test]
    fn repeated_option() {
        let e = crate::ipt::parse_rule_str(IpFamily::V4, "-j CT --zone 1 --zone 2")
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("CT: option \"--zone\" can only be used once."),
            "{e}"
        );
    }
}
