//! `NFLOG`: send the packet to an nfnetlink_log group (`libxt_NFLOG.c`).
//!
//! Encoding (iptables-nft 1.8.8 and later): natively, one nf_tables `log` expression in place
//! of the target: `prefix` when given (up to 127 bytes, longer than the 63 of
//! `xt_nflog_info`), `group` always, `snaplen` for `--nflog-size`, `qthreshold` when not 0.
//! `--nflog-range` is accepted with its warning and has no effect (it never worked). At the
//! reader floor 1.8.7, the x_tables `NFLOG` target (rev 0), as iptables-nft 1.8.7 writes it
//! (without `--nflog-range`), when the prefix fits its 63 bytes. Decoding reads that
//! `log` expression (only with a group and without kernel-log attributes) and the x_tables
//! `NFLOG` target older writers used. Allowed in every table and chain.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{xt_nflog_info, XT_NFLOG_F_COPY_LEN};

use super::base::api::xt_target;

use super::base::libxt::{parse_log_prefix, text};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_string, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, U16, U32};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::log::Log;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j NFLOG`.
pub static DESC: ExtDesc = ExtDesc {
    name: "NFLOG",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("nflog-group", U16),
        Opt::new("nflog-prefix", Ty::Str { min: 1, max: 0 }),
        Opt::new("nflog-range", U32).excl(&["nflog-size"]),
        Opt::new("nflog-size", U32).excl(&["nflog-range"]),
        Opt::new("nflog-threshold", U16),
    ]),
    new: |_| Box::new(Nflog::default()),
    xt_names: &["NFLOG"],
    decode_xt: Some(decode_xt),
    decode_native: Some(decode_native),
};

/// `NF_LOG_PREFIXLEN`: the prefix of a native `log` (with its NUL).
const NATIVE_PREFIX_CAP: usize = 128;

/// `-j NFLOG …`, as `struct xt_nflog_info` with the longer native prefix.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nflog {
    /// Bytes copied to userspace (`--nflog-size`, with [`XT_NFLOG_F_COPY_LEN`]), or the
    /// ineffective `--nflog-range` of an x_tables target.
    pub len: u32,
    /// Netlink group.
    pub group: u16,
    /// Queue threshold.
    pub threshold: u16,
    /// `XT_NFLOG_F_*`.
    pub flags: u16,
    /// The prefix bytes (at most 127).
    pub prefix: Vec<u8>,
}

/// The capacity of `xt_nflog_info.prefix`.
const XT_PREFIX_CAP: usize = size_of::<xt_nflog_info>() - offset_of!(xt_nflog_info, prefix);

/// `struct xt_nflog_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Nflog> = XtStruct::new(
    "xt_nflog_info",
    size_of::<xt_nflog_info>(),
    0,
    &[
        xt_field!(xt_nflog_info, len: U32 => len),
        xt_field!(xt_nflog_info, group: U16 => group),
        xt_field!(xt_nflog_info, threshold: U16 => threshold),
        xt_field!(xt_nflog_info, flags: U16 => flags),
        xt_field!(xt_nflog_info, prefix: CBytes(XT_PREFIX_CAP) => prefix),
    ],
);

impl Nflog {
    /// libxt_NFLOG's `nflog_print`: options with prefix `p` (`--` to save, empty for -L).
    fn dump(&self, p: &str, out: &mut String) {
        if !self.prefix.is_empty() {
            out.push_str(&format!(" {p}nflog-prefix"));
            save_string(out, &text(&self.prefix));
        }
        if self.group != 0 {
            out.push_str(&format!(" {p}nflog-group {}", self.group));
        }
        if self.flags & XT_NFLOG_F_COPY_LEN != 0 {
            out.push_str(&format!(" {p}nflog-size {}", self.len));
        } else if self.len != 0 {
            out.push_str(&format!(" {p}nflog-range {}", self.len));
        }
        if self.threshold != 0 {
            out.push_str(&format!(" {p}nflog-threshold {}", self.threshold));
        }
    }
}

impl Extension for Nflog {
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
            "nflog-group" => self.group = val.uint() as u16,
            "nflog-prefix" => {
                self.prefix = parse_log_prefix(opt.name, val.text(), NATIVE_PREFIX_CAP)?;
            }
            // --nflog-range never had an effect; iptables-nft does not encode it (1.8.7 kept
            // it in the x_tables target, where it shows).
            "nflog-range" => {}
            "nflog-size" => {
                self.len = val.uint() as u32;
                self.flags |= XT_NFLOG_F_COPY_LEN;
            }
            _ => self.threshold = val.uint() as u16,
        }
        Ok(())
    }

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        // A prefix longer than the x_tables target holds has no 1.8.7 form: it is written
        // as 1.8.8 and later write it.
        if !ctx.floor.native_matches() && self.prefix.len() < XT_PREFIX_CAP {
            out.push(xt_target("NFLOG", 0, INFO.encode(self)));
            return Ok(());
        }
        out.push(Expr::Log(Log {
            prefix: (!self.prefix.is_empty()).then(|| text(&self.prefix)),
            group: Some(self.group),
            snaplen: (self.flags & XT_NFLOG_F_COPY_LEN != 0).then_some(self.len),
            qthreshold: (self.threshold != 0).then_some(self.threshold),
            ..Log::default()
        }));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.dump("--", out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        self.dump("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

/// Reads the `log` expression iptables-nft writes for NFLOG (a group, no level or flags).
fn decode_native(cur: &mut ExprCursor<'_>, _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let Some(Expr::Log(l)) = cur.peek(0) else {
        return None;
    };
    let group = l.group?;
    if l.level.is_some() || l.flags.is_some() {
        return None;
    }
    let prefix = l.prefix.as_deref().unwrap_or("").as_bytes().to_vec();
    if prefix.len() >= NATIVE_PREFIX_CAP || prefix.contains(&0) {
        return None;
    }
    cur.pos += 1;
    Some(Box::new(Nflog {
        len: l.snaplen.unwrap_or(0),
        group,
        threshold: l.qthreshold.unwrap_or(0),
        flags: if l.snaplen.is_some() {
            XT_NFLOG_F_COPY_LEN
        } else {
            0
        },
        prefix,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_round_trip() {
        let n = Nflog {
            len: 100,
            group: 1,
            threshold: 3,
            flags: XT_NFLOG_F_COPY_LEN,
            prefix: b"hi there".to_vec(),
        };
        let ctx = EncodeCtx {
            sets: &crate::ipt::ext::NoSets,
            floor: crate::ipt::ReaderFloor::UNPINNED,
            family: IpFamily::V4,
            proto: None,
            table: "filter",
            chain: "INPUT",
        };
        let mut out = Vec::new();
        n.encode(&ctx, &mut out).unwrap();
        let mut cur = ExprCursor {
            exprs: &out,
            pos: 0,
        };
        let d = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let back = decode_native(&mut cur, &d).unwrap();
        assert!(back.eq_dyn(&n));
        let mut s = String::new();
        back.save(IpFamily::V4, &mut s);
        assert_eq!(
            s,
            " --nflog-prefix \"hi there\" --nflog-group 1 --nflog-size 100 --nflog-threshold 3"
        );
    }

    #[test]
    fn kernel_log_is_not_nflog() {
        let l = Expr::Log(Log {
            level: Some(crate::nft::expr::log::LogLevel::Warning),
            ..Log::default()
        });
        let exprs = [l];
        let mut cur = ExprCursor {
            exprs: &exprs,
            pos: 0,
        };
        let d = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        assert!(decode_native(&mut cur, &d).is_none());
    }
}
