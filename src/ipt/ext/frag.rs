//! `frag` (IPv6): the fragment header (`--fragid`, `--fraglen`, `--fragres`, `--fragfirst`,
//! `--fragmore`, `--fraglast`).
//!
//! Encoding (iptables-nft 1.8.9): x_tables `frag` rev 0, `struct ip6t_frag`. An inverted
//! full id range is printed (iptables 1.8.11; 1.8.9 dropped it), a reversed one refused.

use std::mem::size_of;

use iptnl_sys::xt::{
    ip6t_frag, IP6T_FRAG_FST, IP6T_FRAG_IDS, IP6T_FRAG_INV_IDS, IP6T_FRAG_INV_LEN, IP6T_FRAG_LEN,
    IP6T_FRAG_MF, IP6T_FRAG_NMF, IP6T_FRAG_RES,
};

use super::base::ip6hdr::{print_length, save_id, save_id_range, ID_RANGE};
use super::base::libxt::{bit_if, print_u32_range, print_unknown_invflags};
use crate::ipt::error::ParseError;
use crate::ipt::ext::base::api::{
    xt_match, DecodeCtx, EncodeCtx, EncodeError, ExtDesc, ExtKind, Extension, Opt, ParseCtx, Val,
};
use crate::ipt::ext::base::opts::U32;
use crate::ipt::ext::base::xtstruct::XtStruct;
use crate::ipt::IpFamily;
use crate::nft::expr::Expr;
use crate::xt_field;

/// The `frag` match.
pub static DESC: ExtDesc = ExtDesc {
    name: "frag",
    kind: ExtKind::Match,
    family: Some(IpFamily::V6),
    options: &super::base::opts::table([
        Opt::new("fragid", ID_RANGE).inv(),
        Opt::new("fraglen", U32).inv(),
        Opt::flag("fragres"),
        Opt::flag("fragfirst"),
        Opt::flag("fragmore").excl(&["fraglast"]),
        Opt::flag("fraglast").excl(&["fragmore"]),
    ]),
    new: |_| Box::new(Frag::default()),
    xt_names: &["frag"],
    decode_xt: Some(decode_xt),
    decode_native: None,
};

/// The flag bits with their save option and their `-L` word, in print order.
const FLAG_WORDS: [(u8, &str, &str); 4] = [
    (IP6T_FRAG_RES, "fragres", "reserved"),
    (IP6T_FRAG_FST, "fragfirst", "first"),
    (IP6T_FRAG_MF, "fragmore", "more"),
    (IP6T_FRAG_NMF, "fraglast", "last"),
];

/// `-m frag`, as `struct ip6t_frag`.
#[derive(Debug, Clone, PartialEq)]
pub struct Frag {
    /// Identification range.
    pub ids: [u32; 2],
    /// Header length (`--fraglen`; the kernel does not test it).
    pub hdrlen: u32,
    /// `IP6T_FRAG_*` bits.
    pub flags: u8,
    /// `IP6T_FRAG_INV_*` bits.
    pub invflags: u8,
}

impl Default for Frag {
    fn default() -> Self {
        Frag {
            ids: [0, u32::MAX],
            hdrlen: 0,
            flags: 0,
            invflags: 0,
        }
    }
}

/// `struct ip6t_frag`, field by field: it decodes the options and encodes them.
static INFO: XtStruct<Frag> = XtStruct::new(
    "ip6t_frag",
    size_of::<ip6t_frag>(),
    0,
    &[
        xt_field!(ip6t_frag, ids: U32Pair => ids),
        xt_field!(ip6t_frag, hdrlen: U32 => hdrlen),
        xt_field!(ip6t_frag, flags: U8 => flags),
        xt_field!(ip6t_frag, invflags: U8 => invflags),
    ],
);

impl Extension for Frag {
    fn desc(&self) -> &'static ExtDesc {
        &DESC
    }

    fn parse(
        &mut self,
        opt: &Opt,
        inv: bool,
        val: Val<'_>,
        _ctx: &ParseCtx,
    ) -> Result<(), ParseError> {
        match opt.name {
            "fragid" => {
                let [lo, hi] = val.range();
                self.ids = [lo as u32, hi as u32];
                self.invflags |= bit_if(inv, IP6T_FRAG_INV_IDS);
                self.flags |= IP6T_FRAG_IDS;
            }
            "fraglen" => {
                self.hdrlen = val.uint() as u32;
                self.invflags |= bit_if(inv, IP6T_FRAG_INV_LEN);
                self.flags |= IP6T_FRAG_LEN;
            }
            "fragres" => self.flags |= IP6T_FRAG_RES,
            "fragfirst" => self.flags |= IP6T_FRAG_FST,
            "fragmore" => self.flags |= IP6T_FRAG_MF,
            _ => self.flags |= IP6T_FRAG_NMF,
        }
        Ok(())
    }

    fn encode(&self, _ctx: &EncodeCtx<'_>, out: &mut Vec<Expr>) -> Result<(), EncodeError> {
        out.push(xt_match("frag", 0, INFO.encode(self)));
        Ok(())
    }

    fn save(&self, _family: IpFamily, out: &mut String) {
        let inv = |bit: u8| self.invflags & bit != 0;
        save_id_range(out, "fragid", self.ids, inv(IP6T_FRAG_INV_IDS));
        if self.flags & IP6T_FRAG_LEN != 0 {
            save_id(out, "fraglen", self.hdrlen, inv(IP6T_FRAG_INV_LEN));
        }
        for (bit, option, _) in FLAG_WORDS {
            if self.flags & bit != 0 {
                out.push_str(" --");
                out.push_str(option);
            }
        }
    }

    fn print(&self, _ctx: &crate::ipt::ext::base::api::PrintCtx, out: &mut String) {
        // libip6t_frag prints "frag " and the id test without a space of its own.
        out.push_str(" frag ");
        let inv = |bit: u8| self.invflags & bit != 0;
        print_u32_range(out, "id", inv(IP6T_FRAG_INV_IDS), self.ids);
        if self.flags & IP6T_FRAG_LEN != 0 {
            print_length(out, " ", self.hdrlen, inv(IP6T_FRAG_INV_LEN));
        }
        for (bit, _, word) in FLAG_WORDS {
            if self.flags & bit != 0 {
                out.push(' ');
                out.push_str(word);
            }
        }
        print_unknown_invflags(out, self.invflags, IP6T_FRAG_INV_IDS | IP6T_FRAG_INV_LEN);
    }

    crate::ext_boilerplate!();
}

fn decode_xt(rev: u32, info: &[u8], _ctx: &DecodeCtx) -> Option<Box<dyn Extension>> {
    Some(Box::new(INFO.decode(rev, info)?))
}

#[cfg(test)]
mod tests {
    use crate::ipt::{parse_rule_str, IpFamily};

    #[test]
    fn inverted_full_range_kept_and_reversed_refused() {
        // 1.8.9 printed `-m frag` for this; 1.8.11 and iptnl keep the inversion.
        let r = parse_rule_str(IpFamily::V6, "-m frag ! --fragid 0:4294967295").unwrap();
        assert_eq!(r[0].to_save_args(), "-m frag ! --fragid 0:4294967295");
        assert!(parse_rule_str(IpFamily::V6, "-m frag --fragid 10:5").is_err());
        assert!(parse_rule_str(IpFamily::V6, "-m frag --fragmore --fraglast").is_err());
    }
}
