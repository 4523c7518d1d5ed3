//! The system databases the rule model takes names from: protocols (`-p`), services (port
//! names), hosts and networks (`-L` without `-n`, `XTTYPE_HOST` options), users and groups
//! (`-m owner`), device groups and routing realms (`-m devgroup`, `-m realm`).
//!
//! The rule model reads no file itself: the text of each database comes from a [`Source`]
//! that the layer above installs once per process ([`install`]; `iptnl::iptables` installs
//! one that reads `/etc`, and the `IpTables` API, restore, save and the command-line tools
//! install it before they parse). Without one, every database is empty: protocol names are
//! then the built-in ones iptables knows without `/etc/protocols`, and a port, user or host
//! name is refused as unknown. Each database is read once, at its first lookup.
//!
//! ```
//! use iptnl::ipt::sysdb::{self, Db, Source};
//! struct Fixed;
//! impl Source for Fixed {
//!     fn read(&self, db: Db) -> Option<String> {
//!         (db == Db::Services).then(|| "ssh 22/tcp\n".to_owned())
//!     }
//! }
//! static FIXED: Fixed = Fixed;
//! sysdb::install(&FIXED);
//! assert_eq!(sysdb::text(Db::Services).as_deref(), Some("ssh 22/tcp\n"));
//! ```

use std::sync::OnceLock;

/// One system database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Db {
    /// `/etc/protocols`.
    Protocols,
    /// `/etc/services`.
    Services,
    /// `/etc/hosts`.
    Hosts,
    /// `/etc/networks`.
    Networks,
    /// `/etc/passwd`.
    Passwd,
    /// `/etc/group`.
    Group,
    /// `/etc/iproute2/group`: names of network device groups (`-m devgroup`).
    DevGroups,
    /// `/etc/iproute2/rt_realms`: names of routing realms (`-m realm`).
    Realms,
    /// `/etc/xtables/connlabel.conf`: names of conntrack labels (`-m connlabel`).
    ConnLabels,
}

impl Db {
    /// The file glibc's `files` source reads it from.
    ///
    /// ```
    /// assert_eq!(iptnl::ipt::sysdb::Db::Services.path(), "/etc/services");
    /// ```
    pub const fn path(self) -> &'static str {
        match self {
            Db::Protocols => "/etc/protocols",
            Db::Services => "/etc/services",
            Db::Hosts => "/etc/hosts",
            Db::Networks => "/etc/networks",
            Db::Passwd => "/etc/passwd",
            Db::Group => "/etc/group",
            Db::DevGroups => "/etc/iproute2/group",
            Db::Realms => "/etc/iproute2/rt_realms",
            Db::ConnLabels => "/etc/xtables/connlabel.conf",
        }
    }
}

/// Where the databases' text comes from (in the format of their `/etc` files).
pub trait Source: Sync {
    /// The whole text of `db`, or `None` when it has none.
    fn read(&self, db: Db) -> Option<String>;
}

static SOURCE: OnceLock<&'static dyn Source> = OnceLock::new();

/// Installs the process's source; the first one installed stays. Returns whether this one
/// was installed.
pub fn install(source: &'static dyn Source) -> bool {
    SOURCE.set(source).is_ok()
}

fn source() -> Option<&'static dyn Source> {
    #[cfg(test)]
    {
        // The rule model's unit tests see the machine's files, as before there were sources.
        struct Etc;
        impl Source for Etc {
            fn read(&self, db: Db) -> Option<String> {
                std::fs::read_to_string(db.path()).ok()
            }
        }
        static ETC: Etc = Etc;
        Some(*SOURCE.get().unwrap_or(&(&ETC as &dyn Source)))
    }
    #[cfg(not(test))]
    SOURCE.get().copied()
}

/// The text of `db` from the installed source (`None` without one).
pub fn text(db: Db) -> Option<String> {
    source()?.read(db)
}

/// The entries `build` makes of `db`'s text, built once, at the first lookup after a source
/// is installed (before that, no entries: nothing is cached too early).
///
/// ```
/// use std::sync::OnceLock;
/// use iptnl::ipt::sysdb::{self, Db};
/// static NAMES: OnceLock<Vec<String>> = OnceLock::new();
/// let names = sysdb::table(&NAMES, Db::Group, |text| {
///     text.lines().filter_map(|l| l.split(':').next()).map(str::to_owned).collect()
/// });
/// assert!(names.iter().all(|n| !n.contains(':')));
/// ```
pub fn table<T>(
    cell: &'static OnceLock<Vec<T>>,
    db: Db,
    build: impl FnOnce(&str) -> Vec<T>,
) -> &'static [T] {
    let Some(src) = source() else {
        return &[];
    };
    cell.get_or_init(|| build(&src.read(db).unwrap_or_default()))
}
