//! `union nf_inet_addr` (`include/uapi/linux/netfilter.h`): the 16-byte IPv4-or-IPv6 address
//! that many x_tables infos carry.

/// An IPv4 or IPv6 address as x_tables stores it (`union nf_inet_addr`).
///
/// In C this is a union of `__u32 all[4]`, `__be32 ip`, `__be32 ip6[4]`, `struct in_addr in`
/// and `struct in6_addr in6`: 16 bytes, 4-aligned. Here it is a struct over the `all` view.
/// The bytes are the address in network byte order: an IPv4 address takes the first four
/// bytes (`ip`, that is `all[0]` read in native order) and the other twelve are zero; an IPv6
/// address takes all sixteen. Build one with [`nf_inet_addr::from_ipv4`] or
/// [`nf_inet_addr::from_ipv6`] from the address octets, which stores them in that order.
///
/// ```
/// use iptnl_sys::xt::nf_inet_addr;
/// let a = nf_inet_addr::from_ipv4([192, 0, 2, 1]);
/// assert_eq!(a.ipv4_octets(), [192, 0, 2, 1]);
/// assert_eq!(a.all[0], u32::from_be_bytes([192, 0, 2, 1]).to_be());
/// ```
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct nf_inet_addr {
    /// The four 32-bit words of the union (`all`), each holding four address bytes in
    /// network byte order.
    pub all: [u32; 4],
}

impl nf_inet_addr {
    /// The all-zero address (`0.0.0.0` or `::`), also the "no address" value.
    pub const ANY: Self = Self { all: [0; 4] };
    /// An all-ones IPv4 mask (`255.255.255.255`, the `/32` netmask).
    pub const IPV4_HOST_MASK: Self = Self {
        all: [u32::MAX, 0, 0, 0],
    };
    /// An all-ones IPv6 mask (the `/128` netmask).
    pub const IPV6_HOST_MASK: Self = Self { all: [u32::MAX; 4] };

    /// The address whose first four bytes are `octets` (an IPv4 address, `ip`/`in`) and
    /// whose other bytes are zero.
    pub const fn from_ipv4(octets: [u8; 4]) -> Self {
        Self {
            all: [u32::from_ne_bytes(octets), 0, 0, 0],
        }
    }

    /// The address whose sixteen bytes are `octets` (an IPv6 address, `ip6`/`in6`).
    pub const fn from_ipv6(octets: [u8; 16]) -> Self {
        let o = octets;
        Self {
            all: [
                u32::from_ne_bytes([o[0], o[1], o[2], o[3]]),
                u32::from_ne_bytes([o[4], o[5], o[6], o[7]]),
                u32::from_ne_bytes([o[8], o[9], o[10], o[11]]),
                u32::from_ne_bytes([o[12], o[13], o[14], o[15]]),
            ],
        }
    }

    /// The first four bytes, read as an IPv4 address.
    pub const fn ipv4_octets(&self) -> [u8; 4] {
        self.all[0].to_ne_bytes()
    }

    /// The sixteen bytes, read as an IPv6 address.
    pub const fn ipv6_octets(&self) -> [u8; 16] {
        let a = self.all[0].to_ne_bytes();
        let b = self.all[1].to_ne_bytes();
        let c = self.all[2].to_ne_bytes();
        let d = self.all[3].to_ne_bytes();
        [
            a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], c[0], c[1], c[2], c[3], d[0], d[1],
            d[2], d[3],
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_round_trip() {
        let o = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        let a = nf_inet_addr::from_ipv6(o);
        assert_eq!(a.ipv6_octets(), o);
        assert_eq!(a.all[0], u32::from_be(0x2001_0db8));
        assert_eq!(nf_inet_addr::from_ipv4([10, 0, 0, 1]).all[1..], [0; 3]);
    }

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64, and with `gcc -m32` for the i386 numbers. `layout` holds
    // what is the same on both; pointer-bearing and u64-bearing layouts and XT_ALIGN
    // (8 on 64-bit, 4 on i386) are checked per pointer width.
    #[test]
    fn layout() {
        assert_layout!(nf_inet_addr, 16, 4);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(nf_inet_addr, 16, 4, 16);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(nf_inet_addr, 16, 4, 16);
    }
}
