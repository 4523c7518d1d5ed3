//! `cgroup`: the control group of the socket that sends the packet (`--cgroup classid`, the
//! net_cls class, or `--path path`, a cgroup2 path relative to its root; one of the two).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `cgroup` match, rev 2,
//! `xt_cgroup_info_v2`, whose path buffer also holds the class ID. The kernel refuses a
//! rule with both or neither (`RULE_APPEND failed (Invalid argument)`), as it refuses
//! iptables-nft's.

use std::mem::offset_of;

use iptnl_sys::xt::{xt_cgroup_info_v2, XT_CGROUP_PATH_MAX};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, save_string, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind,
    Extension, Opt, ParseCtx, PrintCtx, Val, XtBuf, XtView,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

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

impl Cgroup {
    fn to_xt(&self) -> Vec<u8> {
        let mut b = XtBuf::of::<xt_cgroup_info_v2>();
        b.put_u8(
            offset_of!(xt_cgroup_info_v2, has_path),
            self.path.is_some() as u8,
        );
        b.put_u8(
            offset_of!(xt_cgroup_info_v2, has_classid),
            self.classid.is_some() as u8,
        );
        b.put_u8(
            offset_of!(xt_cgroup_info_v2, invert_path),
            self.invert_path as u8,
        );
        b.put_u8(
            offset_of!(xt_cgroup_info_v2, invert_classid),
            self.invert_classid as u8,
        );
        let at = offset_of!(xt_cgroup_info_v2, path);
        // The path and the class ID share one union: iptables writes the path, then the
        // class ID over its first bytes.
        if let Some(p) = &self.path {
            b.put_str(at, XT_CGROUP_PATH_MAX, p);
        }
        if let Some(id) = self.classid {
            b.put(at, &id.to_ne_bytes());
        }
        b.into_vec()
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
    let v = XtView::of_rev::<xt_cgroup_info_v2>(rev, 2, info)?;
    let flag = |off| match v.u8(off) {
        Some(0) => Some(false),
        Some(1) => Some(true),
        _ => None,
    };
    let has_path = flag(offset_of!(xt_cgroup_info_v2, has_path))?;
    let has_classid = flag(offset_of!(xt_cgroup_info_v2, has_classid))?;
    let at = offset_of!(xt_cgroup_info_v2, path);
    let c = Cgroup {
        path: if has_path && !has_classid {
            Some(v.str(at, XT_CGROUP_PATH_MAX)?)
        } else {
            None
        },
        invert_path: flag(offset_of!(xt_cgroup_info_v2, invert_path))?,
        classid: if has_classid {
            let b = v.bytes(at, 4)?;
            Some(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        } else {
            None
        },
        invert_classid: flag(offset_of!(xt_cgroup_info_v2, invert_classid))?,
    };
    // Both at once cannot be shown (the class ID overwrote the path); such a rule, which
    // the kernel refuses anyway, is carried whole.
    if has_path && has_classid {
        return None;
    }
    (c.to_xt() == info).then(|| Box::new(c) as _)
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
