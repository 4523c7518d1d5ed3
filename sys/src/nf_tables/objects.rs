//! Stateful objects, flowtables, tracing and tunnels.

// enum nft_ct_helper_attributes
/// `NFTA_CT_HELPER_UNSPEC` from `nft_ct_helper_attributes`.
pub const NFTA_CT_HELPER_UNSPEC: u16 = 0;
/// `NFTA_CT_HELPER_NAME` from `nft_ct_helper_attributes`.
pub const NFTA_CT_HELPER_NAME: u16 = 1;
/// `NFTA_CT_HELPER_L3PROTO` from `nft_ct_helper_attributes`.
pub const NFTA_CT_HELPER_L3PROTO: u16 = 2;
/// `NFTA_CT_HELPER_L4PROTO` from `nft_ct_helper_attributes`.
pub const NFTA_CT_HELPER_L4PROTO: u16 = 3;

// enum nft_ct_timeout_timeout_attributes
/// `NFTA_CT_TIMEOUT_UNSPEC` from `nft_ct_timeout_timeout_attributes`.
pub const NFTA_CT_TIMEOUT_UNSPEC: u16 = 0;
/// `NFTA_CT_TIMEOUT_L3PROTO` from `nft_ct_timeout_timeout_attributes`.
pub const NFTA_CT_TIMEOUT_L3PROTO: u16 = 1;
/// `NFTA_CT_TIMEOUT_L4PROTO` from `nft_ct_timeout_timeout_attributes`.
pub const NFTA_CT_TIMEOUT_L4PROTO: u16 = 2;
/// `NFTA_CT_TIMEOUT_DATA` from `nft_ct_timeout_timeout_attributes`.
pub const NFTA_CT_TIMEOUT_DATA: u16 = 3;

// enum nft_ct_expectation_attributes
/// `NFTA_CT_EXPECT_UNSPEC` from `nft_ct_expectation_attributes`.
pub const NFTA_CT_EXPECT_UNSPEC: u16 = 0;
/// `NFTA_CT_EXPECT_L3PROTO` from `nft_ct_expectation_attributes`.
pub const NFTA_CT_EXPECT_L3PROTO: u16 = 1;
/// `NFTA_CT_EXPECT_L4PROTO` from `nft_ct_expectation_attributes`.
pub const NFTA_CT_EXPECT_L4PROTO: u16 = 2;
/// `NFTA_CT_EXPECT_DPORT` from `nft_ct_expectation_attributes`.
pub const NFTA_CT_EXPECT_DPORT: u16 = 3;
/// `NFTA_CT_EXPECT_TIMEOUT` from `nft_ct_expectation_attributes`.
pub const NFTA_CT_EXPECT_TIMEOUT: u16 = 4;
/// `NFTA_CT_EXPECT_SIZE` from `nft_ct_expectation_attributes`.
pub const NFTA_CT_EXPECT_SIZE: u16 = 5;

// enum nft_object_attributes
/// `NFTA_OBJ_UNSPEC` from `nft_object_attributes`.
pub const NFTA_OBJ_UNSPEC: u16 = 0;
/// name of the table containing the expression (NLA_STRING)
pub const NFTA_OBJ_TABLE: u16 = 1;
/// name of this expression type (NLA_STRING)
pub const NFTA_OBJ_NAME: u16 = 2;
/// stateful object type (NLA_U32)
pub const NFTA_OBJ_TYPE: u16 = 3;
/// stateful object data (NLA_NESTED)
pub const NFTA_OBJ_DATA: u16 = 4;
/// number of references to this expression (NLA_U32)
pub const NFTA_OBJ_USE: u16 = 5;
/// object handle (NLA_U64)
pub const NFTA_OBJ_HANDLE: u16 = 6;
/// `NFTA_OBJ_PAD` from `nft_object_attributes`.
pub const NFTA_OBJ_PAD: u16 = 7;
/// user data (NLA_BINARY)
pub const NFTA_OBJ_USERDATA: u16 = 8;

// enum nft_flowtable_flags
/// flowtable hardware offload is enabled
pub const NFT_FLOWTABLE_HW_OFFLOAD: u32 = 1;
/// enable flow counters
pub const NFT_FLOWTABLE_COUNTER: u32 = 2;
/// `NFT_FLOWTABLE_MASK` from `nft_flowtable_flags`.
pub const NFT_FLOWTABLE_MASK: u32 = 3;

// enum nft_flowtable_attributes
/// `NFTA_FLOWTABLE_UNSPEC` from `nft_flowtable_attributes`.
pub const NFTA_FLOWTABLE_UNSPEC: u16 = 0;
/// name of the table containing the expression (NLA_STRING)
pub const NFTA_FLOWTABLE_TABLE: u16 = 1;
/// name of this flow table (NLA_STRING)
pub const NFTA_FLOWTABLE_NAME: u16 = 2;
/// netfilter hook configuration (NLA_NESTED)
pub const NFTA_FLOWTABLE_HOOK: u16 = 3;
/// number of references to this flow table (NLA_U32)
pub const NFTA_FLOWTABLE_USE: u16 = 4;
/// object handle (NLA_U64)
pub const NFTA_FLOWTABLE_HANDLE: u16 = 5;
/// `NFTA_FLOWTABLE_PAD` from `nft_flowtable_attributes`.
pub const NFTA_FLOWTABLE_PAD: u16 = 6;
/// flags (NLA_U32)
pub const NFTA_FLOWTABLE_FLAGS: u16 = 7;

// enum nft_flowtable_hook_attributes
/// `NFTA_FLOWTABLE_HOOK_UNSPEC` from `nft_flowtable_hook_attributes`.
pub const NFTA_FLOWTABLE_HOOK_UNSPEC: u16 = 0;
/// netfilter hook number (NLA_U32)
pub const NFTA_FLOWTABLE_HOOK_NUM: u16 = 1;
/// netfilter hook priority (NLA_U32)
pub const NFTA_FLOWTABLE_HOOK_PRIORITY: u16 = 2;
/// input devices this flow table is bound to (NLA_NESTED)
pub const NFTA_FLOWTABLE_HOOK_DEVS: u16 = 3;

// enum nft_osf_attributes
/// `NFTA_OSF_UNSPEC` from `nft_osf_attributes`.
pub const NFTA_OSF_UNSPEC: u16 = 0;
/// destination register (NLA_U32: nft_registers)
pub const NFTA_OSF_DREG: u16 = 1;
/// Value of the TTL osf option (NLA_U8)
pub const NFTA_OSF_TTL: u16 = 2;
/// flags (NLA_U32)
pub const NFTA_OSF_FLAGS: u16 = 3;

// enum nft_osf_flags
/// `NFT_OSF_F_VERSION` from `nft_osf_flags`.
pub const NFT_OSF_F_VERSION: u32 = 1;

// enum nft_synproxy_attributes
/// `NFTA_SYNPROXY_UNSPEC` from `nft_synproxy_attributes`.
pub const NFTA_SYNPROXY_UNSPEC: u16 = 0;
/// mss value sent to the backend (NLA_U16)
pub const NFTA_SYNPROXY_MSS: u16 = 1;
/// wscale value sent to the backend (NLA_U8)
pub const NFTA_SYNPROXY_WSCALE: u16 = 2;
/// flags (NLA_U32)
pub const NFTA_SYNPROXY_FLAGS: u16 = 3;

// enum nft_devices_attributes
/// `NFTA_DEVICE_UNSPEC` from `nft_devices_attributes`.
pub const NFTA_DEVICE_UNSPEC: u16 = 0;
/// name of this device (NLA_STRING)
pub const NFTA_DEVICE_NAME: u16 = 1;

// enum nft_xfrm_attributes
/// `NFTA_XFRM_UNSPEC` from `nft_xfrm_attributes`.
pub const NFTA_XFRM_UNSPEC: u16 = 0;
/// `NFTA_XFRM_DREG` from `nft_xfrm_attributes`.
pub const NFTA_XFRM_DREG: u16 = 1;
/// `NFTA_XFRM_KEY` from `nft_xfrm_attributes`.
pub const NFTA_XFRM_KEY: u16 = 2;
/// `NFTA_XFRM_DIR` from `nft_xfrm_attributes`.
pub const NFTA_XFRM_DIR: u16 = 3;
/// `NFTA_XFRM_SPNUM` from `nft_xfrm_attributes`.
pub const NFTA_XFRM_SPNUM: u16 = 4;

// enum nft_xfrm_keys
/// `NFT_XFRM_KEY_UNSPEC` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_UNSPEC: u32 = 0;
/// `NFT_XFRM_KEY_DADDR_IP4` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_DADDR_IP4: u32 = 1;
/// `NFT_XFRM_KEY_DADDR_IP6` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_DADDR_IP6: u32 = 2;
/// `NFT_XFRM_KEY_SADDR_IP4` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_SADDR_IP4: u32 = 3;
/// `NFT_XFRM_KEY_SADDR_IP6` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_SADDR_IP6: u32 = 4;
/// `NFT_XFRM_KEY_REQID` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_REQID: u32 = 5;
/// `NFT_XFRM_KEY_SPI` from `nft_xfrm_keys`.
pub const NFT_XFRM_KEY_SPI: u32 = 6;

// enum nft_trace_attributes
/// `NFTA_TRACE_UNSPEC` from `nft_trace_attributes`.
pub const NFTA_TRACE_UNSPEC: u16 = 0;
/// name of the table (NLA_STRING)
pub const NFTA_TRACE_TABLE: u16 = 1;
/// name of the chain (NLA_STRING)
pub const NFTA_TRACE_CHAIN: u16 = 2;
/// numeric handle of the rule (NLA_U64)
pub const NFTA_TRACE_RULE_HANDLE: u16 = 3;
/// type of the event (NLA_U32: nft_trace_types)
pub const NFTA_TRACE_TYPE: u16 = 4;
/// verdict returned by hook (NLA_NESTED: nft_verdicts)
pub const NFTA_TRACE_VERDICT: u16 = 5;
/// pseudo-id, same for each skb traced (NLA_U32)
pub const NFTA_TRACE_ID: u16 = 6;
/// linklayer header (NLA_BINARY)
pub const NFTA_TRACE_LL_HEADER: u16 = 7;
/// network header (NLA_BINARY)
pub const NFTA_TRACE_NETWORK_HEADER: u16 = 8;
/// transport header (NLA_BINARY)
pub const NFTA_TRACE_TRANSPORT_HEADER: u16 = 9;
/// indev ifindex (NLA_U32)
pub const NFTA_TRACE_IIF: u16 = 10;
/// netdev->type of indev (NLA_U16)
pub const NFTA_TRACE_IIFTYPE: u16 = 11;
/// outdev ifindex (NLA_U32)
pub const NFTA_TRACE_OIF: u16 = 12;
/// netdev->type of outdev (NLA_U16)
pub const NFTA_TRACE_OIFTYPE: u16 = 13;
/// nfmark (NLA_U32)
pub const NFTA_TRACE_MARK: u16 = 14;
/// nf protocol processed (NLA_U32)
pub const NFTA_TRACE_NFPROTO: u16 = 15;
/// policy that decided fate of packet (NLA_U32)
pub const NFTA_TRACE_POLICY: u16 = 16;
/// `NFTA_TRACE_PAD` from `nft_trace_attributes`.
pub const NFTA_TRACE_PAD: u16 = 17;

// enum nft_trace_types
/// `NFT_TRACETYPE_UNSPEC` from `nft_trace_types`.
pub const NFT_TRACETYPE_UNSPEC: u32 = 0;
/// `NFT_TRACETYPE_POLICY` from `nft_trace_types`.
pub const NFT_TRACETYPE_POLICY: u32 = 1;
/// `NFT_TRACETYPE_RETURN` from `nft_trace_types`.
pub const NFT_TRACETYPE_RETURN: u32 = 2;
/// `NFT_TRACETYPE_RULE` from `nft_trace_types`.
pub const NFT_TRACETYPE_RULE: u32 = 3;

// enum nft_ng_attributes
/// `NFTA_NG_UNSPEC` from `nft_ng_attributes`.
pub const NFTA_NG_UNSPEC: u16 = 0;
/// destination register (NLA_U32)
pub const NFTA_NG_DREG: u16 = 1;
/// maximum counter value (NLA_U32)
pub const NFTA_NG_MODULUS: u16 = 2;
/// operation type (NLA_U32)
pub const NFTA_NG_TYPE: u16 = 3;
/// offset to be added to the counter (NLA_U32)
pub const NFTA_NG_OFFSET: u16 = 4;
/// name of the map to lookup (NLA_STRING)
pub const NFTA_NG_SET_NAME: u16 = 5;
/// id of the map (NLA_U32)
pub const NFTA_NG_SET_ID: u16 = 6;

// enum nft_ng_types
/// `NFT_NG_INCREMENTAL` from `nft_ng_types`.
pub const NFT_NG_INCREMENTAL: u32 = 0;
/// `NFT_NG_RANDOM` from `nft_ng_types`.
pub const NFT_NG_RANDOM: u32 = 1;

// enum nft_tunnel_key_ip_attributes
/// `NFTA_TUNNEL_KEY_IP_UNSPEC` from `nft_tunnel_key_ip_attributes`.
pub const NFTA_TUNNEL_KEY_IP_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_IP_SRC` from `nft_tunnel_key_ip_attributes`.
pub const NFTA_TUNNEL_KEY_IP_SRC: u16 = 1;
/// `NFTA_TUNNEL_KEY_IP_DST` from `nft_tunnel_key_ip_attributes`.
pub const NFTA_TUNNEL_KEY_IP_DST: u16 = 2;

// enum nft_tunnel_ip6_attributes
/// `NFTA_TUNNEL_KEY_IP6_UNSPEC` from `nft_tunnel_ip6_attributes`.
pub const NFTA_TUNNEL_KEY_IP6_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_IP6_SRC` from `nft_tunnel_ip6_attributes`.
pub const NFTA_TUNNEL_KEY_IP6_SRC: u16 = 1;
/// `NFTA_TUNNEL_KEY_IP6_DST` from `nft_tunnel_ip6_attributes`.
pub const NFTA_TUNNEL_KEY_IP6_DST: u16 = 2;
/// `NFTA_TUNNEL_KEY_IP6_FLOWLABEL` from `nft_tunnel_ip6_attributes`.
pub const NFTA_TUNNEL_KEY_IP6_FLOWLABEL: u16 = 3;

// enum nft_tunnel_opts_attributes
/// `NFTA_TUNNEL_KEY_OPTS_UNSPEC` from `nft_tunnel_opts_attributes`.
pub const NFTA_TUNNEL_KEY_OPTS_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_OPTS_VXLAN` from `nft_tunnel_opts_attributes`.
pub const NFTA_TUNNEL_KEY_OPTS_VXLAN: u16 = 1;
/// `NFTA_TUNNEL_KEY_OPTS_ERSPAN` from `nft_tunnel_opts_attributes`.
pub const NFTA_TUNNEL_KEY_OPTS_ERSPAN: u16 = 2;
/// `NFTA_TUNNEL_KEY_OPTS_GENEVE` from `nft_tunnel_opts_attributes`.
pub const NFTA_TUNNEL_KEY_OPTS_GENEVE: u16 = 3;

// enum nft_tunnel_opts_vxlan_attributes
/// `NFTA_TUNNEL_KEY_VXLAN_UNSPEC` from `nft_tunnel_opts_vxlan_attributes`.
pub const NFTA_TUNNEL_KEY_VXLAN_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_VXLAN_GBP` from `nft_tunnel_opts_vxlan_attributes`.
pub const NFTA_TUNNEL_KEY_VXLAN_GBP: u16 = 1;

// enum nft_tunnel_opts_erspan_attributes
/// `NFTA_TUNNEL_KEY_ERSPAN_UNSPEC` from `nft_tunnel_opts_erspan_attributes`.
pub const NFTA_TUNNEL_KEY_ERSPAN_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_ERSPAN_VERSION` from `nft_tunnel_opts_erspan_attributes`.
pub const NFTA_TUNNEL_KEY_ERSPAN_VERSION: u16 = 1;
/// `NFTA_TUNNEL_KEY_ERSPAN_V1_INDEX` from `nft_tunnel_opts_erspan_attributes`.
pub const NFTA_TUNNEL_KEY_ERSPAN_V1_INDEX: u16 = 2;
/// `NFTA_TUNNEL_KEY_ERSPAN_V2_HWID` from `nft_tunnel_opts_erspan_attributes`.
pub const NFTA_TUNNEL_KEY_ERSPAN_V2_HWID: u16 = 3;
/// `NFTA_TUNNEL_KEY_ERSPAN_V2_DIR` from `nft_tunnel_opts_erspan_attributes`.
pub const NFTA_TUNNEL_KEY_ERSPAN_V2_DIR: u16 = 4;

// enum nft_tunnel_opts_geneve_attributes
/// `NFTA_TUNNEL_KEY_GENEVE_UNSPEC` from `nft_tunnel_opts_geneve_attributes`.
pub const NFTA_TUNNEL_KEY_GENEVE_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_GENEVE_CLASS` from `nft_tunnel_opts_geneve_attributes`.
pub const NFTA_TUNNEL_KEY_GENEVE_CLASS: u16 = 1;
/// `NFTA_TUNNEL_KEY_GENEVE_TYPE` from `nft_tunnel_opts_geneve_attributes`.
pub const NFTA_TUNNEL_KEY_GENEVE_TYPE: u16 = 2;
/// `NFTA_TUNNEL_KEY_GENEVE_DATA` from `nft_tunnel_opts_geneve_attributes`.
pub const NFTA_TUNNEL_KEY_GENEVE_DATA: u16 = 3;

// enum nft_tunnel_flags
/// `NFT_TUNNEL_F_ZERO_CSUM_TX` from `nft_tunnel_flags`.
pub const NFT_TUNNEL_F_ZERO_CSUM_TX: u32 = 1;
/// `NFT_TUNNEL_F_DONT_FRAGMENT` from `nft_tunnel_flags`.
pub const NFT_TUNNEL_F_DONT_FRAGMENT: u32 = 2;
/// `NFT_TUNNEL_F_SEQ_NUMBER` from `nft_tunnel_flags`.
pub const NFT_TUNNEL_F_SEQ_NUMBER: u32 = 4;

// enum nft_tunnel_key_attributes
/// `NFTA_TUNNEL_KEY_UNSPEC` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY_ID` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_ID: u16 = 1;
/// `NFTA_TUNNEL_KEY_IP` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_IP: u16 = 2;
/// `NFTA_TUNNEL_KEY_IP6` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_IP6: u16 = 3;
/// `NFTA_TUNNEL_KEY_FLAGS` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_FLAGS: u16 = 4;
/// `NFTA_TUNNEL_KEY_TOS` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_TOS: u16 = 5;
/// `NFTA_TUNNEL_KEY_TTL` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_TTL: u16 = 6;
/// `NFTA_TUNNEL_KEY_SPORT` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_SPORT: u16 = 7;
/// `NFTA_TUNNEL_KEY_DPORT` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_DPORT: u16 = 8;
/// `NFTA_TUNNEL_KEY_OPTS` from `nft_tunnel_key_attributes`.
pub const NFTA_TUNNEL_KEY_OPTS: u16 = 9;

// enum nft_tunnel_keys
/// `NFT_TUNNEL_PATH` from `nft_tunnel_keys`.
pub const NFT_TUNNEL_PATH: u32 = 0;
/// `NFT_TUNNEL_ID` from `nft_tunnel_keys`.
pub const NFT_TUNNEL_ID: u32 = 1;

// enum nft_tunnel_mode
/// `NFT_TUNNEL_MODE_NONE` from `nft_tunnel_mode`.
pub const NFT_TUNNEL_MODE_NONE: u32 = 0;
/// `NFT_TUNNEL_MODE_RX` from `nft_tunnel_mode`.
pub const NFT_TUNNEL_MODE_RX: u32 = 1;
/// `NFT_TUNNEL_MODE_TX` from `nft_tunnel_mode`.
pub const NFT_TUNNEL_MODE_TX: u32 = 2;

// enum nft_tunnel_attributes
/// `NFTA_TUNNEL_UNSPEC` from `nft_tunnel_attributes`.
pub const NFTA_TUNNEL_UNSPEC: u16 = 0;
/// `NFTA_TUNNEL_KEY` from `nft_tunnel_attributes`.
pub const NFTA_TUNNEL_KEY: u16 = 1;
/// `NFTA_TUNNEL_DREG` from `nft_tunnel_attributes`.
pub const NFTA_TUNNEL_DREG: u16 = 2;
/// `NFTA_TUNNEL_MODE` from `nft_tunnel_attributes`.
pub const NFTA_TUNNEL_MODE: u16 = 3;
