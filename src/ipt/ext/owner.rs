//! `owner`: the owner of the socket of a locally generated packet (`--uid-owner`,
//! `--gid-owner`, `--socket-exists`, `--suppl-groups`). The kernel allows it in OUTPUT and
//! POSTROUTING only.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `owner` match, rev 1, `xt_owner_match_info`
//! (20 bytes, 24 padded). User and group names are looked up in `/etc/passwd` and
//! `/etc/group`; iptables-save prints numbers.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_owner_match_info, XT_OWNER_GID, XT_OWNER_MASK, XT_OWNER_SOCKET, XT_OWNER_SUPPL_GROUPS,
    XT_OWNER_UID,
};

use super::base::libxt::{bit_if, strtoul_prefix};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::sysdb::{self, Db};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `owner` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "owner",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("uid-owner", STR).inv(),
        Opt::new("gid-owner", STR).inv(),
        Opt::flag("socket-exists").inv(),
        Opt::flag("suppl-groups"),
    ]),
    new: |_| Box::new(Owner::default()),
    xt_names: &["owner"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m owner`, as in `struct xt_owner_match_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Owner {
    /// User ID range.
    pub uid: [u32; 2],
    /// Group ID range.
    pub gid: [u32; 2],
    /// `XT_OWNER_*` tests in use.
    pub matched: u8,
    /// `XT_OWNER_*` tests negated.
    pub invert: u8,
}

/// Looks `name` up in a colon-separated database (`/etc/passwd`, `/etc/group`): the third
/// field of the first line whose first field is `name`.
fn lookup_id(db: Db, name: &str) -> Option<u32> {
    let text = sysdb::text(db)?;
    text.lines().find_map(|l| {
        let mut f = l.split(':');
        if f.next()? != name {
            return None;
        }
        f.next()?;
        f.next()?.trim().parse().ok()
    })
}

/// Parses `id`, `id-id` or `id:id` (numbers up to 4294967294), as `owner_parse_range`.
fn parse_range(s: &str) -> Option<[u32; 2]> {
    const MAX: u64 = u32::MAX as u64 - 1;
    let (from, rest) = strtoul_prefix(s)?;
    if from > MAX {
        return None;
    }
    let mut to = from;
    let mut rest = rest;
    if let Some(r) = rest.strip_prefix(['-', ':']) {
        let (t, r2) = strtoul_prefix(r)?;
        if t > MAX {
            return None;
        }
        to = t;
        rest = r2;
    }
    rest.is_empty().then_some([from as u32, to as u32])
}

fn parse_ids(opt: &str, db: Db, v: &str) -> Result<[u32; 2], ParseError> {
    let shown = format!("--{opt}");
    let r = match lookup_id(db, v) {
        Some(id) => [id, id],
        None => {
            parse_range(v).ok_or_else(|| ParseError::bad(&shown, format!("Bad value \"{v}\"")))?
        }
    };
    // The kernel refuses a reversed range.
    if r[0] > r[1] {
        return Err(ParseError::bad(
            &shown,
            format!("range \"{v}\" is reversed (min > max)"),
        ));
    }
    Ok(r)
}

/// One bound of an id range of `xt_owner_match_info`, held at `$p[$i]`.
macro_rules! bound {
    ($cf:ident, $p:ident[$i:literal]) => {
        Field {
            name: stringify!($cf),
            at: offset_of!(xt_owner_match_info, $cf),
            kind: Kind::U32(|s| s.$p[$i], |s, v| s.$p[$i] = v),
        }
    };
}

/// `struct xt_owner_match_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Owner> = XtStruct::new(
    "xt_owner_match_info",
    size_of::<xt_owner_match_info>(),
    1,
    &[
        bound!(uid_min, uid[0]),
        bound!(uid_max, uid[1]),
        bound!(gid_min, gid[0]),
        bound!(gid_max, gid[1]),
        xt_field!(xt_owner_match_info, r#match: U8 => matched),
        xt_field!(xt_owner_match_info, invert: U8 => invert),
    ],
);

impl Owner {
    /// Appends `[ !] label` when the test `bit` is on; tells whether it was.
    fn item(&self, out: &mut String, bit: u8, label: &str) -> bool {
        if self.matched & bit == 0 {
            return false;
        }
        save_inv(out, self.invert & bit != 0);
        out.push(' ');
        out.push_str(label);
        true
    }
}

fn save_range(out: &mut String, r: [u32; 2]) {
    if r[0] == r[1] {
        out.push_str(&format!(" {}", r[0]));
    } else {
        out.push_str(&format!(" {}-{}", r[0], r[1]));
    }
}

impl Extension for Owner {
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
        let bit = match opt.name {
            "uid-owner" => {
                self.uid = parse_ids(opt.name, Db::Passwd, val.text())?;
                XT_OWNER_UID
            }
            "gid-owner" => {
                self.gid = parse_ids(opt.name, Db::Group, val.text())?;
                XT_OWNER_GID
            }
            "socket-exists" => XT_OWNER_SOCKET,
            _ => {
                if self.matched & XT_OWNER_GID == 0 {
                    return Err(ParseError::bad(
                        "--suppl-groups",
                        "you need to use --gid-owner first",
                    ));
                }
                XT_OWNER_SUPPL_GROUPS
            }
        };
        self.matched |= bit;
        self.invert |= bit_if(inv, bit);
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.matched == 0 {
            return Err(ParseError::Invalid(
                "owner: At least one of --uid-owner, --gid-owner or --socket-exists is required"
                    .into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("owner", 1, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.item(out, XT_OWNER_SOCKET, "--socket-exists");
        if self.item(out, XT_OWNER_UID, "--uid-owner") {
            save_range(out, self.uid);
        }
        if self.item(out, XT_OWNER_GID, "--gid-owner") {
            save_range(out, self.gid);
        }
        self.item(out, XT_OWNER_SUPPL_GROUPS, "--suppl-groups");
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        use crate::ipt::ext::base::names::{group_name, user_name};
        let id = |out: &mut String, r: [u32; 2], name: fn(u32) -> Option<&'static str>| {
            if r[0] == r[1] && !ctx.numeric {
                if let Some(n) = name(r[0]) {
                    out.push(' ');
                    out.push_str(n);
                    return;
                }
            }
            save_range(out, r);
        };
        self.item(out, XT_OWNER_SOCKET, "owner socket exists");
        if self.item(out, XT_OWNER_UID, "owner UID match") {
            id(out, self.uid, user_name);
        }
        if self.item(out, XT_OWNER_GID, "owner GID match") {
            id(out, self.gid, group_name);
        }
        self.item(out, XT_OWNER_SUPPL_GROUPS, "incl. suppl. groups");
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let o = INFO.decode(rev, info)?;
    // What iptables cannot print: unknown bits, a negated --suppl-groups or an inversion of
    // a test not in use, ranges of an unused test.
    if o.matched & !XT_OWNER_MASK != 0
        || o.matched == 0
        || o.invert & !o.matched != 0
        || o.invert & XT_OWNER_SUPPL_GROUPS != 0
        || (o.matched & XT_OWNER_SUPPL_GROUPS != 0 && o.matched & XT_OWNER_GID == 0)
        || (o.matched & XT_OWNER_UID == 0 && o.uid != [0, 0])
        || (o.matched & XT_OWNER_GID == 0 && o.gid != [0, 0])
    {
        return None;
    }
    Some(Box::new(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("0-100"), Some([0, 100]));
        assert_eq!(parse_range("0:100"), Some([0, 100]));
        assert_eq!(parse_range("0x10"), Some([16, 16]));
        assert_eq!(parse_range("4294967294"), Some([4294967294, 4294967294]));
        assert_eq!(parse_range("4294967295"), None);
        assert_eq!(parse_range("5-"), None);
        assert_eq!(parse_range("5-6-7"), None);
        assert!(parse_ids("uid-owner", Db::Passwd, "100-5").is_err());
    }

    #[test]
    fn root_resolves() {
        if lookup_id(Db::Passwd, "root").is_some() {
            assert_eq!(parse_ids("uid-owner", Db::Passwd, "root").unwrap(), [0, 0]);
        }
    }
}
