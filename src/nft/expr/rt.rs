//! `rt` (placeholder).

super::placeholder!(Rt, "rt");
