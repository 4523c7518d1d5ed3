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
