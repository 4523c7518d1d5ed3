//! The system databases read from `/etc`, the source of the rule model's names (protocols,
//! services, hosts, networks, users, groups; see [`crate::ipt::sysdb`]).

use crate::ipt::sysdb::{self, Db, Source};

/// The databases as glibc's `files` source has them: the `/etc` files, read at each
/// database's first lookup.
///
/// ```
/// use iptnl::ipt::sysdb::{Db, Source};
/// let passwd = iptnl::iptables::sysdb::EtcFiles.read(Db::Passwd);
/// assert_eq!(passwd.is_some(), std::path::Path::new("/etc/passwd").exists());
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct EtcFiles;

impl Source for EtcFiles {
    fn read(&self, db: Db) -> Option<String> {
        std::fs::read_to_string(db.path()).ok()
    }
}

/// Installs [`EtcFiles`] as the process's source of names, unless another source was
/// installed first. The `IpTables` handles, restore and save call it; a program that parses
/// rules with `iptnl::ipt` alone calls it (or installs its own source) before it parses.
///
/// ```
/// iptnl::iptables::sysdb::use_system_databases();
/// let r = iptnl::ipt::parse_rule_str(iptnl::ipt::IpFamily::V4, "-p tcp --dport 1 -j DROP");
/// assert!(r.is_ok());
/// ```
pub fn use_system_databases() {
    static ETC: EtcFiles = EtcFiles;
    sysdb::install(&ETC);
}
