//! `bpf` match (`xt_bpf.h`): a classic BPF program run on the packet (`--bytecode`), or a
//! pinned eBPF object (`--object-pinned`).

use super::x_tables::AlignedKernelPtr;

/// The most instructions of a program (`XT_BPF_MAX_NUM_INSTR`).
pub const XT_BPF_MAX_NUM_INSTR: usize = 64;
/// Size of the path of a pinned object (`XT_BPF_PATH_MAX`).
pub const XT_BPF_PATH_MAX: usize = XT_BPF_MAX_NUM_INSTR * 8;
/// The program is in `bpf_program` (`XT_BPF_MODE_BYTECODE`).
pub const XT_BPF_MODE_BYTECODE: u16 = 0;
/// The program is a pinned object given by `fd` (`XT_BPF_MODE_FD_PINNED`).
pub const XT_BPF_MODE_FD_PINNED: u16 = 1;

/// One classic BPF instruction (`struct sock_filter`, `linux/filter.h`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct sock_filter {
    /// The opcode.
    pub code: u16,
    /// Jump offset when true.
    pub jt: u8,
    /// Jump offset when false.
    pub jf: u8,
    /// The generic field.
    pub k: u32,
}

/// Info of the `bpf` match, revision 1 (`struct xt_bpf_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct xt_bpf_info_v1 {
    /// `XT_BPF_MODE_*`.
    pub mode: u16,
    /// Instructions in `bpf_program`.
    pub bpf_program_num_elem: u16,
    /// The object's file descriptor (pinned mode).
    pub fd: i32,
    /// The C `union { struct sock_filter bpf_program[64]; char path[512]; }`.
    pub bpf_program: [sock_filter; XT_BPF_MAX_NUM_INSTR],
    /// Kernel-private `struct bpf_prog *filter __attribute__((aligned(8)))`; send zero.
    pub filter: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, offsetof and XT_ALIGN(sizeof) taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64.
    #[test]
    fn layout() {
        assert_layout!(sock_filter, 8, 4);
        assert_layout!(xt_bpf_info_v1, 528, 8, 528);
        assert_offset!(xt_bpf_info_v1, bpf_program, 8);
        assert_offset!(xt_bpf_info_v1, filter, 520);
    }
}
