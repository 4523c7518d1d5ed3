//! `string`: a pattern searched for in the packet by a kernel text-search algorithm
//! (`--algo bm|kmp`, `--from`, `--to`, `[!] --string`, `[!] --hex-string`, `--icase`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `string` match, rev 1, `xt_string_info`
//! (160 bytes); `--to` is 65535 unless given. Revision 0 (an invert byte, no `--icase`) is
//! decoded too. A pattern with a byte that is not printable ASCII, or ending in `\`, is
//! shown as `--hex-string "|…|"`.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_string_info, XT_STRING_FLAG_IGNORECASE, XT_STRING_FLAG_INVERT, XT_STRING_MAX_ALGO_NAME_SIZE,
    XT_STRING_MAX_PATTERN_SIZE,
};

use super::base::libxt::{text, truncate_bytes};
use super::base::opts::{STR, U16};
use super::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `string` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "string",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::new("from", U16),
        Opt::new("to", U16),
        Opt::new("algo", STR).mand(),
        Opt::new("string", STR).inv().excl(&["hex-string"]),
        Opt::new("hex-string", STR).inv().excl(&["string"]),
        Opt::flag("icase"),
    ]),
    new: |_| Box::new(StringMatch::default()),
    xt_names: &["string"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m string`, as in `struct xt_string_info`.
#[derive(Debug, Clone, PartialEq)]
pub struct StringMatch {
    /// The match revision: 1, or 0 when decoded from a revision-0 rule.
    pub rev: u32,
    /// First offset searched.
    pub from: u16,
    /// Last offset searched.
    pub to: u16,
    /// The algorithm (at most 15 bytes).
    pub algo: Vec<u8>,
    /// The pattern (at most 128 bytes).
    pub pattern: Vec<u8>,
    /// `XT_STRING_FLAG_*` (revision 0: `XT_STRING_FLAG_INVERT` for its invert byte).
    pub flags: u8,
}

impl Default for StringMatch {
    fn default() -> StringMatch {
        StringMatch {
            rev: 1,
            from: 0,
            to: u16::MAX,
            algo: Vec::new(),
            pattern: Vec::new(),
            flags: 0,
        }
    }
}

fn too_long(opt: &str, s: &str) -> ParseError {
    ParseError::bad(opt, format!("STRING too long \"{s}\""))
}

/// `parse_hex_string`: text with `|hex hex …|` blocks and `\`-escaped characters.
pub fn parse_hex_string(s: &str) -> Result<Vec<u8>, ParseError> {
    let bad = |m: String| ParseError::bad("--hex-string", m);
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let slen = b.len();
    if slen == 0 {
        return Err(bad("STRING must contain at least one char".into()));
    }
    let mut out = Vec::new();
    let (mut i, mut hex, mut literal) = (0usize, false, false);
    while i < slen {
        if out.len() >= XT_STRING_MAX_PATTERN_SIZE {
            return Err(too_long("--hex-string", s));
        }
        if at(i) == b'\\' && !hex {
            literal = true;
        } else if at(i) == b'\\' {
            return Err(bad("Cannot include literals in hex data".into()));
        } else if at(i) == b'|' {
            if hex {
                hex = false;
            } else {
                hex = true;
                while at(i + 1) == b' ' {
                    i += 1;
                }
            }
            if i + 1 >= slen {
                break;
            }
            i += 1;
        }
        if literal {
            if i + 1 >= slen {
                return Err(bad("Bad literal placement at end of string".into()));
            }
            out.push(at(i + 1));
            i += 2;
            literal = false;
        } else if hex {
            if i + 1 >= slen {
                return Err(bad("Odd number of hex digits".into()));
            }
            if i + 2 >= slen {
                return Err(bad("Invalid hex block".into()));
            }
            for c in [at(i), at(i + 1)] {
                if !c.is_ascii_hexdigit() {
                    return Err(bad(format!("Invalid hex char '{}'", char::from(c))));
                }
            }
            let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(digit(at(i)) << 4 | digit(at(i + 1)));
            i += if at(i + 2) == b' ' { 3 } else { 2 };
        } else {
            out.push(at(i));
            i += 1;
        }
    }
    Ok(out)
}

/// `is_hex_string`: a byte that is not printable ASCII, or a last byte `\`.
fn is_hex(p: &[u8]) -> bool {
    p.iter().any(|c| !(0x20..0x7f).contains(c)) || p.last() == Some(&b'\\')
}

/// ` "|hex|"` or ` "text"` (with `"` and `\` escaped), as iptables prints a pattern.
fn push_pattern(out: &mut String, p: &[u8]) {
    if is_hex(p) {
        out.push_str(" \"|");
        for c in p {
            out.push_str(&format!("{c:02x}"));
        }
        out.push_str("|\"");
    } else {
        out.push_str(" \"");
        for &c in p {
            if c == b'"' || c == b'\\' {
                out.push('\\');
            }
            out.push(char::from(c));
        }
        out.push('"');
    }
}

/// The fields of `struct xt_string_info`, the same in both revisions (revision 0's invert
/// byte is revision 1's flags). `patlen` comes first: it sizes the pattern it is read
/// before. The kernel's `config` pointer is written as zero and compared, as it dumps it.
const FIELDS: &[Field<StringMatch>] = &[
    xt_field!(xt_string_info, from_offset: U16 => from),
    xt_field!(xt_string_info, to_offset: U16 => to),
    Field {
        name: "algo",
        at: offset_of!(xt_string_info, algo),
        kind: Kind::CBytes(
            XT_STRING_MAX_ALGO_NAME_SIZE,
            |s| &s.algo[..s.algo.len().min(XT_STRING_MAX_ALGO_NAME_SIZE - 1)],
            |s, v| s.algo = v,
        ),
    },
    Field {
        name: "patlen",
        at: offset_of!(xt_string_info, patlen),
        kind: Kind::U8(
            |s| s.pattern.len().min(XT_STRING_MAX_PATTERN_SIZE) as u8,
            |s, n| s.pattern = vec![0; n.into()],
        ),
    },
    Field {
        name: "pattern",
        at: offset_of!(xt_string_info, pattern),
        kind: Kind::Bytes(
            XT_STRING_MAX_PATTERN_SIZE,
            |s| &s.pattern,
            // `patlen` bytes, when the field holds them.
            |s, v| s.pattern = v.get(..s.pattern.len()).unwrap_or(v).to_vec(),
        ),
    },
    xt_field!(xt_string_info, u: U8 => flags),
];

/// Revision 0 of `struct xt_string_info`.
static INFO0: XtStruct<StringMatch> =
    XtStruct::new("xt_string_info", size_of::<xt_string_info>(), 0, FIELDS);

/// Revision 1 of `struct xt_string_info`.
static INFO1: XtStruct<StringMatch> =
    XtStruct::new("xt_string_info", size_of::<xt_string_info>(), 1, FIELDS);

/// Both revisions.
static INFO: XtRevs<StringMatch> = XtRevs(&[&INFO0, &INFO1]);

impl StringMatch {
    fn to_xt(&self) -> Vec<u8> {
        INFO.get(self.rev).unwrap_or(&INFO1).encode(self)
    }

    fn inv(&self) -> bool {
        self.flags & XT_STRING_FLAG_INVERT != 0
    }

    fn icase(&self) -> bool {
        self.rev > 0 && self.flags & XT_STRING_FLAG_IGNORECASE != 0
    }
}

impl Extension for StringMatch {
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
        let v = val.text();
        match opt.name {
            "from" => self.from = val.uint() as u16,
            "to" => self.to = val.uint() as u16,
            "algo" => self.algo = truncate_bytes(v, XT_STRING_MAX_ALGO_NAME_SIZE),
            "string" | "hex-string" => {
                self.pattern = if opt.name == "string" {
                    if v.len() > XT_STRING_MAX_PATTERN_SIZE {
                        return Err(too_long("--string", v));
                    }
                    v.as_bytes().to_vec()
                } else {
                    parse_hex_string(v)?
                };
                if inv {
                    self.flags |= XT_STRING_FLAG_INVERT;
                }
            }
            _ => self.flags |= XT_STRING_FLAG_IGNORECASE,
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if !ctx.given.has("string") && !ctx.given.has("hex-string") {
            return Err(ParseError::Invalid(
                "STRING match: You must specify `--string' or `--hex-string'".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("string", self.rev, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.inv() {
            out.push_str(" !");
        }
        out.push_str(if is_hex(&self.pattern) {
            " --hex-string"
        } else {
            " --string"
        });
        push_pattern(out, &self.pattern);
        out.push_str(" --algo ");
        out.push_str(&text(&self.algo));
        if self.from != 0 {
            out.push_str(&format!(" --from {}", self.from));
        }
        if self.to != u16::MAX {
            out.push_str(&format!(" --to {}", self.to));
        }
        if self.icase() {
            out.push_str(" --icase");
        }
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" STRING match ");
        if self.inv() {
            out.push('!');
        }
        push_pattern(out, &self.pattern);
        out.push_str(" ALGO name ");
        out.push_str(&text(&self.algo));
        if self.from != 0 {
            out.push_str(&format!(" FROM {}", self.from));
        }
        if self.to != u16::MAX {
            out.push_str(&format!(" TO {}", self.to));
        }
        if self.icase() {
            out.push_str(" ICASE");
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let s = StringMatch {
        rev,
        ..INFO.decode(rev, info)?
    };
    // Revision 0 has an invert byte of 0 or 1, revision 1 two flags; an algorithm name the
    // save form can carry.
    let max_flags = if rev == 0 {
        XT_STRING_FLAG_INVERT
    } else {
        XT_STRING_FLAG_INVERT | XT_STRING_FLAG_IGNORECASE
    };
    let plain_algo =
        s.algo.len() < XT_STRING_MAX_ALGO_NAME_SIZE && s.algo.iter().all(|c| c.is_ascii_graphic());
    (s.flags <= max_flags && plain_algo && s.to_xt() == info).then(|| Box::new(s) as _)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::{decode_rule, encode_rule, parse_rule};

    fn round(args: &[&str]) -> Result<String, String> {
        let spec = parse_rule(IpFamily::V4, args).map_err(|e| e.to_string())?;
        let r =
            encode_rule(&spec[0], IpFamily::V4, "filter", "INPUT").map_err(|e| e.to_string())?;
        Ok(decode_rule(&r, IpFamily::V4)
            .map_err(|e| e.to_string())?
            .to_save_args())
    }

    #[test]
    fn hex_strings() {
        assert_eq!(parse_hex_string("|0a0a|").unwrap(), b"\n\n");
        assert_eq!(parse_hex_string("ab|41 42|c").unwrap(), b"abABc");
        assert_eq!(parse_hex_string("| 41|").unwrap(), b"A");
        assert_eq!(parse_hex_string("\\|x").unwrap(), b"|x");
        assert!(parse_hex_string("").is_err());
        assert!(parse_hex_string("|4|").is_err());
        assert!(parse_hex_string("|4g|").is_err());
        assert!(parse_hex_string("|41").is_err());
        assert!(parse_hex_string("x\\").is_err());
        assert!(parse_hex_string("|4\\1|").is_err());
        assert!(parse_hex_string(&"|41|".repeat(129)).is_err());
    }

    #[test]
    fn forms() {
        let m = |a: &[&str]| {
            let mut v = vec!["-m", "string"];
            v.extend_from_slice(a);
            round(&v)
        };
        assert_eq!(
            m(&["--algo", "bm", "--string", "test"]).unwrap(),
            "-m string --string \"test\" --algo bm"
        );
        assert_eq!(
            m(&[
                "!", "--string", "a\"b\\c", "--algo", "kmp", "--from", "1", "--to", "9", "--icase"
            ])
            .unwrap(),
            "-m string ! --string \"a\\\"b\\\\c\" --algo kmp --from 1 --to 9 --icase"
        );
        assert_eq!(
            m(&["--hex-string", "|0a0a0a0a|", "--algo", "bm"]).unwrap(),
            "-m string --hex-string \"|0a0a0a0a|\" --algo bm"
        );
        assert_eq!(
            m(&["--hex-string", "ab\\\\", "--algo", "bm"]).unwrap(),
            "-m string --hex-string \"|61625c|\" --algo bm"
        );
        assert!(m(&["--string", &"x".repeat(129), "--algo", "bm"]).is_err());
        assert!(m(&["--string", &"x".repeat(128), "--algo", "bm"]).is_ok());
        assert_eq!(
            m(&["--algo", "bm"]).unwrap_err(),
            "STRING match: You must specify `--string' or `--hex-string'"
        );
        assert!(m(&["--string", "a"]).is_err());
        assert!(m(&["--string", "a", "--hex-string", "b", "--algo", "bm"]).is_err());
    }
}
