//! The `NFTA_RULE_COMPAT` of a rule, rebuilt from its expressions.
//!
//! x_tables matches and targets in an nf_tables rule see the rule's layer-4 protocol (`-p`)
//! only through `NFTA_RULE_COMPAT`, which the kernel checks them against (TPROXY needs
//! `-p tcp` or `-p udp`, `--to-ports` of REDIRECT a port protocol, …) but never dumps back.
//! A rule read from the kernel and sent again (a replace with zeroed counters for `-Z`)
//! needs it rebuilt, as iptables-nft does (`recover_rule_compat`): from the first protocol
//! load followed by a comparison of that register.

use iptnl_sys::nf_tables::{NFT_META_L4PROTO, NFT_RULE_COMPAT_F_INV};

use super::IpFamily;
use crate::nft::expr::meta::MetaOp;
use crate::nft::expr::{CmpOp, PayloadBase, PayloadOp};
use crate::nft::{Expr, RuleCompat};

/// The register a protocol is loaded into, when `e` loads a rule's layer-4 protocol:
/// `meta load l4proto`, for IPv4 `payload load 1b @ network header + 9` (`ip protocol`), for
/// IPv6 `payload load 1b @ network header + 6` (`ip6 nexthdr`).
fn proto_load(e: &Expr, family: IpFamily) -> Option<u32> {
    match e {
        Expr::Meta(m) if m.key.raw() == NFT_META_L4PROTO => match m.op {
            MetaOp::Load { dreg } => Some(dreg),
            MetaOp::Set { .. } => None,
        },
        Expr::Payload(p) if p.base == PayloadBase::Network && p.len == 1 => {
            let offset = match family {
                IpFamily::V4 => 9,
                IpFamily::V6 => 6,
            };
            match p.op {
                PayloadOp::Load { dreg } if p.offset == offset => Some(dreg),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The rule compat (`-p` as x_tables extensions see it) of a rule with expressions `exprs`:
/// the first protocol load (see above) directly followed by a `cmp eq` or `cmp neq` of one
/// byte on that register gives the protocol, with [`NFT_RULE_COMPAT_F_INV`] for `neq`.
/// `None` when the rule tests no protocol that way (a rule without `-p`).
///
/// ```
/// use iptnl::ipt::compat::compat_of;
/// use iptnl::ipt::{encode_rule, parse_rule_str, IpFamily};
/// let spec = &parse_rule_str(IpFamily::V4, "! -p udp -j ACCEPT").unwrap()[0];
/// let rule = encode_rule(spec, IpFamily::V4, "filter", "INPUT").unwrap();
/// let c = compat_of(&rule.exprs, IpFamily::V4).unwrap();
/// assert_eq!((c.proto, c.flags), (17, iptnl::sys::nf_tables::NFT_RULE_COMPAT_F_INV));
/// ```
pub fn compat_of(exprs: &[Expr], family: IpFamily) -> Option<RuleCompat> {
    exprs.windows(2).find_map(|w| {
        let reg = proto_load(&w[0], family)?;
        let Expr::Cmp(c) = &w[1] else {
            return None;
        };
        let [proto] = c.data.as_bytes() else {
            return None;
        };
        if c.sreg != reg {
            return None;
        }
        let flags = match c.op {
            CmpOp::Eq => 0,
            CmpOp::Neq => NFT_RULE_COMPAT_F_INV,
            _ => return None,
        };
        Some(RuleCompat {
            proto: u32::from(*proto),
            flags,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipt::{encode_rule, parse_rule_str};
    use crate::nft::expr::meta::MetaKey;
    use crate::nft::expr::{Cmp, Meta, Payload};
    use crate::nft::Value;

    fn of(family: IpFamily, spec: &str) -> Option<RuleCompat> {
        let spec = &parse_rule_str(family, spec).unwrap()[0];
        let rule = encode_rule(spec, family, "filter", "INPUT").unwrap();
        compat_of(&rule.exprs, family)
    }

    fn rc(proto: u32, flags: u32) -> Option<RuleCompat> {
        Some(RuleCompat { proto, flags })
    }

    #[test]
    fn compat_of_what_iptnl_encodes_is_what_it_sends() {
        for family in [IpFamily::V4, IpFamily::V6] {
            for (spec, want) in [
                ("-p tcp -j TPROXY --on-port 1 --tproxy-mark 1", rc(6, 0)),
                ("! -p tcp -j ACCEPT", rc(6, NFT_RULE_COMPAT_F_INV)),
                ("-i eth0 -p udp --dport 53 -j ACCEPT", rc(17, 0)),
                ("-p tcp -m multiport --dports 1,2 -j ACCEPT", rc(6, 0)),
                ("-j ACCEPT", None),
                ("-p all -j ACCEPT", None),
            ] {
                let spec_rules = parse_rule_str(family, spec).unwrap();
                let rule = encode_rule(&spec_rules[0], family, "mangle", "PREROUTING").unwrap();
                let sent = rule.compat.filter(|c| c.proto != 0);
                assert_eq!(compat_of(&rule.exprs, family), want, "{spec}");
                assert_eq!(sent, want, "{spec}");
            }
        }
        assert_eq!(of(IpFamily::V4, "-s 1.2.3.4 -p esp -j DROP"), rc(50, 0));
    }

    fn load_payload(base: PayloadBase, offset: u32, dreg: u32) -> Expr {
        Expr::Payload(Payload {
            base,
            offset,
            len: 1,
            op: PayloadOp::Load { dreg },
        })
    }

    fn cmp(sreg: u32, op: CmpOp, data: &[u8]) -> Expr {
        Expr::Cmp(Cmp {
            sreg,
            op,
            data: Value::new(data).unwrap(),
        })
    }

    #[test]
    fn payload_forms_and_what_is_not_a_protocol_test() {
        let v4 = IpFamily::V4;
        let v6 = IpFamily::V6;
        let ip_proto = load_payload(PayloadBase::Network, 9, 1);
        let nexthdr = load_payload(PayloadBase::Network, 6, 1);
        // `ip protocol tcp` and `ip6 nexthdr udp`, as nft writes them.
        assert_eq!(
            compat_of(&[ip_proto.clone(), cmp(1, CmpOp::Eq, &[6])], v4),
            rc(6, 0)
        );
        assert_eq!(
            compat_of(&[nexthdr.clone(), cmp(1, CmpOp::Neq, &[17])], v6),
            rc(17, NFT_RULE_COMPAT_F_INV)
        );
        // Each offset only in its own family.
        assert_eq!(compat_of(&[ip_proto, cmp(1, CmpOp::Eq, &[6])], v6), None);
        assert_eq!(compat_of(&[nexthdr, cmp(1, CmpOp::Eq, &[6])], v4), None);
        let l4 = Expr::Meta(Meta::load(MetaKey::L4proto, 1));
        // Another register, another operator, another width, nothing after: no protocol.
        assert_eq!(compat_of(&[l4.clone(), cmp(2, CmpOp::Eq, &[6])], v4), None);
        assert_eq!(compat_of(&[l4.clone(), cmp(1, CmpOp::Lt, &[6])], v4), None);
        assert_eq!(
            compat_of(&[l4.clone(), cmp(1, CmpOp::Eq, &[6, 0])], v4),
            None
        );
        assert_eq!(compat_of(std::slice::from_ref(&l4), v4), None);
        assert_eq!(compat_of(&[], v4), None);
        // The transport header at offset 9 is no protocol.
        let th = load_payload(PayloadBase::Transport, 9, 1);
        assert_eq!(compat_of(&[th, cmp(1, CmpOp::Eq, &[6])], v4), None);
        // The first protocol test counts.
        let two = [
            l4.clone(),
            cmp(1, CmpOp::Eq, &[17]),
            l4,
            cmp(1, CmpOp::Eq, &[6]),
        ];
        assert_eq!(compat_of(&two, v4), rc(17, 0));
    }
}
