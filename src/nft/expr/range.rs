//! `range` (placeholder).

super::placeholder!(Range, "range");
