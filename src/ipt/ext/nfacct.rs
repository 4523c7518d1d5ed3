//! `nfacct`: counts the packet in a named extended accounting object, created beforehand
//! with `nfacct add NAME` (`--nfacct-name NAME`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `nfacct` match, rev 1,
//! `xt_nfacct_match_info_v1`. A kernel without `xt_nfacct` refuses the rule as it refuses
//! iptables-nft's, and so does one without the named object (ENOENT).

use std::mem::size_of;

use iptnl_sys::xt::{xt_nfacct_match_info_v1, NFACCT_NAME_MAX};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_string, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Val,
};
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `nfacct` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "nfacct",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table(
        [Opt::new("nfacct-name", Ty::Str { min: 1, max: 0 }).mand()],
    ),
    new: |_| Box::new(Nfacct::default()),
    xt_names: &["nfacct"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m nfacct`, as in `struct xt_nfacct_match_info_v1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nfacct {
    /// The accounting object's name.
    pub name: String,
}

/// `struct xt_nfacct_match_info_v1`, field by field: it decodes the options and encodes
/// them; the kernel's pointer is not compared, as in iptables.
static INFO: XtStruct<Nfacct> = XtStruct::new(
    "xt_nfacct_match_info_v1",
    size_of::<xt_nfacct_match_info_v1>(),
    1,
    &[
        xt_field!(xt_nfacct_match_info_v1, name: Str(NFACCT_NAME_MAX) => name),
        xt_field!(xt_nfacct_match_info_v1, nfacct: Kernel),
    ],
);

impl Nfacct {
    /// `nfacct_print_name`: the option word, then the name as `xtables_save_string` puts
    /// it (with its own blank: iptables prints two).
    fn show(&self, pfx: &str, out: &mut String) {
        out.push(' ');
        out.push_str(pfx);
        out.push_str("nfacct-name ");
        save_string(out, &self.name);
    }
}

impl Extension for Nfacct {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let n = super::base::libxt::c_buffer_arg("--nfacct-name", val.text(), NFACCT_NAME_MAX)?;
        if n.contains('\n') {
            return Err(ParseError::Invalid(
                "Newlines not allowed in --nfacct-name".into(),
            ));
        }
        self.name = n.to_owned();
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("nfacct", 1, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.show("--", out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        self.show("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let n = INFO.decode_exact(rev, info)?;
    let ok = !n.name.is_empty() && !n.name.contains('\n');
    ok.then(|| Box::new(n) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn names() {
        assert_eq!(
            round("-m nfacct --nfacct-name test").unwrap(),
            "-m nfacct --nfacct-name  test"
        );
        assert_eq!(
            round("-m nfacct --nfacct-name a.b").unwrap(),
            "-m nfacct --nfacct-name  \"a.b\""
        );
        assert!(round("-m nfacct").is_err());
        assert!(round(&format!("-m nfacct --nfacct-name {}", "a".repeat(32))).is_err());
        assert!(round(&format!("-m nfacct --nfacct-name {}", "a".repeat(31))).is_ok());
        assert_eq!(
            crate::ipt::parse_rule(IpFamily::V4, &["-m", "nfacct", "--nfacct-name", "a\nb"])
                .unwrap_err()
                .to_string(),
            "Newlines not allowed in --nfacct-name"
        );
    }
}
