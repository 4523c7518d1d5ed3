//! `connbytes`: the packets, bytes or average packet size a connection has carried so far
//! (`--connbytes from[:to]`, `--connbytes-mode packets|bytes|avgpkt`,
//! `--connbytes-dir original|reply|both`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `connbytes` match, rev 0,
//! `xt_connbytes_info` (24 bytes); `! --connbytes` swaps the bounds.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_connbytes_info, XT_CONNBYTES_AVGPKT, XT_CONNBYTES_BYTES, XT_CONNBYTES_DIR_BOTH,
    XT_CONNBYTES_DIR_ORIGINAL, XT_CONNBYTES_DIR_REPLY, XT_CONNBYTES_PKTS,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Ty, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `connbytes` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "connbytes",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new(
            "connbytes",
            Ty::Range {
                min: 0,
                max: u64::MAX,
                ordered: true,
            },
        )
        .inv()
        .mand(),
        Opt::new("connbytes-dir", STR).mand(),
        Opt::new("connbytes-mode", STR).mand(),
    ]),
    new: |_| Box::new(ConnBytes::default()),
    xt_names: &["connbytes"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

const MODES: [(&str, u8); 3] = [
    ("packets", XT_CONNBYTES_PKTS),
    ("bytes", XT_CONNBYTES_BYTES),
    ("avgpkt", XT_CONNBYTES_AVGPKT),
];

const DIRS: [(&str, u8); 3] = [
    ("original", XT_CONNBYTES_DIR_ORIGINAL),
    ("reply", XT_CONNBYTES_DIR_REPLY),
    ("both", XT_CONNBYTES_DIR_BOTH),
];

/// Options of `-m connbytes`, as in `struct xt_connbytes_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConnBytes {
    /// `count.from` (above `to` when negated).
    pub from: u64,
    /// `count.to`.
    pub to: u64,
    /// `XT_CONNBYTES_PKTS`, `_BYTES` or `_AVGPKT`.
    pub what: u8,
    /// `XT_CONNBYTES_DIR_*`.
    pub direction: u8,
}

fn name_of(list: &[(&'static str, u8)], v: u8) -> &'static str {
    list.iter()
        .find(|(_, x)| *x == v)
        .map_or("unknown", |(n, _)| n)
}

/// `struct xt_connbytes_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<ConnBytes> = XtStruct::new(
    "xt_connbytes_info",
    size_of::<xt_connbytes_info>(),
    0,
    &[
        xt_field!(xt_connbytes_info, from: U64 => from),
        xt_field!(xt_connbytes_info, to: U64 => to),
        xt_field!(xt_connbytes_info, what: U8 => what),
        xt_field!(xt_connbytes_info, direction: U8 => direction),
    ],
);

impl ConnBytes {
    /// `print_from_to`, then the mode and the direction, with `pfx` (`--` for save) and the
    /// words between them.
    fn show(&self, pfx: &str, mode: &str, dir: &str, out: &mut String) {
        let (from, to) = if self.from > self.to {
            out.push_str(" !");
            (self.to, self.from)
        } else {
            (self.from, self.to)
        };
        out.push(' ');
        out.push_str(pfx);
        out.push_str("connbytes ");
        out.push_str(&from.to_string());
        if to != 0 && to < u64::MAX {
            out.push(':');
            out.push_str(&to.to_string());
        }
        out.push_str(mode);
        out.push(' ');
        out.push_str(name_of(&MODES, self.what));
        out.push_str(dir);
        out.push(' ');
        out.push_str(name_of(&DIRS, self.direction));
    }
}

impl Extension for ConnBytes {
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
        match opt.name {
            "connbytes" => {
                // One number is `from` with no upper bound.
                let [from, to] = match val {
                    Val::Range([from, _], 1) => [from, u64::MAX],
                    _ => val.range(),
                };
                (self.from, self.to) = if inv { (to, from) } else { (from, to) };
            }
            "connbytes-dir" => {
                let v = val.text();
                self.direction = DIRS
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|(_, d)| *d)
                    .ok_or_else(|| {
                        ParseError::bad("--connbytes-dir", format!("Unknown --connbytes-dir `{v}'"))
                    })?;
            }
            _ => {
                let v = val.text();
                self.what = MODES
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|(_, d)| *d)
                    .ok_or_else(|| {
                        ParseError::bad(
                            "--connbytes-mode",
                            format!("Unknown --connbytes-mode `{v}'"),
                        )
                    })?;
            }
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("connbytes", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.show("--", " --connbytes-mode", " --connbytes-dir", out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        self.show("", " connbytes mode", " connbytes direction", out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    // Any bounds, as iptables lists them (`0:0` is saved as `0`, which reads back as `0:`).
    let ok = c.what <= XT_CONNBYTES_AVGPKT && c.direction <= XT_CONNBYTES_DIR_BOTH;
    ok.then(|| Box::new(c) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::IpFamily;

    fn round(args: &str) -> Result<String, String> {
        crate::ipt::ext::save_round(IpFamily::V4, args)
    }

    #[test]
    fn counts() {
        let tail = " --connbytes-mode packets --connbytes-dir original";
        for (given, want) in [
            ("0:1000", "0:1000"),
            (":", "0"),
            (":1000", "0:1000"),
            ("1000", "1000"),
            ("1000:", "1000"),
            ("1000:1000", "1000:1000"),
        ] {
            assert_eq!(
                round(&format!("-m connbytes --connbytes {given}{tail}")).unwrap(),
                format!("-m connbytes --connbytes {want}{tail}")
            );
        }
        assert_eq!(
            round(&format!("-m connbytes ! --connbytes 10:20{tail}")).unwrap(),
            format!("-m connbytes ! --connbytes 10:20{tail}")
        );
        for bad in ["-1:0", "0:-1", "1000:0", "0:18446744073709551616"] {
            assert!(round(&format!("-m connbytes --connbytes {bad}{tail}")).is_err());
        }
        assert_eq!(
            round("-m connbytes --connbytes 0:1000 --connbytes-mode wrong --connbytes-dir both")
                .unwrap_err(),
            "--connbytes-mode: Unknown --connbytes-mode `wrong'"
        );
        assert!(round("-m connbytes --connbytes 0:1000 --connbytes-dir original").is_err());
        assert!(round("-m connbytes").is_err());
    }
}
