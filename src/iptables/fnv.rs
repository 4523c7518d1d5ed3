//! A fast hash for sets of table and chain names.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// FNV-1a: a fast hash for the planner's sets of table and chain names, which every line of
/// a restore looks up (the standard SipHash cost more than the rest of planning a rule).
#[derive(Debug)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// A set of names hashed with [`Fnv`].
pub(crate) type FastSet<T> = HashSet<T, BuildHasherDefault<Fnv>>;
