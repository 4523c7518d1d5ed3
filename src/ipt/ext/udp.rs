//! `udp`: ports of UDP (`-p udp -m udp`).
//!
//! Encoding (iptables-nft 1.8.9): ports natively (payload + cmp/range); the x_tables `udp`
//! match (rev 0) for a bare `-m udp`.

use std::mem::offset_of;

use iptnl_sys::xt::{xt_udp, XT_UDP_INV_DSTPT, XT_UDP_INV_MASK, XT_UDP_INV_SRCPT};

use super::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Val, XtBuf, XtView,
};
use super::ports::{decode_port_piece, encode_ports, parse_range, print_ports, save_ports};
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;

/// The `udp` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "udp",
    kind: ExtKind::Match,
    family: None,
    options: &super::opts::table([
        Opt::custom("source-port").inv(),
        Opt::custom("sport").alias("source-port"),
        Opt::custom("destination-port").inv(),
        Opt::custom("dport").alias("destination-port"),
    ]),
    new: |_| Box::new(Udp::default()),
    xt_names: &["udp"],
    decode_xt: Some(decode_xt),
    decode_native: Some(decode_native),
};

/// Options of `-m udp`, as in `struct xt_udp`.
#[derive(Debug, Clone, PartialEq)]
pub struct Udp {
    /// Source port range.
    pub spts: [u16; 2],
    /// Destination port range.
    pub dpts: [u16; 2],
    /// `XT_UDP_INV_*`.
    pub invflags: u8,
}

impl Default for Udp {
    fn default() -> Self {
        Udp {
            spts: [0, u16::MAX],
            dpts: [0, u16::MAX],
            invflags: 0,
        }
    }
}

impl Udp {
    /// Whether iptables-nft encodes it as the x_tables match rather than natively.
    fn is_xt(&self) -> bool {
        self.invflags & !(XT_UDP_INV_SRCPT | XT_UDP_INV_DSTPT) != 0
            || *self == Udp::default() && self.invflags == 0
    }
}

impl Extension for Udp {
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
        let shown = opt.shown();
        let r = parse_range(val.text(), "udp", &shown)?;
        if opt.canonical() == "source-port" {
            self.spts = r;
            if inv {
                self.invflags |= XT_UDP_INV_SRCPT;
            }
        } else {
            self.dpts = r;
            if inv {
                self.invflags |= XT_UDP_INV_DSTPT;
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        // As for tcp: the native form needs the rule's protocol to be UDP (the x_tables form
        // is checked by the kernel).
        if !self.is_xt() && ctx.proto.map(|p| p.num) != Some(17) {
            return Err(ParseError::Invalid("UDP match requires '-p udp'".into()));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        if self.is_xt() {
            let mut b = XtBuf::of::<xt_udp>();
            b.put_u16(offset_of!(xt_udp, spts), self.spts[0]);
            b.put_u16(offset_of!(xt_udp, spts) + 2, self.spts[1]);
            b.put_u16(offset_of!(xt_udp, dpts), self.dpts[0]);
            b.put_u16(offset_of!(xt_udp, dpts) + 2, self.dpts[1]);
            b.put_u8(offset_of!(xt_udp, invflags), self.invflags);
            out.push(xt_match("udp", 0, b.into_vec()));
            return Ok(());
        }
        encode_ports(
            self.spts,
            self.invflags & XT_UDP_INV_SRCPT != 0,
            self.dpts,
            self.invflags & XT_UDP_INV_DSTPT != 0,
            out,
        );
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        save_ports(
            out,
            self.spts,
            self.invflags & XT_UDP_INV_SRCPT != 0,
            self.dpts,
            self.invflags & XT_UDP_INV_DSTPT != 0,
        );
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        let n = ctx.numeric;
        out.push_str(" udp");
        let inv = |f: u8| self.invflags & f != 0;
        print_ports(out, "spt", self.spts, inv(XT_UDP_INV_SRCPT), "udp", n);
        print_ports(out, "dpt", self.dpts, inv(XT_UDP_INV_DSTPT), "udp", n);
        let unknown = self.invflags & !XT_UDP_INV_MASK;
        if unknown != 0 {
            out.push_str(&format!(" Unknown invflags: 0x{unknown:X}"));
        }
    }

    crate::ext_boilerplate!();
}

fn decode_xt(_rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let v = XtView::of::<xt_udp>(info)?;
    let s = offset_of!(xt_udp, spts);
    let d = offset_of!(xt_udp, dpts);
    Some(Box::new(Udp {
        spts: [v.u16(s)?, v.u16(s + 2)?],
        dpts: [v.u16(d)?, v.u16(d + 2)?],
        invflags: v.u8(offset_of!(xt_udp, invflags))?,
    }))
}

fn decode_native(cur: &mut ExprCursor<'_>, ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // `! -p udp` too, as for tcp.
    if ctx.proto.is_none_or(|p| p.num != 17) {
        return None;
    }
    let mut u = Udp::default();
    let mut pos = cur.pos;
    let mut set = 0;
    while let Some((piece, n)) = decode_port_piece(&cur.exprs[pos..]) {
        if set & piece.sets() != 0 {
            break;
        }
        set |= piece.sets();
        piece.apply(
            &mut u.spts,
            &mut u.dpts,
            &mut u.invflags,
            XT_UDP_INV_SRCPT,
            XT_UDP_INV_DSTPT,
        );
        pos += n;
    }
    if pos == cur.pos {
        return None;
    }
    cur.pos = pos;
    Some(Box::new(u))
}
