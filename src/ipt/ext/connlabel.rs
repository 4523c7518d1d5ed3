//! `connlabel`: a conntrack label bit of the connection (`--label bit|name`, `--set` to
//! set it as well). Names come from `/etc/xtables/connlabel.conf` (`bit name` lines).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `connlabel` match, rev 0,
//! `xt_connlabel_mtinfo`. The kernel refuses a bit it has no room for (above 127) with
//! ERANGE, as it refuses iptables-nft's.

use std::mem::size_of;
use std::sync::OnceLock;

use iptnl_sys::xt::{xt_connlabel_mtinfo, XT_CONNLABEL_OP_INVERT, XT_CONNLABEL_OP_SET};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::libxt::{strtoul_full, strtoul_prefix};
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::sysdb::{self, Db};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `connlabel` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "connlabel",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("label", Ty::Str { min: 1, max: 0 }).inv().mand(),
        Opt::flag("set"),
    ]),
    new: |_| Box::new(ConnLabel::default()),
    xt_names: &["connlabel"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The label names of `/etc/xtables/connlabel.conf`, as libnetfilter_conntrack reads
/// them: `bit name` per line (the bit in `strtoul`'s syntax, 0–127), `#` lines skipped.
pub fn parse_labels(text: &str) -> Vec<(u16, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let Some((bit, rest)) = strtoul_prefix(line) else {
            continue;
        };
        if bit > 127 || !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
            continue;
        }
        let name = rest.trim_matches(|c: char| c.is_ascii_whitespace());
        if !name.is_empty() {
            out.push((bit as u16, name.to_owned()));
        }
    }
    out
}

fn labels() -> &'static [(u16, String)] {
    static CACHE: OnceLock<Vec<(u16, String)>> = OnceLock::new();
    sysdb::table(&CACHE, Db::ConnLabels, parse_labels)
}

fn name_of(bit: u16) -> Option<&'static str> {
    labels()
        .iter()
        .find(|(b, n)| *b == bit && !n.is_empty())
        .map(|(_, n)| n.as_str())
}

/// Options of `-m connlabel`, as in `struct xt_connlabel_mtinfo`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConnLabel {
    /// The label bit.
    pub bit: u16,
    /// `XT_CONNLABEL_OP_*` bits.
    pub options: u16,
}

/// `struct xt_connlabel_mtinfo`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<ConnLabel> = XtStruct::new(
    "xt_connlabel_mtinfo",
    size_of::<xt_connlabel_mtinfo>(),
    0,
    &[
        xt_field!(xt_connlabel_mtinfo, bit: U16 => bit),
        xt_field!(xt_connlabel_mtinfo, options: U16 => options),
    ],
);

impl Extension for ConnLabel {
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
        if opt.name == "set" {
            self.options |= XT_CONNLABEL_OP_SET;
            return Ok(());
        }
        let s = val.text();
        // A number as is (iptables cuts one above 65535 to 16 bits, which names another
        // label: refused here), else a name of the label file.
        let bit = match strtoul_full(s, 0, u64::MAX) {
            Some(n) => u16::try_from(n).ok(),
            None => labels().iter().find(|(_, n)| n == s).map(|(b, _)| *b),
        };
        self.bit = bit.ok_or_else(|| {
            ParseError::Invalid(format!("label '{s}' not found or invalid value"))
        })?;
        if inv {
            self.options |= XT_CONNLABEL_OP_INVERT;
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("connlabel", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.options & XT_CONNLABEL_OP_INVERT != 0 {
            out.push_str(" !");
        }
        match name_of(self.bit) {
            Some(n) => out.push_str(&format!(" --label \"{n}\"")),
            None => out.push_str(&format!(" --label \"{}\"", self.bit)),
        }
        if self.options & XT_CONNLABEL_OP_SET != 0 {
            out.push_str(" --set");
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        out.push_str(" connlabel");
        if self.options & XT_CONNLABEL_OP_INVERT != 0 {
            out.push_str(" !");
        }
        match name_of(self.bit).filter(|_| !ctx.numeric) {
            Some(n) => out.push_str(&format!(" '{n}'")),
            None => out.push_str(&format!(" {}", self.bit)),
        }
        if self.options & XT_CONNLABEL_OP_SET != 0 {
            out.push_str(" set");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    let known = XT_CONNLABEL_OP_INVERT | XT_CONNLABEL_OP_SET;
    (c.options & !known == 0).then(|| Box::new(c) as _)
}

#[cfg(test)]
mod tests {
    use super::parse_labels;
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn bits() {
        assert_eq!(
            round("-m connlabel --label 40").unwrap(),
            "-m connlabel --label \"40\""
        );
        assert_eq!(
            round("-m connlabel ! --label 0x29 --set").unwrap(),
            "-m connlabel ! --label \"41\" --set"
        );
        assert_eq!(
            round("-m connlabel --label 65536").unwrap_err(),
            "label '65536' not found or invalid value"
        );
        assert_eq!(
            round("-m connlabel --label foobar_not_there").unwrap_err(),
            "label 'foobar_not_there' not found or invalid value"
        );
        assert!(round("-m connlabel --set").is_err());
        assert!(round("-m connlabel --label 1 --label 2").is_err());
    }

    #[test]
    fn label_file() {
        let t = "# bits\n0 eth0-in\n 1\tweb  \n128 big\n2x bad\n0x3 hex\n";
        assert_eq!(
            parse_labels(t),
            vec![
                (0, "eth0-in".to_owned()),
                (1, "web".to_owned()),
                (3, "hex".to_owned())
            ]
        );
    }
}
