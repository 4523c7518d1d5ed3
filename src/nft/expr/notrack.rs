//! `notrack`: mark the packet as untracked, so conntrack leaves it alone. It has no
//! attributes: the kernel dumps it without an `NFTA_EXPR_DATA` nest.

use std::fmt;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// The `notrack` expression.
///
/// ```
/// use iptnl::nft::expr::{Expr, Notrack};
/// assert_eq!(Expr::from(Notrack).to_string(), "[ notrack ]");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Notrack;

impl ExprKind for Notrack {
    const NAME: &'static str = "notrack";
    const HAS_DATA: bool = false;

    fn encode(&self, _w: &mut MsgWriter) {}

    fn decode(mut data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        match data.next() {
            None => Ok(Some(Notrack)),
            Some(a) => a.map(|_| None),
        }
    }
}

impl fmt::Display for Notrack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("notrack")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nft::expr::Expr;
    use iptnl_sys::nf_tables::{NFTA_EXPR_DATA, NFTA_EXPR_NAME, NFTA_LIST_ELEM};

    #[test]
    fn encodes_without_data_nest() {
        let mut w = MsgWriter::new();
        Expr::from(Notrack).encode(&mut w);
        let mut want = MsgWriter::new();
        let n = want.nest(NFTA_LIST_ELEM);
        want.put_str(NFTA_EXPR_NAME, "notrack");
        want.end_nest(n);
        assert_eq!(w.as_bytes(), want.as_bytes());
        let elem = Attrs::new(w.as_bytes()).next().unwrap().unwrap();
        assert_eq!(Expr::decode(elem).unwrap(), Expr::Notrack(Notrack));
        assert_eq!(Notrack.to_string(), "notrack");
    }

    #[test]
    fn any_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(1, 0);
        assert_eq!(Notrack::decode(Attrs::new(w.as_bytes())).unwrap(), None);
        // With a data nest, the expression is kept raw.
        let mut w = MsgWriter::new();
        let n = w.nest(NFTA_LIST_ELEM);
        w.put_str(NFTA_EXPR_NAME, "notrack");
        let d = w.nest(NFTA_EXPR_DATA);
        w.end_nest(d);
        w.end_nest(n);
        let elem = Attrs::new(w.as_bytes()).next().unwrap().unwrap();
        assert!(matches!(Expr::decode(elem).unwrap(), Expr::Raw(_)));
    }
}
