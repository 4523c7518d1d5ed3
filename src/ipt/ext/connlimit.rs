//! `connlimit`: number of connections per address group (`--connlimit-upto`,
//! `--connlimit-above`, `--connlimit-mask`, `--connlimit-saddr`, `--connlimit-daddr`).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `connlimit` rev 1, `struct xt_connlimit_info`
//! (mask, limit, flags). Rev 0 (no flags) is decoded too.
//!
//! Without `--connlimit-mask` the whole 16-byte mask is all ones, for IPv4 too (iptables'
//! init); with a prefix length only its bits are set. A netmask that is not a prefix
//! (`255.0.255.0`) is kept as given, as iptables 1.8.10 and later do (1.8.9 silently made it
//! `/32`).

use std::mem::size_of;

use iptnl_sys::xt::{xt_connlimit_info, XT_CONNLIMIT_DADDR, XT_CONNLIMIT_INVERT};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::{Ty, U32};
use crate::ipt::ext::base::xtstruct::{Field, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `connlimit` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "connlimit",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("connlimit-upto", U32)
            .inv()
            .excl(&["connlimit-above"]),
        Opt::new("connlimit-above", U32)
            .inv()
            .excl(&["connlimit-upto"]),
        Opt::new("connlimit-mask", Ty::Plen),
        Opt::flag("connlimit-saddr").excl(&["connlimit-daddr"]),
        Opt::flag("connlimit-daddr").excl(&["connlimit-saddr"]),
    ]),
    new: |f| Box::new(Connlimit::new(f)),
    xt_names: &["connlimit"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-m connlimit`, as `struct xt_connlimit_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct Connlimit {
    /// Revision: 1, or 0 for a rule an old iptables wrote.
    pub rev: u32,
    /// The family (how the mask prints).
    pub family: IpFamily,
    /// Grouping mask, network byte order (IPv4 in the first 4 bytes).
    pub mask: [u8; 16],
    /// Connection count limit.
    pub limit: u32,
    /// `XT_CONNLIMIT_*` bits.
    pub flags: u32,
}

impl Connlimit {
    fn new(family: IpFamily) -> Connlimit {
        Connlimit {
            rev: 1,
            family,
            mask: [0xff; 16],
            limit: 0,
            flags: 0,
        }
    }

    /// The prefix length iptables prints for the mask (`count_bits4`/`count_bits6`: the
    /// bits below the highest clear bit of each 32-bit word are not counted).
    pub fn mask_len(&self) -> u32 {
        let words = match self.family {
            IpFamily::V4 => 1,
            IpFamily::V6 => 4,
        };
        let mut cleared = 0;
        for w in self.mask.chunks(4).take(words) {
            let inv = !u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
            cleared += 32 - inv.leading_zeros();
        }
        32 * words as u32 - cleared
    }
}

/// The fields of `struct xt_connlimit_info`, the same in both revisions (revision 0's
/// kernel ignores `flags`).
const FIELDS: &[Field<Connlimit>] = &[
    xt_field!(xt_connlimit_info, mask: Bytes(16) => mask),
    xt_field!(xt_connlimit_info, limit: U32 => limit),
    xt_field!(xt_connlimit_info, flags: U32 => flags),
];

/// `struct xt_connlimit_info` as revision 0.
static V0: XtStruct<Connlimit> = XtStruct::new(
    "xt_connlimit_info",
    size_of::<xt_connlimit_info>(),
    0,
    FIELDS,
);

/// `struct xt_connlimit_info` as revision 1: it decodes the options and encodes them.
static V1: XtStruct<Connlimit> = XtStruct::new(
    "xt_connlimit_info",
    size_of::<xt_connlimit_info>(),
    1,
    FIELDS,
);

impl Extension for Connlimit {
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
        match (opt.name, val) {
            ("connlimit-upto" | "connlimit-above", _) => {
                self.limit = val.uint() as u32;
                // Above N matches when the count is > N; upto is its inversion.
                if (opt.name == "connlimit-upto") != inv {
                    self.flags |= XT_CONNLIMIT_INVERT;
                }
            }
            ("connlimit-mask", Val::Plen(_, mask)) => self.mask = mask,
            ("connlimit-saddr", _) => self.flags &= !XT_CONNLIMIT_DADDR,
            _ => self.flags |= XT_CONNLIMIT_DADDR,
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if !ctx.given.has("connlimit-upto") && !ctx.given.has("connlimit-above") {
            return Err(ParseError::Invalid(
                "You must specify \"--connlimit-above\" or \"--connlimit-upto\".".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let t = if self.rev == 0 { &V0 } else { &V1 };
        out.push(xt_match("connlimit", self.rev, t.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.flags & XT_CONNLIMIT_INVERT != 0 {
            out.push_str(&format!(" --connlimit-upto {}", self.limit));
        } else {
            out.push_str(&format!(" --connlimit-above {}", self.limit));
        }
        out.push_str(&format!(" --connlimit-mask {}", self.mask_len()));
        if self.rev >= 1 {
            if self.flags & XT_CONNLIMIT_DADDR != 0 {
                out.push_str(" --connlimit-daddr");
            } else {
                out.push_str(" --connlimit-saddr");
            }
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(&format!(
            " #conn {}/{} {} {}",
            if self.flags & XT_CONNLIMIT_DADDR != 0 {
                "dst"
            } else {
                "src"
            },
            self.mask_len(),
            if self.flags & XT_CONNLIMIT_INVERT != 0 {
                "<="
            } else {
                ">"
            },
            self.limit
        ));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let t = match rev {
        0 => &V0,
        1 => &V1,
        _ => return None,
    };
    let mut c = Connlimit {
        rev,
        ..Connlimit::new(ctx.family)
    };
    t.read(&t.view(rev, info)?, &mut c)?;
    Some(Box::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::ext::base::libxt::prefix_mask;

    #[test]
    fn mask_lengths_as_iptables_counts_them() {
        let mut c = Connlimit::new(IpFamily::V4);
        assert_eq!(c.mask_len(), 32);
        c.mask = prefix_mask(24);
        assert_eq!(c.mask_len(), 24);
        c.mask[..4].copy_from_slice(&[255, 255, 0, 255]);
        assert_eq!(c.mask_len(), 16);
        let mut c = Connlimit::new(IpFamily::V6);
        assert_eq!(c.mask_len(), 128);
        c.mask = prefix_mask(64);
        assert_eq!(c.mask_len(), 64);
        c.mask = prefix_mask(0);
        assert_eq!(c.mask_len(), 0);
    }

    #[test]
    fn odd_masks_kept_as_iptables_1_8_11() {
        use crate::ipt::encode_exprs;
        use crate::ipt::parse_rule_str;
        // 1.8.9 encoded these as /32; 1.8.10+ keep the mask given.
        for (arg, want) in [
            ("255.255.0.255", [255, 255, 0, 255]),
            ("33", [0, 0, 0, 33]),
            ("1.2.3", [1, 2, 0, 3]),
        ] {
            let spec = &parse_rule_str(
                IpFamily::V4,
                &format!("-m connlimit --connlimit-above 5 --connlimit-mask {arg}"),
            )
            .unwrap()[0];
            let exprs = encode_exprs(spec, IpFamily::V4, "filter", "INPUT").unwrap();
            let Expr::Match(m) = &exprs[0] else {
                panic!("not a match")
            };
            assert_eq!(m.info[..4], want);
            assert_eq!(m.info[4..16], [0; 12]);
        }
        let spec = &parse_rule_str(
            IpFamily::V4,
            "-m connlimit --connlimit-above 5 --connlimit-mask 255.255.0.255",
        )
        .unwrap()[0];
        assert_eq!(
            spec.to_save_args(),
            "-m connlimit --connlimit-above 5 --connlimit-mask 16 --connlimit-saddr"
        );
    }
}
