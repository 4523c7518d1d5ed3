//! `CT` target (`xt_CT.h`): attach a conntrack template to the packet in the raw table:
//! no tracking, a helper, a zone, event masks, a timeout policy (`--notrack`, `--helper`,
//! `--zone`, `--ctevents`, `--expevents`, `--timeout`). `-j NOTRACK` is `CT --notrack`.

use super::x_tables::AlignedKernelPtr;

/// `flags`: do not track the packet (`--notrack`).
pub const XT_CT_NOTRACK: u16 = 1 << 0;
/// `flags`: the rule was written as `-j NOTRACK` (iptables prints it back that way).
pub const XT_CT_NOTRACK_ALIAS: u16 = 1 << 1;
/// `flags`: the zone applies to the original direction only (`--zone-orig`).
pub const XT_CT_ZONE_DIR_ORIG: u16 = 1 << 2;
/// `flags`: the zone applies to the reply direction only (`--zone-reply`).
pub const XT_CT_ZONE_DIR_REPL: u16 = 1 << 3;
/// `flags`: take the zone from the packet mark (`--zone mark`).
pub const XT_CT_ZONE_MARK: u16 = 1 << 4;
/// All valid `flags` bits.
pub const XT_CT_MASK: u16 = XT_CT_NOTRACK
    | XT_CT_NOTRACK_ALIAS
    | XT_CT_ZONE_DIR_ORIG
    | XT_CT_ZONE_DIR_REPL
    | XT_CT_ZONE_MARK;

// enum ip_conntrack_events (nf_conntrack_common.h): bit numbers in ct_events

/// `ct_events` bit number: new conntrack (`--ctevents new`).
pub const IPCT_NEW: u32 = 0;
/// `ct_events` bit number: related conntrack (`related`).
pub const IPCT_RELATED: u32 = 1;
/// `ct_events` bit number: destroyed conntrack (`destroy`).
pub const IPCT_DESTROY: u32 = 2;
/// `ct_events` bit number: traffic seen both ways (`reply`).
pub const IPCT_REPLY: u32 = 3;
/// `ct_events` bit number: became assured (`assured`).
pub const IPCT_ASSURED: u32 = 4;
/// `ct_events` bit number: protocol info changed (`protoinfo`).
pub const IPCT_PROTOINFO: u32 = 5;
/// `ct_events` bit number: helper set (`helper`).
pub const IPCT_HELPER: u32 = 6;
/// `ct_events` bit number: mark set (`mark`).
pub const IPCT_MARK: u32 = 7;
/// `ct_events` bit number: sequence adjustment changed.
pub const IPCT_SEQADJ: u32 = 8;
/// `ct_events` bit number: NAT sequence adjustment changed (`natseqinfo`).
pub const IPCT_NATSEQADJ: u32 = IPCT_SEQADJ;
/// `ct_events` bit number: security mark set (`secmark`).
pub const IPCT_SECMARK: u32 = 9;
/// `ct_events` bit number: connlabel set.
pub const IPCT_LABEL: u32 = 10;
/// `ct_events` bit number: synproxy set.
pub const IPCT_SYNPROXY: u32 = 11;

// enum ip_conntrack_expect_events: bit numbers in exp_events

/// `exp_events` bit number: new expectation (`--expevents new`).
pub const IPEXP_NEW: u32 = 0;
/// `exp_events` bit number: destroyed expectation.
pub const IPEXP_DESTROY: u32 = 1;

bitflags::bitflags! {
    /// `flags` of the CT target infos (`XT_CT_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CtTargetFlags: u16 {
        /// `--notrack`.
        const NOTRACK = XT_CT_NOTRACK;
        /// Written as `-j NOTRACK`.
        const NOTRACK_ALIAS = XT_CT_NOTRACK_ALIAS;
        /// `--zone-orig`.
        const ZONE_DIR_ORIG = XT_CT_ZONE_DIR_ORIG;
        /// `--zone-reply`.
        const ZONE_DIR_REPL = XT_CT_ZONE_DIR_REPL;
        /// `--zone mark`.
        const ZONE_MARK = XT_CT_ZONE_MARK;
    }
}

/// Info of the `CT` target, revision 0 (`struct xt_ct_target_info`). The C struct ends in
/// `struct nf_conn *ct __attribute__((aligned(8)))`, the template the kernel creates: it is
/// part of the size iptables sends (40 bytes) and is sent as zero.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_ct_target_info {
    /// `XT_CT_*` bits.
    pub flags: u16,
    /// Conntrack zone (`--zone`).
    pub zone: u16,
    /// Conntrack events to generate: `1 << IPCT_*` bits (`--ctevents`); 0 keeps the
    /// default (all events).
    pub ct_events: u32,
    /// Expectation events to generate: `1 << IPEXP_*` bits (`--expevents`).
    pub exp_events: u32,
    /// Helper name (`--helper`), NUL-terminated.
    pub helper: [u8; 16],
    /// Kernel-private template pointer; send zero.
    pub ct: AlignedKernelPtr,
}

/// Info of the `CT` target, revisions 1 and 2 (`struct xt_ct_target_info_v1`): revision 0
/// plus a timeout policy name (72 bytes).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_ct_target_info_v1 {
    /// `XT_CT_*` bits.
    pub flags: u16,
    /// Conntrack zone (`--zone`).
    pub zone: u16,
    /// Conntrack events to generate: `1 << IPCT_*` bits (`--ctevents`); 0 keeps the
    /// default (all events).
    pub ct_events: u32,
    /// Expectation events to generate: `1 << IPEXP_*` bits (`--expevents`).
    pub exp_events: u32,
    /// Helper name (`--helper`), NUL-terminated.
    pub helper: [u8; 16],
    /// Timeout policy name (`--timeout`, a cttimeout object), NUL-terminated.
    pub timeout: [u8; 32],
    /// Kernel-private template pointer; send zero.
    pub ct: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(xt_ct_target_info, 40, 8);
        assert_layout!(xt_ct_target_info_v1, 72, 8);
        assert_offset!(xt_ct_target_info, ct, 32);
        assert_offset!(xt_ct_target_info_v1, helper, 12);
        assert_offset!(xt_ct_target_info_v1, timeout, 28);
        assert_offset!(xt_ct_target_info_v1, ct, 64);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_ct_target_info, 40, 8, 40);
        assert_layout!(xt_ct_target_info_v1, 72, 8, 72);
        assert_offset!(xt_ct_target_info, ct, 32);
        assert_offset!(xt_ct_target_info_v1, helper, 12);
        assert_offset!(xt_ct_target_info_v1, timeout, 28);
        assert_offset!(xt_ct_target_info_v1, ct, 64);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_ct_target_info, 40, 8, 40);
        assert_layout!(xt_ct_target_info_v1, 72, 8, 72);
        assert_offset!(xt_ct_target_info, ct, 32);
        assert_offset!(xt_ct_target_info_v1, helper, 12);
        assert_offset!(xt_ct_target_info_v1, timeout, 28);
        assert_offset!(xt_ct_target_info_v1, ct, 64);
    }
}
