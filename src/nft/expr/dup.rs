//! `dup` (placeholder).

super::placeholder!(Dup, "dup");
