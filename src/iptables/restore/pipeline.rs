//! A big restore input is parsed on a second thread while this one plans.

use super::input::Source;
use super::RestoreError;
use crate::ipt::restore_input::{parse_stream, Event, Selection};
use crate::ipt::IpFamily;
use crate::netlink::{Prefault, PrefaultCursor};

/// Inputs from this size on are parsed on a second thread while the planner encodes (below
/// it, a thread costs more than it saves).
pub(crate) const PIPELINE_MIN_BYTES: usize = 256 * 1024;

/// Parsed lines handed from the parsing thread to the planner at a time (at most two chunks
/// wait between the threads; 1,024 lines planned 20% faster than 256, for about 1 MB more).
const PIPELINE_CHUNK: usize = 1024;

/// Whether a second thread can run beside this one.
pub(crate) fn parallel() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// [`parse_stream`] on a second thread, its events handed in order to `sink` on this one:
/// parsing the text and planning/encoding the batch (about half of a restore's own time each)
/// overlap. Errors come out exactly as in one thread: the events before a parse error are all
/// planned first, and a planning error stops the parser.
///
/// The planner only borrows the events, and hands each chunk back: the parsing thread frees
/// what it allocated and reuses the chunk. (Freed on the planning thread, every parsed rule
/// went back to the other thread's malloc arena under its lock, and the two threads spent
/// a fifth of their time waking each other on that lock.)
///
/// Whenever the planner is behind (the channel is full) or the input is all parsed, the
/// parsing thread faults in the next pages of the batch through `ahead` instead of waiting,
/// which the planner publishes after each chunk: on a 200k-rule input the planner spent
/// more than a third of its time in page faults of the fresh 130 MB batch, and this made
/// the restore's own part 225–240 ms instead of 270–320 ms.
pub(crate) fn parse_beside(
    family: IpFamily,
    input: Source<'_>,
    sel: Selection<'_>,
    ahead: &Prefault,
    mut sink: impl FnMut(&[Event]) -> Result<(), RestoreError>,
) -> Result<(), RestoreError> {
    use std::collections::VecDeque;
    use std::sync::mpsc::{Receiver, TryRecvError, TrySendError};
    type Chunk = Result<Vec<Event>, RestoreError>;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(2);
        let (back_tx, back_rx) = std::sync::mpsc::channel::<Vec<Event>>();
        scope.spawn(move || {
            let mut cursor = PrefaultCursor::default();
            // Hands a chunk to the planner; while the planner is busy, faults in the pages
            // it is about to write instead of waiting (false: the planner stopped).
            let mut hand = |mut chunk: Chunk| loop {
                match tx.try_send(chunk) {
                    Ok(()) => return true,
                    Err(TrySendError::Full(c)) => {
                        chunk = c;
                        if !ahead.step(&mut cursor) {
                            return tx.send(chunk).is_ok();
                        }
                    }
                    Err(TrySendError::Disconnected(_)) => return false,
                }
            };
            // The events handed back, freed one for each event parsed: each line's
            // allocations then reuse the blocks an old line has just freed, from glibc's
            // per-thread cache (7 blocks per size). Freeing a whole chunk at once overflowed
            // that cache into the slower bins: parsing took 20 ms longer.
            let mut to_free: VecDeque<Event> = VecDeque::new();
            let fresh = |back: &Receiver<Vec<Event>>, to_free: &mut VecDeque<Event>| match back
                .try_recv()
            {
                Ok(mut used) => {
                    to_free.extend(used.drain(..));
                    used
                }
                Err(_) => Vec::with_capacity(PIPELINE_CHUNK),
            };
            let mut chunk = fresh(&back_rx, &mut to_free);
            let parsed = parse_stream(family, &input, sel, |ev| {
                to_free.pop_front();
                chunk.push(ev);
                if chunk.len() == PIPELINE_CHUNK {
                    let full = std::mem::replace(&mut chunk, fresh(&back_rx, &mut to_free));
                    // The planner stopped (it failed): stop parsing too; this error is never seen.
                    if !hand(Ok(full)) {
                        return Err(RestoreError::Input {
                            line: 0,
                            msg: "planner stopped".into(),
                        });
                    }
                }
                Ok(())
            });
            if chunk.is_empty() || hand(Ok(chunk)) {
                if let Err(e) = parsed {
                    hand(Err(e));
                }
            }
            // Closes the channel: the planner's loop ends.
            drop(tx);
            // The chunks still being planned come back here to be freed; meanwhile the pages
            // of the batch's end are faulted in.
            drop(to_free);
            loop {
                match back_rx.try_recv() {
                    Ok(used) => drop(used),
                    Err(TryRecvError::Empty) => {
                        if !ahead.step(&mut cursor) {
                            match back_rx.recv() {
                                Ok(used) => drop(used),
                                Err(_) => break,
                            }
                        }
                    }
                    Err(TryRecvError::Disconnected) => break,
                }
            }
        });
        let planned = (|| {
            for msg in rx.iter() {
                let events = msg?;
                sink(&events)?;
                let _ = back_tx.send(events);
            }
            Ok(())
        })();
        drop(back_tx);
        // Unblocks a parser waiting to send (after a planning error).
        drop(rx);
        planned
    })
}
