//! `socket`: the packet belongs to an open local socket (`--transparent`, `--nowildcard`,
//! `--restore-skmark`). The kernel allows it in PREROUTING and INPUT only.
//!
//! Encoding (iptables-nft 1.8.9): the x_tables `socket` match, rev 3 (a one-byte flags
//! struct, 8 padded), also for a bare `-m socket`. Revisions 0 (no info), 1 and 2 are
//! decoded and re-encoded as rev 3 with the same flags, which matches the same packets.

use std::mem::size_of;

use iptnl_sys::xt::{
    xt_socket_mtinfo1, xt_socket_mtinfo2, xt_socket_mtinfo3, XT_SOCKET_FLAGS_V1,
    XT_SOCKET_FLAGS_V2, XT_SOCKET_FLAGS_V3, XT_SOCKET_NOWILDCARD, XT_SOCKET_RESTORESKMARK,
    XT_SOCKET_TRANSPARENT,
};

use super::base::libxt::{flag_bit, push_flags};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `socket` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "socket",
    kind: ExtKind::Match,
    family: None,
    options: &super::base::opts::table([
        Opt::flag("transparent"),
        Opt::flag("nowildcard"),
        Opt::flag("restore-skmark"),
    ]),
    new: |_| Box::new(Socket::default()),
    xt_names: &["socket"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

const FLAGS: &[(&str, u8)] = &[
    ("transparent", XT_SOCKET_TRANSPARENT),
    ("nowildcard", XT_SOCKET_NOWILDCARD),
    ("restore-skmark", XT_SOCKET_RESTORESKMARK),
];

/// Options of `-m socket`, as in `struct xt_socket_mtinfo3`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Socket {
    /// `XT_SOCKET_*` flags.
    pub flags: u8,
}

/// `struct xt_socket_mtinfo1`, field by field (the flags of revision 1).
static V1: XtStruct<Socket> = XtStruct::new(
    "xt_socket_mtinfo1",
    size_of::<xt_socket_mtinfo1>(),
    1,
    &[xt_field!(xt_socket_mtinfo1, flags: U8 => flags)],
);

/// `struct xt_socket_mtinfo2`, field by field (the same layout, more flags).
static V2: XtStruct<Socket> = XtStruct::new(
    "xt_socket_mtinfo2",
    size_of::<xt_socket_mtinfo2>(),
    2,
    &[xt_field!(xt_socket_mtinfo2, flags: U8 => flags)],
);

/// `struct xt_socket_mtinfo3`, field by field: it decodes the options and encodes them.
static V3: XtStruct<Socket> = XtStruct::new(
    "xt_socket_mtinfo3",
    size_of::<xt_socket_mtinfo3>(),
    3,
    &[xt_field!(xt_socket_mtinfo3, flags: U8 => flags)],
);

impl Extension for Socket {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        _inv: bool,
        _val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        self.flags |= flag_bit(FLAGS, opt.name);
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("socket", 3, V3.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        push_flags(out, FLAGS, self.flags, " --");
    }

    fn print(&self, ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        out.push_str(" socket");
        self.save(ctx.family, out);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    let (flags, valid) = match rev {
        0 => {
            if !info.is_empty() {
                return None;
            }
            (0, 0)
        }
        1 => (V1.decode_exact(rev, info)?.flags, XT_SOCKET_FLAGS_V1),
        2 => (V2.decode_exact(rev, info)?.flags, XT_SOCKET_FLAGS_V2),
        3 => (V3.decode_exact(rev, info)?.flags, XT_SOCKET_FLAGS_V3),
        _ => return None,
    };
    (flags & !valid == 0).then(|| Box::new(Socket { flags }) as _)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_revisions() {
        let ctx = DecodeCtx {
            sets: &crate::ipt::ext::NoSets,
            family: IpFamily::V4,
            proto: None,
        };
        let save = |rev, info: &[u8]| {
            decode_xt(rev, info, &ctx).map(|e| {
                let mut s = String::new();
                e.save(IpFamily::V4, &mut s);
                s
            })
        };
        assert_eq!(save(0, &[]).unwrap(), "");
        assert_eq!(
            save(1, &[1, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
            " --transparent"
        );
        assert_eq!(save(1, &[2, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(
            save(2, &[3, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
            " --transparent --nowildcard"
        );
        assert_eq!(
            save(3, &[4, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
            " --restore-skmark"
        );
        assert_eq!(save(3, &[8, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
