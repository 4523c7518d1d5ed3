//! `udp`: ports of UDP (`-p udp -m udp`).
//!
//! Encoding (iptables-nft 1.8.9): ports natively (payload + cmp/range); the x_tables `udp`
//! match (rev 0) for a bare `-m udp`.

use std::mem::size_of;

use iptnl_sys::xt::{xt_udp, XT_UDP_INV_DSTPT, XT_UDP_INV_MASK, XT_UDP_INV_SRCPT};

use super::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExprCursor, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, PrintCtx, Val, XtView,
};
use super::base::libxt::print_unknown_invflags;
use super::base::ports::{decode_port_piece, PortFields};
use super::base::xtstruct::XtStruct;
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `udp` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "udp",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
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

/// `struct xt_udp`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Udp> = XtStruct::new(
    "xt_udp",
    size_of::<xt_udp>(),
    0,
    &[
        xt_field!(xt_udp, spts: U16Pair => spts),
        xt_field!(xt_udp, dpts: U16Pair => dpts),
        xt_field!(xt_udp, invflags: U8 => invflags),
    ],
);

impl Default for Udp {
    fn default() -> Self {
        Udp {
            spts: [0, u16::MAX],
            dpts: [0, u16::MAX],
            invflags: 0,
        }
    }
}

super::base::ports::port_fields!(Udp, "udp", 17, XT_UDP_INV_SRCPT, XT_UDP_INV_DSTPT);

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
        let source = opt.canonical() == "source-port";
        self.parse_port_option(source, val.text(), &opt.shown(), inv)
    }

    fn finish(&mut self, ctx: &ParseCtx) -> Result<(), ParseError> {
        if self.is_xt() {
            return Ok(());
        }
        Self::require_proto(ctx)
    }

    fn encode(&self, ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        if self.is_xt() || (!ctx.floor.native_matches() && Self::xt_allowed(ctx)) {
            out.push(xt_match("udp", 0, INFO.encode(self)));
            return Ok(());
        }
        self.encode_ports(out);
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        self.save_ports(out);
    }

    fn print(&self, ctx: &PrintCtx, out: &mut String) {
        self.print_ports(out, ctx.numeric);
        print_unknown_invflags(out, self.invflags, XT_UDP_INV_MASK);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(_rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    // Any revision, as iptables-nft reads it.
    let mut u = Udp::default();
    INFO.read(&XtView::of::<xt_udp>(info)?, &mut u)?;
    Some(Box::new(u))
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
        if !u.take_port_piece(piece, &mut set) {
            break;
        }
        pos += n;
    }
    if pos == cur.pos {
        return None;
    }
    cur.pos = pos;
    Some(Box::new(u))
}
