//! `cgroup`: the control group of the socket that sends the packet (`--cgroup classid`, the
//! net_cls class, or `--path path`, a cgroup2 path relative to its root; one of the two).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `cgroup` match, rev 2,
//! `xt_cgroup_info_v2`, whose path buffer also holds the class ID. The kernel refuses a
//! rule with both or neither (`RULE_APPEND failed (Invalid argument)`), as it refuses
//! iptables-nft's.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{xt_cgroup_info_v2, XT_CGROUP_PATH_MAX};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, save_string, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind,
    Extension, Opt, ParseCtx, PrintCtx, Val,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `cgroup` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "cgroup",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("path", STR).inv(),
        Opt::new("cgroup", U32).inv(),
    ]),
    new: |_| Box::new(Cgroup::default()),
    xt_names: &["cgroup"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m cgroup`, as in `struct xt_cgroup_info_v2`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cgroup {
    /// The cgroup2 path (`--path`), when given.
    pub path: Option<String>,
    /// `! --path`.
    pub invert_path: bool,
    /// The net_cls class ID (`--cgroup`), when given.
    pub classid: Option<u32>,
    /// `! --cgroup`.
    pub invert_classid: bool,
}

/// The `path` / `classid` union: iptables writes the path, then the class ID over its
/// first bytes.
fn put_union(s: &Cgroup, field: &mut [u8]) {
    if let Some(p) = &s.path {
        let n = p.len().min(XT_CGROUP_PATH_MAX - 1);
        field[..n].copy_from_slice(&p.as_bytes()[..n]);
    }
    if let Some(id) = s.classid {
        field[..4].copy_from_slice(&id.to_ne_bytes());
    }
}

/// Reads the union as the flags read before it say: the class ID, or the path (up to its
/// NUL, lossy). Both at once cannot be shown (the class ID overwrote the path): such a
/// rule, which the kernel refuses anyway, is carried whole.
fn get_union(s: &mut Cgroup, field: &[u8]) -> Option<()> {
    match (&s.path, s.classid) {
        (Some(_), Some(_)) => return None,
        (Some(_), None) => {
            let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
            s.path = Some(String::from_utf8_lossy(&field[..end]).into_owned());
        }
        (None, Some(_)) => s.classid = Some(u32::from_ne_bytes(field.get(..4)?.try_into().ok()?)),
        (None, None) => {}
    }
    Some(())
}

/// `struct xt_cgroup_info_v2`, field by field: it decodes the options and encodes them.
/// `has_path` and `has_classid` say which of the union's members is held (read first, as
/// a placeholder the union then fills); the kernel's pointer is written as zero and
/// compared, as it dumps it.
static INFO: XtStruct<Cgroup> = XtStruct::new(
    "xt_cgroup_info_v2",
    size_of::<xt_cgroup_info_v2>(),
    2,
    &[
        Field {
            name: "has_path",
            at: offset_of!(xt_cgroup_info_v2, has_path),
            kind: Kind::U8(
                |s| s.path.is_some() as u8,
                |s, v| s.path = (v != 0).then(String::new),
            ),
        },
        Field {
            name: "has_classid",
            at: offset_of!(xt_cgroup_info_v2, has_classid),
            kind: Kind::U8(
                |s| s.classid.is_some() as u8,
                |s, v| s.classid = (v != 0).then_some(0),
            ),
        },
        xt_field!(xt_cgroup_info_v2, invert_path: Flag => invert_path),
        xt_field!(xt_cgroup_info_v2, invert_classid: Flag => invert_classid),
        Field {
            name: "path",
            at: offset_of!(xt_cgroup_info_v2, path),
            kind: Kind::Custom(XT_CGROUP_PATH_MAX, put_union, get_union),
        },
    ],
);

impl Cgroup {
    fn to_xt(&self) -> Vec<u8> {
        INFO.encode(self)
    }

    fn show(&self, save: bool, out: &mut String) {
        if let Some(p) = &self.path {
            if save {
                save_inv(out, self.invert_path);
                out.push_str(" --path");
                save_string(out, p);
            } else {
                out.push_str(if self.invert_path { " ! " } else { " " });
                out.push_str(p);
            }
        }
        if let Some(id) = self.classid {
            if save {
                save_inv(out, self.invert_classid);
                out.push_str(" --cgroup ");
            } else {
                out.push_str(if self.invert_classid { " ! " } else { " " });
            }
            out.push_str(&id.to_string());
        }
    }
}

impl Extension for Cgroup {
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
        if opt.name == "path" {
            let p = super::base::libxt::c_buffer_arg("--path", val.text(), XT_CGROUP_PATH_MAX)?;
            self.path = Some(p.to_owned());
            self.invert_path = inv;
        } else {
            self.classid = Some(val.uint() as u32);
            self.invert_classid = inv;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("cgroup", 2, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.show(true, out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" cgroup");
        self.show(false, out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    Some(Box::new(c))
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn classid_and_path() {
        assert_eq!(
            round("-m cgroup --cgroup 1").unwrap(),
            "-m cgroup --cgroup 1"
        );
        assert_eq!(
            round("-m cgroup ! --cgroup 0xffffffff").unwrap(),
            "-m cgroup ! --cgroup 4294967295"
        );
        assert_eq!(
            round("-m cgroup ! --path /").unwrap(),
            "-m cgroup ! --path \"/\""
        );
        assert_eq!(
            round("-m cgroup --path user.slice").unwrap(),
            "-m cgroup --path \"user.slice\""
        );
        assert!(round("-m cgroup --cgroup 4294967296").is_err());
        let long = format!("-m cgroup --path {}", "a".repeat(512));
        assert!(round(&long).is_err());
        let most = format!("-m cgroup --path {}", "a".repeat(511));
        assert!(round(&most).is_ok());
    }

    #[test]
    fn both_is_not_shown_as_either() {
        // Encoded (the kernel refuses it), but not decoded into a rule that says less.
        assert!(round("-m cgroup --cgroup 1 --path /").is_err());
    }
}
