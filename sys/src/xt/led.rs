//! `LED` target (`xt_LED.h`): blink an LED trigger on packets (`--led-trigger-id`,
//! `--led-delay`, `--led-always-blink`).

use super::x_tables::AlignedKernelPtr;

/// Size of [`xt_led_info::id`], NUL included.
pub const XT_LED_ID_SIZE: usize = 27;

/// Info of the `LED` target, revision 0 (`struct xt_led_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct xt_led_info {
    /// The trigger's name, `netfilter-` and the id given, NUL-terminated.
    pub id: [u8; XT_LED_ID_SIZE],
    /// 1 to blink even when the LED is already on (`--led-always-blink`).
    pub always_blink: u8,
    /// Milliseconds the LED stays on (`--led-delay`), `u32::MAX` for ever.
    pub delay: u32,
    /// Kernel-private `void *internal_data __attribute__((aligned(8)))`; send zero.
    pub internal_data: AlignedKernelPtr,
}

#[cfg(test)]
mod tests {
    use super::*;

    // sizeof, _Alignof, XT_ALIGN(sizeof) and offsetof taken from the kernel UAPI headers
    // with gcc 12.2 on x86_64; the pointer is 8-aligned on i386 too.
    #[test]
    fn layout() {
        assert_layout!(xt_led_info, 40, 8, 40);
        assert_offset!(xt_led_info, always_blink, 27);
        assert_offset!(xt_led_info, delay, 28);
        assert_offset!(xt_led_info, internal_data, 32);
    }
}
