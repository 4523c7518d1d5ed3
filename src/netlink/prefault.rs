//! Faulting in a batch buffer ahead of its writer, from a thread with time to spare.
//!
//! A one-shot restore writes its whole batch (130 MB for 200k kube-proxy rules) into fresh
//! memory before its single `sendmsg`, and every new page costs a page fault in which the
//! kernel zeroes it. [`Prefault`] lets the thread writing the batch publish where it writes,
//! and another thread (the restore's parsing thread, whenever it would otherwise wait for
//! the planner) fault in the pages just ahead, so the writer finds them ready.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::batch::Batch;
use super::socket::populate_write;

/// How far ahead of the written end pages are faulted in.
pub const AHEAD: usize = 4 << 20;

/// Bytes faulted in by one [`Prefault::step`] (so that the helper thread can go back to its
/// own work soon).
const STEP: usize = 256 << 10;

/// Alignment of the ranges faulted in (a multiple of every page size Linux uses, as
/// `madvise` wants a page-aligned start).
const ALIGN: usize = 64 << 10;

/// Where a batch is being written, shared between its writer and a helper thread.
///
/// The writer calls [`publish`](Self::publish) now and then (it also makes room, so the
/// buffer is not moved while the helper works ahead); the helper calls
/// [`step`](Self::step) while it has nothing else to do.
///
/// ```
/// use iptnl::netlink::{Batch, Prefault, PrefaultCursor};
/// let mut batch = Batch::new();
/// let ahead = Prefault::default();
/// ahead.publish(&mut batch);
/// let mut cursor = PrefaultCursor::default();
/// while ahead.step(&mut cursor) {}
/// assert!(batch.capacity() >= iptnl::netlink::PREFAULT_AHEAD);
/// ```
#[derive(Debug, Default)]
pub struct Prefault {
    /// The last publication, read as a whole (a lock taken once per published chunk and once
    /// per step, never contended for long).
    window: Mutex<Window>,
    /// Set when the kernel refused (before Linux 5.14, or not permitted): no more tries.
    off: AtomicBool,
}

/// Where the batch is, as last published.
#[derive(Debug, Default, Clone, Copy)]
struct Window {
    /// Address of the batch buffer (0: nothing published).
    addr: usize,
    /// Bytes written into it.
    written: usize,
    /// Bytes it can hold without moving.
    capacity: usize,
}

/// The helper thread's progress in a [`Prefault`].
#[derive(Debug, Default)]
pub struct PrefaultCursor {
    addr: usize,
    done: usize,
}

impl Prefault {
    /// Publishes where `batch` is written, after making room for [`AHEAD`] bytes more (with
    /// some slack) so that its buffer rarely moves before the next call.
    pub fn publish(&self, batch: &mut Batch) {
        batch.reserve(2 * AHEAD);
        let (addr, written, capacity) = batch.buffer_window();
        if let Ok(mut w) = self.window.lock() {
            *w = Window {
                addr,
                written,
                capacity,
            };
        }
    }

    /// Faults in up to 256 KiB just ahead of the written end of the batch; false when there
    /// is nothing to do (the pages up to [`AHEAD`] past the end are in, or faulting in is not
    /// available).
    pub fn step(&self, cursor: &mut PrefaultCursor) -> bool {
        if self.off.load(Ordering::Relaxed) {
            return false;
        }
        let Ok(Window {
            addr,
            written,
            capacity,
        }) = self.window.lock().map(|w| *w)
        else {
            return false;
        };
        if addr == 0 {
            return false;
        }
        if cursor.addr != addr {
            *cursor = PrefaultCursor { addr, done: 0 };
        }
        let from = cursor.done.max(written);
        // The first whole aligned block after `from`.
        let start = (addr + from).next_multiple_of(ALIGN) - addr;
        let end = (written + AHEAD).min(capacity);
        if start >= end {
            return false;
        }
        let len = STEP.min(end - start);
        match populate_write(addr + start, len) {
            Ok(()) => {
                cursor.done = start + len;
                true
            }
            // The buffer moved since it was published (the writer outgrew the room made):
            // wait for the next publication.
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => {
                cursor.done = end;
                false
            }
            Err(_) => {
                self.off.store(true, Ordering::Relaxed);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_ahead_of_the_written_end_and_go_on_after_the_next_publication() {
        let mut b = Batch::new();
        let ahead = Prefault::default();
        let mut c = PrefaultCursor::default();
        assert!(!ahead.step(&mut c), "nothing published yet");
        ahead.publish(&mut b);
        let mut steps = 0;
        while ahead.step(&mut c) {
            steps += 1;
        }
        if ahead.off.load(Ordering::Relaxed) {
            // A kernel before 5.14: refused once, then never tried again.
            assert_eq!(steps, 0);
            return;
        }
        assert!(steps > 0 && steps <= AHEAD / STEP + 1, "{steps} steps");
        let written = b.buffer_window().1;
        assert_eq!(
            c.done,
            written + AHEAD,
            "stops exactly AHEAD past the written end"
        );
        // About 1 MB more written: the next publication opens more room ahead.
        for _ in 0..1000 {
            b.push(0, 0, 2, false, |w| w.put(1, &[7u8; 1000])).unwrap();
        }
        assert!(!ahead.step(&mut c), "not published yet");
        ahead.publish(&mut b);
        assert!(ahead.step(&mut c));
        // Faulting in changed nothing written.
        assert!(b.op_bytes(999).unwrap().ends_with(&[7u8; 1000]));
    }
}
