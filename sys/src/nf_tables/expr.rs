//! The attributes of the expressions and the values they carry.

// enum nft_expr_attributes
/// `NFTA_EXPR_UNSPEC` from `nft_expr_attributes`.
pub const NFTA_EXPR_UNSPEC: u16 = 0;
/// name of the expression type (NLA_STRING)
pub const NFTA_EXPR_NAME: u16 = 1;
/// type specific data (NLA_NESTED)
pub const NFTA_EXPR_DATA: u16 = 2;

// enum nft_immediate_attributes
/// `NFTA_IMMEDIATE_UNSPEC` from `nft_immediate_attributes`.
pub const NFTA_IMMEDIATE_UNSPEC: u16 = 0;
/// destination register to load data into (NLA_U32)
pub const NFTA_IMMEDIATE_DREG: u16 = 1;
/// data to load (NLA_NESTED: nft_data_attributes)
pub const NFTA_IMMEDIATE_DATA: u16 = 2;

// enum nft_bitwise_ops
/// mask-and-xor operation used to implement NOT, AND, OR and XOR boolean operations
pub const NFT_BITWISE_MASK_XOR: u32 = 0;
/// left-shift operation
pub const NFT_BITWISE_LSHIFT: u32 = 1;
/// right-shift operation
pub const NFT_BITWISE_RSHIFT: u32 = 2;

// enum nft_bitwise_attributes
/// `NFTA_BITWISE_UNSPEC` from `nft_bitwise_attributes`.
pub const NFTA_BITWISE_UNSPEC: u16 = 0;
/// source register (NLA_U32: nft_registers)
pub const NFTA_BITWISE_SREG: u16 = 1;
/// destination register (NLA_U32: nft_registers)
pub const NFTA_BITWISE_DREG: u16 = 2;
/// length of operands (NLA_U32)
pub const NFTA_BITWISE_LEN: u16 = 3;
/// mask value (NLA_NESTED: nft_data_attributes)
pub const NFTA_BITWISE_MASK: u16 = 4;
/// xor value (NLA_NESTED: nft_data_attributes)
pub const NFTA_BITWISE_XOR: u16 = 5;
/// type of operation (NLA_U32: nft_bitwise_ops)
pub const NFTA_BITWISE_OP: u16 = 6;
/// argument for non-boolean operations (NLA_NESTED: nft_data_attributes)
pub const NFTA_BITWISE_DATA: u16 = 7;

// enum nft_byteorder_ops
/// network to host operator
pub const NFT_BYTEORDER_NTOH: u32 = 0;
/// host to network operator
pub const NFT_BYTEORDER_HTON: u32 = 1;

// enum nft_byteorder_attributes
/// `NFTA_BYTEORDER_UNSPEC` from `nft_byteorder_attributes`.
pub const NFTA_BYTEORDER_UNSPEC: u16 = 0;
/// source register (NLA_U32: nft_registers)
pub const NFTA_BYTEORDER_SREG: u16 = 1;
/// destination register (NLA_U32: nft_registers)
pub const NFTA_BYTEORDER_DREG: u16 = 2;
/// operator (NLA_U32: enum nft_byteorder_ops)
pub const NFTA_BYTEORDER_OP: u16 = 3;
/// length of the data (NLA_U32)
pub const NFTA_BYTEORDER_LEN: u16 = 4;
/// data size in bytes (NLA_U32: 2 or 4)
pub const NFTA_BYTEORDER_SIZE: u16 = 5;

// enum nft_cmp_ops
/// equal
pub const NFT_CMP_EQ: u32 = 0;
/// not equal
pub const NFT_CMP_NEQ: u32 = 1;
/// less than
pub const NFT_CMP_LT: u32 = 2;
/// less than or equal to
pub const NFT_CMP_LTE: u32 = 3;
/// greater than
pub const NFT_CMP_GT: u32 = 4;
/// greater than or equal to
pub const NFT_CMP_GTE: u32 = 5;

// enum nft_cmp_attributes
/// `NFTA_CMP_UNSPEC` from `nft_cmp_attributes`.
pub const NFTA_CMP_UNSPEC: u16 = 0;
/// source register of data to compare (NLA_U32: nft_registers)
pub const NFTA_CMP_SREG: u16 = 1;
/// cmp operation (NLA_U32: nft_cmp_ops)
pub const NFTA_CMP_OP: u16 = 2;
/// data to compare against (NLA_NESTED: nft_data_attributes)
pub const NFTA_CMP_DATA: u16 = 3;

// enum nft_range_ops
/// equal
pub const NFT_RANGE_EQ: u32 = 0;
/// not equal
pub const NFT_RANGE_NEQ: u32 = 1;

// enum nft_range_attributes
/// `NFTA_RANGE_UNSPEC` from `nft_range_attributes`.
pub const NFTA_RANGE_UNSPEC: u16 = 0;
/// source register of data to compare (NLA_U32: nft_registers)
pub const NFTA_RANGE_SREG: u16 = 1;
/// cmp operation (NLA_U32: nft_cmp_ops)
pub const NFTA_RANGE_OP: u16 = 2;
/// data range from (NLA_NESTED: nft_data_attributes)
pub const NFTA_RANGE_FROM_DATA: u16 = 3;
/// data range to (NLA_NESTED: nft_data_attributes)
pub const NFTA_RANGE_TO_DATA: u16 = 4;

// enum nft_lookup_flags
/// `NFT_LOOKUP_F_INV` from `nft_lookup_flags`.
pub const NFT_LOOKUP_F_INV: u32 = 1;

// enum nft_lookup_attributes
/// `NFTA_LOOKUP_UNSPEC` from `nft_lookup_attributes`.
pub const NFTA_LOOKUP_UNSPEC: u16 = 0;
/// name of the set where to look for (NLA_STRING)
pub const NFTA_LOOKUP_SET: u16 = 1;
/// source register of the data to look for (NLA_U32: nft_registers)
pub const NFTA_LOOKUP_SREG: u16 = 2;
/// destination register (NLA_U32: nft_registers)
pub const NFTA_LOOKUP_DREG: u16 = 3;
/// uniquely identifies a set in a transaction (NLA_U32)
pub const NFTA_LOOKUP_SET_ID: u16 = 4;
/// flags (NLA_U32: enum nft_lookup_flags)
pub const NFTA_LOOKUP_FLAGS: u16 = 5;

// enum nft_dynset_ops
/// `NFT_DYNSET_OP_ADD` from `nft_dynset_ops`.
pub const NFT_DYNSET_OP_ADD: u32 = 0;
/// `NFT_DYNSET_OP_UPDATE` from `nft_dynset_ops`.
pub const NFT_DYNSET_OP_UPDATE: u32 = 1;
/// `NFT_DYNSET_OP_DELETE` from `nft_dynset_ops`.
pub const NFT_DYNSET_OP_DELETE: u32 = 2;

// enum nft_dynset_flags
/// `NFT_DYNSET_F_INV` from `nft_dynset_flags`.
pub const NFT_DYNSET_F_INV: u32 = 1;
/// `NFT_DYNSET_F_EXPR` from `nft_dynset_flags`.
pub const NFT_DYNSET_F_EXPR: u32 = 2;

// enum nft_dynset_attributes
/// `NFTA_DYNSET_UNSPEC` from `nft_dynset_attributes`.
pub const NFTA_DYNSET_UNSPEC: u16 = 0;
/// name of set the to add data to (NLA_STRING)
pub const NFTA_DYNSET_SET_NAME: u16 = 1;
/// uniquely identifier of the set in the transaction (NLA_U32)
pub const NFTA_DYNSET_SET_ID: u16 = 2;
/// operation (NLA_U32)
pub const NFTA_DYNSET_OP: u16 = 3;
/// source register of the key (NLA_U32)
pub const NFTA_DYNSET_SREG_KEY: u16 = 4;
/// source register of the data (NLA_U32)
pub const NFTA_DYNSET_SREG_DATA: u16 = 5;
/// timeout value for the new element (NLA_U64)
pub const NFTA_DYNSET_TIMEOUT: u16 = 6;
/// expression (NLA_NESTED: nft_expr_attributes)
pub const NFTA_DYNSET_EXPR: u16 = 7;
/// `NFTA_DYNSET_PAD` from `nft_dynset_attributes`.
pub const NFTA_DYNSET_PAD: u16 = 8;
/// flags (NLA_U32)
pub const NFTA_DYNSET_FLAGS: u16 = 9;
/// list of expressions (NLA_NESTED: nft_list_attributes)
pub const NFTA_DYNSET_EXPRESSIONS: u16 = 10;

// enum nft_payload_bases
/// link layer header
pub const NFT_PAYLOAD_LL_HEADER: u32 = 0;
/// network header
pub const NFT_PAYLOAD_NETWORK_HEADER: u32 = 1;
/// transport header
pub const NFT_PAYLOAD_TRANSPORT_HEADER: u32 = 2;
/// inner header / payload
pub const NFT_PAYLOAD_INNER_HEADER: u32 = 3;

// enum nft_payload_csum_types
/// no checksumming
pub const NFT_PAYLOAD_CSUM_NONE: u32 = 0;
/// internet checksum (RFC 791)
pub const NFT_PAYLOAD_CSUM_INET: u32 = 1;
/// CRC-32c, for use in SCTP header (RFC 3309)
pub const NFT_PAYLOAD_CSUM_SCTP: u32 = 2;

// enum nft_payload_csum_flags
/// `NFT_PAYLOAD_L4CSUM_PSEUDOHDR` from `nft_payload_csum_flags`.
pub const NFT_PAYLOAD_L4CSUM_PSEUDOHDR: u32 = 1;

// enum nft_payload_attributes
/// `NFTA_PAYLOAD_UNSPEC` from `nft_payload_attributes`.
pub const NFTA_PAYLOAD_UNSPEC: u16 = 0;
/// destination register to load data into (NLA_U32: nft_registers)
pub const NFTA_PAYLOAD_DREG: u16 = 1;
/// payload base (NLA_U32: nft_payload_bases)
pub const NFTA_PAYLOAD_BASE: u16 = 2;
/// payload offset relative to base (NLA_U32)
pub const NFTA_PAYLOAD_OFFSET: u16 = 3;
/// payload length (NLA_U32)
pub const NFTA_PAYLOAD_LEN: u16 = 4;
/// source register to load data from (NLA_U32: nft_registers)
pub const NFTA_PAYLOAD_SREG: u16 = 5;
/// checksum type (NLA_U32)
pub const NFTA_PAYLOAD_CSUM_TYPE: u16 = 6;
/// checksum offset relative to base (NLA_U32)
pub const NFTA_PAYLOAD_CSUM_OFFSET: u16 = 7;
/// checksum flags (NLA_U32)
pub const NFTA_PAYLOAD_CSUM_FLAGS: u16 = 8;

// enum nft_exthdr_flags
/// `NFT_EXTHDR_F_PRESENT` from `nft_exthdr_flags`.
pub const NFT_EXTHDR_F_PRESENT: u32 = 1;

// enum nft_exthdr_op
/// match against ipv6 extension headers
pub const NFT_EXTHDR_OP_IPV6: u32 = 0;
/// `NFT_EXTHDR_OP_TCPOPT` from `nft_exthdr_op`.
pub const NFT_EXTHDR_OP_TCPOPT: u32 = 1;
/// match against ipv4 options
pub const NFT_EXTHDR_OP_IPV4: u32 = 2;
/// match against sctp chunks
pub const NFT_EXTHDR_OP_SCTP: u32 = 3;
/// match against dccp otions
pub const NFT_EXTHDR_OP_DCCP: u32 = 4;

// enum nft_exthdr_attributes
/// `NFTA_EXTHDR_UNSPEC` from `nft_exthdr_attributes`.
pub const NFTA_EXTHDR_UNSPEC: u16 = 0;
/// destination register (NLA_U32: nft_registers)
pub const NFTA_EXTHDR_DREG: u16 = 1;
/// extension header type (NLA_U8)
pub const NFTA_EXTHDR_TYPE: u16 = 2;
/// extension header offset (NLA_U32)
pub const NFTA_EXTHDR_OFFSET: u16 = 3;
/// extension header length (NLA_U32)
pub const NFTA_EXTHDR_LEN: u16 = 4;
/// extension header flags (NLA_U32)
pub const NFTA_EXTHDR_FLAGS: u16 = 5;
/// option match type (NLA_U32)
pub const NFTA_EXTHDR_OP: u16 = 6;
/// option match type (NLA_U32)
pub const NFTA_EXTHDR_SREG: u16 = 7;

// enum nft_meta_keys
/// packet length (skb->len)
pub const NFT_META_LEN: u32 = 0;
/// packet ethertype protocol (skb->protocol), invalid in OUTPUT
pub const NFT_META_PROTOCOL: u32 = 1;
/// packet priority (skb->priority)
pub const NFT_META_PRIORITY: u32 = 2;
/// packet mark (skb->mark)
pub const NFT_META_MARK: u32 = 3;
/// packet input interface index (dev->ifindex)
pub const NFT_META_IIF: u32 = 4;
/// packet output interface index (dev->ifindex)
pub const NFT_META_OIF: u32 = 5;
/// packet input interface name (dev->name)
pub const NFT_META_IIFNAME: u32 = 6;
/// packet output interface name (dev->name)
pub const NFT_META_OIFNAME: u32 = 7;
/// `NFT_META_IFTYPE` from `nft_meta_keys`.
pub const NFT_META_IFTYPE: u32 = 8;
/// packet output interface type (dev->type)
pub const NFT_META_OIFTYPE: u32 = 9;
/// originating socket UID (fsuid)
pub const NFT_META_SKUID: u32 = 10;
/// originating socket GID (fsgid)
pub const NFT_META_SKGID: u32 = 11;
/// packet nftrace bit
pub const NFT_META_NFTRACE: u32 = 12;
/// realm value of packet's route (skb->dst->tclassid)
pub const NFT_META_RTCLASSID: u32 = 13;
/// packet secmark (skb->secmark)
pub const NFT_META_SECMARK: u32 = 14;
/// netfilter protocol
pub const NFT_META_NFPROTO: u32 = 15;
/// layer 4 protocol number
pub const NFT_META_L4PROTO: u32 = 16;
/// packet input bridge interface name
pub const NFT_META_BRI_IIFNAME: u32 = 17;
/// packet output bridge interface name
pub const NFT_META_BRI_OIFNAME: u32 = 18;
/// packet type (skb->pkt_type), special handling for loopback
pub const NFT_META_PKTTYPE: u32 = 19;
/// cpu id through smp_processor_id()
pub const NFT_META_CPU: u32 = 20;
/// packet input interface group
pub const NFT_META_IIFGROUP: u32 = 21;
/// packet output interface group
pub const NFT_META_OIFGROUP: u32 = 22;
/// socket control group (skb->sk->sk_classid)
pub const NFT_META_CGROUP: u32 = 23;
/// a 32bit pseudo-random number
pub const NFT_META_PRANDOM: u32 = 24;
/// boolean, secpath_exists (!!skb->sp)
pub const NFT_META_SECPATH: u32 = 25;
/// packet input interface kind name (dev->rtnl_link_ops->kind)
pub const NFT_META_IIFKIND: u32 = 26;
/// packet output interface kind name (dev->rtnl_link_ops->kind)
pub const NFT_META_OIFKIND: u32 = 27;
/// packet input bridge port pvid
pub const NFT_META_BRI_IIFPVID: u32 = 28;
/// packet input bridge vlan proto
pub const NFT_META_BRI_IIFVPROTO: u32 = 29;
/// time since epoch (in nanoseconds)
pub const NFT_META_TIME_NS: u32 = 30;
/// day of week (from 0 = Sunday to 6 = Saturday)
pub const NFT_META_TIME_DAY: u32 = 31;
/// hour of day (in seconds)
pub const NFT_META_TIME_HOUR: u32 = 32;
/// slave device interface index
pub const NFT_META_SDIF: u32 = 33;
/// slave device interface name
pub const NFT_META_SDIFNAME: u32 = 34;

// enum nft_rt_keys
/// realm value of packet's route (skb->dst->tclassid)
pub const NFT_RT_CLASSID: u32 = 0;
/// routing nexthop for IPv4
pub const NFT_RT_NEXTHOP4: u32 = 1;
/// routing nexthop for IPv6
pub const NFT_RT_NEXTHOP6: u32 = 2;
/// fetch current path tcp mss
pub const NFT_RT_TCPMSS: u32 = 3;
/// boolean, skb->dst->xfrm != NULL
pub const NFT_RT_XFRM: u32 = 4;

// enum nft_hash_types
/// Jenkins Hash
pub const NFT_HASH_JENKINS: u32 = 0;
/// Symmetric Hash
pub const NFT_HASH_SYM: u32 = 1;

// enum nft_hash_attributes
/// `NFTA_HASH_UNSPEC` from `nft_hash_attributes`.
pub const NFTA_HASH_UNSPEC: u16 = 0;
/// source register (NLA_U32)
pub const NFTA_HASH_SREG: u16 = 1;
/// destination register (NLA_U32)
pub const NFTA_HASH_DREG: u16 = 2;
/// source data length (NLA_U32)
pub const NFTA_HASH_LEN: u16 = 3;
/// modulus value (NLA_U32)
pub const NFTA_HASH_MODULUS: u16 = 4;
/// seed value (NLA_U32)
pub const NFTA_HASH_SEED: u16 = 5;
/// add this offset value to hash result (NLA_U32)
pub const NFTA_HASH_OFFSET: u16 = 6;
/// hash operation (NLA_U32: nft_hash_types)
pub const NFTA_HASH_TYPE: u16 = 7;
/// name of the map to lookup (NLA_STRING)
pub const NFTA_HASH_SET_NAME: u16 = 8;
/// id of the map (NLA_U32)
pub const NFTA_HASH_SET_ID: u16 = 9;

// enum nft_meta_attributes
/// `NFTA_META_UNSPEC` from `nft_meta_attributes`.
pub const NFTA_META_UNSPEC: u16 = 0;
/// destination register (NLA_U32)
pub const NFTA_META_DREG: u16 = 1;
/// meta data item to load (NLA_U32: nft_meta_keys)
pub const NFTA_META_KEY: u16 = 2;
/// source register (NLA_U32)
pub const NFTA_META_SREG: u16 = 3;

// enum nft_rt_attributes
/// `NFTA_RT_UNSPEC` from `nft_rt_attributes`.
pub const NFTA_RT_UNSPEC: u16 = 0;
/// destination register (NLA_U32)
pub const NFTA_RT_DREG: u16 = 1;
/// routing data item to load (NLA_U32: nft_rt_keys)
pub const NFTA_RT_KEY: u16 = 2;

// enum nft_socket_attributes
/// `NFTA_SOCKET_UNSPEC` from `nft_socket_attributes`.
pub const NFTA_SOCKET_UNSPEC: u16 = 0;
/// socket key to match
pub const NFTA_SOCKET_KEY: u16 = 1;
/// destination register
pub const NFTA_SOCKET_DREG: u16 = 2;
/// cgroups2 ancestor level (only for cgroupsv2)
pub const NFTA_SOCKET_LEVEL: u16 = 3;

// enum nft_socket_keys
/// `NFT_SOCKET_TRANSPARENT` from `nft_socket_keys`.
pub const NFT_SOCKET_TRANSPARENT: u32 = 0;
/// `NFT_SOCKET_MARK` from `nft_socket_keys`.
pub const NFT_SOCKET_MARK: u32 = 1;
/// `NFT_SOCKET_WILDCARD` from `nft_socket_keys`.
pub const NFT_SOCKET_WILDCARD: u32 = 2;
/// `NFT_SOCKET_CGROUPV2` from `nft_socket_keys`.
pub const NFT_SOCKET_CGROUPV2: u32 = 3;

// enum nft_ct_keys
/// conntrack state (bitmask of enum ip_conntrack_info)
pub const NFT_CT_STATE: u32 = 0;
/// conntrack direction (enum ip_conntrack_dir)
pub const NFT_CT_DIRECTION: u32 = 1;
/// conntrack status (bitmask of enum ip_conntrack_status)
pub const NFT_CT_STATUS: u32 = 2;
/// conntrack mark value
pub const NFT_CT_MARK: u32 = 3;
/// conntrack secmark value
pub const NFT_CT_SECMARK: u32 = 4;
/// relative conntrack expiration time in ms
pub const NFT_CT_EXPIRATION: u32 = 5;
/// connection tracking helper assigned to conntrack
pub const NFT_CT_HELPER: u32 = 6;
/// conntrack layer 3 protocol
pub const NFT_CT_L3PROTOCOL: u32 = 7;
/// conntrack layer 3 protocol source (IPv4/IPv6 address, deprecated)
pub const NFT_CT_SRC: u32 = 8;
/// conntrack layer 3 protocol destination (IPv4/IPv6 address, deprecated)
pub const NFT_CT_DST: u32 = 9;
/// conntrack layer 4 protocol
pub const NFT_CT_PROTOCOL: u32 = 10;
/// conntrack layer 4 protocol source
pub const NFT_CT_PROTO_SRC: u32 = 11;
/// conntrack layer 4 protocol destination
pub const NFT_CT_PROTO_DST: u32 = 12;
/// conntrack labels
pub const NFT_CT_LABELS: u32 = 13;
/// conntrack packets
pub const NFT_CT_PKTS: u32 = 14;
/// conntrack bytes
pub const NFT_CT_BYTES: u32 = 15;
/// conntrack average bytes per packet
pub const NFT_CT_AVGPKT: u32 = 16;
/// conntrack zone
pub const NFT_CT_ZONE: u32 = 17;
/// ctnetlink events to be generated for this conntrack
pub const NFT_CT_EVENTMASK: u32 = 18;
/// conntrack layer 3 protocol source (IPv4 address)
pub const NFT_CT_SRC_IP: u32 = 19;
/// conntrack layer 3 protocol destination (IPv4 address)
pub const NFT_CT_DST_IP: u32 = 20;
/// conntrack layer 3 protocol source (IPv6 address)
pub const NFT_CT_SRC_IP6: u32 = 21;
/// conntrack layer 3 protocol destination (IPv6 address)
pub const NFT_CT_DST_IP6: u32 = 22;
/// conntrack id
pub const NFT_CT_ID: u32 = 23;

// enum nft_ct_attributes
/// `NFTA_CT_UNSPEC` from `nft_ct_attributes`.
pub const NFTA_CT_UNSPEC: u16 = 0;
/// destination register (NLA_U32)
pub const NFTA_CT_DREG: u16 = 1;
/// conntrack data item to load (NLA_U32: nft_ct_keys)
pub const NFTA_CT_KEY: u16 = 2;
/// direction in case of directional keys (NLA_U8)
pub const NFTA_CT_DIRECTION: u16 = 3;
/// source register (NLA_U32)
pub const NFTA_CT_SREG: u16 = 4;

// enum nft_offload_attributes
/// `NFTA_FLOW_UNSPEC` from `nft_offload_attributes`.
pub const NFTA_FLOW_UNSPEC: u16 = 0;
/// flow table name (NLA_STRING)
pub const NFTA_FLOW_TABLE_NAME: u16 = 1;

// enum nft_limit_type
/// `NFT_LIMIT_PKTS` from `nft_limit_type`.
pub const NFT_LIMIT_PKTS: u32 = 0;
/// `NFT_LIMIT_PKT_BYTES` from `nft_limit_type`.
pub const NFT_LIMIT_PKT_BYTES: u32 = 1;

// enum nft_limit_flags
/// `NFT_LIMIT_F_INV` from `nft_limit_flags`.
pub const NFT_LIMIT_F_INV: u32 = 1;

// enum nft_limit_attributes
/// `NFTA_LIMIT_UNSPEC` from `nft_limit_attributes`.
pub const NFTA_LIMIT_UNSPEC: u16 = 0;
/// refill rate (NLA_U64)
pub const NFTA_LIMIT_RATE: u16 = 1;
/// refill unit (NLA_U64)
pub const NFTA_LIMIT_UNIT: u16 = 2;
/// burst (NLA_U32)
pub const NFTA_LIMIT_BURST: u16 = 3;
/// type of limit (NLA_U32: enum nft_limit_type)
pub const NFTA_LIMIT_TYPE: u16 = 4;
/// flags (NLA_U32: enum nft_limit_flags)
pub const NFTA_LIMIT_FLAGS: u16 = 5;
/// `NFTA_LIMIT_PAD` from `nft_limit_attributes`.
pub const NFTA_LIMIT_PAD: u16 = 6;

// enum nft_connlimit_flags
/// `NFT_CONNLIMIT_F_INV` from `nft_connlimit_flags`.
pub const NFT_CONNLIMIT_F_INV: u32 = 1;

// enum nft_connlimit_attributes
/// `NFTA_CONNLIMIT_UNSPEC` from `nft_connlimit_attributes`.
pub const NFTA_CONNLIMIT_UNSPEC: u16 = 0;
/// number of connections (NLA_U32)
pub const NFTA_CONNLIMIT_COUNT: u16 = 1;
/// flags (NLA_U32: enum nft_connlimit_flags)
pub const NFTA_CONNLIMIT_FLAGS: u16 = 2;

// enum nft_counter_attributes
/// `NFTA_COUNTER_UNSPEC` from `nft_counter_attributes`.
pub const NFTA_COUNTER_UNSPEC: u16 = 0;
/// number of bytes (NLA_U64)
pub const NFTA_COUNTER_BYTES: u16 = 1;
/// number of packets (NLA_U64)
pub const NFTA_COUNTER_PACKETS: u16 = 2;
/// `NFTA_COUNTER_PAD` from `nft_counter_attributes`.
pub const NFTA_COUNTER_PAD: u16 = 3;

// enum nft_last_attributes
/// `NFTA_LAST_UNSPEC` from `nft_last_attributes`.
pub const NFTA_LAST_UNSPEC: u16 = 0;
/// last update has been set, zero means never updated (NLA_U32)
pub const NFTA_LAST_SET: u16 = 1;
/// milliseconds since last update (NLA_U64)
pub const NFTA_LAST_MSECS: u16 = 2;
/// `NFTA_LAST_PAD` from `nft_last_attributes`.
pub const NFTA_LAST_PAD: u16 = 3;

// enum nft_log_attributes
/// `NFTA_LOG_UNSPEC` from `nft_log_attributes`.
pub const NFTA_LOG_UNSPEC: u16 = 0;
/// netlink group to send messages to (NLA_U32)
pub const NFTA_LOG_GROUP: u16 = 1;
/// prefix to prepend to log messages (NLA_STRING)
pub const NFTA_LOG_PREFIX: u16 = 2;
/// length of payload to include in netlink message (NLA_U32)
pub const NFTA_LOG_SNAPLEN: u16 = 3;
/// queue threshold (NLA_U32)
pub const NFTA_LOG_QTHRESHOLD: u16 = 4;
/// log level (NLA_U32)
pub const NFTA_LOG_LEVEL: u16 = 5;
/// logging flags (NLA_U32)
pub const NFTA_LOG_FLAGS: u16 = 6;

// enum nft_log_level
/// system is unusable
pub const NFT_LOGLEVEL_EMERG: u32 = 0;
/// action must be taken immediately
pub const NFT_LOGLEVEL_ALERT: u32 = 1;
/// critical conditions
pub const NFT_LOGLEVEL_CRIT: u32 = 2;
/// error conditions
pub const NFT_LOGLEVEL_ERR: u32 = 3;
/// warning conditions
pub const NFT_LOGLEVEL_WARNING: u32 = 4;
/// normal but significant condition
pub const NFT_LOGLEVEL_NOTICE: u32 = 5;
/// informational
pub const NFT_LOGLEVEL_INFO: u32 = 6;
/// debug-level messages
pub const NFT_LOGLEVEL_DEBUG: u32 = 7;
/// enabling audit logging
pub const NFT_LOGLEVEL_AUDIT: u32 = 8;

// enum nft_queue_attributes
/// `NFTA_QUEUE_UNSPEC` from `nft_queue_attributes`.
pub const NFTA_QUEUE_UNSPEC: u16 = 0;
/// netlink queue to send messages to (NLA_U16)
pub const NFTA_QUEUE_NUM: u16 = 1;
/// number of queues to load balance packets on (NLA_U16)
pub const NFTA_QUEUE_TOTAL: u16 = 2;
/// various flags (NLA_U16)
pub const NFTA_QUEUE_FLAGS: u16 = 3;
/// source register of queue number (NLA_U32: nft_registers)
pub const NFTA_QUEUE_SREG_QNUM: u16 = 4;

// enum nft_quota_flags
/// `NFT_QUOTA_F_INV` from `nft_quota_flags`.
pub const NFT_QUOTA_F_INV: u32 = 1;
/// `NFT_QUOTA_F_DEPLETED` from `nft_quota_flags`.
pub const NFT_QUOTA_F_DEPLETED: u32 = 2;

// enum nft_quota_attributes
/// `NFTA_QUOTA_UNSPEC` from `nft_quota_attributes`.
pub const NFTA_QUOTA_UNSPEC: u16 = 0;
/// quota in bytes (NLA_U16)
pub const NFTA_QUOTA_BYTES: u16 = 1;
/// flags (NLA_U32)
pub const NFTA_QUOTA_FLAGS: u16 = 2;
/// `NFTA_QUOTA_PAD` from `nft_quota_attributes`.
pub const NFTA_QUOTA_PAD: u16 = 3;
/// quota already consumed in bytes (NLA_U64)
pub const NFTA_QUOTA_CONSUMED: u16 = 4;

// enum nft_secmark_attributes
/// `NFTA_SECMARK_UNSPEC` from `nft_secmark_attributes`.
pub const NFTA_SECMARK_UNSPEC: u16 = 0;
/// security context (NLA_STRING)
pub const NFTA_SECMARK_CTX: u16 = 1;

// enum nft_reject_types
/// reject using ICMP unreachable
pub const NFT_REJECT_ICMP_UNREACH: u32 = 0;
/// reject using TCP RST
pub const NFT_REJECT_TCP_RST: u32 = 1;
/// abstracted ICMP unreachable for bridge and inet
pub const NFT_REJECT_ICMPX_UNREACH: u32 = 2;

// enum nft_reject_inet_code
/// no route to host / network unreachable
pub const NFT_REJECT_ICMPX_NO_ROUTE: u32 = 0;
/// port unreachable
pub const NFT_REJECT_ICMPX_PORT_UNREACH: u32 = 1;
/// host unreachable
pub const NFT_REJECT_ICMPX_HOST_UNREACH: u32 = 2;
/// administratively prohibited
pub const NFT_REJECT_ICMPX_ADMIN_PROHIBITED: u32 = 3;

// enum nft_reject_attributes
/// `NFTA_REJECT_UNSPEC` from `nft_reject_attributes`.
pub const NFTA_REJECT_UNSPEC: u16 = 0;
/// packet type to use (NLA_U32: nft_reject_types)
pub const NFTA_REJECT_TYPE: u16 = 1;
/// ICMP code to use (NLA_U8)
pub const NFTA_REJECT_ICMP_CODE: u16 = 2;

// enum nft_nat_types
/// source NAT
pub const NFT_NAT_SNAT: u32 = 0;
/// destination NAT
pub const NFT_NAT_DNAT: u32 = 1;

// enum nft_nat_attributes
/// `NFTA_NAT_UNSPEC` from `nft_nat_attributes`.
pub const NFTA_NAT_UNSPEC: u16 = 0;
/// NAT type (NLA_U32: nft_nat_types)
pub const NFTA_NAT_TYPE: u16 = 1;
/// NAT family (NLA_U32)
pub const NFTA_NAT_FAMILY: u16 = 2;
/// source register of address range start (NLA_U32: nft_registers)
pub const NFTA_NAT_REG_ADDR_MIN: u16 = 3;
/// source register of address range end (NLA_U32: nft_registers)
pub const NFTA_NAT_REG_ADDR_MAX: u16 = 4;
/// source register of proto range start (NLA_U32: nft_registers)
pub const NFTA_NAT_REG_PROTO_MIN: u16 = 5;
/// source register of proto range end (NLA_U32: nft_registers)
pub const NFTA_NAT_REG_PROTO_MAX: u16 = 6;
/// NAT flags (see NF_NAT_RANGE_* in linux/netfilter/nf_nat.h) (NLA_U32)
pub const NFTA_NAT_FLAGS: u16 = 7;

// enum nft_tproxy_attributes
/// `NFTA_TPROXY_UNSPEC` from `nft_tproxy_attributes`.
pub const NFTA_TPROXY_UNSPEC: u16 = 0;
/// `NFTA_TPROXY_FAMILY` from `nft_tproxy_attributes`.
pub const NFTA_TPROXY_FAMILY: u16 = 1;
/// `NFTA_TPROXY_REG_ADDR` from `nft_tproxy_attributes`.
pub const NFTA_TPROXY_REG_ADDR: u16 = 2;
/// `NFTA_TPROXY_REG_PORT` from `nft_tproxy_attributes`.
pub const NFTA_TPROXY_REG_PORT: u16 = 3;

// enum nft_masq_attributes
/// `NFTA_MASQ_UNSPEC` from `nft_masq_attributes`.
pub const NFTA_MASQ_UNSPEC: u16 = 0;
/// NAT flags (see NF_NAT_RANGE_* in linux/netfilter/nf_nat.h) (NLA_U32)
pub const NFTA_MASQ_FLAGS: u16 = 1;
/// source register of proto range start (NLA_U32: nft_registers)
pub const NFTA_MASQ_REG_PROTO_MIN: u16 = 2;
/// source register of proto range end (NLA_U32: nft_registers)
pub const NFTA_MASQ_REG_PROTO_MAX: u16 = 3;

// enum nft_redir_attributes
/// `NFTA_REDIR_UNSPEC` from `nft_redir_attributes`.
pub const NFTA_REDIR_UNSPEC: u16 = 0;
/// source register of proto range start (NLA_U32: nft_registers)
pub const NFTA_REDIR_REG_PROTO_MIN: u16 = 1;
/// source register of proto range end (NLA_U32: nft_registers)
pub const NFTA_REDIR_REG_PROTO_MAX: u16 = 2;
/// NAT flags (see NF_NAT_RANGE_* in linux/netfilter/nf_nat.h) (NLA_U32)
pub const NFTA_REDIR_FLAGS: u16 = 3;

// enum nft_dup_attributes
/// `NFTA_DUP_UNSPEC` from `nft_dup_attributes`.
pub const NFTA_DUP_UNSPEC: u16 = 0;
/// source register of address (NLA_U32: nft_registers)
pub const NFTA_DUP_SREG_ADDR: u16 = 1;
/// source register of output interface (NLA_U32: nft_register)
pub const NFTA_DUP_SREG_DEV: u16 = 2;

// enum nft_fwd_attributes
/// `NFTA_FWD_UNSPEC` from `nft_fwd_attributes`.
pub const NFTA_FWD_UNSPEC: u16 = 0;
/// source register of output interface (NLA_U32: nft_register)
pub const NFTA_FWD_SREG_DEV: u16 = 1;
/// source register of destination address (NLA_U32: nft_register)
pub const NFTA_FWD_SREG_ADDR: u16 = 2;
/// layer 3 family of source register address (NLA_U32: enum nfproto)
pub const NFTA_FWD_NFPROTO: u16 = 3;

// enum nft_objref_attributes
/// `NFTA_OBJREF_UNSPEC` from `nft_objref_attributes`.
pub const NFTA_OBJREF_UNSPEC: u16 = 0;
/// object type for immediate reference (NLA_U32: nft_register)
pub const NFTA_OBJREF_IMM_TYPE: u16 = 1;
/// object name for immediate reference (NLA_STRING)
pub const NFTA_OBJREF_IMM_NAME: u16 = 2;
/// source register of the data to look for (NLA_U32: nft_registers)
pub const NFTA_OBJREF_SET_SREG: u16 = 3;
/// name of the set where to look for (NLA_STRING)
pub const NFTA_OBJREF_SET_NAME: u16 = 4;
/// id of the set where to look for in this transaction (NLA_U32)
pub const NFTA_OBJREF_SET_ID: u16 = 5;

// enum nft_gen_attributes
/// `NFTA_GEN_UNSPEC` from `nft_gen_attributes`.
pub const NFTA_GEN_UNSPEC: u16 = 0;
/// Ruleset generation ID (NLA_U32)
pub const NFTA_GEN_ID: u16 = 1;
/// `NFTA_GEN_PROC_PID` from `nft_gen_attributes`.
pub const NFTA_GEN_PROC_PID: u16 = 2;
/// `NFTA_GEN_PROC_NAME` from `nft_gen_attributes`.
pub const NFTA_GEN_PROC_NAME: u16 = 3;

// enum nft_fib_attributes
/// `NFTA_FIB_UNSPEC` from `nft_fib_attributes`.
pub const NFTA_FIB_UNSPEC: u16 = 0;
/// `NFTA_FIB_DREG` from `nft_fib_attributes`.
pub const NFTA_FIB_DREG: u16 = 1;
/// `NFTA_FIB_RESULT` from `nft_fib_attributes`.
pub const NFTA_FIB_RESULT: u16 = 2;
/// `NFTA_FIB_FLAGS` from `nft_fib_attributes`.
pub const NFTA_FIB_FLAGS: u16 = 3;

// enum nft_fib_result
/// `NFT_FIB_RESULT_UNSPEC` from `nft_fib_result`.
pub const NFT_FIB_RESULT_UNSPEC: u32 = 0;
/// `NFT_FIB_RESULT_OIF` from `nft_fib_result`.
pub const NFT_FIB_RESULT_OIF: u32 = 1;
/// `NFT_FIB_RESULT_OIFNAME` from `nft_fib_result`.
pub const NFT_FIB_RESULT_OIFNAME: u32 = 2;
/// `NFT_FIB_RESULT_ADDRTYPE` from `nft_fib_result`.
pub const NFT_FIB_RESULT_ADDRTYPE: u32 = 3;

// enum nft_fib_flags
/// `NFTA_FIB_F_SADDR` from `nft_fib_flags`.
pub const NFTA_FIB_F_SADDR: u16 = 1;
/// `NFTA_FIB_F_DADDR` from `nft_fib_flags`.
pub const NFTA_FIB_F_DADDR: u16 = 2;
/// `NFTA_FIB_F_MARK` from `nft_fib_flags`.
pub const NFTA_FIB_F_MARK: u16 = 4;
/// `NFTA_FIB_F_IIF` from `nft_fib_flags`.
pub const NFTA_FIB_F_IIF: u16 = 8;
/// `NFTA_FIB_F_OIF` from `nft_fib_flags`.
pub const NFTA_FIB_F_OIF: u16 = 16;
/// `NFTA_FIB_F_PRESENT` from `nft_fib_flags`.
pub const NFTA_FIB_F_PRESENT: u16 = 32;
