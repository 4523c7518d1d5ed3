//! `physdev` match (`xt_physdev.h`): the bridge ports a bridged packet came in on or goes
//! out of (`--physdev-in`, `--physdev-out`, `--physdev-is-in`, `--physdev-is-out`,
//! `--physdev-is-bridged`).

use super::x_tables::IFNAMSIZ;

/// `bitmask`/`invert` bit: test the input bridge port (`--physdev-in`).
pub const XT_PHYSDEV_OP_IN: u8 = 0x01;
/// `bitmask`/`invert` bit: test the output bridge port (`--physdev-out`).
pub const XT_PHYSDEV_OP_OUT: u8 = 0x02;
/// `bitmask`/`invert` bit: the packet is bridged (`--physdev-is-bridged`).
pub const XT_PHYSDEV_OP_BRIDGED: u8 = 0x04;
/// `bitmask`/`invert` bit: the packet entered through a bridge port (`--physdev-is-in`).
pub const XT_PHYSDEV_OP_ISIN: u8 = 0x08;
/// `bitmask`/`invert` bit: the packet leaves through a bridge port (`--physdev-is-out`).
pub const XT_PHYSDEV_OP_ISOUT: u8 = 0x10;
/// All valid bits.
pub const XT_PHYSDEV_OP_MASK: u8 = 0x20 - 1;

bitflags::bitflags! {
    /// `bitmask` and `invert` of [`xt_physdev_info`] (`XT_PHYSDEV_OP_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PhysdevFlags: u8 {
        /// `--physdev-in`.
        const IN = XT_PHYSDEV_OP_IN;
        /// `--physdev-out`.
        const OUT = XT_PHYSDEV_OP_OUT;
        /// `--physdev-is-bridged`.
        const BRIDGED = XT_PHYSDEV_OP_BRIDGED;
        /// `--physdev-is-in`.
        const ISIN = XT_PHYSDEV_OP_ISIN;
        /// `--physdev-is-out`.
        const ISOUT = XT_PHYSDEV_OP_ISOUT;
    }
}

/// Info of the `physdev` match, revision 0 (`struct xt_physdev_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_physdev_info {
    /// Input bridge port name, NUL-terminated (a trailing `+` is a prefix match).
    pub physindev: [u8; IFNAMSIZ],
    /// Bytes of `physindev` compared: 0xff for each compared byte (the name and its NUL,
    /// or the prefix before `+`), 0 elsewhere.
    pub in_mask: [u8; IFNAMSIZ],
    /// Output bridge port name, NUL-terminated.
    pub physoutdev: [u8; IFNAMSIZ],
    /// Bytes of `physoutdev` compared, as `in_mask`.
    pub out_mask: [u8; IFNAMSIZ],
    /// Which active tests are negated: `XT_PHYSDEV_OP_*` bits.
    pub invert: u8,
    /// Which tests are active: `XT_PHYSDEV_OP_*` bits.
    pub bitmask: u8,
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
        assert_layout!(xt_physdev_info, 66, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_physdev_info, 66, 1, 72);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_physdev_info, 66, 1, 68);
    }
}
