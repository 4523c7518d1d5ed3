//! `masq` (placeholder).

super::placeholder!(Masq, "masq");
