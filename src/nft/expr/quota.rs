//! `quota` (placeholder).

super::placeholder!(Quota, "quota");
