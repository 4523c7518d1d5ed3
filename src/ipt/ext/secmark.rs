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

use iptnl_sys::xt::{
    xt_secmark_target_info, xt_secmark_target_info_v1, SECMARK_MODE_SEL, SECMARK_SECCTX_MAX,
};

use super::base::libxt::{field_bytes, text, truncate_bytes};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val, XtBuf, XtView,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

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

/// Offset of the context in the info of a revision.
fn ctx_offset(rev: u32) -> usize {
    if rev == 0 {
        std::mem::offset_of!(xt_secmark_target_info, secctx)
    } else {
        std::mem::offset_of!(xt_secmark_target_info_v1, secctx)
    }
}

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
        let mut b = if rev == 0 {
            XtBuf::of::<xt_secmark_target_info>()
        } else {
            XtBuf::of::<xt_secmark_target_info_v1>()
        };
        b.put_u8(0, SECMARK_MODE_SEL);
        b.put(ctx_offset(rev), &self.secctx);
        out.push(xt_target("SECMARK", rev, b.into_vec()));
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
    let v = match rev {
        0 => XtView::of::<xt_secmark_target_info>(info)?,
        1 => XtView::of::<xt_secmark_target_info_v1>(info)?,
        _ => return None,
    };
    let off = ctx_offset(rev);
    let field = v.bytes(off, SECMARK_SECCTX_MAX)?;
    let secctx = field_bytes(field);
    // Mode SELinux (iptables prints no other), a NUL-terminated context with zeros after
    // it, zero padding; the security id is the kernel's.
    let pad_ok = if rev == 0 {
        v.bytes(1, 3)?.iter().all(|&b| b == 0)
    } else {
        true
    };
    let ok = v.u8(0)? == SECMARK_MODE_SEL
        && secctx.len() < SECMARK_SECCTX_MAX
        && field[secctx.len()..].iter().all(|&b| b == 0)
        && std::str::from_utf8(&secctx).is_ok()
        && pad_ok;
    ok.then(|| Box::new(Secmark { rev, secctx }) as Box<dyn Extension>)
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
