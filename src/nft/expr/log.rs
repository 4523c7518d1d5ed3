//! `log`: log the packet, to the kernel log (`log level …`) or to an nfnetlink_log group
//! (`log group …`, what iptables calls NFLOG).

use std::fmt;

use iptnl_sys::nf_tables::*;

use super::ExprKind;
use crate::netlink::{Attrs, DecodeError, MsgWriter};

/// A syslog level (`NFT_LOGLEVEL_*`), plus `audit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogLevel {
    /// `emerg` (0).
    Emerg,
    /// `alert` (1).
    Alert,
    /// `crit` (2).
    Crit,
    /// `err` (3).
    Err,
    /// `warn` (4), the kernel's default.
    Warning,
    /// `notice` (5).
    Notice,
    /// `info` (6).
    Info,
    /// `debug` (7).
    Debug,
    /// `audit` (8): an audit record instead of a kernel log line.
    Audit,
    /// Any other level (kept as it is).
    Other(u32),
}

impl LogLevel {
    /// The `NFT_LOGLEVEL_*` value.
    pub fn raw(self) -> u32 {
        match self {
            LogLevel::Emerg => NFT_LOGLEVEL_EMERG,
            LogLevel::Alert => NFT_LOGLEVEL_ALERT,
            LogLevel::Crit => NFT_LOGLEVEL_CRIT,
            LogLevel::Err => NFT_LOGLEVEL_ERR,
            LogLevel::Warning => NFT_LOGLEVEL_WARNING,
            LogLevel::Notice => NFT_LOGLEVEL_NOTICE,
            LogLevel::Info => NFT_LOGLEVEL_INFO,
            LogLevel::Debug => NFT_LOGLEVEL_DEBUG,
            LogLevel::Audit => NFT_LOGLEVEL_AUDIT,
            LogLevel::Other(v) => v,
        }
    }

    /// The level of an `NFT_LOGLEVEL_*` value.
    pub fn from_raw(v: u32) -> LogLevel {
        match v {
            NFT_LOGLEVEL_EMERG => LogLevel::Emerg,
            NFT_LOGLEVEL_ALERT => LogLevel::Alert,
            NFT_LOGLEVEL_CRIT => LogLevel::Crit,
            NFT_LOGLEVEL_ERR => LogLevel::Err,
            NFT_LOGLEVEL_WARNING => LogLevel::Warning,
            NFT_LOGLEVEL_NOTICE => LogLevel::Notice,
            NFT_LOGLEVEL_INFO => LogLevel::Info,
            NFT_LOGLEVEL_DEBUG => LogLevel::Debug,
            NFT_LOGLEVEL_AUDIT => LogLevel::Audit,
            v => LogLevel::Other(v),
        }
    }
}

bitflags::bitflags! {
    /// What a kernel-log `log` adds to each line (`NF_LOG_*` from `nf_log.h`). Unknown bits
    /// are kept.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LogFlags: u32 {
        /// TCP sequence numbers.
        const TCPSEQ = 0x01;
        /// TCP options.
        const TCPOPT = 0x02;
        /// IP options.
        const IPOPT = 0x04;
        /// UID of the local socket.
        const UID = 0x08;
        /// Obsolete `NF_LOG_NFLOG` (refused by the kernel).
        const NFLOG = 0x10;
        /// Decoded MAC header.
        const MACDECODE = 0x20;
    }
}

/// A `log` expression. Every attribute is optional and dumped only when set, so each is an
/// `Option`: `prefix`, then either `level` and `flags` (kernel log; the kernel dumps
/// `level` 4 when none was given) or `group`, `snaplen` and `qthreshold` (nfnetlink_log).
///
/// ```
/// use iptnl::nft::expr::log::{Log, LogLevel};
/// // log prefix "x" level debug
/// let l = Log { prefix: Some("x".into()), level: Some(LogLevel::Debug), ..Log::default() };
/// assert_eq!(l.to_string(), "log prefix x level 7");
/// // log group 2 snaplen 0
/// let g = Log { group: Some(2), snaplen: Some(0), ..Log::default() };
/// assert_eq!(g.to_string(), "log group 2 snaplen 0 qthreshold 0");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Log {
    /// Prefix of each log line (at most 127 bytes).
    pub prefix: Option<String>,
    /// Syslog level (kernel log only).
    pub level: Option<LogLevel>,
    /// Extra information to log (kernel log only; dumped only when not empty).
    pub flags: Option<LogFlags>,
    /// nfnetlink_log group.
    pub group: Option<u16>,
    /// Bytes of each packet copied to userspace (nfnetlink_log).
    pub snaplen: Option<u32>,
    /// Packets queued in the kernel before a batch is sent (nfnetlink_log; dumped only when
    /// not zero).
    pub qthreshold: Option<u16>,
}

impl ExprKind for Log {
    const NAME: &'static str = "log";

    fn encode(&self, w: &mut MsgWriter) {
        // The kernel dumps the prefix, then level and flags or group, snaplen and qthreshold
        // (never both kinds).
        if let Some(p) = &self.prefix {
            w.put_str(NFTA_LOG_PREFIX, p);
        }
        if let Some(l) = self.level {
            w.put_be32(NFTA_LOG_LEVEL, l.raw());
        }
        if let Some(fl) = self.flags {
            w.put_be32(NFTA_LOG_FLAGS, fl.bits());
        }
        if let Some(g) = self.group {
            w.put_be16(NFTA_LOG_GROUP, g);
        }
        if let Some(s) = self.snaplen {
            w.put_be32(NFTA_LOG_SNAPLEN, s);
        }
        if let Some(q) = self.qthreshold {
            w.put_be16(NFTA_LOG_QTHRESHOLD, q);
        }
    }

    fn decode(data: Attrs<'_>) -> Result<Option<Self>, DecodeError> {
        let t = data.table::<{ NFTA_LOG_FLAGS as usize + 1 }>()?;
        if t.has_unknown() {
            return Ok(None);
        }
        // Each present attribute must read cleanly; `Err(())` means "keep it raw".
        let read = || -> Result<Log, ()> {
            Ok(Log {
                prefix: t
                    .get(NFTA_LOG_PREFIX)
                    .map(|a| a.str().map(str::to_owned))
                    .transpose()
                    .map_err(drop)?,
                level: t
                    .get(NFTA_LOG_LEVEL)
                    .map(|a| a.be32().map(LogLevel::from_raw))
                    .transpose()
                    .map_err(drop)?,
                flags: t
                    .get(NFTA_LOG_FLAGS)
                    .map(|a| a.be32().map(LogFlags::from_bits_retain))
                    .transpose()
                    .map_err(drop)?,
                group: t
                    .get(NFTA_LOG_GROUP)
                    .map(|a| a.be16())
                    .transpose()
                    .map_err(drop)?,
                snaplen: t
                    .get(NFTA_LOG_SNAPLEN)
                    .map(|a| a.be32())
                    .transpose()
                    .map_err(drop)?,
                qthreshold: t
                    .get(NFTA_LOG_QTHRESHOLD)
                    .map(|a| a.be16())
                    .transpose()
                    .map_err(drop)?,
            })
        };
        Ok(read().ok())
    }
}

impl fmt::Display for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("log")?;
        if let Some(p) = &self.prefix {
            write!(f, " prefix {p}")?;
        }
        if let Some(g) = self.group {
            write!(
                f,
                " group {} snaplen {} qthreshold {}",
                g,
                self.snaplen.unwrap_or(0),
                self.qthreshold.unwrap_or(0)
            )?;
        } else {
            if let Some(s) = self.snaplen {
                write!(f, " snaplen {s}")?;
            }
            if let Some(q) = self.qthreshold {
                write!(f, " qthreshold {q}")?;
            }
        }
        if let Some(l) = self.level {
            write!(f, " level {}", l.raw())?;
        }
        if let Some(fl) = self.flags {
            for (name, bit) in [
                ("tcpseq", LogFlags::TCPSEQ),
                ("tcpopt", LogFlags::TCPOPT),
                ("ipopt", LogFlags::IPOPT),
                ("uid", LogFlags::UID),
                ("nflog", LogFlags::NFLOG),
                ("macdecode", LogFlags::MACDECODE),
            ] {
                if fl.contains(bit) {
                    write!(f, " {name}")?;
                }
            }
            let unknown = fl.bits() & !LogFlags::all().bits();
            if unknown != 0 {
                write!(f, " flags 0x{unknown:x}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_nft_debug() {
        assert_eq!(Log::default().to_string(), "log");
        let l = Log {
            level: Some(LogLevel::Warning),
            flags: Some(LogFlags::from_bits_retain(0x2f)),
            ..Log::default()
        };
        assert_eq!(
            l.to_string(),
            "log level 4 tcpseq tcpopt ipopt uid macdecode"
        );
        let g = Log {
            prefix: Some("y".into()),
            group: Some(2),
            qthreshold: Some(4),
            ..Log::default()
        };
        assert_eq!(g.to_string(), "log prefix y group 2 snaplen 0 qthreshold 4");
    }

    #[test]
    fn round_trips_with_unknown_flag_bits() {
        let l = Log {
            prefix: Some("abc".into()),
            level: Some(LogLevel::Other(12)),
            flags: Some(LogFlags::from_bits_retain(0x81)),
            ..Log::default()
        };
        let mut w = MsgWriter::new();
        l.encode(&mut w);
        let back = Log::decode(Attrs::new(w.as_bytes())).unwrap().unwrap();
        assert_eq!(back, l);
        assert_eq!(back.flags.unwrap().bits(), 0x81);
        assert_eq!(
            back.to_string(),
            "log prefix abc level 12 tcpseq flags 0x80"
        );
    }

    #[test]
    fn unknown_or_malformed_attribute_is_not_decoded() {
        let mut w = MsgWriter::new();
        w.put_be16(NFTA_LOG_GROUP, 1);
        w.put_be32(NFTA_LOG_FLAGS + 1, 0);
        assert_eq!(Log::decode(Attrs::new(w.as_bytes())).unwrap(), None);

        let mut w = MsgWriter::new();
        w.put_be32(NFTA_LOG_GROUP, 1);
        assert_eq!(Log::decode(Attrs::new(w.as_bytes())).unwrap(), None);
    }
}
