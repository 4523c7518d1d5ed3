//! `NFQUEUE`: hand the packet to a userspace queue (`libxt_NFQUEUE.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `NFQUEUE` target, rev 3, `xt_NFQ_info_v3`
//! (6 bytes, 8 aligned; one queue by default). Revisions 0 to 2 are decoded too and printed
//! with the options their revision knows. Allowed in every table and chain.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_NFQ_info, xt_NFQ_info_v1, xt_NFQ_info_v2, xt_NFQ_info_v3, NFQ_FLAG_BYPASS,
    NFQ_FLAG_CPU_FANOUT,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::U16;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j NFQUEUE`.
pub static DESC: ExtDesc = ExtDesc {
    name: "NFQUEUE",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("queue-num", U16).excl(&["queue-balance"]),
        Opt::custom("queue-balance").excl(&["queue-num"]),
        Opt::flag("queue-bypass"),
        Opt::flag("queue-cpu-fanout").also(&["queue-balance"]),
    ]),
    new: |_| Box::new(Nfqueue::default()),
    xt_names: &["NFQUEUE"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j NFQUEUE …`, as `struct xt_NFQ_info_v3`.
#[derive(Debug, Clone, PartialEq)]
pub struct Nfqueue {
    /// First queue.
    pub queuenum: u16,
    /// Number of queues (1 without `--queue-balance`).
    pub queues_total: u16,
    /// `NFQ_FLAG_*`.
    pub flags: u16,
}

impl Default for Nfqueue {
    fn default() -> Self {
        Nfqueue {
            queuenum: 0,
            queues_total: 1,
            flags: 0,
        }
    }
}

/// `XTTYPE_UINT16RC` with a maximum of 65534: `a:b`, `a:` (up to 65534), `:b` (from 0);
/// two different queues, the first below the last.
fn parse_balance(s: &str) -> Result<(u16, u16), ParseError> {
    let opt = "--queue-balance";
    let (r, n) = super::base::opts::parse_range("NFQUEUE", "queue-balance", s, 0, 65534, true)?;
    let vals = [r[0] as u16, r[1] as u16];
    if n != 2 {
        return Err(ParseError::bad(opt, format!("Bad range \"{s}\"")));
    }
    if vals[0] >= vals[1] {
        return Err(ParseError::bad(
            opt,
            format!("{} should be less than {}", vals[0], vals[1]),
        ));
    }
    Ok((vals[0], vals[1]))
}

impl Nfqueue {
    /// The queue options with prefix `p` (`--queue-` to save, empty for -L after "NFQUEUE").
    fn dump(&self, p: &str, out: &mut String) {
        if self.queues_total > 1 {
            let last = u32::from(self.queues_total) + u32::from(self.queuenum) - 1;
            out.push_str(&format!(" {p}balance {}:{}", self.queuenum, last));
        } else {
            out.push_str(&format!(" {p}num {}", self.queuenum));
        }
        if self.flags & NFQ_FLAG_BYPASS != 0 {
            out.push_str(&format!(" {p}bypass"));
        }
        if self.flags & NFQ_FLAG_CPU_FANOUT != 0 {
            out.push_str(&format!(" {p}cpu-fanout"));
        }
    }
}

/// `struct xt_NFQ_info` (revision 0), field by field: one queue.
static V0: XtStruct<Nfqueue> = XtStruct::new(
    "xt_NFQ_info",
    size_of::<xt_NFQ_info>(),
    0,
    &[xt_field!(xt_NFQ_info, queuenum: U16 => queuenum)],
);

/// `struct xt_NFQ_info_v1`, field by field: a range of queues.
static V1: XtStruct<Nfqueue> = XtStruct::new(
    "xt_NFQ_info_v1",
    size_of::<xt_NFQ_info_v1>(),
    1,
    &[
        xt_field!(xt_NFQ_info_v1, queuenum: U16 => queuenum),
        xt_field!(xt_NFQ_info_v1, queues_total: U16 => queues_total),
    ],
);

/// `struct xt_NFQ_info_v2`, field by field: a range of queues and the bypass bit (the only
/// flag revision 2 knows).
static V2: XtStruct<Nfqueue> = XtStruct::new(
    "xt_NFQ_info_v2",
    size_of::<xt_NFQ_info_v2>(),
    2,
    &[
        xt_field!(xt_NFQ_info_v2, queuenum: U16 => queuenum),
        xt_field!(xt_NFQ_info_v2, queues_total: U16 => queues_total),
        Field {
            name: "bypass",
            at: offset_of!(xt_NFQ_info_v2, bypass),
            kind: Kind::U16(|s| s.flags, |s, v| s.flags = v & NFQ_FLAG_BYPASS),
        },
    ],
);

/// `struct xt_NFQ_info_v3`, field by field: it decodes the options and encodes them.
static V3: XtStruct<Nfqueue> = XtStruct::new(
    "xt_NFQ_info_v3",
    size_of::<xt_NFQ_info_v3>(),
    3,
    &[
        xt_field!(xt_NFQ_info_v3, queuenum: U16 => queuenum),
        xt_field!(xt_NFQ_info_v3, queues_total: U16 => queues_total),
        xt_field!(xt_NFQ_info_v3, flags: U16 => flags),
    ],
);

impl Extension for Nfqueue {
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
            "queue-num" => self.queuenum = val.uint() as u16,
            "queue-balance" => {
                let (a, b) = parse_balance(val.text())?;
                self.queuenum = a;
                self.queues_total = b - a + 1;
            }
            "queue-bypass" => self.flags |= NFQ_FLAG_BYPASS,
            _ => self.flags |= NFQ_FLAG_CPU_FANOUT,
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("NFQUEUE", 3, V3.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.dump("--queue-", out);
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" NFQUEUE");
        self.dump("", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = [&V0, &V1, &V2, &V3].into_iter().find(|t| t.rev == rev)?;
    Some(Box::new(t.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_ranges() {
        assert_eq!(parse_balance("1:4").unwrap(), (1, 4));
        assert_eq!(parse_balance("1:").unwrap(), (1, 65534));
        assert_eq!(parse_balance(":").unwrap(), (0, 65534));
        assert!(parse_balance("0:65535").is_err());
        assert!(parse_balance("4:3").is_err());
        assert_eq!(parse_balance(":5").unwrap(), (0, 5));
        assert!(parse_balance("5").is_err());
        assert!(parse_balance("5:5").is_err());
        assert!(parse_balance("1:2:3").is_err());
        assert!(parse_balance("1:2x").is_err());
    }
}
