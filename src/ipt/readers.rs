//! How each iptables-nft release reads a rule: what its `-S`, `-L` and save show, and what
//! its `-C` and `-D` compare, for the rule the kernel holds. A release that reads a rule
//! otherwise than it means misleads whoever reads its listing, and a save and restore by it
//! writes back what it showed, for good (`-m mark --mark 0x8000/0x8000 -j DROP` read by
//! 1.8.7 as `-j DROP`, kubernetes#112477).
//!
//! - iptables-nft 1.8.7 is modelled on its parser (`nft_rule_to_iptables_command_state`):
//!   it walks the expressions keeping the last load of each kind, binds each compare to the
//!   loads before it (base and register aside, so a lone interface load binds to the next
//!   compare of anything), ignores the native forms it does not know (transport header
//!   payloads, `meta mark`, `range`), and refuses to list or save a table holding an
//!   expression outside its list (`range`, `log`, …: "table `filter' is incompatible").
//! - 1.8.9 (and 1.8.10) read what 1.8.11 reads, but save an inverted full port range
//!   (`! --sport 0:65535`, which matches nothing) as no port test at all.
//! - 1.8.11 to 1.8.13 read as iptnl does.
//!
//! Each model is checked against the release itself (`tests/reader_floor.rs`: every rule of
//! iptables' own tests, written in every floor's forms).

use iptnl_sys::nf_tables::{
    NFT_META_IIF, NFT_META_IIFNAME, NFT_META_L4PROTO, NFT_META_NFTRACE, NFT_META_OIF,
    NFT_META_OIFNAME,
};
use iptnl_sys::xt::{XT_TCP_INV_DSTPT, XT_TCP_INV_SRCPT, XT_UDP_INV_DSTPT, XT_UDP_INV_SRCPT};

use super::addr::AddrMask;
use super::decode::decode_rule_with;
use super::ext::comment::Comment;
use super::ext::tcp::Tcp;
use super::ext::udp::Udp;
use super::ext::{find, find_xt, DecodeCtx, ExprCursor, ExtKind, Extension, SetIndex};
use super::floor::ReaderFloor;
use super::spec::{AddrMatch, IfaceMatch, ProtoMatch, RuleSpec, RuleTarget};
use super::IpFamily;
use crate::nft::expr::limit::LimitType;
use crate::nft::expr::meta::MetaOp;
use crate::nft::expr::{CmpOp, Expr, PayloadOp};
use crate::nft::{Data, Rule, Verdict};

/// What a release shows for a rule.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// It shows the rule as this spec, and its `-C`/`-D` compare it so.
    Rule(RuleSpec),
    /// It refuses to list or save the table holding the rule (`table `filter' is
    /// incompatible, use 'nft' tool.`), because the rule holds expression `expr`, which it
    /// does not know; its `-C` and `-D` still read the rule as `spec`.
    Incompatible {
        /// The expression's name (`range`, `log`).
        expr: String,
        /// What `-C` and `-D` read.
        spec: RuleSpec,
    },
    /// It cannot read the rule: its save and listing of the table fail.
    Unreadable(String),
    /// iptnl cannot tell (an x_tables extension it does not model).
    Unknown,
}

/// How iptables-nft `reader` reads `rule`.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::readers::{read_as, Reading};
/// use iptnl::ipt::{encode_rule_for, parse_rule_str, IpFamily, ReaderFloor};
/// let spec = &parse_rule_str(IpFamily::V4, "-m mark --mark 0x8000/0x8000 -j DROP").unwrap()[0];
/// let native = encode_rule_for(spec, IpFamily::V4, "filter", "X", &NoSets, ReaderFloor::V1_8_9).unwrap();
/// let Reading::Rule(seen) = read_as(&native, IpFamily::V4, ReaderFloor::V1_8_7, &NoSets) else { panic!() };
/// assert_eq!(seen.to_save_args(), "-j DROP");
/// let old = encode_rule_for(spec, IpFamily::V4, "filter", "X", &NoSets, ReaderFloor::V1_8_7).unwrap();
/// let Reading::Rule(seen) = read_as(&old, IpFamily::V4, ReaderFloor::V1_8_7, &NoSets) else { panic!() };
/// assert_eq!(seen.to_save_args(), spec.to_save_args());
/// ```
pub fn read_as(rule: &Rule, family: IpFamily, reader: ReaderFloor, sets: &dyn SetIndex) -> Reading {
    if reader == ReaderFloor::V1_8_7 {
        return read_as_1_8_7(rule, family, sets);
    }
    match decode_rule_with(rule, family, sets) {
        Ok(mut spec) => {
            if reader < ReaderFloor::V1_8_11 {
                hide_inverted_full_ranges(&mut spec);
            }
            Reading::Rule(spec)
        }
        Err(f) => Reading::Unreadable(f.reason),
    }
}

/// Before 1.8.11, tcp and udp saved and listed an inverted full port range as nothing.
fn hide_inverted_full_ranges(spec: &mut RuleSpec) {
    const FULL: [u16; 2] = [0, u16::MAX];
    for m in &mut spec.matches {
        if let Some(t) = m.as_any().downcast_ref::<Tcp>() {
            let mut t = t.clone();
            for (r, bit) in [(t.spts, XT_TCP_INV_SRCPT), (t.dpts, XT_TCP_INV_DSTPT)] {
                if r == FULL {
                    t.invflags &= !bit;
                }
            }
            *m = Box::new(t);
        } else if let Some(u) = m.as_any().downcast_ref::<Udp>() {
            let mut u = u.clone();
            for (r, bit) in [(u.spts, XT_UDP_INV_SRCPT), (u.dpts, XT_UDP_INV_DSTPT)] {
                if r == FULL {
                    u.invflags &= !bit;
                }
            }
            *m = Box::new(u);
        }
    }
}

/// The expressions iptables-nft 1.8.7 lists and saves (`supported_exprs`), besides a packet
/// `limit` without flags.
const KNOWN_1_8_7: [&str; 9] = [
    "match",
    "target",
    "payload",
    "meta",
    "cmp",
    "bitwise",
    "counter",
    "immediate",
    "lookup",
];

/// What 1.8.7's parser remembers between expressions (`struct nft_xt_ctx`).
#[derive(Default)]
struct Ctx {
    reg: u32,
    meta: Option<u32>,
    payload: Option<(u32, u32)>,
    bitwise: Option<Vec<u8>>,
    immediate: Option<(u32, Vec<u8>)>,
}

fn read_as_1_8_7(rule: &Rule, family: IpFamily, sets: &dyn SetIndex) -> Reading {
    let unknown = rule.exprs.iter().find(|e| match e {
        Expr::Limit(l) => l.limit_type != LimitType::Packets || l.flags != 0,
        e => !KNOWN_1_8_7.contains(&e.name()),
    });
    let mut spec = RuleSpec {
        family,
        ..RuleSpec::default()
    };
    let mut ctx = Ctx::default();
    let (mut jump, mut xt_target) = (None, None);
    for e in &rule.exprs {
        match e {
            Expr::Counter(c) => spec.counters = Some((c.packets, c.bytes)),
            Expr::Payload(p) => {
                if let PayloadOp::Load { dreg } = p.op {
                    ctx.reg = dreg;
                }
                ctx.payload = Some((p.offset, p.len));
            }
            Expr::Meta(m) => match m.op {
                MetaOp::Set { sreg } => {
                    if let Some((_, data)) = ctx.immediate.take_if(|(r, _)| *r == sreg) {
                        if m.key.raw() == NFT_META_NFTRACE && data.first().is_some_and(|&b| b != 0)
                        {
                            match target_named("TRACE", family) {
                                Some(t) => xt_target = Some(t),
                                None => return Reading::Unknown,
                            }
                        }
                        continue;
                    }
                    ctx.reg = 0;
                    ctx.meta = Some(m.key.raw());
                }
                MetaOp::Load { dreg } => {
                    ctx.reg = dreg;
                    ctx.meta = Some(m.key.raw());
                }
            },
            Expr::Bitwise(b) => {
                if ctx.reg != 0 && b.sreg != ctx.reg {
                    continue;
                }
                if let Some((mask, _)) = b.as_mask_xor() {
                    let mut m = ctx.bitwise.take().unwrap_or_else(|| vec![0; 16]);
                    m[..mask.len()].copy_from_slice(mask.as_bytes());
                    ctx.bitwise = Some(m);
                }
            }
            Expr::Cmp(c) => {
                if ctx.reg != 0 && c.sreg != ctx.reg {
                    continue;
                }
                let inv = c.op == CmpOp::Neq;
                let data = c.data.as_bytes();
                if let Some(key) = ctx.meta.take() {
                    meta_cmp(&mut spec, key, data, inv, sets);
                }
                if let Some((offset, len)) = ctx.payload.take() {
                    payload_cmp(&mut spec, &mut ctx, family, offset, len, c.op, data);
                }
            }
            Expr::Immediate(imm) => match &imm.data {
                Data::Value(v) => ctx.immediate = Some((imm.dreg, v.as_bytes().to_vec())),
                Data::Verdict(v) => {
                    jump = match v {
                        Verdict::Accept => Some(RuleTarget::Accept),
                        Verdict::Drop => Some(RuleTarget::Drop),
                        Verdict::Return => Some(RuleTarget::Return),
                        Verdict::Jump(c) => Some(RuleTarget::Jump(c.clone())),
                        Verdict::Goto(c) => Some(RuleTarget::Goto(c.clone())),
                        _ => None,
                    }
                }
            },
            Expr::Match(m) => match xt(ExtKind::Match, &m.name, m.rev, &m.info, &spec, sets) {
                Some(x) => spec.matches.push(x),
                None => return Reading::Unknown,
            },
            Expr::Target(t) => match xt(ExtKind::Target, &t.name, t.rev, &t.info, &spec, sets) {
                Some(x) => xt_target = Some(x),
                None => return Reading::Unknown,
            },
            Expr::Limit(l) => {
                // Read with the rate the limit match computes (`XT_LIMIT_SCALE * unit /
                // rate`); a byte limit or an inverted one is read so too.
                let ctx = DecodeCtx {
                    family,
                    proto: spec.proto,
                    sets,
                };
                let plain = Expr::Limit(crate::nft::expr::limit::Limit {
                    limit_type: LimitType::Packets,
                    flags: 0,
                    ..*l
                });
                let exprs = [plain];
                let mut cur = ExprCursor {
                    exprs: &exprs,
                    pos: 0,
                };
                match find(ExtKind::Match, "limit", family)
                    .and_then(|d| d.decode_native)
                    .and_then(|f| f(&mut cur, &ctx))
                {
                    Some(x) => spec.matches.push(x),
                    None => return Reading::Unknown,
                }
            }
            _ => {}
        }
    }
    if let Some(text) = rule
        .userdata
        .as_deref()
        .and_then(super::decode::udata_comment)
    {
        spec.matches.push(Box::new(Comment::new(&text)));
    }
    spec.target = match xt_target {
        Some(t) => Some(RuleTarget::Ext(t)),
        None => jump,
    };
    hide_inverted_full_ranges(&mut spec);
    match unknown {
        Some(e) => Reading::Incompatible {
            expr: e.name().to_owned(),
            spec,
        },
        None => Reading::Rule(spec),
    }
}

/// An x_tables match or target, as the extension iptnl has for it decodes it.
fn xt(
    kind: ExtKind,
    name: &str,
    rev: u32,
    info: &[u8],
    spec: &RuleSpec,
    sets: &dyn SetIndex,
) -> Option<Box<dyn Extension>> {
    let ctx = DecodeCtx {
        family: spec.family,
        proto: spec.proto,
        sets,
    };
    find_xt(kind, name, spec.family)
        .and_then(|d| d.decode_xt)
        .and_then(|f| f(rev, info, &ctx))
}

fn target_named(name: &str, family: IpFamily) -> Option<Box<dyn Extension>> {
    find(ExtKind::Target, name, family).map(|d| (d.new)(family))
}

/// `parse_ifname`: a name ending in NUL is exact; one without, a wildcard (`+` added), but
/// 16 bytes or more are taken as they are. The name is shown up to its first NUL, so one
/// that starts with a NUL is not shown at all.
fn ifname(data: &[u8], inv: bool) -> Option<IfaceMatch> {
    let (&last, _) = data.split_last()?;
    let end = data.iter().position(|&x| x == 0).unwrap_or(data.len());
    if end == 0 {
        return None;
    }
    let text = String::from_utf8_lossy(&data[..end]).into_owned();
    let name = if last == 0 || data.len() >= 16 {
        text
    } else {
        format!("{text}+")
    };
    Some(IfaceMatch { name, inv })
}

/// A compare after a `meta` load (`nft_ipv4_parse_meta`, `parse_meta`).
fn meta_cmp(spec: &mut RuleSpec, key: u32, data: &[u8], inv: bool, sets: &dyn SetIndex) {
    match key {
        NFT_META_L4PROTO => {
            if let Some(&p) = data.first() {
                spec.proto = Some(ProtoMatch { num: p, inv });
            }
        }
        NFT_META_IIFNAME | NFT_META_OIFNAME => {
            let m = ifname(data, inv);
            if key == NFT_META_IIFNAME {
                spec.in_iface = m;
            } else {
                spec.out_iface = m;
            }
        }
        NFT_META_IIF | NFT_META_OIF => {
            let name = <[u8; 4]>::try_from(data.get(..4).unwrap_or(&[]))
                .ok()
                .and_then(|b| sets.interface_name(u32::from_ne_bytes(b)))
                .unwrap_or_default();
            let m = Some(IfaceMatch { name, inv });
            if key == NFT_META_IIF {
                spec.in_iface = m;
            } else {
                spec.out_iface = m;
            }
        }
        _ => {}
    }
}

/// A compare after a payload load (`nft_ipv4_parse_payload`, `nft_ipv6_parse_payload`): by
/// offset alone, whatever the header.
fn payload_cmp(
    spec: &mut RuleSpec,
    ctx: &mut Ctx,
    family: IpFamily,
    offset: u32,
    len: u32,
    op: CmpOp,
    data: &[u8],
) {
    let inv = op == CmpOp::Neq;
    let (src, dst, proto, frag, size) = match family {
        IpFamily::V4 => (12, 16, 9, Some(6), 4usize),
        IpFamily::V6 => (8, 24, 6, None, 16usize),
    };
    match offset {
        o if o == src || o == dst => {
            let mut a = data.to_vec();
            a.resize(size, 0);
            let mask = match ctx.bitwise.take() {
                Some(m) => m[..size].to_vec(),
                None => {
                    let n = (len as usize).min(size);
                    let mut m = vec![0xff; n];
                    m.resize(size, 0);
                    m
                }
            };
            // iptables prints the address as compared, host bits and all.
            let Some(mut addr) = AddrMask::from_bytes(&a, &mask) else {
                return;
            };
            if let Some(raw) = AddrMask::from_bytes(&a, &[0xff; 16][..size]) {
                addr.addr = raw.addr;
            }
            let m = Some(AddrMatch { addr, inv });
            if o == src {
                spec.src = m;
            } else {
                spec.dst = m;
            }
        }
        o if o == proto => {
            if let Some(&p) = data.first() {
                spec.proto = Some(ProtoMatch { num: p, inv });
            }
        }
        o if Some(o) == frag => {
            // `get_frag`: the operator counts only after a bitwise.
            let inv = ctx.bitwise.take().is_some() && op == CmpOp::Eq;
            spec.frag = Some(!inv);
        }
        _ => {}
    }
}

/// A rule some release reads otherwise than the kernel holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Misread {
    /// The releases that read it so, oldest first.
    pub readers: Vec<ReaderFloor>,
    /// What they show (`-A CHAIN …`), or why they show nothing.
    pub seen: Seen,
    /// What the kernel holds, as iptnl shows it (`-A CHAIN …`).
    pub held: String,
}

/// What a release shows of a rule it misreads.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// This rule.
    Rule(String),
    /// Not the table (it calls it incompatible); its `-C` and `-D` read this rule.
    Incompatible {
        /// The expression it does not know.
        expr: String,
        /// What its `-C` and `-D` read.
        rule: String,
    },
    /// Nothing: its save and listing fail.
    Unreadable(String),
}

/// The releases from `floor` on that read `rule` (of chain `chain`) otherwise than `held`,
/// the rule as iptnl shows it (`-A CHAIN …`), grouped by what they show. Releases iptnl
/// cannot model for the rule are left out.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::readers::{misreads, Seen};
/// use iptnl::ipt::{encode_rule_for, parse_rule_str, IpFamily, ReaderFloor};
/// let spec = &parse_rule_str(IpFamily::V4, "-p tcp --dport 22 -j ACCEPT").unwrap()[0];
/// let r = encode_rule_for(spec, IpFamily::V4, "filter", "INPUT", &NoSets, ReaderFloor::V1_8_9).unwrap();
/// let held = spec.to_save_line("INPUT", false);
/// let m = misreads(&r, IpFamily::V4, "INPUT", &held, ReaderFloor::V1_8_7, &NoSets);
/// assert_eq!(m.len(), 1);
/// assert_eq!(m[0].readers, [ReaderFloor::V1_8_7]);
/// assert_eq!(m[0].seen, Seen::Rule("-A INPUT -p tcp -j ACCEPT".into()));
/// ```
pub fn misreads(
    rule: &Rule,
    family: IpFamily,
    chain: &str,
    held: &str,
    floor: ReaderFloor,
    sets: &dyn SetIndex,
) -> Vec<Misread> {
    let mut out: Vec<Misread> = Vec::new();
    for reader in ReaderFloor::ALL.into_iter().filter(|&r| r >= floor) {
        let seen = match read_as(rule, family, reader, sets) {
            Reading::Rule(s) => {
                let text = s.to_save_line(chain, false);
                if text == held {
                    continue;
                }
                Seen::Rule(text)
            }
            Reading::Incompatible { expr, spec } => Seen::Incompatible {
                expr,
                rule: spec.to_save_line(chain, false),
            },
            Reading::Unreadable(why) => Seen::Unreadable(why),
            Reading::Unknown => continue,
        };
        match out.iter_mut().find(|m| m.seen == seen) {
            Some(m) => m.readers.push(reader),
            None => out.push(Misread {
                readers: vec![reader],
                seen,
                held: held.to_owned(),
            }),
        }
    }
    out
}

impl std::fmt::Display for Misread {
    /// `iptables 1.8.7 reads `-A X -j DROP`; the kernel holds `-A X -m mark --mark
    /// 0x8000/0x8000 -j DROP``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.readers.iter().map(|r| r.as_str()).collect();
        let who = match names.as_slice() {
            [one] => format!("iptables {one}"),
            [init @ .., last] => format!("iptables {} and {last}", init.join(", ")),
            [] => "iptables".into(),
        };
        let verb = if names.len() > 1 { "read" } else { "reads" };
        match &self.seen {
            Seen::Rule(r) => write!(f, "{who} {verb} `{r}'"),
            Seen::Incompatible { expr, rule } => write!(
                f,
                "{who} cannot list or save the table (it does not know expression `{expr}') and its -C and -D read `{rule}'"
            ),
            Seen::Unreadable(why) => write!(f, "{who} cannot read it ({why})"),
        }?;
        write!(f, "; the kernel holds `{}'", self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::ext::NoSets;
    use crate::ipt::{encode_rule_for, parse_rule_str};

    /// What `reader` shows for `text` written at `floor`, as a save line of chain `X`.
    fn seen(text: &str, floor: ReaderFloor, reader: ReaderFloor) -> String {
        let spec = &parse_rule_str(IpFamily::V4, text).unwrap()[0];
        let r = encode_rule_for(spec, IpFamily::V4, "filter", "X", &NoSets, floor).unwrap();
        match read_as(&r, IpFamily::V4, reader, &NoSets) {
            Reading::Rule(s) => s.to_save_args(),
            Reading::Incompatible { expr, spec } => format!("[{expr}] {}", spec.to_save_args()),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn iptables_1_8_7_drops_the_native_forms() {
        use ReaderFloor::*;
        for (text, native) in [
            ("-m mark --mark 0x8000/0x8000 -j DROP", "-j DROP"),
            ("-p tcp -m tcp --dport 22 -j ACCEPT", "-p tcp -j ACCEPT"),
            ("-p tcp -m tcp --tcp-flags SYN,ACK SYN", "-p tcp"),
            (
                "-p udp -m udp --sport 1:3 -j ACCEPT",
                "[range] -p udp -j ACCEPT",
            ),
            ("-j NFLOG --nflog-group 3", "[log] "),
        ] {
            assert_eq!(seen(text, V1_8_9, V1_8_7), native, "{text}");
            assert_eq!(seen(text, V1_8_7, V1_8_7), text, "{text}");
            for r in [V1_8_9, V1_8_11, V1_8_13] {
                assert_eq!(seen(text, V1_8_7, r), text, "{text} read by {r}");
                assert_eq!(seen(text, V1_8_9, r), text, "{text} read by {r}");
            }
        }
        // The 1.8.11 layout reads the same in 1.8.7 where no native form is in it.
        let t = "-s 10.0.0.0/8 -i eth0 -p tcp -j ACCEPT";
        assert_eq!(seen(t, V1_8_11, V1_8_7), t);
    }

    #[test]
    fn inverted_full_ranges_are_shown_from_1_8_11_on() {
        use ReaderFloor::*;
        let t = "-p tcp -m tcp ! --sport 0:65535";
        for (reader, want) in [
            (V1_8_7, "-p tcp -m tcp"),
            (V1_8_9, "-p tcp -m tcp"),
            (V1_8_11, t),
        ] {
            assert_eq!(seen(t, V1_8_7, reader), want, "{reader}");
        }
    }

    #[test]
    fn a_lone_interface_load_binds_to_the_next_compare_in_1_8_7() {
        use crate::nft::expr::meta::{Meta, MetaKey};
        let spec = &parse_rule_str(IpFamily::V4, "-d 1.2.3.4 -j ACCEPT").unwrap()[0];
        let mut r = encode_rule_for(
            spec,
            IpFamily::V4,
            "filter",
            "X",
            &NoSets,
            ReaderFloor::V1_8_9,
        )
        .unwrap();
        // iptables-nft 1.8.9's `-i + -d 1.2.3.4`.
        r.exprs.insert(
            0,
            Meta::load_reg1(MetaKey::from_raw(NFT_META_IIFNAME)).into(),
        );
        let Reading::Rule(s) = read_as(&r, IpFamily::V4, ReaderFloor::V1_8_7, &NoSets) else {
            panic!()
        };
        assert_eq!(s.in_iface.unwrap().name, "\u{1}\u{2}\u{3}\u{4}+");
        let Reading::Rule(s) = read_as(&r, IpFamily::V4, ReaderFloor::V1_8_9, &NoSets) else {
            panic!()
        };
        assert_eq!(s.to_save_args(), "-d 1.2.3.4/32 -j ACCEPT");
    }

    #[test]
    fn misreads_group_the_readers_that_agree() {
        let spec = &parse_rule_str(IpFamily::V4, "-p udp -m udp ! --dport 0:65535").unwrap()[0];
        let r = encode_rule_for(
            spec,
            IpFamily::V4,
            "filter",
            "X",
            &NoSets,
            ReaderFloor::V1_8_9,
        )
        .unwrap();
        let held = spec.to_save_line("X", false);
        let m = misreads(&r, IpFamily::V4, "X", &held, ReaderFloor::V1_8_7, &NoSets);
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].readers, [ReaderFloor::V1_8_9]);
        assert_eq!(
            m[1].to_string(),
            "iptables 1.8.9 reads `-A X -p udp -m udp'; the kernel holds `-A X -p udp -m udp ! --dport 0:65535'"
        );
    }
}
