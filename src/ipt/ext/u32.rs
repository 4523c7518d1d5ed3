//! `u32`: tests on 32-bit words read from the packet (`--u32 "0x0>>0x16&0x3c@0x8=0x11"`):
//! each test is a location (a number, then `&`, `<<`, `>>` or `@` steps) and the values
//! or ranges it may have; `&&` joins tests, all of which must hold.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `u32` match, rev 0, `struct xt_u32`.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{
    xt_u32, xt_u32_location_element, xt_u32_test, xt_u32_value_element, XT_U32_AND, XT_U32_AT,
    XT_U32_LEFTSH, XT_U32_MAXSIZE, XT_U32_RIGHTSH,
};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val, XtView,
};
use crate::ipt::ext::base::libxt::strtoul_prefix;
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `u32` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "u32",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("u32", STR).inv().mand()]),
    new: |_| Box::new(U32::default()),
    xt_names: &["u32"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// One test: the location steps (operator, number; the first operator is unused) and the
/// value ranges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct U32Test {
    /// `(XT_U32_* operator, number)` per step.
    pub location: Vec<(u8, u32)>,
    /// `(min, max)` per value.
    pub values: Vec<(u32, u32)>,
}

/// Options of `-m u32`, as in `struct xt_u32`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct U32 {
    /// The tests.
    pub tests: Vec<U32Test>,
    /// `! --u32`.
    pub invert: bool,
}

fn err(msg: String) -> ParseError {
    ParseError::Invalid(format!("u32: {msg}"))
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A number at byte `at` of `s` (blanks, `+`, `0x` and octal as `strtoul` reads them).
fn number(s: &str, at: &mut usize) -> Result<u32, ParseError> {
    let pos = *at;
    let bad = || err(format!("at char {pos}: not a number or out of range"));
    let (v, rest) = strtoul_prefix(&s[pos..]).ok_or_else(bad)?;
    let v = u32::try_from(v).map_err(|_| bad())?;
    *at = s.len() - rest.len();
    Ok(v)
}

/// Reads the tests as libxt_u32's parser does, with its messages.
fn parse_tests(s: &str) -> Result<Vec<U32Test>, ParseError> {
    let b = s.as_bytes();
    let mut tests = Vec::new();
    let mut cur = U32Test::default();
    let mut reading_values = false;
    let mut i = 0;
    loop {
        while b.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        let Some(&c) = b.get(i) else {
            if !reading_values {
                return Err(err("abrupt end of input after location specifier".into()));
            }
            if cur.values.is_empty() {
                return Err(err("test ended with no value specified".into()));
            }
            tests.push(cur);
            if tests.len() > XT_U32_MAXSIZE {
                return Err(err(format!("at char {i}: too many \"&&\"s")));
            }
            return Ok(tests);
        };
        if !reading_values {
            if c == b'=' {
                if cur.location.is_empty() {
                    return Err(err(format!("at char {i}: location spec missing")));
                }
                i += 1;
                reading_values = true;
                continue;
            }
            let mut op = XT_U32_AND;
            if !cur.location.is_empty() {
                op = match c {
                    b'&' => XT_U32_AND,
                    b'<' | b'>' => {
                        i += 1;
                        if b.get(i) != Some(&c) {
                            let which = c as char;
                            return Err(err(format!(
                                "at char {i}: a second '{which}' was expected"
                            )));
                        }
                        if c == b'<' {
                            XT_U32_LEFTSH
                        } else {
                            XT_U32_RIGHTSH
                        }
                    }
                    b'@' => XT_U32_AT,
                    _ => return Err(err(format!("at char {i}: operator expected"))),
                };
                i += 1;
            }
            let n = number(s, &mut i)?;
            cur.location.push((op, n));
            if cur.location.len() > XT_U32_MAXSIZE {
                return Err(err(format!("at char {i}: too many operators")));
            }
        } else if c == b'&' {
            i += 1;
            if b.get(i) != Some(&b'&') {
                return Err(err(format!("at char {i}: a second '&' was expected")));
            }
            if cur.values.is_empty() {
                return Err(err(format!("at char {i}: value spec missing")));
            }
            tests.push(std::mem::take(&mut cur));
            if tests.len() > XT_U32_MAXSIZE {
                return Err(err(format!("at char {i}: too many \"&&\"s")));
            }
            i += 1;
            reading_values = false;
        } else {
            if !cur.values.is_empty() {
                if c != b',' {
                    return Err(err(format!("at char {i}: expected \",\" or \"&&\"")));
                }
                i += 1;
            }
            let min = number(s, &mut i)?;
            while b.get(i).copied().is_some_and(is_space) {
                i += 1;
            }
            let max = if b.get(i) == Some(&b':') {
                i += 1;
                number(s, &mut i)?
            } else {
                min
            };
            cur.values.push((min, max));
            if cur.values.len() > XT_U32_MAXSIZE {
                return Err(err(format!("at char {i}: too many \",\"s")));
            }
        }
    }
}

const LOC: usize = size_of::<xt_u32_location_element>();
const VAL: usize = size_of::<xt_u32_value_element>();
const TEST: usize = size_of::<xt_u32_test>();

impl U32 {
    fn to_xt(&self) -> Vec<u8> {
        XT_U32.encode(self)
    }

    /// `u32_dump`: the tests in double quotes, every number in hex.
    fn dump(&self, out: &mut String) {
        out.push_str(" \"");
        for (t, test) in self.tests.iter().enumerate() {
            if t > 0 {
                out.push_str("&&");
            }
            for (k, &(op, n)) in test.location.iter().enumerate() {
                if k > 0 {
                    out.push_str(match op {
                        XT_U32_AND => "&",
                        XT_U32_LEFTSH => "<<",
                        XT_U32_RIGHTSH => ">>",
                        _ => "@",
                    });
                }
                out.push_str(&format!("{n:#x}"));
            }
            out.push('=');
            for (k, &(min, max)) in test.values.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                if min == max {
                    out.push_str(&format!("{min:#x}"));
                } else {
                    out.push_str(&format!("{min:#x}:{max:#x}"));
                }
            }
        }
        out.push('"');
    }
}

impl Extension for U32 {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        _opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        // A C argument ends at its first NUL.
        let s = val.text().split('\0').next().unwrap_or_default();
        self.tests = parse_tests(s)?;
        self.invert = inv;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("u32", 0, self.to_xt()));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        if self.invert {
            out.push_str(" !");
        }
        out.push_str(" --u32");
        self.dump(out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(" u32");
        if self.invert {
            out.push_str(" !");
        }
        self.dump(out);
    }

    crate::ext_boilerplate!();
}

/// Writes the tests into the zeroed `tests` array.
fn write_tests(u: &U32, f: &mut [u8]) {
    let mut put = |at: usize, b: &[u8]| f[at..at + b.len()].copy_from_slice(b);
    for (t, test) in u.tests.iter().take(XT_U32_MAXSIZE + 1).enumerate() {
        let base = t * TEST;
        for (k, &(op, n)) in test.location.iter().take(XT_U32_MAXSIZE + 1).enumerate() {
            let at = base + offset_of!(xt_u32_test, location) + k * LOC;
            put(
                at + offset_of!(xt_u32_location_element, number),
                &n.to_ne_bytes(),
            );
            put(at + offset_of!(xt_u32_location_element, nextop), &[op]);
        }
        for (k, &(min, max)) in test.values.iter().take(XT_U32_MAXSIZE + 1).enumerate() {
            let at = base + offset_of!(xt_u32_test, value) + k * VAL;
            put(
                at + offset_of!(xt_u32_value_element, min),
                &min.to_ne_bytes(),
            );
            put(
                at + offset_of!(xt_u32_value_element, max),
                &max.to_ne_bytes(),
            );
        }
        put(
            base + offset_of!(xt_u32_test, nnums),
            &[test.location.len() as u8],
        );
        put(
            base + offset_of!(xt_u32_test, nvalues),
            &[test.values.len() as u8],
        );
    }
}

/// Reads the `ntests` tests (`ntests` read before) that iptables can write: 1 to 10
/// tests, each with 1 to 10 steps and values, and operators it knows.
fn read_tests(u: &mut U32, f: &[u8]) -> Option<()> {
    let ntests = u.tests.len();
    if !(1..=XT_U32_MAXSIZE).contains(&ntests) {
        return None;
    }
    let v = XtView::new(f);
    for t in 0..ntests {
        let base = t * TEST;
        let nnums = usize::from(v.u8(base + offset_of!(xt_u32_test, nnums))?);
        let nvalues = usize::from(v.u8(base + offset_of!(xt_u32_test, nvalues))?);
        if !(1..=XT_U32_MAXSIZE).contains(&nnums) || !(1..=XT_U32_MAXSIZE).contains(&nvalues) {
            return None;
        }
        let test = &mut u.tests[t];
        for k in 0..nnums {
            let at = base + offset_of!(xt_u32_test, location) + k * LOC;
            let n = v.u32(at + offset_of!(xt_u32_location_element, number))?;
            let op = v.u8(at + offset_of!(xt_u32_location_element, nextop))?;
            if op > XT_U32_AT || (k == 0 && op != XT_U32_AND) {
                return None;
            }
            test.location.push((op, n));
        }
        for k in 0..nvalues {
            let at = base + offset_of!(xt_u32_test, value) + k * VAL;
            test.values.push((
                v.u32(at + offset_of!(xt_u32_value_element, min))?,
                v.u32(at + offset_of!(xt_u32_value_element, max))?,
            ));
        }
    }
    Some(())
}

/// `struct xt_u32`, revision 0: `ntests` is read first, as it sizes the tests read.
static XT_U32: XtStruct<U32> = XtStruct::new(
    "xt_u32",
    size_of::<xt_u32>(),
    0,
    &[
        Field {
            name: "ntests",
            at: offset_of!(xt_u32, ntests),
            kind: Kind::U8(
                |u| u.tests.len() as u8,
                |u, n| u.tests = vec![U32Test::default(); n.into()],
            ),
        },
        Field {
            name: "tests",
            at: offset_of!(xt_u32, tests),
            kind: Kind::Custom((XT_U32_MAXSIZE + 1) * TEST, write_tests, read_tests),
        },
        xt_field!(xt_u32, invert: Flag => invert),
    ],
);

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    XT_U32
        .decode_exact(rev, info)
        .map(|u| Box::new(u) as Box<dyn Extension>)
}

#[cfg(test)]
mod tests {
    use super::parse_tests;
    use crate::ipt::IpFamily;

    fn round(args: &[&str]) -> Result<String, String> {
        let mut a = vec!["-m", "u32"];
        a.extend_from_slice(args);
        crate::ipt::ext::save_round(IpFamily::V4, &a.join(" "))
    }

    fn msg(s: &str) -> String {
        parse_tests(s).unwrap_err().to_string()
    }

    #[test]
    fn tests_are_saved_in_hex() {
        assert_eq!(
            round(&["--u32", "0x0=0x0&&0x0=0x1"]).unwrap(),
            "-m u32 --u32 \"0x0=0x0&&0x0=0x1\""
        );
        assert_eq!(
            round(&["!", "--u32", "6&0xFF=1,17:0x20"]).unwrap(),
            "-m u32 ! --u32 \"0x6&0xff=0x1,0x11:0x20\""
        );
        let t = parse_tests(" 0 >> 22 & 0x3C @ 12 >> 26 @ 6 & 0xFFFF = 0x6:0x8 ").unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].location.len(), 7);
        assert_eq!(t[0].values, vec![(6, 8)]);
    }

    #[test]
    fn errors_as_libxt_u32() {
        assert_eq!(msg(""), "u32: abrupt end of input after location specifier");
        assert_eq!(
            msg("0"),
            "u32: abrupt end of input after location specifier"
        );
        assert_eq!(msg("0="), "u32: test ended with no value specified");
        assert_eq!(msg("=1"), "u32: at char 0: location spec missing");
        assert_eq!(msg("0<1=1"), "u32: at char 2: a second '<' was expected");
        assert_eq!(msg("0 x1=1"), "u32: at char 2: operator expected");
        assert_eq!(msg("0=1&2"), "u32: at char 4: a second '&' was expected");
        assert_eq!(msg("0=1 2"), "u32: at char 4: expected \",\" or \"&&\"");
        assert_eq!(msg("0=x"), "u32: at char 2: not a number or out of range");
        assert_eq!(
            msg("0=0x100000000"),
            "u32: at char 2: not a number or out of range"
        );
        let ops = format!("0{}=1", "&1".repeat(10));
        assert_eq!(msg(&ops), "u32: at char 21: too many operators");
        let vals = format!("0=1{}", ",1".repeat(10));
        assert_eq!(msg(&vals), "u32: at char 23: too many \",\"s");
        let tests = ["0=1"; 11].join("&&");
        assert!(msg(&tests).contains("too many \"&&\"s"), "{}", msg(&tests));
        assert_eq!(parse_tests(&["0=1"; 10].join("&&")).unwrap().len(), 10);
    }
}
