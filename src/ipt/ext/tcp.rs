//! `tcp`: ports, flags and options of TCP (`-p tcp -m tcp`).
//!
//! Encoding (iptables-nft 1.8.8 and later): ports and flags natively (payload +
//! cmp/range/bitwise, `cmp neq` for inverted flags); the x_tables `tcp` match (rev 0) for
//! `--tcp-option`, a bare `-m tcp`, or every `-m tcp` at the reader floor 1.8.7.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_tcp, XT_TCP_INV_DSTPT, XT_TCP_INV_FLAGS, XT_TCP_INV_MASK, XT_TCP_INV_OPTION,
    XT_TCP_INV_SRCPT,
};

use super::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension,
    Opt, ParseCtx, PrintCtx, Ty, Val, XtView,
};
use super::base::libxt::{bit_if, print_unknown_invflags};
use super::base::ports::{decode_port_piece, PortFields};
use super::base::xtstruct::XtStruct;
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;
use crate::nft::expr::{Bitwise, Cmp, CmpOp, Expr, Payload, PayloadBase, PayloadOp, REG};
use crate::xt_field;

/// TCP flag names in the order iptables prints them.
const FLAG_NAMES: &[(&str, u8)] = &[
    ("FIN", 0x01),
    ("SYN", 0x02),
    ("RST", 0x04),
    ("PSH", 0x08),
    ("ACK", 0x10),
    ("URG", 0x20),
    ("ALL", 0x3f),
    ("NONE", 0),
];

/// The `tcp` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "tcp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        // libxt_tcp parses its options itself (it has no libxtables option table): `parse`
        // refuses a repeated option with tcp's own messages.
        Opt::custom("source-port").inv().multi(),
        Opt::custom("sport").alias("source-port"),
        Opt::custom("destination-port").inv().multi(),
        Opt::custom("dport").alias("destination-port"),
        Opt::flag("syn").inv().multi(),
        Opt::new("tcp-flags", Ty::Custom2).inv().multi(),
        Opt::custom("tcp-option").inv().multi(),
    ]),
    new: |_| Box::new(Tcp::default()),
    xt_names: &["tcp"],
    decode_xt: Some(decode_xt),
    decode_native: Some(decode_native),
};

/// Options of `-m tcp`, as in `struct xt_tcp`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tcp {
    /// Source port range.
    pub spts: [u16; 2],
    /// Destination port range.
    pub dpts: [u16; 2],
    /// TCP option kind to look for (0 = none).
    pub option: u8,
    /// Flags examined.
    pub flg_mask: u8,
    /// Flags that must be set among those.
    pub flg_cmp: u8,
    /// `XT_TCP_INV_*`.
    pub invflags: u8,
}

impl Default for Tcp {
    fn default() -> Self {
        Tcp {
            spts: [0, u16::MAX],
            dpts: [0, u16::MAX],
            option: 0,
            flg_mask: 0,
            flg_cmp: 0,
            invflags: 0,
        }
    }
}

fn parse_flags(s: &str, option: &str) -> Result<u8, ParseError> {
    let mut v = 0;
    for name in s.split(',') {
        let f = FLAG_NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| ParseError::bad(option, format!("Unknown TCP flag `{name}'")))?;
        v |= f.1;
    }
    Ok(v)
}

fn save_flags(out: &mut String, mut flags: u8) {
    if flags == 0 {
        out.push_str("NONE");
        return;
    }
    let mut first = true;
    while flags != 0 {
        let Some(&(name, bit)) = FLAG_NAMES.iter().find(|(_, b)| flags & b != 0) else {
            break;
        };
        if !first {
            out.push(',');
        }
        out.push_str(name);
        first = false;
        flags &= !bit;
    }
}

super::base::ports::port_fields!(Tcp, "tcp", 6, XT_TCP_INV_SRCPT, XT_TCP_INV_DSTPT);

/// `struct xt_tcp`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Tcp> = XtStruct::new(
    "xt_tcp",
    size_of::<xt_tcp>(),
    0,
    &[
        xt_field!(xt_tcp, spts: U16Pair => spts),
        xt_field!(xt_tcp, dpts: U16Pair => dpts),
        xt_field!(xt_tcp, option: U8 => option),
        xt_field!(xt_tcp, flg_mask: U8 => flg_mask),
        xt_field!(xt_tcp, flg_cmp: U8 => flg_cmp),
        xt_field!(xt_tcp, invflags: U8 => invflags),
    ],
);

impl Tcp {
    fn to_xt(&self) -> Vec<u8> {
        INFO.encode(self)
    }

    fn is_all_zero(&self) -> bool {
        *self == Tcp::default() && self.invflags == 0
    }

    /// Whether iptables-nft encodes it as the x_tables match rather than natively.
    fn is_xt(&self) -> bool {
        self.invflags & XT_TCP_INV_OPTION != 0 || self.option != 0 || self.is_all_zero()
    }
}

impl Extension for Tcp {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let name = opt.canonical();
        let shown = opt.shown();
        let flags_given = ctx.given.has("syn") || ctx.given.has("tcp-flags");
        match name {
            "syn" | "tcp-flags" if flags_given => {
                return Err(ParseError::Invalid(
                    "Only one of `--syn' or `--tcp-flags'  allowed".into(),
                ))
            }
            _ if ctx.given.has(name) => {
                return Err(ParseError::Invalid(format!("Only one `--{name}' allowed")))
            }
            _ => {}
        }
        match name {
            "source-port" | "destination-port" => {
                self.parse_port_option(name == "source-port", val.text(), &shown, inv)?;
            }
            "syn" | "tcp-flags" => {
                if name == "syn" {
                    self.flg_mask = 0x17;
                    self.flg_cmp = 0x02;
                } else {
                    let second = val.second();
                    if second.is_empty() || second.starts_with(['-', '!']) {
                        return Err(ParseError::bad(&shown, "--tcp-flags requires two args."));
                    }
                    self.flg_mask = parse_flags(val.text(), &shown)?;
                    self.flg_cmp = parse_flags(val.second(), &shown)?;
                }
                self.invflags |= bit_if(inv, XT_TCP_INV_FLAGS);
            }
            _ => {
                self.option = super::base::api::parse_uint(val.text(), 1, 255).ok_or_else(|| {
                    ParseError::bad(&shown, format!("Bad TCP option \"{}\"", val.text()))
                })? as u8;
                self.invflags |= bit_if(inv, XT_TCP_INV_OPTION);
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.is_xt() {
            return Ok(());
        }
        Self::require_proto(ctx)
    }

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        if self.is_xt() || (!ctx.floor.native_matches() && Self::xt_allowed(ctx)) {
            out.push(xt_match("tcp", 0, self.to_xt()));
            return Ok(());
        }
        // iptables-nft 1.8.9 emits the flags test before the ports.
        if self.flg_mask != 0 {
            out.push(Payload::load_reg1(PayloadBase::Transport, 13, 1).into());
            out.push(Bitwise::mask(&[self.flg_mask]).into());
            out.push(Cmp::eq(self.invflags & XT_TCP_INV_FLAGS != 0, &[self.flg_cmp]).into());
        }
        self.encode_ports(out);
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.save_ports(out);
        let oinv = self.invflags & XT_TCP_INV_OPTION != 0;
        if self.option != 0 || oinv {
            save_inv(out, oinv);
            out.push_str(&format!(" --tcp-option {}", self.option));
        }
        let finv = self.invflags & XT_TCP_INV_FLAGS != 0;
        if self.flg_mask != 0 || finv {
            save_inv(out, finv);
            out.push_str(" --tcp-flags ");
            save_flags(out, self.flg_mask);
            out.push(' ');
            save_flags(out, self.flg_cmp);
        }
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        let n = ctx.numeric;
        self.print_ports(out, n);
        let inv = |f: u8| self.invflags & f != 0;
        if self.option != 0 || inv(XT_TCP_INV_OPTION) {
            let i = if inv(XT_TCP_INV_OPTION) { "!" } else { "" };
            out.push_str(&format!(" option={i}{}", self.option));
        }
        if self.flg_mask != 0 || inv(XT_TCP_INV_FLAGS) {
            out.push_str(" flags:");
            if inv(XT_TCP_INV_FLAGS) {
                out.push('!');
            }
            if n {
                out.push_str(&format!("0x{:02X}/0x{:02X}", self.flg_mask, self.flg_cmp));
            } else {
                save_flags(out, self.flg_mask);
                out.push('/');
                save_flags(out, self.flg_cmp);
            }
        }
        print_unknown_invflags(out, self.invflags, XT_TCP_INV_MASK);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(_rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Any revision, as iptables-nft reads it.
    let mut t = Tcp::default();
    INFO.read(&XtView::of::<xt_tcp>(info)?, &mut t)?;
    Some(Box::new(t))
}

/// Reads `payload 1b @ transport + 13`, `bitwise & mask`, `cmp eq value`.
fn decode_flags(exprs: &[Expr]) -> Option<(u8, u8, bool)> {
    let (Some(Expr::Payload(p)), Some(Expr::Bitwise(b)), Some(Expr::Cmp(c))) =
        (exprs.first(), exprs.get(1), exprs.get(2))
    else {
        return None;
    };
    if p.base != PayloadBase::Transport
        || p.offset != 13
        || p.len != 1
        || p.op != (PayloadOp::Load { dreg: REG })
    {
        return None;
    }
    let (mask, xor) = b.as_mask_xor()?;
    if mask.len() != 1
        || xor.as_bytes() != [0]
        || c.sreg != REG
        || !matches!(c.op, CmpOp::Eq | CmpOp::Neq)
        || c.data.len() != 1
    {
        return None;
    }
    let (mask, cmp) = (mask.as_bytes()[0], c.data.as_bytes()[0]);
    // `--tcp-flags` names the six flags of iptables only: CWR and ECE (or any bit `nft`
    // tests) could not be printed, and the rule would be shown and saved broader.
    if (mask | cmp) & !0x3f != 0 {
        return None;
    }
    Some((mask, cmp, c.op == CmpOp::Neq))
}

fn decode_native(cur: &mut ExprCursor<'_>, ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // `! -p tcp` too: iptables-nft accepts `! -p tcp -m tcp --dport 1` and reads it back so.
    if ctx.proto.is_none_or(|p| p.num != 6) {
        return None;
    }
    let mut t = Tcp::default();
    let mut pos = cur.pos;
    let mut any = false;
    // Ports and flags already set (1 source, 2 destination, 4 flags): a second test of one
    // of them starts a second match instead of overwriting the first.
    let mut set = 0u8;
    loop {
        let rest = &cur.exprs[pos..];
        if let Some((piece, n)) = decode_port_piece(rest) {
            if !t.take_port_piece(piece, &mut set) {
                break;
            }
            pos += n;
            any = true;
        } else if let Some((mask, cmpv, inv)) = decode_flags(rest) {
            if set & 4 != 0 {
                break;
            }
            set |= 4;
            t.flg_mask = mask;
            t.flg_cmp = cmpv;
            t.invflags |= bit_if(inv, XT_TCP_INV_FLAGS);
            pos += 3;
            any = true;
        } else {
            break;
        }
    }
    if !any {
        return None;
    }
    cur.pos = pos;
    Some(Box::new(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_test_of_a_port_is_a_second_match() {
        use crate::ipt::{decode_rule_exact, encode_rule, parse_rule_str, IpFamily};
        for text in [
            "-p tcp -m tcp --dport 22 -m tcp --dport 23 -j ACCEPT",
            "-p tcp -m tcp --sport 1 --dport 2 -m tcp --sport 3 -j ACCEPT",
            "-p tcp -m tcp --tcp-flags SYN SYN -m tcp --tcp-flags ACK ACK -j ACCEPT",
            "-p udp -m udp --dport 53 -m udp --dport 54 -j ACCEPT",
        ] {
            let spec = &parse_rule_str(IpFamily::V4, text).unwrap()[0];
            let rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
            let back = decode_rule_exact(&rule, IpFamily::V4).unwrap();
            assert_eq!(back.to_save_args(), text);
        }
    }

    #[test]
    fn flags_print_in_iptables_order() {
        let mut s = String::new();
        save_flags(&mut s, 0x3f);
        assert_eq!(s, "FIN,SYN,RST,PSH,ACK,URG");
        s.clear();
        save_flags(&mut s, 0);
        assert_eq!(s, "NONE");
        assert_eq!(parse_flags("syn,ACK", "--tcp-flags").unwrap(), 0x12);
        assert!(parse_flags("SYN,BOGUS", "--tcp-flags").is_err());
    }

    #[test]
    fn tcp_flags_take_two_words() {
        use crate::ipt::{parse_rule_str, IpFamily};
        for text in [
            "-p tcp --tcp-flags SYN",
            "-p tcp --tcp-flags SYN -j ACCEPT",
            "-p tcp --tcp-flags SYN ! ACK",
        ] {
            let e = parse_rule_str(IpFamily::V4, text).unwrap_err().to_string();
            assert!(
                e.ends_with(" --tcp-flags requires two args."),
                "{text}: {e}"
            );
        }
        let e = parse_rule_str(IpFamily::V4, "-p tcp --tcp-flags")
            .unwrap_err()
            .to_string();
        assert!(e.contains("requires an argument"), "{e}");
    }
}
