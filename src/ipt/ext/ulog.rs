//! `ULOG`: send the packet to a netlink multicast group (`libipt_ULOG.c`, IPv4 only).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `ULOG` target, rev 0, `ipt_ulog_info` (56
//! bytes on 64-bit): the group as a bit mask (`--ulog-nlgroup N`, 1 to 32, default 1), the
//! bytes to copy (`--ulog-cprange`), the queue threshold (`--ulog-qthreshold`, 1 to 50,
//! default 1) and the prefix (`--ulog-prefix`, cut to 31 bytes as libxtables cuts it, no
//! newline). Kernels since 3.17 have no `ULOG` target: they refuse the rule, and the tools
//! report it as iptables does (`RULE_APPEND failed (No such file or directory)`, exit 4).

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    ipt_ulog_info, ULOG_DEFAULT_NLGROUP, ULOG_DEFAULT_QTHRESHOLD, ULOG_MAX_QLEN, ULOG_PREFIX_LEN,
};

use super::base::libxt::text;
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_string, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j ULOG`.
pub static DESC: ExtDesc = ExtDesc {
    name: "ULOG",
    kind: ExtKind::Target,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([
        Opt::new("ulog-nlgroup", Ty::Uint { min: 1, max: 32 }),
        Opt::new("ulog-prefix", Ty::Str { min: 1, max: 0 }),
        Opt::new(
            "ulog-cprange",
            Ty::Uint {
                min: 0,
                max: u64::MAX,
            },
        ),
        Opt::new(
            "ulog-qthreshold",
            Ty::Uint {
                min: 1,
                max: ULOG_MAX_QLEN,
            },
        ),
    ]),
    new: |_| Box::new(Ulog::default()),
    xt_names: &["ULOG"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j ULOG …`, as `struct ipt_ulog_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ulog {
    /// The group's bit (`1 << (N - 1)`).
    pub nl_group: u32,
    /// Bytes to copy (0: the whole packet).
    pub copy_range: u64,
    /// Packets queued before they are sent.
    pub qthreshold: u64,
    /// The prefix's bytes (at most 31).
    pub prefix: Vec<u8>,
}

/// `struct ipt_ulog_info`, field by field: it decodes the options and encodes them (the
/// `size_t` fields as wide as a pointer).
static INFO: XtStruct<Ulog> = XtStruct::new(
    "ipt_ulog_info",
    size_of::<ipt_ulog_info>(),
    0,
    &[
        xt_field!(ipt_ulog_info, nl_group: U32 => nl_group),
        xt_field!(ipt_ulog_info, copy_range: Word => copy_range),
        xt_field!(ipt_ulog_info, qthreshold: Word => qthreshold),
        xt_field!(ipt_ulog_info, prefix: CBytes(ULOG_PREFIX_LEN) => prefix),
    ],
);

impl Default for Ulog {
    fn default() -> Ulog {
        Ulog {
            nl_group: ULOG_DEFAULT_NLGROUP,
            copy_range: 0,
            qthreshold: ULOG_DEFAULT_QTHRESHOLD,
            prefix: Vec::new(),
        }
    }
}

impl Ulog {
    /// The group's number as `ffs` gives it (0 for none).
    fn group(&self) -> u32 {
        if self.nl_group == 0 {
            0
        } else {
            self.nl_group.trailing_zeros() + 1
        }
    }
}

impl Extension for Ulog {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        match opt.name {
            "ulog-nlgroup" => self.nl_group = 1 << (val.uint() - 1),
            "ulog-prefix" => {
                let v = val.text();
                if v.contains('\n') {
                    return Err(ParseError::Invalid(
                        "Newlines not allowed in --ulog-prefix".into(),
                    ));
                }
                // As libxtables puts a longer string into the 32-byte field.
                let v = v.split('\0').next().unwrap_or_default().as_bytes();
                self.prefix = v[..v.len().min(ULOG_PREFIX_LEN - 1)].to_vec();
            }
            "ulog-cprange" => self.copy_range = val.uint(),
            _ => self.qthreshold = val.uint(),
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("ULOG", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if !self.prefix.is_empty() {
            out.push_str(" --ulog-prefix");
            save_string(out, &text(&self.prefix));
        }
        if self.nl_group != ULOG_DEFAULT_NLGROUP {
            out.push_str(&format!(" --ulog-nlgroup {}", self.group()));
        }
        if self.copy_range != 0 {
            out.push_str(&format!(" --ulog-cprange {}", self.copy_range as u32));
        }
        if self.qthreshold != ULOG_DEFAULT_QTHRESHOLD {
            out.push_str(&format!(" --ulog-qthreshold {}", self.qthreshold as u32));
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(&format!(
            " ULOG copy_range {} nlgroup {}",
            self.copy_range as u32,
            self.group()
        ));
        if !self.prefix.is_empty() {
            out.push_str(&format!(" prefix \"{}\"", text(&self.prefix)));
        }
        out.push_str(&format!(" queue_threshold {}", self.qthreshold as u32));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let u = INFO.decode(rev, info)?;
    // Exactly what iptables writes: one group bit, a NUL-padded UTF-8 prefix (what
    // re-encoding gives in the prefix's field; the padding after `nl_group` is not read).
    let field =
        offset_of!(ipt_ulog_info, prefix)..offset_of!(ipt_ulog_info, prefix) + ULOG_PREFIX_LEN;
    let ok = u.nl_group.count_ones() == 1
        && u.prefix.len() < ULOG_PREFIX_LEN
        && INFO.encode(&u)[field.clone()] == info[field]
        && std::str::from_utf8(&u.prefix).is_ok();
    ok.then(|| Box::new(u) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn options() {
        let v4 = IpFamily::V4;
        assert_eq!(save_round(v4, "-j ULOG").unwrap(), "-j ULOG");
        assert_eq!(
            save_round(
                v4,
                "-j ULOG --ulog-nlgroup 32 --ulog-prefix fw: --ulog-cprange 100 --ulog-qthreshold 50"
            )
            .unwrap(),
            "-j ULOG --ulog-prefix \"fw:\" --ulog-nlgroup 32 --ulog-cprange 100 --ulog-qthreshold 50"
        );
        let long = format!("-j ULOG --ulog-prefix {}", "x".repeat(40));
        assert_eq!(
            save_round(v4, &long).unwrap(),
            format!("-j ULOG --ulog-prefix {}", "x".repeat(31))
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j ULOG --ulog-nlgroup 33").contains("out of range (1-32)"));
        assert!(err("-j ULOG --ulog-qthreshold 0").contains("out of range (1-50)"));
        // IPv4 only: ip6tables takes ULOG for a chain name.
        assert!(
            parse_rule_str(IpFamily::V6, "-j ULOG").is_ok_and(|r| r[0].to_save_args() == "-j ULOG")
        );
    }
}
