//! `iptnl`: a multi-call binary. The tool is named by the program name (`argv[0]`, e.g. a
//! symlink `iptables-restore -> iptnl`) or, when that is not a tool name (`iptnl`,
//! `xtables-nft-multi`), by the first argument: `iptnl iptables-save -t nat`.
//!
//! Tools: `iptables`, `ip6tables`, `iptables-restore`, `ip6tables-restore`, `iptables-save`,
//! `ip6tables-save` (also with `-nft`: `iptables-nft`, `iptables-nft-restore`, …, and with
//! `-iptnl`, the names the alternatives system is given: `iptables-iptnl`,
//! `iptables-iptnl-save`, …), `iptables-xml`, `demo`, and `install-links DIR`, which creates
//! those names in DIR as symlinks to this binary.

mod check_readers;
mod demo;
mod floor_opt;
mod getopt;
mod install;
mod install_links;
mod iptables_cmd;
mod monitor;
mod output;
mod serve;
mod tools;

use iptnl::ipt::IpFamily;

/// What a program name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Restore(IpFamily),
    Save(IpFamily),
    /// `iptables-xml`: iptables-save text to XML.
    Xml,
    /// `xtables-monitor` (or `monitor`): ruleset events as iptables commands.
    Monitor,
    /// `iptables`/`ip6tables` (the rule command).
    Iptables(IpFamily),
    Demo,
    /// `install-links [--force] DIR`.
    InstallLinks,
    /// `serve [--verbose]`: run `iptables` commands for short-lived clients.
    Serve,
    /// Hidden: the demo's iptnl loader, run as a child so its peak memory is measured alone.
    DemoLoad,
    /// Hidden: the demo's kernel floor, a planned batch committed alone.
    DemoCommit,
    /// `check-readers`: the rules another iptables release would misread.
    CheckReaders,
    /// `install PREFIX`: the binary, its links and the server's units.
    Install,
}

/// The tool a name (program name or first argument) stands for.
fn lookup(name: &str) -> Option<Tool> {
    if name == "iptables-xml" {
        return Some(Tool::Xml);
    }
    let (family, rest) = if let Some(r) = name.strip_prefix("ip6tables") {
        (IpFamily::V6, r)
    } else if let Some(r) = name.strip_prefix("iptables") {
        (IpFamily::V4, r)
    } else {
        return match name {
            "demo" => Some(Tool::Demo),
            "install-links" => Some(Tool::InstallLinks),
            "install" => Some(Tool::Install),
            "serve" => Some(Tool::Serve),
            "check-readers" => Some(Tool::CheckReaders),
            "xtables-monitor" | "monitor" => Some(Tool::Monitor),
            demo::LOAD_SUBCOMMAND => Some(Tool::DemoLoad),
            demo::COMMIT_SUBCOMMAND => Some(Tool::DemoCommit),
            _ => None,
        };
    };
    let rest = rest
        .strip_prefix("-nft")
        .or_else(|| rest.strip_prefix("-iptnl"))
        .unwrap_or(rest);
    match rest {
        "" => Some(Tool::Iptables(family)),
        "-restore" => Some(Tool::Restore(family)),
        "-save" => Some(Tool::Save(family)),
        _ => None,
    }
}

fn usage() -> String {
    format!(
        "iptnl {} — iptables-compatible netfilter tools speaking nf_tables netlink\n\
         \n\
         Usage: iptnl TOOL [ARGS…]   or a symlink named after the tool (TOOL -> iptnl)\n\
         \n\
         Tools:\n\
         \x20 iptables, ip6tables                   (also iptables-nft, ip6tables-nft)\n\
         \x20 iptables-restore, ip6tables-restore   (also iptables-nft-restore, …)\n\
         \x20 iptables-save, ip6tables-save         (also iptables-nft-save, …)\n\
         \x20 iptables-xml [-c] [-v] [FILE]         iptables-save text to XML\n\
         \x20 xtables-monitor -e|-t [-4|-6] [-c]    print ruleset changes as iptables commands\n\
         \x20                                       (-e) and traced packets (-t)\n\
         \x20                                       (also `iptnl monitor', which takes\n\
         \x20                                       --table NAME; see `iptnl monitor -h')\n\
         \x20 demo [--rules N] [--ipv6] [--keep-going]\n\
         \x20                                       load a kube-proxy-style ruleset with iptnl and\n\
         \x20                                       iptables-nft/legacy-restore in throwaway\n\
         \x20                                       network namespaces and compare them\n\
         \x20 install-links [--force] DIR           create the tool names above (and\n\
         \x20                                       xtables-nft-multi) in DIR as symlinks to\n\
         \x20                                       this binary; then put DIR first on PATH:\n\
         \x20                                       export PATH=DIR:$PATH; with --alternatives\n\
         \x20                                       also register them for /usr/sbin/iptables\n\
         \x20                                       (see `iptnl install-links --help')\n\
         \x20 install [--remove] PREFIX             place this binary, the names above and the\n\
         \x20                                       server's systemd units under PREFIX, or\n\
         \x20                                       take them away (see `iptnl install -h')\n\
         \x20 serve [--verbose]                     run the iptables commands of this network\n\
         \x20                                       namespace for the processes called by\n\
         \x20                                       those names (see `iptnl serve --help')\n\
         \x20 check-readers [--floor VERSION]       list the rules an iptables release from\n\
         \x20                                       VERSION on would read otherwise than the\n\
         \x20                                       kernel holds them (exit 1 if any)\n\
         \n\
         Rules are written so that iptables-nft 1.8.7 and later read them exactly (1.8.9 and\n\
         later on a kernel without nft_compat); --reader-floor VERSION or the environment\n\
         variable IPTNL_READER_FLOOR chooses another release (docs/compatibility.md).\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn run(tool: Tool, prog: &str, args: &[String]) -> i32 {
    match tool {
        Tool::Restore(f) => match floor_opt::with_env(args) {
            Ok(args) => tools::restore_main(prog, f, &args),
            Err(e) => {
                eprintln!("{prog}: {e}");
                2
            }
        },
        Tool::Save(f) => match floor_opt::with_env(args) {
            Ok(args) => tools::save_main(prog, f, &args),
            Err(e) => {
                eprintln!("{prog}: {e}");
                2
            }
        },
        Tool::Xml => tools::xml_main(args),
        Tool::Monitor => monitor::main(prog, args),
        Tool::Iptables(f) => match floor_opt::with_env(args) {
            Ok(args) => {
                serve::client::forward(f, &args).unwrap_or_else(|| iptables_cmd::main(f, &args))
            }
            Err(e) => iptables_cmd::usage_fail(f, &e),
        },
        Tool::Serve => serve::main(args),
        Tool::Install => install::main(args),
        Tool::Demo => demo::main(args),
        Tool::InstallLinks => install_links::main(args),
        Tool::DemoLoad => demo::load_main(args),
        Tool::DemoCommit => demo::commit_main(args),
        Tool::CheckReaders => check_readers::main(args),
    }
}

fn main() {
    iptnl::iptables::sysdb::use_system_databases();
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let base = argv
        .first()
        .map(|a| a.rsplit('/').next().unwrap_or(a).to_owned())
        .unwrap_or_default();
    let code = if let Some(t) = lookup(&base) {
        run(t, &base, &argv[1..])
    } else {
        match argv.get(1).map(String::as_str) {
            Some(name) if lookup(name).is_some() => run(lookup(name).unwrap(), name, &argv[2..]),
            Some("-h" | "--help" | "help") => {
                print!("{}", usage());
                0
            }
            Some("-V" | "--version") => {
                println!("iptnl {}", env!("CARGO_PKG_VERSION"));
                0
            }
            Some(other) => {
                eprintln!("iptnl: unknown tool `{other}'\n\n{}", usage());
                2
            }
            None => {
                eprint!("{}", usage());
                2
            }
        }
    };
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            lookup("iptables-restore"),
            Some(Tool::Restore(IpFamily::V4))
        );
        assert_eq!(lookup("ip6tables-nft-save"), Some(Tool::Save(IpFamily::V6)));
        assert_eq!(lookup("iptables-nft"), Some(Tool::Iptables(IpFamily::V4)));
        // The names `install-links --alternatives` registers.
        assert_eq!(lookup("iptables-iptnl"), Some(Tool::Iptables(IpFamily::V4)));
        assert_eq!(
            lookup("ip6tables-iptnl"),
            Some(Tool::Iptables(IpFamily::V6))
        );
        assert_eq!(
            lookup("iptables-iptnl-restore"),
            Some(Tool::Restore(IpFamily::V4))
        );
        assert_eq!(
            lookup("ip6tables-iptnl-save"),
            Some(Tool::Save(IpFamily::V6))
        );
        assert_eq!(lookup("iptables-nft-iptnl"), None);
        assert_eq!(lookup("iptables-iptnl-nft-save"), None);
        assert_eq!(lookup("demo"), Some(Tool::Demo));
        assert_eq!(lookup("install-links"), Some(Tool::InstallLinks));
        assert_eq!(lookup("serve"), Some(Tool::Serve));
        for n in install_links::NAMES {
            assert!(
                lookup(n).is_some() || *n == "xtables-nft-multi",
                "{n} is installed but not a tool name"
            );
        }
        assert_eq!(lookup("iptnl"), None);
        assert_eq!(lookup("iptables-xml"), Some(Tool::Xml));
        assert_eq!(lookup("ip6tables-xml"), None);
        assert_eq!(lookup("xtables-monitor"), Some(Tool::Monitor));
        assert_eq!(lookup("monitor"), Some(Tool::Monitor));
        assert_eq!(lookup("xtables-nft-monitor"), None);
        assert_eq!(lookup("iptables-nft-xml"), None);
        assert_eq!(lookup("xtables-nft-multi"), None);
        assert_eq!(lookup("iptables-legacy-restore"), None);
    }
}
