//! `LOG`: log the packet to the kernel log (`libxt_LOG.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `LOG` target, rev 0, 32-byte `xt_log_info`
//! (level, flags, 30-byte prefix). The prefix is cut to 29 bytes as libxtables does; the
//! level defaults to 4 (warning) and is printed as a number when it differs. Allowed in every
//! table and chain.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_log_info, XT_LOG_IPOPT, XT_LOG_MACDECODE, XT_LOG_MASK, XT_LOG_TCPOPT, XT_LOG_TCPSEQ,
    XT_LOG_UID,
};

use super::base::libxt::{parse_log_prefix, push_flags, strtoul_full, text};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_string, xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::opts::Ty;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j LOG`.
pub static DESC: ExtDesc = ExtDesc {
    name: "LOG",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::custom("log-level"),
        Opt::new("log-prefix", Ty::Str { min: 1, max: 0 }),
        Opt::flag("log-tcp-sequence"),
        Opt::flag("log-tcp-options"),
        Opt::flag("log-ip-options"),
        Opt::flag("log-uid"),
        Opt::flag("log-macdecode"),
    ]),
    new: |_| Box::new(Log::default()),
    xt_names: &["LOG"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Syslog level names libxtables accepts (`XTTYPE_SYSLOGLEVEL`, case-sensitive).
const LEVELS: &[(&str, u8)] = &[
    ("alert", 1),
    ("crit", 2),
    ("debug", 7),
    ("emerg", 0),
    ("error", 3),
    ("info", 6),
    ("notice", 5),
    ("panic", 0),
    ("warning", 4),
];

/// The flags in the order iptables prints them.
const FLAGS: &[(&str, u8)] = &[
    ("log-tcp-sequence", XT_LOG_TCPSEQ),
    ("log-tcp-options", XT_LOG_TCPOPT),
    ("log-ip-options", XT_LOG_IPOPT),
    ("log-uid", XT_LOG_UID),
    ("log-macdecode", XT_LOG_MACDECODE),
];

const PREFIX_CAP: usize = 30;

/// `-j LOG …`, as `struct xt_log_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// Syslog level (0–7; 4 by default).
    pub level: u8,
    /// `XT_LOG_*` flags (unknown bits kept).
    pub logflags: u8,
    /// The prefix bytes (at most 29).
    pub prefix: Vec<u8>,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            level: 4,
            logflags: 0,
            prefix: Vec::new(),
        }
    }
}

/// `struct xt_log_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Log> = XtStruct::new(
    "xt_log_info",
    size_of::<xt_log_info>(),
    0,
    &[
        xt_field!(xt_log_info, level: U8 => level),
        xt_field!(xt_log_info, logflags: U8 => logflags),
        xt_field!(xt_log_info, prefix: CBytes(PREFIX_CAP) => prefix),
    ],
);

impl Extension for Log {
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
            "log-level" => {
                let v = val.text();
                self.level = match strtoul_full(v, 0, 7) {
                    Some(n) => n as u8,
                    None => LEVELS
                        .iter()
                        .find(|(n, _)| *n == v)
                        .map(|(_, l)| *l)
                        .ok_or_else(|| {
                            ParseError::bad("--log-level", format!("log level \"{v}\" unknown"))
                        })?,
                };
            }
            "log-prefix" => self.prefix = parse_log_prefix(opt.name, val.text(), PREFIX_CAP)?,
            name => {
                let bit = FLAGS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, b)| *b)
                    .ok_or_else(|| ParseError::UnknownOption {
                        option: format!("--{name}"),
                    })?;
                self.logflags |= bit;
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("LOG", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if !self.prefix.is_empty() {
            out.push_str(" --log-prefix");
            save_string(out, &text(&self.prefix));
        }
        if self.level != 4 {
            out.push_str(&format!(" --log-level {}", self.level));
        }
        push_flags(out, FLAGS, self.logflags, " --");
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" LOG");
        if ctx.numeric {
            out.push_str(&format!(" flags {} level {}", self.logflags, self.level));
        } else {
            const NAMES: [&str; 8] = [
                "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
            ];
            match NAMES.get(self.level as usize) {
                Some(n) => out.push_str(&format!(" level {n}")),
                None => out.push_str(&format!(" UNKNOWN level {}", self.level)),
            }
            for (name, bit) in FLAGS {
                if self.logflags & bit != 0 {
                    out.push(' ');
                    out.push_str(name.trim_start_matches("log-"));
                }
            }
            if self.logflags & !XT_LOG_MASK != 0 {
                out.push_str(" unknown-flags");
            }
        }
        if !self.prefix.is_empty() {
            out.push_str(&format!(" prefix \"{}\"", text(&self.prefix)));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(opt: &str, v: &str) -> Result<Log, ParseError> {
        let mut l = Log::default();
        crate::ipt::ext::base::opts::feed(&mut l, IpFamily::V4, None, opt, v)?;
        Ok(l)
    }

    #[test]
    fn levels() {
        assert_eq!(parse("log-level", "error").unwrap().level, 3);
        assert_eq!(parse("log-level", "panic").unwrap().level, 0);
        assert_eq!(parse("log-level", "0x7").unwrap().level, 7);
        assert!(parse("log-level", "warn").is_err());
        assert!(parse("log-level", "DEBUG").is_err());
        assert!(parse("log-level", "8").is_err());
    }

    #[test]
    fn prefix_is_cut_to_29_bytes() {
        let l = parse("log-prefix", "123456789012345678901234567890").unwrap();
        assert_eq!(l.prefix.len(), 29);
        assert!(parse("log-prefix", "").is_err());
        assert!(parse("log-prefix", "a\nb").is_err());
    }
}
