//! `meta` (placeholder).

super::placeholder!(Meta, "meta");
