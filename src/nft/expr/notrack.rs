//! `notrack` (placeholder).

super::placeholder!(Notrack, "notrack");
