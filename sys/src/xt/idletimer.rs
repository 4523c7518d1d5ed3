//! `IDLETIMER` target (`xt_IDLETIMER.h`): a timer per label, restarted by each packet, that
//! notifies user space when it expires (`--timeout`, `--label`, `--alarm`).

use super::x_tables::AlignedKernelPtr;

/// Size of the label fields, NUL included (`MAX_IDLETIMER_LABEL_SIZE`).
pub const MAX_IDLETIMER_LABEL_SIZE: usize = 28;
/// [`idletimer_tg_info_v1::timer_type`] of an alarm timer (`XT_IDLETIMER_ALARM`).
pub const XT_IDLETIMER_ALARM: u8 = 0x01;

/// Info of the `IDLETIMER` target, revision 0 (`struct idletimer_tg_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idletimer_tg_info {
    /// Seconds without packets until the notification (`--timeout`).
    pub timeout: u32,
    /// The timer's name (`--label`), NUL-terminated.
    pub label: [u8; MAX_IDLETIMER_LABEL_SIZE],
    /// Kernel-private `struct idletimer_tg *timer __attribute__((aligned(8)))`; send zero.
    pub timer: AlignedKernelPtr,
}

/// Info of the `IDLETIMER` target, revision 1 (`struct idletimer_tg_info_v1`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idletimer_tg_info_v1 {
    /// Seconds without packets until the notification (`--timeout`).
    pub timeout: u32,
    /// The timer's name (`--label`), NUL-terminated.
    pub label: [u8; MAX_IDLETIMER_LABEL_SIZE],
    /// 1 for `--send_nl_msg` (unused by the kernel).
    pub send_nl_msg: u8,
    /// [`XT_IDLETIMER_ALARM`] for `--alarm`, else 0.
    pub timer_type: u8,
    /// Kernel-private `struct idletimer_tg *timer __attribute__((aligned(8)))`; send zero.
    pub timer: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64; the timer pointer is 8-aligned on i386 too.
    #[test]
    fn layout() {
        assert_layout!(idletimer_tg_info, 40, 8, 40);
        assert_offset!(idletimer_tg_info, label, 4);
        assert_offset!(idletimer_tg_info, timer, 32);
        assert_layout!(idletimer_tg_info_v1, 48, 8, 48);
        assert_offset!(idletimer_tg_info_v1, send_nl_msg, 32);
        assert_offset!(idletimer_tg_info_v1, timer_type, 33);
        assert_offset!(idletimer_tg_info_v1, timer, 40);
    }
}
