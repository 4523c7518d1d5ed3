//! Faulting in a batch buffer ahead of its writer, from a thread with time to spare.
//!
//! A one-shot restore writes its whole batch (130 MB for 200k kube-proxy rules) into fresh
//! memory before its single `sendmsg`, and every new page costs a page fault in which the
//! kernel zeroes it. [`Prefault`] lets the thread writing the batch publish where it writes,
//! and another thread (the restore's parsing thread, whenever it would otherwise wait for
//! the planner) fault in the pages just ahead, so the writer finds them ready.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
    /// Address of the batch buffer.
    addr: AtomicUsize,
    /// Bytes written into it when last published.
    written: AtomicUsize,
    /// Bytes it can hold without moving.
    capacity: AtomicUsize,
    /// Set when the kernel refused (before Linux 5.14, or not permitted): no more tries.
    off: AtomicBool,
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
        self.capacity.store(capacity, Ordering::Relaxed);
        self.written.store(written, Ordering::Relaxed);
        self.addr.store(addr, Ordering::Release);
    }

    /// Faults in up to 256 KiB just ahead of the written end of the batch; false when there
    /// is nothing to do (the pages up to [`AHEAD`] past the end are in, or faulting in is not
    /// available).
    pub fn step(&self, cursor: &mut PrefaultCursor) -> bool {
        if self.off.load(Ordering::Relaxed) {
            return false;
        }
        let addr = self.addr.load(Ordering::Acquire);
        if addr == 0 {
            return false;
        }
        let written = self.written.load(Ordering::Relaxed);
        let capacity = self.capacity.load(Ordering::Relaxed);
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
