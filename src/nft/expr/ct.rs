//! `ct` (placeholder).

super::placeholder!(Ct, "ct");
