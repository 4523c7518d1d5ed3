//! `hash` (placeholder).

super::placeholder!(Hash, "hash");
