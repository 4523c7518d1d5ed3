//! `conntrack` match (`-m conntrack --ctstate … --ctproto … --ctorigsrc … --ctstatus …
//! --ctexpire … --ctdir …`) and `state` match (`-m state --state …`).
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `conntrack` match, revision 3
//! (`xt_conntrack_mtinfo3`, 168 bytes on 64-bit). `-m state` is the same match with only the
//! state test and the `XT_CONNTRACK_STATE_ALIAS` flag, which makes iptables-nft-save print it
//! back as `-m state --state …`.
//!
//! Decoding: revisions 1, 2 (single ports in network byte order, 8- or 16-bit state and
//! status masks) and 3.
//!
//! Differences from iptables 1.8.9, following 1.8.11: a non-CIDR address mask
//! (`--ctorigsrc 10.0.0.0/255.0.255.0`) is kept as given (1.8.9 silently replaced it with a
//! host mask), and `--ctproto 0`/`all` is refused. Ranges whose end is below their start
//! (`--ctexpire 4:3`, `--ctorigsrcport 4:3`) are taken as 1.8.9 takes them.
//!
//! The options are declared as libxt_conntrack's revision 3 table and libxt_state's declare
//! them: each once only, all but `--ctdir` invertible, `--state` mandatory.

use std::mem::{offset_of, size_of};
use std::net::{Ipv4Addr, Ipv6Addr};

use iptnl_sys::xt::{
    xt_conntrack_mtinfo1, xt_conntrack_mtinfo2, xt_conntrack_mtinfo3, XT_CONNTRACK_DIRECTION,
    XT_CONNTRACK_EXPIRES, XT_CONNTRACK_ORIGDST, XT_CONNTRACK_ORIGDST_PORT, XT_CONNTRACK_ORIGSRC,
    XT_CONNTRACK_ORIGSRC_PORT, XT_CONNTRACK_PROTO, XT_CONNTRACK_REPLDST, XT_CONNTRACK_REPLDST_PORT,
    XT_CONNTRACK_REPLSRC, XT_CONNTRACK_REPLSRC_PORT, XT_CONNTRACK_STATE, XT_CONNTRACK_STATE_ALIAS,
    XT_CONNTRACK_STATUS,
};

use super::base::conntrack_names::{
    parse_states, parse_statuses, print_addr, save_states, save_statuses,
};
use super::base::libxt::parse_port_rc;
use super::base::ports::port_by_name;
use super::base::xtstruct::{Field, Kind, XtRevs, XtStruct};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    save_inv, xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt,
    ParseCtx, Ty, Val,
};
use crate::ipt::proto::proto_number;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `conntrack` match.
pub static CONNTRACK: ExtDesc = ExtDesc {
    name: "conntrack",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::custom("ctstate").inv(),
        Opt::custom("ctproto").inv(),
        Opt::custom("ctorigsrc").inv(),
        Opt::custom("ctorigdst").inv(),
        Opt::custom("ctreplsrc").inv(),
        Opt::custom("ctrepldst").inv(),
        Opt::custom("ctstatus").inv(),
        Opt::new(
            "ctexpire",
            Ty::Range {
                min: 0,
                max: 0xffff_ffff,
                // iptables-nft 1.8.9 takes `10:5`; 1.8.11 refuses it, as here.
                ordered: true,
            },
        )
        .inv(),
        Opt::custom("ctorigsrcport").inv(),
        Opt::custom("ctorigdstport").inv(),
        Opt::custom("ctreplsrcport").inv(),
        Opt::custom("ctrepldstport").inv(),
        Opt::new(
            "ctdir",
            Ty::OneOf {
                names: &["ORIGINAL", "REPLY"],
                nocase: true,
                err: "conntrack: Bad value for \"--ctdir\" option: \"%s\"",
            },
        ),
    ]),
    new: |_| Box::new(Conntrack::default()),
    xt_names: &["conntrack"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The `state` match: an alias of `conntrack` testing only the state.
pub static STATE: ExtDesc = ExtDesc {
    name: "state",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([Opt::custom("state").inv().mand()]),
    new: |_| {
        Box::new(Conntrack {
            match_flags: XT_CONNTRACK_STATE_ALIAS,
            ..Conntrack::default()
        })
    },
    xt_names: &[],
    decode_xt: None,
    decode_native: None,
};

/// Options of `-m conntrack` (and `-m state`), as in `struct xt_conntrack_mtinfo3`.
/// Addresses and masks are the 16 bytes of `union nf_inet_addr` (an IPv4 address takes the
/// first four); ports are in host byte order, `[low, high]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conntrack {
    /// `--ctorigsrc` address and mask.
    pub origsrc: ([u8; 16], [u8; 16]),
    /// `--ctorigdst` address and mask.
    pub origdst: ([u8; 16], [u8; 16]),
    /// `--ctreplsrc` address and mask.
    pub replsrc: ([u8; 16], [u8; 16]),
    /// `--ctrepldst` address and mask.
    pub repldst: ([u8; 16], [u8; 16]),
    /// `--ctexpire` range, seconds.
    pub expires: [u32; 2],
    /// `--ctproto`.
    pub l4proto: u16,
    /// `--ctorigsrcport` range.
    pub origsrc_port: [u16; 2],
    /// `--ctorigdstport` range.
    pub origdst_port: [u16; 2],
    /// `--ctreplsrcport` range.
    pub replsrc_port: [u16; 2],
    /// `--ctrepldstport` range.
    pub repldst_port: [u16; 2],
    /// `XT_CONNTRACK_*` tests present (`XT_CONNTRACK_STATE_ALIAS` for `-m state`).
    pub match_flags: u16,
    /// `XT_CONNTRACK_*` tests inverted (`XT_CONNTRACK_DIRECTION` means REPLY).
    pub invert_flags: u16,
    /// `XT_CONNTRACK_STATE_*` bits.
    pub state_mask: u16,
    /// `IPS_*` bits.
    pub status_mask: u16,
}

/// Parses `host[/mask]` (libxtables' `XTTYPE_HOSTMASK`): the host as `XTTYPE_HOST` reads
/// it (`127.1` is 127.0.0.1), the mask a prefix length or an address-form mask; without one
/// every mask byte is `0xff`. The address is not masked.
fn parse_hostmask(
    family: IpFamily,
    s: &str,
    opt: &str,
) -> Result<([u8; 16], [u8; 16]), ParseError> {
    let name = opt.trim_start_matches('-');
    let (addr, _, mask) = super::base::libxt::parse_hostmask(family, "conntrack", name, s)?;
    Ok((addr, mask))
}

fn save_addr(out: &mut String, family: IpFamily, (addr, mask): &([u8; 16], [u8; 16])) {
    let (bits, total, shown_addr, shown_mask) = match family {
        IpFamily::V4 => {
            let a: [u8; 4] = addr[..4].try_into().expect("4 bytes");
            let m: [u8; 4] = mask[..4].try_into().expect("4 bytes");
            (
                u32::from_be_bytes(m) as u128,
                32,
                Ipv4Addr::from(a).to_string(),
                Ipv4Addr::from(m).to_string(),
            )
        }
        IpFamily::V6 => (
            u128::from_be_bytes(*mask),
            128,
            Ipv6Addr::from(*addr).to_string(),
            Ipv6Addr::from(*mask).to_string(),
        ),
    };
    out.push(' ');
    out.push_str(&shown_addr);
    let ones = bits.count_ones();
    let contiguous =
        ones == 0 || bits == ((u128::MAX >> (128 - total)) & !((1u128 << (total - ones)) - 1));
    if !contiguous {
        out.push('/');
        out.push_str(&shown_mask);
    } else if ones != total {
        out.push_str(&format!("/{ones}"));
    }
}

/// `port[:port]` as libxtables' `XTTYPE_PORTRC` reads it ([`parse_port_rc`]), each port
/// a number or a service name.
fn parse_port_range(s: &str, opt: &str) -> Result<[u16; 2], ParseError> {
    let too_many = || {
        ParseError::bad(
            opt,
            format!("conntrack: Too many components for option \"{opt}\" (max: 2)"),
        )
    };
    parse_port_rc(s, opt, too_many, |part| port_by_name(part, opt))
}

impl Conntrack {
    fn alias(&self) -> bool {
        self.match_flags & XT_CONNTRACK_STATE_ALIAS != 0
    }

    fn set(&mut self, flag: u16, inv: bool) {
        self.match_flags |= flag;
        if inv {
            self.invert_flags |= flag;
        }
    }
}

impl Conntrack {
    /// iptables' `conntrack_dump`: options with prefix `p` (`--` to save, none to list);
    /// addresses as saved (`list` is `None`) or as listed with or without `-n`.
    fn dump(&self, family: IpFamily, p: &str, list: Option<bool>, out: &mut String) {
        let (m, i) = (self.match_flags, self.invert_flags);
        if m & XT_CONNTRACK_STATE != 0 {
            save_inv(out, i & XT_CONNTRACK_STATE != 0);
            out.push(' ');
            out.push_str(p);
            out.push_str(if self.alias() { "state" } else { "ctstate" });
            save_states(out, self.state_mask);
        }
        if m & XT_CONNTRACK_PROTO != 0 {
            save_inv(out, i & XT_CONNTRACK_PROTO != 0);
            out.push_str(&format!(" {p}ctproto {}", self.l4proto));
        }
        for (flag, name, am) in [
            (XT_CONNTRACK_ORIGSRC, "ctorigsrc", &self.origsrc),
            (XT_CONNTRACK_ORIGDST, "ctorigdst", &self.origdst),
            (XT_CONNTRACK_REPLSRC, "ctreplsrc", &self.replsrc),
            (XT_CONNTRACK_REPLDST, "ctrepldst", &self.repldst),
        ] {
            if m & flag != 0 {
                save_inv(out, i & flag != 0);
                out.push(' ');
                out.push_str(p);
                out.push_str(name);
                match list {
                    None => save_addr(out, family, am),
                    Some(numeric) => print_addr(out, family, am, numeric),
                }
            }
        }
        for (flag, name, r) in [
            (
                XT_CONNTRACK_ORIGSRC_PORT,
                "ctorigsrcport",
                self.origsrc_port,
            ),
            (
                XT_CONNTRACK_ORIGDST_PORT,
                "ctorigdstport",
                self.origdst_port,
            ),
            (
                XT_CONNTRACK_REPLSRC_PORT,
                "ctreplsrcport",
                self.replsrc_port,
            ),
            (
                XT_CONNTRACK_REPLDST_PORT,
                "ctrepldstport",
                self.repldst_port,
            ),
        ] {
            if m & flag != 0 {
                save_inv(out, i & flag != 0);
                if r[1] == 0 || r[0] == r[1] {
                    out.push_str(&format!(" {p}{name} {}", r[0]));
                } else {
                    out.push_str(&format!(" {p}{name} {}:{}", r[0], r[1]));
                }
            }
        }
        if m & XT_CONNTRACK_STATUS != 0 {
            save_inv(out, i & XT_CONNTRACK_STATUS != 0);
            out.push_str(&format!(" {p}ctstatus"));
            save_statuses(out, self.status_mask);
        }
        if m & XT_CONNTRACK_EXPIRES != 0 {
            save_inv(out, i & XT_CONNTRACK_EXPIRES != 0);
            if self.expires[0] == self.expires[1] {
                out.push_str(&format!(" {p}ctexpire {}", self.expires[0]));
            } else {
                out.push_str(&format!(
                    " {p}ctexpire {}:{}",
                    self.expires[0], self.expires[1]
                ));
            }
        }
        if m & XT_CONNTRACK_DIRECTION != 0 {
            out.push_str(&format!(
                " {p}ctdir {}",
                if i & XT_CONNTRACK_DIRECTION != 0 {
                    "REPLY"
                } else {
                    "ORIGINAL"
                }
            ));
        }
    }
}

impl Extension for Conntrack {
    fn desc(&self) -> &'static ExtDesc {
        if self.alias() {
            &STATE
        } else {
            &CONNTRACK
        }
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        let name = opt.name;
        let shown = opt.shown();
        let v = val.text();
        match name {
            "state" => {
                self.match_flags = XT_CONNTRACK_STATE | XT_CONNTRACK_STATE_ALIAS;
                self.state_mask = parse_states(v, true)?;
                if inv {
                    self.invert_flags |= XT_CONNTRACK_STATE;
                }
            }
            "ctstate" => {
                self.state_mask = parse_states(v, false)?;
                self.set(XT_CONNTRACK_STATE, inv);
            }
            "ctproto" => {
                let p = proto_number(v).ok_or_else(|| {
                    ParseError::bad(&shown, format!("unknown protocol \"{v}\" specified"))
                })?;
                if p == 0 {
                    return Err(ParseError::bad(
                        &shown,
                        if inv {
                            "conntrack: condition would always match protocol"
                        } else {
                            "conntrack: rule would never match protocol"
                        },
                    ));
                }
                self.l4proto = p as u16;
                self.set(XT_CONNTRACK_PROTO, inv);
            }
            "ctorigsrc" | "ctorigdst" | "ctreplsrc" | "ctrepldst" => {
                let am = parse_hostmask(ctx.family, v, &shown)?;
                let flag = match name {
                    "ctorigsrc" => {
                        self.origsrc = am;
                        XT_CONNTRACK_ORIGSRC
                    }
                    "ctorigdst" => {
                        self.origdst = am;
                        XT_CONNTRACK_ORIGDST
                    }
                    "ctreplsrc" => {
                        self.replsrc = am;
                        XT_CONNTRACK_REPLSRC
                    }
                    _ => {
                        self.repldst = am;
                        XT_CONNTRACK_REPLDST
                    }
                };
                self.set(flag, inv);
            }
            "ctstatus" => {
                self.status_mask = parse_statuses(v)?;
                self.set(XT_CONNTRACK_STATUS, inv);
            }
            "ctexpire" => {
                let [lo, hi] = val.range();
                self.expires = [lo as u32, hi as u32];
                self.set(XT_CONNTRACK_EXPIRES, inv);
            }
            "ctorigsrcport" | "ctorigdstport" | "ctreplsrcport" | "ctrepldstport" => {
                let r = parse_port_range(v, &shown)?;
                let flag = match name {
                    "ctorigsrcport" => {
                        self.origsrc_port = r;
                        XT_CONNTRACK_ORIGSRC_PORT
                    }
                    "ctorigdstport" => {
                        self.origdst_port = r;
                        XT_CONNTRACK_ORIGDST_PORT
                    }
                    "ctreplsrcport" => {
                        self.replsrc_port = r;
                        XT_CONNTRACK_REPLSRC_PORT
                    }
                    _ => {
                        self.repldst_port = r;
                        XT_CONNTRACK_REPLDST_PORT
                    }
                };
                self.set(flag, inv);
            }
            "ctdir" => {
                // ORIGINAL (0) or REPLY (1).
                self.match_flags |= XT_CONNTRACK_DIRECTION;
                if val.index() == 1 {
                    self.invert_flags |= XT_CONNTRACK_DIRECTION;
                } else {
                    self.invert_flags &= !XT_CONNTRACK_DIRECTION;
                }
            }
            _ => {
                return Err(ParseError::UnknownOption {
                    option: String::from(&shown),
                })
            }
        }
        Ok(())
    }

    fn finish(&mut self, _ctx: &ParseCtx) -> Result<(), ParseError> {
        // `-m state` needs `--state`, which its option table says.
        if !self.alias() && self.match_flags == 0 {
            return Err(ParseError::Invalid(
                "conntrack: At least one option is required".into(),
            ));
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("conntrack", 3, INFO3.encode(self)));
        Ok(())
    }

    fn save(&self, family: IpFamily, out: &mut String) {
        self.dump(family, "--", None, out);
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        self.dump(ctx.family, "", Some(ctx.numeric), out);
    }

    fn save_name(&self) -> &str {
        if self.alias() {
            "state"
        } else {
            "conntrack"
        }
    }

    crate::ext_boilerplate!();
}

/// A `union nf_inet_addr` field of struct `$c`, held in `$p.$i` of the options.
macro_rules! addr {
    ($c:ty, $cf:ident => $p:ident . $i:tt) => {
        Field {
            name: stringify!($cf),
            at: offset_of!($c, $cf),
            kind: Kind::Bytes(16, |s| &s.$p.$i, |s, v| s.$p.$i.copy_from_slice(v)),
        }
    };
}

/// A host-order field of struct `$c` (kind `$kind`) holding one end of the range `$p`.
macro_rules! end {
    ($c:ty, $cf:ident: $kind:ident => $p:ident [$i:tt]) => {
        Field {
            name: stringify!($cf),
            at: offset_of!($c, $cf),
            kind: Kind::$kind(|s| s.$p[$i], |s, v| s.$p[$i] = v),
        }
    };
}

/// A single port field of struct `$c` as revisions 1 and 2 hold it: network order, both
/// ends of the range `$p`.
macro_rules! single_port {
    ($c:ty, $cf:ident => $p:ident) => {
        Field {
            name: stringify!($cf),
            at: offset_of!($c, $cf),
            kind: Kind::Be16(|s| s.$p[0], |s, v| s.$p = [v, v]),
        }
    };
}

/// The table of struct `$c` at revision `$rev`: the fields every revision has, in the same
/// place, then the ones given.
macro_rules! mtinfo {
    ($c:ty, $rev:expr, [$($more:expr),* $(,)?]) => {
        XtStruct::new(
            stringify!($c),
            size_of::<$c>(),
            $rev,
            &[
                addr!($c, origsrc_addr => origsrc.0),
                addr!($c, origsrc_mask => origsrc.1),
                addr!($c, origdst_addr => origdst.0),
                addr!($c, origdst_mask => origdst.1),
                addr!($c, replsrc_addr => replsrc.0),
                addr!($c, replsrc_mask => replsrc.1),
                addr!($c, repldst_addr => repldst.0),
                addr!($c, repldst_mask => repldst.1),
                end!($c, expires_min: U32 => expires[0]),
                end!($c, expires_max: U32 => expires[1]),
                xt_field!($c, l4proto: U16 => l4proto),
                xt_field!($c, match_flags: U16 => match_flags),
                xt_field!($c, invert_flags: U16 => invert_flags),
                $($more),*
            ],
        )
    };
}

/// `struct xt_conntrack_mtinfo1`: single ports, 8-bit state and status masks.
static INFO1: XtStruct<Conntrack> = mtinfo!(
    xt_conntrack_mtinfo1,
    1,
    [
        single_port!(xt_conntrack_mtinfo1, origsrc_port => origsrc_port),
        single_port!(xt_conntrack_mtinfo1, origdst_port => origdst_port),
        single_port!(xt_conntrack_mtinfo1, replsrc_port => replsrc_port),
        single_port!(xt_conntrack_mtinfo1, repldst_port => repldst_port),
        Field {
            name: "state_mask",
            at: offset_of!(xt_conntrack_mtinfo1, state_mask),
            kind: Kind::U8(|s| s.state_mask as u8, |s, v| s.state_mask = v.into()),
        },
        Field {
            name: "status_mask",
            at: offset_of!(xt_conntrack_mtinfo1, status_mask),
            kind: Kind::U8(|s| s.status_mask as u8, |s, v| s.status_mask = v.into()),
        },
    ]
);

/// `struct xt_conntrack_mtinfo2`: single ports, 16-bit masks.
static INFO2: XtStruct<Conntrack> = mtinfo!(
    xt_conntrack_mtinfo2,
    2,
    [
        single_port!(xt_conntrack_mtinfo2, origsrc_port => origsrc_port),
        single_port!(xt_conntrack_mtinfo2, origdst_port => origdst_port),
        single_port!(xt_conntrack_mtinfo2, replsrc_port => replsrc_port),
        single_port!(xt_conntrack_mtinfo2, repldst_port => repldst_port),
        xt_field!(xt_conntrack_mtinfo2, state_mask: U16 => state_mask),
        xt_field!(xt_conntrack_mtinfo2, status_mask: U16 => status_mask),
    ]
);

/// `struct xt_conntrack_mtinfo3`, the one written: port ranges in host order.
static INFO3: XtStruct<Conntrack> = mtinfo!(
    xt_conntrack_mtinfo3,
    3,
    [
        end!(xt_conntrack_mtinfo3, origsrc_port: U16 => origsrc_port[0]),
        end!(xt_conntrack_mtinfo3, origdst_port: U16 => origdst_port[0]),
        end!(xt_conntrack_mtinfo3, replsrc_port: U16 => replsrc_port[0]),
        end!(xt_conntrack_mtinfo3, repldst_port: U16 => repldst_port[0]),
        xt_field!(xt_conntrack_mtinfo3, state_mask: U16 => state_mask),
        xt_field!(xt_conntrack_mtinfo3, status_mask: U16 => status_mask),
        end!(xt_conntrack_mtinfo3, origsrc_port_high: U16 => origsrc_port[1]),
        end!(xt_conntrack_mtinfo3, origdst_port_high: U16 => origdst_port[1]),
        end!(xt_conntrack_mtinfo3, replsrc_port_high: U16 => replsrc_port[1]),
        end!(xt_conntrack_mtinfo3, repldst_port_high: U16 => repldst_port[1]),
    ]
);

/// Every revision read.
static INFO: XtRevs<Conntrack> = XtRevs(&[&INFO1, &INFO2, &INFO3]);

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::ext::base::api::XtBuf;
    use iptnl_sys::xt::{
        IPS_ASSURED, IPS_SEEN_REPLY, XT_CONNTRACK_STATE_ESTABLISHED, XT_CONNTRACK_STATE_RELATED,
        XT_CONNTRACK_STATE_SNAT, XT_CONNTRACK_STATE_UNTRACKED,
    };

    fn feed(c: &mut Conntrack, family: IpFamily, opt: &str, v: &str) -> Result<(), ParseError> {
        crate::ipt::ext::base::opts::feed(c, family, None, opt, v)
    }

    #[test]
    fn state_lists_take_abbreviations() {
        assert_eq!(
            parse_states("est,rel", false).unwrap(),
            XT_CONNTRACK_STATE_ESTABLISHED | XT_CONNTRACK_STATE_RELATED
        );
        assert_eq!(parse_states("s", false).unwrap(), XT_CONNTRACK_STATE_SNAT);
        assert!(parse_states("SNAT", true).is_err());
        assert!(parse_states("NEW,", true).is_err());
        assert!(parse_states("NEW,", false).is_err());
        assert!(parse_states("", false).is_err());
        assert!(parse_states("NEWX", false).is_err());
        assert_eq!(
            parse_statuses("seen,ASS").unwrap(),
            IPS_SEEN_REPLY | IPS_ASSURED
        );
    }

    #[test]
    fn ranges_default_their_empty_ends() {
        assert_eq!(parse_port_range(":5", "--x").unwrap(), [0, 5]);
        assert_eq!(parse_port_range("7:", "--x").unwrap(), [7, 65535]);
        assert_eq!(parse_port_range("80", "--x").unwrap(), [80, 80]);
        assert!(parse_port_range("1::2", "--x").is_err());
        assert!(parse_port_range("0x50", "--x").is_err());
        assert_eq!(
            parse_port_range("4:3", "--x").unwrap_err().to_string(),
            "--x: Port range 4-3 is negative."
        );
        let mut c = Conntrack::default();
        feed(&mut c, IpFamily::V4, "ctexpire", ":").unwrap();
        assert_eq!(c.expires, [0, u32::MAX]);
        feed(&mut c, IpFamily::V4, "ctexpire", "0x10").unwrap();
        assert_eq!(c.expires, [16, 16]);
        assert!(feed(&mut c, IpFamily::V4, "ctexpire", "4:3").is_err());
        assert_eq!(
            feed(&mut c, IpFamily::V4, "ctexpire", "1:x").unwrap_err().to_string(),
            "--ctexpire: conntrack: bad value for option \"--ctexpire\" near \"x\", or out of range (1-4294967295)."
        );
    }

    /// The option table checks repeats, `!` and `--state` as libxt_conntrack's tables do.
    #[test]
    fn options_are_checked_as_their_table_says() {
        use crate::ipt::parse_rule_str;
        let err = |spec| parse_rule_str(IpFamily::V4, spec).unwrap_err().to_string();
        assert_eq!(
            err("-m conntrack --ctstate NEW --ctstate NEW"),
            "--ctstate: conntrack: option \"--ctstate\" can only be used once."
        );
        assert_eq!(
            err("-m conntrack ! --ctdir REPLY"),
            "--ctdir: conntrack: option \"--ctdir\" cannot be inverted."
        );
        assert_eq!(
            err("-m conntrack --ctdir sideways"),
            "--ctdir: conntrack: Bad value for \"--ctdir\" option: \"sideways\""
        );
        assert_eq!(
            err("-m state"),
            "state: option \"--state\" must be specified"
        );
        assert_eq!(
            err("-m conntrack"),
            "conntrack: At least one option is required"
        );
        let r = parse_rule_str(IpFamily::V4, "-m conntrack --ctdir reply").unwrap();
        assert_eq!(r[0].to_save_args(), "-m conntrack --ctdir REPLY");
    }

    /// iptables 1.8.9 replaced a non-CIDR mask by a host mask (all ones), which made the rule
    /// narrower than asked; iptnl keeps the mask as iptables 1.8.11 does.
    #[test]
    fn non_cidr_masks_are_kept() {
        let mut c = Conntrack::default();
        feed(&mut c, IpFamily::V4, "ctorigsrc", "10.1.0.0/255.255.0.255").unwrap();
        let mut want = [0u8; 16];
        want[..4].copy_from_slice(&[255, 255, 0, 255]);
        assert_eq!(c.origsrc.1, want);
        let mut s = String::new();
        c.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --ctorigsrc 10.1.0.0/255.255.0.255");

        let mut c = Conntrack::default();
        feed(
            &mut c,
            IpFamily::V6,
            "ctreplsrc",
            "2001:db8::/ffff:ffff:0:ffff::",
        )
        .unwrap();
        let mut s = String::new();
        c.save(IpFamily::V6, &mut s);
        assert_eq!(s, " --ctreplsrc 2001:db8::/ffff:ffff:0:ffff::");
    }

    /// iptables 1.8.11 refuses `--ctproto 0`, which 1.8.9 took as "no protocol".
    #[test]
    fn ctproto_zero_is_refused() {
        let mut c = Conntrack::default();
        assert!(feed(&mut c, IpFamily::V4, "ctproto", "all").is_err());
    }

    /// iptables 1.8.9 took a port above 65535 modulo 65536; iptnl refuses it. A prefix
    /// length above the family's is read as libxtables (1.8.9 and 1.8.11) reads it: as an
    /// address-form mask (`/33` is 0.0.0.33).
    #[test]
    fn out_of_range_values_are_refused() {
        let mut c = Conntrack::default();
        assert!(feed(&mut c, IpFamily::V4, "ctorigsrcport", "70000").is_err());
        let mut c = Conntrack::default();
        feed(&mut c, IpFamily::V4, "ctorigsrc", "10.0.0.0/33").unwrap();
        assert_eq!(c.origsrc.1[..4], [0, 0, 0, 33]);
        assert!(feed(&mut c, IpFamily::V4, "ctorigdst", "10.0.0.0/1.2.3.4.5").is_err());
    }

    /// The host is read as `XTTYPE_HOST` reads it (getaddrinfo): `127.1` is 127.0.0.1 and
    /// `10/8` is 0.0.0.10 under a /8 mask, as iptables stores them.
    #[test]
    fn short_hosts_are_read_as_getaddrinfo_reads_them() {
        for (v, addr, mask) in [
            ("127.1", [127, 0, 0, 1], [255; 4]),
            ("10/8", [0, 0, 0, 10], [255, 0, 0, 0]),
            ("0", [0; 4], [255; 4]),
            ("0/0", [0; 4], [0; 4]),
        ] {
            let mut c = Conntrack::default();
            feed(&mut c, IpFamily::V4, "ctorigsrc", v).unwrap();
            assert_eq!(
                (c.origsrc.0[..4].to_vec(), c.origsrc.1[..4].to_vec()),
                (addr.to_vec(), mask.to_vec()),
                "{v}"
            );
        }
    }

    #[test]
    fn older_revisions_decode() {
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let mut b = XtBuf::of::<xt_conntrack_mtinfo1>();
        b.put_u16(
            offset_of!(xt_conntrack_mtinfo1, origdst_port),
            443u16.to_be(),
        );
        b.put_u16(
            offset_of!(xt_conntrack_mtinfo1, match_flags),
            XT_CONNTRACK_STATE | XT_CONNTRACK_ORIGDST_PORT,
        );
        b.put_u8(offset_of!(xt_conntrack_mtinfo1, state_mask), 0x06);
        let c = decode_xt(1, &b.into_vec(), &ctx).unwrap();
        let mut s = String::new();
        c.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --ctstate RELATED,ESTABLISHED --ctorigdstport 443");

        let mut b = XtBuf::of::<xt_conntrack_mtinfo2>();
        b.put_u16(
            offset_of!(xt_conntrack_mtinfo2, match_flags),
            XT_CONNTRACK_STATE | XT_CONNTRACK_STATE_ALIAS,
        );
        b.put_u16(
            offset_of!(xt_conntrack_mtinfo2, state_mask),
            XT_CONNTRACK_STATE_UNTRACKED,
        );
        let c = decode_xt(2, &b.into_vec(), &ctx).unwrap();
        assert_eq!(c.save_name(), "state");
        let mut s = String::new();
        c.save(IpFamily::V4, &mut s);
        assert_eq!(s, " --state UNTRACKED");
    }
}
