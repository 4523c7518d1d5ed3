//! `socket`: look up the local socket a packet belongs to and load one of its properties.

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// What a `socket` expression loads (`NFT_SOCKET_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SocketKey {
    /// Whether the socket is transparent (`IP_TRANSPARENT`).
    Transparent,
    /// The socket mark (`SO_MARK`).
    Mark,
    /// Whether the socket is bound to the wildcard address.
    Wildcard,
    /// The cgroup v2 ancestor id at [`Socket::level`].
    Cgroupv2,
    /// Any other key (kept as it is).
    Other(u32),
}

impl SocketKey {
    /// The `NFT_SOCKET_*` value.
    pub fn raw(self) -> u32 {
        match self {
            SocketKey::Transparent => NFT_SOCKET_TRANSPARENT,
            SocketKey::Mark => NFT_SOCKET_MARK,
            SocketKey::Wildcard => NFT_SOCKET_WILDCARD,
            SocketKey::Cgroupv2 => NFT_SOCKET_CGROUPV2,
            SocketKey::Other(v) => v,
        }
    }

    /// The key of an `NFT_SOCKET_*` value.
    pub fn from_raw(v: u32) -> SocketKey {
        match v {
            NFT_SOCKET_TRANSPARENT => SocketKey::Transparent,
            NFT_SOCKET_MARK => SocketKey::Mark,
            NFT_SOCKET_WILDCARD => SocketKey::Wildcard,
            NFT_SOCKET_CGROUPV2 => SocketKey::Cgroupv2,
            v => SocketKey::Other(v),
        }
    }
}

impl fmt::Display for SocketKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SocketKey::Transparent => f.write_str("transparent"),
            SocketKey::Mark => f.write_str("mark"),
            SocketKey::Wildcard => f.write_str("wildcard"),
            SocketKey::Cgroupv2 => f.write_str("cgroupv2"),
            SocketKey::Other(v) => write!(f, "key {v}"),
        }
    }
}

/// A `socket` expression.
///
/// ```
/// use iptnl::nft::expr::Socket;
/// use iptnl::nft::expr::socket::SocketKey;
/// let s = Socket { key: SocketKey::Transparent, dreg: 1, level: None };
/// assert_eq!(s.to_string(), "socket load transparent => reg 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Socket {
    /// What is loaded.
    pub key: SocketKey,
    /// Destination register.
    pub dreg: u32,
    /// The cgroup v2 hierarchy level (`NFTA_SOCKET_LEVEL`, dumped for
    /// [`SocketKey::Cgroupv2`] only). Not printed, as `nft` does not print it either.
    pub level: Option<u32>,
}

impl ExprKind for Socket {
    const NAME: &'static str = "socket";

    fn encode(&self, w: &mut MsgWriter) {
        w.put_be32(NFTA_SOCKET_KEY, self.key.raw());
        w.put_be32(NFTA_SOCKET_DREG, self.dreg);
        if let Some(l) = self.level {
            w.put_be32(NFTA_SOCKET_LEVEL, l);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_SOCKET_LEVEL as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        let (Some(key), Some(dreg)) = (t.get(NFTA_SOCKET_KEY), t.get(NFTA_SOCKET_DREG)) else {
            return Ok(None);
        };
        Ok(Some(Socket {
            key: SocketKey::from_raw(key.be32()?),
            dreg: dreg.be32()?,
            level: t.get(NFTA_SOCKET_LEVEL).map(|a| a.be32()).transpose()?,
        }))
    }
}

impl fmt::Display for Socket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "socket load {} => reg {}", self.key, self.dreg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_display() {
        let s = Socket {
            key: SocketKey::Cgroupv2,
            dreg: 1,
            level: Some(2),
        };
        let mut w = MsgWriter::new();
        s.encode(&mut w);
        assert_eq!(
            w.as_bytes(),
            &[8, 0, 1, 0, 0, 0, 0, 3, 8, 0, 2, 0, 0, 0, 0, 1, 8, 0, 3, 0, 0, 0, 0, 2]
        );
        assert_eq!(Socket::decode(Attrs::new(w.as_bytes())).unwrap(), Some(s));
        assert_eq!(s.to_string(), "socket load cgroupv2 => reg 1");
        let m = Socket {
            key: SocketKey::Other(42),
            dreg: 9,
            level: None,
        };
        assert_eq!(m.to_string(), "socket load key 42 => reg 9");
    }

    #[test]
    fn unknown_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be32(NFTA_SOCKET_KEY, 0);
        w.put_be32(NFTA_SOCKET_DREG, 1);
        w.put_be32(NFTA_SOCKET_LEVEL + 1, 1);
        assert_eq!(Socket::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
