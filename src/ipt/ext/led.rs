//! `LED`: blink an LED trigger on packets (`libxt_LED.c`).
//!
//! Encoding (iptables 1.8.9): the x_tables `LED` target, rev 0, `xt_led_info` (40 bytes):
//! the trigger name `netfilter-ID` (`--led-trigger-id`, mandatory, at most 16 bytes), the
//! delay in milliseconds (`--led-delay`, a number or a word starting with `inf`, which is
//! `u32::MAX`) and the always-blink flag; the kernel's pointer is sent as zero and not
//! compared. The id is saved in double quotes; the delay is printed as a signed number, as
//! iptables prints it (`inf` saves as `-1`). Kernels without `xt_LED` refuse the rule.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{xt_led_info, XT_LED_ID_SIZE};

use super::base::libxt::{strtoul_full, text};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// What the kernel's trigger names start with.
const PREFIX: &[u8] = b"netfilter-";

/// `-j LED`.
pub static DESC: ExtDesc = ExtDesc {
    name: "LED",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        // The id field less the prefix and its NUL.
        Opt::new("led-trigger-id", Ty::Str { min: 0, max: 16 }).mand(),
        Opt::new("led-delay", STR),
        Opt::flag("led-always-blink"),
    ]),
    new: |_| Box::new(Led::default()),
    xt_names: &["LED"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j LED --led-trigger-id ID [--led-delay MS] [--led-always-blink]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Led {
    /// The id's bytes, without the `netfilter-` prefix.
    pub id: Vec<u8>,
    /// Milliseconds, `u32::MAX` for ever.
    pub delay: u32,
    /// `--led-always-blink`.
    pub always_blink: bool,
}

/// `struct xt_led_info`, field by field: it decodes the options and encodes them. The
/// trigger name `id` is the constant prefix then the id the options hold; the kernel's
/// pointer after `delay` is sent as zero and not read.
static INFO: XtStruct<Led> = XtStruct::new(
    "xt_led_info",
    size_of::<xt_led_info>(),
    0,
    &[
        Field {
            name: "id",
            at: offset_of!(xt_led_info, id),
            kind: Kind::Derived(PREFIX.len(), |_| PREFIX.to_vec()),
        },
        Field {
            name: "id (after the prefix)",
            at: offset_of!(xt_led_info, id) + PREFIX.len(),
            kind: Kind::CBytes(XT_LED_ID_SIZE - PREFIX.len(), |s| &s.id, |s, v| s.id = v),
        },
        xt_field!(xt_led_info, always_blink: Flag => always_blink),
        xt_field!(xt_led_info, delay: U32 => delay),
    ],
);

impl Led {
    /// The id in double quotes, `"` and `\` escaped.
    fn quoted(&self) -> String {
        let mut s = String::from("\"");
        for c in text(&self.id).chars() {
            if c == '"' || c == '\\' {
                s.push('\\');
            }
            s.push(c);
        }
        s.push('"');
        s
    }
}

impl Extension for Led {
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
        let v = val.text();
        match opt.name {
            "led-trigger-id" => {
                let b = v.as_bytes();
                let room = XT_LED_ID_SIZE - 1 - PREFIX.len();
                self.id = b[..b.len().min(room)].to_vec();
            }
            "led-delay" => {
                self.delay = if v.len() >= 3 && v.as_bytes()[..3].eq_ignore_ascii_case(b"inf") {
                    u32::MAX
                } else {
                    strtoul_full(v, 0, u64::from(u32::MAX)).ok_or_else(|| {
                        ParseError::bad(
                            "--led-delay",
                            format!("Delay value must be within range 0..{}", u32::MAX),
                        )
                    })? as u32
                };
            }
            _ => self.always_blink = true,
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_target("LED", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(" --led-trigger-id ");
        out.push_str(&self.quoted());
        if self.delay > 0 {
            out.push_str(&format!(" --led-delay {}", self.delay as i32));
        }
        if self.always_blink {
            out.push_str(" --led-always-blink");
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" led-trigger-id:");
        out.push_str(&self.quoted());
        if self.delay == u32::MAX {
            out.push_str(" led-delay:inf");
        } else {
            out.push_str(&format!(" led-delay:{}ms", self.delay as i32));
        }
        if self.always_blink {
            out.push_str(" led-always-blink");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let l = INFO.decode(rev, info)?;
    // `netfilter-ID`, NUL-terminated with zeros after it, and a flag of 0 or 1: what
    // re-encoding gives up to the flag (the padding after it is not compared, nor the
    // pointer, which is the kernel's).
    let fields = offset_of!(xt_led_info, always_blink) + 1;
    let ok = l.id.len() < XT_LED_ID_SIZE - PREFIX.len()
        && std::str::from_utf8(&l.id).is_ok()
        && INFO.encode(&l)[..fields] == info[..fields];
    ok.then(|| Box::new(l) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn triggers() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(v4, "-j LED --led-trigger-id foo").unwrap(),
            "-j LED --led-trigger-id \"foo\""
        );
        assert_eq!(
            save_round(
                v4,
                "-j LED --led-trigger-id foo --led-delay 42 --led-always-blink"
            )
            .unwrap(),
            "-j LED --led-trigger-id \"foo\" --led-delay 42 --led-always-blink"
        );
        assert_eq!(
            save_round(v4, "-j LED --led-trigger-id a\"b --led-delay INFinite").unwrap(),
            "-j LED --led-trigger-id \"a\\\"b\" --led-delay -1"
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j LED").contains("\"--led-trigger-id\" must be specified"));
        assert!(err("-j LED --led-trigger-id x --led-delay x").contains("Delay value must be"));
        assert!(err("-j LED --led-trigger-id 01234567890123456").contains("maximum length"));
    }
}
