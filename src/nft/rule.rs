//! Rules: lists of expressions in a chain.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::expr::Expr;
use super::Family;
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
}

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
        })
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
