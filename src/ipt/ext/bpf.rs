//! `bpf`: a classic BPF program run on the packet (`--bytecode "N,code jt jf k,..."`, the
//! form `nfbpf_compile` prints).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `bpf` match, rev 1, `xt_bpf_info_v1` in
//! bytecode mode. `--object-pinned` (an eBPF object opened by the command, handed to the
//! kernel as a file descriptor) is refused: iptnl does not open BPF objects. A rule with a
//! pinned object, written by iptables, is shown and kept whole.

use std::mem::{offset_of, size_of};

use iptnl_sys::xt::{sock_filter, xt_bpf_info_v1, XT_BPF_MAX_NUM_INSTR, XT_BPF_MODE_BYTECODE};

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx,
    PrintCtx, Val,
};
use crate::ipt::ext::base::opts::STR;
use crate::ipt::ext::base::xtstruct::{Field, Kind, XtStruct};
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The `bpf` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "bpf",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("bytecode", STR), Opt::new("object-pinned", STR)]),
    new: |_| Box::new(Bpf::default()),
    xt_names: &["bpf"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// One instruction: `code jt jf k`.
pub type Insn = (u16, u8, u8, u32);

/// Options of `-m bpf`, as in `struct xt_bpf_info_v1` (bytecode mode).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bpf {
    /// The program.
    pub program: Vec<Insn>,
}

fn err(msg: &str) -> ParseError {
    ParseError::Invalid(format!("bpf: {msg}"))
}

/// An unsigned number as C's `sscanf` `%u`-family reads it: blanks, an optional sign,
/// decimal digits (a minus wraps, an overflow saturates), and the rest.
fn scan(s: &str) -> Option<(u64, &str)> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = t.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let v = t[..n].parse::<u64>().unwrap_or(u64::MAX);
    Some((if neg { v.wrapping_neg() } else { v }, &t[n..]))
}

/// `bpf_parse_string`: `N,` then N instructions of four numbers each, separated by `,`.
fn parse_program(s: &str) -> Result<Vec<Insn>, ParseError> {
    let len = match scan(s) {
        Some((n, rest)) if rest.starts_with(',') => n as u16,
        _ => return Err(err("error parsing program length")),
    };
    if len == 0 {
        return Err(err("illegal zero length program"));
    }
    if usize::from(len) > XT_BPF_MAX_NUM_INSTR {
        return Err(err("number of instructions exceeds maximum"));
    }
    let mut prog = Vec::new();
    let mut token = s;
    // Each `,` followed by something starts an instruction.
    while let Some(at) = token.find(',') {
        token = &token[at + 1..];
        if token.is_empty() {
            break;
        }
        if prog.len() >= usize::from(len) {
            return Err(err(
                "real program length exceeds the encoded length parameter",
            ));
        }
        let insn = (|| {
            let (code, r) = scan(token)?;
            let (jt, r) = scan(r)?;
            let (jf, r) = scan(r)?;
            let (k, _) = scan(r)?;
            Some((code as u16, jt as u8, jf as u8, k as u32))
        })()
        .ok_or_else(|| err(&format!("error at instr {}", prog.len())))?;
        prog.push(insn);
    }
    if prog.len() != usize::from(len) {
        return Err(err(
            "parsed program length is less than the encoded length parameter",
        ));
    }
    Ok(prog)
}

const INSN: usize = size_of::<sock_filter>();

/// Writes the program's instructions, as `struct sock_filter`s, into the `bpf_program`
/// field.
fn put_program(s: &Bpf, field: &mut [u8]) {
    for (&(code, jt, jf, k), at) in s.program.iter().zip(field.chunks_exact_mut(INSN)) {
        at[offset_of!(sock_filter, code)..][..2].copy_from_slice(&code.to_ne_bytes());
        at[offset_of!(sock_filter, jt)] = jt;
        at[offset_of!(sock_filter, jf)] = jf;
        at[offset_of!(sock_filter, k)..][..4].copy_from_slice(&k.to_ne_bytes());
    }
}

/// Reads as many instructions as `bpf_program_num_elem` said (it sized the program);
/// `None` for more than the field holds.
fn get_program(s: &mut Bpf, field: &[u8]) -> Option<()> {
    if s.program.len() > XT_BPF_MAX_NUM_INSTR {
        return None;
    }
    for (insn, at) in s.program.iter_mut().zip(field.chunks_exact(INSN)) {
        let word = |off: usize, n: usize| at.get(off..off + n);
        *insn = (
            u16::from_ne_bytes(word(offset_of!(sock_filter, code), 2)?.try_into().ok()?),
            at[offset_of!(sock_filter, jt)],
            at[offset_of!(sock_filter, jf)],
            u32::from_ne_bytes(word(offset_of!(sock_filter, k), 4)?.try_into().ok()?),
        );
    }
    Some(())
}

/// `struct xt_bpf_info_v1` in bytecode mode, field by field: it decodes the options and
/// encodes them. The file descriptor and the kernel's filter pointer are written as zero
/// and compared, as the kernel dumps them.
static INFO: XtStruct<Bpf> = XtStruct::new(
    "xt_bpf_info_v1",
    size_of::<xt_bpf_info_v1>(),
    1,
    &[
        Field {
            name: "mode",
            at: offset_of!(xt_bpf_info_v1, mode),
            kind: Kind::U16(|_| XT_BPF_MODE_BYTECODE, |_, _| {}),
        },
        Field {
            name: "bpf_program_num_elem",
            at: offset_of!(xt_bpf_info_v1, bpf_program_num_elem),
            kind: Kind::U16(
                |s| s.program.len() as u16,
                // One more than the field holds is enough to refuse the count.
                |s, n| {
                    s.program = vec![Insn::default(); usize::from(n).min(XT_BPF_MAX_NUM_INSTR + 1)]
                },
            ),
        },
        Field {
            name: "bpf_program",
            at: offset_of!(xt_bpf_info_v1, bpf_program),
            kind: Kind::Custom(XT_BPF_MAX_NUM_INSTR * INSN, put_program, get_program),
        },
    ],
);

impl Bpf {
    /// `bpf_print_code`: the instructions, `,` between them and `tail` after the last.
    fn code(&self, tail: char, out: &mut String) {
        for (i, (code, jt, jf, k)) in self.program.iter().enumerate() {
            out.push_str(&format!("{code} {jt} {jf} {k}"));
            out.push(if i + 1 < self.program.len() {
                ','
            } else {
                tail
            });
        }
    }
}

impl Extension for Bpf {
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
        if opt.name == "object-pinned" {
            return Err(err(
                "--object-pinned is not supported: iptnl does not open BPF objects; use --bytecode",
            ));
        }
        self.program = parse_program(val.text().split('\0').next().unwrap_or_default())?;
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if !ctx.given.has("bytecode") {
            return Err(err("one of --bytecode or --pinned is required"));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("bpf", 1, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        out.push_str(&format!(" --bytecode \"{},", self.program.len()));
        self.code('"', out);
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        // libxt_bpf prints no leading blank, and a NUL after the last instruction.
        out.push_str("match bpf ");
        self.code('\0', out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let b = INFO.decode_exact(rev, info)?;
    (!b.program.is_empty()).then(|| Box::new(b) as _)
}

#[cfg(test)]
mod tests {
    use super::parse_program;
    use crate::ipt::IpFamily;

    #[test]
    fn programs() {
        let p = parse_program("4,48 0 0 9,21 0 1 6,6 0 0 1,6 0 0 0").unwrap();
        assert_eq!(
            p,
            vec![(48, 0, 0, 9), (21, 0, 1, 6), (6, 0, 0, 1), (6, 0, 0, 0)]
        );
        // A trailing comma ends the list; blanks and signs as sscanf takes them.
        assert_eq!(
            parse_program("1, 6 0 0 -1,").unwrap(),
            vec![(6, 0, 0, u32::MAX)]
        );
        let msg = |s| parse_program(s).unwrap_err().to_string();
        assert_eq!(msg("4"), "bpf: error parsing program length");
        assert_eq!(msg("4 ,6 0 0 0"), "bpf: error parsing program length");
        assert_eq!(msg("0,"), "bpf: illegal zero length program");
        assert_eq!(
            msg("65,6 0 0 0"),
            "bpf: number of instructions exceeds maximum"
        );
        assert_eq!(
            msg("1,6 0 0 0,6 0 0 0"),
            "bpf: real program length exceeds the encoded length parameter"
        );
        assert_eq!(msg("2,6 0 0 0,6 0 x"), "bpf: error at instr 1");
        assert_eq!(
            msg("2,6 0 0 0"),
            "bpf: parsed program length is less than the encoded length parameter"
        );
    }

    #[test]
    fn round_trip() {
        use crate::ipt::{decode_rule, encode_rule, parse_rule};
        let code = "2,48 0 0 9,6 0 0 65535";
        let spec = parse_rule(IpFamily::V4, &["-m", "bpf", "--bytecode", code]).unwrap();
        let r = encode_rule(&spec[0], IpFamily::V4, "filter", "INPUT").unwrap();
        let back = decode_rule(&r, IpFamily::V4).unwrap();
        assert_eq!(back.to_save_args(), format!("-m bpf --bytecode \"{code}\""));
        let e = parse_rule(IpFamily::V4, &["-m", "bpf"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bpf: one of --bytecode or --pinned is required"
        );
        assert!(parse_rule(
            IpFamily::V4,
            &["-m", "bpf", "--object-pinned", "/sys/fs/bpf/x"]
        )
        .is_err());
    }
}
