//! `srh`: the fields of the IPv6 Segment Routing Header (IPv6 only; `--srh-next-hdr`,
//! `--srh-hdr-len-eq|gt|lt`, `--srh-segs-left-eq|gt|lt`, `--srh-last-entry-eq|gt|lt`,
//! `--srh-tag`, `--srh-psid`, `--srh-nsid`, `--srh-lsid`, each invertible).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `srh` match, rev 1, `ip6t_srh1` (108 bytes,
//! 112 padded); the SIDs and their masks stay zero unless given. Revision 0 (`ip6t_srh`,
//! without the SIDs) is decoded too.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    ip6t_srh, ip6t_srh1, IP6T_SRH_LAST_EQ, IP6T_SRH_LAST_GT, IP6T_SRH_LAST_LT, IP6T_SRH_LEN_EQ,
    IP6T_SRH_LEN_GT, IP6T_SRH_LEN_LT, IP6T_SRH_LSID, IP6T_SRH_MASK, IP6T_SRH_NEXTHDR,
    IP6T_SRH_NSID, IP6T_SRH_PSID, IP6T_SRH_SEGS_EQ, IP6T_SRH_SEGS_GT, IP6T_SRH_SEGS_LT,
    IP6T_SRH_TAG,
};

use super::base::libxt::ntop6;
use super::base::names::parse_host;
use super::base::opts::{parse_plen, U16, U8};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::xtstruct::{Field as XtField, Kind, XtRevs, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `srh` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "srh",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([
        Opt::new("srh-next-hdr", U8).inv(),
        Opt::new("srh-hdr-len-eq", U8).inv(),
        Opt::new("srh-hdr-len-gt", U8).inv(),
        Opt::new("srh-hdr-len-lt", U8).inv(),
        Opt::new("srh-segs-left-eq", U8).inv(),
        Opt::new("srh-segs-left-gt", U8).inv(),
        Opt::new("srh-segs-left-lt", U8).inv(),
        Opt::new("srh-last-entry-eq", U8).inv(),
        Opt::new("srh-last-entry-gt", U8).inv(),
        Opt::new("srh-last-entry-lt", U8).inv(),
        Opt::new("srh-tag", U16).inv(),
        Opt::custom("srh-psid").inv(),
        Opt::custom("srh-nsid").inv(),
        Opt::custom("srh-lsid").inv(),
    ]),
    new: |_| Box::new(Srh::default()),
    xt_names: &["srh"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Which field each numeric test reads.
#[derive(Clone, Copy)]
enum Field {
    NextHdr,
    HdrLen,
    SegsLeft,
    LastEntry,
    Tag,
}

/// The numeric tests in the order iptables prints them: (option, `-L` word, flag, field).
const TESTS: [(&str, &str, u16, Field); 11] = [
    ("srh-next-hdr", "next-hdr", IP6T_SRH_NEXTHDR, Field::NextHdr),
    (
        "srh-hdr-len-eq",
        "hdr-len-eq",
        IP6T_SRH_LEN_EQ,
        Field::HdrLen,
    ),
    (
        "srh-hdr-len-gt",
        "hdr-len-gt",
        IP6T_SRH_LEN_GT,
        Field::HdrLen,
    ),
    (
        "srh-hdr-len-lt",
        "hdr-len-lt",
        IP6T_SRH_LEN_LT,
        Field::HdrLen,
    ),
    (
        "srh-segs-left-eq",
        "segs-left-eq",
        IP6T_SRH_SEGS_EQ,
        Field::SegsLeft,
    ),
    (
        "srh-segs-left-gt",
        "segs-left-gt",
        IP6T_SRH_SEGS_GT,
        Field::SegsLeft,
    ),
    (
        "srh-segs-left-lt",
        "segs-left-lt",
        IP6T_SRH_SEGS_LT,
        Field::SegsLeft,
    ),
    (
        "srh-last-entry-eq",
        "last-entry-eq",
        IP6T_SRH_LAST_EQ,
        Field::LastEntry,
    ),
    (
        "srh-last-entry-gt",
        "last-entry-gt",
        IP6T_SRH_LAST_GT,
        Field::LastEntry,
    ),
    (
        "srh-last-entry-lt",
        "last-entry-lt",
        IP6T_SRH_LAST_LT,
        Field::LastEntry,
    ),
    ("srh-tag", "tag", IP6T_SRH_TAG, Field::Tag),
];

/// The SID tests: (option, `-L` word, flag).
const SIDS: [(&str, &str, u16); 3] = [
    ("srh-psid", "psid", IP6T_SRH_PSID),
    ("srh-nsid", "nsid", IP6T_SRH_NSID),
    ("srh-lsid", "lsid", IP6T_SRH_LSID),
];

/// Options of `-m srh`, as in `struct ip6t_srh1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Srh {
    /// The match revision: 1, or 0 when decoded from a revision-0 rule (no SIDs).
    pub rev: u32,
    /// Next Header value.
    pub next_hdr: u8,
    /// Hdr Ext Len value.
    pub hdr_len: u8,
    /// Segments Left value.
    pub segs_left: u8,
    /// Last Entry value.
    pub last_entry: u8,
    /// Tag value.
    pub tag: u16,
    /// Address and mask of the previous, next and last SID.
    pub sids: [([u8; 16], [u8; 16]); 3],
    /// `IP6T_SRH_*` tests present.
    pub flags: u16,
    /// `IP6T_SRH_INV_*` tests negated.
    pub invflags: u16,
}

impl Default for Srh {
    fn default() -> Srh {
        Srh {
            rev: 1,
            next_hdr: 0,
            hdr_len: 0,
            segs_left: 0,
            last_entry: 0,
            tag: 0,
            sids: [([0; 16], [0; 16]); 3],
            flags: 0,
            invflags: 0,
        }
    }
}

/// `xtables_ip6mask_to_cidr`: the prefix length of a mask, `-1` (printed unsigned) when it
/// is not contiguous.
fn mask_to_cidr(mask: &[u8; 16]) -> u32 {
    let bits = u128::from_be_bytes(*mask);
    let ones = bits.leading_ones();
    if ones == 128 || bits << ones == 0 {
        ones
    } else {
        u32::MAX
    }
}

/// `XTTYPE_HOSTMASK`: `addr[/mask]`, the mask a prefix length or an address-form mask,
/// all ones when not given; the address is not masked.
fn parse_sid(name: &str, s: &str) -> Result<([u8; 16], [u8; 16]), ParseError> {
    let shown = format!("--{name}");
    match s.split_once('/') {
        None => Ok((parse_host(IpFamily::V6, s, &shown)?, [0xff; 16])),
        Some((host, m)) => {
            let (_, mask) = parse_plen("srh", name, m, IpFamily::V6)?;
            Ok((parse_host(IpFamily::V6, host, &shown)?, mask))
        }
    }
}

impl Srh {
    fn field(&self, f: Field) -> u16 {
        match f {
            Field::NextHdr => self.next_hdr.into(),
            Field::HdrLen => self.hdr_len.into(),
            Field::SegsLeft => self.segs_left.into(),
            Field::LastEntry => self.last_entry.into(),
            Field::Tag => self.tag,
        }
    }

    fn to_xt(&self) -> Vec<u8> {
        let table = if self.rev == 0 { &SRH0 } else { &SRH1 };
        table.encode(self)
    }

    fn inv(&self, flag: u16) -> bool {
        self.invflags & flag != 0
    }
}

impl Extension for Srh {
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
        let flag = if let Some(&(_, _, flag, field)) = TESTS.iter().find(|t| t.0 == opt.name) {
            let v = val.uint();
            match field {
                Field::NextHdr => self.next_hdr = v as u8,
                Field::HdrLen => self.hdr_len = v as u8,
                Field::SegsLeft => self.segs_left = v as u8,
                Field::LastEntry => self.last_entry = v as u8,
                Field::Tag => self.tag = v as u16,
            }
            flag
        } else if let Some(i) = SIDS.iter().position(|s| s.0 == opt.name) {
            self.sids[i] = parse_sid(opt.name, val.text())?;
            SIDS[i].2
        } else {
            return Ok(());
        };
        self.flags |= flag;
        if inv {
            self.invflags |= flag;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("srh", self.rev, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        for (name, _, flag, field) in TESTS {
            if self.flags & flag != 0 {
                if self.inv(flag) {
                    out.push_str(" !");
                }
                out.push_str(&format!(" --{name} {}", self.field(field)));
            }
        }
        for (i, (name, _, flag)) in SIDS.into_iter().enumerate() {
            if self.flags & flag != 0 {
                if self.inv(flag) {
                    out.push_str(" !");
                }
                let (addr, mask) = &self.sids[i];
                out.push_str(&format!(" --{name} {}/{}", ntop6(addr), mask_to_cidr(mask)));
            }
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" srh");
        for (_, word, flag, field) in TESTS {
            if self.flags & flag != 0 {
                let inv = if self.inv(flag) { "!" } else { "" };
                out.push_str(&format!(" {word}:{inv}{}", self.field(field)));
            }
        }
        for (i, (_, word, flag)) in SIDS.into_iter().enumerate() {
            if self.flags & flag != 0 {
                let inv = if self.inv(flag) { "!" } else { "" };
                let (addr, mask) = &self.sids[i];
                out.push_str(&format!(
                    " {word} {inv} {}/{}",
                    ntop6(addr),
                    mask_to_cidr(mask)
                ));
            }
        }
    }

    crate::ext_boilerplate!();
}

/// One SID field: `$i` picks the previous, next or last SID, `$j` its address (0) or mask (1).
macro_rules! sid {
    ($cf:ident, $i:tt, $j:tt) => {
        XtField {
            name: stringify!($cf),
            at: offset_of!(ip6t_srh1, $cf),
            kind: Kind::Bytes(
                16,
                |s| &s.sids[$i].$j,
                |s, v| s.sids[$i].$j.copy_from_slice(v),
            ),
        }
    };
}

/// `struct ip6t_srh`, revision 0: no SIDs.
static SRH0: XtStruct<Srh> = XtStruct::new(
    "ip6t_srh",
    size_of::<ip6t_srh>(),
    0,
    &[
        xt_field!(ip6t_srh, next_hdr: U8 => next_hdr),
        xt_field!(ip6t_srh, hdr_len: U8 => hdr_len),
        xt_field!(ip6t_srh, segs_left: U8 => segs_left),
        xt_field!(ip6t_srh, last_entry: U8 => last_entry),
        xt_field!(ip6t_srh, tag: U16 => tag),
        xt_field!(ip6t_srh, mt_flags: U16 => flags),
        xt_field!(ip6t_srh, mt_invflags: U16 => invflags),
    ],
);

/// `struct ip6t_srh1`, revision 1: the SIDs with their masks.
static SRH1: XtStruct<Srh> = XtStruct::new(
    "ip6t_srh1",
    size_of::<ip6t_srh1>(),
    1,
    &[
        xt_field!(ip6t_srh1, next_hdr: U8 => next_hdr),
        xt_field!(ip6t_srh1, hdr_len: U8 => hdr_len),
        xt_field!(ip6t_srh1, segs_left: U8 => segs_left),
        xt_field!(ip6t_srh1, last_entry: U8 => last_entry),
        xt_field!(ip6t_srh1, tag: U16 => tag),
        sid!(psid_addr, 0, 0),
        sid!(nsid_addr, 1, 0),
        sid!(lsid_addr, 2, 0),
        sid!(psid_msk, 0, 1),
        sid!(nsid_msk, 1, 1),
        sid!(lsid_msk, 2, 1),
        xt_field!(ip6t_srh1, mt_flags: U16 => flags),
        xt_field!(ip6t_srh1, mt_invflags: U16 => invflags),
    ],
);

static SRH: XtRevs<Srh> = XtRevs(&[&SRH0, &SRH1]);

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let s = Srh {
        rev,
        ..SRH.decode(rev, info)?
    };
    // Only what the options can set: known tests, negations of given tests, a SID (with a
    // prefix mask) only when tested and the values of absent tests zero.
    let sid_flags = if rev == 0 {
        0
    } else {
        IP6T_SRH_PSID | IP6T_SRH_NSID | IP6T_SRH_LSID
    };
    let known = (IP6T_SRH_MASK & !(IP6T_SRH_PSID | IP6T_SRH_NSID | IP6T_SRH_LSID)) | sid_flags;
    if s.flags & !known != 0 || s.invflags & !s.flags != 0 {
        return None;
    }
    let mut canon = Srh {
        rev,
        flags: s.flags,
        invflags: s.invflags,
        ..Srh::default()
    };
    for (_, _, flag, field) in TESTS {
        if s.flags & flag != 0 {
            match field {
                Field::NextHdr => canon.next_hdr = s.next_hdr,
                Field::HdrLen => canon.hdr_len = s.hdr_len,
                Field::SegsLeft => canon.segs_left = s.segs_left,
                Field::LastEntry => canon.last_entry = s.last_entry,
                Field::Tag => canon.tag = s.tag,
            }
        }
    }
    for (i, (_, _, flag)) in SIDS.into_iter().enumerate() {
        if s.flags & flag != 0 {
            if mask_to_cidr(&s.sids[i].1) > 128 {
                return None;
            }
            canon.sids[i] = s.sids[i];
        }
    }
    (canon == s && canon.to_xt() == info).then(|| Box::new(canon) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V6, args)
    }

    #[test]
    fn fields_and_sids() {
        for r in [
            "-m srh --srh-next-hdr 17",
            "-m srh ! --srh-hdr-len-gt 8",
            "-m srh --srh-next-hdr 17 --srh-segs-left-eq 1 --srh-last-entry-eq 4 --srh-tag 0",
            "-m srh ! --srh-next-hdr 17 ! --srh-segs-left-eq 0 --srh-tag 0",
            "-m srh --srh-psid a::/64 --srh-nsid b::/128 --srh-lsid c::/0",
            "-m srh ! --srh-psid a::/64 ! --srh-nsid b::/128 ! --srh-lsid c::/0",
            "-m srh",
        ] {
            assert_eq!(round(r).unwrap(), r);
        }
        assert_eq!(
            round("-m srh --srh-psid a::").unwrap(),
            "-m srh --srh-psid a::/128"
        );
        assert!(round("-m srh --srh-next-hdr 256").is_err());
        assert!(round("-m srh --srh-tag 65536").is_err());
        assert!(round("-m srh --srh-psid a::/129").is_err());
        assert!(round("-m srh --srh-tag 1 --srh-tag 2").is_err());
        assert!(crate::ipt::ext::save_round(IpFamily::V4, "-m srh --srh-tag 1").is_err());
    }

    #[test]
    fn listing() {
        let spec = &crate::ipt::parse_rule(
            IpFamily::V6,
            &["-m", "srh", "!", "--srh-tag", "3", "--srh-psid", "a::/64"],
        )
        .unwrap()[0];
        let ext = &spec.matches[0];
        let mut s = String::new();
        ext.print(
            &crate::ipt::ext::PrintCtx {
                family: IpFamily::V6,
                proto: 0,
                numeric: true,
            },
            &mut s,
        );
        assert_eq!(s, " srh tag:!3 psid  a::/64");
    }
}
