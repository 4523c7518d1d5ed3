//! RuleSpec → nf_tables rule, in the exact layout of the iptables-nft release a
//! [`ReaderFloor`] names (1.8.9's for the functions that take no floor).
//!
//! Order (checked against each release): `-i`, `-o`, `-p` (meta l4proto), `-s`, `-d`, `-f`
//! up to 1.8.9; `-s`, `-d`, `-i`, `-o`, `-p` (IPv4: `ip protocol` payload), `-f` from 1.8.10
//! on; then the matches in command-line order, `counter`, the verdict or target.
//! `NFTA_RULE_COMPAT` carries the protocol on every rule.

use iptnl_sys::nf_tables::{NFT_META_IIFNAME, NFT_META_OIFNAME, NFT_RULE_COMPAT_F_INV};

use super::ext::{EncodeCtx, EncodeError, NoSets, SetIndex};
use super::floor::ReaderFloor;
use super::spec::{AddrMatch, IfaceMatch, RuleSpec, RuleTarget};
use super::IpFamily;
use crate::nft::expr::bitwise::Bitwise;
use crate::nft::expr::meta::{Meta, MetaKey};
use crate::nft::expr::{Cmp, Counter, Expr, Immediate, Payload, PayloadBase};
use crate::nft::{Family, Rule, RuleCompat, Verdict};

fn iface(key: u32, m: &IfaceMatch, out: &mut Vec<Expr>) {
    let name = m.name.as_bytes();
    if name == b"+" && !m.inv {
        // `-i +` tests nothing: no expression at all, as iptables-nft 1.8.10 and later write
        // it (1.8.9 left the name's load alone, which a 1.8.7 reader binds to the next
        // compare, and 1.8.7 wrote `! -i +` so, which matches every packet).
        return;
    }
    out.push(Meta::load_reg1(MetaKey::from_raw(key)).into());
    if let Some(prefix) = name.strip_suffix(b"+") {
        if prefix.is_empty() {
            // `! -i +`: a name no interface can have (iptables-nft 1.8.9 and later).
            out.push(Cmp::eq(false, b"INVAL/D\0").into());
            return;
        }
        out.push(Cmp::eq(m.inv, prefix).into());
    } else {
        let mut with_nul = name.to_vec();
        with_nul.push(0);
        out.push(Cmp::eq(m.inv, &with_nul).into());
    }
}

fn addr(m: &AddrMatch, family: IpFamily, src: bool, out: &mut Vec<Expr>) {
    let (offset, full) = match (family, src) {
        (IpFamily::V4, true) => (12, 4),
        (IpFamily::V4, false) => (16, 4),
        (IpFamily::V6, true) => (8, 16),
        (IpFamily::V6, false) => (24, 16),
    };
    let Some(len) = m.addr.prefix_len() else {
        out.push(Payload::load_reg1(PayloadBase::Network, offset, full).into());
        out.push(Bitwise::mask(&m.addr.mask_bytes()).into());
        out.push(Cmp::eq(m.inv, &m.addr.addr_bytes()).into());
        return;
    };
    if len == 0 {
        return;
    }
    let bytes = m.addr.addr_bytes();
    if len % 8 == 0 {
        let n = (len / 8) as usize;
        out.push(Payload::load_reg1(PayloadBase::Network, offset, n as u32).into());
        out.push(Cmp::eq(m.inv, &bytes[..n]).into());
    } else {
        out.push(Payload::load_reg1(PayloadBase::Network, offset, full).into());
        out.push(Bitwise::mask(&m.addr.mask_bytes()).into());
        out.push(Cmp::eq(m.inv, &bytes).into());
    }
}

/// Encodes a rule spec for `table`/`chain` as iptables-nft 1.8.9 would
/// ([`ReaderFloor::UNPINNED`]; [`encode_rule_for`] takes a floor). A rule naming an ipset
/// fails here (see [`NoSets`]): [`encode_rule_with`] resolves set names.
///
/// ```
/// use iptnl::ipt::{encode_rule, parse_rule, IpFamily};
/// let spec = &parse_rule(IpFamily::V4, &["-s", "10.0.0.0/8", "-j", "ACCEPT"]).unwrap()[0];
/// let rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
/// assert_eq!(rule.exprs.len(), 4); // payload, cmp, counter, immediate
/// ```
pub fn encode_rule(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
) -> Result<Rule, EncodeError> {
    encode_rule_with(spec, family, table, chain, &NoSets)
}

/// [`encode_rule`] with the ipset names resolved by `sets`.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::{encode_rule_with, parse_rule, IpFamily};
/// let spec = &parse_rule(IpFamily::V4, &["-j", "ACCEPT"]).unwrap()[0];
/// let rule = encode_rule_with(spec, IpFamily::V4, "filter", "INPUT", &NoSets).unwrap();
/// assert_eq!(rule.exprs.len(), 2); // counter, immediate
/// ```
pub fn encode_rule_with(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    sets: &dyn SetIndex,
) -> Result<Rule, EncodeError> {
    encode_rule_for(spec, family, table, chain, sets, ReaderFloor::UNPINNED)
}

/// [`encode_rule_with`] in the forms of the reader floor `floor`.
///
/// ```
/// use iptnl::ipt::ext::NoSets;
/// use iptnl::ipt::{encode_rule_for, parse_rule_str, IpFamily, ReaderFloor};
/// use iptnl::nft::Expr;
/// let spec = &parse_rule_str(IpFamily::V4, "-p tcp --dport 22 -j ACCEPT").unwrap()[0];
/// let old = encode_rule_for(spec, IpFamily::V4, "filter", "INPUT", &NoSets, ReaderFloor::V1_8_7).unwrap();
/// assert!(matches!(&old.exprs[2], Expr::Match(m) if m.name == "tcp"));
/// let new = encode_rule_for(spec, IpFamily::V4, "filter", "INPUT", &NoSets, ReaderFloor::V1_8_9).unwrap();
/// assert!(matches!(&new.exprs[2], Expr::Payload(_)));
/// ```
pub fn encode_rule_for(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    sets: &dyn SetIndex,
    floor: ReaderFloor,
) -> Result<Rule, EncodeError> {
    let mut r = Rule::new(family.nft(), table, chain);
    encode_exprs_into_for(spec, family, table, chain, &mut r.exprs, sets, floor)?;
    set_compat_and_userdata(spec, family, &mut r);
    Ok(r)
}

/// [`encode_rule`] into an existing rule, reusing its buffers (a restore encodes hundreds of
/// thousands of rules: a fresh expression vector per rule is a large allocation each time).
pub fn encode_rule_into(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    r: &mut Rule,
) -> Result<(), EncodeError> {
    encode_rule_into_with(spec, family, table, chain, r, &NoSets)
}

/// [`encode_rule_into`] with the ipset names resolved by `sets`.
pub fn encode_rule_into_with(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    r: &mut Rule,
    sets: &dyn SetIndex,
) -> Result<(), EncodeError> {
    encode_rule_into_for(spec, family, table, chain, r, sets, ReaderFloor::UNPINNED)
}

/// [`encode_rule_into_with`] in the forms of the reader floor `floor`.
pub fn encode_rule_into_for(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    r: &mut Rule,
    sets: &dyn SetIndex,
    floor: ReaderFloor,
) -> Result<(), EncodeError> {
    r.family = family.nft();
    r.table.clear();
    r.table.push_str(table);
    r.chain.clear();
    r.chain.push_str(chain);
    r.handle = None;
    r.userdata = None;
    r.bound_sets.clear();
    r.position = None;
    r.exprs.clear();
    encode_exprs_into_for(spec, family, table, chain, &mut r.exprs, sets, floor)?;
    set_compat_and_userdata(spec, family, r);
    Ok(())
}

/// `NFTA_RULE_COMPAT` from `-p` (iptables-nft sends it with every rule); a rule carried
/// whole gets its user data back and the compat its expressions need.
fn set_compat_and_userdata(spec: &RuleSpec, family: IpFamily, r: &mut Rule) {
    if let Some(raw) = &spec.raw {
        r.userdata.clone_from(&raw.userdata);
        r.bound_sets.clone_from(&raw.bound_sets);
        r.compat = raw.compat(family);
        return;
    }
    let (proto, inv) = spec.proto.map(|p| (p.num, p.inv)).unwrap_or((0, false));
    r.compat = Some(RuleCompat {
        proto: proto as u32,
        flags: if inv { NFT_RULE_COMPAT_F_INV } else { 0 },
    });
}

/// The expressions of a rule spec (see [`encode_rule`]).
pub fn encode_exprs(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
) -> Result<Vec<Expr>, EncodeError> {
    encode_exprs_with(spec, family, table, chain, &NoSets)
}

/// [`encode_exprs`] with the ipset names resolved by `sets`.
pub fn encode_exprs_with(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    sets: &dyn SetIndex,
) -> Result<Vec<Expr>, EncodeError> {
    encode_exprs_for(spec, family, table, chain, sets, ReaderFloor::UNPINNED)
}

/// [`encode_exprs_with`] in the forms of the reader floor `floor`.
pub fn encode_exprs_for(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    sets: &dyn SetIndex,
    floor: ReaderFloor,
) -> Result<Vec<Expr>, EncodeError> {
    let mut out = Vec::with_capacity(8 + spec.matches.len() * 2);
    encode_exprs_into_for(spec, family, table, chain, &mut out, sets, floor)?;
    Ok(out)
}

/// [`encode_exprs`] appending to `out`.
pub fn encode_exprs_into(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    out: &mut Vec<Expr>,
) -> Result<(), EncodeError> {
    encode_exprs_into_with(spec, family, table, chain, out, &NoSets)
}

/// [`encode_exprs_into`] with the ipset names resolved by `sets`.
pub fn encode_exprs_into_with(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    out: &mut Vec<Expr>,
    sets: &dyn SetIndex,
) -> Result<(), EncodeError> {
    encode_exprs_into_for(spec, family, table, chain, out, sets, ReaderFloor::UNPINNED)
}

/// [`encode_exprs_into_with`] in the forms of the reader floor `floor`.
pub fn encode_exprs_into_for(
    spec: &RuleSpec,
    family: IpFamily,
    table: &str,
    chain: &str,
    out: &mut Vec<Expr>,
    sets: &dyn SetIndex,
    floor: ReaderFloor,
) -> Result<(), EncodeError> {
    if let Some(raw) = &spec.raw {
        out.extend(raw.exprs_with_counters(spec.counters));
        return Ok(());
    }
    let addrs = |out: &mut Vec<Expr>| {
        if let Some(s) = &spec.src {
            addr(s, family, true, out);
        }
        if let Some(d) = &spec.dst {
            addr(d, family, false, out);
        }
    };
    if floor.addresses_first() {
        addrs(out);
    }
    if let Some(i) = &spec.in_iface {
        iface(NFT_META_IIFNAME, i, out);
    }
    if let Some(o) = &spec.out_iface {
        iface(NFT_META_OIFNAME, o, out);
    }
    if let Some(p) = spec.proto.filter(|p| p.num != 0) {
        if floor.addresses_first() && family == IpFamily::V4 {
            // iptables-nft 1.8.10 and later: `ip protocol`.
            out.push(Payload::load_reg1(PayloadBase::Network, 9, 1).into());
        } else {
            out.push(Meta::load_reg1(MetaKey::L4proto).into());
        }
        out.push(Cmp::eq(p.inv, &[p.num]).into());
    }
    if !floor.addresses_first() {
        addrs(out);
    }
    if let Some(frag) = spec.frag {
        out.push(Payload::load_reg1(PayloadBase::Network, 6, 2).into());
        out.push(Bitwise::mask(&[0x1f, 0xff]).into());
        out.push(Cmp::eq(frag, &[0, 0]).into());
    }
    let ctx = EncodeCtx {
        family,
        proto: spec.proto,
        table,
        chain,
        sets,
        floor,
    };
    for m in &spec.matches {
        m.encode(&ctx, out)?;
    }
    let (packets, bytes) = spec.counters.unwrap_or((0, 0));
    out.push(Expr::Counter(Counter { packets, bytes }));
    match &spec.target {
        None => {}
        Some(RuleTarget::Accept) => out.push(Immediate::verdict(Verdict::Accept).into()),
        Some(RuleTarget::Drop) => out.push(Immediate::verdict(Verdict::Drop).into()),
        Some(RuleTarget::Return) => out.push(Immediate::verdict(Verdict::Return).into()),
        Some(RuleTarget::Queue) => out.push(Immediate::verdict(Verdict::Queue).into()),
        Some(RuleTarget::Jump(c)) => out.push(Immediate::verdict(Verdict::Jump(c.clone())).into()),
        Some(RuleTarget::Goto(c)) => out.push(Immediate::verdict(Verdict::Goto(c.clone())).into()),
        Some(RuleTarget::Ext(t)) => t.encode(&ctx, out)?,
    }
    Ok(())
}

impl IpFamily {
    /// The nf_tables family.
    pub fn nft(self) -> Family {
        match self {
            IpFamily::V4 => Family::Ipv4,
            IpFamily::V6 => Family::Ipv6,
        }
    }
}
