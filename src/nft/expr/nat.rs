//! `nat` (placeholder).

super::placeholder!(Nat, "nat");
