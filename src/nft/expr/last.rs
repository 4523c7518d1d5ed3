//! `last` (placeholder).

super::placeholder!(Last, "last");
