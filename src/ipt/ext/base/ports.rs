//! Port ranges shared by tcp and udp: parsing (`80`, `1:1024`, `:1024`, `http`), printing,
//! and the native encoding iptables-nft uses (payload + cmp/range), with its decoder.

use super::api::{save_inv, ParseCtx};
use super::libxt::{bit_if, save_u32_range};
use super::names::{push_port, service_port_for};
use crate::ipt::error::ParseError;
use crate::nft::expr::range::{Range, RangeOp};
use crate::nft::expr::{Cmp, CmpOp, Expr, Payload, PayloadBase, PayloadOp, REG};
use crate::nft::Value;

/// Appends ` NAME:[!]P` or ` NAMEs:[!]LO:HI` as tcp and udp print a port test (`spt`,
/// `dpt`), nothing for `0:65535` not inverted.
pub fn print_ports(
    out: &mut String,
    name: &str,
    r: [u16; 2],
    inv: bool,
    proto: &str,
    numeric: bool,
) {
    if is_any(r) && !inv {
        return;
    }
    let inv = if inv { "!" } else { "" };
    out.push(' ');
    out.push_str(name);
    if r[0] == r[1] {
        out.push(':');
        out.push_str(inv);
        push_port(out, r[0], Some(proto), numeric);
    } else {
        out.push_str("s:");
        out.push_str(inv);
        push_port(out, r[0], Some(proto), numeric);
        out.push(':');
        push_port(out, r[1], Some(proto), numeric);
    }
}

/// Parses one port: a number 0–65535 or a service name of `proto` from `/etc/services`.
pub fn parse_port(s: &str, proto: &str, option: &str) -> Result<u16, ParseError> {
    let bad = || ParseError::bad(option, format!("invalid port/service `{s}' specified"));
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u16>().map_err(|_| bad());
    }
    service_port_for(s, proto).ok_or_else(bad)
}

/// Parses `port`, `lo:hi`, `:hi`, `lo:` or `:`. A reversed range is an error (iptables 1.8.11;
/// 1.8.9 accepted it).
pub fn parse_range(s: &str, proto: &str, option: &str) -> Result<[u16; 2], ParseError> {
    let r = match s.split_once(':') {
        None => {
            let p = parse_port(s, proto, option)?;
            [p, p]
        }
        Some((lo, hi)) => {
            let lo = if lo.is_empty() {
                0
            } else {
                parse_port(lo, proto, option)?
            };
            let hi = if hi.is_empty() {
                u16::MAX
            } else {
                parse_port(hi, proto, option)?
            };
            [lo, hi]
        }
    };
    if r[0] > r[1] {
        return Err(ParseError::bad(
            option,
            "invalid portrange (min > max) specified",
        ));
    }
    Ok(r)
}

/// Prints a range as iptables-save does: `80`, `1:1024`.
pub fn save_range(out: &mut String, r: [u16; 2]) {
    save_u32_range(out, r.map(u32::from));
}

/// Appends ` [!] --sport R [!] --dport R` as tcp and udp save them (a port test that is
/// `0:65535` and not inverted is left out).
pub fn save_ports(out: &mut String, spts: [u16; 2], sinv: bool, dpts: [u16; 2], dinv: bool) {
    for (name, r, inv) in [(" --sport ", spts, sinv), (" --dport ", dpts, dinv)] {
        if !is_any(r) || inv {
            save_inv(out, inv);
            out.push_str(name);
            save_range(out, r);
        }
    }
}

/// A match with the port tests of tcp and udp (`struct xt_tcp` and `struct xt_udp` begin
/// alike: source range, destination range, and two of their `invflags` bits): what the two
/// say differently about them, and what they do alike.
pub trait PortFields {
    /// The protocol's name (`tcp`), for service names and messages.
    const PROTO: &'static str;
    /// The protocol's number, which the native form needs as the rule's `-p`.
    const NUM: u8;
    /// The `invflags` bit negating the source port test.
    const INV_SRC: u8;
    /// The `invflags` bit negating the destination port test.
    const INV_DST: u8;

    /// The source range, the destination range and the invert flags.
    fn ports(&self) -> ([u16; 2], [u16; 2], u8);

    /// The same, to set.
    fn ports_mut(&mut self) -> (&mut [u16; 2], &mut [u16; 2], &mut u8);

    /// Takes `--source-port` (`source`) or `--destination-port` with its text as `shown`.
    fn parse_port_option(
        &mut self,
        source: bool,
        text: &str,
        shown: &str,
        inv: bool,
    ) -> Result<(), ParseError> {
        let r = parse_range(text, Self::PROTO, shown)?;
        let (spts, dpts, invflags) = self.ports_mut();
        if source {
            *spts = r;
            *invflags |= bit_if(inv, Self::INV_SRC);
        } else {
            *dpts = r;
            *invflags |= bit_if(inv, Self::INV_DST);
        }
        Ok(())
    }

    /// The rule's `-p` must be the protocol for the native form (`TCP match requires '-p
    /// tcp'`), inverted or not, as iptables-nft wants: that form tests the transport header
    /// of any protocol (the x_tables form is checked by the kernel).
    fn require_proto(ctx: &ParseCtx) -> Result<(), ParseError> {
        if ctx.proto.map(|p| p.num) != Some(Self::NUM) {
            return Err(ParseError::Invalid(format!(
                "{} match requires '-p {}'",
                Self::PROTO.to_ascii_uppercase(),
                Self::PROTO
            )));
        }
        Ok(())
    }

    /// Whether the kernel takes the x_tables match in this rule: only with `-p` naming the
    /// protocol, not inverted (`! -p tcp -m tcp --dport 1` has no x_tables form, so no
    /// form of iptables 1.8.7: at that floor it is written as 1.8.8 and later write it).
    fn xt_allowed(ctx: &super::api::EncodeCtx<'_>) -> bool {
        ctx.proto.is_some_and(|p| p.num == Self::NUM && !p.inv)
    }

    /// Appends the native port tests ([`encode_ports`]).
    fn encode_ports(&self, out: &mut Vec<Expr>) {
        let (spts, dpts, invflags) = self.ports();
        let (sinv, dinv) = (invflags & Self::INV_SRC != 0, invflags & Self::INV_DST != 0);
        encode_ports(spts, sinv, dpts, dinv, out);
    }

    /// Appends ` [!] --sport R [!] --dport R` ([`save_ports`]).
    fn save_ports(&self, out: &mut String) {
        let (spts, dpts, invflags) = self.ports();
        let (sinv, dinv) = (invflags & Self::INV_SRC != 0, invflags & Self::INV_DST != 0);
        save_ports(out, spts, sinv, dpts, dinv);
    }

    /// Appends ` PROTO spt:… dpt:…`, the start of the `-L` words of tcp and udp.
    fn print_ports(&self, out: &mut String, numeric: bool) {
        let (spts, dpts, invflags) = self.ports();
        let (sinv, dinv) = (invflags & Self::INV_SRC != 0, invflags & Self::INV_DST != 0);
        out.push(' ');
        out.push_str(Self::PROTO);
        print_ports(out, "spt", spts, sinv, Self::PROTO, numeric);
        print_ports(out, "dpt", dpts, dinv, Self::PROTO, numeric);
    }

    /// Takes a decoded port test unless it tests a port `set` (the ports taken so far, as
    /// [`PortPiece::sets`]) has: then it is a second match's, and `false` is returned.
    fn take_port_piece(&mut self, piece: PortPiece, set: &mut u8) -> bool {
        if *set & piece.sets() != 0 {
            return false;
        }
        *set |= piece.sets();
        let (spts, dpts, invflags) = self.ports_mut();
        piece.apply(spts, dpts, invflags, Self::INV_SRC, Self::INV_DST);
        true
    }
}

/// Implements [`PortFields`] for a match whose fields are named as in `struct xt_tcp`
/// (`spts`, `dpts`, `invflags`): `port_fields!(Type, "proto", number, INV_SRC, INV_DST)`.
macro_rules! port_fields {
    ($ty:ty, $proto:literal, $num:literal, $inv_src:expr, $inv_dst:expr) => {
        impl $crate::ipt::ext::base::ports::PortFields for $ty {
            const PROTO: &'static str = $proto;
            const NUM: u8 = $num;
            const INV_SRC: u8 = $inv_src;
            const INV_DST: u8 = $inv_dst;

            fn ports(&self) -> ([u16; 2], [u16; 2], u8) {
                (self.spts, self.dpts, self.invflags)
            }

            fn ports_mut(&mut self) -> (&mut [u16; 2], &mut [u16; 2], &mut u8) {
                (&mut self.spts, &mut self.dpts, &mut self.invflags)
            }
        }
    };
}
pub(crate) use port_fields;

/// Whether a range is `0:65535`.
pub fn is_any(r: [u16; 2]) -> bool {
    r == [0, u16::MAX]
}

fn range_cmp(lo: u16, hi: u16, inv: bool, out: &mut Vec<Expr>) {
    let cmp = |op, v: u16| {
        Expr::Cmp(Cmp {
            sreg: REG,
            op,
            data: Value::be16(v),
        })
    };
    if lo == hi {
        out.push(cmp(if inv { CmpOp::Neq } else { CmpOp::Eq }, lo));
    } else if lo == 0 && hi < u16::MAX {
        out.push(cmp(if inv { CmpOp::Gt } else { CmpOp::Lte }, hi));
    } else {
        out.push(Expr::Range(Range {
            sreg: REG,
            op: if inv { RangeOp::Neq } else { RangeOp::Eq },
            from: Value::be16(lo),
            to: Value::be16(hi),
        }));
    }
}

/// Native port matching as iptables-nft emits it (`add_nft_tcpudp`): one 4-byte compare when
/// both ports are single and not inverted, else a compare or range per port. Unlike 1.8.9,
/// two inverted single ports are not merged (that widened the rule) and an inverted `:` range
/// is kept (1.8.9 dropped it, matching everything); both as iptables 1.8.11 does.
pub fn encode_ports(
    src: [u16; 2],
    src_inv: bool,
    dst: [u16; 2],
    dst_inv: bool,
    out: &mut Vec<Expr>,
) {
    if !src_inv && !dst_inv && src[0] != 0 && src[0] == src[1] && dst[0] != 0 && dst[0] == dst[1] {
        let combined = ((src[0] as u32) << 16) | dst[0] as u32;
        out.push(Payload::load_reg1(PayloadBase::Transport, 0, 4).into());
        out.push(Expr::Cmp(Cmp {
            sreg: REG,
            op: CmpOp::Eq,
            data: Value::be32(combined),
        }));
        return;
    }
    if src[0] != 0 || src[1] < u16::MAX || src_inv {
        out.push(Payload::load_reg1(PayloadBase::Transport, 0, 2).into());
        range_cmp(src[0], src[1], src_inv, out);
    }
    if dst[0] != 0 || dst[1] < u16::MAX || dst_inv {
        out.push(Payload::load_reg1(PayloadBase::Transport, 2, 2).into());
        range_cmp(dst[0], dst[1], dst_inv, out);
    }
}

/// What a native port decoder found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortPiece {
    /// Source port range and inversion.
    Src([u16; 2], bool),
    /// Destination port range and inversion.
    Dst([u16; 2], bool),
    /// Both single ports at once (4-byte compare).
    Both(u16, u16, bool),
}

fn be16(v: &Value) -> Option<u16> {
    Some(u16::from_be_bytes(v.as_bytes().try_into().ok()?))
}

impl PortPiece {
    /// Which ports it sets, as bits: 1 the source, 2 the destination. A decoder stops
    /// before a piece that sets a port it has set already: a second test of the same port
    /// is a second match (`-m tcp --dport 22 -m tcp --dport 23`), never merged into one,
    /// which would drop a test and widen the rule.
    pub fn sets(self) -> u8 {
        match self {
            PortPiece::Src(..) => 1,
            PortPiece::Dst(..) => 2,
            PortPiece::Both(..) => 3,
        }
    }

    /// Applies the piece to a tcp/udp match's port ranges and inversion flags (`src_inv` and
    /// `dst_inv` are its `XT_*_INV_SRCPT` / `XT_*_INV_DSTPT` bits).
    pub fn apply(
        self,
        spts: &mut [u16; 2],
        dpts: &mut [u16; 2],
        invflags: &mut u8,
        src_inv: u8,
        dst_inv: u8,
    ) {
        let (s, d) = match self {
            PortPiece::Src(r, inv) => (Some((r, inv)), None),
            PortPiece::Dst(r, inv) => (None, Some((r, inv))),
            PortPiece::Both(a, b, inv) => (Some(([a, a], inv)), Some(([b, b], inv))),
        };
        if let Some((r, inv)) = s {
            *spts = r;
            if inv {
                *invflags |= src_inv;
            }
        }
        if let Some((r, inv)) = d {
            *dpts = r;
            if inv {
                *invflags |= dst_inv;
            }
        }
    }
}

/// Reads one native port test at `exprs[0..]` (payload transport + cmp/range) and returns it
/// with the number of expressions used.
pub fn decode_port_piece(exprs: &[Expr]) -> Option<(PortPiece, usize)> {
    let Some(Expr::Payload(p)) = exprs.first() else {
        return None;
    };
    if p.base != PayloadBase::Transport || p.op != (PayloadOp::Load { dreg: REG }) {
        return None;
    }
    match (p.offset, p.len, exprs.get(1)?) {
        (0, 4, Expr::Cmp(c))
            if c.sreg == REG && c.data.len() == 4 && matches!(c.op, CmpOp::Eq | CmpOp::Neq) =>
        {
            let v = u32::from_be_bytes(c.data.as_bytes().try_into().ok()?);
            Some((
                PortPiece::Both((v >> 16) as u16, v as u16, c.op == CmpOp::Neq),
                2,
            ))
        }
        (off @ (0 | 2), 2, e) => {
            let piece = |range, inv| {
                if off == 0 {
                    PortPiece::Src(range, inv)
                } else {
                    PortPiece::Dst(range, inv)
                }
            };
            // `nft` writes a range `tcp dport 67-69` as `cmp gte` then `cmp lte` on the one
            // load; iptables 1.8.11 reads it as `--dport 67:69`.
            if let (Expr::Cmp(lo), Some(Expr::Cmp(hi))) = (e, exprs.get(2)) {
                if lo.sreg == REG && hi.sreg == REG && lo.op == CmpOp::Gte && hi.op == CmpOp::Lte {
                    let (a, b) = (be16(&lo.data)?, be16(&hi.data)?);
                    if a <= b {
                        return Some((piece([a, b], false), 3));
                    }
                }
            }
            let (range, inv) = match e {
                Expr::Cmp(c) if c.sreg == REG => {
                    let v = be16(&c.data)?;
                    match c.op {
                        CmpOp::Eq => ([v, v], false),
                        CmpOp::Neq => ([v, v], true),
                        // iptables-nft reads `gt v` back as `v+1:65535`, not `! 0:v`.
                        CmpOp::Lte => ([0, v], false),
                        CmpOp::Gt if v < u16::MAX => ([v + 1, u16::MAX], false),
                        CmpOp::Lt if v > 0 => ([0, v - 1], false),
                        CmpOp::Gte => ([v, u16::MAX], false),
                        _ => return None,
                    }
                }
                Expr::Range(r) if r.sreg == REG => {
                    ([be16(&r.from)?, be16(&r.to)?], r.op == RangeOp::Neq)
                }
                _ => return None,
            };
            Some((piece(range, inv), 2))
        }
        _ => None,
    }
}

/// Looks a port up as libxtables' `xtables_getportbyname` (getaddrinfo on the service):
/// a decimal number or a service name of any protocol.
///
/// ```
/// use iptnl::ipt::ext::base::ports::port_by_name;
/// assert_eq!(port_by_name("8080", "--vport").unwrap(), 8080);
/// assert!(port_by_name("70000", "--vport").is_err());
/// ```
pub fn port_by_name(s: &str, opt: &str) -> Result<u16, ParseError> {
    let bad = || ParseError::bad(opt, format!("Port \"{s}\" does not resolve to anything."));
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u16>().map_err(|_| bad());
    }
    parse_port(s, "tcp", opt)
        .or_else(|_| parse_port(s, "udp", opt))
        .map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_like_iptables() {
        assert_eq!(parse_range("80", "tcp", "--dport").unwrap(), [80, 80]);
        assert_eq!(parse_range(":", "tcp", "--dport").unwrap(), [0, 65535]);
        assert_eq!(parse_range(":4", "tcp", "--dport").unwrap(), [0, 4]);
        assert_eq!(parse_range("4:", "tcp", "--dport").unwrap(), [4, 65535]);
        assert!(parse_range("4:3", "tcp", "--dport").is_err());
        assert!(parse_range("65536", "tcp", "--dport").is_err());
        assert!(parse_range("", "tcp", "--dport").is_err());
        assert!(parse_range("-1", "tcp", "--dport").is_err());
    }

    #[test]
    fn native_encoding_round_trips() {
        for (s, si, d, di) in [
            ([80, 80], false, [0, 65535], false),
            ([10, 10], false, [20, 20], false),
            ([10, 10], true, [20, 20], true),
            ([0, 100], false, [1000, 2000], true),
            ([0, 65535], true, [0, 65535], false),
            ([5, 65535], false, [1, 1], true),
        ] {
            let mut out = Vec::new();
            encode_ports(s, si, d, di, &mut out);
            let mut pos = 0;
            let (mut gs, mut gsi, mut gd, mut gdi) = ([0, 65535], false, [0, 65535], false);
            while pos < out.len() {
                let (piece, n) = decode_port_piece(&out[pos..]).unwrap();
                pos += n;
                match piece {
                    PortPiece::Src(r, i) => (gs, gsi) = (r, i),
                    PortPiece::Dst(r, i) => (gd, gdi) = (r, i),
                    PortPiece::Both(a, b, i) => (gs, gsi, gd, gdi) = ([a, a], i, [b, b], i),
                }
            }
            assert_eq!((gs, gsi, gd, gdi), (s, si, d, di));
        }
    }
}
