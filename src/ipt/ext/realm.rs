//! `realm`: the routing realm of the packet's route (`--realm value[/mask]`, or a name of
//! `/etc/iproute2/rt_realms`; IPv4 only).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `realm` match, rev 0, `xt_realm_info`
//! (12 bytes, 16 padded).

use std::mem::size_of;
use std::sync::OnceLock;

use iptnl_sys::xt::xt_realm_info;

use super::base::libxt::{lmap, parse_val_mask, print_val_mask};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::sysdb::Db;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `realm` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "realm",
    kind: ExtKind::Match,
    family: Some(IpFamily::V4),
    options: &super::base::opts::table([Opt::new("realm", STR).inv().mand()]),
    new: |_| Box::new(Realm::default()),
    xt_names: &["realm"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The realm names of `/etc/iproute2/rt_realms` (`None` when it has none).
fn realms() -> Option<&'static [(u32, String)]> {
    static CACHE: OnceLock<Vec<(u32, String)>> = OnceLock::new();
    lmap(&CACHE, Db::Realms)
}

/// Options of `-m realm`, as in `struct xt_realm_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Realm {
    /// Realm value.
    pub id: u32,
    /// Realm mask.
    pub mask: u32,
    /// 1 when negated.
    pub invert: u8,
}

/// `struct xt_realm_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Realm> = XtStruct::new(
    "xt_realm_info",
    size_of::<xt_realm_info>(),
    0,
    &[
        xt_field!(xt_realm_info, id: U32 => id),
        xt_field!(xt_realm_info, mask: U32 => mask),
        xt_field!(xt_realm_info, invert: U8 => invert),
    ],
);

impl Extension for Realm {
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
        (self.id, self.mask) = parse_val_mask("realm", opt.name, val.text(), realms())?;
        self.invert = inv as u8;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("realm", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --realm");
        print_val_mask(out, self.id, self.mask, realms());
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" realm");
        let names = if ctx.numeric { None } else { realms() };
        print_val_mask(out, self.id, self.mask, names);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let r = INFO.decode_exact(rev, info)?;
    (r.invert <= 1).then(|| Box::new(r) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::{parse_rule, IpFamily};

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn realms() {
        for r in ["-m realm --realm 0x1/0x2a", "-m realm ! --realm 0x2a"] {
            assert_eq!(round(r).unwrap(), r);
        }
        assert_eq!(
            round("-m realm --realm 42").unwrap(),
            "-m realm --realm 0x2a"
        );
        assert!(round("-m realm").is_err());
        assert!(parse_rule(IpFamily::V6, &["-m", "realm", "--realm", "1"]).is_err());
    }
}
