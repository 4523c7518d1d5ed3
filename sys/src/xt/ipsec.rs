//! `esp` and `ah` matches (`xt_esp.h`, `ipt_ah.h`, `ip6t_ah.h`): the SPI of IPsec ESP and
//! AH headers (`--espspi`, `--ahspi`, `--ahlen`, `--ahres`).

/// `xt_esp.invflags`: negate the SPI test.
pub const XT_ESP_INV_SPI: u8 = 0x01;
/// `xt_esp.invflags`: all valid bits.
pub const XT_ESP_INV_MASK: u8 = 0x01;

/// `ipt_ah.invflags`: negate the SPI test.
pub const IPT_AH_INV_SPI: u8 = 0x01;
/// `ipt_ah.invflags`: all valid bits.
pub const IPT_AH_INV_MASK: u8 = 0x01;

/// `ip6t_ah` test bit: SPI (as defined by the header; not used in the struct).
pub const IP6T_AH_SPI: u8 = 0x01;
/// `ip6t_ah` test bit: length (as defined by the header; not used in the struct).
pub const IP6T_AH_LEN: u8 = 0x02;
/// `ip6t_ah` test bit: reserved field (as defined by the header; not used in the struct).
pub const IP6T_AH_RES: u8 = 0x04;
/// `ip6t_ah.invflags`: negate the SPI test.
pub const IP6T_AH_INV_SPI: u8 = 0x01;
/// `ip6t_ah.invflags`: negate the length test.
pub const IP6T_AH_INV_LEN: u8 = 0x02;
/// `ip6t_ah.invflags`: all valid bits.
pub const IP6T_AH_INV_MASK: u8 = 0x03;

/// Info of the `esp` match, revision 0 (`struct xt_esp`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_esp {
    /// SPI range `[min, max]`, host byte order (`[0, 0xffffffff]` for any).
    pub spis: [u32; 2],
    /// `XT_ESP_INV_*` bits.
    pub invflags: u8,
}

/// Info of the IPv4 `ah` match, revision 0 (`struct ipt_ah`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ipt_ah {
    /// SPI range `[min, max]`, host byte order (`[0, 0xffffffff]` for any).
    pub spis: [u32; 2],
    /// `IPT_AH_INV_*` bits.
    pub invflags: u8,
}

/// Info of the IPv6 `ah` match, revision 0 (`struct ip6t_ah`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ip6t_ah {
    /// SPI range `[min, max]`, host byte order (`[0, 0xffffffff]` for any).
    pub spis: [u32; 2],
    /// Header length to match (`--ahlen`), 0 for no test.
    pub hdrlen: u32,
    /// Nonzero to require the reserved field to be zero (`--ahres`).
    pub hdrres: u8,
    /// `IP6T_AH_INV_*` bits.
    pub invflags: u8,
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
        assert_layout!(xt_esp, 12, 4);
        assert_layout!(ipt_ah, 12, 4);
        assert_layout!(ip6t_ah, 16, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_esp, 12, 4, 16);
        assert_layout!(ipt_ah, 12, 4, 16);
        assert_layout!(ip6t_ah, 16, 4, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_esp, 12, 4, 12);
        assert_layout!(ipt_ah, 12, 4, 12);
        assert_layout!(ip6t_ah, 16, 4, 16);
    }
}
