//! `iptnl check-readers`: the rules of the iptables tables that an older or newer
//! iptables-nft would read otherwise than the kernel holds them.

use iptnl::ipt::{IpFamily, ReaderFloor};
use iptnl::iptables::IpTables;

const USAGE: &str = "Usage: iptnl check-readers [--floor VERSION] [-4|-6] [-t TABLE]\n\
\n\
Lists every rule of the iptables tables (both families, unless -4 or -6) that an\n\
iptables-nft release from VERSION on would read otherwise than the kernel holds it: what\n\
that release shows in -S, -L and a save, and compares in -C and -D (and so writes back in\n\
a save and restore), beside what the kernel holds, as iptnl and iptables 1.8.11 show it.\n\
Run it on a node where several iptables releases share the ruleset (the host's, and those\n\
of the agents' container images) before upgrading or downgrading any of them.\n\
\n\
  --floor VERSION   the oldest release to check: 1.8.7, 1.8.9, 1.8.11, 1.8.13 (1.8.8 is\n\
                    checked as 1.8.7, 1.8.10 as 1.8.9, 1.8.12 as 1.8.11); default:\n\
                    IPTNL_READER_FLOOR, else 1.8.7\n\
  -4, -6            only IPv4 (iptables) or IPv6 (ip6tables)\n\
  -t, --table NAME  only this table\n\
\n\
Exit status: 0 when every rule is read exactly, 1 when some rule is not, 2 on a usage\n\
error or when the ruleset cannot be read.\n";

struct Options {
    floor: ReaderFloor,
    families: Vec<IpFamily>,
    table: Option<String>,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut floor = ReaderFloor::from_env()
        .map_err(|e| format!("{}: {e}", ReaderFloor::ENV))?
        .unwrap_or(ReaderFloor::V1_8_7);
    let mut families = vec![IpFamily::V4, IpFamily::V6];
    let mut table = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (a.as_str(), None),
        };
        let mut value = |what: &str| {
            attached
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("option `{name}' requires {what}"))
        };
        match name {
            "-h" | "--help" => return Ok(None),
            "--floor" | "--reader-floor" => {
                floor = value("a release (1.8.7, …)")?
                    .parse()
                    .map_err(|e: iptnl::ipt::floor::FloorError| e.to_string())?
            }
            "-4" | "--ipv4" => families = vec![IpFamily::V4],
            "-6" | "--ipv6" => families = vec![IpFamily::V6],
            "-t" | "--table" => table = Some(value("a table name")?),
            other => return Err(format!("unknown option `{other}'")),
        }
    }
    if let Some(t) = &table {
        if iptnl::ipt::tables::find_table(t).is_none() {
            return Err(format!(
                "table `{t}' is not an iptables table (filter, nat, mangle, raw, security)"
            ));
        }
    }
    Ok(Some(Options {
        floor,
        families,
        table,
    }))
}

/// `iptnl check-readers [--floor VERSION] [-4|-6] [-t TABLE]`.
pub fn main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("iptnl check-readers: {e}\n\n{USAGE}");
            return 2;
        }
    };
    let (mut misread, mut checked) = (0, 0);
    for f in &o.families {
        let report =
            match IpTables::new(*f).and_then(|h| h.check_readers(o.floor, o.table.as_deref())) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("iptnl check-readers: {e}");
                    return 2;
                }
            };
        let fam = match f {
            IpFamily::V4 => "ip",
            IpFamily::V6 => "ip6",
        };
        checked += report.checked;
        misread += report.rules.len();
        for r in &report.rules {
            for m in &r.misreads {
                println!("{fam} {} {} rule {}: {m}", r.table, r.chain, r.number);
            }
        }
    }
    let who = if o.floor == ReaderFloor::V1_8_13 {
        format!("iptables {}", o.floor)
    } else {
        format!("iptables {} or later", o.floor)
    };
    if misread == 0 {
        println!("every rule ({checked}) is read exactly by {who}");
        0
    } else {
        println!("{misread} of {checked} rules would be read otherwise by {who}");
        1
    }
}
