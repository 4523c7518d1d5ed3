//! `cpu`: the CPU that handles the packet (`--cpu number`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `cpu` match, rev 0, `xt_cpu_info` (8 bytes).

use std::mem::size_of;

use iptnl_sys::xt::xt_cpu_info;

use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Val,
};
use crate::ipt::ext::base::opts::U32;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `cpu` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "cpu",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::new("cpu", U32).inv().mand()]),
    new: |_| Box::new(Cpu::default()),
    xt_names: &["cpu"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// Options of `-m cpu`, as in `struct xt_cpu_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cpu {
    /// The CPU number.
    pub cpu: u32,
    /// 1 when negated.
    pub invert: u32,
}

/// `struct xt_cpu_info`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Cpu> = XtStruct::new(
    "xt_cpu_info",
    size_of::<xt_cpu_info>(),
    0,
    &[
        xt_field!(xt_cpu_info, cpu: U32 => cpu),
        xt_field!(xt_cpu_info, invert: U32 => invert),
    ],
);

impl Extension for Cpu {
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
        self.cpu = val.uint() as u32;
        self.invert = inv as u32;
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("cpu", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_inv(out, self.invert != 0);
        out.push_str(" --cpu ");
        out.push_str(&self.cpu.to_string());
    }

    fn print(&self, _ctx: &PrintCtx, out: &mut String) {
        out.push_str(if self.invert != 0 { " cpu ! " } else { " cpu " });
        out.push_str(&self.cpu.to_string());
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let c = INFO.decode_exact(rev, info)?;
    (c.invert <= 1).then(|| Box::new(c) as _)
}

#[cfg(test)]
mod tests {
    use crate::ipt::{decode_rule, encode_rule, parse_rule, IpFamily};

    fn round(args: &[&str]) -> Result<String, String> {
        let spec = parse_rule(IpFamily::V4, args).map_err(|e| e.to_string())?;
        let r =
            encode_rule(&spec[0], IpFamily::V4, "filter", "INPUT").map_err(|e| e.to_string())?;
        Ok(decode_rule(&r, IpFamily::V4).unwrap().to_save_args())
    }

    #[test]
    fn cpu_numbers() {
        assert_eq!(
            round(&["-m", "cpu", "--cpu", "0"]).unwrap(),
            "-m cpu --cpu 0"
        );
        assert_eq!(
            round(&["-m", "cpu", "!", "--cpu", "4294967295"]).unwrap(),
            "-m cpu ! --cpu 4294967295"
        );
        assert!(round(&["-m", "cpu", "--cpu", "4294967296"]).is_err());
        assert!(round(&["-m", "cpu"]).is_err());
    }
}
