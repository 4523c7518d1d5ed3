//! `match` and `target`: x_tables extensions run through nft_compat, with their info struct
//! as opaque bytes (see `iptnl_sys::xt` for the structs).

use std::borrow::Cow;
use std::fmt;

use iptnl_sys::nft_compat::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// An x_tables match (`match` expression).
///
/// ```
/// use iptnl::nft::expr::Match;
/// let m = Match { name: "comment".into(), rev: 0, info: vec![0; 256] };
/// assert_eq!(m.to_string(), "match name comment rev 0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Match {
    /// Extension name (`comment`, `conntrack`, …); borrowed when it is a constant, as when
    /// iptnl encodes a rule (no allocation per expression).
    pub name: Cow<'static, str>,
    /// Revision.
    pub rev: u32,
    /// The info struct, `XT_ALIGN`ed.
    pub info: Vec<u8>,
}

/// An x_tables target (`target` expression).
///
/// ```
/// use iptnl::nft::expr::Target;
/// let t = Target { name: "MASQUERADE".into(), rev: 0, info: vec![0; 24] };
/// assert_eq!(t.to_string(), "target name MASQUERADE rev 0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// Extension name (`MASQUERADE`, `DNAT`, …); borrowed when it is a constant.
    pub name: Cow<'static, str>,
    /// Revision.
    pub rev: u32,
    /// The info struct, `XT_ALIGN`ed.
    pub info: Vec<u8>,
}

fn encode(w: &mut MsgWriter, name: &str, rev: u32, info: &[u8]) {
    // NFTA_MATCH_* and NFTA_TARGET_* share their numbers.
    w.put_str(NFTA_MATCH_NAME, name);
    w.put_be32(NFTA_MATCH_REV, rev);
    w.put(NFTA_MATCH_INFO, info);
}

fn decode(data: Attrs<'_>) -> Result<Option<(String, u32, Vec<u8>)>, DecodeError> {
    let t = data.table::<{ NFTA_MATCH_INFO as usize + 1 }>()?;
    if t.has_unknown() {
        return Ok(None);
    }
    Ok(Some((
        t.need(NFTA_MATCH_NAME, "extension name")?.str()?.to_owned(),
        t.need(NFTA_MATCH_REV, "extension revision")?.be32()?,
        t.need(NFTA_MATCH_INFO, "extension info")?.data().to_vec(),
    )))
}

impl ExprKind for Match {
    const NAME: &'static str = "match";

    fn encode(&self, w: &mut MsgWriter) {
        encode(w, &self.name, self.rev, &self.info);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        Ok(decode(data)?.map(|(name, rev, info)| Match {
            name: name.into(),
            rev,
            info,
        }))
    }
}

impl ExprKind for Target {
    const NAME: &'static str = "target";

    fn encode(&self, w: &mut MsgWriter) {
        encode(w, &self.name, self.rev, &self.info);
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        Ok(decode(data)?.map(|(name, rev, info)| Target {
            name: name.into(),
            rev,
            info,
        }))
    }
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "match name {} rev {}", self.name, self.rev)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "target name {} rev {}", self.name, self.rev)
    }
}
