//! `SECMARK`: set the packet's security mark from an SELinux security context
//! (`libxt_SECMARK.c`).
//!
//! Encoding (iptables-nft 1.8.8 and later; rev 0 at the reader floor 1.8.7, as 1.8.7 writes
//! it): the x_tables `SECMARK` target, rev 1,
//! `xt_secmark_target_info_v1` (264 bytes): mode 1 (SELinux) and the context, cut to 255
//! bytes; the security id is the kernel's to fill in (sent as zero, not compared). Rev 0
//! (`xt_secmark_target_info`) is decoded too. `--selctx` is mandatory. The kernel allows it
//! in the mangle and security tables, and refuses a context it cannot map (always, without
//! SELinux).

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_secmark_target_info, xt_secmark_target_info_v1, SECMARK_MODE_SEL, SECMARK_SECCTX_MAX,
};

use super::base::libxt::{text, truncate_bytes};
use super::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j SECMARK`.
pub static DESC: ExtDesc = ExtDesc {
    name: "SECMARK",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::new("selctx", STR).mand()]),
    new: |_| Box::new(Secmark::default()),
    xt_names: &["SECMARK"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j SECMARK --selctx CONTEXT`.
#[derive(Debug, Clone, PartialEq)]
pub struct Secmark {
    /// The revision read from the kernel: 1, or 0 for a rule iptables 1.8.7 wrote. It is
    /// written at the reader floor's revision (0 at 1.8.7, 1 after).
    pub rev: u32,
    /// The context's bytes (at most 255).
    pub secctx: Vec<u8>,
}

impl Default for Secmark {
    fn default() -> Self {
        Secmark {
            rev: 1,
            secctx: Vec::new(),
        }
    }
}

/// The mode, always SELinux (iptables prints no other): written as such, and a blob with
/// another is not claimed.
const MODE: Field<Secmark> = Field {
    name: "mode",
    at: 0,
    kind: Kind::U8(|_| SECMARK_MODE_SEL, |_, _| {}),
};

/// The context, written cut to leave its NUL, with zeros after it.
const fn secctx(at: usize) -> Field<Secmark> {
    Field {
        name: "secctx",
        at,
        kind: Kind::CBytes(
            SECMARK_SECCTX_MAX,
            |s| &s.secctx[..s.secctx.len().min(SECMARK_SECCTX_MAX - 1)],
            |s, v| s.secctx = v,
        ),
    }
}

/// `struct xt_secmark_target_info` (rev 0), field by field; the security id is the
/// kernel's.
static INFO0: XtStruct<Secmark> = XtStruct::new(
    "xt_secmark_target_info",
    size_of::<xt_secmark_target_info>(),
    0,
    &[
        MODE,
        xt_field!(xt_secmark_target_info, secid: Kernel),
        secctx(offset_of!(xt_secmark_target_info, secctx)),
    ],
);

/// Where the context of revision 1 ends.
const V1_CTX_END: usize = offset_of!(xt_secmark_target_info_v1, secctx) + SECMARK_SECCTX_MAX;

/// `struct xt_secmark_target_info_v1`, field by field; the security id, and the padding
/// before it, are not compared.
static INFO1: XtStruct<Secmark> = XtStruct::new(
    "xt_secmark_target_info_v1",
    size_of::<xt_secmark_target_info_v1>(),
    1,
    &[
        MODE,
        secctx(offset_of!(xt_secmark_target_info_v1, secctx)),
        Field {
            name: "secid",
            at: V1_CTX_END,
            kind: Kind::Kernel(size_of::<xt_secmark_target_info_v1>() - V1_CTX_END),
        },
    ],
);

/// Both revisions.
static INFO: XtRevs<Secmark> = XtRevs(&[&INFO0, &INFO1]);

impl Extension for Secmark {
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
        self.secctx = truncate_bytes(val.text(), SECMARK_SECCTX_MAX);
        Ok(())
    }

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        // iptables 1.8.7 knows revision 0 only; 1.8.8 and later write revision 1, whatever
        // revision a rule read from the kernel had (the printed form does not say it, so
        // the revision a rule is written at is the floor's, as a restore of it writes it).
        let rev = if ctx.floor.native_matches() { 1 } else { 0 };
        let info = if rev == 0 { &INFO0 } else { &INFO1 };
        out.push(xt_target("SECMARK", rev, info.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --selctx ");
        out.push_str(&text(&self.secctx));
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" SECMARK selctx ");
        out.push_str(&text(&self.secctx));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let s = Secmark {
        rev,
        ..INFO.decode_exact(rev, info)?
    };
    // The context ends in a NUL within its field, and is text.
    let ok = s.secctx.len() < SECMARK_SECCTX_MAX && std::str::from_utf8(&s.secctx).is_ok();
    ok.then(|| Box::new(s) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn contexts() {
        let v6 = IpFamily::V6;
        assert_eq!(
            save_round(
                v6,
                "-j SECMARK --selctx system_u:object_r:firewalld_exec_t:s0"
            )
            .unwrap(),
            "-j SECMARK --selctx system_u:object_r:firewalld_exec_t:s0"
        );
        let err = parse_rule_str(v6, "-j SECMARK").unwrap_err().to_string();
        assert!(err.contains("\"--selctx\" must be specified"));
    }
}
