//! The option sections `iptables -m NAME -h` and `iptables -j NAME -h` print after the
//! general help, one per extension, in iptables 1.8.11's words (the revision iptnl sends).
//!
//! ```
//! use iptnl::ipt::ext::base::help;
//! use iptnl::ipt::ext::ExtKind;
//! use iptnl::ipt::IpFamily;
//! let text = help::help(ExtKind::Match, "cpu", IpFamily::V4).unwrap();
//! assert!(text.starts_with("cpu match options:\n"));
//! assert!(help::help(ExtKind::Match, "nosuch", IpFamily::V4).is_none());
//! ```

use super::api::ExtKind;
use crate::ipt::IpFamily;

/// The text `-j ACCEPT -h` (and DROP, RETURN) prints: the standard target's.
pub const STANDARD: &str =
    "standard match options:\n(If target is DROP, ACCEPT, RETURN or nothing)\n";

/// The option section of the extension `name` of `kind` for `family`, without the blank
/// line iptables prints before it; `None` for a name iptnl does not know.
pub fn help(kind: ExtKind, name: &str, family: IpFamily) -> Option<&'static str> {
    Some(match (kind, name, family) {
        (ExtKind::Match, "addrtype", _) => ADDRTYPE_M,
        (ExtKind::Match, "ah", IpFamily::V4) => AH_M_4,
        (ExtKind::Match, "ah", IpFamily::V6) => AH_M_6,
        (ExtKind::Match, "bpf", _) => BPF_M,
        (ExtKind::Match, "cgroup", _) => CGROUP_M,
        (ExtKind::Match, "cluster", _) => CLUSTER_M,
        (ExtKind::Match, "comment", _) => COMMENT_M,
        (ExtKind::Match, "connbytes", _) => CONNBYTES_M,
        (ExtKind::Match, "connlabel", _) => CONNLABEL_M,
        (ExtKind::Match, "connlimit", _) => CONNLIMIT_M,
        (ExtKind::Match, "connmark", _) => CONNMARK_M,
        (ExtKind::Match, "conntrack", _) => CONNTRACK_M,
        (ExtKind::Match, "cpu", _) => CPU_M,
        (ExtKind::Match, "dccp", _) => DCCP_M,
        (ExtKind::Match, "devgroup", _) => DEVGROUP_M,
        (ExtKind::Match, "dscp", _) => DSCP_M,
        (ExtKind::Match, "dst", _) => DST_M,
        (ExtKind::Match, "ecn", _) => ECN_M,
        (ExtKind::Match, "esp", _) => ESP_M,
        (ExtKind::Match, "eui64", _) => EUI64_M,
        (ExtKind::Match, "frag", _) => FRAG_M,
        (ExtKind::Match, "hashlimit", _) => HASHLIMIT_M,
        (ExtKind::Match, "hbh", _) => HBH_M,
        (ExtKind::Match, "helper", _) => HELPER_M,
        (ExtKind::Match, "hl", _) => HL_M,
        (ExtKind::Match, "icmp", _) => ICMP_M,
        (ExtKind::Match, "icmp6", _) => ICMP6_M,
        (ExtKind::Match, "ipcomp", _) => IPCOMP_M,
        (ExtKind::Match, "iprange", _) => IPRANGE_M,
        (ExtKind::Match, "ipv6header", _) => IPV6HEADER_M,
        (ExtKind::Match, "ipvs", _) => IPVS_M,
        (ExtKind::Match, "length", _) => LENGTH_M,
        (ExtKind::Match, "limit", _) => LIMIT_M,
        (ExtKind::Match, "mac", _) => MAC_M,
        (ExtKind::Match, "mark", _) => MARK_M,
        (ExtKind::Match, "mh", _) => MH_M,
        (ExtKind::Match, "multiport", _) => MULTIPORT_M,
        (ExtKind::Match, "nfacct", _) => NFACCT_M,
        (ExtKind::Match, "osf", _) => OSF_M,
        (ExtKind::Match, "owner", _) => OWNER_M,
        (ExtKind::Match, "physdev", _) => PHYSDEV_M,
        (ExtKind::Match, "pkttype", _) => PKTTYPE_M,
        (ExtKind::Match, "policy", _) => POLICY_M,
        (ExtKind::Match, "quota", _) => QUOTA_M,
        (ExtKind::Match, "quota2", _) => QUOTA2_M,
        (ExtKind::Match, "rateest", _) => RATEEST_M,
        (ExtKind::Match, "realm", _) => REALM_M,
        (ExtKind::Match, "recent", _) => RECENT_M,
        (ExtKind::Match, "rpfilter", _) => RPFILTER_M,
        (ExtKind::Match, "rt", _) => RT_M,
        (ExtKind::Match, "sctp", _) => SCTP_M,
        (ExtKind::Match, "set", _) => SET_M,
        (ExtKind::Match, "socket", _) => SOCKET_M,
        (ExtKind::Match, "srh", _) => SRH_M,
        (ExtKind::Match, "state", _) => STATE_M,
        (ExtKind::Match, "statistic", _) => STATISTIC_M,
        (ExtKind::Match, "string", _) => STRING_M,
        (ExtKind::Match, "tcp", _) => TCP_M,
        (ExtKind::Match, "tcpmss", _) => TCPMSS_M,
        (ExtKind::Match, "time", _) => TIME_M,
        (ExtKind::Match, "tos", _) => TOS_M,
        (ExtKind::Match, "ttl", _) => TTL_M,
        (ExtKind::Match, "u32", _) => U32_M,
        (ExtKind::Match, "udp", _) => UDP_M,
        (ExtKind::Target, "AUDIT", _) => AUDIT_T,
        (ExtKind::Target, "CHECKSUM", _) => CHECKSUM_T,
        (ExtKind::Target, "CLASSIFY", _) => CLASSIFY_T,
        (ExtKind::Target, "CLUSTERIP", _) => CLUSTERIP_T,
        (ExtKind::Target, "CONNMARK", _) => CONNMARK_T,
        (ExtKind::Target, "CONNSECMARK", _) => CONNSECMARK_T,
        (ExtKind::Target, "CT", _) => CT_T,
        (ExtKind::Target, "DNAT", _) => DNAT_T,
        (ExtKind::Target, "DNPT", _) => DNPT_T,
        (ExtKind::Target, "DSCP", _) => DSCP_T,
        (ExtKind::Target, "ECN", _) => ECN_T,
        (ExtKind::Target, "HL", _) => HL_T,
        (ExtKind::Target, "HMARK", _) => HMARK_T,
        (ExtKind::Target, "IDLETIMER", _) => IDLETIMER_T,
        (ExtKind::Target, "LED", _) => LED_T,
        (ExtKind::Target, "ULOG", IpFamily::V4) => ULOG_T,
        (ExtKind::Target, "LOG", _) => LOG_T,
        (ExtKind::Target, "MARK", _) => MARK_T,
        (ExtKind::Target, "MASQUERADE", _) => MASQUERADE_T,
        (ExtKind::Target, "NETMAP", _) => NETMAP_T,
        (ExtKind::Target, "NFLOG", _) => NFLOG_T,
        (ExtKind::Target, "NFQUEUE", _) => NFQUEUE_T,
        (ExtKind::Target, "NOTRACK", _) => NOTRACK_T,
        (ExtKind::Target, "RATEEST", _) => RATEEST_T,
        (ExtKind::Target, "REDIRECT", _) => REDIRECT_T,
        (ExtKind::Target, "REJECT", IpFamily::V4) => REJECT_T_4,
        (ExtKind::Target, "REJECT", IpFamily::V6) => REJECT_T_6,
        (ExtKind::Target, "SECMARK", _) => SECMARK_T,
        (ExtKind::Target, "SET", _) => SET_T,
        (ExtKind::Target, "SNAT", _) => SNAT_T,
        (ExtKind::Target, "SNPT", _) => SNPT_T,
        (ExtKind::Target, "SYNPROXY", _) => SYNPROXY_T,
        (ExtKind::Target, "TCPMSS", IpFamily::V4) => TCPMSS_T_4,
        (ExtKind::Target, "TCPMSS", IpFamily::V6) => TCPMSS_T_6,
        (ExtKind::Target, "TCPOPTSTRIP", _) => TCPOPTSTRIP_T,
        (ExtKind::Target, "TEE", _) => TEE_T,
        (ExtKind::Target, "TOS", _) => TOS_T,
        (ExtKind::Target, "TPROXY", _) => TPROXY_T,
        (ExtKind::Target, "TRACE", _) => TRACE_T,
        (ExtKind::Target, "TTL", _) => TTL_T,
        _ => return None,
    })
}

const ADDRTYPE_M: &str = "Address type match options:\n [!] --src-type type[,...]      Match source address type\n [!] --dst-type type[,...]      Match destination address type\n     --limit-iface-in           Match only on the packet's incoming device\n     --limit-iface-out          Match only on the packet's outgoing device\n\nValid types:           \n                                UNSPEC\n                                UNICAST\n                                LOCAL\n                                BROADCAST\n                                ANYCAST\n                                MULTICAST\n                                BLACKHOLE\n                                UNREACHABLE\n                                PROHIBIT\n                                THROW\n                                NAT\n                                XRESOLVE\n";

const AH_M_4: &str = "ah match options:\n[!] --ahspi spi[:spi]\n\t\t\t\tmatch spi (range)\n";

const AH_M_6: &str = "ah match options:\n[!] --ahspi spi[:spi]          match spi (range)\n[!] --ahlen length             total length of this header\n --ahres                       check the reserved field too\n";

const BPF_M: &str = "bpf match options:\n--bytecode <program>\t        : a bpf program as generated by\n                                 $(nfbpf_compile RAW '<filter>')\n--object-pinned <bpf object>\t: a path to a pinned BPF object in bpf fs\n";

const CGROUP_M: &str = "cgroup match options:\n[!] --path path                 Recursively match path relative to cgroup2 root\n[!] --cgroup classid            Match cgroup classid, can't be used with --path\n";

const CLUSTER_M: &str = "cluster match options:\n  --cluster-total-nodes <num>\t\tSet number of total nodes in cluster\n  [!] --cluster-local-node <num>\tSet the local node number\n  [!] --cluster-local-nodemask <num>\tSet the local node mask\n  --cluster-hash-seed <num>\t\tSet seed value of the Jenkins hash\n";

const COMMENT_M: &str =
    "comment match options:\n--comment COMMENT             Attach a comment to a rule\n";

const CONNBYTES_M: &str = "connbytes match options:\n [!] --connbytes from:[to]\n     --connbytes-dir [original, reply, both]\n     --connbytes-mode [packets, bytes, avgpkt]\n";

const CONNLABEL_M: &str = "connlabel match options:\n[!] --label name     Match if label has been set on connection\n    --set            Set label on connection\n";

const CONNLIMIT_M: &str = "connlimit match options:\n  --connlimit-upto n     match if the number of existing connections is 0..n\n  --connlimit-above n    match if the number of existing connections is >n\n  --connlimit-mask n     group hosts using prefix length (default: max len)\n  --connlimit-saddr      select source address for grouping\n  --connlimit-daddr      select destination addresses for grouping\n";

const CONNMARK_M: &str =
    "connmark match options:\n[!] --mark value[/mask]    Match ctmark value with optional mask\n";

const CONNTRACK_M: &str = "conntrack match options:\n[!] --ctstate {INVALID|ESTABLISHED|NEW|RELATED|UNTRACKED|SNAT|DNAT}[,...]\n                               State(s) to match\n[!] --ctproto proto            Protocol to match; by number or name, e.g. \"tcp\"\n[!] --ctorigsrc address[/mask]\n[!] --ctorigdst address[/mask]\n[!] --ctreplsrc address[/mask]\n[!] --ctrepldst address[/mask]\n                               Original/Reply source/destination address\n[!] --ctorigsrcport port\n[!] --ctorigdstport port\n[!] --ctreplsrcport port\n[!] --ctrepldstport port\n                               TCP/UDP/SCTP orig./reply source/destination port\n[!] --ctstatus {NONE|EXPECTED|SEEN_REPLY|ASSURED|CONFIRMED}[,...]\n                               Status(es) to match\n[!] --ctexpire time[:time]     Match remaining lifetime in seconds against\n                               value or range of values (inclusive)\n    --ctdir {ORIGINAL|REPLY}   Flow direction of packet\n";

const CPU_M: &str = "cpu match options:\n[!] --cpu number   Match CPU number\n";

const DCCP_M: &str = "dccp match options\n[!] --source-port port[:port]                          match source port(s)\n --sport ...\n[!] --destination-port port[:port]                     match destination port(s)\n --dport ...\n[!] --dccp-types type[,...]                            match when packet is one of the given types\n[!] --dccp-option option                               match if option (by number!) is set\n";

const DEVGROUP_M: &str = "devgroup match options:\n[!] --src-group value[/mask]\tMatch device group of incoming device\n[!] --dst-group value[/mask]\tMatch device group of outgoing device\n";

const DSCP_M: &str = "dscp match options\n[!] --dscp value\t\tMatch DSCP codepoint with numerical value\n  \t\t                This value can be in decimal (ex: 32)\n               \t\tor in hex (ex: 0x20)\n[!] --dscp-class name\t\tMatch the DiffServ class. This value may\n\t\t\t\tbe any of the BE,EF, AFxx or CSx classes\n\n\t\t\t\tThese two options are mutually exclusive !\n";

const DST_M: &str = "dst match options:\n[!] --dst-len length            total length of this header\n  --dst-opts TYPE[:LEN][,TYPE[:LEN]...]\n                                Options and its length (list, max: 16)\n";

const ECN_M: &str = "ECN match options\n[!] --ecn-tcp-cwr \t\tMatch CWR bit of TCP header\n[!] --ecn-tcp-ece\t\tMatch ECE bit of TCP header\n[!] --ecn-ip-ect [0..3]\tMatch ECN codepoint in IPv4/IPv6 header\n";

const ESP_M: &str = "esp match options:\n[!] --espspi spi[:spi]\n\t\t\t\tmatch spi (range)\n";

const EUI64_M: &str = "eui64 does not take any options\n";

const FRAG_M: &str = "frag match options:\n[!] --fragid id[:id]           match the id (range)\n[!] --fraglen length           total length of this header\n --fragres                     check the reserved field too\n --fragfirst                   matches on the first fragment\n [--fragmore|--fraglast]       there are more fragments or this\n                               is the last one\n";

const HASHLIMIT_M: &str = "hashlimit match options:\n  --hashlimit-upto <avg>           max average match rate\n                                   [Packets per second unless followed by \n                                   /sec /minute /hour /day postfixes]\n  --hashlimit-above <avg>          min average match rate\n  --hashlimit-mode <mode>          mode is a comma-separated list of\n                                   dstip,srcip,dstport,srcport (or none)\n  --hashlimit-srcmask <length>     source address grouping prefix length\n  --hashlimit-dstmask <length>     destination address grouping prefix length\n  --hashlimit-name <name>          name for /proc/net/ipt_hashlimit\n  --hashlimit-burst <num>\t    number to match in a burst, default 5\n  --hashlimit-htable-size <num>    number of hashtable buckets\n  --hashlimit-htable-max <num>     number of hashtable entries\n  --hashlimit-htable-gcinterval    interval between garbage collection runs\n  --hashlimit-htable-expire        after which time are idle entries expired?\n  --hashlimit-rate-match           rate match the flow without rate-limiting it\n  --hashlimit-rate-interval        interval in seconds for hashlimit-rate-match\n\n";

const HBH_M: &str = "hbh match options:\n[!] --hbh-len length            total length of this header\n  --hbh-opts TYPE[:LEN][,TYPE[:LEN]...] \n                                Options and its length (list, max: 16)\n";

const HELPER_M: &str =
    "helper match options:\n[!] --helper string        Match helper identified by string\n";

const HL_M: &str = "hl match options:\n[!] --hl-eq value\tMatch hop limit value\n  --hl-lt value\tMatch HL < value\n  --hl-gt value\tMatch HL > value\n";

const ICMP_M: &str = "icmp match options:\n[!] --icmp-type typename\tmatch icmp type\n[!] --icmp-type type[/code]\t(or numeric type or type/code)\nValid ICMP Types:\nany\necho-reply (pong)\ndestination-unreachable\n   network-unreachable\n   host-unreachable\n   protocol-unreachable\n   port-unreachable\n   fragmentation-needed\n   source-route-failed\n   network-unknown\n   host-unknown\n   network-prohibited\n   host-prohibited\n   TOS-network-unreachable\n   TOS-host-unreachable\n   communication-prohibited\n   host-precedence-violation\n   precedence-cutoff\nsource-quench\nredirect\n   network-redirect\n   host-redirect\n   TOS-network-redirect\n   TOS-host-redirect\necho-request (ping)\nrouter-advertisement\nrouter-solicitation\ntime-exceeded (ttl-exceeded)\n   ttl-zero-during-transit\n   ttl-zero-during-reassembly\nparameter-problem\n   ip-header-bad\n   required-option-missing\ntimestamp-request\ntimestamp-reply\naddress-mask-request\naddress-mask-reply\n";

const ICMP6_M: &str = "icmpv6 match options:\n[!] --icmpv6-type typename\tmatch icmpv6 type\n\t\t\t\t(or numeric type or type/code)\nValid ICMPv6 Types:\ndestination-unreachable\n   no-route\n   communication-prohibited\n   beyond-scope\n   address-unreachable\n   port-unreachable\n   failed-policy\n   reject-route\npacket-too-big\ntime-exceeded (ttl-exceeded)\n   ttl-zero-during-transit\n   ttl-zero-during-reassembly\nparameter-problem\n   bad-header\n   unknown-header-type\n   unknown-option\necho-request (ping)\necho-reply (pong)\nmld-listener-query\nmld-listener-report\nmld-listener-done (mld-listener-reduction)\nrouter-solicitation\nrouter-advertisement\nneighbour-solicitation (neighbor-solicitation)\nneighbour-advertisement (neighbor-advertisement)\nredirect\n";

const IPCOMP_M: &str =
    "comp match options:\n[!] --ipcompspi spi[:spi]\n\t\t\t\tmatch spi (range)\n";

const IPRANGE_M: &str = "iprange match options:\n[!] --src-range ip[-ip]    Match source IP in the specified range\n[!] --dst-range ip[-ip]    Match destination IP in the specified range\n";

const IPV6HEADER_M: &str = "ipv6header match options:\n[!] --header headers     Type of header to match, by name\n                         names: hop,dst,route,frag,auth,esp,none,prot\n                    long names: hop-by-hop,ipv6-opts,ipv6-route,\n                                ipv6-frag,ah,esp,ipv6-nonxt,protocol\n                       numbers: 0,60,43,44,51,50,59\n--soft                    The header CONTAINS the specified extensions\n";

const IPVS_M: &str = "IPVS match options:\n[!] --ipvs                      packet belongs to an IPVS connection\n\nAny of the following options implies --ipvs (even negated)\n[!] --vproto protocol           VIP protocol to match; by number or name,\n                                e.g. \"tcp\"\n[!] --vaddr address[/mask]      VIP address to match\n[!] --vport port                VIP port to match; by number or name,\n                                e.g. \"http\"\n    --vdir {ORIGINAL|REPLY}     flow direction of packet\n[!] --vmethod {GATE|IPIP|MASQ}  IPVS forwarding method used\n[!] --vportctl port             VIP port of the controlling connection to\n                                match, e.g. 21 for FTP\n";

const LENGTH_M: &str = "length match options:\n[!] --length length[:length]    Match packet length against value or range\n                                of values (inclusive)\n";

const LIMIT_M: &str = "limit match options:\n--limit avg\t\t\tmax average match rate: default 3/hour\n                                [Packets per second unless followed by \n                                /sec /minute /hour /day postfixes]\n--limit-burst number\t\tnumber to match in a burst, default 5\n";

const MAC_M: &str =
    "mac match options:\n[!] --mac-source XX:XX:XX:XX:XX:XX\n\t\t\t\tMatch source MAC address\n";

const MARK_M: &str =
    "mark match options:\n[!] --mark value[/mask]    Match nfmark value with optional mask\n";

const MH_M: &str = "mh match options:\n[!] --mh-type type[:type]\tmatch mh type\nValid MH types:\nbinding-refresh-request (brr)\nhome-test-init (hoti)\ncareof-test-init (coti)\nhome-test (hot)\ncareof-test (cot)\nbinding-update (bu)\nbinding-acknowledgement (ba)\nbinding-error (be)\n";

const MULTIPORT_M: &str = "multiport match options:\n[!] --source-ports port[,port:port,port...]\n --sports ...\n\t\t\t\tmatch source port(s)\n[!] --destination-ports port[,port:port,port...]\n --dports ...\n\t\t\t\tmatch destination port(s)\n[!] --ports port[,port:port,port]\n\t\t\t\tmatch both source and destination port(s)\n";

const NFACCT_M: &str = "nfacct match options:\n --nfacct-name STRING\t\tName of accouting area\n";

const OSF_M: &str = "OS fingerprint match options:\n[!] --genre string     Match a OS genre by passive fingerprinting.\n--ttl level            Use some TTL check extensions to determine OS:\n       0                       true ip and fingerprint TTL comparison. Works for LAN.\n       1                       check if ip TTL is less than fingerprint one. Works for global addresses.\n       2                       do not compare TTL at all. This allows NMAP detection, but can produce false results.\n--log level            Log determined genres into dmesg even if they do not match desired one:\n       0                       log all matched or unknown signatures.\n       1                       log only first one.\n       2                       log all known matched signatures.\n";

const OWNER_M: &str = "owner match options:\n[!] --uid-owner userid[-userid]      Match local UID\n[!] --gid-owner groupid[-groupid]    Match local GID\n[!] --socket-exists                  Match if socket exists\n    --suppl-groups                   Also match supplementary groups set with --gid-owner\n";

const PHYSDEV_M: &str = "physdev match options:\n [!] --physdev-in inputname[+]\t\tbridge port name ([+] for wildcard)\n [!] --physdev-out outputname[+]\tbridge port name ([+] for wildcard)\n [!] --physdev-is-in\t\t\tarrived on a bridge device\n [!] --physdev-is-out\t\t\twill leave on a bridge device\n [!] --physdev-is-bridged\t\tit's a bridged packet\n";

const PKTTYPE_M: &str = "pkttype match options:\n[!] --pkt-type packettype    match packet type\nValid packet types:\n\tunicast       \t\tto us\n\tbroadcast     \t\tto all\n\tmulticast     \t\tto group\n\totherhost     \t\tto someone else\n\n";

const POLICY_M: &str = "policy match options:\n  --dir in|out\t\t\tmatch policy applied during decapsulation/\n\t\t\t\tpolicy to be applied during encapsulation\n  --pol none|ipsec\t\tmatch policy\n  --strict \t\t\tmatch entire policy instead of single element\n\t\t\t\tat any position\nThese options may be used repeatedly, to describe policy elements:\n[!] --reqid reqid\t\tmatch reqid\n[!] --spi spi\t\t\tmatch SPI\n[!] --proto proto\t\tmatch protocol (ah/esp/ipcomp)\n[!] --mode mode \t\tmatch mode (transport/tunnel)\n[!] --tunnel-src addr/mask\tmatch tunnel source\n[!] --tunnel-dst addr/mask\tmatch tunnel destination\n  --next \t\t\tbegin next element in policy\n";

const QUOTA_M: &str = "quota match options:\n[!] --quota quota\t\tquota (bytes)\n";

const QUOTA2_M: &str = "quota match options:\n    --grow           provide an increasing counter\n    --no-change      never change counter/quota value for matching packets\n    --name name      name for the file in sysfs\n[!] --quota quota    initial quota (bytes or packets)\n    --packets        count packets instead of bytes\n";

const RATEEST_M: &str = "rateest match options:\n --rateest1 name\t\tRate estimator name\n --rateest2 name\t\tRate estimator name\n --rateest-delta\t\tCompare difference(s) to given rate(s)\n --rateest-bps1 [bps]\t\tCompare bps\n --rateest-pps1 [pps]\t\tCompare pps\n --rateest-bps2 [bps]\t\tCompare bps\n --rateest-pps2 [pps]\t\tCompare pps\n [!] --rateest-lt\t\tMatch if rate is less than given rate/estimator\n [!] --rateest-gt\t\tMatch if rate is greater than given rate/estimator\n [!] --rateest-eq\t\tMatch if rate is equal to given rate/estimator\n";

const REALM_M: &str = "realm match options:\n[!] --realm value[/mask]\n\t\t\t\tMatch realm\n";

const RECENT_M: &str = "recent match options:\n[!] --set                       Add source address to list, always matches.\n[!] --rcheck                    Match if source address in list.\n[!] --update                    Match if source address in list, also update last-seen time.\n[!] --remove                    Match if source address in list, also removes that address from list.\n    --seconds seconds           For check and update commands above.\n                                Specifies that the match will only occur if source address last seen within\n                                the last 'seconds' seconds.\n    --reap                      Purge entries older then 'seconds'.\n                                Can only be used in conjunction with the seconds option.\n    --hitcount hits             For check and update commands above.\n                                Specifies that the match will only occur if source address seen hits times.\n                                May be used in conjunction with the seconds option.\n    --rttl                      For check and update commands above.\n                                Specifies that the match will only occur if the source address and the TTL\n                                match between this packet and the one which was set.\n                                Useful if you have problems with people spoofing their source address in order\n                                to DoS you via this module.\n    --name name                 Name of the recent list to be used.  DEFAULT used if none given.\n    --rsource                   Match/Save the source address of each packet in the recent list table (default).\n    --rdest                     Match/Save the destination address of each packet in the recent list table.\n    --mask netmask              Netmask that will be applied to this recent list.\nxt_recent by: Stephen Frost <sfrost@snowman.net>.\n";

const RPFILTER_M: &str = "rpfilter match options:\n    --loose          permit reverse path via any interface\n    --validmark      use skb nfmark when performing route lookup\n    --accept-local   do not reject packets with a local source address\n    --invert         match packets that failed the reverse path test\n";

const RT_M: &str = "rt match options:\n[!] --rt-type type             match the type\n[!] --rt-segsleft num[:num]    match the Segments Left field (range)\n[!] --rt-len length            total length of this header\n --rt-0-res                    check the reserved field too (type 0)\n --rt-0-addrs ADDR[,ADDR...]   Type=0 addresses (list, max: 16)\n --rt-0-not-strict             List of Type=0 addresses not a strict list\n";

const SCTP_M: &str = "sctp match options\n[!] --source-port port[:port]                          match source port(s)\n --sport ...\n[!] --destination-port port[:port]                     match destination port(s)\n --dport ...\n[!] --chunk-types (all|any|none) (chunktype[:flags])+\tmatch if all, any or none of\n\t\t\t\t\t\t        chunktypes are present\nchunktypes - DATA INIT INIT_ACK SACK HEARTBEAT HEARTBEAT_ACK ABORT SHUTDOWN SHUTDOWN_ACK ERROR COOKIE_ECHO COOKIE_ACK ECN_ECNE ECN_CWR SHUTDOWN_COMPLETE I_DATA RE_CONFIG PAD ASCONF ASCONF_ACK FORWARD_TSN I_FORWARD_TSN ALL NONE\n";

const SET_M: &str = "set match options:\n [!] --match-set name flags [--return-nomatch]\n   [! --update-counters] [! --update-subcounters]\n   [[!] --packets-eq value | --packets-lt value | --packets-gt value\n   [[!] --bytes-eq value | --bytes-lt value | --bytes-gt value\n\t\t 'name' is the set name from to match,\n\t\t 'flags' are the comma separated list of\n\t\t 'src' and 'dst' specifications.\n";

const SOCKET_M: &str = "socket match options:\n  --nowildcard     Do not ignore LISTEN sockets bound on INADDR_ANY\n  --transparent    Ignore non-transparent sockets\n  --restore-skmark Set the packet mark to the socket mark if\n                   the socket matches and transparent / \n                   nowildcard conditions are satisfied\n\n";

const SRH_M: &str = "srh match options:\n[!] --srh-next-hdr\t\tnext-hdr        Next Header value of SRH\n[!] --srh-hdr-len-eq\t\thdr_len         Hdr Ext Len value of SRH\n[!] --srh-hdr-len-gt\t\thdr_len         Hdr Ext Len value of SRH\n[!] --srh-hdr-len-lt\t\thdr_len         Hdr Ext Len value of SRH\n[!] --srh-segs-left-eq\t\tsegs_left       Segments Left value of SRH\n[!] --srh-segs-left-gt\t\tsegs_left       Segments Left value of SRH\n[!] --srh-segs-left-lt\t\tsegs_left       Segments Left value of SRH\n[!] --srh-last-entry-eq \tlast_entry      Last Entry value of SRH\n[!] --srh-last-entry-gt \tlast_entry      Last Entry value of SRH\n[!] --srh-last-entry-lt \tlast_entry      Last Entry value of SRH\n[!] --srh-tag\t\t\ttag             Tag value of SRH\n[!] --srh-psid\t\t\taddr[/mask]\tSRH previous SID\n[!] --srh-nsid\t\t\taddr[/mask]\tSRH next SID\n[!] --srh-lsid\t\t\taddr[/mask]\tSRH Last SID\n";

const STATE_M: &str = "state match options:\n [!] --state [INVALID|ESTABLISHED|NEW|RELATED|UNTRACKED][,...]\n\t\t\t\tState(s) to match\n";

const STATISTIC_M: &str = "statistic match options:\n --mode mode                    Match mode (random, nth)\n random mode:\n[!] --probability p\t\t Probability\n nth mode:\n[!] --every n\t\t\t Match every nth packet\n --packet p\t\t\t Initial counter value (0 <= p <= n-1, default 0)\n";

const STRING_M: &str = "string match options:\n--from                       Offset to start searching from\n--to                         Offset to stop searching\n--algo                       Algorithm\n--icase                      Ignore case (default: 0)\n[!] --string string          Match a string in a packet\n[!] --hex-string string      Match a hex string in a packet\n";

const TCP_M: &str = "tcp match options:\n[!] --tcp-flags mask comp\tmatch when TCP flags & mask == comp\n\t\t\t\t(Flags: SYN ACK FIN RST URG PSH ALL NONE)\n[!] --syn\t\t\tmatch when only SYN flag set\n\t\t\t\t(equivalent to --tcp-flags SYN,RST,ACK,FIN SYN)\n[!] --source-port port[:port]\n --sport ...\n\t\t\t\tmatch source port(s)\n[!] --destination-port port[:port]\n --dport ...\n\t\t\t\tmatch destination port(s)\n[!] --tcp-option number        match if TCP option set\n";

const TCPMSS_M: &str = "tcpmss match options:\n[!] --mss value[:value]\tMatch TCP MSS range.\n\t\t\t\t(only valid for TCP SYN or SYN/ACK packets)\n";

const TIME_M: &str = "time match options:\n    --datestart time     Start and stop time, to be given in ISO 8601\n    --datestop time      (YYYY[-MM[-DD[Thh[:mm[:ss]]]]])\n    --timestart time     Start and stop daytime (hh:mm[:ss])\n    --timestop time      (between 00:00:00 and 23:59:59)\n[!] --monthdays value    List of days on which to match, separated by comma\n                         (Possible days: 1 to 31; defaults to all)\n[!] --weekdays value     List of weekdays on which to match, sep. by comma\n                         (Possible days: Mon,Tue,Wed,Thu,Fri,Sat,Sun or 1 to 7\n                         Defaults to all weekdays.)\n    --kerneltz           Work with the kernel timezone instead of UTC\n";

const TOS_M: &str = "tos match options:\n[!] --tos value[/mask]    Match Type of Service/Priority field value\n[!] --tos symbol          Match TOS field (IPv4 only) by symbol\n                          Accepted symbolic names for value are:\n                          (0x10) 16 Minimize-Delay\n                          (0x08)  8 Maximize-Throughput\n                          (0x04)  4 Maximize-Reliability\n                          (0x02)  2 Minimize-Cost\n                          (0x00)  0 Normal-Service\n\n";

const TTL_M: &str = "ttl match options:\n[!] --ttl-eq value\tMatch time to live value\n  --ttl-lt value\tMatch TTL < value\n  --ttl-gt value\tMatch TTL > value\n";

const U32_M: &str = "u32 match options:\n[!] --u32 tests\n\t\ttests := location \"=\" value | tests \"&&\" location \"=\" value\n\t\tvalue := range | value \",\" range\n\t\trange := number | number \":\" number\n\t\tlocation := number | location operator number\n\t\toperator := \"&\" | \"<<\" | \">>\" | \"@\"\n";

const UDP_M: &str = "udp match options:\n[!] --source-port port[:port]\n --sport ...\n\t\t\t\tmatch source port(s)\n[!] --destination-port port[:port]\n --dport ...\n\t\t\t\tmatch destination port(s)\n";

const AUDIT_T: &str = "AUDIT target options\n  --type TYPE\t\tAction type to be recorded.\n";

const CHECKSUM_T: &str =
    "CHECKSUM target options\n  --checksum-fill\t\t\tFill in packet checksum.\n";

const CLASSIFY_T: &str = "CLASSIFY target options:\n--set-class MAJOR:MINOR    Set skb->priority value (always hexadecimal!)\n";

const CLUSTERIP_T: &str = "CLUSTERIP target options:\n  --new\t\t\t Create a new ClusterIP\n  --hashmode <mode>\t\t Specify hashing mode\n\t\t\t\t\tsourceip\n\t\t\t\t\tsourceip-sourceport\n\t\t\t\t\tsourceip-sourceport-destport\n  --clustermac <mac>\t\t Set clusterIP MAC address\n  --total-nodes <num>\t\t Set number of total nodes in cluster\n  --local-node <num>\t\t Set the local node number\n  --hash-init <num>\t\t Set init value of the Jenkins hash\n";

const CONNMARK_T: &str = "CONNMARK target options:\n  --set-xmark value[/ctmask]    Zero mask bits and XOR ctmark with value\n  --save-mark [--ctmask mask] [--nfmask mask]\n                                Copy ctmark to nfmark using masks\n  --restore-mark [--ctmask mask] [--nfmask mask]\n                                Copy nfmark to ctmark using masks\n  --set-mark value[/mask]       Set conntrack mark value\n  --save-mark [--mask mask]     Save the packet nfmark in the connection\n  --restore-mark [--mask mask]  Restore saved nfmark value\n  --and-mark value              Binary AND the ctmark with bits\n  --or-mark value               Binary OR  the ctmark with bits\n  --xor-mark value              Binary XOR the ctmark with bits\n  --left-shift-mark value       Left shift the ctmark with bits\n  --right-shift-mark value      Right shift the ctmark with bits\n";

const CONNSECMARK_T: &str = "CONNSECMARK target options:\n  --save                   Copy security mark from packet to conntrack\n  --restore                Copy security mark from connection to packet\n";

const CT_T: &str = "CT target options:\n --notrack\t\t\tDon't track connection\n --helper name\t\t\tUse conntrack helper 'name' for connection\n --timeout name \t\tUse timeout policy 'name' for connection\n --ctevents event[,event...]\tGenerate specified conntrack events for connection\n --expevents event[,event...]\tGenerate specified expectation events for connection\n --zone {ID|mark}\t\tAssign/Lookup connection in zone ID/packet nfmark\n --zone-orig {ID|mark}\t\tSame as 'zone' option, but only applies to ORIGINAL direction\n --zone-reply {ID|mark} \tSame as 'zone' option, but only applies to REPLY direction\n";

const DNAT_T: &str = "DNAT target options:\n --to-destination [<ipaddr>[-<ipaddr>]][:port[-port[/port]]]\n\t\t\t\tAddress to map destination to.\n[--random] [--persistent]\n";

const DNPT_T: &str = "DNPT target options:\n --src-pfx prefix/length\n --dst-pfx prefix/length\n\n";

const DSCP_T: &str = "DSCP target options\n  --set-dscp value\t\tSet DSCP field in packet header to value\n  \t\t                This value can be in decimal (ex: 32)\n               \t\tor in hex (ex: 0x20)\n  --set-dscp-class class\tSet the DSCP field in packet header to the\n\t\t\t\tvalue represented by the DiffServ class value.\n\t\t\t\tThis class may be EF,BE or any of the CSxx\n\t\t\t\tor AFxx classes.\n\n\t\t\t\tThese two options are mutually exclusive !\n";

const ECN_T: &str =
    "ECN target options\n  --ecn-tcp-remove\t\tRemove all ECN bits from TCP header\n";

const HL_T: &str = "HL target options\n  --hl-set value\t\tSet HL to <value 0-255>\n  --hl-dec value\t\tDecrement HL by <value 1-255>\n  --hl-inc value\t\tIncrement HL by <value 1-255>\n";

const HMARK_T: &str = "HMARK target options, i.e. modify hash calculation by:\n  --hmark-tuple [src|dst|sport|dport|spi|proto|ct][,...]\n  --hmark-mod value\t\t    nfmark modulus value\n  --hmark-offset value\t\t    Last action add value to nfmark\n\n  --hmark-rnd\t\t\t    Random see for hashing\n Alternatively, fine tuning of what will be included in hash calculation\n  --hmark-src-prefix length\t    Source address mask CIDR prefix\n  --hmark-dst-prefix length\t    Dest address mask CIDR prefix\n  --hmark-sport-mask value\t    Mask src port with value\n  --hmark-dport-mask value\t    Mask dst port with value\n  --hmark-spi-mask value\t    For esp and ah AND spi with value\n  --hmark-sport value\t\t    OR src port with value\n  --hmark-dport value\t\t    OR dst port with value\n  --hmark-spi value\t\t    For esp and ah OR spi with value\n  --hmark-proto-mask value\t    Mask Protocol with value\n";

const IDLETIMER_T: &str = "IDLETIMER target options:\n --timeout time\tTimeout until the notification is sent (in seconds)\n --label string\tUnique rule identifier\n --alarm\tUse alarm instead of default timer\n --send_nl_msg\t\tEnable netlink messages and show remaining time in sysfs.\n\n";

const LED_T: &str = "LED target options:\n--led-trigger-id name           suffix for led trigger name\n--led-delay ms                  leave the LED on for this number of\n                                milliseconds after triggering.\n--led-always-blink              blink on arriving packets, even if\n                                the LED is already on.\n";

const ULOG_T: &str = "ULOG target options:\n --ulog-nlgroup nlgroup\t\tNETLINK group used for logging\n --ulog-cprange size\t\tBytes of each packet to be passed\n --ulog-qthreshold\t\tThreshold of in-kernel queue\n --ulog-prefix prefix\t\tPrefix log messages with this prefix.\n";

const LOG_T: &str = "LOG target options:\n --log-level level\t\tLevel of logging (numeric or see syslog.conf)\n --log-prefix prefix\t\tPrefix log messages with this prefix.\n --log-tcp-sequence\t\tLog TCP sequence numbers.\n --log-tcp-options\t\tLog TCP options.\n --log-ip-options\t\tLog IP options.\n --log-uid\t\t\tLog UID owning the local socket.\n --log-macdecode\t\tDecode MAC addresses and protocol.\n";

const MARK_T: &str = "MARK target options:\n  --set-xmark value[/mask]  Clear bits in mask and XOR value into nfmark\n  --set-mark value[/mask]   Clear bits in mask and OR value into nfmark\n  --and-mark bits           Binary AND the nfmark with bits\n  --or-mark bits            Binary OR the nfmark with bits\n  --xor-mark bits           Binary XOR the nfmark with bits\n";

const MASQUERADE_T: &str = "MASQUERADE target options:\n --to-ports <port>[-<port>]\n\t\t\t\tPort (range) to map to.\n --random\n\t\t\t\tRandomize source port.\n --random-fully\n\t\t\t\tFully randomize source port.\n";

const NETMAP_T: &str =
    "NETMAP target options:\n  --to address[/mask]\n\t\t\t\tNetwork address to map to.\n\n";

const NFLOG_T: &str = "NFLOG target options:\n --nflog-group NUM\t\tNETLINK group used for logging\n --nflog-range NUM\t\tThis option has no effect, use --nflog-size\n --nflog-size NUM\t\tNumber of bytes to copy\n --nflog-threshold NUM\t\tMessage threshold of in-kernel queue\n --nflog-prefix STRING\t\tPrefix string for log messages\n";

const NFQUEUE_T: &str = "NFQUEUE target options\n  --queue-num value            Send packet to QUEUE number <value>.\n                               Valid queue numbers are 0-65535\n  --queue-balance first:last   Balance flows between queues <value> to <value>.\n  --queue-bypass               Bypass Queueing if no queue instance exists.\n  --queue-cpu-fanout\tUse current CPU (no hashing)\n";

const NOTRACK_T: &str = "NOTRACK does not take any options\n";

const RATEEST_T: &str = "RATEEST target options:\n  --rateest-name name\t\tRate estimator name\n  --rateest-interval sec\tRate measurement interval in seconds\n  --rateest-ewmalog value\tRate measurement averaging time constant\n";

const REDIRECT_T: &str = "REDIRECT target options:\n --to-ports <port>[-<port>]\n\t\t\t\tPort (range) to map to.\n [--random]\n";

const REJECT_T_4: &str = "REJECT target options:\n--reject-with type              drop input packet and send back\n                                a reply packet according to type:\nValid reject types:\n    icmp-net-unreachable     \tICMP network unreachable\n    net-unreach              \talias\n    icmp-host-unreachable    \tICMP host unreachable\n    host-unreach             \talias\n    icmp-proto-unreachable   \tICMP protocol unreachable\n    proto-unreach            \talias\n    icmp-port-unreachable    \tICMP port unreachable (default)\n    port-unreach             \talias\n    icmp-net-prohibited      \tICMP network prohibited\n    net-prohib               \talias\n    icmp-host-prohibited     \tICMP host prohibited\n    host-prohib              \talias\n    tcp-reset                \tTCP RST packet\n    tcp-rst                  \talias\n    icmp-admin-prohibited    \tICMP administratively prohibited (*)\n    admin-prohib             \talias\n\n(*) See man page or read the INCOMPATIBILITES file for compatibility issues.\n";

const REJECT_T_6: &str = "REJECT target options:\n--reject-with type              drop input packet and send back\n                                a reply packet according to type:\nValid reject types:\n    icmp6-no-route           \tICMPv6 no route\n    no-route                 \talias\n    icmp6-adm-prohibited     \tICMPv6 administratively prohibited\n    adm-prohibited           \talias\n    icmp6-addr-unreachable   \tICMPv6 address unreachable\n    addr-unreach             \talias\n    icmp6-port-unreachable   \tICMPv6 port unreachable\n    port-unreach             \talias\n    tcp-reset                \tTCP RST packet\n    tcp-reset                \talias\n    icmp6-policy-fail        \tICMPv6 policy fail\n    policy-fail              \talias\n    icmp6-reject-route       \tICMPv6 reject route\n    reject-route             \talias\n\n";

const SECMARK_T: &str = "SECMARK target options:\n  --selctx value                     Set the SELinux security context\n";

const SET_T: &str = "SET target options:\n --add-set name flags [--exist] [--timeout n]\n --del-set name flags\n --map-set name flags [--map-mark] [--map-prio] [--map-queue]\n\t\tadd/del src/dst IP/port from/to named sets,\n\t\twhere flags are the comma separated list of\n\t\t'src' and 'dst' specifications.\n";

const SNAT_T: &str = "SNAT target options:\n --to-source [<ipaddr>[-<ipaddr>]][:port[-port]]\n\t\t\t\tAddress to map source to.\n[--random] [--random-fully] [--persistent]\n";

const SNPT_T: &str = "SNPT target options:\n --src-pfx prefix/length\n --dst-pfx prefix/length\n\n";

const SYNPROXY_T: &str = "SYNPROXY target options:\n  --sack-perm                        Set SACK_PERM\n  --timestamp                        Set TIMESTAMP\n  --wscale value                     Set window scaling factor\n  --mss value                        Set MSS value\n  --ecn                              Set ECN\n";

const TCPMSS_T_4: &str = "TCPMSS target mutually-exclusive options:\n  --set-mss value               explicitly set MSS option to specified value\n  --clamp-mss-to-pmtu           automatically clamp MSS value to (path_MTU - 20)\n";

const TCPMSS_T_6: &str = "TCPMSS target mutually-exclusive options:\n  --set-mss value               explicitly set MSS option to specified value\n  --clamp-mss-to-pmtu           automatically clamp MSS value to (path_MTU - 40)\n";

const TCPOPTSTRIP_T: &str = "TCPOPTSTRIP target options:\n  --strip-options value     strip specified TCP options denoted by value\n                            (separated by comma) from TCP header\n  Instead of the numeric value, you can also use the following names:\n    wscale            strip \"Window scale\" option\n    mss               strip \"Maximum Segment Size\" option\n    sack-permitted    strip \"SACK permitted\" option\n    sack              strip \"Selective ACK\" option\n    timestamp         strip \"Timestamp\" option\n    md5               strip \"MD5 signature\" option\n";

const TEE_T: &str = "TEE target options:\n  --gateway IPADDR    Route packet via the gateway given by address\n  --oif NAME          Include oif in route calculation\n\n";

const TOS_T: &str = "TOS target vlibxtables.so.12 options:\n  --set-tos value[/mask]  Set Type of Service/Priority field to value\n                          (Zero out bits in mask and XOR value into TOS)\n  --set-tos symbol        Set TOS field (IPv4 only) by symbol\n                          (this zeroes the 4-bit Precedence part!)\n                          Accepted symbolic names for value are:\n                            (0x10) 16 Minimize-Delay\n                            (0x08)  8 Maximize-Throughput\n                            (0x04)  4 Maximize-Reliability\n                            (0x02)  2 Minimize-Cost\n                            (0x00)  0 Normal-Service\n\n  --and-tos bits          Binary AND the TOS value with bits\n  --or-tos  bits          Binary OR the TOS value with bits\n  --xor-tos bits          Binary XOR the TOS value with bits\n";

const TPROXY_T: &str = "TPROXY target options:\n  --on-port port\t\t    Redirect connection to port, or the original port if 0\n  --on-ip ip\t\t\t    Optionally redirect to the given IP\n  --tproxy-mark value[/mask]\t    Mark packets with the given value/mask\n\n";

const TRACE_T: &str = "TRACE does not take any options\n";

const TTL_T: &str = "TTL target options\n  --ttl-set value\t\tSet TTL to <value 0-255>\n  --ttl-dec value\t\tDecrement TTL by <value 1-255>\n  --ttl-inc value\t\tIncrement TTL by <value 1-255>\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texts_of_1_8_11() {
        let h = |k, n, f| help(k, n, f).unwrap();
        assert!(h(ExtKind::Match, "sctp", IpFamily::V4).contains(" I_DATA RE_CONFIG PAD "));
        assert!(h(ExtKind::Target, "IDLETIMER", IpFamily::V6).contains(" --send_nl_msg\t"));
        assert!(h(ExtKind::Match, "icmp6", IpFamily::V6)
            .ends_with("mld-listener-done (mld-listener-reduction)\nrouter-solicitation\nrouter-advertisement\nneighbour-solicitation (neighbor-solicitation)\nneighbour-advertisement (neighbor-advertisement)\nredirect\n"));
    }

    #[test]
    fn every_extension_has_its_help() {
        for d in crate::ipt::ext::all() {
            let fams = match d.family {
                Some(f) => vec![f],
                None => vec![IpFamily::V4, IpFamily::V6],
            };
            for f in fams {
                let h = help(d.kind, d.name, f);
                assert!(h.is_some_and(|t| t.ends_with('\n')), "{} {:?}", d.name, f);
            }
        }
    }
}
