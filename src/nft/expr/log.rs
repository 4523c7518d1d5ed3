//! `log` (placeholder).

super::placeholder!(Log, "log");
