//! `socket` match (`xt_socket.h`): the packet belongs to an open local socket
//! (`--transparent`, `--nowildcard`, `--restore-skmark`).

/// `flags`: only match transparent sockets (`--transparent`).
pub const XT_SOCKET_TRANSPARENT: u8 = 1 << 0;
/// `flags`: do not match sockets bound to the wildcard address (`--nowildcard`).
pub const XT_SOCKET_NOWILDCARD: u8 = 1 << 1;
/// `flags`: set the packet mark from the socket mark (`--restore-skmark`).
pub const XT_SOCKET_RESTORESKMARK: u8 = 1 << 2;
/// Flags revision 1 accepts.
pub const XT_SOCKET_FLAGS_V1: u8 = XT_SOCKET_TRANSPARENT;
/// Flags revision 2 accepts.
pub const XT_SOCKET_FLAGS_V2: u8 = XT_SOCKET_TRANSPARENT | XT_SOCKET_NOWILDCARD;
/// Flags revision 3 accepts.
pub const XT_SOCKET_FLAGS_V3: u8 =
    XT_SOCKET_TRANSPARENT | XT_SOCKET_NOWILDCARD | XT_SOCKET_RESTORESKMARK;

bitflags::bitflags! {
    /// `flags` of the socket match infos (`XT_SOCKET_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SocketFlags: u8 {
        /// `--transparent`.
        const TRANSPARENT = XT_SOCKET_TRANSPARENT;
        /// `--nowildcard`.
        const NOWILDCARD = XT_SOCKET_NOWILDCARD;
        /// `--restore-skmark`.
        const RESTORESKMARK = XT_SOCKET_RESTORESKMARK;
    }
}

/// Info of the `socket` match, revision 1 (`struct xt_socket_mtinfo1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_socket_mtinfo1 {
    /// `XT_SOCKET_FLAGS_V1` bits.
    pub flags: u8,
}

/// Info of the `socket` match, revision 2 (`struct xt_socket_mtinfo2`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_socket_mtinfo2 {
    /// `XT_SOCKET_FLAGS_V2` bits.
    pub flags: u8,
}

/// Info of the `socket` match, revision 3 (`struct xt_socket_mtinfo3`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_socket_mtinfo3 {
    /// `XT_SOCKET_FLAGS_V3` bits.
    pub flags: u8,
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
        assert_layout!(xt_socket_mtinfo1, 1, 1);
        assert_layout!(xt_socket_mtinfo2, 1, 1);
        assert_layout!(xt_socket_mtinfo3, 1, 1);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_64() {
        assert_layout!(xt_socket_mtinfo1, 1, 1, 8);
        assert_layout!(xt_socket_mtinfo2, 1, 1, 8);
        assert_layout!(xt_socket_mtinfo3, 1, 1, 8);
    }

    #[test]
    #[cfg(target_arch = "x86")]
    fn layout_i386() {
        assert_layout!(xt_socket_mtinfo1, 1, 1, 4);
        assert_layout!(xt_socket_mtinfo2, 1, 1, 4);
        assert_layout!(xt_socket_mtinfo3, 1, 1, 4);
    }
}
