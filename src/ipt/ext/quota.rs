//! `quota`: matches until a byte quota is used up (`--quota bytes`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `quota` match, rev 0, `xt_quota_info`
//! (24 bytes; the kernel-private `master` pointer is sent as zero and not compared).

use std::mem::size_of;

use iptnl_sys::xt::{xt_quota_info, XT_QUOTA_INVERT};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `quota` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "quota",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new(
        "quota",
        Ty::Uint {
            min: 0,
            max: u64::MAX,
        },
    )
    .inv()
    .mand()]),
    new: |_| Box::new(Quota::default()),
    xt_names: &["quota"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m quota`, as in `struct xt_quota_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quota {
    /// `XT_QUOTA_INVERT` or 0.
    pub flags: u32,
    /// The quota in bytes.
    pub quota: u64,
}

/// `struct xt_quota_info`, field by field: it decodes the options and encodes them. As in
/// iptables (`userspacesize` ends before `master`), the kernel's pointer is not compared.
static INFO: XtStruct<Quota> = XtStruct::new(
    "xt_quota_info",
    size_of::<xt_quota_info>(),
    0,
    &[
        xt_field!(xt_quota_info, flags: U32 => flags),
        xt_field!(xt_quota_info, quota: U64 => quota),
        xt_field!(xt_quota_info, master: Kernel),
    ],
);

impl Extension for Quota {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.quota = val.uint();
        if inv {
            self.flags |= XT_QUOTA_INVERT;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("quota", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.flags & XT_QUOTA_INVERT != 0);
        out.push_str(" --quota ");
        out.push_str(&self.quota.to_string());
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        // iptables prints no `!` here.
        out.push_str(" quota: ");
        out.push_str(&self.quota.to_string());
        out.push_str(" bytes");
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let q = INFO.decode_exact(rev, info)?;
    (q.flags & !XT_QUOTA_INVERT == 0).then(|| Box::new(q) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::{decode_rule, encode_rule, parse_rule, IpFamily};

    fn round(args: &[&str]) -> Result<String, String> {
        let spec = parse_rule(IpFamily::V4, args).map_err(|e| e.to_string())?;
        let r =
            encode_rule(&spec[0], IpFamily::V4, "filter", "INPUT").map_err(|e| e.to_string())?;
        Ok(decode_rule(&r, IpFamily::V4).unwrap().to_save_args())
    }

    #[test]
    fn quotas() {
        assert_eq!(
            round(&["-m", "quota", "--quota", "0"]).unwrap(),
            "-m quota --quota 0"
        );
        assert_eq!(
            round(&["-m", "quota", "!", "--quota", "18446744073709551615"]).unwrap(),
            "-m quota ! --quota 18446744073709551615"
        );
        assert!(round(&["-m", "quota", "--quota", "18446744073709551616"]).is_err());
        assert!(round(&["-m", "quota"]).is_err());
    }
}
