//! Rules: lists of expressions in a chain.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::expr::Expr;
use super::{Family, Set, SetElem, SetElems};
use crate::netlink::{DecodeError, Message, MsgWriter};

/// `NFTA_RULE_COMPAT`: the layer-4 protocol x_tables matches and targets see as `ip.proto`
/// (iptables-nft attaches it to every rule; the kernel does not dump it back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleCompat {
    /// The protocol number (`-p`), 0 for any.
    pub proto: u32,
    /// `NFT_RULE_COMPAT_F_INV` when the protocol match is inverted.
    pub flags: u32,
}

/// An nf_tables rule.
///
/// ```
/// use iptnl::nft::{Family, Rule, Verdict};
/// use iptnl::nft::expr::{Counter, Immediate};
/// let mut r = Rule::new(Family::Ipv4, "filter", "INPUT");
/// r.exprs.push(Counter::default().into());
/// r.exprs.push(Immediate::verdict(Verdict::Accept).into());
/// assert_eq!(r.to_string(), "ip filter INPUT\n  [ counter pkts 0 bytes 0 ]\n  [ immediate reg 0 accept ]\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The family of its table.
    pub family: Family,
    /// Its table.
    pub table: String,
    /// Its chain.
    pub chain: String,
    /// Handle assigned by the kernel (read only; used to delete, replace, insert relative).
    pub handle: Option<u64>,
    /// The expressions, in order.
    pub exprs: Vec<Expr>,
    /// Opaque user data (libnftnl TLVs; a comment is type 0).
    pub userdata: Option<Vec<u8>>,
    /// `NFTA_RULE_COMPAT`, sent on write only.
    pub compat: Option<RuleCompat>,
    /// Position handle in a dump or event (the rule it follows), when the kernel says.
    pub position: Option<u64>,
    /// Anonymous sets the rule looks up (`ip saddr { 1.1.1.1, 2.2.2.2 }`), with their
    /// elements: [`Batch::add_rule`](super::Batch::add_rule) creates each one in the same
    /// batch, just before the rule, and points the rule's lookups at it. A rule read from
    /// the kernel has none here (its lookups name the sets the kernel made).
    pub bound_sets: Vec<BoundSet>,
}

/// An anonymous set bound to one rule, and its elements.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BoundSet {
    /// The set as read (its name is the one the rule's lookups use, e.g. `__set0`).
    pub set: Set,
    /// Its elements.
    pub elems: Vec<SetElem>,
}

/// The attribute type, in [`Rule::content`], of a bound set: the set's NEWSET message and
/// then its NEWSETELEM message. Never sent to the kernel (it is above every
/// `NFTA_RULE_*` type).
const CONTENT_BOUND_SET: u16 = 0x3f01;

impl Rule {
    /// An empty rule for `chain` in `table`.
    pub fn new(family: Family, table: impl Into<String>, chain: impl Into<String>) -> Rule {
        Rule {
            family,
            table: table.into(),
            chain: chain.into(),
            handle: None,
            exprs: Vec::new(),
            userdata: None,
            compat: None,
            position: None,
            bound_sets: Vec::new(),
        }
    }

    /// Writes the attributes of a NEWRULE message. `handle` (replace), `position`,
    /// `position_id` and `id` are the placement attributes chosen by the batch.
    pub fn encode(
        &self,
        w: &mut MsgWriter,
        handle: Option<u64>,
        position: Option<u64>,
        id: Option<u32>,
        position_id: Option<u32>,
    ) {
        w.put_str(NFTA_RULE_TABLE, &self.table);
        w.put_str(NFTA_RULE_CHAIN, &self.chain);
        if let Some(h) = handle {
            w.put_be64(NFTA_RULE_HANDLE, h);
        }
        if let Some(p) = position {
            w.put_be64(NFTA_RULE_POSITION, p);
        }
        Expr::encode_list_input(&self.exprs, w, NFTA_RULE_EXPRESSIONS);
        if let Some(c) = self.compat {
            let n = w.nest(NFTA_RULE_COMPAT);
            w.put_be32(NFTA_RULE_COMPAT_PROTO, c.proto);
            w.put_be32(NFTA_RULE_COMPAT_FLAGS, c.flags);
            w.end_nest(n);
        }
        if let Some(u) = &self.userdata {
            w.put(NFTA_RULE_USERDATA, u);
        }
        if let Some(id) = id {
            w.put_be32(NFTA_RULE_ID, id);
        }
        if let Some(p) = position_id {
            w.put_be32(NFTA_RULE_POSITION_ID, p);
        }
    }

    /// Reads a NEWRULE message (dump reply, echo or event). Expressions iptnl does not know
    /// are kept raw; only malformed netlink is an error.
    pub fn decode(m: &Message<'_>) -> Result<Rule, DecodeError> {
        let nf = m.nfgen()?;
        let family = Family::from_raw(nf.family).ok_or(DecodeError::BadValue {
            what: "rule family",
            value: nf.family as i64,
        })?;
        let t = nf.attrs().table::<{ NFTA_RULE_CHAIN_ID as usize + 8 }>()?;
        let exprs = match t.get(NFTA_RULE_EXPRESSIONS) {
            Some(l) => Expr::decode_list(l)?,
            None => Vec::new(),
        };
        Ok(Rule {
            family,
            table: t.need(NFTA_RULE_TABLE, "rule table")?.str()?.to_owned(),
            chain: t.need(NFTA_RULE_CHAIN, "rule chain")?.str()?.to_owned(),
            handle: t.get(NFTA_RULE_HANDLE).map(|a| a.be64()).transpose()?,
            exprs,
            userdata: t.get(NFTA_RULE_USERDATA).map(|a| a.data().to_vec()),
            compat: None,
            position: t.get(NFTA_RULE_POSITION).map(|a| a.be64()).transpose()?,
            bound_sets: Vec::new(),
        })
    }

    /// What the rule is, apart from where it is: its expressions (each in the form the kernel
    /// accepts on input) and its user data, as the netlink attributes `NFTA_RULE_EXPRESSIONS`
    /// and `NFTA_RULE_USERDATA` of a NEWRULE message, then each of its
    /// [`bound_sets`](Self::bound_sets) as its NEWSET and NEWSETELEM messages in an attribute
    /// of type 0x3f01 (a type no kernel attribute has). [`set_content`](Self::set_content)
    /// reads them back, so a rule read from the kernel can be carried as bytes and written
    /// back as it was.
    ///
    /// ```
    /// use iptnl::nft::{Family, Rule, Verdict};
    /// use iptnl::nft::expr::Immediate;
    /// let mut r = Rule::new(Family::Ipv4, "filter", "INPUT");
    /// r.exprs.push(Immediate::verdict(Verdict::Drop).into());
    /// r.userdata = Some(vec![0, 3, b'h', b'i', 0]);
    /// let mut back = Rule::new(Family::Ipv4, "filter", "INPUT");
    /// back.set_content(&r.content()).unwrap();
    /// assert_eq!((back.exprs, back.userdata), (r.exprs, r.userdata));
    /// ```
    pub fn content(&self) -> Vec<u8> {
        let mut w = MsgWriter::new();
        Expr::encode_list_input(&self.exprs, &mut w, NFTA_RULE_EXPRESSIONS);
        if let Some(u) = &self.userdata {
            w.put(NFTA_RULE_USERDATA, u);
        }
        for b in &self.bound_sets {
            let mut m = MsgWriter::new();
            let family = b.set.family.raw();
            let start = m.begin(NFT_MSG_NEWSET, 0, 0, family, 0);
            b.set.encode(&mut m);
            let set_ok = m.finish(start);
            let start = m.begin(NFT_MSG_NEWSETELEM, 0, 0, family, 0);
            let mut elems = SetElems::new(b.set.family, b.set.table.clone(), b.set.name.clone());
            elems.elems.clone_from(&b.elems);
            elems.encode(&mut m);
            // A set whose elements do not fit one attribute cannot be carried: it is left
            // out, and writing the rule back then fails on its lookup.
            if set_ok.is_ok() && m.finish(start).is_ok() && m.len() < usize::from(u16::MAX) - 8 {
                w.put(CONTENT_BOUND_SET, m.as_bytes());
            }
        }
        w.into_bytes()
    }

    /// Replaces the expressions and user data with those of `bytes`, as written by
    /// [`content`](Self::content). Fails on malformed netlink, on any other attribute, and
    /// on an attribute given twice.
    pub fn set_content(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let mut exprs = None;
        let mut userdata = None;
        let mut bound = Vec::new();
        let mut attrs = crate::netlink::Attrs::new(bytes);
        for a in attrs.by_ref() {
            let a = a?;
            match a.kind() {
                NFTA_RULE_EXPRESSIONS if exprs.is_none() => exprs = Some(Expr::decode_list(a)?),
                NFTA_RULE_USERDATA if userdata.is_none() => userdata = Some(a.data().to_vec()),
                CONTENT_BOUND_SET => {
                    let mut msgs = crate::netlink::Messages::new(a.data());
                    let missing = DecodeError::Missing {
                        what: "bound set message",
                    };
                    let set = Set::decode(&msgs.next().ok_or(missing.clone())??)?;
                    let elems = SetElems::decode(&msgs.next().ok_or(missing)??)?;
                    bound.push(BoundSet {
                        set,
                        elems: elems.elems,
                    });
                }
                k => {
                    return Err(DecodeError::BadValue {
                        what: "rule content attribute",
                        value: i64::from(k),
                    })
                }
            }
        }
        if !attrs.remaining().is_empty() {
            return Err(DecodeError::BadValue {
                what: "trailing bytes after the rule content",
                value: attrs.remaining().len() as i64,
            });
        }
        self.exprs = exprs.unwrap_or_default();
        self.userdata = userdata;
        self.bound_sets = bound;
        Ok(())
    }

    /// Whether a lookup of the rule names an anonymous set (`__set…`): such a rule can be
    /// written again only with its sets bound ([`bind_sets`](Self::bind_sets)), since an
    /// anonymous set belongs to the one rule that uses it.
    pub fn uses_anonymous_sets(&self) -> bool {
        self.exprs
            .iter()
            .any(|e| matches!(e, Expr::Lookup(l) if l.set.starts_with("__set")))
    }

    /// Binds the anonymous sets the rule looks up, taken from `anon` (see
    /// [`anonymous_sets`](super::anonymous_sets)), so that writing the rule creates sets of
    /// its own with the same elements. Returns whether the rule looks any up.
    pub fn bind_sets(&mut self, anon: &std::collections::HashMap<String, BoundSet>) -> bool {
        self.bound_sets.clear();
        for e in &self.exprs {
            if let Expr::Lookup(l) = e {
                if let Some(b) = anon.get(&l.set) {
                    if !self.bound_sets.iter().any(|x| x.set.name == b.set.name) {
                        self.bound_sets.push(b.clone());
                    }
                }
            }
        }
        !self.bound_sets.is_empty()
    }

    /// The expressions encoded as the contents of `NFTA_RULE_EXPRESSIONS` (for byte-for-byte
    /// comparison with a kernel dump).
    pub fn exprs_bytes(&self) -> Vec<u8> {
        let mut w = MsgWriter::new();
        for e in &self.exprs {
            e.encode(&mut w);
        }
        w.into_bytes()
    }
}

/// Prints like `nft --debug=netlink`: a header line then one expression per line.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.family, self.table, self.chain)?;
        if let Some(h) = self.handle {
            write!(f, " handle {h}")?;
        }
        writeln!(f)?;
        for e in &self.exprs {
            writeln!(f, "  {e}")?;
        }
        if let Some(u) = &self.userdata {
            writeln!(f, "  userdata = {{ {} bytes }}", u.len())?;
        }
        Ok(())
    }
}
