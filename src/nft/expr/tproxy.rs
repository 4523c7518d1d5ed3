//! `tproxy` (placeholder).

super::placeholder!(Tproxy, "tproxy");
