//! `TCPOPTSTRIP`: remove TCP options from TCP packets (`libxt_TCPOPTSTRIP.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `TCPOPTSTRIP` target, rev 0,
//! `xt_tcpoptstrip_target_info`: a 256-bit map of option kinds (kind `k` is bit `k & 31` of
//! word `k >> 5`). `--strip-options` takes a comma-separated list of kinds 2–255 or the names
//! `wscale`, `mss`, `sack-permitted`, `sack`, `timestamp`, `md5`. Without it the map is empty
//! and nothing is saved or listed. The kernel wants `-p tcp` and the mangle table.

use std::mem::size_of;

use iptnl_sys::xt::xt_tcpoptstrip_target_info;

use super::base::libxt::strtoul_full;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j TCPOPTSTRIP`.
pub static DESC: ExtDesc = ExtDesc {
    name: "TCPOPTSTRIP",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::new("strip-options", STR)]),
    new: |_| Box::new(Tcpoptstrip::default()),
    xt_names: &["TCPOPTSTRIP"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The option names iptables knows, with their kinds (`tcp_optionmap`).
const NAMES: &[(&str, u8)] = &[
    ("wscale", 3),
    ("mss", 2),
    ("sack-permitted", 4),
    ("sack", 5),
    ("timestamp", 8),
    ("md5", 19),
];

/// `-j TCPOPTSTRIP [--strip-options LIST]`, as `struct xt_tcpoptstrip_target_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tcpoptstrip {
    /// The option kinds to strip, a bit each.
    pub strip_bmap: [u32; 8],
}

/// `struct xt_tcpoptstrip_target_info`, field by field: it decodes the options and encodes
/// them.
static INFO: XtStruct<Tcpoptstrip> = XtStruct::new(
    "xt_tcpoptstrip_target_info",
    size_of::<xt_tcpoptstrip_target_info>(),
    0,
    &[xt_field!(xt_tcpoptstrip_target_info, strip_bmap: U32Array(8) => strip_bmap)],
);

impl Tcpoptstrip {
    fn test(&self, kind: u8) -> bool {
        self.strip_bmap[usize::from(kind >> 5)] & (1 << (kind & 31)) != 0
    }

    fn set(&mut self, kind: u8) {
        self.strip_bmap[usize::from(kind >> 5)] |= 1 << (kind & 31);
    }

    /// The kinds as a list, by name unless `numeric` (`tcpoptstrip_print_list`).
    fn list(&self, numeric: bool) -> String {
        let mut out = String::new();
        for k in 0..=255u8 {
            if !self.test(k) {
                continue;
            }
            if !out.is_empty() {
                out.push(',');
            }
            // The last name of a kind wins, as in iptables (no kind has two).
            match NAMES.iter().rev().find(|(_, v)| *v == k) {
                Some((n, _)) if !numeric => out.push_str(n),
                _ => out.push_str(&k.to_string()),
            }
        }
        out
    }
}

/// `Bad TCP option value "X"` and the other refusals of `parse_list`.
fn refuse(reason: String) -> ParseError {
    ParseError::bad("--strip-options", reason)
}

impl Extension for Tcpoptstrip {
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
        for word in val.text().split(',') {
            let kind = match NAMES.iter().find(|(n, _)| *n == word) {
                Some(&(_, k)) => u64::from(k),
                None => strtoul_full(word, 0, 255)
                    .ok_or_else(|| refuse(format!("Bad TCP option value \"{word}\"")))?,
            };
            if kind < 2 {
                return Err(refuse("Option value may not be 0 or 1".into()));
            }
            let kind = kind as u8;
            if self.test(kind) {
                return Err(refuse(format!("Option \"{word}\" already specified")));
            }
            self.set(kind);
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("TCPOPTSTRIP", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.strip_bmap != [0; 8] {
            out.push_str(" --strip-options ");
            out.push_str(&self.list(true));
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        if self.strip_bmap != [0; 8] {
            out.push_str(" TCPOPTSTRIP options ");
            out.push_str(&self.list(ctx.numeric));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = INFO.decode(rev, info)?;
    // Kinds 0 and 1 cannot be given.
    (t.strip_bmap[0] & 3 == 0).then(|| Box::new(t) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn lists() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(v4, "-p tcp -j TCPOPTSTRIP --strip-options md5,2,wscale,255").unwrap(),
            "-p tcp -j TCPOPTSTRIP --strip-options 2,3,19,255"
        );
        assert_eq!(
            save_round(v4, "-p tcp -j TCPOPTSTRIP").unwrap(),
            "-p tcp -j TCPOPTSTRIP"
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j TCPOPTSTRIP --strip-options 1").contains("may not be 0 or 1"));
        assert!(err("-j TCPOPTSTRIP --strip-options 2,,3").contains("Bad TCP option value \"\""));
        assert!(err("-j TCPOPTSTRIP --strip-options 256").contains("Bad TCP option value"));
        assert!(
            err("-j TCPOPTSTRIP --strip-options mss,2").contains("Option \"2\" already specified")
        );
    }
}
