//! The reader floor of a handle ([`ReaderFloor`]): the oldest iptables-nft release that must
//! read the rules the handle writes exactly, and the default chosen for the running kernel.

use std::sync::atomic::Ordering;

use super::IpTables;
use crate::ipt::{IpFamily, ReaderFloor};
use crate::netlink::Conn;
use crate::nft::compat::{xt_revision, XtKind};

/// The x_tables extensions the forms of the floor 1.8.7 need from the kernel, beyond those
/// every floor needs (`comment`, `conntrack`, …): `nft_compat` and the modules of these.
const OLD_FORMS: [(&str, u32, XtKind); 4] = [
    ("tcp", 0, XtKind::Match),
    ("udp", 0, XtKind::Match),
    ("mark", 1, XtKind::Match),
    ("NFLOG", 0, XtKind::Target),
];

/// The default reader floor on the kernel behind `conn`: the safest one it supports. That is
/// 1.8.7, whose x_tables forms every iptables-nft since reads, when the kernel has
/// `nft_compat` and the `tcp`, `udp`, `mark` and `NFLOG` extensions (asked of the kernel as
/// iptables-nft asks, which loads the modules on demand); otherwise 1.8.9, the oldest
/// release that reads the native forms (some distributions make `nft_compat` an optional
/// module, and a kernel without it takes only those). A probe the kernel cannot answer at
/// all (no permission) gives 1.8.7: the write that follows says what is wrong.
///
/// ```no_run
/// use iptnl::iptables::kernel_reader_floor;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// println!("writing for iptables {} and later", kernel_reader_floor(&mut conn, iptnl::ipt::IpFamily::V4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn kernel_reader_floor(conn: &mut Conn, family: IpFamily) -> ReaderFloor {
    for (name, rev, kind) in OLD_FORMS {
        match xt_revision(conn, family.nft(), name, rev, kind) {
            Ok(Some(_)) => {}
            Ok(None) => return ReaderFloor::V1_8_9,
            Err(_) => return ReaderFloor::V1_8_7,
        }
    }
    ReaderFloor::V1_8_7
}

fn code(f: ReaderFloor) -> u8 {
    ReaderFloor::ALL.iter().position(|&x| x == f).unwrap_or(0) as u8 + 1
}

fn of_code(c: u8) -> Option<ReaderFloor> {
    ReaderFloor::ALL
        .get(usize::from(c).checked_sub(1)?)
        .copied()
}

impl IpTables {
    /// Sets the reader floor: the oldest iptables-nft release that must read the rules this
    /// handle writes exactly as they were meant (see [`ReaderFloor`] for the forms each one
    /// gets). Rules already in the kernel are not changed; a restore writes every rule it
    /// writes at the floor, and compares the kernel's rules with their forms at the floor.
    ///
    /// ```no_run
    /// use iptnl::ipt::ReaderFloor;
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// ipt.set_reader_floor(ReaderFloor::V1_8_9);
    /// assert_eq!(ipt.reader_floor(), ReaderFloor::V1_8_9);
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn set_reader_floor(&self, floor: ReaderFloor) {
        self.floor.store(code(floor), Ordering::Relaxed);
    }

    /// The reader floor: the one set, or else the default for the running kernel
    /// ([`kernel_reader_floor`], asked once).
    ///
    /// ```no_run
    /// let ipt = iptnl::iptables::IpTables::new(iptnl::ipt::IpFamily::V4)?;
    /// println!("rules are written for iptables {} and later", ipt.reader_floor());
    /// # Ok::<(), iptnl::iptables::Error>(())
    /// ```
    pub fn reader_floor(&self) -> ReaderFloor {
        if let Some(f) = of_code(self.floor.load(Ordering::Relaxed)) {
            return f;
        }
        let mut g = self.lock();
        self.floor_with(&mut g.conn)
    }

    /// [`reader_floor`](Self::reader_floor) for a caller that holds the connection.
    pub(crate) fn floor_with(&self, conn: &mut Conn) -> ReaderFloor {
        if let Some(f) = of_code(self.floor.load(Ordering::Relaxed)) {
            return f;
        }
        let f = kernel_reader_floor(conn, self.family);
        // A floor set meanwhile stays.
        let _ = self
            .floor
            .compare_exchange(0, code(f), Ordering::Relaxed, Ordering::Relaxed);
        of_code(self.floor.load(Ordering::Relaxed)).unwrap_or(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for f in ReaderFloor::ALL {
            assert_eq!(of_code(code(f)), Some(f));
        }
        assert_eq!(of_code(0), None);
        assert_eq!(of_code(9), None);
    }
}
