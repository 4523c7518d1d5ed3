//! `quota2`: a named byte or packet quota that counts down, or with `--grow` a counter that
//! counts up (`[!] --quota N`, `--name`, `--packets`, `--no-change`). The module comes from
//! xtables-addons; a kernel without it refuses the rule as it refuses iptables'.
//!
//! Encoding (as iptables 1.8.11's libxt_quota2): the x_tables `quota2` match, rev 3,
//! `xt_quota_mtinfo2`.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_quota_mtinfo2, XT_QUOTA2_GROW, XT_QUOTA2_INVERT, XT_QUOTA2_NAME_LEN, XT_QUOTA2_NO_CHANGE,
    XT_QUOTA2_PACKET,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, STR};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `quota2` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "quota2",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("grow"),
        Opt::flag("no-change"),
        Opt::new("name", STR),
        Opt::new(
            "quota",
            Ty::Uint {
                min: 0,
                max: u64::MAX,
            },
        )
        .inv(),
        Opt::flag("packets"),
    ]),
    new: |_| Box::new(Quota2::default()),
    xt_names: &["quota2"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m quota2`, as in `struct xt_quota_mtinfo2`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quota2 {
    /// The name (empty for none).
    pub name: String,
    /// `XT_QUOTA2_*` bits.
    pub flags: u8,
    /// The quota.
    pub quota: u64,
}

/// `struct xt_quota_mtinfo2`, field by field: it decodes the options and encodes them; the
/// kernel's pointer is not compared.
static INFO: XtStruct<Quota2> = XtStruct::new(
    "xt_quota_mtinfo2",
    size_of::<xt_quota_mtinfo2>(),
    3,
    &[
        xt_field!(xt_quota_mtinfo2, name: Str(XT_QUOTA2_NAME_LEN) => name),
        xt_field!(xt_quota_mtinfo2, flags: U8 => flags),
        xt_field!(xt_quota_mtinfo2, quota: U64 => quota),
        xt_field!(xt_quota_mtinfo2, master: Kernel),
    ],
);

impl Quota2 {
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

impl Extension for Quota2 {
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
        match opt.name {
            "grow" => self.flags |= XT_QUOTA2_GROW,
            "no-change" => self.flags |= XT_QUOTA2_NO_CHANGE,
            "packets" => self.flags |= XT_QUOTA2_PACKET,
            "name" => {
                let n = super::base::libxt::c_buffer_arg("--name", val.text(), XT_QUOTA2_NAME_LEN)?;
                self.name = n.to_owned();
            }
            _ => {
                self.quota = val.uint();
                if inv {
                    self.flags |= XT_QUOTA2_INVERT;
                }
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("quota2", 3, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        // libxt_quota2 leaves a blank after each of its words.
        if self.has(XT_QUOTA2_INVERT) {
            out.push_str(" !");
        }
        if self.has(XT_QUOTA2_GROW) {
            out.push_str(" --grow ");
        }
        if self.has(XT_QUOTA2_NO_CHANGE) {
            out.push_str(" --no-change ");
        }
        if self.has(XT_QUOTA2_PACKET) {
            out.push_str(" --packets ");
        }
        if !self.name.is_empty() {
            out.push_str(&format!(" --name {} ", self.name));
        }
        out.push_str(&format!(" --quota {} ", self.quota));
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        if self.has(XT_QUOTA2_INVERT) {
            out.push_str(" !");
        }
        out.push_str(if self.has(XT_QUOTA2_GROW) {
            " counter"
        } else {
            " quota"
        });
        if !self.name.is_empty() {
            out.push_str(&format!(" {}:", self.name));
        }
        out.push_str(&format!(" {} ", self.quota));
        out.push_str(if self.has(XT_QUOTA2_PACKET) {
            "packets "
        } else {
            "bytes "
        });
        if self.has(XT_QUOTA2_NO_CHANGE) {
            out.push_str("(no-change mode) ");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let q = INFO.decode_exact(rev, info)?;
    let known = XT_QUOTA2_INVERT | XT_QUOTA2_GROW | XT_QUOTA2_PACKET | XT_QUOTA2_NO_CHANGE;
    // A name save can print as one word.
    let plain = !q.name.contains(|c: char| c.is_whitespace() || c == '"');
    (plain && q.flags & !known == 0).then(|| Box::new(q) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn quotas() {
        assert_eq!(
            round("-m quota2 --quota 5").unwrap(),
            "-m quota2 --quota 5 "
        );
        assert_eq!(
            round("-m quota2 --name web ! --quota 100 --packets --grow --no-change").unwrap(),
            "-m quota2 ! --grow  --no-change  --packets  --name web  --quota 100 "
        );
        assert_eq!(round("-m quota2").unwrap(), "-m quota2 --quota 0 ");
        assert!(round("-m quota2 --name abcdefghijklmnop").is_err());
        assert!(round("-m quota2 --quota 18446744073709551616").is_err());
    }
}
