//! nf_tables netlink ABI: message types, attribute types and the values carried inside
//! attributes, as in the kernel's `include/uapi/linux/netfilter/nf_tables.h`.
//!
//! Conventions: message types (`NFT_MSG_*`) and attribute types (`NFTA_*`) are `u16`, as they
//! travel in `nlmsghdr.nlmsg_type` (low byte) and `nlattr.nla_type`. Values carried inside
//! attributes (registers, operators, keys, flags) are `u32`, sent big-endian. Verdict codes are
//! `i32` because the nf_tables verdicts are negative.
//!
//! ```
//! use iptnl_sys::nf_tables::*;
//! assert_eq!(NFT_MSG_NEWRULE, 6);
//! assert_eq!(NFTA_RULE_EXPRESSIONS, 4);
//! assert_eq!(NFT_JUMP, -3);
//! ```

/// Longest name of a table, chain, set or object, including the NUL.
pub const NFT_NAME_MAXLEN: usize = 256;
/// Longest table name, including the NUL.
pub const NFT_TABLE_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Longest chain name, including the NUL.
pub const NFT_CHAIN_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Longest set name, including the NUL.
pub const NFT_SET_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Longest object name, including the NUL.
pub const NFT_OBJ_MAXNAMELEN: usize = NFT_NAME_MAXLEN;
/// Largest `NFTA_*_USERDATA` payload the kernel accepts.
pub const NFT_USERDATA_MAXLEN: usize = 256;
/// Longest OS genre name for the `osf` expression.
pub const NFT_OSF_MAXGENRELEN: usize = 16;
/// Size of one of the four legacy 16-byte data registers.
pub const NFT_REG_SIZE: usize = 16;
/// Size of one of the sixteen 4-byte data registers.
pub const NFT_REG32_SIZE: usize = 4;
/// Number of 4-byte data registers.
pub const NFT_REG32_COUNT: usize = 16;
/// Longest value an `NFTA_DATA_VALUE` may carry.
pub const NFT_DATA_VALUE_MAXLEN: usize = 64;
/// Mask of `nft_data_types` values reserved for internal types (verdicts).
pub const NFT_DATA_RESERVED_MASK: u32 = 0xffff_ff00;
/// Alias of `NFT_BITWISE_MASK_XOR`.
pub const NFT_BITWISE_BOOL: u32 = NFT_BITWISE_MASK_XOR;
/// Alias of `NFT_META_IFTYPE`.
pub const NFT_META_IIFTYPE: u32 = NFT_META_IFTYPE;
/// Queue flag: bypass when no userspace listener (compatibility with NFQUEUE v2).
pub const NFT_QUEUE_FLAG_BYPASS: u32 = 0x01;
/// Queue flag: use the current CPU instead of hashing.
pub const NFT_QUEUE_FLAG_CPU_FANOUT: u32 = 0x02;
/// All valid queue flags.
pub const NFT_QUEUE_FLAG_MASK: u32 = 0x03;
/// Largest security context for the `secmark` object.
pub const NFT_SECMARK_CTX_MAXLEN: usize = 4096;
/// Stateful object type: none.
pub const NFT_OBJECT_UNSPEC: u32 = 0;
/// Stateful object type: counter.
pub const NFT_OBJECT_COUNTER: u32 = 1;
/// Stateful object type: quota.
pub const NFT_OBJECT_QUOTA: u32 = 2;
/// Stateful object type: conntrack helper.
pub const NFT_OBJECT_CT_HELPER: u32 = 3;
/// Stateful object type: limit.
pub const NFT_OBJECT_LIMIT: u32 = 4;
/// Stateful object type: connlimit.
pub const NFT_OBJECT_CONNLIMIT: u32 = 5;
/// Stateful object type: tunnel.
pub const NFT_OBJECT_TUNNEL: u32 = 6;
/// Stateful object type: conntrack timeout policy.
pub const NFT_OBJECT_CT_TIMEOUT: u32 = 7;
/// Stateful object type: secmark.
pub const NFT_OBJECT_SECMARK: u32 = 8;
/// Stateful object type: conntrack expectation.
pub const NFT_OBJECT_CT_EXPECT: u32 = 9;
/// Stateful object type: synproxy.
pub const NFT_OBJECT_SYNPROXY: u32 = 10;

// enum nft_registers
/// `NFT_REG_VERDICT` from `nft_registers`.
pub const NFT_REG_VERDICT: u32 = 0;
/// `NFT_REG_1` from `nft_registers`.
pub const NFT_REG_1: u32 = 1;
/// `NFT_REG_2` from `nft_registers`.
pub const NFT_REG_2: u32 = 2;
/// `NFT_REG_3` from `nft_registers`.
pub const NFT_REG_3: u32 = 3;
/// `NFT_REG_4` from `nft_registers`.
pub const NFT_REG_4: u32 = 4;
/// `NFT_REG32_00` from `nft_registers`.
pub const NFT_REG32_00: u32 = 8;
/// `NFT_REG32_01` from `nft_registers`.
pub const NFT_REG32_01: u32 = 9;
/// `NFT_REG32_02` from `nft_registers`.
pub const NFT_REG32_02: u32 = 10;
/// `NFT_REG32_03` from `nft_registers`.
pub const NFT_REG32_03: u32 = 11;
/// `NFT_REG32_04` from `nft_registers`.
pub const NFT_REG32_04: u32 = 12;
/// `NFT_REG32_05` from `nft_registers`.
pub const NFT_REG32_05: u32 = 13;
/// `NFT_REG32_06` from `nft_registers`.
pub const NFT_REG32_06: u32 = 14;
/// `NFT_REG32_07` from `nft_registers`.
pub const NFT_REG32_07: u32 = 15;
/// `NFT_REG32_08` from `nft_registers`.
pub const NFT_REG32_08: u32 = 16;
/// `NFT_REG32_09` from `nft_registers`.
pub const NFT_REG32_09: u32 = 17;
/// `NFT_REG32_10` from `nft_registers`.
pub const NFT_REG32_10: u32 = 18;
/// `NFT_REG32_11` from `nft_registers`.
pub const NFT_REG32_11: u32 = 19;
/// `NFT_REG32_12` from `nft_registers`.
pub const NFT_REG32_12: u32 = 20;
/// `NFT_REG32_13` from `nft_registers`.
pub const NFT_REG32_13: u32 = 21;
/// `NFT_REG32_14` from `nft_registers`.
pub const NFT_REG32_14: u32 = 22;
/// `NFT_REG32_15` from `nft_registers`.
pub const NFT_REG32_15: u32 = 23;

// enum nft_verdicts
/// continue evaluation of the current rule
pub const NFT_CONTINUE: i32 = -1;
/// terminate evaluation of the current rule
pub const NFT_BREAK: i32 = -2;
/// push the current chain on the jump stack and jump to a chain
pub const NFT_JUMP: i32 = -3;
/// jump to a chain without pushing the current chain on the jump stack
pub const NFT_GOTO: i32 = -4;
/// return to the topmost chain on the jump stack
pub const NFT_RETURN: i32 = -5;

// enum nf_tables_msg_types
/// create a new table (enum nft_table_attributes)
pub const NFT_MSG_NEWTABLE: u16 = 0;
/// get a table (enum nft_table_attributes)
pub const NFT_MSG_GETTABLE: u16 = 1;
/// delete a table (enum nft_table_attributes)
pub const NFT_MSG_DELTABLE: u16 = 2;
/// create a new chain (enum nft_chain_attributes)
pub const NFT_MSG_NEWCHAIN: u16 = 3;
/// get a chain (enum nft_chain_attributes)
pub const NFT_MSG_GETCHAIN: u16 = 4;
/// delete a chain (enum nft_chain_attributes)
pub const NFT_MSG_DELCHAIN: u16 = 5;
/// create a new rule (enum nft_rule_attributes)
pub const NFT_MSG_NEWRULE: u16 = 6;
/// get a rule (enum nft_rule_attributes)
pub const NFT_MSG_GETRULE: u16 = 7;
/// delete a rule (enum nft_rule_attributes)
pub const NFT_MSG_DELRULE: u16 = 8;
/// create a new set (enum nft_set_attributes)
pub const NFT_MSG_NEWSET: u16 = 9;
/// get a set (enum nft_set_attributes)
pub const NFT_MSG_GETSET: u16 = 10;
/// delete a set (enum nft_set_attributes)
pub const NFT_MSG_DELSET: u16 = 11;
/// create a new set element (enum nft_set_elem_attributes)
pub const NFT_MSG_NEWSETELEM: u16 = 12;
/// get a set element (enum nft_set_elem_attributes)
pub const NFT_MSG_GETSETELEM: u16 = 13;
/// delete a set element (enum nft_set_elem_attributes)
pub const NFT_MSG_DELSETELEM: u16 = 14;
/// announce a new generation, only for events (enum nft_gen_attributes)
pub const NFT_MSG_NEWGEN: u16 = 15;
/// get the rule-set generation (enum nft_gen_attributes)
pub const NFT_MSG_GETGEN: u16 = 16;
/// trace event (enum nft_trace_attributes)
pub const NFT_MSG_TRACE: u16 = 17;
/// create a stateful object (enum nft_obj_attributes)
pub const NFT_MSG_NEWOBJ: u16 = 18;
/// get a stateful object (enum nft_obj_attributes)
pub const NFT_MSG_GETOBJ: u16 = 19;
/// delete a stateful object (enum nft_obj_attributes)
pub const NFT_MSG_DELOBJ: u16 = 20;
/// get and reset a stateful object (enum nft_obj_attributes)
pub const NFT_MSG_GETOBJ_RESET: u16 = 21;
/// add new flow table (enum nft_flowtable_attributes)
pub const NFT_MSG_NEWFLOWTABLE: u16 = 22;
/// get flow table (enum nft_flowtable_attributes)
pub const NFT_MSG_GETFLOWTABLE: u16 = 23;
/// delete flow table (enum nft_flowtable_attributes)
pub const NFT_MSG_DELFLOWTABLE: u16 = 24;
/// `NFT_MSG_MAX` from `nf_tables_msg_types`.
pub const NFT_MSG_MAX: u16 = 25;

// enum nft_list_attributes
/// `NFTA_LIST_UNSPEC` from `nft_list_attributes`.
pub const NFTA_LIST_UNSPEC: u16 = 0;
/// list element (NLA_NESTED)
pub const NFTA_LIST_ELEM: u16 = 1;

// enum nft_hook_attributes
/// `NFTA_HOOK_UNSPEC` from `nft_hook_attributes`.
pub const NFTA_HOOK_UNSPEC: u16 = 0;
/// netfilter hook number (NLA_U32)
pub const NFTA_HOOK_HOOKNUM: u16 = 1;
/// netfilter hook priority (NLA_U32)
pub const NFTA_HOOK_PRIORITY: u16 = 2;
/// netdevice name (NLA_STRING)
pub const NFTA_HOOK_DEV: u16 = 3;
/// list of netdevices (NLA_NESTED)
pub const NFTA_HOOK_DEVS: u16 = 4;

// enum nft_table_flags
/// this table is not active
pub const NFT_TABLE_F_DORMANT: u32 = 1;
/// `NFT_TABLE_F_OWNER` from `nft_table_flags`.
pub const NFT_TABLE_F_OWNER: u32 = 2;

// enum nft_table_attributes
/// `NFTA_TABLE_UNSPEC` from `nft_table_attributes`.
pub const NFTA_TABLE_UNSPEC: u16 = 0;
/// name of the table (NLA_STRING)
pub const NFTA_TABLE_NAME: u16 = 1;
/// bitmask of enum nft_table_flags (NLA_U32)
pub const NFTA_TABLE_FLAGS: u16 = 2;
/// number of chains in this table (NLA_U32)
pub const NFTA_TABLE_USE: u16 = 3;
/// `NFTA_TABLE_HANDLE` from `nft_table_attributes`.
pub const NFTA_TABLE_HANDLE: u16 = 4;
/// `NFTA_TABLE_PAD` from `nft_table_attributes`.
pub const NFTA_TABLE_PAD: u16 = 5;
/// user data (NLA_BINARY)
pub const NFTA_TABLE_USERDATA: u16 = 6;
/// owner of this table through netlink portID (NLA_U32)
pub const NFTA_TABLE_OWNER: u16 = 7;

// enum nft_chain_flags
/// `NFT_CHAIN_BASE` from `nft_chain_flags`.
pub const NFT_CHAIN_BASE: u32 = 1;
/// `NFT_CHAIN_HW_OFFLOAD` from `nft_chain_flags`.
pub const NFT_CHAIN_HW_OFFLOAD: u32 = 2;
/// `NFT_CHAIN_BINDING` from `nft_chain_flags`.
pub const NFT_CHAIN_BINDING: u32 = 4;

// enum nft_chain_attributes
/// `NFTA_CHAIN_UNSPEC` from `nft_chain_attributes`.
pub const NFTA_CHAIN_UNSPEC: u16 = 0;
/// name of the table containing the chain (NLA_STRING)
pub const NFTA_CHAIN_TABLE: u16 = 1;
/// numeric handle of the chain (NLA_U64)
pub const NFTA_CHAIN_HANDLE: u16 = 2;
/// name of the chain (NLA_STRING)
pub const NFTA_CHAIN_NAME: u16 = 3;
/// hook specification for basechains (NLA_NESTED: nft_hook_attributes)
pub const NFTA_CHAIN_HOOK: u16 = 4;
/// numeric policy of the chain (NLA_U32)
pub const NFTA_CHAIN_POLICY: u16 = 5;
/// number of references to this chain (NLA_U32)
pub const NFTA_CHAIN_USE: u16 = 6;
/// type name of the string (NLA_NUL_STRING)
pub const NFTA_CHAIN_TYPE: u16 = 7;
/// counter specification of the chain (NLA_NESTED: nft_counter_attributes)
pub const NFTA_CHAIN_COUNTERS: u16 = 8;
/// `NFTA_CHAIN_PAD` from `nft_chain_attributes`.
pub const NFTA_CHAIN_PAD: u16 = 9;
/// chain flags
pub const NFTA_CHAIN_FLAGS: u16 = 10;
/// uniquely identifies a chain in a transaction (NLA_U32)
pub const NFTA_CHAIN_ID: u16 = 11;
/// user data (NLA_BINARY)
pub const NFTA_CHAIN_USERDATA: u16 = 12;

// enum nft_rule_attributes
/// `NFTA_RULE_UNSPEC` from `nft_rule_attributes`.
pub const NFTA_RULE_UNSPEC: u16 = 0;
/// name of the table containing the rule (NLA_STRING)
pub const NFTA_RULE_TABLE: u16 = 1;
/// name of the chain containing the rule (NLA_STRING)
pub const NFTA_RULE_CHAIN: u16 = 2;
/// numeric handle of the rule (NLA_U64)
pub const NFTA_RULE_HANDLE: u16 = 3;
/// list of expressions (NLA_NESTED: nft_expr_attributes)
pub const NFTA_RULE_EXPRESSIONS: u16 = 4;
/// compatibility specifications of the rule (NLA_NESTED: nft_rule_compat_attributes)
pub const NFTA_RULE_COMPAT: u16 = 5;
/// numeric handle of the previous rule (NLA_U64)
pub const NFTA_RULE_POSITION: u16 = 6;
/// user data (NLA_BINARY, NFT_USERDATA_MAXLEN)
pub const NFTA_RULE_USERDATA: u16 = 7;
/// `NFTA_RULE_PAD` from `nft_rule_attributes`.
pub const NFTA_RULE_PAD: u16 = 8;
/// uniquely identifies a rule in a transaction (NLA_U32)
pub const NFTA_RULE_ID: u16 = 9;
/// transaction unique identifier of the previous rule (NLA_U32)
pub const NFTA_RULE_POSITION_ID: u16 = 10;
/// `NFTA_RULE_CHAIN_ID` from `nft_rule_attributes`.
pub const NFTA_RULE_CHAIN_ID: u16 = 11;

// enum nft_rule_compat_flags
/// unused
pub const NFT_RULE_COMPAT_F_UNUSED: u32 = 1;
/// invert the check result
pub const NFT_RULE_COMPAT_F_INV: u32 = 2;
/// `NFT_RULE_COMPAT_F_MASK` from `nft_rule_compat_flags`.
pub const NFT_RULE_COMPAT_F_MASK: u32 = 2;

// enum nft_rule_compat_attributes
/// `NFTA_RULE_COMPAT_UNSPEC` from `nft_rule_compat_attributes`.
pub const NFTA_RULE_COMPAT_UNSPEC: u16 = 0;
/// numeric value of handled protocol (NLA_U32)
pub const NFTA_RULE_COMPAT_PROTO: u16 = 1;
/// bitmask of enum nft_rule_compat_flags (NLA_U32)
pub const NFTA_RULE_COMPAT_FLAGS: u16 = 2;

// enum nft_set_flags
/// name allocation, automatic cleanup on unlink
pub const NFT_SET_ANONYMOUS: u32 = 1;
/// set contents may not change while bound
pub const NFT_SET_CONSTANT: u32 = 2;
/// set contains intervals
pub const NFT_SET_INTERVAL: u32 = 4;
/// set is used as a dictionary
pub const NFT_SET_MAP: u32 = 8;
/// set uses timeouts
pub const NFT_SET_TIMEOUT: u32 = 16;
/// set can be updated from the evaluation path
pub const NFT_SET_EVAL: u32 = 32;
/// set contains stateful objects
pub const NFT_SET_OBJECT: u32 = 64;
/// set contains a concatenation
pub const NFT_SET_CONCAT: u32 = 128;
/// set contains expressions
pub const NFT_SET_EXPR: u32 = 256;

// enum nft_set_policies
/// prefer high performance over low memory use
pub const NFT_SET_POL_PERFORMANCE: u32 = 0;
/// prefer low memory use over high performance
pub const NFT_SET_POL_MEMORY: u32 = 1;

// enum nft_set_desc_attributes
/// `NFTA_SET_DESC_UNSPEC` from `nft_set_desc_attributes`.
pub const NFTA_SET_DESC_UNSPEC: u16 = 0;
/// number of elements in set (NLA_U32)
pub const NFTA_SET_DESC_SIZE: u16 = 1;
/// description of field concatenation (NLA_NESTED)
pub const NFTA_SET_DESC_CONCAT: u16 = 2;

// enum nft_set_field_attributes
/// `NFTA_SET_FIELD_UNSPEC` from `nft_set_field_attributes`.
pub const NFTA_SET_FIELD_UNSPEC: u16 = 0;
/// length of single field, in bits (NLA_U32)
pub const NFTA_SET_FIELD_LEN: u16 = 1;

// enum nft_set_attributes
/// `NFTA_SET_UNSPEC` from `nft_set_attributes`.
pub const NFTA_SET_UNSPEC: u16 = 0;
/// table name (NLA_STRING)
pub const NFTA_SET_TABLE: u16 = 1;
/// set name (NLA_STRING)
pub const NFTA_SET_NAME: u16 = 2;
/// bitmask of enum nft_set_flags (NLA_U32)
pub const NFTA_SET_FLAGS: u16 = 3;
/// key data type, informational purpose only (NLA_U32)
pub const NFTA_SET_KEY_TYPE: u16 = 4;
/// key data length (NLA_U32)
pub const NFTA_SET_KEY_LEN: u16 = 5;
/// mapping data type (NLA_U32)
pub const NFTA_SET_DATA_TYPE: u16 = 6;
/// mapping data length (NLA_U32)
pub const NFTA_SET_DATA_LEN: u16 = 7;
/// selection policy (NLA_U32)
pub const NFTA_SET_POLICY: u16 = 8;
/// set description (NLA_NESTED)
pub const NFTA_SET_DESC: u16 = 9;
/// uniquely identifies a set in a transaction (NLA_U32)
pub const NFTA_SET_ID: u16 = 10;
/// default timeout value (NLA_U64)
pub const NFTA_SET_TIMEOUT: u16 = 11;
/// garbage collection interval (NLA_U32)
pub const NFTA_SET_GC_INTERVAL: u16 = 12;
/// user data (NLA_BINARY)
pub const NFTA_SET_USERDATA: u16 = 13;
/// `NFTA_SET_PAD` from `nft_set_attributes`.
pub const NFTA_SET_PAD: u16 = 14;
/// stateful object type (NLA_U32: NFT_OBJECT_*)
pub const NFTA_SET_OBJ_TYPE: u16 = 15;
/// set handle (NLA_U64)
pub const NFTA_SET_HANDLE: u16 = 16;
/// set expression (NLA_NESTED: nft_expr_attributes)
pub const NFTA_SET_EXPR: u16 = 17;
/// list of expressions (NLA_NESTED: nft_list_attributes)
pub const NFTA_SET_EXPRESSIONS: u16 = 18;

// enum nft_set_elem_flags
/// element ends the previous interval
pub const NFT_SET_ELEM_INTERVAL_END: u32 = 1;
/// special catch-all element
pub const NFT_SET_ELEM_CATCHALL: u32 = 2;

// enum nft_set_elem_attributes
/// `NFTA_SET_ELEM_UNSPEC` from `nft_set_elem_attributes`.
pub const NFTA_SET_ELEM_UNSPEC: u16 = 0;
/// key value (NLA_NESTED: nft_data)
pub const NFTA_SET_ELEM_KEY: u16 = 1;
/// data value of mapping (NLA_NESTED: nft_data_attributes)
pub const NFTA_SET_ELEM_DATA: u16 = 2;
/// bitmask of nft_set_elem_flags (NLA_U32)
pub const NFTA_SET_ELEM_FLAGS: u16 = 3;
/// timeout value (NLA_U64)
pub const NFTA_SET_ELEM_TIMEOUT: u16 = 4;
/// expiration time (NLA_U64)
pub const NFTA_SET_ELEM_EXPIRATION: u16 = 5;
/// user data (NLA_BINARY)
pub const NFTA_SET_ELEM_USERDATA: u16 = 6;
/// expression (NLA_NESTED: nft_expr_attributes)
pub const NFTA_SET_ELEM_EXPR: u16 = 7;
/// `NFTA_SET_ELEM_PAD` from `nft_set_elem_attributes`.
pub const NFTA_SET_ELEM_PAD: u16 = 8;
/// stateful object reference (NLA_STRING)
pub const NFTA_SET_ELEM_OBJREF: u16 = 9;
/// closing key value (NLA_NESTED: nft_data)
pub const NFTA_SET_ELEM_KEY_END: u16 = 10;
/// list of expressions (NLA_NESTED: nft_list_attributes)
pub const NFTA_SET_ELEM_EXPRESSIONS: u16 = 11;

// enum nft_set_elem_list_attributes
/// `NFTA_SET_ELEM_LIST_UNSPEC` from `nft_set_elem_list_attributes`.
pub const NFTA_SET_ELEM_LIST_UNSPEC: u16 = 0;
/// table of the set to be changed (NLA_STRING)
pub const NFTA_SET_ELEM_LIST_TABLE: u16 = 1;
/// name of the set to be changed (NLA_STRING)
pub const NFTA_SET_ELEM_LIST_SET: u16 = 2;
/// list of set elements (NLA_NESTED: nft_set_elem_attributes)
pub const NFTA_SET_ELEM_LIST_ELEMENTS: u16 = 3;
/// uniquely identifies a set in a transaction (NLA_U32)
pub const NFTA_SET_ELEM_LIST_SET_ID: u16 = 4;

// enum nft_data_types
/// generic data
pub const NFT_DATA_VALUE: u32 = 0;
/// netfilter verdict
pub const NFT_DATA_VERDICT: u32 = 4294967040;

// enum nft_data_attributes
/// `NFTA_DATA_UNSPEC` from `nft_data_attributes`.
pub const NFTA_DATA_UNSPEC: u16 = 0;
/// generic data (NLA_BINARY)
pub const NFTA_DATA_VALUE: u16 = 1;
/// nf_tables verdict (NLA_NESTED: nft_verdict_attributes)
pub const NFTA_DATA_VERDICT: u16 = 2;

// enum nft_verdict_attributes
/// `NFTA_VERDICT_UNSPEC` from `nft_verdict_attributes`.
pub const NFTA_VERDICT_UNSPEC: u16 = 0;
/// nf_tables verdict (NLA_U32: enum nft_verdicts)
pub const NFTA_VERDICT_CODE: u16 = 1;
/// jump target chain name (NLA_STRING)
pub const NFTA_VERDICT_CHAIN: u16 = 2;
/// jump target chain ID (NLA_U32)
pub const NFTA_VERDICT_CHAIN_ID: u16 = 3;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Spot checks against values in the kernel's UAPI header, chosen where an enum has
    /// preprocessor lines or explicit values in the middle (which a careless transcription
    /// shifts).
    #[test]
    fn values_match_the_kernel_header() {
        assert_eq!(NFT_META_IFTYPE, 8);
        assert_eq!(NFT_META_OIFTYPE, 9);
        assert_eq!(NFT_META_SKUID, 10);
        assert_eq!(NFT_META_NFTRACE, 12);
        assert_eq!(NFT_META_L4PROTO, 16);
        assert_eq!(NFT_META_SDIFNAME, 34);
        assert_eq!(NFT_REG32_00, 8);
        assert_eq!(NFT_REG32_15, 23);
        assert_eq!(NFT_MSG_GETGEN, 16);
        assert_eq!(NFT_MSG_NEWOBJ, 18);
        assert_eq!(NFT_DATA_VERDICT, 0xffff_ff00);
        assert_eq!(NFTA_RULE_COMPAT, 5);
        assert_eq!(NFTA_RULE_ID, 9);
        assert_eq!(NFTA_RULE_POSITION_ID, 10);
        assert_eq!(NFTA_CHAIN_ID, 11);
        assert_eq!(NFTA_SET_ELEM_LIST_ELEMENTS, 3);
        assert_eq!(NFT_CT_STATE, 0);
        assert_eq!(NFT_PAYLOAD_TRANSPORT_HEADER, 2);
        assert_eq!(NFT_CMP_GTE, 5);
        assert_eq!(NFTA_GEN_ID, 1);
    }
}
