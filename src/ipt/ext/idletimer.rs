//! `IDLETIMER`: a timer per label that each packet restarts and that notifies user space
//! (sysfs, netlink) once it expires (`libxt_IDLETIMER.c`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `IDLETIMER` target, rev 1,
//! `idletimer_tg_info_v1` (48 bytes): the timeout in seconds, the label (cut to 27 bytes as
//! libxtables cuts strings), `send_nl_msg` and `timer_type` (1 for `--alarm`); the kernel's
//! timer pointer is sent as zero. Rev 0 (`idletimer_tg_info`, no flags), which an older
//! iptables or kernel wrote, is decoded too. `--timeout` and `--label` are mandatory.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    idletimer_tg_info, idletimer_tg_info_v1, MAX_IDLETIMER_LABEL_SIZE, XT_IDLETIMER_ALARM,
};

use super::base::libxt::{text, truncate_bytes};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_target, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::{STR, U32};
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// `-j IDLETIMER`.
pub static DESC: ExtDesc = ExtDesc {
    name: "IDLETIMER",
    kind: ExtKind::Target,
    family: None,
    options: &super::base::opts::table([
        Opt::new("timeout", U32).mand(),
        Opt::new("label", STR).mand(),
        Opt::flag("alarm"),
        Opt::flag("send_nl_msg"),
    ]),
    new: |_| Box::new(Idletimer::default()),
    xt_names: &["IDLETIMER"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// `-j IDLETIMER --timeout SECONDS --label NAME [--alarm] [--send_nl_msg]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Idletimer {
    /// Revision: 1, or 0 for a rule an older iptables wrote.
    pub rev: u32,
    /// Seconds.
    pub timeout: u32,
    /// The label's bytes (at most 27).
    pub label: Vec<u8>,
    /// `--alarm` (rev 1).
    pub alarm: bool,
    /// `--send_nl_msg` (rev 1).
    pub send_nl_msg: bool,
}

impl Default for Idletimer {
    fn default() -> Self {
        Idletimer {
            rev: 1,
            timeout: 0,
            label: Vec::new(),
            alarm: false,
            send_nl_msg: false,
        }
    }
}

/// `struct idletimer_tg_info` (revision 0), field by field; the kernel's timer pointer
/// after them is sent as zero and not read.
static V0: XtStruct<Idletimer> = XtStruct::new(
    "idletimer_tg_info",
    size_of::<idletimer_tg_info>(),
    0,
    &[
        xt_field!(idletimer_tg_info, timeout: U32 => timeout),
        xt_field!(idletimer_tg_info, label: CBytes(MAX_IDLETIMER_LABEL_SIZE) => label),
    ],
);

/// `struct idletimer_tg_info_v1`, field by field: it decodes the options and encodes them
/// (`timer_type` is `XT_IDLETIMER_ALARM` for `--alarm`); the timer pointer as in [`V0`].
static V1: XtStruct<Idletimer> = XtStruct::new(
    "idletimer_tg_info_v1",
    size_of::<idletimer_tg_info_v1>(),
    1,
    &[
        xt_field!(idletimer_tg_info_v1, timeout: U32 => timeout),
        xt_field!(idletimer_tg_info_v1, label: CBytes(MAX_IDLETIMER_LABEL_SIZE) => label),
        xt_field!(idletimer_tg_info_v1, send_nl_msg: Flag => send_nl_msg),
        Field {
            name: "timer_type",
            at: offset_of!(idletimer_tg_info_v1, timer_type),
            kind: Kind::U8(
                |s| if s.alarm { XT_IDLETIMER_ALARM } else { 0 },
                |s, v| s.alarm = v == XT_IDLETIMER_ALARM,
            ),
        },
    ],
);

impl Extension for Idletimer {
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
            "timeout" => self.timeout = val.uint() as u32,
            "label" => self.label = truncate_bytes(val.text(), MAX_IDLETIMER_LABEL_SIZE),
            "alarm" => self.alarm = true,
            _ => self.send_nl_msg = true,
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        let t = if self.rev == 0 { &V0 } else { &V1 };
        out.push(xt_target("IDLETIMER", self.rev, t.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(&format!(
            " --timeout {} --label {}",
            self.timeout,
            text(&self.label)
        ));
        if self.alarm {
            out.push_str(" --alarm");
        }
        if self.send_nl_msg {
            out.push_str(" --send_nl_msg");
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(&format!(
            " timeout:{} label:{}",
            self.timeout,
            text(&self.label)
        ));
        if self.alarm {
            out.push_str(" alarm");
        }
        if self.send_nl_msg {
            out.push_str(" send_nl_msg");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // The table of the revision and where the timer pointer, which the kernel fills in,
    // starts.
    let (t, timer) = match rev {
        0 => (&V0, offset_of!(idletimer_tg_info, timer)),
        1 => (&V1, offset_of!(idletimer_tg_info_v1, timer)),
        _ => return None,
    };
    let d = Idletimer {
        rev,
        ..t.decode(rev, info)?
    };
    // Only what iptables writes: a NUL-terminated UTF-8 label with zeros after it, known
    // flag values and zero padding, all that re-encoding gives back (the timer pointer is
    // not compared, as in iptables).
    let ok = d.label.len() < MAX_IDLETIMER_LABEL_SIZE
        && std::str::from_utf8(&d.label).is_ok()
        && t.encode(&d)[..timer] == info[..timer];
    ok.then(|| Box::new(d) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::super::save_round;
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn timers() {
        let v4 = IpFamily::V4;
        assert_eq!(
            save_round(v4, "-j IDLETIMER --alarm --label bar --timeout 42").unwrap(),
            "-j IDLETIMER --timeout 42 --label bar --alarm"
        );
        assert_eq!(
            save_round(
                v4,
                "-j IDLETIMER --timeout 1 --label abcdefghijklmnopqrstuvwxyz0123 --send_nl_msg"
            )
            .unwrap(),
            "-j IDLETIMER --timeout 1 --label abcdefghijklmnopqrstuvwxyz0 --send_nl_msg"
        );
        let err = |s: &str| parse_rule_str(v4, s).unwrap_err().to_string();
        assert!(err("-j IDLETIMER --timeout 42").contains("\"--label\" must be specified"));
    }
}
