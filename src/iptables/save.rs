//! Whole-ruleset save from the kernel, as `iptables-nft-save` does: the tables of a family
//! read table by table (and chain by chain, as read) and formatted by
//! [`crate::ipt::savefile`].

use super::ipset::KernelSets;
use crate::ipt::savefile::{ctime, format_table, SaveOptions, TableFormat};
use crate::ipt::tables::{find_table, is_foreign_base_chain, TABLES};
use crate::ipt::IpFamily;
use crate::netlink::Conn;
use crate::nft::{anonymous_sets, dump_rules_by_chain, list_tables};

/// Errors of a save.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// `-t` named a table that does not exist.
    #[error("Table `{0}' does not exist")]
    NoSuchTable(String),
    /// Reading the ruleset failed.
    #[error(transparent)]
    Kernel(#[from] crate::nft::Error),
}

/// Saves the iptables tables of `family` as `iptables-nft-save` does.
///
/// ```no_run
/// use iptnl::ipt::savefile::SaveOptions;
/// use iptnl::ipt::IpFamily;
/// use iptnl::iptables::save::save;
/// let mut conn = iptnl::netlink::Conn::open()?;
/// print!("{}", save(&mut conn, IpFamily::V4, &SaveOptions::default())?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save(conn: &mut Conn, family: IpFamily, opts: &SaveOptions) -> Result<String, SaveError> {
    super::sysdb::use_system_databases();
    let (tables, _) = list_tables(conn, Some(family.nft()))?;
    if let Some(t) = &opts.table {
        // iptables-nft-save -t of an iptables table not in the kernel prints it empty.
        if !tables.iter().any(|x| &x.name == t) && find_table(t).is_none() {
            return Err(SaveError::NoSuchTable(t.clone()));
        }
    }
    let date = ctime(std::time::SystemTime::now());
    let floor = match opts.floor {
        Some(f) => f,
        None => super::kernel_reader_floor(conn, family),
    };
    let fmt = TableFormat {
        family,
        counters: opts.counters,
        date: &date,
        sets: &KernelSets,
        floor,
    };
    let mut out = String::new();
    for t in TABLES {
        let exists = tables.iter().any(|x| x.name == t.name);
        if !exists && opts.table.is_none() || opts.table.as_deref().is_some_and(|n| n != t.name) {
            continue;
        }
        if !exists {
            out.push_str(&format_table(
                family,
                t.name,
                &[],
                &[],
                opts.counters,
                &date,
            ));
            continue;
        }
        let anon = anonymous_sets(conn, family.nft(), t.name)?;
        // Chain by chain, formatted as read: the rules are never all in memory at once.
        let mut text = String::new();
        let (rules_text, _) = dump_rules_by_chain(
            conn,
            family.nft(),
            t.name,
            |chains| {
                text.clear();
                let (order, foreign) = fmt.head(t.name, chains, &mut text);
                let foreign = foreign.iter().map(|c| c.name.as_str());
                crate::nft::chain_positions(chains, order.into_iter().chain(foreign))
            },
            |chain, rules, out| {
                if is_foreign_base_chain(t.name, chain) {
                    fmt.foreign_chain(out, chain, rules);
                } else {
                    fmt.rules(out, &chain.name, rules, &anon);
                }
            },
        )?;
        text.push_str(&rules_text);
        fmt.tail(&mut text);
        out.push_str(&text);
    }
    Ok(out)
}
