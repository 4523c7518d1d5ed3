//! `lookup` (placeholder).

super::placeholder!(Lookup, "lookup");
