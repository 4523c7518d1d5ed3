//! nftables object model.
