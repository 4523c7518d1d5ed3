//! Why a tool could not do its part here, in words: the limits a user namespace or a kernel
//! without x_tables modules puts on the other tools, told from their messages.

/// The reason in words when `msg` (a tool's error output) comes from a limit of where the
/// demo runs rather than from the tool; `None` for any other failure (shown whole).
pub(super) fn limit_in_words(tool: &str, msg: &str) -> Option<String> {
    let wmem_default = || {
        std::fs::read_to_string("/proc/sys/net/core/wmem_default")
            .map(|s| iptnl::nft::error::group_thousands(s.trim().parse().unwrap_or(0)))
            .unwrap_or_else(|_| "?".into())
    };
    if msg.contains("Message too long") {
        return Some(format!(
            "{tool} raises its netlink send buffer only with SO_SNDBUFFORCE, which needs \
             CAP_NET_ADMIN in the initial user namespace, so its batch does not fit the \
             {} bytes (net.core.wmem_default) it gets here",
            wmem_default()
        ));
    }
    if msg.contains("insmod") || msg.contains("Table does not exist") {
        return Some(format!(
            "{tool} needs the kernel's x_tables modules (ip_tables, iptable_nat, \
             iptable_filter), which are not loaded, and only root in the initial namespace \
             can load them (modprobe iptable_nat iptable_filter)"
        ));
    }
    if msg.contains("ip_tables_names") || msg.contains("ip6_tables_names") {
        return Some(format!(
            "{tool} lists the tables from /proc/net/ip_tables_names, which this user \
             namespace may not read"
        ));
    }
    if msg.contains("Permission denied") || msg.contains("Operation not permitted") {
        return Some(format!(
            "the kernel refused {tool} what it asked for here (it needs CAP_NET_ADMIN over \
             the namespace's ruleset, or a file this user may not open)"
        ));
    }
    if msg.contains("cannot start") {
        return Some(format!("{tool} could not be started ({msg})"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::limit_in_words;

    #[test]
    fn known_limits_are_told_in_words() {
        let w = limit_in_words(
            "iptables-nft-restore",
            "iptables-nft-restore: sendmsg() failed: Message too long",
        )
        .unwrap();
        assert!(
            w.contains("SO_SNDBUFFORCE") && w.contains("wmem_default"),
            "{w}"
        );
        let w = limit_in_words(
            "iptables-legacy",
            "iptables v1.8.9 (legacy): can't initialize iptables table `nat': Table does not exist (do you need to insmod?)",
        )
        .unwrap();
        assert!(w.contains("modules"), "{w}");
        assert_eq!(limit_in_words("iptables-nft", "Bad rule"), None);
    }
}
