//! `limit` (placeholder).

super::placeholder!(Limit, "limit");
