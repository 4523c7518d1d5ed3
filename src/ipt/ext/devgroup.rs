//! `devgroup`: the device group of the input or output interface (`--src-group`,
//! `--dst-group`, each `value[/mask]` or a name of `/etc/iproute2/group`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `devgroup` match, rev 0, `xt_devgroup_info`
//! (20 bytes, 24 padded).

use std::mem::size_of;
use std::sync::OnceLock;

use iptnl_sys::xt::{
    xt_devgroup_info, XT_DEVGROUP_INVERT_DST, XT_DEVGROUP_INVERT_SRC, XT_DEVGROUP_MATCH_DST,
    XT_DEVGROUP_MATCH_SRC,
};

use super::base::libxt::{lmap, parse_val_mask, print_val_mask, require_option};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::sysdb::Db;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `devgroup` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "devgroup",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("src-group", STR).inv(),
        Opt::new("dst-group", STR).inv(),
    ]),
    new: |_| Box::new(DevGroup::default()),
    xt_names: &["devgroup"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The device group names of `/etc/iproute2/group` (`None` when it has none).
fn groups() -> Option<&'static [(u32, String)]> {
    static CACHE: OnceLock<Vec<(u32, String)>> = OnceLock::new();
    lmap(&CACHE, Db::DevGroups)
}

/// Options of `-m devgroup`, as in `struct xt_devgroup_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DevGroup {
    /// `XT_DEVGROUP_*` bits.
    pub flags: u32,
    /// Input interface group value.
    pub src_group: u32,
    /// Input interface group mask.
    pub src_mask: u32,
    /// Output interface group value.
    pub dst_group: u32,
    /// Output interface group mask.
    pub dst_mask: u32,
}

/// `struct xt_devgroup_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<DevGroup> = XtStruct::new(
    "xt_devgroup_info",
    size_of::<xt_devgroup_info>(),
    0,
    &[
        xt_field!(xt_devgroup_info, flags: U32 => flags),
        xt_field!(xt_devgroup_info, src_group: U32 => src_group),
        xt_field!(xt_devgroup_info, src_mask: U32 => src_mask),
        xt_field!(xt_devgroup_info, dst_group: U32 => dst_group),
        xt_field!(xt_devgroup_info, dst_mask: U32 => dst_mask),
    ],
);

impl DevGroup {
    /// `devgroup_show`: both tests with prefix `pfx` (`--` for save), names unless `numeric`.
    fn show(&self, pfx: &str, numeric: bool, out: &mut String) {
        let names = if numeric { None } else { groups() };
        for (m, i, which, g, mask) in [
            (
                XT_DEVGROUP_MATCH_SRC,
                XT_DEVGROUP_INVERT_SRC,
                "src-group",
                self.src_group,
                self.src_mask,
            ),
            (
                XT_DEVGROUP_MATCH_DST,
                XT_DEVGROUP_INVERT_DST,
                "dst-group",
                self.dst_group,
                self.dst_mask,
            ),
        ] {
            if self.flags & m == 0 {
                continue;
            }
            if self.flags & i != 0 {
                out.push_str(" !");
            }
            out.push(' ');
            out.push_str(pfx);
            out.push_str(which);
            print_val_mask(out, g, mask, names);
        }
    }
}

impl Extension for DevGroup {
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
        let (g, m) = parse_val_mask("devgroup", opt.name, val.text(), groups())?;
        if opt.name == "src-group" {
            self.src_group = g;
            self.src_mask = m;
            self.flags |= XT_DEVGROUP_MATCH_SRC;
            if inv {
                self.flags |= XT_DEVGROUP_INVERT_SRC;
            }
        } else {
            self.dst_group = g;
            self.dst_mask = m;
            self.flags |= XT_DEVGROUP_MATCH_DST;
            if inv {
                self.flags |= XT_DEVGROUP_INVERT_DST;
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        require_option(
            ctx.given,
            "devgroup match: You must specify either '--src-group' or '--dst-group'",
        )
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("devgroup", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.show("--", false, out);
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        self.show("", ctx.numeric, out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let d = INFO.decode_exact(rev, info)?;
    let all = XT_DEVGROUP_MATCH_SRC
        | XT_DEVGROUP_INVERT_SRC
        | XT_DEVGROUP_MATCH_DST
        | XT_DEVGROUP_INVERT_DST;
    let f = d.flags;
    // What save prints must be all there is: no negation or value of a test not given.
    let src_ok = f & XT_DEVGROUP_MATCH_SRC != 0
        || (f & XT_DEVGROUP_INVERT_SRC == 0 && d.src_group == 0 && d.src_mask == 0);
    let dst_ok = f & XT_DEVGROUP_MATCH_DST != 0
        || (f & XT_DEVGROUP_INVERT_DST == 0 && d.dst_group == 0 && d.dst_mask == 0);
    let ok = f & !all == 0 && f & (XT_DEVGROUP_MATCH_SRC | XT_DEVGROUP_MATCH_DST) != 0;
    (ok && src_ok && dst_ok).then(|| Box::new(d) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn groups() {
        assert_eq!(
            round("-m devgroup --src-group 0x1/0xff ! --dst-group 7").unwrap(),
            "-m devgroup --src-group 0x1/0xff ! --dst-group 0x7"
        );
        assert_eq!(
            round("-m devgroup ! --src-group 0x10").unwrap(),
            "-m devgroup ! --src-group 0x10"
        );
        assert_eq!(
            round("-m devgroup").unwrap_err(),
            "devgroup match: You must specify either '--src-group' or '--dst-group'"
        );
        assert!(round("-m devgroup --src-group 1/x").is_err());
        assert!(round("-m devgroup --src-group 4294967296/1").is_err());
    }
}
