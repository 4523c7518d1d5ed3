//! nf_tables rule → RuleSpec, for every layout iptables-nft 1.8.0–1.8.11 writes. A rule that
//! uses anything iptables cannot express is returned as [`Foreign`], never misread.

use std::fmt;

use iptnl_sys::nf_tables::{
    NFT_META_IIF, NFT_META_IIFNAME, NFT_META_L4PROTO, NFT_META_OIF, NFT_META_OIFNAME,
};

use super::addr::AddrMask;
use super::encode::encode_exprs_into_for;
use super::ext::comment::Comment;
use super::ext::{all, find_xt, DecodeCtx, ExprCursor, ExtKind, NoSets, SetIndex};
use super::floor::ReaderFloor;
use super::raw::RawRule;
use super::readback_native::{self, NativePiece};
use super::spec::{AddrMatch, IfaceMatch, ProtoMatch, RuleSpec, RuleTarget};
use super::IpFamily;
use crate::nft::expr::meta::MetaOp;
use crate::nft::expr::{Cmp, CmpOp, Expr, PayloadBase, PayloadOp, REG};
use crate::nft::{Data, Rule, Verdict};

/// A rule iptables cannot express: kept as it is, listed, never changed by mistake.
#[derive(Debug, Clone, PartialEq)]
pub struct Foreign {
    /// Why it is foreign, e.g. "expression 3 (ct) has no iptables equivalent".
    pub reason: String,
    /// The rule in nft --debug=netlink form.
    pub description: String,
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reason)
    }
}

fn foreign(rule: &Rule, reason: String) -> Foreign {
    Foreign {
        reason,
        description: rule.to_string(),
    }
}

/// An x_tables match or target decoded by the extension that owns it, when one does.
/// What [`decode_xt`] reads a blob in.
struct XtCtx<'a> {
    rule: &'a Rule,
    family: IpFamily,
    sets: &'a dyn SetIndex,
    /// Only decode a blob whose printed options read back to it (see [`super::readback`]).
    strict: bool,
}

/// When `cx.strict`, only when its printed options read back to the same blob.
fn decode_xt(
    kind: ExtKind,
    name: &str,
    rev: u32,
    info: &[u8],
    spec: &RuleSpec,
    cx: &XtCtx<'_>,
) -> Option<Box<dyn super::ext::Extension>> {
    let ctx = DecodeCtx {
        family: cx.family,
        proto: spec.proto,
        sets: cx.sets,
    };
    let ext = find_xt(kind, name, cx.family)
        .and_then(|d| d.decode_xt)
        .and_then(|f| f(rev, info, &ctx))?;
    if !cx.strict {
        return Some(ext);
    }
    let rb = super::readback::Context {
        family: cx.family,
        proto: spec.proto,
        table: &cx.rule.table,
        chain: &cx.rule.chain,
        sets: cx.sets,
    };
    super::readback::reads_back(kind, ext.as_ref(), name, rev, info, &rb).then_some(ext)
}

fn not_understood(what: &str, name: &str, rev: u32) -> String {
    format!("x_tables {what} `{name}' revision {rev} is not understood")
}

fn cmp_after(exprs: &[Expr], i: usize) -> Option<&Cmp> {
    match exprs.get(i) {
        Some(Expr::Cmp(c)) if c.sreg == REG && matches!(c.op, CmpOp::Eq | CmpOp::Neq) => Some(c),
        _ => None,
    }
}

fn iface_from(data: &[u8], inv: bool) -> IfaceMatch {
    let name = if data == b"INVAL/D\0" && !inv {
        return IfaceMatch {
            name: "+".into(),
            inv: true,
        };
    } else if let Some(exact) = data.strip_suffix(&[0]) {
        String::from_utf8_lossy(exact.split(|&b| b == 0).next().unwrap_or(b"")).into_owned()
    } else {
        format!("{}+", String::from_utf8_lossy(data))
    };
    IfaceMatch { name, inv }
}

/// Reads the address tests (`payload network` [+ `bitwise`] + `cmp`) at `i`.
fn decode_addr(exprs: &[Expr], i: usize, family: IpFamily) -> Option<(bool, AddrMatch, usize)> {
    let Some(Expr::Payload(p)) = exprs.get(i) else {
        return None;
    };
    if p.base != PayloadBase::Network || p.op != (PayloadOp::Load { dreg: REG }) {
        return None;
    }
    let (src_off, dst_off, full) = match family {
        IpFamily::V4 => (12, 16, 4),
        IpFamily::V6 => (8, 24, 16),
    };
    let is_src = match p.offset {
        o if o == src_off => true,
        o if o == dst_off => false,
        _ => return None,
    };
    let len = p.len as usize;
    if len == 0 || len > full {
        return None;
    }
    let (mask, used) = match exprs.get(i + 1) {
        Some(Expr::Bitwise(b)) => {
            let (mask, xor) = b.as_mask_xor()?;
            if mask.len() != len || xor.as_bytes().iter().any(|&x| x != 0) {
                return None;
            }
            let mut m = mask.as_bytes().to_vec();
            m.resize(full, 0);
            (m, 2)
        }
        _ => {
            let mut m = vec![0xff; len];
            m.resize(full, 0);
            (m, 1)
        }
    };
    let c = cmp_after(exprs, i + used)?;
    if c.data.len() != len {
        return None;
    }
    let mut a = c.data.as_bytes().to_vec();
    a.resize(full, 0);
    let addr = AddrMask::from_bytes(&a, &mask)?;
    // Bits outside the mask in the compared value cannot be expressed.
    if addr.addr_bytes() != a {
        return None;
    }
    Some((
        is_src,
        AddrMatch {
            addr,
            inv: c.op == CmpOp::Neq,
        },
        used + 1,
    ))
}

fn verdict_target(v: &Verdict) -> Option<RuleTarget> {
    Some(match v {
        Verdict::Accept => RuleTarget::Accept,
        Verdict::Drop => RuleTarget::Drop,
        Verdict::Return => RuleTarget::Return,
        Verdict::Queue => RuleTarget::Queue,
        Verdict::Jump(c) => RuleTarget::Jump(c.clone()),
        Verdict::Goto(c) => RuleTarget::Goto(c.clone()),
        _ => return None,
    })
}

/// The comment of a rule as iptables-nft writes it (an x_tables `comment` match) or as `nft`
/// does (rule user data), without decoding the rest of the rule.
pub(crate) fn rule_comment(rule: &Rule) -> Option<String> {
    rule.exprs
        .iter()
        .find_map(|e| match e {
            Expr::Match(m) if m.name == "comment" => Some(nul_terminated(&m.info)),
            _ => None,
        })
        .or_else(|| rule.userdata.as_deref().and_then(udata_comment))
}

/// The text before the first NUL of `b` (all of it without one).
fn nul_terminated(b: &[u8]) -> String {
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Reads rule userdata TLVs (libnftnl format: type u8, length u8, value) for a comment
/// (type 0, NUL-terminated).
pub(crate) fn udata_comment(u: &[u8]) -> Option<String> {
    let mut i = 0;
    while i + 2 <= u.len() {
        let (ty, len) = (u[i], u[i + 1] as usize);
        let val = u.get(i + 2..i + 2 + len)?;
        if ty == 0 {
            return Some(nul_terminated(val));
        }
        i += 2 + len;
    }
    None
}

/// Decodes a rule only when its iptables form says all of it: when iptnl's encoding of the
/// decoded spec at one of the reader floors ([`ReaderFloor::LAYOUTS`], the layouts of
/// iptables-nft 1.8.7, 1.8.9 and 1.8.10 to 1.8.13) gives back the rule's own expressions
/// (counters' values aside) and the rule carries no user data. A rule that decodes but was
/// encoded otherwise (by `nft`, or with a mistake of a writer that iptnl does not copy) is
/// returned as [`Foreign`], so that saving it as a spec and restoring that never changes it.
///
/// ```
/// use iptnl::ipt::{decode_rule_exact, encode_rule, parse_rule, IpFamily};
/// let spec = &parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "22", "-j", "ACCEPT"]).unwrap()[0];
/// let mut rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
/// assert!(decode_rule_exact(&rule, IpFamily::V4).is_ok());
/// rule.userdata = Some(vec![1, 1, 0]);
/// assert!(decode_rule_exact(&rule, IpFamily::V4).is_err());
/// ```
pub fn decode_rule_exact(rule: &Rule, family: IpFamily) -> Result<RuleSpec, Foreign> {
    decode_rule_exact_with(rule, family, &NoSets)
}

/// [`decode_rule_exact`] with the ipset indexes resolved by `sets`.
pub fn decode_rule_exact_with(
    rule: &Rule,
    family: IpFamily,
    sets: &dyn SetIndex,
) -> Result<RuleSpec, Foreign> {
    exact_in(rule, family, sets, &layouts_for(rule, family))
}

/// [`decode_rule_exact_with`] in one layout only, the one iptnl writes at `floor`: a rule
/// laid out otherwise (by another iptables-nft release) is [`Foreign`], so that a save for
/// that floor carries its bytes.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::decode::decode_rule_exact_at;
/// use iptnl::ipt::{encode_rule_for, parse_rule, IpFamily, ReaderFloor};
/// let spec = &parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "22"]).unwrap()[0];
/// let r = encode_rule_for(spec, IpFamily::V4, "filter", "INPUT", &NoSets, ReaderFloor::V1_8_7).unwrap();
/// assert!(decode_rule_exact_at(&r, IpFamily::V4, &NoSets, ReaderFloor::V1_8_7).is_ok());
/// assert!(decode_rule_exact_at(&r, IpFamily::V4, &NoSets, ReaderFloor::V1_8_9).is_err());
/// ```
pub fn decode_rule_exact_at(
    rule: &Rule,
    family: IpFamily,
    sets: &dyn SetIndex,
    floor: ReaderFloor,
) -> Result<RuleSpec, Foreign> {
    exact_in(rule, family, sets, &[floor.layout()])
}

fn exact_in(
    rule: &Rule,
    family: IpFamily,
    sets: &dyn SetIndex,
    layouts: &[ReaderFloor],
) -> Result<RuleSpec, Foreign> {
    // Each x_tables blob must also read back from its printed options: a rule whose form
    // would restore as another rule, or not at all, is carried whole (and shown in that
    // form, see `viewed_raw_spec`).
    let mut natives = Vec::new();
    let spec = decode_inner(rule, family, sets, true, Some(&mut natives))?;
    if rule.userdata.is_some() {
        return Err(foreign(rule, "the rule carries user data".into()));
    }
    // So must the names printed bare: an interface or chain name a save line cannot carry
    // (a blank or a line break, which end the word or the line, or a double quote, which
    // starts a quoted word: `nft` writes any) would restore as another rule.
    let names = [&spec.in_iface, &spec.out_iface]
        .into_iter()
        .flatten()
        .map(|i| i.name.as_str())
        .chain(match &spec.target {
            Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) => Some(c.as_str()),
            _ => None,
        });
    // And what iptables does not print at all: `-i +` (every interface) is a meta load
    // with no comparison, which a save leaves out.
    if [&spec.in_iface, &spec.out_iface]
        .into_iter()
        .flatten()
        .any(|i| !i.inv && i.name == "+")
    {
        return Err(foreign(rule, "`-i +' and `-o +' are not saved".into()));
    }
    // And names iptables' parser refuses or reads as something else: an interface name of
    // 16 bytes or more with its `+`, or none; a chain name over 28 bytes (the kernel takes
    // 255), or one that `-j` reads as a verdict or a target extension (`nft` may name a
    // chain `ACCEPT` or `LOG`).
    for i in [&spec.in_iface, &spec.out_iface].into_iter().flatten() {
        if !super::parse::iface_name_ok(&i.name) {
            return Err(foreign(
                rule,
                format!("iptables takes no interface name {:?}", i.name),
            ));
        }
    }
    match &spec.target {
        Some(RuleTarget::Jump(c) | RuleTarget::Goto(c)) if !super::parse::target_name_ok(c) => {
            return Err(foreign(rule, format!("iptables takes no chain name {c:?}")));
        }
        Some(RuleTarget::Jump(c))
            if matches!(c.as_str(), "ACCEPT" | "DROP" | "RETURN" | "QUEUE")
                || super::ext::find(ExtKind::Target, c, family).is_some() =>
        {
            return Err(foreign(
                rule,
                format!("`-j {c}' is not a jump to the chain {c:?}"),
            ));
        }
        _ => {}
    }
    for n in names {
        if n.chars().any(|c| c.is_whitespace() || c == '"') {
            return Err(foreign(
                rule,
                format!("the name {n:?} cannot be written in a save line"),
            ));
        }
    }
    let (mut error, mut encoded, mut unread) = (None, false, false);
    let mut again = Vec::with_capacity(rule.exprs.len());
    for &floor in layouts {
        again.clear();
        let result = encode_exprs_into_for(
            &spec,
            family,
            &rule.table,
            &rule.chain,
            &mut again,
            sets,
            floor,
        );
        match result {
            // And what it prints must read back as the same rule, piece by piece.
            Ok(()) if same_exprs(&again, &rule.exprs) => {
                let ok = readback_native::reads_back(
                    &spec,
                    &natives,
                    &rule.exprs,
                    &rule.table,
                    &rule.chain,
                    sets,
                    floor,
                );
                if ok {
                    return Ok(spec);
                }
                unread = true;
            }
            Ok(()) => encoded = true,
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    Err(match error {
        _ if unread => foreign(
            rule,
            "its iptables form does not read back as the same rule".into(),
        ),
        Some(e) if !encoded => foreign(rule, format!("its iptables form cannot be encoded: {e}")),
        _ => foreign(
            rule,
            "its iptables form would be encoded differently".into(),
        ),
    })
}

/// Whether `again` (an encoding) is the rule's `exprs`, counters' values aside.
fn same_exprs(again: &[Expr], exprs: &[Expr]) -> bool {
    again.len() == exprs.len()
        && again.iter().zip(exprs).all(|(a, k)| match (a, k) {
            (Expr::Counter(_), Expr::Counter(_)) => true,
            (a, k) => match k.input_form() {
                Some(f) => *a == f,
                None => a == k,
            },
        })
}

/// The writers' layouts to compare a rule with, the likeliest first: 1.8.7's when it holds
/// an x_tables `tcp`, `udp` or `mark` match or an `NFLOG` target, 1.8.10's when it starts
/// with an address or (IPv4) an `ip protocol` test, 1.8.9's otherwise.
fn layouts_for(rule: &Rule, family: IpFamily) -> [ReaderFloor; 3] {
    let [v7, v9, v11] = ReaderFloor::LAYOUTS;
    let xt = rule.exprs.iter().any(|e| match e {
        Expr::Match(m) => matches!(&*m.name, "tcp" | "udp" | "mark"),
        Expr::Target(t) => t.name == "NFLOG",
        _ => false,
    });
    let addresses_first = match rule.exprs.first() {
        Some(Expr::Payload(p)) if p.base == PayloadBase::Network => match family {
            IpFamily::V4 => matches!(p.offset, 9 | 12 | 16),
            IpFamily::V6 => matches!(p.offset, 8 | 24),
        },
        _ => false,
    };
    if xt {
        [v7, v9, v11]
    } else if addresses_first {
        [v11, v9, v7]
    } else {
        [v9, v11, v7]
    }
}

/// Every rule as a spec: its iptables form when [`decode_rule_exact`] reads it, otherwise
/// the rule carried whole (`-m nft --nft-rule HEX`, see [`super::raw`]), its counters those
/// of its first `counter` expression.
///
/// ```
/// use iptnl::ipt::{decode_rule_or_raw, IpFamily};
/// use iptnl::nft::expr::{Counter, Immediate, RawExpr};
/// use iptnl::nft::{Expr, Family, Rule, Verdict};
/// let mut r = Rule::new(Family::Ipv4, "filter", "INPUT");
/// r.exprs = vec![
///     Expr::Raw(RawExpr { name: "osf".into(), data: None }),
///     Counter { packets: 1, bytes: 60 }.into(),
///     Immediate::verdict(Verdict::Drop).into(),
/// ];
/// let spec = decode_rule_or_raw(&r, IpFamily::V4);
/// assert!(spec.raw.is_some());
/// assert_eq!(spec.counters, Some((1, 60)));
/// assert!(spec.to_save_args().starts_with("-m nft --nft-rule "));
/// ```
pub fn decode_rule_or_raw(rule: &Rule, family: IpFamily) -> RuleSpec {
    decode_rule_or_raw_with(rule, family, &NoSets)
}

/// [`decode_rule_or_raw`] with the ipset indexes resolved by `sets`.
pub fn decode_rule_or_raw_with(rule: &Rule, family: IpFamily, sets: &dyn SetIndex) -> RuleSpec {
    match decode_rule_exact_with(rule, family, sets) {
        Ok(spec) => spec,
        Err(_) => viewed_raw_spec(rule, family, sets),
    }
}

/// The spec that carries `rule` whole, with the form iptables 1.8.11 shows it in as its
/// [`view`](RuleSpec::view) when [`decode_rule_with`] reads one (a rule `nft` wrote).
///
/// ```
/// use iptnl::ipt::decode::viewed_raw_spec;
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::{encode_rule, parse_rule, IpFamily};
/// use iptnl::nft::Expr;
/// let spec = &parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "22", "-j", "ACCEPT"]).unwrap()[0];
/// let mut rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
/// rule.exprs.retain(|e| !matches!(e, Expr::Counter(_))); // as `nft` writes it
/// let s = viewed_raw_spec(&rule, IpFamily::V4, &NoSets);
/// assert!(s.raw.is_some());
/// assert_eq!(s.to_save_args(), "-p tcp -m tcp --dport 22 -j ACCEPT");
/// ```
pub fn viewed_raw_spec(rule: &Rule, family: IpFamily, sets: &dyn SetIndex) -> RuleSpec {
    let mut spec = raw_spec(rule, family);
    // A form that would break its save line (a name or prefix with a line break in it) is
    // not shown: the save could not be read back.
    spec.view = decode_rule_with(rule, family, sets)
        .ok()
        .filter(|v| !v.to_save_args().contains(['\n', '\r']))
        .map(Box::new);
    spec
}

/// The spec that carries `rule` whole.
pub fn raw_spec(rule: &Rule, family: IpFamily) -> RuleSpec {
    let raw = RawRule::of(rule);
    RuleSpec {
        family,
        counters: raw.counters(),
        raw: Some(Box::new(raw)),
        ..RuleSpec::default()
    }
}

/// Decodes an nf_tables rule of an iptables table into a rule spec.
///
/// ```
/// use iptnl::ipt::{decode_rule, encode_rule, parse_rule, IpFamily};
/// let spec = &parse_rule(IpFamily::V4, &["-p", "tcp", "--dport", "22", "-j", "ACCEPT"]).unwrap()[0];
/// let rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
/// let back = decode_rule(&rule, IpFamily::V4).unwrap();
/// assert_eq!(back.to_save_args(), "-p tcp -m tcp --dport 22 -j ACCEPT");
/// ```
pub fn decode_rule(rule: &Rule, family: IpFamily) -> Result<RuleSpec, Foreign> {
    decode_rule_with(rule, family, &NoSets)
}

/// [`decode_rule`] with the ipset indexes resolved by `sets` (with [`NoSets`], a rule that
/// names an ipset is [`Foreign`]).
pub fn decode_rule_with(
    rule: &Rule,
    family: IpFamily,
    sets: &dyn SetIndex,
) -> Result<RuleSpec, Foreign> {
    decode_inner(rule, family, sets, false, None)
}

/// Decodes `rule`; with `natives`, also lists the extensions read from native expressions
/// (for [`super::readback_native`]).
fn decode_inner(
    rule: &Rule,
    family: IpFamily,
    sets: &dyn SetIndex,
    strict: bool,
    mut natives: Option<&mut Vec<NativePiece>>,
) -> Result<RuleSpec, Foreign> {
    let xcx = XtCtx {
        rule,
        family,
        sets,
        strict,
    };
    let exprs = &rule.exprs;
    let mut spec = RuleSpec {
        family,
        ..RuleSpec::default()
    };
    let mut i = 0;
    while i < exprs.len() {
        if spec.target.is_some() {
            return Err(foreign(
                rule,
                format!(
                    "expression {} ({}) follows the rule's verdict",
                    i + 1,
                    exprs[i].name()
                ),
            ));
        }
        let e = &exprs[i];
        match e {
            Expr::Meta(m) if m.op == (MetaOp::Load { dreg: REG }) => {
                let key = m.key.raw();
                if key == NFT_META_IIFNAME || key == NFT_META_OIFNAME {
                    let slot = if key == NFT_META_IIFNAME {
                        &mut spec.in_iface
                    } else {
                        &mut spec.out_iface
                    };
                    if slot.is_some() {
                        return Err(foreign(rule, "interface tested twice".into()));
                    }
                    match cmp_after(exprs, i + 1) {
                        Some(c) => {
                            *slot = Some(iface_from(c.data.as_bytes(), c.op == CmpOp::Neq));
                            i += 2;
                        }
                        None => {
                            // iptables-nft 1.8.9 writes `-i +` as a lone load.
                            *slot = Some(IfaceMatch {
                                name: "+".into(),
                                inv: false,
                            });
                            i += 1;
                        }
                    }
                    continue;
                }
                if key == NFT_META_IIF || key == NFT_META_OIF {
                    // `nft`'s `meta iif "lo"` tests the interface's index; iptables 1.8.11
                    // shows it as `-i lo` while an interface of that index exists.
                    let slot = if key == NFT_META_IIF {
                        &mut spec.in_iface
                    } else {
                        &mut spec.out_iface
                    };
                    if slot.is_none() {
                        if let Some(c) = cmp_after(exprs, i + 1) {
                            let name = <[u8; 4]>::try_from(c.data.as_bytes())
                                .ok()
                                .and_then(|b| sets.interface_name(u32::from_ne_bytes(b)));
                            if let Some(name) = name {
                                *slot = Some(IfaceMatch {
                                    name,
                                    inv: c.op == CmpOp::Neq,
                                });
                                i += 2;
                                continue;
                            }
                        }
                    }
                }
                if key == NFT_META_L4PROTO {
                    if let Some(c) = cmp_after(exprs, i + 1).filter(|c| c.data.len() == 1) {
                        if spec.proto.is_some() {
                            return Err(foreign(rule, "protocol tested twice".into()));
                        }
                        spec.proto = Some(ProtoMatch {
                            num: c.data.as_bytes()[0],
                            inv: c.op == CmpOp::Neq,
                        });
                        i += 2;
                        continue;
                    }
                }
            }
            Expr::Payload(p)
                if p.base == PayloadBase::Network && p.op == (PayloadOp::Load { dreg: REG }) =>
            {
                if family == IpFamily::V4 && p.offset == 9 && p.len == 1 && spec.proto.is_none() {
                    if let Some(c) = cmp_after(exprs, i + 1).filter(|c| c.data.len() == 1) {
                        spec.proto = Some(ProtoMatch {
                            num: c.data.as_bytes()[0],
                            inv: c.op == CmpOp::Neq,
                        });
                        i += 2;
                        continue;
                    }
                }
                if family == IpFamily::V4 && p.offset == 6 && p.len == 2 && spec.frag.is_none() {
                    if let (Some(Expr::Bitwise(b)), Some(c)) =
                        (exprs.get(i + 1), cmp_after(exprs, i + 2))
                    {
                        if b.as_mask_xor().is_some_and(|(m, x)| {
                            m.as_bytes() == [0x1f, 0xff] && x.as_bytes() == [0, 0]
                        }) && c.data.as_bytes() == [0, 0]
                        {
                            spec.frag = Some(c.op == CmpOp::Neq);
                            i += 3;
                            continue;
                        }
                    }
                }
                if let Some((is_src, m, n)) = decode_addr(exprs, i, family) {
                    // `ip saddr 0.0.0.0/0` (from `nft`) tests nothing: iptables shows no `-s`.
                    if m.addr.prefix_len() == Some(0) && !m.inv {
                        i += n;
                        continue;
                    }
                    let slot = if is_src { &mut spec.src } else { &mut spec.dst };
                    if slot.is_none() {
                        *slot = Some(m);
                        i += n;
                        continue;
                    }
                }
            }
            Expr::Counter(c) => {
                spec.counters = Some((c.packets, c.bytes));
                i += 1;
                continue;
            }
            Expr::Immediate(imm) if imm.dreg == 0 => {
                if let Data::Verdict(v) = &imm.data {
                    if let Some(t) = verdict_target(v) {
                        spec.target = Some(t);
                        i += 1;
                        continue;
                    }
                }
            }
            Expr::Match(m) => {
                let x = decode_xt(ExtKind::Match, &m.name, m.rev, &m.info, &spec, &xcx)
                    .ok_or_else(|| foreign(rule, not_understood("match", &m.name, m.rev)))?;
                spec.matches.push(x);
                i += 1;
                continue;
            }
            Expr::Target(t) => {
                let x = decode_xt(ExtKind::Target, &t.name, t.rev, &t.info, &spec, &xcx)
                    .ok_or_else(|| foreign(rule, not_understood("target", &t.name, t.rev)))?;
                spec.target = Some(RuleTarget::Ext(x));
                i += 1;
                continue;
            }
            _ => {}
        }
        // Native encodings of extensions (tcp/udp ports, mark, limit, NFLOG, TRACE…).
        let ctx = DecodeCtx {
            family,
            proto: spec.proto,
            sets,
        };
        let mut cur = ExprCursor { exprs, pos: i };
        let mut found = false;
        for d in all()
            .iter()
            .filter(|d| d.family.is_none_or(|f| f == family))
        {
            if let Some(dec) = d.decode_native {
                if let Some(x) = dec(&mut cur, &ctx) {
                    if cur.pos <= i {
                        break;
                    }
                    let at = match d.kind {
                        ExtKind::Match => {
                            spec.matches.push(x);
                            Some(spec.matches.len() - 1)
                        }
                        ExtKind::Target => {
                            spec.target = Some(RuleTarget::Ext(x));
                            None
                        }
                    };
                    if let Some(n) = natives.as_deref_mut() {
                        n.push(NativePiece {
                            at,
                            exprs: i..cur.pos,
                        });
                    }
                    i = cur.pos;
                    found = true;
                    break;
                }
                cur.pos = i;
            }
        }
        if !found {
            return Err(foreign(
                rule,
                format!(
                    "expression {} ({}) has no iptables equivalent",
                    i + 1,
                    exprs[i]
                ),
            ));
        }
    }
    if let Some(text) = rule.userdata.as_deref().and_then(udata_comment) {
        spec.matches.push(Box::new(Comment::new(&text)));
    }
    Ok(spec)
}
