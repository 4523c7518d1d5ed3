//! `CLASSIFY`: set the packet's traffic control class (`libxt_CLASSIFY.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `CLASSIFY` target, rev 0, a 32-bit priority
//! `major << 16 | minor` (8 aligned). `--set-class` reads two hexadecimal numbers as
//! `sscanf("%x:%x")` does (anything after the second is ignored) and prints them as
//! `%04x:%04x`. The kernel allows it in the mangle table (FORWARD, OUTPUT, POSTROUTING) and
//! in the filter table's FORWARD and OUTPUT chains.

use std::mem::size_of;

use iptnl_sys::xt::xt_classify_target_info;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Ty,
    Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j CLASSIFY`.
pub static DESC: ExtDesc = ExtDesc {
    name: "CLASSIFY",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([Opt::new("set-class", Ty::Str { min: 0, max: 0 }).mand()]),
    new: |_| Box::new(Classify::default()),
    xt_names: &["CLASSIFY"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j CLASSIFY --set-class MAJOR:MINOR`, as `struct xt_classify_target_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Classify {
    /// `major << 16 | minor`.
    pub priority: u32,
}

/// One `%x` conversion: white space, an optional sign, an optional `0x`, hex digits.
fn scan_hex(s: &str) -> Option<(u32, &str)> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let t = match t.get(..2) {
        Some(p)
            if p.eq_ignore_ascii_case("0x")
                && t[2..].starts_with(|c: char| c.is_ascii_hexdigit()) =>
        {
            &t[2..]
        }
        _ => t,
    };
    let n = t.bytes().take_while(u8::is_ascii_hexdigit).count();
    if n == 0 {
        return None;
    }
    let mut v: u64 = 0;
    for c in t[..n].chars() {
        v = v
            .saturating_mul(16)
            .saturating_add(u64::from(c.to_digit(16)?));
    }
    // strtoul saturates at ULONG_MAX; scanf stores it in an unsigned int.
    let v = v.min(u64::from(u32::MAX)) as u32;
    Some((if neg { v.wrapping_neg() } else { v }, &t[n..]))
}

fn parse_class(s: &str) -> Option<u32> {
    let (major, rest) = scan_hex(s)?;
    let rest = rest.strip_prefix(':')?;
    let (minor, _) = scan_hex(rest)?;
    Some((major << 16) | (minor & 0xffff))
}

/// `struct xt_classify_target_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Classify> = XtStruct::new(
    "xt_classify_target_info",
    size_of::<xt_classify_target_info>(),
    0,
    &[xt_field!(xt_classify_target_info, priority: U32 => priority)],
);

impl Extension for Classify {
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
        let v = val.text();
        self.priority = parse_class(v)
            .ok_or_else(|| ParseError::bad("--set-class", format!("Bad class value \"{v}\"")))?;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("CLASSIFY", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(&format!(
            " --set-class {:04x}:{:04x}",
            self.priority >> 16,
            self.priority & 0xffff
        ));
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(&format!(
            " CLASSIFY set {:x}:{:x}",
            self.priority >> 16,
            self.priority & 0xffff
        ));
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(parse_class("1:10"), Some(0x0001_0010));
        assert_eq!(parse_class("ffff:ffff"), Some(0xffff_ffff));
        assert_eq!(parse_class("10000:1"), Some(1));
        assert_eq!(parse_class("0x1:2"), Some(0x0001_0002));
        assert_eq!(parse_class("1:2x"), Some(0x0001_0002));
        assert_eq!(parse_class("1"), None);
        assert_eq!(parse_class("1:"), None);
        assert_eq!(parse_class("1 :2"), None);
    }
}
