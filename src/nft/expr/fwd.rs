//! `fwd` (placeholder).

super::placeholder!(Fwd, "fwd");
