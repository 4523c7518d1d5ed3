//! Registers, verdicts, message types, and the attributes of tables, chains, rules, sets,
//! set elements, data and verdicts.

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
/// `NFT_TABLE_F_PERSIST` from `nft_table_flags`: an owned table outlives its owner.
pub const NFT_TABLE_F_PERSIST: u32 = 4;
/// `NFT_TABLE_F_MASK`: every table flag.
pub const NFT_TABLE_F_MASK: u32 = NFT_TABLE_F_DORMANT | NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST;

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
