//! `exthdr` (placeholder).

super::placeholder!(Exthdr, "exthdr");
